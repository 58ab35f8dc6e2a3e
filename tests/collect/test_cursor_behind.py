"""An append cursor moved back while its source stayed as it was (trial 4, F5).

Real input: the corpus collected once by the real ``asz collect --once`` (tests/conftest.py). The main transcript's
cursor of one session is edited as the trial did (offset 1000, ord 3; its tail digest left as it was): the next
pass took the untouched source for rewritten and refused it for good, and ``asz sources --reset-conflict`` said
"still rewritten". The landed files say where the cursor stood; the source's bytes there are checked against the
last landed record's ``sha`` (seed 000, Record) before the cursor is set back.
"""

from __future__ import annotations

import re
import shutil

import attrs
from cli_helpers import asz_in_process

from asz_core.storage.cursor import read_cursor, write_cursor

NL = b"\n"
SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"


def _run(*args, home):
    return asz_in_process(*args, env={"CLAUDE_CONFIG_DIR": str(home)})


def _moved_back(root):
    cp = root / SID / "streams" / "main" / "transcript.cursor"
    true = read_cursor(cp)
    assert true.ord > 3 and true.offset > 1000 and true.tail_sha256
    write_cursor(cp, attrs.evolve(true, ord=3, offset=1000))
    return cp, true


def test_a_cursor_moved_back_is_set_back_from_its_landed_files(corpus_copy, corpus_dir, tmp_path):
    root, src = corpus_copy(), corpus_dir / "claude-code" / "projects"
    cp, true = _moved_back(root)
    p = _run("collect", "--once", "--source", str(src), "--root", str(root), home=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "conflict" not in p.stderr and " landed=0 " in p.stdout
    assert (f"warning: {cp}: the cursor names ord 3, offset 1000, but its landed file seq {true.last_seq} ends with "
            f"ord {true.ord} at byte {true.offset}: the cursor was moved back or damaged; the source still holds") in p.stderr
    now = read_cursor(cp)
    assert (now.ord, now.offset, now.tail_sha256, now.state) == (true.ord, true.offset, true.tail_sha256, "active")
    v = _run("verify", "--root", str(root), home=tmp_path)
    assert v.returncode == 0 and "more than once" not in v.stdout, v.stdout


def test_reset_conflict_sets_it_back_too(corpus_copy, corpus_dir, tmp_path):
    """A cursor already refused as rewritten (what the trial's collect did) is mended by --reset-conflict."""
    root, src = corpus_copy(), corpus_dir / "claude-code" / "projects"
    cp, true = _moved_back(root)
    write_cursor(cp, attrs.evolve(read_cursor(cp), state="conflict", reason="rewritten: the 1000 bytes before offset 1000 changed"))
    p = _run("sources", "--reset-conflict", SID, "--source", str(src), "--root", str(root), home=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "the cursor was moved back or damaged" in p.stdout + p.stderr and "still rewritten" not in p.stdout + p.stderr
    now = read_cursor(cp)
    assert (now.ord, now.offset, now.state) == (true.ord, true.offset, "active")
    c = _run("collect", "--once", "--source", str(src), "--root", str(root), home=tmp_path)
    assert c.returncode == 0 and " landed=0 " in c.stdout, c.stdout + c.stderr


def test_a_source_changed_under_a_cursor_moved_back_stays_a_conflict_and_says_both(corpus_copy, corpus_dir, tmp_path):
    root = corpus_copy()
    src = tmp_path / "projects"
    shutil.copytree(corpus_dir / "claude-code" / "projects", src)
    cp, true = _moved_back(root)
    (f,) = [p for p in src.rglob(f"{SID}.jsonl")]
    data = bytearray(f.read_bytes())
    last_line_start = data.rindex(b"\n", 0, true.offset - 1) + 1
    data[last_line_start + 2] ^= 0x01  # a byte of the last landed line: the source no longer holds what landed
    f.write_bytes(bytes(data))
    p = _run("collect", "--once", "--source", str(src), "--root", str(root), home=tmp_path)
    assert p.returncode == 1
    changed = data[:last_line_start].count(b"\n") + 1  # the line the byte is in, counted in the source (trial 34a F1)
    assert f"rewritten: the 1000 bytes before offset 1000 changed; line {changed} changed; the cursor names ord 3" in p.stderr
    assert "the source no longer holds that record's line either" in p.stderr
    assert read_cursor(cp).state == "conflict"


def _copied(corpus_copy, corpus_dir, tmp_path):
    """(root, source folder, the main transcript cursor of SID, that cursor as read, SID's source file): a copy of the
    collected root and of the corpus' projects folder, for a test to change."""
    root = corpus_copy()
    src = tmp_path / "projects"
    shutil.copytree(corpus_dir / "claude-code" / "projects", src)
    cp = root / SID / "streams" / "main" / "transcript.cursor"
    (f,) = src.rglob(f"{SID}.jsonl")
    return root, src, cp, read_cursor(cp), f


def test_a_cursor_moved_ahead_past_the_source_is_set_back_and_what_follows_lands(corpus_copy, corpus_dir, tmp_path):
    """Trial 41b, F1: offset and ord edited past what landed and past the source's end (offset + 1,000,000, ord + 7,
    its tail digest kept). verify says ``cursor ahead`` (no lost file, so no --reland hint: --reland has nothing to
    land); --reset-conflict of the old refusal and the next collect set it back from the landed files, and the lines
    appended to the source since land once each (counted in the source file itself)."""
    root, src, cp, true, f = _copied(corpus_copy, corpus_dir, tmp_path)
    assert f.stat().st_size == true.offset and f.read_bytes().count(b"\n") == true.ord  # all of it landed
    write_cursor(cp, attrs.evolve(true, ord=true.ord + 7, offset=true.offset + 1_000_000))
    v = _run("verify", "--root", str(root), home=tmp_path)
    assert v.returncode == 1
    (line,) = [x for x in v.stdout.splitlines() if "transcript.cursor" in x and SID in x]
    assert (f"cursor ahead [ord]: the cursor names ord {true.ord + 7}, offset {true.offset + 1_000_000} and last_seq "
            f"{true.last_seq}, but seq {true.last_seq} (") in line and f"ends with ord {true.ord} at byte {true.offset}" in line
    assert "--reland" not in line and "end gap" not in v.stdout
    # the refusal an older asz wrote (what the trial's collect did) is lifted by --reset-conflict
    write_cursor(cp, attrs.evolve(read_cursor(cp), state="conflict",
                                  reason=f"truncated: the source has {true.offset} bytes, {true.offset + 1_000_000} already landed"))
    r = _run("sources", "--reset-conflict", SID, "--source", str(src), "--root", str(root), home=tmp_path)
    assert r.returncode == 0 and "the cursor was moved ahead or damaged" in r.stdout + r.stderr, r.stdout + r.stderr
    assert (read_cursor(cp).ord, read_cursor(cp).offset, read_cursor(cp).state) == (true.ord, true.offset, "active")
    write_cursor(cp, attrs.evolve(read_cursor(cp), ord=true.ord + 7, offset=true.offset + 1_000_000))  # and again
    more = b'{"type":"system","uuid":"u-41b-1"}\n{"type":"system","uuid":"u-41b-2"}\n'
    with f.open("ab") as out:  # two lines appended after the cursor moved
        out.write(more)
    p = _run("collect", "--once", "--source", str(src), "--root", str(root), home=tmp_path)
    assert p.returncode == 0 and "conflict" not in p.stderr, p.stdout + p.stderr
    assert (f"warning: {cp}: the cursor names ord {true.ord + 7}, offset {true.offset + 1_000_000}, but its landed file "
            f"seq {true.last_seq} ends with ord {true.ord} at byte {true.offset}: the cursor was moved ahead or damaged; "
            f"the source still holds that record's line, so the cursor is set back to ord {true.ord}") in p.stderr
    now = read_cursor(cp)
    assert (now.ord, now.offset, now.state) == (f.read_bytes().count(b"\n"), f.stat().st_size, "active")
    assert f" records={more.count(NL)} bytes={len(more)} " in p.stdout, p.stdout
    v = _run("verify", "--root", str(root), home=tmp_path)
    assert v.returncode == 0 and "more than once" not in v.stdout, v.stdout


def _hand_edit(cp, **values) -> None:
    """Change ``key value`` lines of the cursor file ``cp`` in place as a person with an editor would: the padding,
    the other lines and its check line left as they are (so the check no longer holds)."""
    data = cp.read_bytes()
    for key, value in values.items():
        data, n = re.subn(rb"(?m)^(%s +)\S+$" % key.encode(), rb"\g<1>%d" % value, data)
        assert n == 1, key
    cp.write_bytes(data)


def test_a_cursor_edited_to_the_sources_size_or_in_its_ord_alone_is_held_against_its_landed_files(
        corpus_copy, corpus_dir, tmp_path):
    """Session 41's leftovers: a cursor edited ahead to exactly the source's size with its mtime the source's (step 3's
    nothing new: no byte of the source read) left the lines between unlanded for good, and one whose ord alone was
    edited numbered what landed next from there; verify alone said so. The cursor's check line (written by asz) no
    longer holds, so the pass holds it against its landed files first: set back, what follows lands once, counted in
    the source file itself, and verify is clean."""
    root, src, cp, true, f = _copied(corpus_copy, corpus_dir, tmp_path)
    more = b'{"type":"system","uuid":"u-42c-1"}\n{"type":"system","uuid":"u-42c-2"}\n{"type":"system","uuid":"u-42c-3"}\n'
    with f.open("ab") as out:
        out.write(more)
    st = f.stat()
    # ahead to its size, with its mtime (and inode: the source was copied here): a pass that reads nothing of it
    _hand_edit(cp, offset=st.st_size, size=st.st_size, mtime=st.st_mtime_ns, dev=st.st_dev, ino=st.st_ino)
    assert read_cursor(cp, checked=True).edited
    p = _run("collect", "--once", "--source", str(src), "--root", str(root), home=tmp_path)
    assert p.returncode == 0 and "conflict" not in p.stderr, p.stdout + p.stderr
    assert (f"warning: {cp}: the cursor names ord {true.ord}, offset {st.st_size}, but its landed file seq "
            f"{true.last_seq} ends with ord {true.ord} at byte {true.offset}: the cursor was moved ahead or damaged; "
            "the source still holds that record's line") in p.stderr
    assert f" records={more.count(NL)} bytes={len(more)} " in p.stdout, p.stdout
    now = read_cursor(cp, checked=True)
    lines = f.read_bytes().count(NL)
    assert (now.ord, now.offset, now.state, now.edited) == (lines, st.st_size, "active", False)

    _hand_edit(cp, ord=lines + 5)  # its ord alone
    p = _run("collect", "--once", "--source", str(src), "--root", str(root), home=tmp_path)
    assert p.returncode == 0 and " landed=0 " in p.stdout, p.stdout + p.stderr
    assert (f"warning: {cp}: the cursor names ord {lines + 5}, offset {st.st_size}, but its landed file seq "
            f"{now.last_seq} ends with ord {lines} at byte {st.st_size}: the cursor was moved ahead or damaged") in p.stderr
    assert (read_cursor(cp).ord, read_cursor(cp, checked=True).edited) == (lines, False)
    with f.open("ab") as out:
        out.write(b'{"type":"system","uuid":"u-42c-4"}\n')
    p = _run("collect", "--once", "--source", str(src), "--root", str(root), home=tmp_path)
    assert p.returncode == 0 and " records=1 " in p.stdout and "warning" not in p.stderr, p.stdout + p.stderr
    assert read_cursor(cp).ord == lines + 1 == f.read_bytes().count(NL)
    v = _run("verify", "--root", str(root), home=tmp_path)
    assert v.returncode == 0 and "more than once" not in v.stdout and "cursor" not in v.stdout, v.stdout
