"""``asz usage --format csv|md``: the rows and the total as flat columns, for a spreadsheet or a report (trial 28a F4:
finance got a text table or nested JSON, the currency only a ``$`` and a key name, the rounding only in the docs).

One line per row, then the total (key ``total``), the columns :data:`COLUMNS` after the view's key (and, in the
session view, ``title``, ``project`` and ``instance``): the calls and the four token counts as integers (empty, as
``total_tokens`` is, where the runtime recorded no token count: :func:`~asz_core.view.rows.usage_unrecorded`, Kiro
meters credits; never 0), ``cost_exact`` the exact cost as a decimal text (``usd_exact``: summed and rounded once, never from rounded rows), ``cost`` that
rounded once to the cent (what the table prints), ``currency`` ``USD`` on every line, ``priced`` ``all``, ``part``
(some model of it has no price: ``unpriced`` names them) or ``none`` (no token of it had a price: both costs empty,
never 0), ``marks`` the table's marks after a cost (``*``, ``^``, ``?``) and ``credits`` (Kiro's, in its own unit,
never USD; empty when none). docs/reading.md, asz usage for finance.
"""

from __future__ import annotations

import csv
import io

from ..view.rows import usage_unrecorded

__all__ = ["COLUMNS", "FORMATS", "flat_lines", "csv_text", "md_text"]

#: The output forms of ``asz usage --format``: ``table`` (the text table, the default), ``json`` (as ``--json``),
#: ``csv`` and ``md`` (a Markdown table).
FORMATS = ("table", "json", "csv", "md")
#: The columns after the key, every line.
COLUMNS = ("models", "calls", "input", "output", "cache_write", "cache_read", "total_tokens", "cost_exact", "cost",
           "currency", "priced", "unpriced", "marks", "credits")
#: The columns after the key of a session row.
SESSION = ("title", "project", "instance")


def _priced(cost: dict) -> str:
    if cost.get("priced") is False:
        return "none"
    return "part" if cost.get("unpriced") else "all"


def _line(key: str, extra: tuple, r: dict, models: list[str]) -> list[str]:
    """One row's (or the total's) cells: ``key``, the session columns ``extra``, then :data:`COLUMNS`."""
    from ..reading.listing import cost_marks
    from ..view.prices import cents

    u, cost = r["usage"], r["cost"]
    none = cost.get("priced") is False
    exact = "" if none else cost.get("usd_exact", repr(cost["usd"]))
    shown = "" if none else f"{cents(cost):.2f}"  # the table's cents ($12.34): the exact amount rounded once
    counts = [u["in"], u["out"], u["cache_write"], u["cache_read"]]
    tokens = [*map(str, counts), str(sum(counts))]
    if usage_unrecorded(r["calls"], r["calls_with_usage"], r.get("credits")):  # none recorded: empty, never 0 (trial 29c F4)
        tokens = [""] * 5
    return [key, *extra, "; ".join(models), str(r["calls"]), *tokens, exact, shown, "USD",
            _priced(cost), "; ".join(cost.get("unpriced") or ()), cost_marks(cost),
            "" if r.get("credits") is None else f"{r['credits']:.6f}"]  # to 6 decimals, as --json (trial 29b F5)


def flat_lines(rows: list[dict], key: str, t: dict) -> tuple[list[str], list[list[str]]]:
    """``(header, lines)``: the rows of ``asz usage`` keyed by ``key`` and the total ``t`` as flat text cells."""
    extra = SESSION if key == "conversation" else ()
    head = [key, *extra, *COLUMNS]
    out = []
    for r in rows:
        more = tuple(str(r.get(k) or "") for k in extra)
        out.append(_line(str(r[key]), more, r, list(r.get("models") or ())))
    models = sorted({m for r in rows for m in r.get("models") or ()})
    out.append(_line("total", ("",) * len(extra), t, models))
    return head, out


def csv_text(head: list[str], lines: list[list[str]]) -> str:
    """RFC 4180 CSV (``\\r\\n`` line ends, quotes where a cell needs them) with the header first."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(head)
    w.writerows(lines)
    return buf.getvalue()


def md_text(head: list[str], lines: list[list[str]]) -> str:
    """A Markdown table (numbers right-aligned; ``|`` in a cell escaped, a line end a space) and a line under it
    saying the currency and the rounding."""

    def cell(s: str) -> str:
        return " ".join(s.split()).replace("\\", "\\\\").replace("|", "\\|")

    right = {"calls", "input", "output", "cache_write", "cache_read", "total_tokens", "cost_exact", "cost", "credits"}
    rule = ["---:" if h in right else "---" for h in head]
    text = "\n".join("| " + " | ".join(cell(c) for c in line) + " |" for line in [head, rule, *lines])
    return (text + "\n\nCosts in USD: `cost_exact` is exact, `cost` it rounded once to the cent; the total is the exact "
            "sum rounded once, so the rows' cents may differ from it by a few cents. `priced`: `none` means no token "
            "of the row had a price (its cost is no figure, never 0); empty token cells: the runtime recorded no token count "
            "for the row's calls (Kiro meters credits), never 0.\n")
