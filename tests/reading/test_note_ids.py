"""Every note and line under a table names a conversation (or a session) by the shortest prefix of its id, 8
characters or more, that no other of the root shares, as ``asz ls``, ``asz search`` and ``asz usage session`` name
their rows (trial 20, F10; session 20's leftovers: the usage notes, the torn-tail note, the listing's ``not read``
line, search's retention and no-time lines printed 8 characters, ``ls-trace`` for both LangSmith traces).

Real input: two LangSmith chain runs with one model call each and no time at all, staged in the ingest inbox as the
receiver writes them and landed by ``asz collect --once --adapter langsmith-ingest`` (their ids share ``ls-trace-``);
the bundled example's Claude Code transcript under two session ids that share their first 10 characters, one
ending in a torn tail (its last line without a newline, its mtime two hours back), landed by ``asz collect --once``,
then pruned by ``asz prune`` (``storage.retention.after: 1s``).
"""

from __future__ import annotations

import os
import shutil

import pytest
from cli_helpers import timeless_traces
from reading_helpers import REPO, asz

from asz_core.storage.ids import shown_names

EXAMPLE = REPO / "examples" / "claude-code" / "projects" / "-home-dev-hello-app" / "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35.jsonl"
TWINS = ("7d2f1c3e-1111-4000-8000-000000000001", "7d2f1c3e-2222-4000-8000-000000000002")


def test_shown_names_from_neighbours():
    shown = shown_names(["ls-trace-x-703ca18ffe91", "ls-trace-y-932e4279ff61", "55604662-cf2a", "abc", "abcdefghij"])
    assert [shown(c) for c in ("ls-trace-x-703ca18ffe91", "ls-trace-y-932e4279ff61", "55604662-cf2a", "abc", "abcdefghij")] \
        == ["ls-trace-x", "ls-trace-y", "55604662", "abc", "abcdefgh"]
    assert shown("ls-trace-z") == "ls-trace-z"  # not among them: measured against them alone
    assert shown("55604662-dd") == "55604662-dd"  # "55604662-d" reaches into its last group: shown whole (trial 43c F9)
    assert shown("55604662-dd-ee") == "55604662-d"


@pytest.fixture(scope="module")
def timeless(tmp_path_factory):
    root = tmp_path_factory.mktemp("note-ids") / "root"
    timeless_traces(root)
    return root


def _named(line: str, tail: str) -> list[str]:
    """The ids a line names after ``tail`` (``ID (…), ID (…)`` or ``ID, ID``)."""
    return [x.strip().split(" ")[0] for x in line.split(tail, 1)[1].split("; ")[0].split(", ")]


def test_notes_name_timeless_conversations_whole_enough(timeless):
    root = str(timeless)
    want = ["ls-trace-x", "ls-trace-y"]
    # no times, and they verify: a window cannot place them yet, and nothing is wrong (trial 27b F6)
    r = asz("ls", "--root", root, "--since", "2020-01-01", check=False)
    line = next(x for x in r.stdout.splitlines() if x.startswith("no record with a time of its own yet"))
    assert _named(line, "a later record's time places it): ") == want, line
    r = asz("export", "--root", root, "--since", "2020-01-01", "--format", "md", check=False)
    line = next(x for x in r.stderr.splitlines() if "note: no record with a time of its own yet" in x)
    assert _named(line, "a later record's time places it): ") == want, line
    r = asz("usage", "--root", root)  # the (no time) row's line
    line = next(x for x in r.stdout.splitlines() if x.startswith("(no time): calls"))
    assert _named(line, "is not within one day: ") == want, line
    r = asz("usage", "--root", root, "--since", "2020-01-01", check=False)
    line = next(x for x in r.stdout.splitlines() if x.startswith("! no time"))
    assert _named(line, "in no figure above: ") == want, line
    r = asz("search", "hello", "--root", root, "--since", "2020-01-01", check=False)
    line = next(x for x in r.stderr.splitlines() if "with no time of their own" in x)
    assert _named(line, "may lie in it or not: ") == want, line
    for s in want:  # each given back names its conversation
        assert asz("conversation", s, "--root", root).stdout.startswith(f"conversation {s}-")


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    base = tmp_path_factory.mktemp("twins")
    proj = base / "projects" / "-home-dev-hello-app"
    proj.mkdir(parents=True)
    for sid in TWINS:
        shutil.copyfile(EXAMPLE, proj / f"{sid}.jsonl")
    torn = proj / f"{TWINS[1]}.jsonl"
    with torn.open("ab") as f:
        f.write(b'{"type":"user","message"')  # a line its writer never finished
    for p in proj.iterdir():
        os.utime(p, (1_700_000_000, 1_700_000_000))
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    return base, root


def test_torn_tail_note_names_it_whole_enough(twins):
    _, root = twins
    for cmd in (("usage",), ("conversation", TWINS[1][:10])):
        r = asz(*cmd, "--root", str(root))
        notes = [x for x in r.stderr.splitlines() if "torn tail" in x]
        assert len(notes) == 1 and notes[0].startswith(f"asz {cmd[0]}: note: 7d2f1c3e-2 is counted without the record"), r.stderr


def test_search_retention_line_names_sessions_whole_enough(twins):
    base, root = twins
    pruned = base / "pruned"
    shutil.copytree(root, pruned)
    cfg = base / "asz.yaml"
    cfg.write_text("storage:\n  retention:\n    after: 1s\n    require_accepted: false\n")
    out = asz("prune", "--root", str(pruned), "--config", str(cfg)).stdout
    assert out.count("removed ") == 2, out
    r = asz("search", "hello", "--root", str(pruned))
    line = next(x for x in r.stderr.splitlines() if "removed by retention" in x)
    assert _named(line, "so they are not searchable: ") == ["7d2f1c3e-1", "7d2f1c3e-2"], line
