"""The "not searched" notes follow the search's own filters (session 13: they named every gap of the root whatever
``--project``, ``--since``/``--until``, ``--dialect`` or ``--model`` asked): a conversation the filters leave out is
not said to be unsearched; one they keep is, in ``asz search``'s notes, ``--json --held-back`` and
``/api/search?held_back=1`` alike. A conversation with no usable round is named whatever the filters (what it holds is
not known).

Real input: two projects of the Claude Code corpus (session de3b8b19, whose text holds ``hello``; session cb2e607c, a
main transcript and three subagents' streams) collected by the real ``asz collect --once``, then the landed file of one
of cb2e607c's subagent streams deleted (its main transcript still read). The filter values come from cb2e607c's source
transcript (its first ``cwd``, the project; its model) and from every source file of the session (the first and last
``timestamp``: the session's span, the deleted stream's times within it).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import pytest

from asz_core.reading.search_api import answer
from reading_helpers import asz, asz_process

PROJECTS = ("-home-user-claude-reliability", "-Users-alex-workspace-coderabbit-review-helper")
SID = "cb2e607c-c758-415a-8b45-c49e4631906a"
STREAM = "2b93909d"  # agent-2b93909d.jsonl


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(status, message)


@pytest.fixture(scope="module")
def gap_root(corpus_dir, tmp_path_factory):
    """(root with cb2e607c's subagent stream file deleted, the file relative to root, the source's first cwd, first and last
    time, model)."""
    base = tmp_path_factory.mktemp("gaps-filtered")
    for name in PROJECTS:
        shutil.copytree(corpus_dir / "claude-code" / "projects" / name, base / "projects" / name)
    asz_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    root = base / "root"
    lines = [json.loads(x) for x in (base / "projects" / PROJECTS[1] / f"{SID}.jsonl").read_text().splitlines() if x.strip()]
    cwd = next(x["cwd"] for x in lines if x.get("cwd"))
    every = [json.loads(x) for f in sorted((base / "projects" / PROJECTS[1]).glob("*.jsonl"))  # the session's span: its
             for x in f.read_text().splitlines() if x.strip()]  # subagents' files too (the deleted one among them)
    times = sorted(dt.datetime.fromisoformat(x["timestamp"].replace("Z", "+00:00")) for x in every if x.get("timestamp"))
    model = next(x["message"]["model"] for x in lines if isinstance(x.get("message"), dict) and x["message"].get("model"))
    (path,) = sorted((root / SID / "streams" / STREAM).glob("transcript-*.sd"))
    os.chmod(path.parent, 0o755)
    path.unlink()
    return root, path.relative_to(root).as_posix(), cwd, times[0], times[-1], model


def _said(root: Path, *flags: str) -> dict:
    """What ``asz search hello FLAGS`` tells of unsearched files: stdout notes, stderr warnings, --json --held-back,
    the API's answer (each: the files named not searched)."""
    table = asz("search", "hello", *flags, "--root", str(root), check=False)
    # 1 when --project/--model/--dialect keep no conversation (said as asz ls says it), or when a file it names was
    # never searched (a problem found, trial 26b F4), else 0
    assert table.returncode == (1 if "no conversation matched" in table.stderr or " not searched: " in table.stderr
                                else 0), table.stderr
    notes = [x[2:].split(" not searched: ")[0] for x in table.stdout.splitlines() if x.startswith("! ") and " not searched: " in x]
    warned = [x.split("warning: ")[1].split(" not searched: ")[0] for x in table.stderr.splitlines()
              if "warning:" in x and " not searched: " in x]
    cli = json.loads(asz("search", "hello", *flags, "--json", "--held-back", "--root", str(root), check=False).stdout)
    pairs = [("q", "hello"), ("held_back", "1")]
    for flag, value in zip(flags[::2], flags[1::2]):
        pairs.append((flag[2:], value))
    api = answer(root, pairs, (), Refused)
    # the API's note on filters keeping no conversation (trial 29b F3) is tested in
    # tests/view_server/test_api_cli_agree.py; what this compares is the files not searched and the hits
    assert "note" not in api or api["note"].startswith("no conversation matched ")
    api.pop("note", None)
    # the API pages on (99e86772, trial 36a F3): its paging keys say the whole answer is here
    paging = {k: api.pop(k) for k in ("limit", "next", "offset", "total", "total_capped")}
    assert paging == {"limit": 50, "next": None, "offset": 0, "total": len(api["hits"]), "total_capped": False}, paging
    assert cli == api
    return {"notes": notes, "warned": warned, "json": [g["file"] for g in cli["held_back"]["not_searched"]]}


def _iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_kept_by_the_filters_it_is_named(gap_root):
    root, rel, cwd, first, last, model = gap_root
    for flags in ((), ("--project", Path(cwd).name), ("--since", _iso(first - dt.timedelta(hours=1))),
                  ("--until", _iso(last + dt.timedelta(hours=1))), ("--dialect", "claude-code"), ("--model", model)):
        got = _said(root, *flags)
        assert got == {"notes": [rel], "warned": [rel], "json": [rel]}, flags


def test_left_out_by_the_filters_it_is_not_named(gap_root):
    root, rel, cwd, first, last, model = gap_root
    for flags in (("--project", "tmp"), ("--since", _iso(last + dt.timedelta(days=1))),
                  ("--until", _iso(first - dt.timedelta(days=1))), ("--dialect", "kiro"), ("--model", "no-such-model")):
        got = _said(root, *flags)
        assert got == {"notes": [], "warned": [], "json": []}, flags
