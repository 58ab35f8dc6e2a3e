"""``asz usage --format csv|md``: the rows and the total as flat columns, for a spreadsheet or a report (trial 28a F4:
finance got a text table or nested JSON, the currency only a ``$`` and a key name, the rounding only in the docs).

One line per row, then the total (key ``total``), the columns :data:`COLUMNS` after the view's key (and, in the
session view, ``title``, ``project`` and ``instance``): the calls and the four token counts as integers (empty, as
``total_tokens`` is, where the runtime recorded no token count: :func:`~asz_core.view.rows.usage_unrecorded`, Kiro
meters credits; never 0), ``cost_exact`` the exact cost as a decimal text (``usd_exact``: summed and rounded once, never from rounded rows), ``cost`` that
rounded once to the cent (what the table prints), ``currency`` ``USD`` on every line, ``priced`` ``all``, ``part``
(some model of it has no price: ``unpriced`` names them) or ``none`` (no token of it had a price: both costs empty,
never 0), ``marks`` the table's marks after a cost (``*``, ``^``, ``?``), ``credits`` (Kiro's, in its own unit,
never USD; empty when none) and ``cache_write_1h``, the part of ``cache_write`` written to the 1-hour cache (0 where
none, empty as the other token cells; last, so the columns before it stand where they stood: trial 38b F4).
docs/view.md, For finance.

With ``--breakdown`` (trial 30b F7: refused in csv and md, the table's and ``--json``'s only) a ``model`` column
follows the key (and the session columns), empty on a row's own line and on the total's, and :data:`KIND_COLUMNS`
close every line: what each kind of token cost, to the micro-dollar (``--json``'s ``cost_by_kind``, adding up to the
cost to the micro-dollar). Under each row's line comes one line per model of it (``calls_by_model``,
``usage_by_model``, ``cost_by_model``: the model's full name in ``model`` and ``models``, the row's key repeated), as
the table prints ``└ model`` lines; a spreadsheet sums the lines whose ``model`` is empty.
"""

from __future__ import annotations

import csv
import io

from ..view.rows import usage_unrecorded

__all__ = ["COLUMNS", "KIND_COLUMNS", "FORMATS", "flat_lines", "csv_text", "md_text"]

#: The output forms of ``asz usage --format``: ``table`` (the text table, the default), ``json`` (as ``--json``),
#: ``csv`` and ``md`` (a Markdown table).
FORMATS = ("table", "json", "csv", "md")
#: The columns after the key, every line.
COLUMNS = ("models", "calls", "input", "output", "cache_write", "cache_read", "total_tokens", "cost_exact", "cost",
           "currency", "priced", "unpriced", "marks", "credits", "cache_write_1h")
#: The columns after the key of a session row.
SESSION = ("title", "project", "instance")
#: With ``--breakdown``, the columns closing every line: each kind of token's cost (``cost_by_kind``'s keys in order).
KIND_COLUMNS = ("cost_input", "cost_output", "cost_cache_write_5m", "cost_cache_write_1h", "cost_cache_read")
_KINDS = ("in", "out", "cache_write_5m", "cache_write_1h", "cache_read")


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
    hour = str(u.get("cache_write_1h") or 0)  # the 1-hour part of cache_write, 0 where none (trial 38b F4)
    if usage_unrecorded(r["calls"], r["calls_with_usage"], r.get("credits")):  # none recorded: empty, never 0 (trial 29c F4)
        tokens, hour = [""] * 5, ""
    return [key, *extra, "; ".join(models), str(r["calls"]), *tokens, exact, shown, "USD",
            _priced(cost), "; ".join(cost.get("unpriced") or ()), cost_marks(cost),
            "" if r.get("credits") is None else f"{r['credits']:.6f}", hour]  # to 6 decimals, as --json (trial 29b F5)


def flat_lines(rows: list[dict], key: str, t: dict, table=None, breakdown: bool = False) -> tuple[list[str], list[list[str]]]:
    """``(header, lines)``: the rows of ``asz usage`` keyed by ``key`` and the total ``t`` as flat text cells; with
    ``breakdown`` (rows and total carrying ``cost_by_kind``: ``usage_cmd.with_kinds``, ``usage_report.totals``) the
    ``model`` column and each row's model lines priced with ``table`` (the rows' price table; the model view has
    neither: its key is the model) and :data:`KIND_COLUMNS`."""
    extra = SESSION if key == "conversation" else ()
    split = breakdown and key != "model"  # the model view: its key is the model, no model column nor lines
    head = [key, *extra, *(("model",) if split else ()), *COLUMNS, *(KIND_COLUMNS if breakdown else ())]
    out = []
    for r in [*rows, t]:
        more = tuple(str(r.get(k) or "") for k in extra) if r is not t else ("",) * len(extra)
        models = list(r.get("models") or ()) if r is not t else sorted({m for r in rows for m in r.get("models") or ()})
        out.append(_line(str(r[key]) if r is not t else "total", more, r, models))
        if breakdown:
            out[-1][len(more) + 1:len(more) + 1] = [""] if split else []
            out[-1].extend(_kind_cells(r.get("cost_by_kind"), r))
        if split and r is not t:
            out.extend(_model_lines(str(r[key]), more, r, table))
    return head, out


def _kind_cells(kinds: dict | None, r: dict) -> list[str]:
    """:data:`KIND_COLUMNS`' cells of a line: ``kinds`` (``cost_by_kind``, to the micro-dollar) as decimal texts;
    empty where the line's cost is no figure (``priced`` none) or its calls recorded no token count."""
    if not kinds or r["cost"].get("priced") is False or usage_unrecorded(r["calls"], r["calls_with_usage"], r.get("credits")):
        return [""] * len(KIND_COLUMNS)
    return [f"{kinds[k]:.6f}" for k in _KINDS]


def _model_lines(key: str, more: tuple, r: dict, table) -> list[list[str]]:
    """The ``--breakdown`` lines under row ``r``: one per model of its calls (``calls_by_model``, by name), its tokens
    (``usage_by_model``; empty when its calls carry none, as the table reads "not recorded"), cost (``cost_by_model``;
    no figure, ``priced`` none, when they carry none) and credits (``credits_by_model``)."""
    from ..view.prices import cost_by_kind

    out = []
    for m, n in r["calls_by_model"].items():
        u = r["usage_by_model"].get(m)
        cost = r["cost_by_model"].get(m) or {"usd": 0.0, "usd_exact": "0", "unpriced": [], "priced": False}
        credits = (r.get("credits_by_model") or {}).get(m)
        one = {"usage": u or {"in": 0, "out": 0, "cache_write": 0, "cache_read": 0}, "cost": cost, "calls": n,
               "calls_with_usage": n if u is not None else 0, "credits": credits}
        line = _line(key, more, one, [m])
        line[len(more) + 1:len(more) + 1] = [m]
        out.append(line + _kind_cells(cost_by_kind({m: u}, table) if u is not None else None, one))
    return out


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

    right = {"calls", "input", "output", "cache_write", "cache_read", "total_tokens", "cost_exact", "cost", "credits",
             "cache_write_1h", *KIND_COLUMNS}
    rule = ["---:" if h in right else "---" for h in head]
    text = "\n".join("| " + " | ".join(cell(c) for c in line) + " |" for line in [head, rule, *lines])
    return (text + "\n\nCosts in USD: `cost_exact` is exact, `cost` it rounded once to the cent; the total is the exact "
            "sum rounded once, so the rows' cents may differ from it by a few cents. `priced`: `none` means no token "
            "of the row had a price (its cost is no figure, never 0); empty token cells: the runtime recorded no token count "
            "for the row's calls (Kiro meters credits), never 0." + (
                " `--breakdown`: a line naming a `model` is that model's part of the row above it (the row's own line "
                "leaves `model` empty: sum those), and `cost_input` … `cost_cache_read` are what each kind of token cost, "
                "to the micro-dollar." if "cost_input" in head else "") + "\n")
