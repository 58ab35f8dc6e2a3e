"""The `fixture` scenario against the original's whole example document (asz-view-example.yaml).

The landed files are rebuilt in the shape the example cites (seq 1 main
transcript with 16 records, seq 2 a changes file, seq 3 the child's transcript,
seq 4 its sidecar); every node, attr, relation, quality and via string the
document shows must come out of assemble() exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from asz_core.flow import Ref
from asz_core.testing.asm_build import (
    SessionBuilder,
    assistant,
    boundary,
    changes_record,
    injection,
    notification,
    prompt,
    sidecar,
    summary,
    text,
    thinking,
    title,
    tool_call,
    tool_result,
    user_input,
)
from asz_core.flow.assemble import assemble, time_window
from asz_core.flow.index import update_index

EXAMPLE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "fixtures" / "asz-view-example.yaml"
SESSION = "00000001-0000-4000-8000-000000000001"
CHILD = "a0a10ef0666c4dc7e"
T0 = 1767225600000
U = {"in": 2, "cache_read": 900, "cache_write": 100}


def land_fixture(root: Path) -> Path:
    """The fixture scenario's four landed files, as the example document lists them."""
    b = SessionBuilder(root, SESSION)
    b.land("transcript", [
        title("build and check"),
        user_input("s1", "s1-cycle", "run the build", T0),
        injection("s2", "s1", "skills: 1", T0 + 100),
        assistant("s3a", "s3-call", "s2", T0 + 1000, thinking(), finished=False, usage={**U, "out": 1}),
        assistant("s3b", "s3-call", "s3a", T0 + 1100, text("Building now."), finished=False, usage={**U, "out": 1}),
        assistant("s3c", "s3-call", "s3b", T0 + 1200, tool_call("tool-run-make-build", "Bash", {"command": "make"}),
                  usage={**U, "out": 50}),
        tool_result("s3r", "tool-run-make-build", "s3c", T0 + 2000, "build succeeded"),
        assistant("s4", "s4-call", "s3r", T0 + 3000, tool_call("srvtool-websearch", "WebSearch", {"query": "q"}),
                  usage={**U, "out": 10}),
        tool_result("s4r", "srvtool-websearch", "s4", T0 + 4000, "search results"),
        assistant("s5", "s5-call", "s4r", T0 + 5000, tool_call("s5-tool", "Agent", {"prompt": "check the tests"}),
                  usage={**U, "out": 20}),
        tool_result("s5r", "s5-tool", "s5", T0 + 5100, "launched", child=CHILD, flags=["launch_ack"]),
        notification("s5n", "s5-cycle-notification", T0 + 8100, child=CHILD, tool="s5-tool", parent="s5r"),
        assistant("s6", "s6-call", "s5n", T0 + 9100, text("Build passed and tests are green."), usage={**U, "out": 30}),
        assistant("s7-synthetic", "s7-synthetic-call", "s6", T0 + 10100, text("API Error: Connection lost mid-response."),
                  finished=False, synthetic=True),
        boundary("s8-boundary", "s7-synthetic", T0 + 11100),
        summary("s8-summary", "s8-boundary", "s8-cycle-compact", T0 + 10700, "Summary: the build was run and checked."),
    ])
    b.land("changes", [changes_record("tool-run-make-build", "asz-plugin", T0 + 2000)])
    b.land("transcript", [
        prompt("c1", f"{CHILD}-cycle", "check the tests", T0 + 6100),
        assistant("c2", "checker-s1-call", "c1", T0 + 7100, text("Tests pass."), usage={**U, "out": 42}),
    ], stream=CHILD)
    b.land("agent_meta", [sidecar(CHILD, "checker")], stream=CHILD)
    return b.session_dir


def _ref(d: dict | None) -> Ref | None:
    return None if d is None else Ref.from_dict(d)


def _walk(node: dict, out: dict) -> None:
    out[node["id"]] = node
    for c in node.get("children", ()):
        _walk(c, out)


@pytest.fixture(scope="module")
def example() -> dict:
    if not EXAMPLE.exists():
        pytest.skip("shared conformance data not present")
    return yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def asm(tmp_path_factory):
    sdir = land_fixture(tmp_path_factory.mktemp("root"))
    ix = update_index(sdir)
    assert ix.indexed_seq == 4
    return assemble(ix, 4)


def test_every_node_of_the_example(example, asm):
    want: dict[str, dict] = {}
    for t in example["talks"]:
        _walk(t, want)
    for n in example["loose"]:
        want[n["id"]] = n
    for nid, w in want.items():
        got = asm.nodes.get(nid)
        assert got is not None, f"missing node {nid}"
        assert got.kind == w["kind"], nid
        assert got.parent == w["parent"], nid
        assert got.stream == w["stream"], nid
        assert got.ref == _ref(w.get("ref")), nid
        assert [r for r in got.refs] == [Ref.from_dict(r) for r in w.get("refs", ())], nid
        assert got.attrs == w.get("attrs", {}), nid


def test_kinds_relations_and_qualities(example, asm):
    s = example["summary"]
    kinds: dict[str, int] = {}
    for n in asm.nodes.values():
        kinds[n.kind] = kinds.get(n.kind, 0) + 1
    assert kinds == s["kinds"]
    types: dict[str, int] = {}
    quality: dict[str, int] = {}
    for r in asm.relations.values():
        types[r.type] = types.get(r.type, 0) + 1
        quality[r.quality] = quality.get(r.quality, 0) + 1
    assert types == s["relation_types"]
    assert quality == s["quality"]
    assert asm.unresolved == {}


def test_relations_exactly(example, asm):
    got = {
        r.id: {"id": r.id, "type": r.type, "from": r.from_, "to": r.to, "quality": r.quality, "via": r.via,
               "evidence": [e.as_dict() for e in r.evidence]}
        for r in asm.relations.values()
    }
    want = {r["id"]: r for r in example["relations"]}
    assert got == want


def test_header_counts(example, asm):
    s = example["summary"]
    c = asm.counts
    assert c["title"] == s["title"] == "build and check"
    for key in ("talks", "steps", "streams", "segments", "unresolved", "changes"):
        assert c[key] == s[key], key
    assert c["llm_calls"] == 6
    assert c["subagents"] == 1
    assert c["bash_runs"] == 1
    assert c["session_from_time"] == "2026-01-01T00:00:00Z"
    assert c["session_through_time"] == "2026-01-01T00:00:11.1Z"


def test_streams_segments_and_epochs(example, asm):
    for st in example["streams"]:
        n = asm.nodes[st["id"]]
        assert n.kind == "stream"
        assert n.attrs["role"] == st["role"]
        assert n.attrs["records"] == st["records"]
        assert n.attrs.get("label", "") == st["label"]
    for sg in example["segments"]:
        n = asm.nodes[sg["id"]]
        assert n.attrs["state"] == sg["state"]
        # The document counts every talk in the window (main and delegated): its in_segment edges.
        assert sum(1 for r in asm.relations.values() if r.type == "in_segment" and r.to == sg["id"]) == sg["talks"]
        assert n.attrs["committable"] == sg["committable"]
    assert {n.id for n in asm.nodes.values() if n.kind == "epoch"} == {
        "epoch/main/0", "epoch/main/s8-boundary", f"epoch/{CHILD}/0"}


def test_time_window_of_the_round(asm, tmp_path):
    sdir = land_fixture(tmp_path)
    ix = update_index(sdir)
    assert time_window(ix, 1, 4) == ("2026-01-01T00:00:00Z", "2026-01-01T00:00:11.1Z")
    assert time_window(ix, 3, 3) == ("2026-01-01T00:00:06.1Z", "2026-01-01T00:00:07.1Z")
    assert time_window(ix, 4, 4) is None


def test_round_is_byte_identical_to_the_originals(example, asm):
    """With the example's own input digest, the round built from this assembly is the original's round 1:
    same size, same lines, same commit digest (every node, attr, relation and header count)."""
    from asz_core.flow.parse import header_counts
    from asz_core.flow.round import RoundHeader, build_round

    r0 = example["rounds"][0]
    c = asm.counts
    header = RoundHeader(
        conversation=SESSION, session=SESSION, round=1, from_seq=r0["from_seq"], through_seq=r0["through_seq"],
        input_digest=r0["input_digest"], from_time=c["session_from_time"], through_time=c["session_through_time"],
        session_from_time=c["session_from_time"], session_through_time=c["session_through_time"], **header_counts(asm),
    )
    rnd = build_round(header, asm.nodes.values(), asm.relations.values(), asm.unresolved.values())
    f = next(f for f in example["files"] if f["kind"] == "round")
    assert (rnd.size, rnd.data.count(b"\n")) == (f["bytes"], f["lines"])
    assert rnd.digest == r0["digest"] == example["head"]["digest"]
