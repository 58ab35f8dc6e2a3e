"""``asz conversation`` counts talks one way on one screen (trial 38a F5): ``costliest talks: 1 of 1`` beside
``state verified: 2 talks`` read as two counts of one thing, the second talk being Claude Code's
``[Request interrupted by user for tool use]`` notice. That notice is the runtime's, drawn in the talk it interrupted
(trial 43c F1), so the session holds one talk; a talk that made no model call (a slash command's) is named beside the
count, ``3 of 4 with model calls (of 7 talks)`` (tests/reading/test_said_by_whom.py, 0d3a8e6f). Real input: the
corpus's spotter project collected by the real ``asz collect``; the figures are counted here from the transcript."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

PROJECT = "-home-user-spotter"
SID = "55604662-cf2a-4331-851a-ec234028f8ca"  # one prompt, two refused tool calls, then the interrupt notice


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("talks")
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, base / "projects" / PROJECT)
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"),
                       env={"HOME": str(base / "home"), "KIRO_HOME": str(base / "no-kiro"), "CLAUDE_CONFIG_DIR": None})
    assert p.returncode == 0, p.stdout + p.stderr
    return base / "root"


def _from_transcript(corpus_dir: Path) -> tuple[int, int]:
    """(person turns: user lines whose content is a string or holds a text part, but the runtime's interrupt notice (a
    list of one text block holding it whole), model calls: distinct message ids)."""
    turns, calls = 0, set()
    for line in (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        content = (d.get("message") or {}).get("content")
        notice = isinstance(content, list) and [p.get("text") for p in content] == ["[Request interrupted by user for tool use]"]
        if d.get("type") == "user" and not d.get("isMeta") and not notice and (
                isinstance(content, str) or any(p.get("type") == "text" for p in content)):
            turns += 1
        if d.get("type") == "assistant":
            calls.add(d["message"]["id"])
    return turns, len(calls)


def test_the_interrupt_notice_is_no_talk_of_its_own(root, corpus_dir):
    turns, calls = _from_transcript(corpus_dir)
    assert (turns, calls) == (1, 1)  # the prompt (the interrupt notice is in its talk); one model call (5 lines, one id)
    out = asz_in_process("conversation", SID[:8], "--root", str(root))
    assert out.returncode == 0, out.stdout + out.stderr
    state = re.search(r"^state verified: (\d+) talks", out.stdout, re.M)
    assert state and int(state.group(1)) == turns, out.stdout
    line = next(x for x in out.stdout.splitlines() if x.startswith("costliest talks: "))
    assert line.startswith("costliest talks: 1 of 1, each by its own model calls"), line
    assert re.search(rf"^\s+\$[0-9.]+ \(100%\), {calls} call\(s\), stream main from ", out.stdout, re.M), out.stdout


def test_all_talks_with_calls_keep_the_plain_count(root, corpus_dir):
    """The other spotter session: every talk made model calls, so the line is as before (``N of N``, no addition)."""
    other = next(f.stem for f in (corpus_dir / "claude-code" / "projects" / PROJECT).glob("*.jsonl") if f.stem != SID)
    out = asz_in_process("conversation", other[:8], "--root", str(root)).stdout
    talks = int(re.search(r"^state verified: (\d+) talks", out, re.M).group(1))
    line = next(x for x in out.splitlines() if x.startswith("costliest talks: "))
    assert "with model calls" not in line or f"(of {talks} talks)" in line, line
