"""A line under ``asz usage``'s table says why its rows' cents do not add up to the total's (trial 28a F8: 246
session rows summed to $612.86 against a $613.18 total, and nothing said why): each is its exact amount rounded once,
the total the exact sum rounded once. Real input: the Claude Code corpus collected by ``asz collect``; the cents are
worked here from the transcripts at the published prices (test_view_usage.source_cost)."""

from __future__ import annotations

from decimal import Decimal

from cli_helpers import asz_in_process
from test_view_usage import sessions_of, source_cost, transcript_calls

MICRO, CENT = Decimal("0.000001"), Decimal("0.01")


def _cents(exact: Decimal) -> Decimal:
    return Decimal(f"{float(exact.quantize(MICRO)):.2f}")  # rounded once to the micro-dollar, printed to the cent


def _table(root, view):
    p = asz_in_process("usage", view, "--tz", "UTC", "--root", str(root))
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_the_session_rows_cents_and_the_total_are_said_apart(corpus):
    projects, root = corpus
    exact = [source_cost(transcript_calls(files)) for files in sessions_of(projects).values()]
    rows, total = sum(map(_cents, exact), Decimal(0)), _cents(sum(exact, Decimal(0)))
    assert rows != total  # the corpus's 11 conversations: $27.98 against $28.00
    lines = _table(root, "session")
    said = [ln for ln in lines if ln.startswith("the rows' costs as printed")]
    assert said == [f"the rows' costs as printed add up to ${rows:,.2f}, the total is ${total:,.2f}: each figure is its "
                    "exact amount rounded once to the cent, the total the exact sum of every call's cost (never of the "
                    "rounded rows), so they differ by cents (--json: cost.usd_exact; --format csv: cost_exact)"]


def test_no_line_when_the_cents_agree(corpus):
    _, root = corpus
    lines = _table(root, "model")
    printed = [Decimal(ln.split()[-1].lstrip("$").replace(",", "")) for ln in lines[1:] if ln.split()[-1].startswith("$")]
    *models, total = printed
    assert sum(models, Decimal(0)) == total and not [ln for ln in lines if "as printed add up" in ln]
