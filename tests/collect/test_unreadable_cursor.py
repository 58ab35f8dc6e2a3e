"""A cursor file that does not read (trial 13; session 13): asz collect sets it aside and recovers by itself.

The damaged cursor is moved to ``ROOT/_set_aside/<UTC stamp>/…`` (kept, never deleted) with a ``warning:`` naming it,
and the source is read as one with no cursor: the landed files say how far it landed (asz_core/collect/cursor_mend.py,
``landed_ahead``), so nothing lands twice and nothing is skipped. Landed files the source no longer holds make it a
conflict instead of lines landed twice. Real input: the corpus copied and collected by the real ``asz collect``.
"""

from __future__ import annotations

import json

import pytest

from collect_helpers import asz
from test_reland import _main_files, collected  # noqa: F401  (the corpus copied and collected into a temporary root)
from asz_core.storage.cursor import UNREADABLE_CURSOR, read_cursor
from asz_core.storage.layout import parse_landed_name


def _landed(root):
    return sorted(p.relative_to(root) for p in root.rglob("*.sd") if "_set_aside" not in p.parts)


@pytest.mark.parametrize("damage", ["garbage", "cut short", "a folder"])
def test_a_damaged_cursor_is_set_aside_and_a_new_one_comes_from_the_landed_files(collected, tmp_path, damage):
    src, root = collected
    session, files = _main_files(root)
    cp = files[0].parent / "transcript.cursor"
    whole = cp.read_bytes()
    source = src / read_cursor(cp).source
    before = _landed(root)
    if damage == "garbage":
        cp.write_bytes(b"garbage{\n")
    elif damage == "cut short":
        cp.write_bytes(whole[: len(whole) // 2])  # a cursor cut in the middle of a line
    else:
        cp.unlink()
        cp.mkdir()

    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 1
    (told,) = [ln for ln in v.stdout.splitlines() if ln.startswith(f"{cp}: bad cursor: ")]
    assert told.endswith("; asz collect sets it aside (ROOT/_set_aside/<UTC stamp>/…) and writes a new cursor from the "
                         "landed files, moving past each landed line the source still holds there (its digest is "
                         "checked), so nothing lands twice and nothing is skipped; landed lines the source no longer "
                         "holds make it a conflict"), told

    s = asz("sources", "--source", str(src), "--root", str(root), "--json", cwd=tmp_path)
    [row] = [r for a in json.loads(s.stdout)["adapters"] for x in a["sessions"] for r in x["sources"] if r["cursor"] == str(cp)]
    assert row["state"] == "unreadable" and row["reason"].endswith("; " + UNREADABLE_CURSOR), row

    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0 and " landed=0 " in p.stdout and " conflicts=0 " in p.stdout, p.stdout + p.stderr
    (said,) = [ln for ln in p.stderr.splitlines() if ln.startswith(f"warning: {cp}: damaged cursor: ")]
    aside = said.split("; set aside as ", 1)[1].split(", and the source", 1)[0]
    assert aside.startswith(str(root / "_set_aside")) and aside.endswith(str(cp.relative_to(root))), said
    if damage == "a folder":
        assert (root / aside).is_dir()
    else:
        assert open(aside, "rb").read() == (b"garbage{\n" if damage == "garbage" else whole[: len(whole) // 2])
    assert "nothing lands twice" in p.stderr
    cur = read_cursor(cp)
    data = source.read_bytes()
    assert cur.offset == len(data) and cur.ord == data.count(b"\n") and cur.state == "active"  # counted from the source
    assert _landed(root) == before
    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 0, v.stdout


def test_a_damaged_cursor_of_a_source_that_no_longer_holds_what_landed_is_a_conflict(collected, tmp_path):
    """The landed files cannot all be explained by the source (it was changed at its line 2): nothing is landed again,
    the source is refused as a conflict naming the files left over, and asz sources --reset-conflict --reread resolves it."""
    src, root = collected
    session, files = _main_files(root)
    cp = files[0].parent / "transcript.cursor"
    source = src / read_cursor(cp).source
    data = source.read_bytes()
    at = data.index(b"\n") + 10  # a byte inside line 2, which landed in the first file
    source.write_bytes(data[:at] + (b"Z" if data[at:at + 1] != b"Z" else b"Y") + data[at + 1:])
    before = _landed(root)
    cp.write_bytes(b"\x00\x01garbage")

    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 1 and " landed=0 " in p.stdout and " conflicts=1 " in p.stdout, p.stdout + p.stderr
    assert any(ln.startswith(f"warning: {cp}: damaged cursor: ") for ln in p.stderr.splitlines()), p.stderr
    (told,) = [ln for ln in p.stderr.splitlines() if ln.startswith(f"conflict: {source}: its cursor was damaged")]
    assert f"the landed files from seq {parse_landed_name(files[0].name).seq} on ({len(files)} file(s)) " \
           "do not continue what the source holds at line 1, byte 0" in told, told
    assert _landed(root) == before
    cur = read_cursor(cp)
    assert (cur.state, cur.offset, cur.ord) == ("conflict", 0, 0)


def test_a_damaged_cursor_whose_source_is_gone_is_set_aside_too(collected, tmp_path):
    """Session 14: a damaged cursor of a source that is gone stayed where it was, so ``asz verify`` said ``bad cursor``
    (and that collect sets it aside) for ever. Now the pass sets it aside as it does for a present source, writes no
    cursor in its place (nothing to read), and should the source come back reads it on from the landed files."""
    src, root = collected
    session, files = _main_files(root)
    cp = files[0].parent / "transcript.cursor"
    source = src / read_cursor(cp).source
    kept = source.read_bytes()
    source.unlink()
    before = _landed(root)
    cp.write_bytes(b"garbage{\n")

    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0 and " landed=0 " in p.stdout and " conflicts=0 " in p.stdout, p.stdout + p.stderr
    (said,) = [ln for ln in p.stderr.splitlines() if ln.startswith(f"warning: {cp}: damaged cursor: ")]
    assert f"; its source {source.relative_to(src).as_posix()} is gone: set aside as " in said, said
    aside = said.split(" set aside as ", 1)[1].split(", no cursor written", 1)[0]
    assert aside.startswith(str(root / "_set_aside")) and aside.endswith(str(cp.relative_to(root))), said
    assert open(aside, "rb").read() == b"garbage{\n" and not cp.exists()
    assert _landed(root) == before
    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 0 and "bad cursor" not in v.stdout, v.stdout
    assert "1 stream(s) hold landed files but no cursor" in v.stdout, v.stdout

    source.write_bytes(kept)  # the source comes back: read on from the landed files, nothing lands twice
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0 and " landed=0 " in p.stdout, p.stdout + p.stderr
    cur = read_cursor(cp)
    assert cur.offset == len(kept) and cur.ord == kept.count(b"\n") and cur.state == "active"  # counted from the source
    assert _landed(root) == before
    assert asz("verify", "--root", str(root), cwd=tmp_path).returncode == 0
