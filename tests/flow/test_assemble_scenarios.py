"""Assembly of the conformance scenarios' shapes, checked against their `.expect.yaml` numbers.

Each test lands Session Data in the shape the scenario describes (the way the
Claude Code adapter writes it: origin-digest §5.1) and asserts the expected
kinds, talks per stream, runs, relations and unresolved entries.
"""

from __future__ import annotations

from collections import Counter

from asz_core.testing.asm_build import Conversation, SessionBuilder
from asz_core.flow.assemble import assemble
from asz_core.flow.index import update_index


def run(tmp_path, conv: Conversation, session: str = "sess-1"):
    b = SessionBuilder(tmp_path, session)
    conv.land(b)
    ix = update_index(b.session_dir)
    return assemble(ix, ix.indexed_seq)


def kinds(asm) -> Counter:
    return Counter(n.kind for n in asm.nodes.values())


def rels(asm) -> Counter:
    return Counter(r.type for r in asm.relations.values())


def talks_on(asm) -> Counter:
    return Counter(n.stream for n in asm.nodes.values() if n.kind == "talk")


def open_kinds(asm) -> dict[str, str]:
    return {u.kind: u.state for u in asm.unresolved.values()}


def assert_kinds(asm, **want):
    got = kinds(asm)
    for k, v in want.items():
        assert got[k.replace("__", ".")] == v, (k, got)


def test_assembly(tmp_path):
    c = Conversation()
    c.input("first thing")
    c.call("Working on turn 1", tool="Bash", result="turn-1")
    c.call("Turn 1 complete.")
    c.input("second thing, delegate it")
    c.call("Working on turn 2", tool="Bash", result="turn-2")
    c.agent("helper", ["helper finished turn 2"])
    c.call("Turn 2 complete.")
    c.input("third thing")
    c.call("Working on turn 3", tool="Bash", result="turn-3")
    c.call("Turn 3 complete.")
    asm = run(tmp_path, c)
    assert_kinds(asm, session=1, stream=2, talk=4, epoch=2, llm__call=8, tool=3, message__external=3,
                 agent__call=1, agent__launch_ack=1, agent__output=1, runtime__notification=1)
    assert talks_on(asm) == {"main": 3, "helper": 1}
    r = rels(asm)
    assert (r["starts"], r["reports"], r["ends_with"], r["result_of"]) == (1, 1, 1, 0)
    assert asm.counts["unresolved"] == 0 and not asm.unresolved
    assert asm.counts["bash_runs"] == 3
    assert asm.counts["subagents"] == 1


def test_delegation_two_runs_in_one_talk(tmp_path):
    c = Conversation()
    c.input("delegate this")
    c.agent("helper", ["helper finished"])
    c.call("Turn complete.")
    asm = run(tmp_path, c)
    assert_kinds(asm, agent__launch_ack=1, runtime__notification=1, agent__output=1, agent__call=1, talk=2, stream=2)
    assert talks_on(asm) == {"main": 1, "helper": 1}
    runs = Counter(n.parent for n in asm.nodes.values() if n.kind == "run")
    assert runs["talk/main/s1-cycle"] == 2
    assert asm.nodes["run/talk_main_s1-cycle/s1-cycle"].attrs == {"trigger": "external"}
    assert asm.nodes["run/talk_main_s1-cycle/s2-cycle-notification"].attrs == {"trigger": "notification"}
    r = rels(asm)
    assert (r["starts"], r["reports"], r["ends_with"], r["result_of"]) == (1, 1, 1, 0)
    out = asm.nodes["output/helper"]
    assert (out.kind, out.stream) == ("agent.output", "helper")
    assert asm.nodes["stream/helper"].kind == "stream"
    assert asm.nodes["talk/helper"].attrs["trigger"] == "unknown"
    assert asm.nodes["tool/s2-tool"].kind == "agent.call"


def test_synchronous_child_return_is_result_of(tmp_path):
    c = Conversation()
    c.input("ask and wait")
    tid = c.agent("helper", ["the answer"], sync=True)
    c.call("Got it.")
    asm = run(tmp_path, c)
    r = [x for x in asm.relations.values() if x.type == "result_of"]
    assert [(x.from_, x.to, x.quality) for x in r] == [("output/helper", f"tool/{tid}", "exact_unique")]
    assert "agent.launch_ack" not in kinds(asm)


def test_context_reset(tmp_path):
    c = Conversation()
    c.input("before the reset")
    c.call("Working before.")
    c.reset("summary of the work so far")
    c.input("after the reset")
    c.call("Working after.")
    asm = run(tmp_path, c)
    assert_kinds(asm, epoch__boundary=1, epoch__summary=1, epoch=2, talk=3)
    r = rels(asm)
    assert (r["follows"], r["summarizes"]) == (1, 1)
    fol = next(x for x in asm.relations.values() if x.type == "follows")
    assert (fol.from_, fol.to, fol.via) == ("epoch/main/s3-boundary", "epoch/main/0", "explicit context reset")
    assert "message.external" in kinds(asm) and kinds(asm)["message.external"] == 2  # the summary is not speech


def test_reset_first(tmp_path):
    c = Conversation()
    c.reset("carried over")
    c.input("go on")
    c.call("Going on.")
    asm = run(tmp_path, c)
    assert_kinds(asm, epoch=1)
    r = rels(asm)
    assert (r["follows"], r["summarizes"]) == (0, 1)
    assert "unres/epoch_continuation" not in "".join(asm.unresolved)  # no continues on an empty stream
    assert [n.id for n in asm.nodes.values() if n.kind == "epoch"] == ["epoch/main/s1-boundary"]


def test_reset_naming_a_record_never_landed(tmp_path):
    c = Conversation()
    c.input("hello")
    c.call("Hi.")
    c.last["main"] = "gone-record"
    c.reset()
    asm = run(tmp_path, c)
    assert open_kinds(asm) == {"epoch_continuation": "open"}
    assert "unres/epoch_continuation/gone-record" in asm.unresolved


def test_synthetic(tmp_path):
    c = Conversation()
    c.input("do the thing")
    c.call("Doing it.")
    c.error("API Error: connection reset")
    asm = run(tmp_path, c)
    assert_kinds(asm, message__synthetic=1, message__assistant=1, llm__call=2)
    syn = asm.nodes["call/s3-synthetic-call"]
    assert syn.attrs == {"fragments": 1, "usage": "unavailable", "stop_reason": "unavailable",
                         "usage_from": "last_fragment_in_line_order"}


def test_system_records(tmp_path):
    c = Conversation()
    c.input("do the thing")
    c.call("Done.")
    c.system("turn_duration")
    c.system("command")
    c.system("notice")
    c.system("error")
    asm = run(tmp_path, c)
    assert_kinds(asm, turn__duration=1, control__command=1, control__notice=1, error__api=1)
    assert asm.nodes["turn/1/3"].attrs == {"measured_by": "observed_replayable"}
    assert asm.nodes["error/1/6"].attrs == {"retry_state": "unavailable"}
    assert asm.nodes["notice/1/5"].parent == "run/talk_main_s1-cycle/s1-cycle"


def test_tool_both_sides(tmp_path):
    c = Conversation()
    c.input("run something")
    c.call("Working", tool="Bash", tool_id="t1", result="hi")
    c.call("Done.")
    asm = run(tmp_path, c)
    assert_kinds(asm, tool=1, llm__call=2)
    t = asm.nodes["tool/t1"]
    assert t.kind == "tool" and len(t.refs) == 2
    assert t.attrs == {"name": "Bash", "result": "available", "result_join": "exact_unique", "timing": "unavailable"}
    assert t.parent == "call/s2-call"
    assert t.ref == t.refs[0] and t.refs[0].block == 0 and t.refs[1].block == 0


def test_unfinished_tool_resolves_in_a_later_window(tmp_path):
    c = Conversation()
    c.input("start something long")
    c.call("Working", tool="Bash", result=None)
    b = SessionBuilder(tmp_path, "sess-1")
    c.land(b)
    c.result("s2-tool", "finally done", after=1_000_000)
    c.land(b)
    ix = update_index(b.session_dir)
    first = assemble(ix, 1)
    t = first.nodes["tool/s2-tool"]
    assert len(t.refs) == 1 and t.attrs["result"] == "unavailable" and t.attrs["result_join"] == "unresolved"
    assert open_kinds(first) == {"tool_result": "open"}
    assert first.unresolved["unres/tool_result/s2-tool"].reason == "no result landed for this tool use"
    final = assemble(ix, 2)
    t = final.nodes["tool/s2-tool"]
    assert len(t.refs) == 2 and t.attrs["result"] == "available"
    assert final.unresolved == {}
    assert all(n.revision == 0 for n in final.nodes.values())


def test_workflow(tmp_path):
    c = Conversation()
    c.input("run the workflow")
    c.workflow("check", ["part-0", "part-1", "part-2"])
    asm = run(tmp_path, c)
    assert_kinds(asm, stream=4, agent__output=3, talk=4, agent__call=1)
    r = rels(asm)
    assert (r["starts"], r["ends_with"]) == (3, 3)
    assert all(x.quality == "strong_inference" and x.via == "run journal"
               for x in asm.relations.values() if x.type == "starts")
    assert "spawn_of_child" not in open_kinds(asm) and "spawn_call" not in open_kinds(asm)
    out = asm.nodes["output/part-1"]
    assert out.attrs == {"returned_value": "observed_replayable"} and len(out.refs) == 2
    wf = asm.nodes["tool/s2-tool"]
    assert wf.attrs["launched"] == "check" and len(wf.refs) == 3


def test_lost_records(tmp_path):
    c = Conversation()
    c.input("read the configuration")
    c.call("Reading it.", tool="Read", result_lost=True)               # s2: result never landed
    c.call("Checking the port.", tool="Bash", result=None, lost=True)  # s3: the call is gone ...
    c.result("s3-tool", "asz 8787 LISTEN")                              # s4: ... its result is not
    c.agent("helper", ["The docs say 11800."], lost=True)               # s5: the child's file is gone
    c.agent("reviewer", ["Looks right."], launch_lost=True)             # s6: launch + notification gone
    c.input("thanks", lost=True)                                         # s7: the person's message is gone
    c.call("You are welcome.")                                           # s8: the reply is not
    asm = run(tmp_path, c)
    assert_kinds(asm, talk=2, tool=2, llm__call=4, stream=2, agent__launch_ack=1, runtime__notification=1,
                 agent__output=1)
    assert talks_on(asm) == {"main": 1, "reviewer": 1}
    r = rels(asm)
    assert (r["starts"], r["ends_with"], r["reports"]) == (0, 1, 0)
    assert open_kinds(asm) == {"tool_result": "open", "tool_use": "open", "child_stream": "open",
                               "notified_child": "open", "spawn_of_child": "open"}
    assert asm.counts["unresolved"] == 5
    t = asm.nodes["tool/s2-tool"]
    assert len(t.refs) == 1 and t.attrs["result"] == "unavailable"
    assert "stream/helper" not in asm.nodes
    assert asm.nodes["stream/reviewer"].kind == "stream"
    # the reply whose parent was lost is kept, in the talk that was running
    assert asm.nodes["call/s8-call"].parent == "talk/main/s1-cycle"
    assert {"seq": 1, "row": 8, "parent": "s7"} in asm.stats["dangling_parents"]


def test_three_rounds_final(tmp_path):
    c = Conversation()
    c.input("start the work")
    c.call("Starting", tool="Bash", result="built")
    c.call("Build done.")
    b = SessionBuilder(tmp_path, "sess-1")
    c.land(b)
    c.input("now check it")
    c.agent("checker", ["checks pass"])
    c.call("Checks done.")
    c.land(b)
    c.input("wrap up")
    c.call("Wrapping up", tool="Bash", result="clean")
    c.agent("reviewer", ["looks good"])
    c.reset("Summary: built, checked, reviewed, wrapped up.")
    c.input("one more thing")
    c.call("All done.")
    c.land(b)
    ix = update_index(b.session_dir)
    first = assemble(ix, 1)
    assert talks_on(first) == {"main": 1}
    second = assemble(ix, 3)
    assert talks_on(second) == {"main": 2, "checker": 1}
    r = rels(second)
    assert (r["starts"], r["reports"], r["ends_with"]) == (1, 1, 1)
    final = assemble(ix, ix.indexed_seq)
    assert_kinds(final, talk=7, stream=3, epoch=4, epoch__boundary=1, tool=2)
    assert talks_on(final) == {"main": 5, "checker": 1, "reviewer": 1}
    r = rels(final)
    assert (r["starts"], r["reports"], r["ends_with"], r["follows"], r["summarizes"]) == (2, 2, 2, 1, 1)


def test_all_kinds_launched_and_final(tmp_path):
    c = Conversation()
    c.input("check everything")
    c.call("Checking.", tool="Bash", tool_id="t1", result="all green", think=True)
    c.call("Asking the status server.", tool="mcp__status__lookup", result="checkout: 3 of 3 ready")
    c.agent("helper", ["tests look fine"])
    c.workflow("verify", ["lint", "docs"])
    b = SessionBuilder(tmp_path, "sess-1")
    c.land(b)
    ix = update_index(b.session_dir)
    launched = assemble(ix, ix.indexed_seq)
    assert_kinds(launched, stream=4, agent__call=2, agent__launch_ack=2, agent__output=3, runtime__notification=1)
    r = rels(launched)
    assert (r["starts"], r["ends_with"], r["reports"]) == (3, 3, 1)
    c.call("Everything checks out.")
    c.reset("Summary: everything was checked.")
    c.land(b)
    ix = update_index(b.session_dir)
    final = assemble(ix, ix.indexed_seq)
    assert_kinds(final, epoch__boundary=1, epoch__summary=1, talk=5)
    assert final.counts["unresolved"] == 0


def test_skill_fork_child_named_only_by_the_result(tmp_path):
    c = Conversation()
    c.input("use the skill")
    c.agent("forked", ["skill done"], tool="Skill", notify=False, sync=True)
    asm = run(tmp_path, c)
    assert "spawn_of_child" not in open_kinds(asm)
    assert asm.nodes["tool/s2-tool"].kind == "agent.call"


def test_sidecar_naming_the_call_adds_no_second_edge(tmp_path):
    c = Conversation()
    c.input("go")
    c.agent("helper", ["ok"], sidecar_tool=True)
    asm = run(tmp_path, c)
    starts = [x for x in asm.relations.values() if x.type == "starts"]
    assert len(starts) == 1 and starts[0].via == "parent tool result"
    assert asm.nodes["stream/helper"].attrs["label"] == "helper"


def test_removed_after_sent_shape(tmp_path):
    c = Conversation()
    c.input("fix the timeout and check everything")
    c.call("Fixing it.", tool="Bash", result="")
    c.agent("helper", ["tests look fine"])
    c.workflow("verify", ["lint"])
    c.call("Everything checks out.")
    asm = run(tmp_path, c)
    assert_kinds(asm, stream=3, talk=3, run=4, llm__call=6, tool=1, agent__call=2, agent__launch_ack=2,
                 agent__output=2, runtime__notification=1, message__external=1, message__assistant=4)
    assert talks_on(asm) == {"main": 1, "helper": 1, "lint": 1}
    r = rels(asm)
    assert (r["starts"], r["ends_with"], r["reports"]) == (2, 2, 1)
    assert not asm.unresolved


def test_discovery_uppercase_session(tmp_path):
    c = Conversation()
    c.input("hello from an uppercase session")
    asm = run(tmp_path, c, session="00000002-0000-4000-8000-00000000000A")
    assert_kinds(asm, session=1, stream=1, talk=1, message__external=1)
    assert "session/00000002-0000-4000-8000-00000000000A" in asm.nodes


def test_segments_split_by_idle_gap(tmp_path):
    c = Conversation()
    c.input("morning")
    c.call("Hi.")
    c.t += 11 * 60 * 1000  # quiet for more than ten minutes
    c.input("afternoon")
    c.call("Hello again.")
    c.t += 30 * 60 * 1000
    c.input("evening")
    c.call("Still here.")
    asm = run(tmp_path, c)
    segs = sorted((n for n in asm.nodes.values() if n.kind == "segment"), key=lambda n: (n.ref.seq, n.ref.row))
    assert [s.id for s in segs] == ["segment/at_1_1", "segment/at_1_3", "segment/at_1_5"]
    assert [s.attrs["state"] for s in segs] == ["candidate", "candidate", "open"]
    assert segs[0].attrs["gates_unmet"] == [] and segs[0].attrs["committable"] is True
    assert segs[2].attrs["gates_unmet"] == ["activity_boundary", "lateness_watermark"]
    assert asm.counts["segments"] == 3


def test_a_runtime_without_run_ids_gets_one_run_per_input(tmp_path):
    """No record names a run: each external input opens a run keyed by its own record id, and the
    records below it (by their parents) belong to it; a notification continues the talk."""
    from asz_core.testing.asm_build import assistant, notification, text, tool_call, tool_result, user_input

    t0 = 1767225600000
    records = [
        user_input("u1", "", "first", t0),
        assistant("a1", "m1", "u1", t0 + 10, tool_call("k1", "Bash")),
        tool_result("r1", "k1", "a1", t0 + 20),
        assistant("a2", "m2", "r1", t0 + 30, text("done")),
        user_input("u2", "", "second", t0 + 40, parent="a2"),
        assistant("a3", "m3", "u2", t0 + 50, text("ok")),
        notification("n1", "", t0 + 60, parent="a3"),
        assistant("a4", "m4", "n1", t0 + 70, text("noted")),
    ]
    b = SessionBuilder(tmp_path, "sess-1")
    b.land("transcript", records)
    asm = assemble(update_index(b.session_dir), 1)
    assert [n.id for n in asm.nodes.values() if n.kind == "talk"] == ["talk/main/u1", "talk/main/u2"]
    assert asm.nodes["call/m2"].parent == "run/talk_main_u1/u1"
    assert asm.nodes["call/m3"].parent == "run/talk_main_u2/u2"
    assert asm.nodes["call/m4"].parent == "run/talk_main_u2/n1"
    assert asm.nodes["run/talk_main_u2/n1"].attrs == {"trigger": "notification"}
    assert asm.nodes["talk/main/u2"].attrs == {"loops": 2, "runs": 2, "trigger": "external"}


def test_lost_launch_with_a_sidecar_naming_the_call(tmp_path):
    """lost-records: the reviewer's launch and notification are gone but its sidecar names the call:
    one spawn_of_child, no spawn_call."""
    c = Conversation()
    c.input("go")
    c.agent("reviewer", ["Looks right."], launch_lost=True, sidecar_tool=True)
    c.call("ok")
    asm = run(tmp_path, c)
    assert open_kinds(asm) == {"spawn_of_child": "open"}
    assert "s2-tool" in asm.unresolved["unres/spawn_of_child/reviewer"].reason


def test_auxiliary_stream_last_call_is_result_of_its_tool(tmp_path):
    """A model call made inside a tool (LangChain: flag ``auxiliary`` on the record naming the stream)
    is no child agent: the call stays a tool, the stream is auxiliary, its last call is the result."""
    from asz_core.testing.asm_build import assistant, prompt, text, tool_call, tool_result, user_input

    t0 = 1767225600000
    b = SessionBuilder(tmp_path, "sess-1")
    r = tool_result("r1", "k1", "a1", t0 + 500, "42", child="aux1", flags=["auxiliary"])
    b.land("transcript", [user_input("u1", "p1", "compute", t0), assistant("a1", "m1", "u1", t0 + 10, tool_call("k1", "calc")), r])
    b.land("transcript", [prompt("x0", "q1", "2*21", t0 + 100), assistant("x1", "mx1", "x0", t0 + 200, text("42"))],
           stream="aux1")
    asm = assemble(update_index(b.session_dir), 2)
    assert asm.nodes["stream/aux1"].attrs["role"] == "auxiliary"
    assert asm.nodes["tool/k1"].kind == "tool"
    assert [(x.from_, x.to) for x in asm.relations.values() if x.type == "result_of"] == [("call/mx1", "tool/k1")]
    assert asm.counts["subagents"] == 0


def test_workflow_child_landed_before_its_launch(tmp_path):
    """A workflow child's transcript filed under the run (header batch) lands before the main
    transcript: its own tool results do not stand in for the launch call."""
    from asz_core.testing.asm_build import assistant, journal, prompt, tool_call, tool_result, user_input

    t0 = 1767225600000
    b = SessionBuilder(tmp_path, "sess-1")
    b.land("transcript", [prompt("c0", "cc", "lint", t0 + 100), assistant("c1", "mc1", "c0", t0 + 200, tool_call("kc", "Bash")),
                          tool_result("c2", "kc", "c1", t0 + 300)], stream="lint", batch="wf1")
    b.land("journal", [journal("lint", "wf1", t0 + 50)], batch="wf1")
    b.land("transcript", [user_input("u1", "p1", "go", t0), assistant("a1", "m1", "u1", t0 + 10, tool_call("kw", "Workflow")),
                          tool_result("r1", "kw", "a1", t0 + 20, "launched", batch="wf1", flags=["launch_ack"])])
    asm = assemble(update_index(b.session_dir), 3)
    starts = [(x.from_, x.to) for x in asm.relations.values() if x.type == "starts"]
    assert starts == [("tool/kw", "stream/lint")]
    assert asm.nodes["tool/kw"].kind == "agent.call" and asm.nodes["tool/kc"].kind == "tool"
