"""Field reports about assembly (../shared/field-reports.md: areas usage, dup, chain, compact, sub)."""

from __future__ import annotations

from collections import Counter

from asz_core.testing.asm_build import (
    Conversation,
    SessionBuilder,
    assistant,
    part,
    prompt,
    rec,
    summary,
    boundary,
    text,
    tool_call,
    tool_result,
    user_input,
)
from asz_core.flow.assemble import assemble
from asz_core.flow.index import update_index

T0 = 1767225600000


def land(tmp_path, *files):
    """files: (kind, stream, records) tuples landed in order; returns the assembly through the last."""
    b = SessionBuilder(tmp_path, "sess-1")
    for kind, stream, records in files:
        b.land(kind, records, stream=stream)
    ix = update_index(b.session_dir)
    return assemble(ix, ix.indexed_seq)


def kinds(asm) -> Counter:
    return Counter(n.kind for n in asm.nodes.values())


def streaming_fragments():
    """Three fragments of one response; usage climbs 2 → 9 → 159; only the last has a stop reason."""
    return [
        assistant("a1", "msg_1", "u1", T0 + 1000, text("Let me"), finished=False, usage={"in": 5, "out": 2}),
        assistant("a2", "msg_1", "a1", T0 + 1100, text("look."), finished=False, usage={"in": 5, "out": 9}),
        assistant("a3", "msg_1", "a2", T0 + 1200, tool_call("toolu_1", "Read"), usage={"in": 5, "out": 159}),
    ]


def test_10_usage_from_the_final_fragment(tmp_path):
    asm = land(tmp_path, ("transcript", "main", [user_input("u1", "r1", "read it", T0), *streaming_fragments(),
                                                 tool_result("t1", "toolu_1", "a3", T0 + 1300, "contents")]))
    call = asm.nodes["call/msg_1"]
    assert call.attrs["fragments"] == 3
    assert call.attrs["usage"] == "observed_replayable"
    assert call.attrs["usage_at"] == {"seq": 1, "row": 4}  # the last fragment in line order, never the first
    assert call.attrs["usage_from"] == "last_fragment_in_line_order"
    assert kinds(asm)["llm.call"] == 1


def test_10_a_call_with_no_stop_reason_has_no_usage(tmp_path):
    frags = [assistant(f"a{i}", "msg_1", "u1", T0 + i, text("x"), finished=False, usage={"out": i}) for i in (1, 2)]
    asm = land(tmp_path, ("transcript", "main", [user_input("u1", "r1", "go", T0), *frags]))
    assert asm.nodes["call/msg_1"].attrs["usage"] == "unavailable"
    assert asm.nodes["call/msg_1"].attrs["stop_reason"] == "unavailable"
    assert "usage_at" not in asm.nodes["call/msg_1"].attrs


def test_12_fragments_without_request_id_group_by_message_id_alone(tmp_path):
    # Session Data carries no request id at all: the call is the message id, one node however many lines.
    frags = [assistant(f"a{i}", "msg_7", f"a{i - 1}" if i > 1 else "u1", T0 + i * 10, text(f"part {i}"),
                       finished=True, usage={"out": 40}) for i in range(1, 5)]
    asm = land(tmp_path, ("transcript", "main", [user_input("u1", "r1", "go", T0), *frags]))
    calls = [n for n in asm.nodes.values() if n.kind == "llm.call"]
    assert len(calls) == 1 and calls[0].attrs["fragments"] == 4
    assert calls[0].attrs["usage_at"] == {"seq": 1, "row": 5}
    assert asm.counts["llm_calls"] == 1


def test_13_a_side_stream_replaying_parent_responses_counts_them_once(tmp_path):
    main = [user_input("u1", "r1", "read it", T0), *streaming_fragments(),
            tool_result("t1", "toolu_1", "a3", T0 + 1300, "contents")]
    side = [
        prompt("b0", "side-cycle", "btw, what is it?", T0 + 2000),
        # the parent's response copied under new record ids, same message id
        assistant("b1", "msg_1", "b0", T0 + 2100, text("Let me"), finished=False, usage={"in": 5, "out": 2}),
        assistant("b2", "msg_2", "b1", T0 + 2200, text("It is a config file."), usage={"in": 5, "out": 12}),
    ]
    asm = land(tmp_path, ("transcript", "main", main), ("transcript", "a1b2c3d4e5f6a7b8c", side))
    calls = {n.id: n for n in asm.nodes.values() if n.kind == "llm.call"}
    assert set(calls) == {"call/msg_1", "call/msg_2"}  # the copy is no second call; the new response is
    assert calls["call/msg_1"].stream == "main"
    assert calls["call/msg_2"].stream == "a1b2c3d4e5f6a7b8c"
    # the unattributed side stream is kept and said to be unjoined, never dropped (report 34 too)
    assert "talk/a1b2c3d4e5f6a7b8c" in asm.nodes
    assert {u.kind for u in asm.unresolved.values()} == {"spawn_of_child"}


def _turn(n: int, t: int):
    return [
        user_input(f"u{n}", f"r{n}", f"question {n}", t),
        assistant(f"a{n}", f"msg_{n}", f"u{n}", t + 100, text(f"Answer {n}"), tool_call(f"toolu_{n}", "Bash")),
        tool_result(f"t{n}", f"toolu_{n}", f"a{n}", t + 200, f"out {n}"),
        assistant(f"b{n}", f"msg_{n}b", f"t{n}", t + 300, text(f"Done {n}")),
    ]


def test_20_21_23_replayed_history_collapses_to_the_first_copy(tmp_path):
    plain = land(tmp_path / "plain", ("transcript", "main", _turn(1, T0) + _turn(2, T0 + 5000)))
    # The history written again later in the file and again in a later landed file, same ids.
    replayed = land(
        tmp_path / "replayed",
        ("transcript", "main", _turn(1, T0) + _turn(2, T0 + 5000) + _turn(1, T0)),
        ("transcript", "main", _turn(1, T0) + _turn(2, T0 + 5000)),
    )
    assert kinds(replayed) == kinds(plain)
    assert set(replayed.nodes) == set(plain.nodes)
    assert replayed.unresolved == {} and plain.unresolved == {}
    assert replayed.nodes["tool/toolu_1"].attrs["result_join"] == "exact_unique"  # not made ambiguous by a copy
    assert replayed.nodes["call/msg_1"].attrs["fragments"] == 1
    assert replayed.stats["duplicates"] == 12
    assert replayed.counts["talks"] == plain.counts["talks"] == 2


def test_20_same_id_different_payload_keeps_the_first_and_flags_the_conflict(tmp_path):
    first = user_input("u1", "r1", "first words", T0)
    first.sha = "aaaaaaaaaaaa"
    other = user_input("u1", "r1", "other words", T0 + 10)
    other.sha = "bbbbbbbbbbbb"
    asm = land(tmp_path, ("transcript", "main", [first, other]))
    assert kinds(asm)["message.external"] == 1
    assert asm.nodes["input/1/1"].ref.row == 1
    assert asm.stats["duplicate_conflicts"] == 1


def test_20_a_reused_id_on_another_model_call_keeps_both_and_a_repeat_collapses(tmp_path):
    """Field report 20: the same id with another payload (another message id here) is kept beside the first, both
    drawn and counted (the view flags the conflict); the same id with the same payload is one record."""
    records = [
        user_input("A", "r1", "go", T0),
        assistant("B", "msg_1", "A", T0 + 100, text("first")),
        user_input("C", "r2", "again", T0 + 200, parent="B"),
        assistant("B", "msg_2", "C", T0 + 300, text("second answer")),  # B's id, another call
        assistant("B", "msg_1", "A", T0 + 100, text("first")),  # a repeat of the first B
    ]
    asm = land(tmp_path, ("transcript", "main", records))
    calls = {r.call for r in records if r.call}
    assert sorted(n for n in asm.nodes if n.startswith("call/")) == sorted(f"call/{c}" for c in calls)
    assert asm.counts["llm_calls"] == len(calls) == 2
    assert (asm.stats["duplicates"], asm.stats["duplicate_conflicts"], asm.stats["entries"]) == (1, 1, len(records) - 1)


def test_17_a_dangling_parent_keeps_the_records_and_is_flagged(tmp_path):
    records = [
        user_input("A", "r1", "first", T0),
        assistant("B", "msg_1", "A", T0 + 100, text("ok")),
        rec(part("data", data={"type": "file-history-snapshot"}), from_="runtime"),
        user_input("C", "r2", "after resume", T0 + 5000, parent="X-not-in-file"),
        assistant("D", "msg_2", "C", T0 + 5100, text("still here")),
    ]
    asm = land(tmp_path, ("transcript", "main", records))
    assert {"input/1/1", "input/1/4", "call/msg_1", "call/msg_2", "msg/1/2:0", "msg/1/5:0"} <= set(asm.nodes)
    assert asm.stats["dangling_parents"] == [{"seq": 1, "row": 4, "parent": "X-not-in-file"}]
    assert asm.counts["talks"] == 2


def test_18_a_snapshot_message_id_is_no_record_id(tmp_path):
    # Snapshots name earlier records (messageId) but carry no identity of their own: they neither
    # replace those records as duplicates nor become nodes.
    snaps = [rec(part("data", data={"type": "file-history-snapshot", "messageId": "u1"}), from_="runtime")
             for _ in range(3)]
    records = [user_input("u1", "r1", "hello", T0), assistant("a1", "msg_1", "u1", T0 + 10, text("hi")), *snaps,
               user_input("u2", "r2", "again", T0 + 20, parent="a1")]
    asm = land(tmp_path, ("transcript", "main", records))
    assert asm.stats["duplicates"] == 0 and asm.stats["entries"] == 6
    assert kinds(asm)["message.external"] == 2
    assert not any(n.ref and n.ref.row in (3, 4, 5) for n in asm.nodes.values() if n.kind not in ("talk", "run"))


def test_35_a_compact_summary_is_an_epoch_summary_not_user_speech(tmp_path):
    s = summary("S", "B", "r2", T0 + 900, "This session is being continued from a previous conversation…")
    s.flags = ["external_input", "reset_summary"]  # even when a producer also calls it input
    records = [user_input("u1", "r1", "hello", T0), assistant("a1", "msg_1", "u1", T0 + 10, text("hi")),
               boundary("B", "a1", T0 + 1000), s]
    asm = land(tmp_path, ("transcript", "main", records))
    k = kinds(asm)
    assert k["epoch.summary"] == 1 and k["message.external"] == 1
    assert "input/1/4" not in asm.nodes and asm.nodes["summary/1/4"].parent == "epoch/main/B"
    assert asm.nodes["talk/main/r2"].attrs["trigger"] == "external"  # the summary opens a talk of its own


def test_34_orphan_sidechain_records_are_shown(tmp_path):
    # A child stream with no opening prompt and nothing naming the call that started it.
    c = Conversation()
    c.input("hello")
    c.call("Hi.")
    b = SessionBuilder(tmp_path, "sess-1")
    c.land(b)
    orphan = "a0000000000000034"
    b.land("transcript", [
        assistant("o1", "msg_o1", "", T0 + 5000, text("sidechain work"), tool_call("toolu_o", "Grep")),
        tool_result("o2", "toolu_o", "o1", T0 + 5100, "3 matches"),
        assistant("o3", "msg_o2", "o2", T0 + 5200, text("found them")),
    ], stream=orphan)
    ix = update_index(b.session_dir)
    asm = assemble(ix, ix.indexed_seq)
    assert {f"stream/{orphan}", f"talk/{orphan}", "call/msg_o1", "call/msg_o2", "tool/toolu_o",
            f"output/{orphan}"} <= set(asm.nodes)
    assert asm.unresolved[f"unres/spawn_of_child/{orphan}"].state == "open"
    assert asm.nodes["call/msg_o1"].parent == f"talk/{orphan}"


def test_34_an_inline_sidechain_thread_is_not_folded_into_the_main_turn(tmp_path):
    # An older transcript writes a Task sub-agent's lines into the main file: its prompt has no parent, no run
    # and no flag; its responses chain to that prompt. They form a talk of their own, started by no one outside.
    records = [
        user_input("u1", "r1", "update the docs", T0),
        assistant("a1", "msg_1", "u1", T0 + 100, tool_call("toolu_task", "Task")),
        prompt("s1", "", "Examine the package files", T0 + 200),
        assistant("s2", "msg_s", "s1", T0 + 300, text("Found two packages.")),
        tool_result("t1", "toolu_task", "a1", T0 + 400, "Found two packages."),
        assistant("a2", "msg_2", "t1", T0 + 500, text("Docs updated.")),
    ]
    asm = land(tmp_path, ("transcript", "main", records))
    thread = asm.nodes["talk/main/s1"]
    assert thread.attrs["trigger"] == "unknown"
    assert asm.nodes["run/talk_main_s1/s1"].attrs["trigger"] == "unknown"
    assert asm.nodes["call/msg_s"].parent == "run/talk_main_s1/s1"
    assert asm.nodes["inject/1/3"].attrs == {"flagged": "none"} and asm.nodes["inject/1/3"].parent == "run/talk_main_s1/s1"
    for main_step in ("call/msg_1", "call/msg_2", "input/1/1"):
        assert asm.nodes[main_step].parent == "run/talk_main_r1/r1", main_step
    assert asm.nodes["talk/main/r1"].attrs["trigger"] == "external"


def test_a_message_inside_a_sub_agent_is_drawn(tmp_path):
    # Text on the user side of a sub-agent after its prompt (a teammate's message, a follow-up): a node, never lost.
    child = "a0000000000000099"
    main = [user_input("u1", "r1", "ask the team", T0),
            assistant("a1", "msg_1", "u1", T0 + 10, tool_call("toolu_team", "Agent")),
            tool_result("t1", "toolu_team", "a1", T0 + 20, "done", child=child)]
    sub = [prompt("c1", "", "review the plan", T0 + 30),
           assistant("c2", "msg_c1", "c1", T0 + 40, text("Reviewing.")),
           prompt("c3", "", "teammate: also check the tests", T0 + 50, parent="c2"),
           assistant("c4", "msg_c2", "c3", T0 + 60, text("Tests checked."))]
    asm = land(tmp_path, ("transcript", "main", main), ("transcript", child, sub))
    assert "inject/2/1" not in asm.nodes  # the prompt: cited by the child's talk, shown as its prompt
    assert asm.nodes[f"talk/{child}"].ref.row == 1
    assert asm.nodes["inject/2/3"].kind == "context.injection" and asm.nodes["inject/2/3"].stream == child
