"""Usage of every model call and the totals of a conversation (issue 17), against counts made from the transcripts.

The truth is counted here straight from the Claude Code files, without the adapter, the landed files or the
document: one usage per assistant ``message.id`` (+ ``requestId`` where present), taken from the **last** line
of it in file order; sub-agent files included; a message id seen again in another file of the same session
(a side question replaying the parent's responses) counted once (../shared/spec/reader-anchors.md).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from asz_core.view import build_view, list_conversations
from cli_helpers import asz_ok as _asz, usage_json
from test_view_prices import PUBLISHED  # the published prices, 1-hour cache writes included

#: The corpus figures of ../shared/spec/reader-anchors.md (Token counts: what is right).
ANCHOR = {"in": 14_923, "out": 163_933, "cache_write": 1_364_531, "cache_read": 33_443_427}
ANCHOR_CALLS = 543
SESSION = "5b2a7c1e-0d4f-4a8b-9c3e-6f1a2b3c4d5e"


def _lines(path: Path):
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            yield obj


def transcript_calls(files: list[Path]) -> dict[tuple[str, str], dict]:
    """``(message id, request id) -> the assistant line`` counted for each call of one session's transcript ``files``."""
    owner: dict[str, Path] = {}
    calls: dict[tuple[str, str], dict] = {}
    for f in files:
        last: dict[tuple[str, str], dict] = {}
        for obj in _lines(f):
            m = obj.get("message")
            if obj.get("type") != "assistant" or not isinstance(m, dict) or not m.get("id") or not isinstance(m.get("usage"), dict):
                continue
            last[(m["id"], obj.get("requestId") or "")] = m  # a later line of the same call replaces it
        for (mid, req), m in last.items():
            if owner.setdefault(mid, f) != f:
                continue  # this message id was counted from another file of the session
            calls[(mid, req)] = m
    return calls


def source_usage(u: dict) -> dict:
    """One source ``message.usage`` in Session Data's names; ``cache_write_1h`` (the 1-hour cache writes,
    ``cache_creation.ephemeral_1h_input_tokens``) only when not zero."""
    out = {"in": u.get("input_tokens") or 0, "out": u.get("output_tokens") or 0,
           "cache_read": u.get("cache_read_input_tokens") or 0, "cache_write": u.get("cache_creation_input_tokens") or 0}
    hour = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
    if hour:
        out["cache_write_1h"] = hour
    return out


def add_to(total: dict, u: dict) -> dict:
    for k, v in u.items():
        total[k] = total.get(k, 0) + v
    return total


def transcript_truth(files: list[Path]) -> tuple[dict, int]:
    """(the four totals, and ``cache_write_1h`` when not zero; the number of calls) of one session's transcript
    ``files``, main file first."""
    calls = transcript_calls(files)
    total = {"in": 0, "out": 0, "cache_read": 0, "cache_write": 0}
    for m in calls.values():
        add_to(total, source_usage(m["usage"]))
    return total, len(calls)


def sessions_of(projects: Path) -> dict[str, list[Path]]:
    """Every ``*.jsonl`` under ``projects`` grouped by the ``sessionId`` its lines carry, the session's own file first."""
    out: dict[str, list[Path]] = {}
    for f in sorted(projects.rglob("*.jsonl")):
        sid = next((o["sessionId"] for o in _lines(f) if isinstance(o.get("sessionId"), str)), None)
        if sid:
            out.setdefault(sid, []).append(f)
    for sid, files in out.items():
        files.sort(key=lambda f: (f.name != f"{sid}.jsonl", str(f)))
    return out


def _calls(doc: dict) -> list[dict]:
    out: list[dict] = []

    def walk(n):
        if isinstance(n, dict):
            if n.get("kind") == "llm.call":
                out.append(n)
            for c in n.get("children", ()):
                walk(c)

    for n in doc["talks"] + doc["loose"]:
        walk(n)
    return out


def test_summary_totals_equal_the_transcripts_in_every_conversation(corpus):
    projects, root = corpus
    truth = sessions_of(projects)
    convs = list_conversations(root)
    assert sorted(convs) == sorted(truth) and len(convs) == 11
    matched, grand, calls = 0, dict.fromkeys(ANCHOR, 0), 0
    for conv in convs:
        expected, n = transcript_truth(truth[conv])
        s = build_view(root, conv)["summary"]
        assert s["usage"] == expected, conv  # cache_write_1h included: the source's 1-hour writes, exactly
        lanes = s["usage_by_lane"]
        assert add_to(dict(lanes["main"]), lanes["subagent"]) == expected, conv
        by_model: dict = {}
        for u in s["usage_by_model"].values():
            add_to(by_model, u)
        assert by_model == expected, conv
        matched += 1
        calls += n
        for k in ANCHOR:
            grand[k] += expected[k]
    assert matched == 11
    assert grand == ANCHOR and calls == ANCHOR_CALLS


def test_every_call_with_usage_is_one_call_of_the_transcripts(corpus):
    """543 calls carry usage in the documents, 339 of them read from a last snapshot with no stop reason."""
    _, root = corpus
    calls = [c for conv in list_conversations(root) for c in _calls(build_view(root, conv)) if "usage" in c]
    assert len(calls) == ANCHOR_CALLS
    assert sum(1 for c in calls if c["usage_state"] == "last_seen") == 339
    assert all(c["model"] for c in calls)


def test_sub_agent_calls_count_in_their_lane(corpus):
    """The six sub-agent files of ef958aa1 count in lane ``subagent``: what the transcripts under subagents/ hold."""
    projects, root = corpus
    conv = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    files = sessions_of(projects)[conv]
    main, _ = transcript_truth(files[:1])
    s = build_view(root, conv)["summary"]
    assert s["usage_by_lane"]["main"] == main
    assert s["usage_by_lane"]["subagent"]["out"] == s["usage"]["out"] - main["out"] > 0


def _snapshot_lines(outputs: list[int], stop_on_last: bool) -> list[dict]:
    """A typed prompt and one streamed model call written as one line per content block, as Claude Code 2.x writes it."""
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/proj", "sessionId": SESSION,
            "version": "2.1.114", "gitBranch": "main"}
    lines = [{**base, "parentUuid": None, "type": "user", "uuid": "u-1", "timestamp": "2026-04-18T13:18:42.368Z",
              "promptId": "p-1", "message": {"role": "user", "content": "How big is the repository?"}}]
    parent = "u-1"
    for i, out in enumerate(outputs):
        last = i == len(outputs) - 1
        lines.append({**base, "parentUuid": parent, "type": "assistant", "uuid": f"a-{i}", "requestId": "req_011",
                      "timestamp": f"2026-04-18T13:19:1{i}.000Z", "message": {
                          "id": "msg_01Snap", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
                          "content": [{"type": "text", "text": f"part {i}"}],
                          "stop_reason": "end_turn" if stop_on_last and last else None, "stop_sequence": None,
                          "usage": {"input_tokens": 6, "cache_creation_input_tokens": 27860, "cache_read_input_tokens": 11515,
                                    "output_tokens": out, "service_tier": "standard"}}})
        parent = f"a-{i}"
    return lines


@pytest.mark.parametrize("stop_on_last,state", [(False, "last_seen"), (True, "final")])
def test_a_multi_snapshot_call_shows_its_last_usage(tmp_path, stop_on_last, state):
    src = tmp_path / "projects" / "-home-dev-proj"
    src.mkdir(parents=True)
    with open(src / f"{SESSION}.jsonl", "w") as f:
        for d in _snapshot_lines([10, 10, 10, 211], stop_on_last):
            f.write(json.dumps(d) + "\n")
    root = tmp_path / "root"
    _asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    doc = build_view(root, SESSION)
    [call] = _calls(doc)
    assert call["usage"] == {"in": 6, "out": 211, "cache_read": 11515, "cache_write": 27860}
    assert call["usage_state"] == state
    assert call["model"] == "claude-opus-4-7"
    assert doc["summary"]["usage"] == call["usage"]
    assert doc["summary"]["usage_by_model"] == {"claude-opus-4-7": call["usage"]}
    assert doc["summary"]["models"] == ["claude-opus-4-7"]


def test_one_conversations_cost_is_the_hand_computed_figure(corpus):
    """55604662: one call of claude-opus-4-6 (in 3, out 13, cache read 11,515, cache write 13,835, all of it 1-hour
    writes: ``cache_creation.ephemeral_1h_input_tokens`` 13,835) at the published $5 / $25 / $0.50 / $10 (1-hour
    writes, 2x input) per million: 15 + 325 + 5,757.5 + 138,350 = 144,447.5 micro-dollars (priced as 5-minute
    writes, $6.25, it was 92,566.25)."""
    _, root = corpus
    s = build_view(root, "55604662-cf2a-4331-851a-ec234028f8ca")["summary"]
    assert s["usage_by_model"] == {"claude-opus-4-6": {"in": 3, "out": 13, "cache_read": 11515, "cache_write": 13835, "cache_write_1h": 13835}}
    assert s["cost"] == {"usd": 0.144448, "usd_exact": "0.1444475", "unpriced": []}


def source_cost(calls: dict) -> Decimal:
    """The exact cost in USD of transcript calls (:func:`transcript_calls`), from the source's own counts: a
    call's ``cache_creation_input_tokens`` priced at the 5-minute price except its
    ``cache_creation.ephemeral_1h_input_tokens``, priced at the 1-hour price; the model named by its line."""
    total = Decimal(0)
    for m in calls.values():
        model = re.sub(r"-\d{8}$", "", m.get("model") or "")
        u = m["usage"]
        if model == "<synthetic>" and not any(source_usage(u).values()):
            continue
        inp, w5, w1, read, out = (Decimal(x) for x in PUBLISHED[model])
        hour = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
        total += (inp * (u.get("input_tokens") or 0) + out * (u.get("output_tokens") or 0)
                  + read * (u.get("cache_read_input_tokens") or 0)
                  + w5 * ((u.get("cache_creation_input_tokens") or 0) - hour) + w1 * hour) / 1_000_000
    return total


def test_every_conversations_cost_is_priced_from_the_source_counts(corpus):
    """Each corpus conversation's cost equals its calls priced here from the transcripts' own token counts and the
    published prices, 1-hour cache writes at 2x input (three of the 11 conversations have some)."""
    projects, root = corpus
    truth = sessions_of(projects)
    with_hour = 0
    for conv in list_conversations(root):
        calls = transcript_calls(truth[conv])
        exact = source_cost(calls)
        want = exact.quantize(Decimal("0.000001"))
        s = build_view(root, conv)["summary"]
        assert s["cost"] == {"usd": float(want), "usd_exact": format(exact.normalize(), "f") if exact else "0", "unpriced": []}, conv
        with_hour += "cache_write_1h" in s["usage"]
    assert with_hour == 3


def test_every_corpus_model_is_priced(corpus):
    _, root = corpus
    for conv in list_conversations(root):
        s = build_view(root, conv)["summary"]
        assert s["cost"]["unpriced"] == [] and s["cost"]["usd"] > 0, conv


def test_13_a_replayed_copy_never_replaces_the_calls_own_last_usage(tmp_path):
    """Field report 13: a side stream replays the parent's response (same message id, an earlier snapshot, out 2);
    the call counts once, with its own stream's last usage (out 159), and the side stream's new call counts too."""
    from asz_core.flow.parse import parse_root
    from asz_core.testing.asm_build import SessionBuilder, assistant, prompt, text, tool_call, tool_result, user_input

    t0 = 1767225600000
    b = SessionBuilder(tmp_path / "root", "sess-13")
    b.land("transcript", [
        user_input("u1", "r1", "read it", t0),
        assistant("a1", "msg_1", "u1", t0 + 1000, text("Let me"), finished=False, usage={"in": 5, "out": 2}),
        assistant("a2", "msg_1", "a1", t0 + 1100, text("look."), finished=False, usage={"in": 5, "out": 9}),
        assistant("a3", "msg_1", "a2", t0 + 1200, tool_call("toolu_1", "Read"), usage={"in": 5, "out": 159}),
        tool_result("t1", "toolu_1", "a3", t0 + 1300, "contents"),
    ], stream="main")
    b.land("transcript", [
        prompt("b0", "side-cycle", "btw, what is it?", t0 + 2000),
        assistant("b1", "msg_1", "b0", t0 + 2100, text("Let me"), finished=False, usage={"in": 5, "out": 2}),
        assistant("b2", "msg_2", "b1", t0 + 2200, text("It is a config file."), usage={"in": 5, "out": 12}),
    ], stream="a1b2c3d4e5f6a7b8c")
    assert parse_root(tmp_path / "root").ok
    doc = build_view(tmp_path / "root", "sess-13")
    calls = {c["id"]: c for c in _calls(doc)}
    assert calls["call/msg_1"]["usage"]["out"] == 159 and calls["call/msg_1"]["usage_state"] == "final"
    assert calls["call/msg_2"]["usage"]["out"] == 12
    s = doc["summary"]
    assert s["usage"] == {"in": 10, "out": 171, "cache_read": 0, "cache_write": 0}
    assert s["usage_by_lane"]["main"]["out"] == 159 and s["usage_by_lane"]["subagent"]["out"] == 12


def _request_lines(requests: list[str | None], outputs: list[int]) -> list[dict]:
    """A typed prompt and assistant lines all under one ``message.id``, the i-th line carrying ``requestId``
    ``requests[i]`` (none when None) and output ``outputs[i]``; the lines otherwise as Claude Code 2.x writes them."""
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/proj", "sessionId": SESSION,
            "version": "2.1.114", "gitBranch": "main"}
    lines = [{**base, "parentUuid": None, "type": "user", "uuid": "u-1", "timestamp": "2026-04-18T13:18:42.368Z",
              "promptId": "p-1", "message": {"role": "user", "content": "How big is the repository?"}}]
    for i, (req, out) in enumerate(zip(requests, outputs)):
        line = {**base, "parentUuid": lines[-1]["uuid"], "type": "assistant", "uuid": f"a-{i}",
                "timestamp": f"2026-04-18T13:19:1{i}.000Z", "message": {
                    "id": "msg_01Twice", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
                    "content": [{"type": "text", "text": f"part {i}"}], "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": 6 + i, "cache_creation_input_tokens": 100 * (i + 1), "cache_read_input_tokens": 11515,
                              "output_tokens": out, "service_tier": "standard"}}}
        if req is not None:
            line["requestId"] = req
        lines.append(line)
    return lines


@pytest.mark.parametrize("requests,calls", [
    (["req_01A", "req_01B"], 2),  # one message id answered by two requests: two provider calls, each its own usage
    (["req_01A", "req_01A"], 1),  # the same request: one call, its last snapshot
    ([None, None], 1),            # no request id (older Claude Code): the message id alone keys the call
])
def test_the_request_id_distinguishes_calls_sharing_a_message_id(tmp_path, requests, calls):
    src = tmp_path / "projects" / "-home-dev-proj"
    src.mkdir(parents=True)
    path = src / f"{SESSION}.jsonl"
    with open(path, "w") as f:
        for d in _request_lines(requests, [40, 211]):
            f.write(json.dumps(d) + "\n")
    expected, n = transcript_truth([path])
    assert n == calls
    root = tmp_path / "root"
    _asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    doc = build_view(root, SESSION)
    [node] = _calls(doc)
    assert doc["summary"]["usage"] == expected == node["usage"]
    if calls == 2:
        assert expected == {"in": 6 + 7, "out": 40 + 211, "cache_read": 2 * 11515, "cache_write": 100 + 200}
        assert [(r["request"], r["usage"]["out"]) for r in node["requests"]] == [("req_01A", 40), ("req_01B", 211)]
    else:
        assert expected["out"] == 211 and "requests" not in node
    [row] = json.loads(_asz("usage", "session", "--json", "--root", str(root)))
    assert row["calls"] == calls and row["usage"] == usage_json(expected)


def test_exports_carry_the_tokens_and_cost_counted_from_the_source(corpus, tmp_path):
    """A shared Markdown or HTML export says what the conversation cost, as ``asz conversation`` does (trial 4, F1):
    its ``tokens`` line holds the transcripts' own deduplicated counts and its ``cost`` line their price, in cents."""
    projects, root = corpus
    truth = sessions_of(projects)
    for conv in list_conversations(root):
        expected, _ = transcript_truth(truth[conv])
        cost = source_cost(transcript_calls(truth[conv])).quantize(Decimal("0.01"))
        tokens = (f"tokens in {expected['in']:,}, out {expected['out']:,}, cache read {expected['cache_read']:,}, "
                  f"cache write {expected['cache_write']:,}")
        md = _asz("export", conv, "--format", "md", "--root", str(root))
        assert f"\n- {tokens}" in md and f"\n- cost ${cost:,}\n" in md, conv
        out = tmp_path / f"{conv}.html"
        _asz("export", conv, "--format", "html", "--root", str(root), "--out", str(out))
        page = out.read_text(encoding="utf-8")
        assert f"<bdi>{tokens}" in page and f"<bdi>cost ${cost:,}</bdi>" in page, conv


def test_an_export_index_totals_the_tokens_and_cost_counted_from_the_source(corpus, tmp_path):
    """Trial 5, finding 5: the index of an export of several had no tokens, cost or total. Each row carries the
    conversation's tokens and cost, and the index ends with the total: the transcripts' own counts and prices."""
    projects, root = corpus
    truth = sessions_of(projects)
    total_cost = sum(source_cost(transcript_calls(files)).quantize(Decimal("0.000001")) for files in truth.values())
    tokens = sum(ANCHOR.values())
    for fmt, index in (("md", "index.md"), ("html", "index.html")):
        out = tmp_path / fmt
        _asz("export", "--since", "2000-01-01", "--format", fmt, "--root", str(root), "--out", str(out))
        text = (out / index).read_text(encoding="utf-8")
        assert f"11 conversation(s): {tokens:,} tokens, ${total_cost:,.2f}" in text, fmt
        for conv, files in truth.items():
            want, _ = transcript_truth(files)
            cost = source_cost(transcript_calls(files)).quantize(Decimal("0.01"))
            row = next(line for line in text.replace("<tr", "\n<tr").splitlines() if conv in line)
            assert f"{sum(want[k] for k in ANCHOR):,}" in row and f"${cost:,}" in row, (fmt, conv)
