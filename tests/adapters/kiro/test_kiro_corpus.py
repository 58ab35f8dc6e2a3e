"""The Kiro adapter over the two real Kiro CLI sessions of ../shared/corpus/kiro (a 2.x and a 3.x session).

Expectations are computed here from the raw bytes (lines split on b"\\n"
only), never taken from the adapter. Never reads the machine's own ~/.kiro:
the corpus home is passed explicitly.
"""

from __future__ import annotations

import json

import hashlib
from pathlib import Path

import pytest

from asz_adapters_kiro import KiroAdapter
from asz_core import RawJSON, Source, compact, json_loads, read_file

V3_SESSION = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"
V2_SESSION = "8e247382-c779-440f-b1db-ed9bad1afaee"
V3_DIR = f".kiro/sessions/2f1c0d9e8b7a6f5e/{V3_SESSION}"
V3_PROMPT = "25e43d3d-2b58-4bbf-8e6f-99573edd758f"  # id of the 3.x session's only user line (line 1)
V2_PROMPT = "8542d19b-c7b1-4b73-8d51-e33d2f53e1b5"  # message_id of the 2.x session's only Prompt entry (line 1)


@pytest.fixture(scope="module")
def home(corpus_dir: Path) -> Path:
    h = corpus_dir / "kiro" / "home"
    if not (h / ".kiro" / "sessions").is_dir():
        pytest.skip(f"{h}/.kiro/sessions is absent")
    return h


def _is_value_slice(got: bytes, whole: bytes) -> bool:
    """``got`` occurs in ``whole`` as a whole JSON value: the whole line, or between ``:``/``[``/``,`` and ``,``/``]``/``}``."""
    if got == whole:
        return True
    at = whole.find(got)
    while at > 0:
        end = at + len(got)
        if whole[at - 1:at] in (b":", b"[", b",") and whole[end:end + 1] in (b",", b"]", b"}"):
            return True
        at = whole.find(got, at + 1)
    return False


def _lines(data: bytes) -> list[tuple[int, int, bytes]]:
    """(ord, off, line) of each complete line, split on b"\\n" only."""
    out, off = [], 0
    pieces = data.split(b"\n")
    for i, line in enumerate(pieces[:-1], 1):  # the piece after the last newline is not a complete line
        out.append((i, off, line))
        off += len(line) + 1
    return out


def _records(adapter: KiroAdapter, src: Source):
    data = src.path.read_bytes()
    if src.mode == "snapshot":
        return [(1, 0, data, adapter.convert_document(src, data))]
    return [(o, off, line, adapter.convert_line(src, line, o, off)) for o, off, line in _lines(data)]


def _check_source_json(rec, raw: bytes) -> int:
    """Every data holding source JSON is a compacted value slice of the source, byte for byte; returns how many."""
    whole = compact(raw.strip(b" \t\r\n"))
    n = 0
    for part in rec.parts:
        if isinstance(part.data, RawJSON):
            got = part.data.raw
            assert compact(got) == got
            assert _is_value_slice(got, whole), f"ord {rec.ord}: a data part is not a value slice of the source"
            json_loads(got)
            n += 1
    return n


def test_discovery_finds_both_sessions(home: Path) -> None:
    disc = KiroAdapter().discover(home)
    assert not disc.errors
    got = {(s.session, s.kind, s.mode, s.stream, s.src) for s in disc.sources}
    assert got == {
        (V3_SESSION, "transcript", "append", "", f"{V3_DIR}/messages.jsonl"),
        (V3_SESSION, "agent_meta", "snapshot", "", f"{V3_DIR}/session.json"),
        (V2_SESSION, "transcript", "append", "", f".kiro/sessions/cli/{V2_SESSION}.jsonl"),
        (V2_SESSION, "agent_meta", "snapshot", "", f".kiro/sessions/cli/{V2_SESSION}.json"),
    }
    assert all(s.dialect == "kiro/1" and s.path == home / s.src for s in disc.sources)
    # a Kiro home given directly finds the same sessions
    assert {s.session for s in KiroAdapter().discover(home / ".kiro").sources} == {V3_SESSION, V2_SESSION}


def test_every_line_is_one_record_with_its_address(home: Path) -> None:
    adapter = KiroAdapter()
    counts = {"records": 0, "source_json": 0}
    for src in adapter.discover(home).sources:
        for o, off, raw, rec in _records(adapter, src):
            assert (rec.ord, rec.off, rec.bytes) == (o, off, len(raw))
            assert rec.sha == hashlib.sha256(raw).hexdigest()[:12]
            assert rec.parts, f"{src.src}:{o} has no parts"
            assert all(p.k != "unknown" for p in rec.parts), f"{src.src}:{o} landed as unknown"
            assert rec.usage is None  # Kiro's credits are never tokens
            counts["records"] += 1
            counts["source_json"] += _check_source_json(rec, raw)
    assert counts["records"] == 46 + 1 + 14 + 1
    assert counts["source_json"] > 40


def test_the_3x_session_maps_calls_results_and_the_failed_sub_agents(home: Path) -> None:
    adapter = KiroAdapter()
    src = next(s for s in adapter.discover(home).sources if s.session == V3_SESSION and s.kind == "transcript")
    recs = [r for *_, r in _records(adapter, src)]
    first = recs[0]
    assert first.flags == ["external_input"] and first.from_ == "external" and first.trigger == "external"
    assert first.parts[0].k == "text" and first.parts[0].text.startswith("Create a directory test-scripts/")

    calls = {p.id: (r, p) for r in recs for p in r.parts if p.k == "call"}
    results = {p.of: (r, p) for r in recs for p in r.parts if p.k == "result"}
    assert set(results) <= set(calls)
    for rid, (rec, part) in results.items():
        if rid.startswith("invoke_subagent_"):
            assert part.failed is True, rid
            assert rec.flags == ["child_result"] and rec.child and rec.tool == rid
            assert calls[rid][0].child == rec.child
        else:
            assert part.failed is False, rid
    starts = [r for r in recs if r.child and r.parts[0].k == "call"]
    assert [r.child for r in starts] == ["7553f090-f809-471f-bee2-5b38d148e49c", "ef1faec1-f0f6-472e-a934-57bf28197572"]
    assert {r.run for r in starts} == {V3_PROMPT}  # the turn's prompt, not parentExecutionId (kept in data)
    assert starts[0].parts[0].data_value()["parentExecutionId"] == "5a94a0e7-a6e4-4688-a925-4b8c21d174d6"
    assert sum("error" in r.flags for r in recs) == 2  # the two displayError lines

    says = [r for r in recs if r.from_ == "agent" and r.parts[0].k == "text"]
    assert len(says) == 5 and all(r.call == r.id for r in says)  # each assistant line is one llm.call

    usage = next(r for r in recs if r.id.endswith("-usage"))
    assert usage.flags == ["turn_duration"] and usage.usage is None
    data = usage.parts[0].data_value()
    assert data["promptTurnSummaries"][0]["unit"] == "credit"  # credits kept as data


def test_the_2x_session_and_its_credits(home: Path) -> None:
    adapter = KiroAdapter()
    srcs = {s.kind: s for s in adapter.discover(home).sources if s.session == V2_SESSION}
    recs = [r for *_, r in _records(adapter, srcs["transcript"])]
    assert recs[0].flags == ["external_input"] and recs[0].time == "2026-05-27T18:15:03Z"
    assert [p.name for r in recs for p in r.parts if p.k == "call"] == ["write", "read", "write", "shell", "grep", "glob"]
    assert all(p.failed is False for r in recs for p in r.parts if p.k == "result")
    assert recs[-1].parts[-1].text.startswith("All six steps done")
    assert all(r.call == r.id for r in recs if r.from_ == "agent") and not any(r.call for r in recs if r.from_ != "agent")

    (_, _, _, meta), = _records(adapter, srcs["agent_meta"])
    assert meta.usage is None and meta.model == "auto" and meta.label.startswith("Do these six steps")
    doc = meta.parts[0].data_value()
    units = {u["unit"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"] for u in t["metering_usage"]}
    assert units == {"credit"}


def test_the_collector_lands_and_verifies_the_corpus(home: Path, tmp_path: Path) -> None:
    from asz_core.collect.collector import CollectOptions, Collector
    from asz_core.verify.walk import verify_root

    root = tmp_path / "root"
    col = Collector(root, KiroAdapter(), home, options=CollectOptions(fsync=False))
    c = col.run_pass()
    assert (c.sessions, c.sources, c.records, c.errors, c.conflicts) == (2, 4, 62, 0, 0)
    assert col.run_pass().records == 0  # nothing new
    rep = verify_root(root, jobs=1)
    assert rep.sections[0].problems == [] and rep.sections[0].counts["records"] == 62
    # the landed transcript is the converter's output, line for line
    adapter = KiroAdapter()
    src = next(s for s in adapter.discover(home).sources if s.session == V3_SESSION and s.kind == "transcript")
    landed = sorted((root / V3_SESSION / "streams" / "main").glob("transcript-*.sd"))
    header, recs, _ = read_file(landed[0])
    assert header.dialect == "kiro/1" and header.adapter == "kiro/0.7.0" and header.src == src.src
    assert [(r.ord, r.off, r.sha, r.bytes) for r in recs] == [(r.ord, r.off, r.sha, r.bytes) for *_, r in _records(adapter, src)]


def test_every_line_of_a_turn_states_its_prompt_as_run(home: Path) -> None:
    """3.x: the user line (no executionId) opens the turn, ``turn_end`` (another executionId) closes it; 2.x: the
    Prompt opens it. Every line between states the prompt's id as run, as does a cold read of the file."""
    from asz_adapters_kiro.turns import TurnTracker

    adapter = KiroAdapter()
    srcs = {s.session: s for s in adapter.discover(home).sources if s.kind == "transcript"}
    for session, prompt, n in ((V3_SESSION, V3_PROMPT, 46), (V2_SESSION, V2_PROMPT, 14)):
        got = _records(adapter, srcs[session])
        assert len(got) == n and [r.run for *_, r in got] == [prompt] * n
        assert got[0][3].id == prompt
        # a fresh tracker reads each line's turn back from the file: the same answer out of order
        cold = TurnTracker()
        assert [cold.before(srcs[session].path, off)[0] for _, off, _, _ in reversed(got)] == [prompt] * (n - 1) + [""]
        end = sum(len(raw) + 1 for _, _, raw, _ in got)
        assert cold.before(srcs[session].path, end)[0] == ("" if session == V3_SESSION else prompt)  # after turn_end: none

    v3 = {r.id: r for *_, r in _records(adapter, srcs[V3_SESSION])}
    assert [p for p in v3[f"{V3_PROMPT}"].parts if p.k == "text"][0].text.startswith("Create a directory test-scripts/")
    end = v3["0293c248-f0ce-4dca-b2a6-42152715f859-turn-end"]
    assert end.run == V3_PROMPT and end.parts[0].data_value()["executionId"] == "0293c248-f0ce-4dca-b2a6-42152715f859"
    say = v3["3b0c912d-a7fe-4e2f-b08b-3b5bf44083f4-say"]
    assert say.call == say.id and say.run == V3_PROMPT  # the last request: its text after the last result
    assert [(d.what, d.bytes) for d in say.dropped][0] == ("payload executionId", len(b'"5a94a0e7-a6e4-4688-a925-4b8c21d174d6"'))


def _requests_counted(path: Path) -> list[list[str]]:
    """The model requests of a 3.x file counted straight from its lines by the glossary's rule: a stretch of
    assistant / tool_call / sub_agent_start lines with no tool_result, sub_agent_complete, user, turn_start,
    turn_end or tombstone between them."""
    groups: list[list[str]] = []
    open_ = False
    for line in path.read_bytes().split(b"\n"):
        if not line:
            continue
        d = json.loads(line)
        t = d["payload"]["type"]
        if t in ("assistant", "tool_call", "sub_agent_start"):
            if not open_:
                groups.append([])
                open_ = True
            groups[-1].append(d["id"])
        elif t in ("tool_result", "sub_agent_complete", "user", "turn_start", "turn_end", "tombstone"):
            open_ = False
    return groups


def test_one_call_per_model_request_by_the_glossary_rule(home: Path) -> None:
    """3.x: every model line of one request states the request's first line id as call, read in order or cold."""
    from asz_adapters_kiro.turns import TurnTracker

    adapter = KiroAdapter()
    src = next(s for s in adapter.discover(home).sources if s.session == V3_SESSION and s.kind == "transcript")
    groups = _requests_counted(src.path)
    assert len(groups) == 9 and sum(map(len, groups)) == 13  # 5 assistant + 6 tool_call + 2 sub_agent_start lines
    want = {lid: g[0] for g in groups for lid in g}
    got = _records(adapter, src)
    assert {r.id: r.call for *_, r in got if r.call} == want
    assert not any(r.call for *_, r in got if r.from_ != "agent")
    cold = TurnTracker()
    for _, off, _, r in got:
        if r.id in want and r.id != want[r.id]:
            assert cold.before(src.path, off)[1] == want[r.id]  # the request open before a later line of it
