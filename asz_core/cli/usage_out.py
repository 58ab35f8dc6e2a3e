"""What ``asz usage`` prints beside its figures for finance (trial 28a F4, F5, F8, F9): which prices it used
(:func:`prices_used`, :func:`prices_lines`), what prompt caching saved (:func:`saved_line`), why its rows' cents differ
from the total's (:func:`cents_line`); the rows printed as ``--format`` and ``--out`` ask (:func:`emit`); ``--format`` checked (:func:`check_form`) and ``--out FILE``
(:class:`written`)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path
from typing import Callable, Optional

import typer

from ..view.rows import usage_unrecorded

__all__ = ["emit", "prices_used", "prices_lines", "check_form", "written", "saved_line", "cents_line", "total_lines"]


def prices_used(table, rows: list[dict]) -> dict:
    """What the costs of ``rows`` were priced with (trial 28a F5: no output said it): ``{"table": {"date", "source"}``
    (the shipped table's), ``"from_config"`` (the models of asz.yaml's ``prices``, sorted) and ``"models"``
    (:meth:`~asz_core.view.prices.PriceTable.rates_of` each model with usage in the rows)}``: ``total.prices`` in --json."""
    models = {m for r in rows for m in r.get("usage_by_model") or ()}
    return {"table": {"date": table.date, "source": table.source}, "from_config": list(table.configured),
            "models": table.rates_of(models), "config": table.config_name}


def prices_lines(used: dict, every: bool) -> list[str]:
    """The lines under the table saying the prices (:func:`prices_used`): with ``every`` (``--prices``) the table's date
    and source and one line per model with its rates; else one line when asz.yaml priced some model of the table
    (which), none otherwise."""
    mine = [m for m, r in used["models"].items() if r["from"] == "asz.yaml"]
    table = used["table"]
    head = f"prices: the shipped table of {table['date']} ({table['source']})"
    if not every:
        return [f"{head}, and {used['config']}'s prices for {', '.join(mine)} (asz usage --prices lists each rate)"] if mine else []

    def five(r: dict) -> str:
        return (f"input ${r['input']}, output ${r['output']}, cache write 5m ${r['cache_write']}, cache write 1h "
                f"${r['cache_write_1h']}, cache read ${r['cache_read']}")

    out = [head + (f"; {used['config']} gives {', '.join(used['from_config'])}" if used["from_config"] else "")
           + "; USD per million tokens:"]
    for m, r in used["models"].items():
        note = f" [{used['config']}{', its 1h write 2x input: not given' if r.get('cache_write_1h_default') else ''}]" if r["from"] == "asz.yaml" else ""
        long = f"; above 200K input tokens: {five(r['long_context'])}" if r["long_context"] else ""
        out.append(f"  {m}{'' if r['entry'] == m else ' (as ' + r['entry'] + ')'}: {five(r)}{long}{note}")
    return out


def check_form(form: str, as_json: bool) -> None:
    """typer.Exit(2), said, for a ``--format`` that is none of :data:`~asz_core.cli.usage_flat.FORMATS`, one other
    than json beside ``--json`` (``--breakdown`` is every form's since trial 30b F7; before, csv and md refused it)."""
    from .usage_flat import FORMATS

    if form not in FORMATS:
        typer.echo(f"asz usage: --format {form!r} is not a format (one of {', '.join(FORMATS)})", err=True)
        raise typer.Exit(2)
    if as_json and form not in ("table", "json"):
        typer.echo(f"asz usage: --json and --format {form} ask for two outputs: give one", err=True)
        raise typer.Exit(2)


class written:
    """``with written(path):`` what is printed on stdout goes to ``path`` (None: stdout, nothing changes), whole or not
    at all: into ``PATH.part`` beside it, renamed over ``path`` when the block ends without an error (Ctrl-C, an error:
    ``path`` as it was, the ``.part`` removed). A symbolic link to a regular file is written through, the link kept;
    a ``path`` that is neither absent nor a regular file (trial 47b F1) is refused, exit 2
    (:func:`~asz_core.cli.out_named.refused`; :func:`~asz_core.cli.out_named.out_file` refused it before anything was
    read); one that cannot be written is said, exit 1."""

    def __init__(self, path: Optional[Path]):
        self.path, self.file, self.stdout, self.part, self.dest = path, None, None, None, None

    def __enter__(self):
        if self.path is None:
            return self
        from ..storage.out_path import NotRegular, temp_open, written_at
        from .out_named import refused

        try:
            self.dest = written_at(self.path) or self.path
            self.part = self.dest.with_name(self.dest.name + ".part")
            self.file = io.TextIOWrapper(temp_open(self.part, 0o644), encoding="utf-8", newline="")  # never via a link
        except NotRegular as exc:
            raise refused("usage", "--out", exc) from None
        except OSError as exc:
            typer.echo(f"asz usage: cannot write --out {self.path}: {exc.strerror or exc}", err=True)
            raise typer.Exit(1)
        self.stdout, sys.stdout = sys.stdout, self.file
        return self

    def __exit__(self, failed, *exc) -> None:
        if self.file is None:
            return
        from ..storage.out_path import NotRegular, put_in_place
        from .out_named import refused

        sys.stdout = self.stdout
        try:
            self.file.close()
            if failed is None:  # whole: in place; else (Ctrl-C, an error) the .part removed, what was there kept
                return put_in_place(self.part, self.dest)
        except NotRegular as err:  # one put there meanwhile
            raise refused("usage", "--out", err, named=False) from None
        except OSError as err:
            typer.echo(f"asz usage: cannot write --out {self.path}: {err.strerror or err}", err=True)
            raise typer.Exit(1) from None
        finally:
            if failed is not None or os.path.lexists(self.part):
                with contextlib.suppress(OSError):
                    os.unlink(self.part)


def saved_line(saved: dict) -> str:
    """The ``--breakdown`` line under the total saying what prompt caching saved (:func:`~asz_core.view.prices.cache_saved`;
    trial 28a F9), in cents, from the exact amounts."""
    return (f"cache saved: ${saved['gross']:,.2f} gross (cache reads priced at the input rate less what they cost), "
            f"less ${saved['write_premium']:,.2f} of cache writes above the input rate: ${saved['net']:,.2f} net, at the "
            "prices above (--json: cache_saved)")


def cents_line(rows: list[dict], t: dict) -> str:
    """The line under the table when the rows' costs as printed (each row's exact cost rounded once to the cent; a row
    held back, not recorded or unpriced prints none) add up to other cents than the total as printed, which is the
    exact sum of every call's cost rounded once (trial 28a F8: a finance reviewer summing 246 session rows found
    $612.86 against a $613.18 total, and no line said why); '' when they agree."""
    from decimal import Decimal

    from ..view.prices import cents

    def printed(r: dict) -> Decimal:
        cost = r["cost"]
        shown = not (usage_unrecorded(r["calls"], r["calls_with_usage"], r.get("credits")) or cost.get("priced") is False or ("held_back" in r and not r["calls"]))
        return (cents(cost) or Decimal(0)) if shown else Decimal(0)

    added, total = sum((printed(r) for r in rows), Decimal(0)), cents(t["cost"]) or Decimal(0)
    if added == total:
        return ""
    if "conversation" in rows[0] and any(s.get("counted_in") for s in t.get("same_calls") or ()):
        return (f"the rows' costs as printed add up to ${added:,.2f}, the total is ${total:,.2f}: a conversation's row "
                "counts every call it holds, the total each provider call once, and calls two conversations hold are "
                "in both rows (the lines below name them); each figure is its exact amount rounded once to the cent")
    return (f"the rows' costs as printed add up to ${added:,.2f}, the total is ${total:,.2f}: each figure is its exact "
            "amount rounded once to the cent, the total the exact sum of every call's cost (never of the rounded rows), "
            "so they differ by cents (--json: cost.usd_exact; --format csv: cost_exact)")


def total_lines(rows: list[dict], t: dict, breakdown: bool) -> list[str]:
    """The lines under ``asz usage``'s total: with ``breakdown``, :func:`saved_line` (when its calls read or wrote the
    cache), then :func:`cents_line` when the rows' cents differ from the total's."""
    out = []
    if breakdown and t.get("cache_saved") and (t["usage"]["cache_read"] or t["usage"]["cache_write"]):
        out.append(saved_line(t["cache_saved"]))
    return out + [x for x in (cents_line(rows, t),) if x]


def emit(rows: list[dict], view: str, table, how: tuple, breakdown: bool, prices: bool, lists: dict, said: tuple,
         shown: Callable[[str], str], summed: list[dict] | None = None, same: list[dict] | None = None) -> None:
    """Print ``rows`` of ``view`` as ``how`` (``(--format, the JSON shape: json_shape, --out FILE or None)``) asks:
    csv or md (:mod:`~asz_core.cli.usage_flat`), else :func:`~asz_core.cli.usage_cmd.print_rows` (``lists``: unreadable, unchained, no_time,
    undescribed; ``said``: the unchained note and the no-time line) with the prices used in the total
    (:func:`prices_used`) and, in the table, :func:`prices_lines`;
    written to the --out file when given (said on stderr). ``summed``: the rows the total sums, when not ``rows``
    (the session view's rows each keep their conversation's own figure, a call two conversations hold in both; the
    total counts it once: :func:`~asz_core.view.usage_report.once`, trial 35a F5); ``same``: the total's
    ``same_calls`` (:func:`~asz_core.cli.usage_lines.same_calls_list`), given when some call is held by two."""
    from ..view.usage_report import KEYS, totals
    from .usage_cmd import print_rows
    from .usage_table import with_kinds

    form, shape, out = how
    used = prices_used(table, rows)
    with written(out):
        if form in ("csv", "md"):
            from .usage_flat import csv_text, flat_lines, md_text

            flat = with_kinds(rows, table) if breakdown else rows
            head, lines = flat_lines(flat, KEYS[view], totals(summed or rows, table, breakdown), table, breakdown)
            typer.echo((csv_text if form == "csv" else md_text)(head, lines), nl=False)
        else:
            print_rows(with_kinds(rows, table) if breakdown else rows, shape, KEYS[view], view == "session",
                   {**totals(summed or rows, table, breakdown), "prices": used, **({"same_calls": same} if same else {})},
                   breakdown, lists, *said, shown)
        for text in prices_lines(used, prices) if not shape and form == "table" else ():
            typer.echo(text)
    if out is not None:
        typer.echo(f"asz usage: wrote {len(rows):,} row(s) and the total to {out}", err=True)
