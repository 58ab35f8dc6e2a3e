"""The modes note's walk takes what ``asz verify``'s workers walked (issue 22, session 49).

``asz verify`` says once how many entries of the root are open to more users than the umask allows, naming the
first its walk meets (:mod:`asz_core.storage.modes`, fix36c). The worker processes that check a whole root's
sessions now walk each session folder and chain folder they check (``Seen.open_below``), and the note's walk reads
those folders no more: the same count and the same first entry. A real corpus root, closed to the group and others,
then a few entries opened deep inside it: the count is made here with :func:`os.walk` and ``lstat``; the compiled
walk (``asz_core.verify.linescan.open_below``) answers as the Python one for every folder and three masks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from asz_core.flow.verify_chain import Seen
from asz_core.storage import modes
from asz_core.storage.layout import session_dirs
from asz_core.verify import walk
from asz_core.verify.clean import linescan
from cli_helpers import asz_in_process


def _entries(root: Path):
    """``root`` and every entry under it, links included (not followed)."""
    yield str(root)
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            yield os.path.join(top, name)


def _open(root: Path) -> set[str]:
    """The entries under ``root`` (itself included) that are no link and give the group or others a bit."""
    return {p for p in _entries(root) if not stat.S_ISLNK(os.lstat(p).st_mode) and stat.S_IMODE(os.lstat(p).st_mode) & 0o077}


@pytest.fixture
def opened(corpus_copy, tmp_path: Path):
    """A copy of the collected corpus root with every entry closed to the group and others, then three opened deep in
    it (a landed file, a stream folder, a round file) and a link to an open file outside it; ``(root, the opened)``."""
    root = corpus_copy()
    for p in sorted(_entries(root), reverse=True):
        st = os.lstat(p)
        if not stat.S_ISLNK(st.st_mode):
            os.chmod(p, stat.S_IMODE(st.st_mode) & ~0o077)
    assert _open(root) == set()
    sdirs = session_dirs(root)
    landed = next(p for p in _entries(sdirs[2]) if p.endswith(".sd"))
    folder = next(p for p in _entries(sdirs[5]) if os.path.basename(os.path.dirname(p)) == "streams")
    chain = root / "_conversations" / sdirs[7].name / "rounds"
    round_file = str(chain / sorted(os.listdir(chain))[0])
    for p in (landed, folder, round_file):
        os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) | 0o044)
    outside = tmp_path / "outside"
    outside.write_text("x")
    outside.chmod(0o644)
    os.symlink(outside, sdirs[9] / "a-link")  # never followed, never counted
    assert _open(root) == {landed, folder, round_file}
    return root, {landed, folder, round_file}


def test_the_workers_parts_give_the_walk_of_the_whole_root(opened, monkeypatch):
    root, want = opened
    monkeypatch.setattr(walk, "SESSIONS_PER_JOB", 1)  # 11 sessions: shared among the worker processes with jobs=2
    monkeypatch.setattr(modes, "_mask", lambda: 0o077)
    seen = Seen()
    report = walk.verify(str(root), jobs=2, seen=seen)
    assert report.ok, report.lines()
    names = [s.name for s in session_dirs(root)]
    assert set(seen.open_below) == ({os.path.join(str(root), n) for n in names}
                                    | {os.path.join(str(root), "_conversations", n) for n in names})
    assert sum(n for n, _ in seen.open_below.values()) == len(want) == 3
    whole = modes.open_entries(str(root), 0o077)
    assert whole[0] == 3 and whole[1] in want
    assert modes.open_entries(str(root), 0o077, seen.open_below) == whole
    if linescan is not None:  # what asz verify runs: the rest of the root walked in C, the parts taken in C
        assert modes.open_entries(str(root), 0o077, seen.open_below, linescan.open_below) == whole


def test_a_first_entry_at_the_top_is_still_the_first(opened, monkeypatch):
    """An open entry the main process meets before any folder the workers walked (the root's own, a session folder)
    is the first, as the whole walk names it."""
    root, want = opened
    monkeypatch.setattr(walk, "SESSIONS_PER_JOB", 1)
    monkeypatch.setattr(modes, "_mask", lambda: 0o077)
    seen = Seen()
    walk.verify(str(root), jobs=2, seen=seen)
    top = session_dirs(root)[4]
    top.chmod(0o750)
    whole = modes.open_entries(str(root), 0o077)
    assert whole == (4, str(top)) and modes.open_entries(str(root), 0o077, seen.open_below) == whole
    if linescan is not None:
        assert modes.open_entries(str(root), 0o077, seen.open_below, linescan.open_below) == whole


@pytest.mark.skipif(linescan is None, reason="the compiled asz_core.verify.linescan is not built here")
def test_the_compiled_walk_answers_as_the_python_walk(opened):
    root, _ = opened
    folders = [p for p in _entries(root) if stat.S_ISDIR(os.lstat(p).st_mode)]
    assert len(folders) > 50
    for bits in (0o077, 0o044, 0o002):
        for d in folders:
            assert linescan.open_below(d, bits) == modes.open_below(d, bits), (d, oct(bits))
    assert linescan.open_below(str(root / "no such folder"), 0o077) == (0, "")
    # parts: each session folder told as (n, first) by the walk of it, or a made-up pair, taken in its place
    told = {str(s): linescan.open_below(str(s), 0o077) for s in session_dirs(root)}
    made = {str(s): (i, f"{s}/made-up") for i, s in enumerate(session_dirs(root))}
    for parts in (told, made, {}):
        assert linescan.open_below(str(root), 0o077, parts) == modes.open_below(str(root), 0o077, parts)
    assert linescan.open_below(str(root), 0o077, told) == linescan.open_below(str(root), 0o077)
    assert linescan.open_below(str(root), 0o077, made)[0] == sum(range(len(made))) + 1  # and the round file
    with pytest.raises(TypeError):
        linescan.open_below(str(root), 0o077, {str(session_dirs(root)[0]): 3})


def test_asz_verify_says_the_count_and_the_first_of_the_whole_walk(opened, monkeypatch):
    root, want = opened
    monkeypatch.setattr(walk, "SESSIONS_PER_JOB", 1)
    monkeypatch.setattr(modes, "_mask", lambda: 0o077)  # what the console script sets (asz_core.cli.filemode)
    p = asz_in_process("verify", "--root", str(root), "--jobs", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    (note,) = [x for x in p.stderr.splitlines() if "open to more users" in x]
    n, first = modes.open_entries(str(root), 0o077)
    assert n == len(want) and first in want
    assert note.startswith(f"asz verify: note: 3 file(s) and folder(s) of {root} are open to more users than asz "
                           f"allows now (the first: {first}; umask 077)"), note
