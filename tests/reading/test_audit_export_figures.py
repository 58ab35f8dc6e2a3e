"""``asz export --audit`` as trial 22a's daily audit found it: the header's calls, tokens and cost (F4), a
conversation with no line in the window (F17) and the written file's own size (F15).

The tokens and calls are counted here straight from the corpus's source ``.jsonl`` files: one usage per assistant
``message.id`` + ``requestId`` over a session's own file and its sub-agents' files, the last line carrying it wins,
on the day of that line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from reading_helpers import asz
from test_prose_audit import SESSIONS, _files, _lines

from asz_core.cli.export_said import MODEL_CONTEXT_TOKENS, written_line

KINDS = {"input_tokens": "in", "output_tokens": "out", "cache_read_input_tokens": "cache_read",
         "cache_creation_input_tokens": "cache_write"}


def _counted(source: Path, sid: str, day: str | None = None) -> dict:
    """``{"calls", "tokens"}`` of ``sid`` from its source files (module docstring); ``day`` (UTC): only the calls
    whose usage line is of that day."""
    last: dict = {}
    for path in _files(source, sid):
        for _, d in _lines(path):
            m = d.get("message")
            if d.get("type") == "assistant" and isinstance(m, dict) and m.get("id") and m.get("usage"):
                last[(m["id"], d.get("requestId"))] = (d["timestamp"], m["usage"])
    tokens = dict.fromkeys(KINDS.values(), 0)
    calls = 0
    for ts, u in last.values():
        if day is None or ts.startswith(day):
            calls += 1
            for k, name in KINDS.items():
                tokens[name] += u.get(k) or 0
    return {"calls": calls, "tokens": tokens}


def _four(tokens: dict) -> dict:
    """The four kinds of a header's ``tokens`` (``cache_write_1h``, the part of ``cache_write`` that went to the
    1-hour cache, is inside ``cache_write``)."""
    return {k: tokens[k] for k in KINDS.values()}


def _session_row(root: Path, sid: str, *window: str) -> dict:
    rows = json.loads(asz("usage", "session", "--json", "--root", str(root), *window).stdout)
    (row,) = [r for r in rows if r["conversation"] == sid]
    return row


@pytest.mark.parametrize("sid", sorted(SESSIONS))
def test_the_header_carries_the_calls_tokens_and_cost_of_the_source(corpus_root, corpus_source, sid):
    head = json.loads(asz("export", sid, "--audit", "--root", str(corpus_root)).stdout.splitlines()[0])
    want = _counted(corpus_source, sid)
    assert want["calls"] > 0 and (head["calls"], _four(head["tokens"])) == (want["calls"], want["tokens"])
    row = _session_row(corpus_root, sid)  # the cost: asz usage session's, by the same rules
    assert head["cost"] == row["cost"] and head["cost"]["usd"] > 0 and head["credits"] is None
    assert "in_window" not in head


@pytest.mark.parametrize("day", ["2025-11-14", "2025-11-17"])
def test_a_days_header_carries_the_figures_inside_the_window(corpus_root, corpus_source, day):
    sid = "cb2e607c-c758-415a-8b45-c49e4631906a"  # active on both days
    window = ("--since", day, "--until", day, "--tz", "UTC")
    (head,) = [json.loads(x) for x in asz("export", *window, "--audit", "--root", str(corpus_root)).stdout.splitlines()
               if json.loads(x)["kind"] == "conversation" and json.loads(x)["conversation"] == sid]
    whole, inside = _counted(corpus_source, sid), _counted(corpus_source, sid, day)
    assert (head["calls"], _four(head["tokens"])) == (whole["calls"], whole["tokens"])
    assert 0 < inside["calls"] < whole["calls"]
    assert (head["in_window"]["calls"], _four(head["in_window"]["tokens"])) == (inside["calls"], inside["tokens"])
    assert head["in_window"]["cost"] == _session_row(corpus_root, sid, *window)["cost"]


def test_in_range_only_leaves_out_a_conversation_with_no_line_in_the_window(corpus_root, corpus_source):
    """cb2e607c runs from 2025-11-14 to 2025-11-17 and has no line on 2025-11-15 (counted from its source): active
    that day by its range only. Without --in-range-only it is still written whole (today's selection)."""
    sid = "cb2e607c-c758-415a-8b45-c49e4631906a"
    assert not [d for p in _files(corpus_source, sid) for _, d in _lines(p) if str(d.get("timestamp")).startswith("2025-11-15")]
    window = ("--since", "2025-11-15", "--until", "2025-11-15", "--tz", "UTC", "--audit", "--root", str(corpus_root))
    whole = asz("export", *window)
    heads = [json.loads(x) for x in whole.stdout.splitlines() if json.loads(x)["kind"] == "conversation"]
    assert [h["conversation"] for h in heads] == [sid] and heads[0]["in_window"]["calls"] == 0
    only = asz("export", *window, "--in-range-only")
    assert only.stdout == "" and "exported 0 conversation(s)" in only.stderr
    assert "--in-range-only left out 1 conversation(s) with no line inside the window" in only.stderr


def test_stderr_gives_the_written_files_own_size(corpus_root, tmp_path):
    """Trial 22a, F15: the estimate counted ``text`` only; the file's own bytes are said, and its bytes ÷ 4."""
    res = asz("export", "--since", "2000-01-01", "--audit", "--root", str(corpus_root), "--out", str(tmp_path / "a.jsonl"))
    size = (tmp_path / "a.jsonl").stat().st_size
    assert f"asz export: written {size:,} bytes ≈ {size // 4:,} tokens (bytes ÷ 4" in res.stderr
    text = sum(len(json.loads(x).get("text", "").encode()) for x in (tmp_path / "a.jsonl").read_text().splitlines())
    assert size > 2 * text  # what the old estimate missed
    big = (MODEL_CONTEXT_TOKENS + 1) * 4
    assert "--out DIR/ writes one file per conversation" in written_line(big, False)
    assert "--out DIR/" not in written_line(big, True) and "--out DIR/" not in written_line(size, False)


def test_a_flat_tool_input_reads_as_key_value_prose(corpus_root, corpus_source):
    """Trial 22a, F16: a tool call whose input is a flat object with none of the fields a call is summed up by
    (``TaskOutput``'s ``task_id``, ``block``, ``timeout``) reads ``NAME: key: value, …`` (a string as written, the
    rest as JSON writes it), an empty input ``NAME: (no input)``, not JSON; a nested input stays JSON. Expected lines
    made here from every ``tool_use`` block of the corpus's source files."""
    from asz_core.view.placing import INPUT_FIELDS

    want = Counter()
    for path in sorted(corpus_source.rglob("*.jsonl")):
        for _, d in _lines(path):
            m = d.get("message")
            for b in (m.get("content") if isinstance(m, dict) and isinstance(m.get("content"), list) else ()):
                x = b.get("input") if isinstance(b, dict) and b.get("type") == "tool_use" else None
                if not isinstance(x, dict) or any(isinstance(x.get(k), str) and x[k].strip() for k in INPUT_FIELDS):
                    continue
                if all(v is None or isinstance(v, (str, int, float, bool)) for v in x.values()):
                    said = ", ".join(f"{k}: {v if isinstance(v, str) else json.dumps(v)}" for k, v in x.items())
                    said = " ".join((said or "(no input)").split())
                    want[f"{b['name']}: {said if len(said) <= 200 else said[:199] + '…'}"] += 1
    lines = [json.loads(x) for x in asz("export", "--since", "2000-01-01", "--audit", "--root", str(corpus_root)).stdout.splitlines()]
    got = Counter(x["text"] for x in lines if x["kind"] == "tool_call")
    assert sum(want.values()) >= 2 and all(got[text] >= n for text, n in want.items()), want
    assert not [t for t in got if t.split(": ", 1)[1].startswith("{") and "[" not in t and t.count("{") == 1]


@pytest.mark.parametrize("day", ["2025-11-14", "2025-11-17"])
def test_in_range_only_counts_what_the_windows_records_left_out(corpus_root, corpus_source, day):
    """Trial 22a, F6: with --in-range-only the header's ``left_out`` counts the tool results and thinking of the
    records inside the window only (the lines of those before it are ``before_window``), so a past day's header does not change
    when the conversation goes on; without it, the whole conversation's. Counted from the source's timestamps."""
    sid = "cb2e607c-c758-415a-8b45-c49e4631906a"
    results, thinking = Counter(), Counter()
    for path in _files(corpus_source, sid):
        for _, d in _lines(path):
            c = (d.get("message") or {}).get("content") if isinstance(d.get("message"), dict) else None
            inside = str(d.get("timestamp")).startswith(day)
            for b in c if isinstance(c, list) else ():
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    results[inside] += 1
                elif isinstance(b, dict) and b.get("type") == "thinking":
                    thinking[inside] += 1
    window = ("--since", day, "--until", day, "--tz", "UTC", "--audit", "--project", "coderabbit", "--root", str(corpus_root))
    (only,) = [json.loads(x) for x in asz("export", *window, "--in-range-only").stdout.splitlines() if '"kind":"conversation"' in x]
    (whole,) = [json.loads(x) for x in asz("export", *window).stdout.splitlines() if '"kind":"conversation"' in x]
    assert sum(results.values()) > 0 and sum(thinking.values()) > 0
    assert (only["left_out"]["tool_results"], only["left_out"]["thinking"]) == (results[True], thinking[True])
    assert (whole["left_out"]["tool_results"], whole["left_out"]["thinking"]) == (sum(results.values()), sum(thinking.values()))
    assert (only["left_out"]["before_window"] > 0) == (day == "2025-11-17") and "before_window" not in whole["left_out"]
