"""Repeats and links said, not hidden (issue 18; field reports 17, 20, 21, 23, 24).

Each test writes the smallest Claude Code transcript of the shape a field
report names, collects it with ``asz collect`` (the real adapter, the real
collector and parse) and reads the asz.view document.
"""

from __future__ import annotations

from asz_core.view import build_view

from claude_lines import collect_claude as collect
from claude_lines import walk_nodes as _nodes
from cli_helpers import asz_in_process

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


def _collect_again(base, sessions: dict[str, list]):
    """Write more session files into the project ``collect_claude`` made and collect once more (one more pass)."""
    import json
    import subprocess
    import sys

    projects = base / "projects"
    for sid, lines in sessions.items():
        (projects / "-home-dev-app" / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(base / "root"))
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    v = asz_in_process("verify", "--root", str(base / "root"))
    assert v.returncode == 0, v.stdout + v.stderr


def test_24_the_resumed_session_parsed_before_its_earlier_one_landed_is_linked_by_a_later_round(tmp_path):
    first = [user("u1", None, "start the work", 1), reply("a1", "u1", "msg_1", "started", 2, (10, 5))]
    resumed = [dict(x, sessionId=B) for x in first] + [user("u2", "a1", "go on", 30, session=B, prompt="p2"),
                                                       reply("a2", "u2", "msg_2", "went on", 31, (20, 7), session=B)]
    root = collect(tmp_path, {B: resumed})  # alone, B is a conversation of its own: two talks, two calls
    alone = build_view(root, B)
    assert (alone["summary"]["talks"], alone["summary"]["kinds"]["llm.call"]) == (2, 2)
    _collect_again(tmp_path, {A: first})  # A lands later: B has nothing new, and still gets a round saying so
    b = build_view(root, B)
    assert len(b["rounds"]) == 2 and b["rounds"][1]["from_seq"] == b["rounds"][1]["through_seq"] + 1
    assert b["summary"]["continues"] == A and b["summary"]["repeated"] == 2
    assert (b["summary"]["talks"], b["summary"]["kinds"]["llm.call"]) == (1, 1)
    assert b["summary"]["usage"] == {"in": 20, "out": 7, "cache_read": 0, "cache_write": 0}
    assert b["summary"]["state"] == "verified"
    import subprocess
    import sys

    for _ in range(2):  # parsed again with nothing new anywhere: no round is written, links stay
        p = asz_in_process("parse", "--root", str(root))
        assert p.returncode == 0, p.stdout + p.stderr
    assert [len(build_view(root, c)["rounds"]) for c in (A, B)] == [1, 2]  # A landed whole in one pass


def test_one_id_on_two_different_records_of_two_sessions_is_a_shared_id_never_a_repeat(tmp_path):
    # a runtime numbering records per session: the same ids, other records (other times, other text)
    a = [user("1", None, "first session", 1), reply("2", "1", "msg_a", "answer a", 2, (1, 1))]
    c = [user("1", None, "second session", 40, session=C), reply("2", "1", "msg_c", "answer c", 41, (2, 2), session=C)]
    root = collect(tmp_path, {A: a, C: c})
    for sid, texts in ((A, {"first session", "answer a"}), (C, {"second session", "answer c"})):
        doc = build_view(root, sid)
        assert sorted(u["ref"] for u in doc["unresolved"] if u["kind"] == "shared_id") == ["1", "2"]
        assert not [r for r in doc["relations"] if r["type"] == "continues"]
        assert texts <= {n.get("text") for n in _nodes(doc)}  # nothing set aside
        assert doc["summary"]["coverage"]["by_node"] == doc["summary"]["coverage"]["records"]


def test_a_session_resumed_inside_a_turn_goes_on_in_a_talk_of_its_own(tmp_path):
    first = [user("u1", None, "do two things", 1), reply("a1", "u1", "msg_1", "the first", 2, (10, 5))]
    # no new prompt: the resumed file goes on with the same turn (a record whose parent is repeated)
    resumed = [dict(x, sessionId=B) for x in first] + [
        {**reply("a2", "a1", "msg_2", "and the second", 31, (20, 7), session=B)}]
    root = collect(tmp_path, {A: first, B: resumed})
    b = build_view(root, B)
    assert b["summary"]["talks"] == 1 and not b["loose"]
    [talk] = b["talks"]
    assert talk["id"] == "talk/main/p1"  # the turn A opened (its prompt p1), drawn here from B's own records
    assert {n.get("text") for n in _nodes(b)} >= {"and the second"}
    assert b["summary"]["usage"]["in"] == 20


def test_24_a_list_row_kept_before_the_earlier_session_landed_is_counted_again_once_it_links(tmp_path):
    """The derived summary (``_index/summaries.sqlite``) kept for B alone is not reused once A lands:
    the linking round changes B's fingerprint, so the row counts A's repeated call once, in A."""
    import json
    import subprocess
    import sys

    def rows(root):
        p = asz_in_process("ls", "--json", "--root", str(root))
        assert p.returncode == 0, p.stdout + p.stderr
        return {r["id"]: r for r in json.loads(p.stdout)}

    first = [user("u1", None, "start the work", 1), reply("a1", "u1", "msg_1", "started", 2, (10, 5))]
    resumed = [dict(x, sessionId=B) for x in first] + [user("u2", "a1", "go on", 30, session=B, prompt="p2"),
                                                       reply("a2", "u2", "msg_2", "went on", 31, (20, 7), session=B)]
    root = collect(tmp_path, {B: resumed})
    alone = rows(root)[B]
    assert (alone["llm_calls"], alone["usage"]["in"], alone["usage"]["out"]) == (2, 30, 12)  # B alone: both calls
    assert (root / "_index" / "summaries.sqlite").is_file()
    _collect_again(tmp_path, {A: first})
    after = rows(root)
    assert (after[B]["llm_calls"], after[B]["usage"]["in"], after[B]["usage"]["out"]) == (1, 20, 7)
    assert (after[A]["llm_calls"], after[A]["usage"]["in"], after[A]["usage"]["out"]) == (1, 10, 5)
