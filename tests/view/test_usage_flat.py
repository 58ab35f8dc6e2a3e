"""``asz usage --format csv|md`` and ``--out FILE`` (trial 28a F4: finance got a text table or nested JSON; the currency
only a ``$``): flat columns, the exact cost as a decimal text and it rounded once to the cent, ``USD`` on every line,
the total last. Real input: the Claude Code corpus collected by ``asz collect``; every figure is worked here from the
transcripts' own counts at the published prices (test_view_usage.source_cost), never read back from asz."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from cli_helpers import asz_in_process
from test_view_usage import ANCHOR, ANCHOR_CALLS, sessions_of, source_cost, transcript_calls, transcript_truth


def _out(root, *args, code=0):
    p = asz_in_process("usage", *args, "--root", str(root))
    assert p.returncode == code, p.stdout + p.stderr
    return p


def test_csv_rows_are_the_transcripts_figures_and_the_total_the_exact_sum(corpus):
    projects, root = corpus
    truth = sessions_of(projects)
    rows = list(csv.DictReader(io.StringIO(_out(root, "session", "--format", "csv").stdout)))
    *convs, total = rows
    assert total["conversation"] == "total" and {r["currency"] for r in rows} == {"USD"}
    assert sorted(r["conversation"] for r in convs) == sorted(truth)
    for r in convs:
        u, _ = transcript_truth(truth[r["conversation"]])
        exact = source_cost(transcript_calls(truth[r["conversation"]]))
        assert [int(r[k]) for k in ("input", "output", "cache_write", "cache_read")] == [u["in"], u["out"], u["cache_write"], u["cache_read"]]
        assert Decimal(r["cost_exact"]) == exact and r["cost"] == f"{exact.quantize(Decimal('0.000001')):.2f}"
        assert r["priced"] == "all" and r["unpriced"] == "" and r["title"]
    exact = sum((source_cost(transcript_calls(f)) for f in truth.values()), Decimal(0))
    assert Decimal(total["cost_exact"]) == exact == sum(Decimal(r["cost_exact"]) for r in convs)
    assert total["cost"] == f"{exact.quantize(Decimal('0.000001')):.2f}"  # $28.00: rounded once
    assert int(total["calls"]) == ANCHOR_CALLS and int(total["total_tokens"]) == sum(ANCHOR.values())
    assert [int(total[k]) for k in ("input", "output", "cache_write", "cache_read")] == [ANCHOR[k] for k in ("in", "out", "cache_write", "cache_read")]


def test_md_and_out_file(corpus, tmp_path):
    _, root = corpus
    md = _out(root, "monthly", "--tz", "UTC", "--format", "md").stdout.splitlines()
    months = list(csv.DictReader(io.StringIO(_out(root, "monthly", "--tz", "UTC", "--format", "csv").stdout)))
    table = [ln for ln in md if ln.startswith("|")]
    assert len(table) == 2 + len(months) and table[1].startswith("| --- |")
    assert [ln.split(" | ")[0].strip("| ") for ln in table[2:]] == [r["month"] for r in months]
    assert any("USD" in ln and "rounded once" in ln for ln in md if not ln.startswith("|"))
    out = tmp_path / "usage.csv"
    p = _out(root, "monthly", "--tz", "UTC", "--format", "csv", "--out", str(out))
    assert p.stdout == "" and str(out) in p.stderr
    assert out.read_text(encoding="utf-8") == _out(root, "monthly", "--tz", "UTC", "--format", "csv").stdout
    table_out = tmp_path / "usage.txt"
    _out(root, "monthly", "--tz", "UTC", "--out", str(table_out))
    assert table_out.read_text(encoding="utf-8") == _out(root, "monthly", "--tz", "UTC").stdout
    assert "give one" in _out(root, "--json", "--format", "csv", code=2).stderr
    assert "not a format" in _out(root, "--format", "xls", code=2).stderr
