"""``asz usage`` (issue 17) over the Claude Code corpus: the rows add up to the transcripts' own counts."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal

import pytest

from dollars import dollars

from asz_core.view import build_view, list_conversations

from test_view_usage import ANCHOR, ANCHOR_CALLS, sessions_of, transcript_truth
from cli_helpers import asz_in_process, usage_json

KINDS = ("in", "out", "cache_read", "cache_write")


def _usage(root, *args, code=0):
    p = asz_in_process("usage", *args, "--root", str(root))
    assert p.returncode == code, p.stdout + p.stderr
    return p


def _rows(root, *args, code=0):
    """The rows of ``asz usage ARGS --json``, without ``total`` (the total of the rows shown, which a narrower window
    changes: tests/view/test_usage_json_total.py checks it); ``code`` the exit status expected."""
    return [{k: v for k, v in r.items() if k != "total"} for r in json.loads(_usage(root, *args, "--json", code=code).stdout)]


def _sum(rows):
    return {k: sum(r["usage"][k] for r in rows) for k in KINDS}


def test_daily_monthly_and_project_rows_add_up_to_the_corpus(corpus):
    _, root = corpus
    for view, key in (("daily", "date"), ("monthly", "month"), ("project", "project")):
        rows = _rows(root, view, "--tz", "UTC")
        assert _sum(rows) == ANCHOR, view
        assert sum(r["calls"] for r in rows) == ANCHOR_CALLS, view
        assert [r[key] for r in rows] == sorted(r[key] for r in rows)
        for r in rows:
            assert set(r) >= {key, "usage", "cost", "models"} and r["cost"]["unpriced"] == []


def test_session_rows_are_each_conversations_summary(corpus):
    projects, root = corpus
    truth = sessions_of(projects)
    rows = _rows(root, "session")
    assert sorted(r["conversation"] for r in rows) == sorted(list_conversations(root))
    for r in rows:
        s = build_view(root, r["conversation"])["summary"]
        assert r["usage"] == usage_json(s["usage"]) == usage_json(transcript_truth(truth[r["conversation"]])[0])
        assert r["cost"] == s["cost"] and r["models"] == s["models"] and r["title"] == s["title"] and r["project"] == s["project"]


def test_days_are_read_in_the_zone_asked_for(corpus):
    """The same calls fall on other days 14 hours east of UTC, and every token is still counted once."""
    _, root = corpus
    utc = _rows(root, "daily", "--tz", "UTC")
    east = _rows(root, "daily", "--tz", "Pacific/Kiritimati")
    assert _sum(utc) == _sum(east) == ANCHOR
    assert {r["date"]: r["usage"] for r in utc} != {r["date"]: r["usage"] for r in east}


def test_since_and_until_take_the_calls_of_those_days(corpus):
    _, root = corpus
    every = {r["date"]: r for r in _rows(root, "daily", "--tz", "UTC")}
    days = sorted(every)
    some = _rows(root, "daily", "--tz", "UTC", "--since", days[1], "--until", days[-2])
    assert [r["date"] for r in some] == days[1:-1]
    assert _rows(root, "session", "--tz", "UTC", "--since", "20260101") == [
        r for r in _rows(root, "session", "--tz", "UTC") if r["from"] is not None and r["from"] >= 1767225600000]


def test_since_and_until_take_what_asz_conversations_takes(corpus):
    """Relative times and instants, as ``asz conversations`` and ``asz search`` read them (trial finding 12:
    ``--since 7d`` was "not a date"): a day in --tz is the instants of that day, and the corpus (months old)
    has calls within 100,000 weeks and none in the last minute."""
    _, root = corpus
    every = _rows(root, "daily", "--tz", "UTC")
    days = sorted(r["date"] for r in every if r["date"] != "(no time)")
    assert _rows(root, "daily", "--tz", "UTC", "--since", "100000w") == [r for r in every if r["date"] != "(no time)"]
    # a window holding no call matches nothing: [] and exit 1, as asz ls exits for it (trial 26b F2)
    assert _rows(root, "daily", "--since", "7d", "--until", "1m", code=1) == _rows(root, "daily", "--since", "1m", code=1) == []
    assert _rows(root, "daily", "--tz", "UTC", "--since", f"{days[1]}T00:00:00Z", "--until", f"{days[-2]}T23:59:59.999Z") == \
        _rows(root, "daily", "--tz", "UTC", "--since", days[1], "--until", days[-2])
    assert _rows(root, "daily", "--tz", "Europe/Paris", "--since", days[1].replace("-", "")) == \
        _rows(root, "daily", "--tz", "Europe/Paris", "--since", days[1])


def test_the_table_ends_with_the_total(corpus):
    _, root = corpus
    out = _usage(root, "monthly", "--tz", "UTC").stdout.splitlines()
    assert out[0].split()[0] == "MONTH"
    # the corpus's months as printed add up to $27.99, the total is $28.00: a line under it says why (trial 28a F8)
    assert out[-1].startswith("the rows' costs as printed add up to $27.99, the total is $28.00")
    total = out[-2].split()
    assert total[0] == "total" and f"{ANCHOR['out']:,}" in total and f"{ANCHOR['cache_read']:,}" in total


def test_an_empty_root_s_total_row_is_labelled_whole(tmp_path):
    """Trial finding 12: on a root with no calls the key column was as wide as DATE, and the total row said 'tot…'."""
    (tmp_path / "projects").mkdir()
    root = tmp_path / "root"
    made = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert made.returncode == 0, made.stdout + made.stderr
    out = _usage(root).stdout.splitlines()
    assert [ln.split()[0] for ln in out] == ["DATE", "total"]
    # no calls: 0 calls, and no token count recorded to sum: not recorded, never 0 tokens and $0.00 (rows.usage_unrecorded)
    assert out[1].split()[1:] == ["-", "0", "-", "-", "-", "-", "not", "recorded", "-"]


@pytest.mark.parametrize("args,says", [
    (("hourly",), "is not a view"),
    (("--since", "yesterdays"), "--since/--until"),
    (("--tz", "Mars/Olympus"), "--tz"),
])
def test_bad_arguments_exit_2(corpus, args, says):
    _, root = corpus
    p = _usage(root, *args, code=2)
    assert says in p.stderr


def test_asz_yaml_prices_reach_the_report(corpus, tmp_path):
    """A price in asz.yaml replaces the shipped one: 55604662's one call (in 3, out 13, cache read 11,515, cache
    write 13,835, all 1-hour writes) at $1 / $2 / $0 / $0 per million, the 1-hour write price left out (2x input:
    $2), is 3 + 26 + 27,670 = 27,699 micro-dollars; with ``cache_write_1h: 0`` it is 3 + 26 = 29."""
    _, root = corpus
    cfg = tmp_path / "asz.yaml"
    conv = "55604662-cf2a-4331-851a-ec234028f8ca"
    cfg.write_text("prices:\n  claude-opus-4-6: {input: 1, output: 2, cache_write: 0, cache_read: 0}\n")
    rows = {r["conversation"]: r for r in _rows(root, "session", "--config", str(cfg))}
    assert rows[conv]["cost"] == {"usd": 0.027699, "usd_exact": "0.027699", "unpriced": []}
    cfg.write_text("prices:\n  claude-opus-4-6: {input: 1, output: 2, cache_write: 0, cache_read: 0, cache_write_1h: 0}\n")
    rows = {r["conversation"]: r for r in _rows(root, "session", "--config", str(cfg))}
    assert rows[conv]["cost"] == {"usd": 0.000029, "usd_exact": "0.000029", "unpriced": []}
    cfg.write_text("prices:\n  claude-opus-4-6: {input: 1}\n")
    p = _usage(root, "--config", str(cfg), code=2)
    assert "prices.claude-opus-4-6" in p.stderr


def test_breakdown_puts_each_models_tokens_and_cost_under_its_row(corpus):
    """Trial 4, F14 (ccusage's --breakdown): one sub-row per model with its calls; --json's cost_by_model holds each
    model's cost, calls_by_model its calls."""
    _, root = corpus
    rows = _rows(root, "daily", "--tz", "UTC")
    lines = _usage(root, "daily", "--tz", "UTC", "--breakdown").stdout.splitlines()
    plain = _usage(root, "daily", "--tz", "UTC").stdout.splitlines()
    assert [ln for ln in lines if "└ " not in ln and "cost by kind: " not in ln and not ln.startswith("cache saved: ")] == plain  # the rows and the total are unchanged
    several = 0
    i = 1
    for r in rows:
        assert lines[i].startswith(r["date"])
        assert list(r["cost_by_model"]) == list(r["usage_by_model"]) == r["models"]
        subs = lines[i + 1: i + 1 + len(r["models"])]
        for m, ln in zip(r["models"], subs):
            u, c = r["usage_by_model"][m], r["cost_by_model"][m]
            cells = ln.split()
            assert cells[:3] == ["└", m, f"{r['calls_by_model'][m]:,}"]  # the model's own calls
            assert cells[3:] == [f"{u['in']:,}", f"{u['out']:,}", f"{u['cache_write']:,}", f"{u['cache_read']:,}",
                                 f"{sum(u[k] for k in KINDS):,}", dollars(Decimal(c["usd_exact"]))]  # <$0.01 when small (32a F8)
        # each model's calls, tokens and cost add up to the row's
        assert sum(r["calls_by_model"].values()) == r["calls"]
        assert {k: sum(r["usage_by_model"][m][k] for m in r["models"]) for k in r["usage"]} == r["usage"]
        assert abs(sum(r["cost_by_model"][m]["usd"] for m in r["models"]) - r["cost"]["usd"]) < 1e-5
        several += len(r["models"]) > 1
        assert lines[i + 1 + len(r["models"])].split()[:3] == ["cost", "by", "kind:"]  # trial 19, F9
        i += 2 + len(r["models"])
    assert several and lines[i].startswith("total") and lines[i + 1].split()[:4] == ["total", "cost", "by", "kind:"]


def test_the_model_view_has_one_row_per_model_counted_from_the_transcripts(corpus):
    """``asz usage model``: a row per model id, in full, whose tokens are that model's calls' counts summed from the
    transcript lines (the last line of each message id + request id), and whose calls add up to every call."""
    from test_view_usage import add_to, source_usage, transcript_calls

    projects, root = corpus
    truth: dict[str, dict] = {}
    for files in sessions_of(projects).values():
        for m in transcript_calls(files).values():
            add_to(truth.setdefault(m["model"], dict.fromkeys(KINDS, 0)), source_usage(m["usage"]))
    rows = _rows(root, "model")
    assert [r["model"] for r in rows] == sorted(truth)
    assert {r["model"]: r["usage"] for r in rows} == {m: usage_json(u) for m, u in truth.items()}
    assert sum(r["calls"] for r in rows) == ANCHOR_CALLS and all(r["models"] == [r["model"]] for r in rows)
    lines = _usage(root, "model").stdout.splitlines()
    assert lines[0].split()[:2] == ["MODEL", "CALLS"] and "MODELS" not in lines[0]
    for r, ln in zip(rows, lines[1:]):
        assert ln.split()[:2] == [r["model"], f"{r['calls']:,}"]  # the id whole, never cut
    assert lines[-1].split()[:2] == ["total", f"{ANCHOR_CALLS:,}"]


def test_the_models_column_names_every_model_short_and_never_cut(corpus):
    """The MODELS cell was ``claude-haiku-4-5-20251001, …``: each model now without claude- and its date, and +N for
    those that do not fit its 28 cells (unit cases), so a row with two models names both."""
    from asz_core.cli.usage_cmd import models_cell

    assert models_cell(["claude-haiku-4-5-20251001", "claude-opus-4-6"]) == "haiku-4-5, opus-4-6"
    assert models_cell(["claude-haiku-4-5-20251001", "claude-opus-4-1-20250805", "claude-sonnet-4-5-20250929"]) == \
        "haiku-4-5, opus-4-1 +1"
    assert models_cell(["gpt-5.4", "my-local-model"]) == "gpt-5.4, my-local-model"
    assert models_cell([]) == "-"
    _, root = corpus
    rows = _rows(root, "daily", "--tz", "UTC")
    lines = _usage(root, "daily", "--tz", "UTC").stdout.splitlines()[1:-1]
    for r, ln in zip(rows, lines):
        want = ", ".join(m.removeprefix("claude-")[:-9] if m[-8:].isdigit() else m.removeprefix("claude-") for m in r["models"])
        assert ln[12:].startswith(want + "  "), ln


def test_sessions_are_in_first_call_order_unless_sorted_by_a_figure(corpus):
    _, root = corpus
    rows = _rows(root, "session")
    assert [r["from"] for r in rows] == sorted(r["from"] for r in rows)  # by date (first call), not by id
    assert [r["conversation"] for r in rows] != sorted(r["conversation"] for r in rows)
    by_cost = _rows(root, "session", "--sort", "cost")
    assert [r["cost"]["usd"] for r in by_cost] == sorted((r["cost"]["usd"] for r in rows), reverse=True)
    assert sorted(map(str, by_cost)) == sorted(map(str, rows))
    by_calls = _rows(root, "model", "--sort", "calls")
    assert [r["calls"] for r in by_calls] == sorted((r["calls"] for r in by_calls), reverse=True)
    by_tokens = _rows(root, "daily", "--sort", "tokens")
    assert [sum(r["usage"][k] for k in KINDS) for r in by_tokens] == sorted(
        (sum(r["usage"][k] for k in KINDS) for r in by_tokens), reverse=True)
    p = _usage(root, "--sort", "name", code=2)
    assert "--sort 'name' is not an order" in p.stderr
