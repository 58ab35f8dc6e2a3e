"""The audit header names the runtime and counts the tool calls that failed, and a step with no time reads its name then
its id (render 55; trial 50c F2: the text form named no runtime; F4: ``errors: none`` while two tool calls had failed;
F6: md drew ``**Assistant** ·  · `msg/1/14:0``` for a Kiro CLI 2.x reply).

Real input: a copy of the corpus's Kiro home collected by ``asz collect --once --adapter kiro`` (in this process, HOME
a temporary folder). What the header says is counted here from the corpus's transcripts: the 3.x session's tool
calls (``tool_call`` records and sub-agent starts) and those whose end says they failed (a ``tool_result`` with
``success`` false, a ``sub_agent_complete`` whose ``status`` is not ``success``), the 2.x session's ``toolResult``
statuses; the untimed replies are its ``AssistantMessage`` records with text (the others hold a tool use alone)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import asz_in_process
from kiro_copies import collected_kiro_home

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"
V3 = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"


def _v3_calls() -> tuple[int, int]:
    """(tool calls, failed) of the 3.x transcript."""
    made = failed = 0
    for line in (KIRO / "sessions" / "2f1c0d9e8b7a6f5e" / V3 / "messages.jsonl").read_text().splitlines():
        p = json.loads(line)["payload"]
        made += p["type"] in ("tool_call", "sub_agent_start")
        failed += (p["type"] == "tool_result" and p.get("success") is False) or \
                  (p["type"] == "sub_agent_complete" and p.get("status") != "success")
    return made, failed


def _v2() -> tuple[int, int, int]:
    """(tool calls, failed, replies) of the 2.x transcript."""
    made = failed = replies = 0
    for line in (KIRO / "sessions" / "cli" / f"{V2}.jsonl").read_text().splitlines():
        rec = json.loads(line)
        replies += rec["kind"] == "AssistantMessage" and any(
            c["kind"] == "text" and c["data"] for c in rec["data"]["content"])  # a reply with text of its own
        if rec["kind"] == "ToolResults":
            got = [c["data"]["status"] for c in rec["data"]["content"] if c["kind"] == "toolResult"]
            made, failed = made + len(got), failed + got.count("error")
    return made, failed, replies


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> tuple[Path, dict]:
    return collected_kiro_home(KIRO, tmp_path_factory.mktemp("home"))


def _export(root, *args: str) -> str:
    r, env = root
    p = asz_in_process("export", *args, "--root", str(r), env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _head(text: str) -> dict[str, str]:
    head = text.split("\n\n", 1)[0].splitlines()[1:]
    return dict(x.split(": ", 1) for x in head)


def test_the_text_header_names_the_runtime_and_the_failed_tool_calls(root):
    made, failed = _v3_calls()
    assert (made, failed) == (8, 2)  # the premise: two sub-agent calls ended in an error
    head = _head(_export(root, V3, "--format", "text"))
    assert list(head)[:4] == ["title", "project", "runtime", "branch"]
    assert head["runtime"] == "kiro"
    assert head["errors"].startswith("2 API error step(s)")  # the model requests, as asz ls says them
    assert head["tool_calls"] == f"made {made}, failed {failed}, refused 0"
    made, failed, _ = _v2()
    head = _head(_export(root, V2, "--format", "text"))
    assert (head["runtime"], head["errors"], head["tool_calls"]) == ("kiro", "none", f"made {made}, failed {failed}, refused 0")


def test_the_audit_lines_say_the_same(root):
    lines = [json.loads(x) for x in _export(root, V3, "--audit").splitlines()]
    head = lines[0]
    assert head["kind"] == "conversation" and head["runtime"] == "kiro"
    made, failed = _v3_calls()
    assert head["tool_calls"] == {"made": made, "failed": failed, "refused": 0}
    calls = [x for x in lines if x.get("kind") == "tool_call"]
    assert len(calls) == made and sum(x["status"] == "error" for x in calls) == failed


def test_an_untimed_reply_reads_its_name_then_its_id(root):
    *_, replies = _v2()
    md = _export(root, V2, "--format", "md")
    heads = re.findall(r"^\*\*Assistant\*\*.*$", md, re.M)
    assert len(heads) == replies >= 1
    assert all(re.fullmatch(r"\*\*Assistant\*\* · `msg/[^`]+`", h) for h in heads), heads
    assert " ·  · " not in md
    html = _export(root, V2, "--format", "html")
    assert html.count('<div class="meta"><b>Assistant</b> · <span class="id">msg/') == replies
    assert " ·  · " not in html


def test_a_kiro_conversation_s_cost_is_null_not_zero(root):
    """Kiro records no token count, so nothing is priced: ``usd`` null in ``asz ls --json`` and ``asz usage session
    --json`` (render 56, trial 50c F3: they read 0.0), the text form ``cost: none (no tokens to price)`` as before."""
    r, env = root
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(r), env=env).stdout)
    assert sorted(x["id"] for x in rows) == sorted([V2, V3])
    for x in rows:
        assert x["usage_recorded"] is False and x["usage"]["in"] is None
        assert x["cost"] == {"usd": None, "usd_exact": None, "unpriced": [], "priced": False}
    got = json.loads(asz_in_process("usage", "session", "--json", "--root", str(r), env=env).stdout)
    assert [x["cost"]["usd"] for x in got] == [None, None] and got[0]["total"]["cost"]["usd"] is None
    assert "cost: none (no tokens to price)" in _export(root, V3, "--format", "text").splitlines()


@pytest.mark.parametrize("fmt, index", [("text", "index.md"), ("html", "index.html")])
def test_a_folder_export_s_index_names_each_runtime_and_checks(root, tmp_path, fmt, index):
    """A folder export's index sums conversations that may come of several runtimes: from render 57 it names each
    one's (md: a ``runtime`` column after ``project``; html: after ``title``), and ``asz verify --export DIR --root``
    still reads its rows (trial 50c F2)."""
    r, env = root
    out = tmp_path / "out"
    p = asz_in_process("export", "--since", "2000-01-01", "--format", fmt, "--out", f"{out}/", "--root", str(r), env=env)
    assert p.returncode == 0, p.stderr
    page = (out / index).read_text()
    if index.endswith(".md"):
        rows = [x for x in page.splitlines() if x.startswith("| 2026-")]
        assert "| last activity | title | project | runtime | talks |" in page
        assert len(rows) == 2 and all(x.split(" | ")[3] == "kiro" for x in rows), rows
    else:
        assert "<th>title</th><th>runtime</th>" in page and page.count("</a></td><td>kiro</td>") == 2
    v = asz_in_process("verify", "--export", str(out), "--root", str(r), env=env)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "ok: 2 of 2 copies check against the root" in v.stdout
