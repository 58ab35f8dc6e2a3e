"""A usage count Session Data cannot carry (seed 000: integers in 64 bits with their sign) is listed under ``dropped``
by the adapter, and every reader says the call's usage is incomplete: the asz.view document (the call node and a
note), ``asz conversation`` and ``asz usage``. Counts are made here straight from the transcript lines."""

from __future__ import annotations

import json

import pytest

from asz_core.view import build_view
from claude_lines import collect_claude, walk_nodes
from cli_helpers import asz_in_process, usage_json

SID = "7a3c1e5d-0b2f-4c6a-8e9d-1f2a3b4c5d6e"
FIELDS = {"input_tokens": "in", "output_tokens": "out", "cache_read_input_tokens": "cache_read",
          "cache_creation_input_tokens": "cache_write"}


def _line(uuid: str, parent: str | None, sec: int, **kw) -> dict:
    return {"parentUuid": parent, "isSidechain": False, "sessionId": SID, "uuid": uuid, "cwd": "/home/dev/app",
            "timestamp": f"2026-03-01T10:00:{sec:02d}.000Z", **kw}


def transcript(out_tokens) -> list:
    """A prompt and two model calls; the second's ``output_tokens`` is ``out_tokens`` as written (bytes: verbatim)."""
    def call(uuid, parent, sec, msg, usage):
        return _line(uuid, parent, sec, type="assistant", requestId=f"req-{msg}",
                     message={"id": msg, "type": "message", "role": "assistant", "model": "claude-opus-5",
                              "content": [{"type": "text", "text": f"answer {msg}"}], "stop_reason": "end_turn", "usage": usage})
    second = call("a2", "a1", 3, "msg_2", {"input_tokens": 5, "output_tokens": 0, "cache_read_input_tokens": 18462,
                                           "cache_creation_input_tokens": 123})
    raw = json.dumps(second).replace('"output_tokens": 0', f'"output_tokens": {out_tokens}').encode()
    return [_line("u1", None, 1, type="user", promptId="p1", origin={"kind": "human"}, message={"role": "user", "content": "go"}),
            call("a1", "u1", 2, "msg_1", {"input_tokens": 3, "output_tokens": 40, "cache_read_input_tokens": 100,
                                          "cache_creation_input_tokens": 7}),
            raw]


def source_totals(lines: list) -> dict:
    """The four counts summed over the assistant lines, each count as the line writes it when it is a JSON integer."""
    total = dict.fromkeys(FIELDS.values(), 0)
    for x in lines:
        obj = json.loads(x) if isinstance(x, bytes) else x
        for k, v in (obj.get("message", {}).get("usage") or {}).items():
            if k in FIELDS and type(v) is int:
                total[FIELDS[k]] += v
    return total


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return collect_claude(tmp_path_factory.mktemp("usage-dropped"), {SID: transcript("12.5")})


def test_the_document_names_the_call_and_the_field_and_its_totals_are_the_integer_counts(root):
    doc = build_view(root, SID)
    s = doc["summary"]
    assert s["state"] == "verified" and s["usage"] == {**source_totals(transcript("12.5"))}
    calls = {n["id"]: n for n in walk_nodes(doc) if n.get("kind") == "llm.call"}
    assert len(calls) == 2
    short = [n for n in calls.values() if "usage_incomplete" in n]
    assert [n["usage_incomplete"] for n in short] == [["message.usage.output_tokens"]]
    assert s["usage_incomplete"] == 1
    notes = [p for p in s["problems"] if p.startswith("usage incomplete:")]
    assert len(notes) == 1 and short[0]["id"] in notes[0] and "message.usage.output_tokens" in notes[0]


def test_asz_conversation_and_asz_usage_say_the_usage_is_incomplete(root):
    p = asz_in_process("conversation", SID, "--root", str(root))
    assert p.returncode == 0, p.stderr
    assert "usage incomplete: call" in p.stdout and "message.usage.output_tokens" in p.stdout
    assert "tokens incomplete: 1 call(s)" in p.stdout
    u = asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC")
    rows = json.loads(u.stdout)
    assert [r["usage_incomplete"] for r in rows] == [[{"conversation": SID, "calls": 1, "fields": ["message.usage.output_tokens"]}]]
    assert rows[0]["usage"] == usage_json(source_totals(transcript("12.5"))) and rows[0]["calls"] == 2
    t = asz_in_process("usage", "session", "--root", str(root), "--tz", "UTC")
    assert " ~" in t.stdout and "~ usage incomplete" in t.stdout and SID[:8] in t.stdout.splitlines()[-1]


def test_a_negative_count_counts_0_with_a_note_and_null_is_left_out_with_none(tmp_path):
    for written, noted in (("-5", 1), ("null", 0)):  # a negative count is marked as a dropped one is (tests/view/test_usage_negative.py)
        root = collect_claude(tmp_path / written, {SID: transcript(written)})
        s = build_view(root, SID)["summary"]
        assert s["usage"] == source_totals(transcript("0")), written
        assert s.get("usage_incomplete", 0) == noted == len([p for p in s["problems"] if p.startswith("usage incomplete")])


def test_the_total_sums_the_incomplete_calls_of_every_row(tmp_path):
    """``--json --total-once``: the total carries ``usage_incomplete`` as its rows do (trial 40b F4: only the rows had
    it while the table's ``~`` line counted the calls), a conversation's calls of every row added; the table's line
    says the same count. Two calls whose output count is no integer, on two days (counted from the lines)."""
    lines = transcript("12.5")
    later = json.loads(lines[-1])
    later.update(uuid="a3", parentUuid="a2", timestamp="2026-03-02T10:00:00.000Z")
    later["requestId"], later["message"]["id"] = "req-msg_3", "msg_3"
    lines.append(json.dumps(later).encode())
    short: dict[str, int] = {}
    for x in lines:
        d = json.loads(x) if isinstance(x, bytes) else x
        if type((d.get("message", {}).get("usage") or {}).get("output_tokens", 0)) is not int:
            short[d["timestamp"][:10]] = short.get(d["timestamp"][:10], 0) + 1
    assert short == {"2026-03-01": 1, "2026-03-02": 1}
    root = collect_claude(tmp_path, {SID: lines})
    got = json.loads(asz_in_process("usage", "daily", "--json", "--total-once", "--root", str(root), "--tz", "UTC").stdout)
    field = ["message.usage.output_tokens"]
    assert {r["date"]: r["usage_incomplete"] for r in got["rows"]} == {
        day: [{"conversation": SID, "calls": n, "fields": field}] for day, n in short.items()}
    assert got["total"]["usage_incomplete"] == [{"conversation": SID, "calls": sum(short.values()), "fields": field}]
    t = asz_in_process("usage", "daily", "--root", str(root), "--tz", "UTC").stdout
    assert f"{SID[:8]} ({sum(short.values())} call(s): message.usage.output_tokens)" in t.splitlines()[-1]
