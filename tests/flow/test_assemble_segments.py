"""Segments over several activity windows and their gates (origin-digest §4.4, stage 8).

Talks more than the idle gap (10 minutes) apart are cut into windows; the last window is ``open``,
the earlier ones ``candidate``. ``no_crossing_open_operation`` is unmet for a window where a tool
started and its result landed outside it; a child talk joins the window holding its first record
(``strong_inference``).
"""

from __future__ import annotations

from asz_core.flow.assemble import assemble
from asz_core.flow.index import update_index
from asz_core.testing.asm_build import Conversation, SessionBuilder

GAP_MS = 11 * 60 * 1000  # more than the 10-minute idle gap


def assembled(tmp_path, c: Conversation):
    b = SessionBuilder(tmp_path, "sess-1")
    c.land(b)
    ix = update_index(b.session_dir)
    return assemble(ix, ix.indexed_seq)


def segments(asm) -> list:
    """Segment nodes in time order (their talks' first positions)."""
    return sorted((n for n in asm.nodes.values() if n.kind == "segment"), key=lambda n: (n.ref.seq, n.ref.row))


def test_a_result_landing_in_a_later_window_leaves_the_earlier_one_open(tmp_path):
    c = Conversation()
    c.input("first")
    tool = c.call("working", tool="Bash", result=None)  # its result comes after the gap
    c.clock(GAP_MS)
    c.input("second")
    c.result(tool, "late result")
    c.call("done")
    c.clock(GAP_MS)
    c.input("third")
    c.call("all good", tool="Bash", result="ok")
    sg = segments(assembled(tmp_path, c))
    assert [n.attrs["state"] for n in sg] == ["candidate", "candidate", "open"]
    assert [n.attrs["talks"] for n in sg] == [1, 1, 1]
    assert sg[0].attrs["gates_unmet"] == ["no_crossing_open_operation"]
    assert sg[0].attrs["committable"] is False
    assert sg[1].attrs["gates_unmet"] == [] and sg[1].attrs["committable"] is True
    assert sg[2].attrs["gates_unmet"] == ["activity_boundary", "lateness_watermark"]


def test_a_child_talk_joins_the_window_of_its_first_record(tmp_path):
    c = Conversation()
    c.input("first")
    c.call("one")
    c.clock(GAP_MS)
    c.input("second, delegate it")
    c.agent("helper", ["helper finished"])
    c.call("two")
    c.clock(GAP_MS)
    c.input("third")
    c.call("three")
    asm = assembled(tmp_path, c)
    sg = segments(asm)
    assert len(sg) == 3
    inside = [(r.to, r.quality) for r in asm.relations.values() if r.type == "in_segment" and r.from_ == "talk/helper"]
    assert inside == [(sg[1].id, "strong_inference")]
    mains = sorted((r.to for r in asm.relations.values() if r.type == "in_segment" and r.quality == "exact_unique"))
    assert mains == sorted(n.id for n in sg)


def test_two_windows_a_result_landing_in_the_later_one(tmp_path):
    c = Conversation()
    c.input("first")
    tool = c.call("working", tool="Bash", result=None)
    c.clock(GAP_MS)
    c.input("second")
    c.result(tool, "late result")
    sg = segments(assembled(tmp_path, c))
    assert [n.attrs["state"] for n in sg] == ["candidate", "open"]
    assert sg[0].attrs["gates_unmet"] == ["no_crossing_open_operation"]
    assert sg[1].attrs["gates_unmet"] == ["activity_boundary", "lateness_watermark"]
