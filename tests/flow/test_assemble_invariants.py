"""Invariants of assemble() over arbitrary record shapes (hypothesis): it never fails, every parent
and relation end it names exists, every ref lies inside the watermark, and it is deterministic."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asz_core.testing.asm_build import SessionBuilder, part, rec
from asz_core.flow.assemble import assemble
from asz_core.flow.index import update_index

IDS = st.sampled_from(["", "r1", "r2", "r3", "r4", "r5", "r6"])
FLAGS = st.lists(st.sampled_from(["external_input", "injected", "finished", "synthetic", "context_reset",
                                  "reset_summary", "child_result", "error", "launch_ack", "turn_duration",
                                  "command", "notice", "auxiliary"]), max_size=3, unique=True)
PART = st.one_of(
    st.builds(lambda: part("text", text="t")),
    st.builds(lambda: part("reasoning")),
    st.builds(lambda i: part("call", id=i, name="Bash"), st.sampled_from(["k1", "k2", "k3"])),
    st.builds(lambda i: part("result", of=i, text="r"), st.sampled_from(["k1", "k2", "k3", "k9"])),
    st.builds(lambda: part("data", data={"x": 1})),
)
RECORD = st.builds(
    lambda id_, parent, call, run, cont, tool, child, batch, frm, trig, flags, ms, parts: rec(
        *parts, id=id_, parent=parent, call=call, run=run, continues=cont, tool=tool, child=child, batch=batch,
        from_=frm, trigger=trig, flags=flags, time="" if ms is None else f"2026-01-01T00:{ms // 60:02d}:{ms % 60:02d}Z"),
    IDS, IDS, st.sampled_from(["", "c1", "c2"]), st.sampled_from(["", "p1", "p2"]), IDS,
    st.sampled_from(["", "k1", "k2"]), st.sampled_from(["", "kid", "ghost"]), st.sampled_from(["", "b1"]),
    st.sampled_from(["agent", "external", "runtime", ""]), st.sampled_from(["", "external", "notification", "unknown"]),
    FLAGS, st.one_of(st.none(), st.integers(0, 3599)), st.lists(PART, max_size=3),
)
FILE = st.tuples(st.sampled_from([("transcript", "main", ""), ("transcript", "kid", ""), ("agent_meta", "kid", ""),
                                  ("journal", "", "b1"), ("workflow_manifest", "", "b1"), ("changes", "main", "")]),
                 st.lists(RECORD, min_size=1, max_size=6))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(FILE, min_size=1, max_size=5), st.data())
def test_assembly_is_total_closed_and_deterministic(tmp_path_factory, files, data):
    root = tmp_path_factory.mktemp("r")
    b = SessionBuilder(root, "s")
    for (kind, stream, batch), records in files:
        b.land(kind, records, stream=stream, batch=batch)
    ix = update_index(b.session_dir)
    through = data.draw(st.integers(1, ix.indexed_seq))
    a = assemble(ix, through)
    again = assemble(ix, through)
    assert (a.nodes, a.relations, a.unresolved, a.counts) == (again.nodes, again.relations, again.unresolved, again.counts)
    for n in a.nodes.values():
        assert n.parent == "" or n.parent in a.nodes, (n.id, n.parent)
        for r in ([n.ref] if n.ref else []) + n.refs:
            assert 1 <= r.seq <= through and r.row >= 1, (n.id, r)
    for r in a.relations.values():
        assert r.from_ in a.nodes and r.to in a.nodes, r.id
        assert all(1 <= e.seq <= through for e in r.evidence)
    for u in a.unresolved.values():
        assert u.state == "open" and u.kind and u.reason
    assert a.counts["unresolved"] == len(a.unresolved)
