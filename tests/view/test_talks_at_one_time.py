"""Talks that share a time keep the order they happened in (trial 42a F3; seed 004, "A stream's opened_by, …").

Trial 42a's h10: eight prompts p1…p8 in one Claude Code transcript, one ``parentUuid`` chain, every record with one
``timestamp``. Talks were sorted by ``(at, id)``, so ``asz ls`` titled it ``p8`` and the Markdown export read
``Talk 1: p8, Talk 2: p1, Talk 3: p7 …`` (the order of the talks' ids). Inside one stream a record's position orders it;
at one time a main-stream talk comes before another stream's; an untimed talk is ordered by position too
(docs/view.md, "The order of talks, streams and segments"). The ids here are chosen so that id order is the reverse of
the written order: ordered by id, every assertion below fails. What each reader must show is read from the lines the
test writes, never from asz.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from claude_lines import collect_claude
from cli_helpers import asz_in_process

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
from test_wire_titles import _sent_titles  # noqa: E402  (an OTLP receiver on opentelemetry-proto's definition)

ONE_TIME = "2026-11-21T10:00:00.000Z"
H10 = "aaaaaaaa-2222-4333-8444-555555555555"  # the h10 shape: eight prompts at one time
TWO = "bbbbbbbb-2222-4333-8444-555555555555"  # a sub-agent's prompt at the millisecond of a main prompt
UNTIMED = "cccccccc-2222-4333-8444-555555555555"  # no record has a time
AGENT = "a0000000000000001"  # talk/a000… sorts before every talk/main/… by id


def _uuid(n: int) -> str:
    """An id whose order is the reverse of ``n``'s: the first prompt written has the largest."""
    return f"{99 - n:08d}-0000-4000-8000-000000000000"


def _turns(sid: str, prompts: list[str], times: list[str | None], first: int = 0, **extra) -> list[dict]:
    """One user prompt and one assistant reply per prompt, a linear ``parentUuid`` chain (mk2.py's shape), each pair
    at its time (no ``timestamp`` key for None)."""
    out, parent = [], None
    for i, (p, ts) in enumerate(zip(prompts, times), start=first):
        for kind, uid in (("user", _uuid(2 * i)), ("assistant", _uuid(2 * i + 1))):
            rec = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/app",
                   "sessionId": sid, "version": "1.0.43", "gitBranch": "main", "type": kind, "uuid": uid, **extra}
            if ts is not None:
                rec["timestamp"] = ts
            if kind == "user":
                rec["message"] = {"role": "user", "content": p}
            else:
                rec["requestId"] = f"req_{sid[:4]}_{i}"
                rec["message"] = {"id": f"msg_{sid[:4]}_{i}", "type": "message", "role": "assistant",
                                  "model": "claude-sonnet-4-20250514", "content": [{"type": "text", "text": "ok"}],
                                  "usage": {"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0,
                                            "cache_read_input_tokens": 0}}
            out.append(rec)
            parent = uid
    return out


def _prompts(lines: list[dict]) -> list[str]:
    """The prompts of ``lines`` in the order they are written: what every reader must list."""
    return [r["message"]["content"] for r in lines if r["type"] == "user"]


H10_LINES = _turns(H10, [f"p{i}" for i in range(1, 9)], [ONE_TIME] * 8)
TWO_LINES = _turns(TWO, ["main one", "main two"], ["2026-11-21T09:59:00.000Z", ONE_TIME])
CHILD_LINES = _turns(TWO, ["child task"], [ONE_TIME], first=10, agentId=AGENT)
for _r in CHILD_LINES:
    _r["isSidechain"] = True
UNTIMED_LINES = _turns(UNTIMED, ["u1", "u2", "u3"], [None] * 3)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return collect_claude(tmp_path_factory.mktemp("one-time"), {H10: H10_LINES, TWO: TWO_LINES, UNTIMED: UNTIMED_LINES},
                          files={f"{TWO}/subagents/agent-{AGENT}.jsonl": CHILD_LINES})


def _ok(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def _doc(root, sid: str) -> dict:
    return json.loads(_ok("conversation", sid, "--json", "--root", str(root)))


def _md_talks(root, sid: str) -> list[str]:
    return re.findall(r"^## Talk \d+: (.*)$", _ok("export", sid, "--format", "md", "--root", str(root)), re.M)


def test_eight_prompts_at_one_time_are_talks_1_to_8_in_every_reader(root):
    want = _prompts(H10_LINES)
    assert want == [f"p{i}" for i in range(1, 9)] and {r["timestamp"] for r in H10_LINES} == {ONE_TIME}
    doc = _doc(root, H10)
    assert [t["label"] for t in doc["talks"]] == want
    assert sorted(t["id"] for t in doc["talks"]) != [t["id"] for t in doc["talks"]]  # id order would differ
    assert doc["summary"]["title"] == "p1"
    assert doc["streams"][0]["talk"] == doc["talks"][0]["id"]
    got = yaml.safe_load(_ok("conversation", H10, "--yaml", "--root", str(root)))
    assert [t["label"] for t in got["talks"]] == want
    exported = json.loads(_ok("export", H10, "--format", "json", "--root", str(root)))
    assert [t["label"] for t in exported["talks"]] == want
    assert _md_talks(root, H10) == want
    html = _ok("export", H10, "--format", "html", "--root", str(root))
    assert re.findall(r"Talk \d+: <bdi>([^<]*)</bdi></a>", html) == want
    text = _ok("export", H10, "--format", "text", "--root", str(root))
    assert "\ntitle: p1\n" in text and [text.index(f"| {p}\n") for p in want] == sorted(text.index(f"| {p}\n") for p in want)
    # every talk costs the same: the costliest three are the first three, in order
    said = _ok("conversation", H10, "--root", str(root))
    assert said.splitlines()[0].endswith(": p1")
    assert re.findall(r"stream main from .* UTC: (p\d)$", said, re.M) == want[:3]
    rows = {r["id"]: r for r in json.loads(_ok("ls", "--json", "--root", str(root)))}
    assert rows[H10]["title"] == "p1"
    hits = json.loads(_ok("search", "p5", "--json", "--root", str(root)))
    assert hits and {h["title"] for h in hits if h["conversation"] == H10} == {"p1"}


def test_a_sub_agents_talk_at_a_main_talks_millisecond_comes_after_it(root):
    doc = _doc(root, TWO)
    child = _prompts(CHILD_LINES)
    assert CHILD_LINES[0]["timestamp"] == TWO_LINES[2]["timestamp"]  # "main two" and "child task": one millisecond
    want = _prompts(TWO_LINES) + child  # "main one" earlier; at one time the main stream's first
    assert [(t["stream"], t.get("label") or t.get("prompt")) for t in doc["talks"]] == \
        [("main", want[0]), ("main", want[1]), (AGENT, child[0])]
    assert [s["name"] for s in doc["streams"]] == ["main", AGENT]
    assert doc["summary"]["title"] == "main one"
    assert [t.split(" (")[0] for t in _md_talks(root, TWO)][:2] == want[:2]


def test_untimed_talks_are_in_the_order_they_were_written(root):
    assert not any("timestamp" in r for r in UNTIMED_LINES)
    want = _prompts(UNTIMED_LINES)
    doc = _doc(root, UNTIMED)
    assert [t["label"] for t in doc["talks"]] == want and not any(t.get("at") for t in doc["talks"])
    assert doc["summary"]["title"] == "u1"
    assert _md_talks(root, UNTIMED) == want


def test_push_sends_the_first_talks_prompt_as_the_conversation_title(root, tmp_path):
    sent = tmp_path / "data"
    shutil.copytree(root, sent, symlinks=True)  # push keeps its state in the root: the module's root stays as it was
    assert _sent_titles(sent) == {H10: {"p1"}, TWO: {"main one"}, UNTIMED: {"u1"}}
