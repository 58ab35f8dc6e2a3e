"""The scenario language parser: every suite file reads; unknown keys are refused with file and key (origin-digest §9.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.testing.scenario.expect import expectation_from_dict, load_expectation
from asz_core.testing.scenario.fields import ScenarioError, parse_duration_ms
from asz_core.testing.scenario.model import load_scenario, scenario_from_dict


def test_every_suite_file_reads(shared_dir: Path) -> None:
    d = shared_dir / "conformance" / "scenarios"
    files = sorted(d.glob("*.yaml"))
    assert files
    for f in files:
        if f.name.endswith(".expect.yaml"):
            ex = load_expectation(f)
            assert ex.checkpoints, f
        else:
            sc = load_scenario(f)
            assert sc.steps and sc.checkpoints()[-1] == "final"


def test_fixture_model(shared_dir: Path) -> None:
    sc = load_scenario(shared_dir / "conformance" / "scenarios" / "fixture.yaml")
    assert sc.session == "00000001-0000-4000-8000-000000000001"
    assert sc.interval_ms == 1000
    assert [s.kind for s in sc.steps] == ["input", "inject", "call", "call", "call", "call", "error", "reset"]
    assert sc.steps[1].after_ms == 100
    call = sc.steps[2].call
    assert call.thinking == "unavailable" and call.tool.id == "tool-run-make-build"
    assert call.tool.result.after_ms == 800 and call.usage.cache_read == 900
    assert sc.steps[3].call.tool.result.text == "search results"  # a bare string result
    assert sc.steps[4].checkpoint == "delegated" and sc.steps[4].call.agent.notify
    assert sc.checkpoints() == ["delegated", "final"]


@pytest.mark.parametrize(
    "text,ms",
    [("1s", 1000), ("100ms", 100), ("+11.1s", 11100), ("1000s", 1_000_000), ("1m30s", 90_000), (0, 0), ("+0s", 0)],
)
def test_durations(text, ms) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text", ["1", "ten seconds", "-1s", "", "+"])
def test_bad_durations(text) -> None:
    with pytest.raises(ValueError):
        parse_duration_ms(text)


def test_unknown_top_level_key_names_file_and_key() -> None:
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict({"steps": [{"input": "x"}], "sesion": "typo"}, "t", "dir/t.yaml")
    assert "dir/t.yaml" in str(err.value) and "'sesion'" in str(err.value)


def test_unknown_nested_key_names_its_path() -> None:
    data = {"steps": [{"input": "x"}, {"call": {"tool": {"name": "Bash", "reslt": "x"}}}]}
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict(data, "t", "t.yaml")
    assert "steps[1].call.tool" in str(err.value) and "'reslt'" in str(err.value)


def test_step_is_exactly_one_kind() -> None:
    with pytest.raises(ScenarioError, match="exactly one of"):
        scenario_from_dict({"steps": [{"input": "x", "error": "y"}]}, "t")
    with pytest.raises(ScenarioError, match="exactly one of"):
        scenario_from_dict({"steps": [{"after": "1s"}]}, "t")


def test_call_holds_one_action() -> None:
    with pytest.raises(ScenarioError, match="at most one"):
        scenario_from_dict({"steps": [{"call": {"tool": {"name": "a"}, "agent": {"name": "b"}}}]}, "t")


def test_unknown_expectation_keys_refused() -> None:
    with pytest.raises(ScenarioError, match="'kinds_on'"):
        expectation_from_dict({"checkpoints": {"final": {"kinds_on": {}}}}, "t", "t.expect.yaml")
    with pytest.raises(ScenarioError, match="'no_such_property'"):
        expectation_from_dict({"properties": {"no_such_property": True}}, "t")
    with pytest.raises(ScenarioError, match="'colour'"):
        expectation_from_dict({"checkpoints": {"final": {"view": {"colour": 1}}}}, "t")


def test_expectation_values() -> None:
    ex = expectation_from_dict(
        {
            "checkpoints": {
                "final": {
                    "session": {"from": "+0s", "to": "+11.1s"},
                    "nodes": {"tool/t1": {"refs": 2, "attrs": {"mcp_server": None}}},
                    "unresolved_kinds": {"tool_result": "resolved"},
                    "lose": [{"stream": "helper", "kind": "transcript"}],
                }
            },
            "parse": {"max_round_bytes": 3072},
            "properties": {"bundle": False},
        },
        "t",
    )
    cp = ex.checkpoints["final"]
    assert cp.session == {"from": 0, "to": 11100}
    assert cp.nodes["tool/t1"].refs == 2 and cp.nodes["tool/t1"].attrs == {"mcp_server": None}
    assert cp.lose == ({"stream": "helper", "kind": "transcript", "nth": 1},)
    assert ex.max_round_bytes == 3072 and ex.properties == {"bundle": False}
    with pytest.raises(ScenarioError, match="open, resolved or none"):
        expectation_from_dict({"checkpoints": {"final": {"unresolved_kinds": {"x": "maybe"}}}}, "t")


def test_duplicate_checkpoint_refused() -> None:
    with pytest.raises(ScenarioError, match="named twice"):
        scenario_from_dict({"steps": [{"input": "a", "checkpoint": "x"}, {"input": "b", "checkpoint": "x"}]}, "t")
