"""The scenario writers: Claude Code lines from the plan, and the mock dialect's records (origin-digest §5.1, §9.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asz_core import Source
from asz_core.testing.scenario.build import build, parse_at
from asz_core.testing.scenario.mock import ADAPTER, DIALECT, landing_order, line_record
from asz_core.testing.scenario.model import load_scenario, scenario_from_dict
from asz_core.testing.scenario.plan import agent_id, format_ms, make_plan

AT = parse_at("2026-01-01T00:00:00Z")


@pytest.fixture(scope="module")
def fixture_plan(shared_dir: Path):
    return make_plan(load_scenario(shared_dir / "conformance" / "scenarios" / "fixture.yaml"), AT)


def _main(plan):
    return [ln for ln in plan.lines if ln.file.stream == "main" and ln.file.kind == "transcript"]


def test_fixture_rows_and_ids(fixture_plan) -> None:
    """Rows, ids and times of the main transcript are those of the original's example document."""
    rows = _main(fixture_plan)
    assert len(rows) == 16  # ai-title, then the 15 records of the steps
    assert rows[0].obj == {"type": "ai-title", "sessionId": fixture_plan.session, "aiTitle": "build and check"}
    by_row = {i: ln.obj for i, ln in enumerate(rows, 1)}
    assert by_row[2]["uuid"] == "s1-input" and by_row[2]["promptId"] == "s1-cycle"
    assert by_row[3]["timestamp"] == "2026-01-01T00:00:00.100Z"
    assert [by_row[r]["message"]["id"] for r in (4, 5, 6)] == ["s3-call"] * 3
    assert [by_row[r]["timestamp"][17:23] for r in (4, 5, 6, 7)] == ["01.000", "01.100", "01.200", "02.000"]
    assert by_row[6]["message"]["stop_reason"] == "tool_use" and by_row[4]["message"]["stop_reason"] is None
    assert by_row[8]["message"]["content"][0]["type"] == "server_tool_use"
    assert by_row[10]["message"]["content"][0]["id"] == "s5-tool"
    assert by_row[11]["toolUseResult"]["status"] == "async_launched"
    assert by_row[11]["timestamp"].endswith("05.100Z")
    note = by_row[12]["message"]["content"]
    assert len(note.encode()) == 139 and by_row[12]["promptId"] == "s5-cycle-notification"
    assert by_row[12]["timestamp"].endswith("08.100Z")
    assert by_row[14]["message"]["id"] == "s7-synthetic-call" and by_row[14]["message"]["model"] == "<synthetic>"
    assert by_row[15]["uuid"] == "s8-boundary" and by_row[15]["logicalParentUuid"] == "s7-synthetic"
    assert by_row[15]["timestamp"].endswith("11.100Z")
    assert by_row[16]["isCompactSummary"] is True and by_row[16]["promptId"] == "s8-cycle-compact"
    assert by_row[16]["timestamp"].endswith("10.700Z")


def test_fixture_child(fixture_plan) -> None:
    aid = fixture_plan.agents["checker"]
    assert aid == agent_id("checker") and len(aid) == 17 and aid.startswith("a")
    child = [ln for ln in fixture_plan.lines if ln.file.stream == aid]
    kinds = [ln.file.kind for ln in child]
    assert kinds.count("transcript") == 2 and kinds.count("agent_meta") == 1
    prompt = next(ln.obj for ln in child if ln.file.kind == "transcript")
    assert prompt["promptId"] == f"{aid}-cycle" and prompt["timestamp"].endswith("06.100Z")
    meta = next(ln for ln in child if ln.file.kind == "agent_meta")
    assert meta.obj["toolUseId"] == "s5-tool" and meta.raw.endswith(b"\n")
    assert meta.file.rel.endswith(f"/subagents/agent-{aid}.meta.json")
    call = [ln.obj for ln in child if ln.file.kind == "transcript"][1]
    assert call["message"]["id"] == "checker-s1-call"
    assert [ln.stage for ln in child] == [0, 0, 0]


def test_stages_follow_checkpoints(fixture_plan) -> None:
    assert fixture_plan.stage_names == ["delegated", "final"]
    stages = [ln.stage for ln in _main(fixture_plan)]
    assert stages == [0] * 12 + [1] * 4


def test_lines_are_compact_and_keep_characters() -> None:
    sc = scenario_from_dict({"steps": [{"input": "a < b && c > d\u2028e"}]}, "t")
    ln = make_plan(sc, AT).lines[0]
    assert "a < b && c > d\u2028e".encode() in ln.raw
    assert b": " not in ln.raw and json.loads(ln.raw) == ln.obj


def test_lost_steps_are_marked_not_dropped() -> None:
    sc = scenario_from_dict(
        {
            "steps": [
                {"input": "x"},
                {"call": {"text": "t", "tool": {"name": "Bash", "input": {}}}, "lost": True},
                {"result": {"of": "s2-tool", "text": "r"}},
                {"call": {"agent": {"name": "h", "prompt": "p", "lost": True, "notify": True, "steps": [{"call": {"text": "d"}}]}}},
            ]
        },
        "t",
    )
    plan = make_plan(sc, AT)
    lost = {ln.obj.get("uuid") for ln in plan.lines if ln.lost and isinstance(ln.obj, dict) and "uuid" in ln.obj}
    assert {"s2-text", "s2-use"} <= lost
    assert "s3-result" not in lost
    assert "s4-notify" not in lost  # the launch and its notification stay; the child's files go
    child = [ln for ln in plan.lines if ln.file.stream == plan.agents["h"]]
    assert child and all(ln.lost for ln in child)
    after = next(ln.obj for ln in plan.lines if ln.obj.get("uuid") == "s3-result")
    assert after["parentUuid"] == "s2-use"  # the next line still names the record that was removed


def test_workflow_files() -> None:
    sc = scenario_from_dict(
        {"steps": [{"input": "go"}, {"call": {"workflow": {"name": "<all> & report", "script_project": "-elsewhere",
                                                             "children": [{"name": "p0", "prompt": "do", "steps": [{"call": {"text": "done"}}]}]}}}]},
        "t",
    )
    plan = make_plan(sc, AT)
    kinds = {f.kind: f for f in plan.files.values()}
    assert set(kinds) == {"transcript", "journal", "workflow_manifest", "workflow_script"}
    run = kinds["journal"].batch
    assert run.startswith("wf_") and "<" not in run and "&" not in run
    assert kinds["workflow_script"].rel.startswith("-elsewhere/") and kinds["workflow_script"].rel.endswith(f"-{run}.js")
    journal = [ln.obj for ln in plan.lines if ln.file.kind == "journal"]
    assert [j["type"] for j in journal] == ["started", "result"] and journal[1]["result"] == "done"
    ack = next(ln.obj for ln in plan.lines if ln.obj and ln.obj.get("uuid") == "s2-ack")
    assert ack["toolUseResult"]["runId"] == run


def test_format_ms() -> None:
    assert format_ms(AT + 11_100) == "2026-01-01T00:00:11.100Z"


def test_mock_records_match_the_adapter(fixture_plan) -> None:
    """Every planned line converted by the mock has the role fields, flags and parts the real adapter gives it."""
    from asz_core.plugins import get_plugin_manager

    reg = get_plugin_manager()
    adapters = {"projects": reg.get("claude-code-local"), "plugin": reg.get("changes")}
    offs: dict = {}
    assert any(ln.file.root == "plugin" for ln in fixture_plan.kept())
    for ln in fixture_plan.kept():
        f = ln.file
        adapter = adapters[f.root]
        src = Source(session=fixture_plan.session, kind=f.kind, path=Path(f.rel), src=f.rel, dialect=adapter.dialects[0],
                     stream=f.stream, batch=f.batch, mode=f.mode)
        ord_, off = offs.get(f.rel, (1, 0))
        raw = ln.raw.rstrip(b"\n") if f.mode == "snapshot" else ln.raw
        real = adapter.convert_document(src, raw) if f.mode == "snapshot" else adapter.convert_line(src, raw, ord_, off)
        mock = line_record(f, ln.obj, raw, 1 if f.mode == "snapshot" else ord_, 0 if f.mode == "snapshot" else off)
        offs[f.rel] = (ord_ + 1, off + len(ln.raw) + 1)
        for field in ("ord", "off", "sha", "bytes", "id", "parent", "call", "run", "continues", "tool", "child", "batch", "label",
                      "started_by", "from_", "time", "trigger", "flags", "usage", "model"):
            assert getattr(real, field) == getattr(mock, field), (f.rel, ln.obj, field)
        view = lambda r: [(p.k, p.state, p.id, p.of, p.name, p.failed, p.text) for p in r.parts]  # noqa: E731
        assert view(real) == view(mock), (f.rel, ln.obj)
        assert [(d.what, d.why) for d in real.dropped] == [(d.what, d.why) for d in mock.dropped]


def test_landing_order() -> None:
    """Main transcript, then the observers' files, then the other Claude Code sources (the original's example: changes at seq 2)."""
    from asz_core.testing.scenario.plan import SourceFile

    files = [SourceFile("workflow_script", "", "wf_x", "p/s/workflows/scripts/x-wf_x.js", "snapshot"),
             SourceFile("agent_meta", "a1", "", "p/s/subagents/agent-a1.meta.json", "snapshot"),
             SourceFile("changes", "main", "", "asz-changes/output/s/main.jsonl", "append", root="plugin"),
             SourceFile("transcript", "a1", "", "p/s/subagents/agent-a1.jsonl", "append"),
             SourceFile("transcript", "main", "", "p/s.jsonl", "append")]
    assert [f.kind for f in landing_order(files)] == ["transcript", "changes", "transcript", "agent_meta", "workflow_script"]
    assert landing_order(files)[0].stream == "main"


def test_fixture_matches_the_original_example(tmp_path, shared_dir) -> None:
    """`asz scenario build` of the fixture gives the nodes, refs, attrs and relations of the original's example document."""
    import yaml

    from asz_core.testing.scenario.build import read_fold

    doc = yaml.safe_load((shared_dir / "conformance" / "fixtures" / "asz-view-example.yaml").read_text())
    sc = load_scenario(shared_dir / "conformance" / "scenarios" / "fixture.yaml")
    b = build(sc, "sd", tmp_path / "sd", stepwise=False)
    fold = read_fold(b.out, b.plan.session)
    assert b.plan.agents["checker"] == "a0a10ef0666c4dc7e"
    assert [(f["kind"], f["seq"], f["lines"]) for f in doc["files"] if f["format"] == "sd"] == [
        (h["kind"], h["seq"], len(p.read_bytes().splitlines()))
        for p in sorted((tmp_path / "sd").rglob("*.sd"), key=lambda p: p.name[-9:])
        for h in [json.loads(p.read_bytes().split(b"\n", 1)[0])]
    ]
    seen: dict = {}

    def walk(n):
        if isinstance(n, dict):
            if "id" in n and "kind" in n:
                seen[n["id"]] = n
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)

    walk(doc["talks"])
    walk(doc["loose"])
    for nid, n in seen.items():
        got = fold.nodes[nid]
        assert got.kind == n["kind"] and got.parent == n["parent"] and got.stream == n["stream"], nid
        assert (got.ref.seq, got.ref.row, got.ref.block) == (n["ref"]["seq"], n["ref"]["row"], n["ref"].get("block")), nid
        if "attrs" in n:
            assert got.attrs == n["attrs"], nid
        if "bytes" in n and nid.startswith(("input/", "inject/", "msg/", "notify/", "summary/", "boundary/")):
            rec = _record_at(b, got.ref.seq, got.ref.row)
            assert rec.parts[got.ref.block or 0].bytes == n["bytes"], nid
    assert {r["id"] for r in doc["relations"]} == set(fold.relations)
    assert len(b.snapshots[0].round_files[0].read_bytes()) == doc["files"][-1]["bytes"]


def _record_at(b, seq: int, row: int):
    from asz_core.testing.scenario.build import landed_paths
    from asz_core.sessiondata import read_file

    for p in landed_paths(b.out, b.plan.session):
        h, recs, _ = read_file(p)
        if h.seq == seq:
            return recs[row - 1]
    raise KeyError(seq)


@pytest.mark.parametrize("fmt", ["claude-code", "sd"])
def test_build_lands_the_same_layout(fmt, tmp_path, shared_dir) -> None:
    sc = load_scenario(shared_dir / "conformance" / "scenarios" / "all-kinds.yaml")
    b = build(sc, fmt, tmp_path / fmt, stop_after=1)
    names = sorted(p.relative_to(tmp_path / fmt).as_posix().split("/", 1)[1].rsplit("-", 1)[0] for p in (tmp_path / fmt).rglob("*.sd"))
    assert len(names) == 9  # main, helper and its sidecar, two workflow children, journal, manifest, script, the MCP execution file
    heads = [json.loads(p.read_bytes().split(b"\n", 1)[0]) for p in sorted((tmp_path / fmt).rglob("*.sd"))]
    if fmt == "sd":
        assert {h["adapter"] for h in heads} == {ADAPTER} and {h["dialect"] for h in heads} == {DIALECT}
    else:
        assert {h["adapter"] for h in heads} == {"claude-code-local/0.9.0", "changes/0.1.0"}
        assert {h["dialect"] for h in heads if h["kind"] == "execution"} == {"asz-changes/1"}
        assert (tmp_path / fmt / "_source" / "projects").is_dir()
    assert all(h["at"].startswith("2026-01-01T00:00:00") for h in heads)
    assert b.snapshots[0].name == "launched"


def test_build_refuses_a_full_directory(tmp_path, shared_dir) -> None:
    (tmp_path / "x").write_text("x")
    sc = load_scenario(shared_dir / "conformance" / "scenarios" / "discovery.yaml")
    with pytest.raises(FileExistsError):
        build(sc, "sd", tmp_path)
    with pytest.raises(ValueError):
        build(sc, "jsonl", tmp_path / "new")
