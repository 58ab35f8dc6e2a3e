"""Provider-body scenarios: the public expectation of ``provider-bodies`` held by the definition written here,
and the join rules of seed 004 (Provider bodies) on their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.sessiondata.providerbody_join import BodyKey, CallKey, join_bodies
from asz_core.testing.scenario.check import check_scenario
from asz_core.testing.scenario.expect import load_expectation
from asz_core.testing.scenario.model import load_scenario

HERE = Path(__file__).resolve().parent


def test_provider_bodies_scenario_holds_its_public_expectation(shared_dir):
    expect = shared_dir / "conformance" / "scenarios" / "provider-bodies.expect.yaml"
    if not expect.exists():
        pytest.skip("the provider-bodies expectation is not in ../shared")
    sc = load_scenario(HERE / "scenarios" / "provider-bodies.yaml")
    res = check_scenario(sc, load_expectation(expect))
    assert res.ok, "\n".join(res.failures)
    assert not any("provider_bodies" in s for s in res.skips)


def _calls():
    return [CallKey("c1", "main", "p1"), CallKey("syn", "main", "p1", synthetic=True), CallKey("c2", "main", "p1"),
            CallKey("k1", "child", "q1")]


def _bodies():
    return [
        BodyKey(1, 1, "u1.request", "request", run="p1"),
        BodyKey(1, 2, "r1.response", "response", call="c1", request="r1"),
        BodyKey(1, 3, "u2.request", "request", run="p1", previous_request="r1"),
        BodyKey(1, 4, "r2.response", "response", call="c2", request="r2"),
        BodyKey(1, 5, "u3.request", "request", run="q1"),
        BodyKey(1, 6, "r3.response", "response", call="k1", request="r3"),
    ]


def test_join_is_exact_and_skips_synthetic_calls():
    j = join_bodies(_calls(), _bodies())
    assert j["c1"] == [{"role": "request", "ref": {"seq": 1, "row": 1}}, {"role": "response", "ref": {"seq": 1, "row": 2}}]
    assert [x["role"] for x in j["c2"]] == ["request", "response"]  # its previous call is c1, not the synthetic one
    assert [x["role"] for x in j["k1"]] == ["request", "response"]
    assert "syn" not in j


def test_an_ambiguous_request_joins_nothing():
    bodies = _bodies() + [BodyKey(2, 1, "title.request", "request", run="p1")]  # names no previous request either
    j = join_bodies(_calls(), bodies)
    assert [x["role"] for x in j["c1"]] == ["response"]
    assert [x["role"] for x in j["c2"]] == ["request", "response"]


def test_no_request_joins_in_a_stream_with_a_gap_but_responses_do():
    j = join_bodies(_calls(), _bodies(), gap_streams=["main"])
    assert [x["role"] for x in j["c1"]] == ["response"] and [x["role"] for x in j["c2"]] == ["response"]
    assert [x["role"] for x in j["k1"]] == ["request", "response"]


def test_a_repeated_body_counts_once_and_a_request_naming_its_call_joins_it():
    calls = [CallKey("c1", "main", "p1")]
    bodies = [BodyKey(1, 1, "a:request", "request", call="c1"), BodyKey(2, 1, "a:request", "request", call="c1")]
    assert join_bodies(calls, bodies)["c1"] == [{"role": "request", "ref": {"seq": 1, "row": 1}}]


def test_late_bodies_give_the_calls_a_new_revision(tmp_path, shared_dir):
    """Bodies landed after the transcript's round join in the next round, as a new revision of each call (§4.1)."""
    import io

    import attrs

    from asz_core.collect.provider_bodies import provider_pass
    from asz_core.testing.scenario.bodies import body_files, write_bodies
    from asz_core.testing.scenario.build import build, parse_once, read_fold

    sc = load_scenario(shared_dir / "conformance" / "scenarios" / "provider-bodies-errors.yaml")
    out = tmp_path / "o"
    b = build(attrs.evolve(sc, provider_bodies=False), "claude-code", out)
    before = {k: n for k, n in read_fold(out, b.plan.session).nodes.items() if n.kind == "llm.call"}
    assert all(n.revision == 1 and "provider_bodies" not in n.attrs for n in before.values())
    write_bodies(body_files(b.plan, sc), out / "_source" / "bodies", 0)
    c = provider_pass(out, out / "_source" / "bodies", max_delta_bytes=2 << 20, err=io.StringIO(), fsync=False)
    assert c.records == 4 and c.waiting == 0
    assert parse_once(out, b.plan.session) == (1, "")
    after = {k: n for k, n in read_fold(out, b.plan.session).nodes.items() if n.kind == "llm.call"}
    assert [x["role"] for x in after["call/s2-call"].attrs["provider_bodies"]] == ["request", "response"]
    assert [x["role"] for x in after["call/s4-call"].attrs["provider_bodies"]] == ["request", "response"]
    assert after["call/s2-call"].revision == 2 and after["call/s4-call"].revision == 2
    assert after["call/s3-synthetic-call"].revision == 1 and "provider_bodies" not in after["call/s3-synthetic-call"].attrs
