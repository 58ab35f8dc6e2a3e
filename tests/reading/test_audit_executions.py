"""Recheck 25, N1: ``asz export --audit`` and the execution records ``asz hook`` lands (an MCP call's server, outcome
and how it failed; docs/claude-code-hooks.md).

The audit header's ``left_out`` did not count an execution record no tool call line carries (a session of hook
records alone read as an empty conversation: ``"lines":{}``, every count 0), and the tool call line of a failed MCP
call said ``status`` ``error`` alone where ``asz conversation`` and the md export say ``failed (transport: …)``.

Real input: the bundled example transcript with its one Bash call renamed ``mcp__probe__run``, and the corpus's
crash probe payload (``mcp-hooks-2.1.282.jsonl``, ``probe_case`` ``crash``: ``PostToolUseFailure``, error
``Connection closed``) made that call's (session, ``tool_use_id``), fed to the real ``asz hook``; every corpus probe
payload fed once more into the sessions of their own ids, which have no transcript. Collected by the real
``asz collect --once``. The expected counts and words are read from the payloads."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from view_server_helpers import EXAMPLE_SESSION, asz, copy_example

from test_mcp_executions_read import hook, land_with_hooks

PROBES = "apache__*mcp-hooks-2.1.282.jsonl"


def _payloads(corpus_dir: Path) -> list[dict]:
    return [json.loads(x) for x in next((corpus_dir / "hooks").glob(PROBES)).read_bytes().splitlines()]


@pytest.fixture(scope="module")
def hooked(tmp_path_factory, corpus_dir) -> Path:
    base = tmp_path_factory.mktemp("audit-executions")
    projects = copy_example(base / "projects")
    main = next(projects.rglob(f"{EXAMPLE_SESSION}.jsonl"))
    text = main.read_text()
    assert text.count('"name":"Bash"') == 1
    main.write_text(text.replace('"name":"Bash"', '"name":"mcp__probe__run"'))
    crash = next(p for p in _payloads(corpus_dir) if p.get("probe_case") == "crash")
    assert crash["hook_event_name"] == "PostToolUseFailure" and crash["error"] == "Connection closed"
    data = base / "hookdata"
    hook(json.dumps({**crash, "session_id": EXAMPLE_SESSION, "tool_use_id": "toolu_0001",
                     "tool_name": "mcp__probe__run", "cwd": "/home/dev/hello-app"}).encode(), data)
    for p in _payloads(corpus_dir):
        hook(json.dumps(p).encode(), data)
    return land_with_hooks(projects, data, base / "root")


def _audit(root: Path, cid: str) -> list[dict]:
    p = asz("export", cid, "--audit", "--root", str(root))
    return [json.loads(ln) for ln in p.stdout.splitlines()]


def test_a_failed_mcp_call_line_says_how_it_failed(hooked, corpus_dir):
    crash = next(p for p in _payloads(corpus_dir) if p.get("probe_case") == "crash")
    lines = _audit(hooked, EXAMPLE_SESSION)
    (call,) = [x for x in lines if x.get("tool") == "mcp__probe__run"]
    size = len(json.dumps(crash["error"]).encode())  # the error text as a JSON string, its quotes included
    (said,) = call["executed"]
    assert said.startswith(f"MCP server probe (dynamic): failed (transport: the connection to the server closed; "
                           f"error {size} bytes as JSON, not kept) in {crash['duration_ms']:,} ms, observed by ")
    md = asz("export", EXAMPLE_SESSION, "--format", "md", "--root", str(hooked)).stdout
    assert f"*{said}*" in md  # the md export's words at the step, the same line
    assert lines[0]["left_out"]["tool_executions"] == 0  # joined to its call: carried by that line
    others = [x for x in lines if x.get("kind") == "tool_call" and x is not call]
    assert others and not any("executed" in x for x in others)


def test_records_no_call_carries_have_lines_of_their_own(hooked, corpus_dir):
    """A corpus probe session has hook records and no transcript: each record is a line of kind tool_execution (one
    per tool_use_id the payloads of that session name), its status and words saying a failed call failed (trial
    27b F7: no line, only a count in left_out, so the audit never said it failed)."""
    by_session: dict[str, dict[str, str]] = {}
    for p in _payloads(corpus_dir):
        by_session.setdefault(p["session_id"], {})[p.get("tool_use_id") or ""] = p["hook_event_name"]
    assert sorted(len(v) for v in by_session.values()) == [1, 1, 1, 1, 1, 1, 1, 2]  # a815fa95: two parallel calls
    for sid, calls in by_session.items():
        if not sid.startswith(("ba6a3896", "a815fa95", "df3365d7")):
            continue
        head, *lines = _audit(hooked, sid)
        assert head["kind"] == "conversation" and head["lines"] == {"tool_execution": len(calls)}, sid
        assert head["left_out"]["tool_executions"] == 0  # each carried by its line
        failed = sum(event == "PostToolUseFailure" for event in calls.values())
        assert sum(x["status"] == "error" for x in lines) == failed
        assert sum(": failed" in x["text"] for x in lines) == failed, lines
        assert all(x["kind"] == "tool_execution" and x["file"].startswith(f"{sid}/") for x in lines)


def test_a_day_of_hook_records_alone_is_in_its_in_range_only_audit(hooked, corpus_dir):
    """trial 27b F7: --in-range-only left the 8 probe sessions out of their day ('a conversation resumed later')."""
    sessions = {p["session_id"] for p in _payloads(corpus_dir)}
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(hooked)).stdout)}
    days = {datetime.fromtimestamp(rows[s]["from"] / 1000, timezone.utc).date().isoformat() for s in sessions}
    (day,) = days  # the records' times: when asz hook received them, this run
    p = asz("export", "--since", day, "--until", day, "--tz", "UTC", "--audit", "--in-range-only", "--root", str(hooked))
    heads = [json.loads(x) for x in p.stdout.splitlines() if '"kind":"conversation"' in x]
    assert sessions <= {h["conversation"] for h in heads} and "with no line inside the window" not in p.stderr
    crash = next(h for h in heads if h["conversation"].startswith("ba6a3896"))
    assert crash["lines"] == {"tool_execution": 1}


def test_the_text_form_says_each_execution_records_status(hooked, corpus_dir):
    """--format text's block of a tool_execution line says its status as a tool call's does (`[TS] tool_execution,
    stream executions, error`): the failed ones counted from the payloads' PostToolUseFailure events."""
    events = {(p["session_id"], p.get("tool_use_id") or ""): p["hook_event_name"] for p in _payloads(corpus_dir)}
    p = asz("export", "--since", "2000-01-01", "--tz", "UTC", "--format", "text", "--root", str(hooked))
    heads = [ln for ln in p.stdout.splitlines() if re.match(r"^\[[^\]]*\] tool_execution, ", ln)]
    assert len(heads) == len(events)
    assert sum(ln.endswith(", error") for ln in heads) == sum(e == "PostToolUseFailure" for e in events.values())
    assert sum(ln.endswith(", ok") for ln in heads) == sum(e == "PostToolUse" for e in events.values())
