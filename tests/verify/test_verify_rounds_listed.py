"""``asz verify`` lists a root's sessions and chains once, each chain's ``rounds/`` once, each session once in the
worker processes (issue 22, session 40).

The checks after the chain checks (whether a session has a chain, a chain behind its landed files, the temporaries a
parse left) listed every ``rounds/`` again, three times; nine checks listed the root's sessions, two its chains. What
the chain checks' listing of ``rounds/`` told is kept (:attr:`asz_core.flow.verify_chain.Seen.rounds`, filled in the
worker processes too), :func:`asz_core.storage.layout.listings_held` lists a root once for one command, and the C
call checking a clean session hands its listing to the chain check of its conversation. The values here are read off
the folders themselves, and the notes are the ones the folders give without what was kept.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

import asz_core.verify.walk as walk
from asz_core.flow.chain import RoundsListed, conversation_dirs
from asz_core.flow.verify_chain import Seen
from asz_core.storage.layout import listings_held, session_dirs, session_listing
from asz_core.verify.leftover import leftover_notes
from asz_core.verify.unparsed import lagging_sessions, unchained_sessions
from asz_core.verify.walk_told import Told

ROUND_NAME = re.compile(r"r(\d{6})-[0-9a-f]{12}\.sf")


def _read_off(rounds: Path) -> RoundsListed:
    """What a chain's ``rounds/`` holds, read off the folder: any round file's name, the highest number and its
    file's name, the temporaries (sorted)."""
    if not rounds.is_dir():
        return RoundsListed(False, 0, "", ())
    names = os.listdir(rounds)
    numbered = sorted((int(m.group(1)), n) for n in names if (m := ROUND_NAME.fullmatch(n)))
    head = numbered[-1] if numbered and numbered[-1][0] else (0, "")
    return RoundsListed(bool(numbered), head[0], head[1], tuple(sorted(n for n in names if n.startswith(".") and n.endswith(".tmp"))))


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_the_chain_checks_listed_of_rounds_is_the_folders(corpus_copy, jobs: int, monkeypatch) -> None:
    root = corpus_copy()
    monkeypatch.setattr(walk, "SESSIONS_PER_JOB", 1)  # 11 sessions: shared among the worker processes with jobs=2
    convs = sorted(os.listdir(root / "_conversations"))
    left, reserved, gone = (root / "_conversations" / c / "rounds" for c in convs[:3])
    (left / ".r000002-abcdefabcdef.sf.4242.tmp").write_bytes(b"half")
    (left / ".r000003-abcdefabcdef.sf.4243.tmp").write_bytes(b"half")
    for name in os.listdir(reserved):
        os.remove(reserved / name)
    (reserved / "r000001-000000000000.sf").write_bytes(b"")  # a reservation: a round's name, no round
    shutil.rmtree(gone)
    seen = Seen()
    report = walk.verify(root, jobs=jobs, seen=seen)
    assert {c: tuple(seen.rounds[c][:3]) + (tuple(sorted(seen.rounds[c][3])),) for c in convs} == \
        {c: _read_off(root / "_conversations" / c / "rounds") for c in convs}
    assert seen.rounds[convs[0]].temporaries and seen.rounds[convs[1]].named and not seen.rounds[convs[2]].named
    # the notes and problems taken from it are those the folders give when listed again
    assert unchained_sessions(root, None, seen.rounds) == unchained_sessions(root) == ([], [convs[2]], [])
    assert lagging_sessions(root, None, seen) == lagging_sessions(root) == []
    sessions, told = session_dirs(root), Told()
    for s in sessions:
        told.by_python(s.name)
    notes = leftover_notes(root, sessions, False, told, seen.rounds)
    assert notes == leftover_notes(root, sessions, False, told) and len(notes) == 1
    assert notes[0].startswith("2 temporary file(s) a parse left") and f"_conversations/{convs[0]}/rounds/.r00000" in notes[0]
    chains = next(s for s in report.sections if s.name == "chains")
    assert [(p.file, p.problem) for p in chains.problems if p.problem == "missing chain"] == \
        [(os.path.join(str(root), "_conversations", convs[2]), "missing chain")]
    assert report.lines() == walk.verify(root, jobs=1).lines()
    # each session's listing, kept from the landed check's C call (in the worker processes with jobs=2), is what the
    # Python listing gives, for every session (the chain checks listed none again)
    want = {os.fspath(s): session_listing(s, skeletons=True, strings=True).files for s in session_dirs(root)}
    assert len(want) == 11 and seen.listed == want


def test_a_root_is_listed_once_within_listings_held(tmp_path: Path) -> None:
    """Within :func:`listings_held` the root's sessions and chains are the first listing's, each call a copy of it;
    outside it, each call lists the root again."""
    root = tmp_path / "root"
    for name in ("s1", "s2", "_conversations/s1", "_conversations/s2"):
        (root / name).mkdir(parents=True)
    with listings_held():
        first, chains = session_dirs(root), conversation_dirs(root)
        (root / "s3").mkdir()
        (root / "_conversations" / "s3").mkdir()
        first.append(root / "not a session")
        assert session_dirs(root) == [root / "s1", root / "s2"]
        assert conversation_dirs(str(root)) == chains == [root / "_conversations" / "s1", root / "_conversations" / "s2"]
    assert session_dirs(root) == [root / "s1", root / "s2", root / "s3"]
    assert conversation_dirs(root) == [root / "_conversations" / n for n in ("s1", "s2", "s3")]
