"""Field reports end to end (../shared/field-reports.md): the smallest real-shaped Claude Code file of each row's
shape, through ``asz collect`` (adapter, collector, parse) to the asz.view document a reader gets.

The converter's and assembly's own tests hold each rule in isolation
(tests/adapters/claude/test_claude_convert.py, tests/flow/test_assemble_field_reports.py);
these hold what a person finally reads. Where a row's "right behaviour" and the
seeds differ, the seeds win: no line is skipped (an undecodable line is a
record with an ``unknown`` part, listed under ``undescribed``).
"""

from __future__ import annotations

import pytest

from asz_core.sessiondata.times import parse_instant
from asz_core.view import build_view

from claude_lines import collect_claude, walk_nodes

BIG = "S" * (21 * 1024 * 1024)  # a ~21 MB persisted "Output too large" result (row 2)
SESSIONS = {name: f"{i:08x}-0000-4000-8000-0000000000{i:02x}" for i, name in enumerate(
    ("big", "cut", "tz", "launch", "types", "content", "failed", "compact"), start=1)}


def env(session: str, uuid: str, parent: str | None, sec: int, **kw) -> dict:
    # uuids are unique per session, as a runtime writes them: sessions of one root that shared a record id
    # would be a resumed session or a shared id (issue 18), not the row each session stands for
    uuid, parent = f"{session[:8]}-{uuid}", parent and f"{session[:8]}-{parent}"
    return {"parentUuid": parent, "isSidechain": False, "sessionId": session, "uuid": uuid,
            "timestamp": kw.pop("ts", f"2026-03-01T10:00:{sec:02d}.000Z"), **kw}


def human(session: str, uuid: str, parent: str | None, sec: int, content, **kw) -> dict:
    kw.setdefault("promptId", f"p-{uuid}")
    return env(session, uuid, parent, sec, type="user", origin={"kind": "human"}, message={"role": "user", "content": content}, **kw)


def model(session: str, uuid: str, parent: str, sec: int, msg: str, content: list, stop: str = "end_turn", **kw) -> dict:
    return env(session, uuid, parent, sec, type="assistant", requestId=f"req-{msg}", **kw,
               message={"id": msg, "type": "message", "role": "assistant", "model": "claude-opus-5", "content": content,
                        "stop_reason": stop, "usage": {"input_tokens": 3, "output_tokens": 2}})


def result(session: str, uuid: str, parent: str, sec: int, tool: str, content, **kw) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool, "content": content}
    if "is_error" in kw:
        block["is_error"] = kw.pop("is_error")
    return env(session, uuid, parent, sec, type="user", message={"role": "user", "content": [block]}, **kw)


def use(tool: str, name: str, inp: dict | None = None) -> dict:
    return {"type": "tool_use", "id": tool, "name": name, "input": inp or {}}


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def sessions() -> dict[str, list]:
    s = SESSIONS
    out: dict[str, list] = {}
    b = s["big"]
    out[b] = [human(b, "u1", None, 1, "save the log"), model(b, "a1", "u1", 2, "m1", [use("toolu_big", "Bash")], "tool_use"),
              result(b, "t1", "a1", 3, "toolu_big", BIG), model(b, "a2", "t1", 4, "m2", [text("saved")])]
    c = s["cut"]
    good = [human(c, f"u{i}", f"a{i - 1}" if i > 1 else None, i * 2, f"turn {i}") for i in range(1, 4)]
    out[c] = [good[0], model(c, "a1", "u1", 3, "m1", [text("one")]), b'{"type":"file-history-snapshot","messageId":"x","snapsh',
              good[1], model(c, "a2", "u2", 5, "m2", [text("two")]), good[2], model(c, "a3", "u3", 7, "m3", [text("three")])]
    t = s["tz"]
    out[t] = [human(t, "u1", None, 0, "evening question", ts="2026-03-02T04:08:00.000Z"),
              model(t, "a1", "u1", 0, "m1", [text("late answer")], ts="2026-03-02T04:08:05.000Z")]
    la = s["launch"]
    out[la] = [human(la, "u1", None, 1, "research this in the background"),
               model(la, "a1", "u1", 2, "m1", [use("toolu_agent", "Task", {"prompt": "research", "run_in_background": True})], "tool_use"),
               result(la, "t1", "a1", 3, "toolu_agent", "Async agent launched",
                      toolUseResult={"status": "async_launched", "agentId": "a320f12", "description": "research"}),
               model(la, "a2", "t1", 4, "m2", [text("It runs in the background.")])]
    ty = s["types"]
    out[ty] = [human(ty, "u1", None, 1, "hello"), {"type": "atis-latch", "atis": "", "sessionId": ty},
               {"type": "progress", "data": {"n": 1}, "sessionId": ty, "uuid": f"{ty[:8]}-pr1", "parentUuid": f"{ty[:8]}-u1"},
               model(ty, "a1", "u1", 2, "m1", [text("hi")])]
    co = s["content"]
    out[co] = [human(co, "u1", None, 1, [text("list form prompt")]), model(co, "a1", "u1", 2, "m1", [use("toolu_r", "Read")], "tool_use"),
               result(co, "t1", "a1", 3, "toolu_r", [text("first block"), text("second block")]),
               model(co, "a2", "t1", 4, "m2", [text("read it")]), human(co, "u2", "a2", 5, "string form prompt", promptId="p2")]
    f = s["failed"]
    out[f] = [human(f, "u1", None, 1, "read and build"),
              model(f, "a1", "u1", 2, "m1", [use("toolu_miss", "Read"), use("toolu_ok", "Bash"), use("toolu_plain", "Bash")], "tool_use"),
              result(f, "t1", "a1", 3, "toolu_miss", "File does not exist.", is_error=True),
              result(f, "t2", "t1", 4, "toolu_ok", "built", is_error=False),
              result(f, "t3", "t2", 5, "toolu_plain", "no flag written")]
    k = s["compact"]
    out[k] = [human(k, "u1", None, 1, "long work"), model(k, "a1", "u1", 2, "m1", [text("done")]),
              env(k, "b1", "a1", 3, type="system", subtype="compact_boundary", content="Conversation compacted",
                  compactMetadata={"trigger": "manual", "preTokens": 1000}),
              env(k, "s1", "b1", 4, type="user", isCompactSummary=True, isVisibleInTranscriptOnly=True,
                  message={"role": "user", "content": "This session is being continued from a previous conversation…"})]
    return out


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """Every session but the 21 MB one (its own slow test) collected into one root."""
    return collect_claude(tmp_path_factory.mktemp("field-reports"), {k: v for k, v in sessions().items() if k != SESSIONS["big"]})


@pytest.fixture(scope="module")
def docs(root):
    return {name: build_view(root, sid) for name, sid in SESSIONS.items() if name != "big"}


def _texts(doc: dict) -> list[str]:
    return [n.get("text", "") for n in walk_nodes(doc)]


@pytest.mark.slow
def test_rows_1_2_one_oversized_result_costs_no_other_record(tmp_path):
    doc = build_view(collect_claude(tmp_path, {SESSIONS["big"]: sessions()[SESSIONS["big"]]}), SESSIONS["big"])
    assert doc["summary"]["state"] == "verified"
    assert {"save the log", "saved"} <= set(_texts(doc))
    tool = next(n for n in walk_nodes(doc) if n["id"] == "tool/toolu_big")
    assert tool["result_bytes"] >= len(BIG) and tool["result_state"] in ("truncated", "too_large")
    assert doc["summary"]["cut"]["bytes"] >= len(BIG)
    assert doc["summary"]["coverage"]["cited"] == doc["summary"]["coverage"]["records"] == 4


def test_row_4_a_line_cut_mid_file_is_one_undescribed_record_and_everything_after_it_is_read(docs):
    doc = docs["cut"]
    assert {"turn 1", "one", "turn 2", "two", "turn 3", "three"} <= set(_texts(doc))
    [u] = doc["undescribed"]
    assert u["ref"]["row"] == 3 and u["bytes"] == len(b'{"type":"file-history-snapshot","messageId":"x","snapsh')
    assert doc["summary"]["undescribed"] == 1 and doc["summary"]["talks"] == 3


def test_row_15_the_instant_is_kept_with_its_offset_and_shown_as_an_instant(root, docs):
    doc = docs["tz"]
    line = next(p for p in (root / SESSIONS["tz"]).rglob("transcript-*.sd")).read_text().splitlines()[1]
    assert '"time":"2026-03-02T04:08:00.000Z"' in line  # as the runtime wrote it, offset and all
    talk = doc["talks"][0]
    assert talk["from"] == parse_instant("2026-03-02T04:08:00.000Z") // 1_000_000  # an instant; the zone is the reader's


def test_row_32_a_background_launch_is_linked_to_the_childs_file_by_agent_id(tmp_path):
    la = SESSIONS["launch"]
    child = [env(la, "c1", None, 5, type="user", agentId="a320f12", message={"role": "user", "content": "research"}),
             model(la, "c2", "c1", 6, "mc1", [text("found it")])]
    for line in child:
        line["isSidechain"] = True
    root = collect_claude(tmp_path, {la: sessions()[la]}, files={f"{la}/subagents/agent-a320f12.jsonl": child})
    doc = build_view(root, la)
    [starts] = [r for r in doc["relations"] if r["type"] == "starts"]
    assert starts["from"] == "tool/toolu_agent" and starts["to"] == "stream/a320f12"
    assert next(n for n in walk_nodes(doc) if n["id"] == "tool/toolu_agent")["kind"] == "agent.call"
    child_talk = next(t for t in doc["talks"] if t["id"] == "talk/a320f12")
    assert child_talk["prompt"] == "research" and child_talk["reply"] == "found it"


def test_row_26_unknown_record_types_are_kept_counted_and_the_conversation_renders(docs):
    doc = docs["types"]
    assert doc["summary"]["state"] == "verified" and doc["summary"]["undescribed"] >= 1
    assert {"hello", "hi"} <= set(_texts(doc))
    assert doc["summary"]["coverage"]["cited"] == doc["summary"]["coverage"]["records"]


def test_rows_28_29_list_and_string_content_both_read(docs):
    doc = docs["content"]
    assert [t.get("label") for t in doc["talks"]] == ["list form prompt", "string form prompt"]
    tool = next(n for n in walk_nodes(doc) if n["id"] == "tool/toolu_r")
    assert "first block" in tool["result"] and "second block" in tool["result"]


def test_row_31_failed_only_where_the_transcript_says_so(docs):
    tools = {n["id"]: n for n in walk_nodes(docs["failed"]) if n["kind"] == "tool"}
    assert tools["tool/toolu_miss"]["failed"] is True
    assert tools["tool/toolu_ok"]["failed"] is False
    assert "failed" not in tools["tool/toolu_plain"]  # no flag written: unknown, never "ok"


def test_row_35_a_compact_summary_is_the_runtimes_summary_not_user_speech(docs):
    doc = docs["compact"]
    kinds = doc["summary"]["kinds"]
    assert kinds.get("epoch.summary") == 1 and kinds.get("message.external") == 1
    assert not [n for n in walk_nodes(doc) if n["kind"] == "message.external" and "continued" in n.get("text", "")]
