"""Run membership by walking parents backward, at most 64 hops (origin-digest §4.4, stage 7).

A chain of 70 provider calls under one typed prompt: the calls within 64 parent hops of the
prompt belong to its run, the six beyond it only to the talk — whatever order the records
landed in. A cycle of parents ends the walk without a run.
"""

from __future__ import annotations

from asz_core.flow.assemble import assemble
from asz_core.flow.index import update_index
from asz_core.testing.asm_build import SessionBuilder, assistant, text, user_input

T0 = 1767225600000
RUN = "run/talk_main_r1/r1"
TALK = "talk/main/r1"


def chain(n: int) -> list:
    """The prompt ``u1`` (run ``r1``), then ``n`` calls ``m1..mn``, each record's parent the one before."""
    recs = [user_input("u1", "r1", "go", T0)]
    prev = "u1"
    for i in range(1, n + 1):
        recs.append(assistant(f"a{i}", f"m{i}", prev, T0 + i, text(f"step {i}")))
        prev = f"a{i}"
    return recs


def call_parents(tmp_path, recs) -> dict[int, str]:
    b = SessionBuilder(tmp_path, "sess-1")
    b.land("transcript", recs)
    ix = update_index(b.session_dir)
    asm = assemble(ix, ix.indexed_seq)
    return {int(n.id.split("/m")[1]): n.parent for n in asm.nodes.values() if n.kind == "llm.call"}


def test_calls_within_64_hops_join_the_run(tmp_path):
    parents = call_parents(tmp_path, chain(70))
    assert [i for i in range(1, 71) if parents[i] == RUN] == list(range(1, 65))
    assert [i for i in range(1, 71) if parents[i] == TALK] == list(range(65, 71))


def test_the_hop_limit_does_not_depend_on_landed_order(tmp_path):
    recs = chain(70)
    recs = recs[:1] + recs[1:][::-1]  # the deepest call lands first
    parents = call_parents(tmp_path, recs)
    assert [i for i in range(1, 71) if parents[i] == RUN] == list(range(1, 65))
    assert [i for i in range(1, 71) if parents[i] == TALK] == list(range(65, 71))


def test_a_cycle_of_parents_finds_no_run(tmp_path):
    recs = chain(2)
    recs.append(assistant("c1", "m3", "c2", T0 + 3, text("c1")))
    recs.append(assistant("c2", "m4", "c1", T0 + 4, text("c2")))
    parents = call_parents(tmp_path, recs)
    assert parents == {1: RUN, 2: RUN, 3: TALK, 4: TALK}
