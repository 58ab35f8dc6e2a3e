"""``asz server`` reads the sessions whose files changed before its sweep of every source (session 46).

Two fresh users saw appended lines reach the page 20-35 s late under load 20: a pass looked at every session, parsed,
kept list rows and updated the search index, and the appended session's round was written 3-8 s into a 10-20 s
pass. The pass now lands and parses the sessions of the files its :class:`~asz_core.cli.server_follow.SourceWatch`
saw change first (:func:`asz_core.cli.server_pass.read_first`), then sweeps. Not timed (bench/server_lag.py times
it): the order is read from the storage root itself at the moment the pass says the changed sessions were read.

Real input: two Claude Code transcripts of the corpus (../shared/corpus, copied as sources: a line is appended to
each), landed and parsed by the real pass; the appended line is a real line of the same transcript under new ids.
The session appended to but not changed-first is in the project folder a sweep reaches first.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

FIRST = ("-Users-alex-workspace-personal-site-next", "b25638d7-b104-4f06-a797-70ac33d069ed")  # swept first
HOT = ("-home-user-sample-project", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")  # the one the server saw change


def _append(path: Path) -> None:
    """Append the transcript's last user or assistant line again under a new ``uuid`` (its ``parentUuid`` the last
    line's) and, when it has one, a new message id."""
    lines = path.read_bytes().splitlines()
    last = json.loads(lines[-1])
    rec = next(r for r in map(json.loads, reversed(lines)) if r.get("type") in ("user", "assistant"))
    rec = dict(rec, uuid=str(uuid.uuid4()), parentUuid=last.get("uuid"))
    if isinstance(rec.get("message"), dict) and "id" in rec["message"]:
        rec["message"] = dict(rec["message"], id="msg_" + uuid.uuid4().hex[:24])
    with open(path, "ab") as f:
        f.write(json.dumps(rec).encode() + b"\n")


def _landed_bytes(root: Path, session: str) -> int:
    from asz_core.storage.cursor import read_cursor
    from asz_core.storage.layout import cursor_files

    return next(c.offset for cp in cursor_files(root / session) if (c := read_cursor(cp)) and c.source.endswith(".jsonl"))


@pytest.fixture
def served(corpus_projects, tmp_path):
    from asz_core.cli.server_pass import PassSpec, make_collectors, run_pass
    from asz_core.config import load_config

    src, root = tmp_path / "src", tmp_path / "root"
    for folder, session in (FIRST, HOT):
        (src / folder).mkdir(parents=True)
        shutil.copyfile(corpus_projects / folder / f"{session}.jsonl", src / folder / f"{session}.jsonl")
    cols = make_collectors(PassSpec(str(root), None, (), (str(src),), "10m", 1))
    cfg = load_config(None)
    first = run_pass(cols, root, cfg, 1)
    assert first["landed"] == 2 and first["errors"] == 0
    return src, root, cols, cfg


def test_the_changed_session_is_landed_and_parsed_before_the_sweep(served):
    from asz_core.cli.server_pass import run_pass
    from asz_core.flow.parse_workers import chain_is_current

    src, root, cols, cfg = served
    paths = {s: src / folder / f"{s}.jsonl" for folder, s in (FIRST, HOT)}
    before = {s: p.stat().st_size for s, p in paths.items()}
    for p in paths.values():
        _append(p)
    seen: dict = {}

    def say(words: str) -> None:
        if words.startswith("collecting: the changed sessions read first") and not seen:
            seen.update(words=words, hot=_landed_bytes(root, HOT[1]), hot_current=chain_is_current(root, HOT[1]),
                        other=_landed_bytes(root, FIRST[1]))

    counts = run_pass(cols, root, cfg, 1, say, [str(paths[HOT[1]])])
    assert seen["words"] == "collecting: the changed sessions read first, 1 of 1 done"
    assert seen["hot"] == paths[HOT[1]].stat().st_size and seen["hot_current"]  # landed whole and its rounds written
    assert seen["other"] == before[FIRST[1]]  # the sweep had not reached the other session yet
    assert _landed_bytes(root, FIRST[1]) == paths[FIRST[1]].stat().st_size  # then the sweep landed it
    assert chain_is_current(root, FIRST[1])
    assert (counts["landed"], counts["records"], counts["rounds"], counts["errors"]) == (2, 2, 2, 0)


def test_no_change_seen_is_a_sweep_alone(served):
    from asz_core.cli.server_pass import run_pass

    src, root, cols, cfg = served
    _append(src / HOT[0] / f"{HOT[1]}.jsonl")
    said: list[str] = []
    counts = run_pass(cols, root, cfg, 1, said.append, [])
    assert not any("read first" in w for w in said)
    assert (counts["landed"], counts["records"], counts["rounds"]) == (1, 1, 1)


def test_the_watch_names_the_files_changed_since_a_look(served):
    from asz_core.cli.server_follow import SourceWatch

    src, root, cols, cfg = served
    w = SourceWatch([src])
    w.look()
    before = w.stats
    assert len(before) == 2
    hot = src / HOT[0] / f"{HOT[1]}.jsonl"
    _append(hot)
    w.look()
    assert w.changed_since(before) == [str(hot)]
    new = src / HOT[0] / "0c0ffee0-0000-4000-8000-000000000000.jsonl"
    new.write_bytes(hot.read_bytes().splitlines(keepends=True)[0])
    w.look()
    assert w.changed_since(before) == sorted([str(hot), str(new)])


def test_the_loop_hands_its_pass_the_files_changed_since_the_last_pass_started(served):
    """:class:`~asz_core.cli.server_pass.CollectLoop` notes the files as each pass starts (``_look``); the next pass is
    given those that changed between the two starts, and the first pass none (it reads everything anyway)."""
    from asz_core.cli.server_follow import SourceWatch
    from asz_core.cli.server_pass import CollectLoop, PassSpec
    from asz_core.view.state import ViewState

    src, root, cols, cfg = served
    loop = CollectLoop(ViewState(root), PassSpec(str(root), None, (), (str(src),), "10m", 1), cfg, 600.0,
                       follow=SourceWatch([src]))
    loop._look()
    assert loop.changed == []
    hot = src / HOT[0] / f"{HOT[1]}.jsonl"
    _append(hot)
    loop.follow.look()  # the loop's waits look too: what counts is the last pass's start
    loop._look()
    assert loop.changed == [str(hot)]
    loop._look()
    assert loop.changed == []


def test_a_discovery_error_is_said_once_in_a_pass_that_reads_first(served, capsys):
    """The first reading discovers every source as the sweep does; what discovery tells (here a dangling link's
    ``error:``) is said by the sweep alone, once in the pass, and counted once (review46 of 1175aff5: said twice)."""
    from asz_core.cli.server_pass import run_pass

    src, root, cols, cfg = served
    link = src / HOT[0] / "0c0ffee0-0000-4000-8000-000000000001.jsonl"
    link.symlink_to(src.parent / "nowhere.jsonl")
    hot = src / HOT[0] / f"{HOT[1]}.jsonl"
    _append(hot)
    capsys.readouterr()
    counts = run_pass(cols, root, cfg, 1, None, [str(hot)])
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if line.startswith(f"error: {link}: ") and "leads nowhere" in line]
    assert len(said) == 1, err
    assert (counts["landed"], counts["errors"]) == (1, 1)
    _append(hot)
    counts = run_pass(cols, root, cfg, 1, None, [str(hot)])  # the next pass says it again, once, as asz collect does
    err = capsys.readouterr().err.splitlines()
    assert len([line for line in err if line.startswith(f"error: {link}: ")]) == 1, err
    assert (counts["landed"], counts["errors"]) == (1, 1)
