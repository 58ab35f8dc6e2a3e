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
    JSON line's) and, when it has one, a new message id."""
    lines = [rec for line in path.read_bytes().splitlines() if (rec := _json(line)) is not None]
    last = lines[-1]
    rec = next(r for r in reversed(lines) if r.get("type") in ("user", "assistant"))
    rec = dict(rec, uuid=str(uuid.uuid4()), parentUuid=last.get("uuid"))
    if isinstance(rec.get("message"), dict) and "id" in rec["message"]:
        rec["message"] = dict(rec["message"], id="msg_" + uuid.uuid4().hex[:24])
    with open(path, "ab") as f:
        f.write(json.dumps(rec).encode() + b"\n")


def _json(line: bytes) -> dict | None:
    try:
        return json.loads(line)
    except ValueError:
        return None


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
    """A pass that reads first discovers once (:class:`~asz_core.collect.collector.PassParts`); what discovery tells
    (here a dangling link's ``error:``) is said once in the pass and counted once (review46 of 1175aff5: said twice)."""
    src, root, cols, cfg = served
    link = src / HOT[0] / "0c0ffee0-0000-4000-8000-000000000001.jsonl"
    link.symlink_to(src.parent / "nowhere.jsonl")
    hot = src / HOT[0] / f"{HOT[1]}.jsonl"
    _append(hot)
    counts, err = _pass(served, hot, capsys)
    said = [line for line in err if line.startswith(f"error: {link}: ") and "leads nowhere" in line]
    assert len(said) == 1, err
    assert (counts["landed"], counts["errors"]) == (1, 1)
    _append(hot)
    counts, err = _pass(served, hot, capsys)  # the next pass says it again, once, as asz collect does
    assert len([line for line in err if line.startswith(f"error: {link}: ")]) == 1, err
    assert (counts["landed"], counts["errors"]) == (1, 1)


def _pass(served, changed: Path, capsys) -> tuple[dict, list[str]]:
    """A real pass (``run_pass``) of ``served``'s collectors that reads ``changed`` first: its counts and stderr lines."""
    from asz_core.cli.server_pass import run_pass

    src, root, cols, cfg = served
    capsys.readouterr()
    counts = run_pass(cols, root, cfg, 1, None, [str(changed)])
    return counts, capsys.readouterr().err.splitlines()


def _main_lines(root: Path, session: str) -> int:
    """The main transcript's source lines the view's document of ``session`` is drawn from (``/api/c/ID/view``'s
    ``files``: each landed file's lines less its header and closing line), as bench/server_lag.py counts them."""
    from asz_core.view.state import ViewState

    files = json.loads(ViewState(root).document(session, ()).body)["files"]
    return sum(f["lines"] - 2 for f in files if f.get("kind") == "transcript" and f.get("stream") == "main")


def test_a_bad_line_appended_to_a_changed_session_is_said_once_and_the_good_lines_shown(served, capsys):
    """A line that is not JSON between two good ones, appended to the session the server saw change: the pass says its
    warning once (landed first, never landed again by the rest of the pass), counts no error, and the view's document
    holds every line of the transcript (counted from the file itself), the bad one kept verbatim."""
    src, root, cols, cfg = served
    hot = src / HOT[0] / f"{HOT[1]}.jsonl"
    _append(hot)
    with open(hot, "ab") as f:
        f.write(b"{not json\n")
    _append(hot)
    counts, err = _pass(served, hot, capsys)
    said = [line for line in err if line.startswith(f"warning: {hot}: ") and "not valid JSON" in line]
    assert len(said) == 1, err
    assert (counts["sessions"], counts["landed"], counts["records"], counts["rounds"], counts["errors"]) == (2, 1, 3, 1, 0)
    assert _main_lines(root, HOT[1]) == len(hot.read_bytes().splitlines())


def test_a_parse_error_of_a_session_read_first_is_said_once_and_counted_once(served, capsys):
    """The root's id table unreadable (overwritten, as a damaged disk leaves it): the changed session read first is
    assembled alone, its rounds written through its last line, and its parse says why (``error: SESSION: the root's id
    table …``). Said once in the pass and counted once in its ``errors``, as a pass with no change seen (the sweep
    alone) says and counts it: before, the first parse said nothing and its chain was then current, so the pass's
    parse left it: no line, errors=0."""
    from asz_core.flow.shared_ids import TABLE

    src, root, cols, cfg = served
    hot = src / HOT[0] / f"{HOT[1]}.jsonl"
    _append(hot)
    table = root / TABLE
    for made in table.parent.glob(table.name + "*"):  # the table and its journal files
        made.unlink()
    table.write_bytes(b"not a database\n" * 256)
    counts, err = _pass(served, hot, capsys)
    said = [line for line in err if line.startswith(f"error: {HOT[1]}: the root's id table")]
    assert len(said) == 1, err
    assert (counts["landed"], counts["rounds"], counts["errors"]) == (1, 1, 1)
    assert _main_lines(root, HOT[1]) == len(hot.read_bytes().splitlines())


def test_a_chain_that_does_not_verify_is_said_once_and_counted_once_in_a_pass_that_reads_first(served, capsys):
    """A round of the changed session's chain damaged (one byte): its first parse refuses it and leaves its chain behind;
    the pass's parse of every session does not parse it again (its refusal said twice, counted twice), and the next
    pass says it again, once."""
    from asz_core.storage.layout import conversation_path

    src, root, cols, cfg = served
    hot = src / HOT[0] / f"{HOT[1]}.jsonl"
    first = next((Path(conversation_path(root, HOT[1])) / "rounds").glob("r000001-*"))
    data = bytearray(first.read_bytes())
    data[len(data) // 2] ^= 1
    first.write_bytes(bytes(data))
    for n in range(2):
        _append(hot)
        counts, err = _pass(served, hot, capsys)
        said = [line for line in err if line.startswith(f"error: {HOT[1]}: ") and "does not match" in line]
        assert len(said) == 1, (n, err)
        assert (counts["landed"], counts["rounds"], counts["errors"]) == (1, 0, 1)
