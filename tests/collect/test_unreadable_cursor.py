"""A cursor file that does not read (trial 13): the error says what to do and why it is safe, and doing it works.

Deleting the cursor is safe while the source still holds what landed: the next pass writes a new cursor from the
landed files (asz_core/collect/cursor_mend.py, ``landed_ahead``), so nothing lands twice and nothing is skipped.
"""

from __future__ import annotations

from collect_helpers import asz
from test_reland import _main_files, collected  # noqa: F401  (the corpus copied and collected into a temporary root)
from asz_core.storage.cursor import read_cursor


def test_an_unreadable_cursor_says_delete_it_and_a_new_one_comes_from_the_landed_files(collected, tmp_path):
    src, root = collected
    session, files = _main_files(root)
    cp = files[0].parent / "transcript.cursor"
    source = src / read_cursor(cp).source
    cp.write_bytes(b"garbage{\n")

    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 1
    (told,) = [ln for ln in p.stderr.splitlines() if ln.startswith(f"error: {cp}: unreadable cursor: ")]
    assert told.endswith("; delete it (or restore it from a backup of the root) and run asz collect again: the next pass "
                         "writes a new cursor from the landed files, moving past each landed line the source still holds "
                         "there (its digest is checked), so nothing lands twice and nothing is skipped"), told

    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 1
    (told,) = [ln for ln in v.stdout.splitlines() if ln.startswith(f"{cp}: bad cursor: ")]
    assert "; delete it (or restore it from a backup of the root) and run asz collect again" in told, v.stdout

    cp.unlink()
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0 and " landed=0 " in p.stdout, p.stdout + p.stderr
    assert "nothing lands twice" in p.stderr
    cur = read_cursor(cp)
    data = source.read_bytes()
    assert cur.offset == len(data) and cur.ord == data.count(b"\n")  # past every line of the source, from the source
    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 0, v.stdout
