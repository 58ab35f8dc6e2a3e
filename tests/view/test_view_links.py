"""Repeats and links said, not hidden (issue 18; field reports 17, 20, 21, 23, 24).

Each test writes the smallest Claude Code transcript of the shape a field
report names, collects it with ``asz collect`` (the real adapter, the real
collector and parse) and reads the asz.view document.
"""

from __future__ import annotations

from asz_core.view import build_view

from claude_lines import collect_claude as collect
from claude_lines import walk_nodes as _nodes

A = "0a000000-0000-4000-8000-00000000000a"
B = "0b000000-0000-4000-8000-00000000000b"
C = "0c000000-0000-4000-8000-00000000000c"


def user(uuid: str, parent: str | None, text: str, sec: int, session: str = A, prompt: str = "p1") -> dict:
    return {"parentUuid": parent, "isSidechain": False, "type": "user", "origin": {"kind": "human"}, "promptId": prompt,
            "message": {"role": "user", "content": text}, "uuid": uuid, "sessionId": session,
            "timestamp": f"2026-03-01T10:00:{sec:02d}.000Z"}


def reply(uuid: str, parent: str, msg: str, text: str, sec: int, usage: tuple[int, int], session: str = A) -> dict:
    return {"parentUuid": parent, "isSidechain": False, "type": "assistant", "requestId": f"req_{msg}",
            "message": {"id": msg, "type": "message", "role": "assistant", "model": "claude-opus-5",
                        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}},
            "uuid": uuid, "sessionId": session, "timestamp": f"2026-03-01T10:00:{sec:02d}.000Z"}


def test_24_a_resumed_session_continues_the_earlier_one_and_counts_usage_once(tmp_path):
    first = [user("u1", None, "start the work", 1), reply("a1", "u1", "msg_1", "started", 2, (10, 5))]
    # --resume: a new file repeats the earlier records with their uuids, then goes on
    resumed = [dict(x) for x in first] + [user("u2", "a1", "go on", 30, session=B, prompt="p2"),
                                          reply("a2", "u2", "msg_2", "went on", 31, (20, 7), session=B)]
    root = collect(tmp_path, {A: first, B: resumed})
    a, b = build_view(root, A), build_view(root, B)
    rel = {"id": f"rel/continues/conversation_{B}/conversation_{A}", "type": "continues", "from": f"conversation/{B}",
           "to": f"conversation/{A}", "quality": "exact_unique"}
    for doc in (a, b):
        [cont] = [r for r in doc["relations"] if r["type"] == "continues"]
        assert {k: cont[k] for k in rel} == rel
    assert b["summary"]["continues"] == A and b["summary"]["repeated"] == 2
    assert "continues" not in a["summary"]
    # each usage once: the earlier session's call counts in A only
    assert a["summary"]["usage"] == {"in": 10, "out": 5, "cache_read": 0, "cache_write": 0}
    assert b["summary"]["usage"] == {"in": 20, "out": 7, "cache_read": 0, "cache_write": 0}
    # the repeated records are drawn in A only; B lists them as duplicates of A's records
    assert not {n["id"] for n in _nodes(b)} & {"input/1/1", "call/msg_1", "msg/1/2:0"}
    assert [(d["ref"], d["why"], d["of"]) for d in b["not_drawn"]] == [
        ({"seq": 1, "row": 1}, "duplicate", {"conversation": A, "id": "u1"}),
        ({"seq": 1, "row": 2}, "duplicate", {"conversation": A, "id": "a1"})]
    assert b["summary"]["coverage"]["cited"] == b["summary"]["coverage"]["records"] == 4
    assert (a["summary"]["talks"], b["summary"]["talks"]) == (1, 1)
    assert a["summary"]["kinds"]["llm.call"] == b["summary"]["kinds"]["llm.call"] == 1
    assert a["summary"]["continued_in"] == [B]


def test_20_21_an_identical_repeat_is_one_node_listing_its_copy(tmp_path):
    lines = [user("u1", None, "hello", 1), reply("a1", "u1", "msg_1", "hi", 2, (3, 1))]
    root = collect(tmp_path, {A: lines + [dict(lines[0]), dict(lines[1])]})
    doc = build_view(root, A)
    nodes = {n["id"]: n for n in _nodes(doc)}
    assert nodes["input/1/1"]["copies"] == [{"seq": 1, "row": 3}]
    assert nodes["call/msg_1"]["copies"] == [{"seq": 1, "row": 4}]
    assert [(d["ref"], d["why"], d["of"]) for d in doc["not_drawn"]] == [
        ({"seq": 1, "row": 3}, "duplicate", {"seq": 1, "row": 1}), ({"seq": 1, "row": 4}, "duplicate", {"seq": 1, "row": 2})]
    assert doc["summary"]["coverage"] == {"cited": 4, "records": 4, "by_node": 2, "listed": 2}
    assert doc["summary"]["kinds"]["message.external"] == 1 and doc["summary"]["usage"]["out"] == 1
    assert not [p for p in doc["summary"]["problems"] if "conflict" in p]


def test_20_differing_payloads_under_one_id_are_both_shown_and_a_conflict(tmp_path):
    root = collect(tmp_path, {A: [user("u1", None, "first words", 1), user("u1", None, "other words", 5)]})
    doc = build_view(root, A)
    node = {n["id"]: n for n in _nodes(doc)}["input/1/1"]
    assert node["text"] == "first words"
    assert node["conflicts"] == [{"seq": 1, "row": 2, "text": "other words"}]
    [line] = [p for p in doc["summary"]["problems"] if "conflict" in p]
    assert "u1" in line
    assert doc["not_drawn"][0]["why"] == "conflict"


def test_17_a_dangling_parent_is_an_unresolved_entry_naming_the_id(tmp_path):
    lines = [user("u1", None, "first", 1), reply("a1", "u1", "msg_1", "ok", 2, (1, 1)),
             {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}, "isSnapshotUpdate": False},
             user("u2", "X-not-in-file", "after resume", 10, prompt="p2"), reply("a2", "u2", "msg_2", "still here", 11, (1, 1))]
    doc = build_view(collect(tmp_path, {A: lines}), A)
    [u] = [u for u in doc["unresolved"] if u["kind"] == "parent"]
    assert u["ref"] == "X-not-in-file" and u["state"] == "open" and "u2" in u["reason"]
    assert doc["summary"]["unresolved"] == 1
    texts = {n.get("text") for n in _nodes(doc)}
    assert {"first", "ok", "after resume", "still here"} <= texts  # nothing after the gap is hidden


def test_an_id_shared_by_two_sessions_that_do_not_continue_each_other_is_unresolved(tmp_path):
    a = [user("u1", None, "one", 1), reply("a1", "u1", "msg_1", "shared reply", 2, (1, 1))]
    c = [user("c1", None, "other", 40, session=C), dict(a[1], sessionId=C)]
    root = collect(tmp_path, {A: a, C: c})
    for sid in (A, C):
        doc = build_view(root, sid)
        assert [u["ref"] for u in doc["unresolved"] if u["kind"] == "shared_id"] == ["a1"]
        assert not [r for r in doc["relations"] if r["type"] == "continues"]


def test_a_whole_chain_has_no_dangling_parent_even_with_an_index_of_another_schema(tmp_path):
    lines = [user("u1", None, "first", 1), reply("a1", "u1", "msg_1", "ok", 2, (1, 1)), user("u2", "a1", "next", 3, prompt="p2")]
    root = collect(tmp_path, {A: lines})
    state = root / A / "index" / "index.state"
    state.write_text(state.read_text().replace("schema", "schema 0 was", 1))  # an index no reader takes: links read the records
    doc = build_view(root, A)
    assert [u for u in doc["unresolved"] if u["kind"] == "parent"] == []
    assert doc["summary"]["unresolved"] == 0
