"""Where the runtime recorded no token count, the machine-readable forms say so, never 0 (trial 29c F4): ``asz usage
--json`` (every key kept, the counts null, ``usage_recorded`` false), ``--format csv|md`` (empty token cells) and the
audit header of ``asz export`` (``--audit``: null counts; ``--format text``: ``tokens: not recorded``). Real input:
the Kiro corpus (CLI 3.x records no token field at all; 2.x writes ``input_token_count: 0``, which is not a count,
docs/adapters/kiro.md) and the Claude Code corpus, whose figures stay the transcripts' own, each collected by the real
``asz collect``. Expected values are read from the source files, never from asz's output."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from cli_helpers import asz_in_process
from test_usage_kiro import CLI_SESSION, IDE_SESSION, _ide_requests, _lines
from test_view_usage import ANCHOR, ANCHOR_CALLS, sessions_of, transcript_truth

KINDS = ("in", "out", "cache_read", "cache_write")
TOKEN_CELLS = ("input", "output", "cache_write", "cache_read", "total_tokens")


def _token_keys(data, out: list) -> list:
    """Every ``(key, value)`` of decoded JSON ``data`` whose key names tokens (``input_token_count``, ``inputTokens``)."""
    if isinstance(data, dict):
        for k, v in data.items():
            if "token" in k.lower() and not isinstance(v, (dict, list)):
                out.append((k, v))
            _token_keys(v, out)
    elif isinstance(data, list):
        for v in data:
            _token_keys(v, out)
    return out


def _kiro_truth() -> int:
    """The premise, from the raw files: the 3.x session names no token count at all, the 2.x one only zeros (and the
    model's context window, not a count of a call); the model calls both make (7 + 9)."""
    ide = [*_lines(IDE_SESSION), json.loads((IDE_SESSION.parent / "session.json").read_text(encoding="utf-8"))]
    assert _token_keys(ide, []) == []
    doc = json.loads(CLI_SESSION.with_suffix(".json").read_text(encoding="utf-8"))
    counts = [(k, v) for k, v in _token_keys([*_lines(CLI_SESSION), doc], []) if k != "context_window_tokens"]
    assert counts and all(v == 0 for _, v in counts), counts
    calls = sum(1 for d in _lines(CLI_SESSION) if d["kind"] == "AssistantMessage") + _ide_requests(IDE_SESSION)[0]
    assert calls == 16
    return calls


def _run(root: Path, *args: str) -> str:
    p = asz_in_process(*args, "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_usage_json_says_kiro_tokens_are_not_recorded(kiro_root):
    calls = _kiro_truth()
    for view in ("daily", "session", "model"):
        rows = json.loads(_run(kiro_root, "usage", view, "--json", "--tz", "UTC"))
        assert sum(r["calls"] for r in rows) == calls
        for r in [*rows, rows[0]["total"]]:
            assert r["usage"] == dict.fromkeys((*KINDS, "cache_write_1h")) and r["usage_recorded"] is False, (view, r)  # keys kept, null
            assert r["calls_with_usage"] == 0 and r["cost"]["priced"] is False
        once = json.loads(_run(kiro_root, "usage", view, "--json", "--total-once", "--tz", "UTC"))
        assert once["total"]["usage"] == dict.fromkeys((*KINDS, "cache_write_1h")) and once["total"]["usage_recorded"] is False
        assert once["total"]["calls"] == calls


def test_usage_csv_and_md_leave_kiro_token_cells_empty(kiro_root):
    calls = _kiro_truth()
    for view in ("daily", "session"):
        lines = list(csv.DictReader(io.StringIO(_run(kiro_root, "usage", view, "--format", "csv", "--tz", "UTC"))))
        *rows, total = lines
        assert sum(int(r["calls"]) for r in rows) == int(total["calls"]) == calls
        for r in lines:
            assert [r[k] for k in TOKEN_CELLS] == [""] * 5, r  # not 0
            assert (r["cost_exact"], r["cost"], r["priced"]) == ("", "", "none") and r["credits"]
    md = [ln for ln in _run(kiro_root, "usage", "--format", "md", "--tz", "UTC").splitlines() if ln.startswith("|")]
    head = [c.strip() for c in md[0].strip("|").split("|")]
    for ln in md[2:]:
        cells = dict(zip(head, (c.strip() for c in ln.strip("|").split("|"))))
        assert [cells[k] for k in TOKEN_CELLS] == [""] * 5 and cells["calls"] != "", ln


def test_claude_code_figures_are_unchanged_and_said_recorded(corpus):
    """The Claude Code corpus: every row and the total carry ``usage_recorded`` true and the transcripts' counts."""
    projects, root = corpus
    truth = sessions_of(projects)
    rows = json.loads(_run(root, "usage", "session", "--json"))
    assert all(r["usage_recorded"] is True for r in rows) and rows[0]["total"]["usage_recorded"] is True
    for r in rows:
        assert {k: r["usage"][k] for k in KINDS} == {k: transcript_truth(truth[r["conversation"]])[0][k] for k in KINDS}
    total = rows[0]["total"]
    assert {k: total["usage"][k] for k in KINDS} == {k: ANCHOR[k] for k in KINDS} and total["calls"] == ANCHOR_CALLS
    lines = list(csv.DictReader(io.StringIO(_run(root, "usage", "--format", "csv"))))
    assert int(lines[-1]["total_tokens"]) == sum(ANCHOR.values()) and all(ln["input"] != "" for ln in lines)


def _head(root: Path, cid: str, *args: str) -> str:
    return _run(root, "export", cid, *args)


def test_the_audit_header_says_kiro_tokens_are_not_recorded(kiro_root):
    _kiro_truth()
    ids = [r["id"] for r in json.loads(_run(kiro_root, "ls", "--json"))]
    assert len(ids) == 2
    for cid in ids:
        text = _head(kiro_root, cid, "--format", "text").split("\n\n", 1)[0].splitlines()
        assert "tokens: not recorded" in text and "cost: none (no tokens to price)" in text, text
        assert not [ln for ln in text if ln.startswith("tokens: in") or ln.startswith("cost: usd")], text
        header = json.loads(_head(kiro_root, cid, "--format", "prose", "--audit").splitlines()[0])
        assert header["tokens"] == dict.fromkeys(KINDS) and header["usage_recorded"] is False
        assert header["calls"] > 0 and header["cost"]["priced"] is False
        windowed = json.loads(_head(kiro_root, cid, "--format", "prose", "--audit", "--since", "2026-01-01",
                                    "--tz", "UTC").splitlines()[0])
        assert windowed["in_window"]["tokens"] == dict.fromkeys(KINDS) and windowed["in_window"]["usage_recorded"] is False
        text = _head(kiro_root, cid, "--format", "text", "--since", "2026-01-01", "--tz", "UTC").split("\n\n", 1)[0]
        assert "in_window: calls " in text and "tokens not recorded, cost none (no tokens to price)" in text, text


def test_the_audit_header_of_a_claude_code_conversation_keeps_its_counts(corpus):
    projects, root = corpus
    truth = sessions_of(projects)
    cid = sorted(truth)[0]
    u = {k: transcript_truth(truth[cid])[0][k] for k in KINDS}
    text = _head(root, cid, "--format", "text").split("\n\n", 1)[0].splitlines()
    line = next(ln for ln in text if ln.startswith("tokens: "))
    assert line.startswith(f"tokens: in {u['in']}, out {u['out']}, cache_read {u['cache_read']}, cache_write {u['cache_write']}")
    assert not any(ln.startswith("usage_recorded") for ln in text)
    header = json.loads(_head(root, cid, "--format", "prose", "--audit").splitlines()[0])
    assert {k: header["tokens"][k] for k in KINDS} == u and "usage_recorded" not in header
