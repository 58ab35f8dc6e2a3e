"""The landed walk's own listing tells the notes after it what they once listed every session again for (issue 22,
session 32): landing stamps that go back along the seqs, and the temporaries writers and parses left.

A clean session is checked by one C call (``linescan.session``), which lists it; it now also answers whether its
stamps go back and where its temporaries are (:class:`asz_core.verify.walk_told.Told`), so ``stamp_notes`` and the
leftover notes look again only at the sessions it names. The notes must be exactly what the Python finds: the
Claude Code corpus as ``asz collect`` landed it, with temporaries put in every place the notes look (the session
folder, a stream folder, ``provider_body/``, ``index/``, a chain's ``rounds/``), one behind a symbolic link the
notes do not follow, and one session's stamps made to go back; the counts are those put there, and the report is the
same with the compiled call and without it, in one process and in two.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import asz_core.verify.clean as clean
import asz_core.verify.stamps as stamps
import asz_core.verify.walk as walk
from asz_core.storage.layout import session_dirs

pytestmark = pytest.mark.skipif(clean.linescan is None or clean.cursor_values is None,
                                reason="asz_core.verify.linescan or sessiondata.bytescan was not built (setup.py's optional extensions)")


def _temporary(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".{name}.4242.tmp"
    path.write_bytes(b"half")
    return path


def _stamps_back(sdir: Path) -> str:
    """Rename the session's last landed file (by seq) to a stamp ten years before its first file's; its name."""
    files = sorted(sdir.glob("streams/*/*.sd"), key=lambda p: int(p.name.rsplit("-", 1)[1][:-3]))
    last = files[-1]
    prefix, _, seq = last.name.split("-")
    moved = last.with_name(f"{prefix}-20151202T101112.123456789Z-{seq}")
    last.rename(moved)
    return moved.name


@pytest.fixture
def placed(corpus_copy, tmp_path: Path):
    """A corpus root with temporaries in every place the notes look and one session's stamps going back:
    (root, session temporaries put there, parse temporaries put there, the session whose stamps go back)."""
    root = corpus_copy(tmp_path / "root")
    sdirs = session_dirs(root)
    mine = [_temporary(sdirs[0], "session.state"), _temporary(sdirs[1] / "streams" / "main", "transcript-x.sd"),
            _temporary(sdirs[2] / "provider_body", "provider_body-x.sd")]
    parse = [_temporary(sdirs[3] / "index", "index.state"),
             _temporary(next((root / "_conversations").iterdir()) / "rounds", "r1-x.sf")]
    _stamps_back(sdirs[5])
    return root, sorted(mine), sorted(parse), sdirs[5].name


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_notes_are_what_was_put_there_with_and_without_the_c_call(placed, jobs: int, monkeypatch) -> None:
    root, mine, parse, back = placed
    monkeypatch.setattr(walk, "SESSIONS_PER_JOB", 1)  # 11 sessions: shared among the worker processes with jobs=2
    asked: list[list[str]] = []
    real = stamps.stamp_notes
    monkeypatch.setattr(stamps, "stamp_notes", lambda r, s: asked.append([p.name for p in s]) or real(r, s))
    with_c = walk.verify_root(root, jobs=jobs, digests=(d_c := {}))
    assert asked == [[back]]  # the other sessions' stamps were told by their walk, not listed again
    notes = with_c.sections[0].notes
    assert sum(n.startswith(f"{len(mine)} temporary file(s) a writer left") and os.path.relpath(mine[0], root) in n
               for n in notes) == 1, notes
    assert sum(n.startswith(f"{len(parse)} temporary file(s) a parse left") and os.path.relpath(parse[0], root) in n
               for n in notes) == 1, notes
    assert sum(n.startswith(f"{back}: the landing stamps go backwards") for n in notes) == 1, notes
    assert with_c.ok and with_c.sections[0].counts["stamps_back"] == 1
    monkeypatch.setattr(clean, "linescan", None)
    without = walk.verify_root(root, jobs=jobs, digests=(d_py := {}))
    assert with_c.lines() == without.lines() and with_c.as_dict() == without.as_dict() and d_c == d_py
    assert len(asked) == 2 and len(asked[1]) == 11  # without the C call every session is looked at, as before


def test_the_c_call_tells_what_the_python_finds(placed) -> None:
    """Per session, what ``linescan.session`` tells equals what the Python notes find in it."""
    from asz_core.verify.leftover import leftover_temporaries
    from asz_core.verify.walk_told import Told

    root, _, _, back = placed
    for sdir in session_dirs(root):
        told = Told()
        assert clean.clean_session(sdir, None, told) is not None, sdir  # none of the changes is a problem
        assert told.stamps == ([sdir.name] if sdir.name == back else [])
        if told.unseen:
            assert told.unseen == [sdir.name] and (sdir / "streams" / "linked").is_symlink()
        else:
            assert sorted(map(Path, told.temporaries)) == leftover_temporaries([sdir])
        index = sdir / "index"
        assert sorted(map(Path, told.index_temporaries)) == sorted(p for p in index.iterdir() if p.name.startswith(".")
                                                                   and p.name.endswith(".tmp"))


def test_a_session_index_the_state_check_read_without_the_untimed_mark_is_not_read_again(corpus_copy, tmp_path: Path,
                                                                                         monkeypatch) -> None:
    """The state files' check reads each session index whole; the ``untimed`` check after it reads again only an
    index whose bytes hold its mark (``b'"untimed'``), as counted here straight from each index file."""
    import asz_core.verify.untimed as untimed
    from asz_core.flow.verify_chain import Seen
    from asz_core.verify.walk import verify

    root = corpus_copy(tmp_path / "root")
    seen = Seen()
    verify(root, jobs=1, seen=seen)
    want = {str(s): untimed.MARK in (s / "index" / "entries.jsonl").read_bytes() for s in session_dirs(root)}
    assert len(want) == 11 and seen.marked == want
    read: list[str] = []
    real = untimed.untimed_in_session
    monkeypatch.setattr(untimed, "untimed_in_session", lambda s: read.append(str(s)) or real(s))
    assert untimed.untimed_section(root, None, seen.marked) == untimed.untimed_section(root)
    assert read[:len(read) - 11] == [s for s, m in want.items() if m] and len(read) - 11 == sum(want.values())
