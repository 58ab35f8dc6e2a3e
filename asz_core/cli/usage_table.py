"""``asz usage``'s text table: columns in terminal cells, the marks after a row's key, the lines under the table
(issue 17; docs/view.md, asz usage).

Split from :mod:`asz_core.cli.usage_cmd` (the command: its options, the rows read, JSON or the table), which
re-exports every public name here. A narrow terminal leaves columns out (:func:`narrowed`), never a figure cut;
a row whose calls carry no token usage reads ``not recorded`` (:data:`NOT_RECORDED`), one whose calls are all held
back ``held back`` (:data:`HELD_BACK`), never 0.
"""

from __future__ import annotations

from typing import Callable

import typer

from ..view.rate_words import PARTIAL_MARK, calls_uncounted, listed_title, partial_line
from ..view.rows import usage_unrecorded
from ..view.usage import TOKEN_KINDS
from ..view.usage_keys import incomplete_sum
from ..view.stopped_sources import stopped_lines
from .reading_common import fit_cells, say_left_out, terminal_columns
from .usage_out import total_lines

__all__ = ["COLUMNS", "NOT_RECORDED", "HELD_BACK", "NARROW", "MIN_KEY", "short_model", "models_cell", "narrowed", "widened", "print_table",
           "with_kinds", "active_line", "burn_words", "credits_line"]

#: Columns of the text table after the key: header and width.
COLUMNS = (("MODELS", 28), ("CALLS", 7), ("INPUT", 10), ("OUTPUT", 10), ("CACHE WRITE", 12), ("CACHE READ", 13), ("TOTAL", 13), ("COST", 11))


def _cell(text: str, width: int, left: bool = False) -> str:
    return fit_cells(text, width, "<" if left else ">")


#: The TOKEN cells of a row whose calls carry no token usage at all (Kiro meters credits): the page's words, never 0.
NOT_RECORDED = ("-", "-", "-", "-", "not recorded", "-")
#: The CALLS and TOKEN cells of a row every call of which is held back (in no figure, counted by the line under the
#: table): no 0 that line contradicts, not "not recorded" (recheck 25 N3).
HELD_BACK = ("-", "-", "-", "-", "-", "held back", "-")


def short_model(model: str) -> str:
    """A model id as the MODELS column names it: without a leading ``claude-`` and a dated snapshot suffix
    (``claude-haiku-4-5-20251001`` → ``haiku-4-5``, as ccusage's column names them); any other id as it is."""
    m = model[len("claude-"):] if model.startswith("claude-") and len(model) > len("claude-") else model
    from ..view.prices import SNAPSHOT

    return SNAPSHOT.sub("", m) or model


def models_cell(models: list[str], width: int = COLUMNS[0][1]) -> str:
    """The MODELS cell: each model's :func:`short_model`, once, joined by ``, ``; when they do not fit in ``width``
    cells, as many as fit and ``+N`` for the rest (``haiku-4-5, opus-4-1 +2``), never a name cut; ``-`` for none."""
    names = list(dict.fromkeys(short_model(m) for m in models))
    if not names:
        return "-"
    text = ", ".join(names)
    for n in range(len(names) - 1, 0, -1):
        if len(text) <= width:
            break
        text = ", ".join(names[:n]) + f" +{len(names) - n}"
    return text


def _figures(u: dict | None, cost: dict, calls: str = "", unrecorded: bool = False, held: bool = False) -> list[str]:
    """The CALLS, INPUT, OUTPUT, CACHE WRITE, CACHE READ, TOTAL and COST cells of one line, whole (a figure is never
    cut: :func:`widened` gives each column the width of its widest cell): ``calls`` the CALLS cell, ``unrecorded``
    when the line's calls carry no token usage at all (:data:`NOT_RECORDED`), ``held`` when every call of it is held
    back (:data:`HELD_BACK`); the cost as :func:`~asz_core.reading.listing.cost_text` writes it, its marks kept."""
    from ..reading.listing import cost_text

    usd = cost_text(cost)
    figures = NOT_RECORDED if unrecorded else (
        f"{u['in']:,}", f"{u['out']:,}", f"{u['cache_write']:,}", f"{u['cache_read']:,}",
        f"{sum(u[k] for k in TOKEN_KINDS):,}", usd)
    if held:
        calls, figures = HELD_BACK[0], HELD_BACK[1:]
    return [calls, *figures]


def widened(columns: tuple, lines: list[list[str]]) -> tuple:
    """``columns`` (header, width) with each figure column (all but MODELS) as wide as its widest cell among
    ``lines`` (each line's :func:`_figures`), never narrower than its own width: a number is never cut
    (``5,000,889,218``, ``$125,260.39*``: trial 38b F1; docs/reading.md, "A number never is cut")."""
    from rich.cells import cell_len

    figure_columns = [c for c in columns if c[0] != "MODELS"]
    out = {h: w for h, w in figure_columns}
    for cells in lines:
        for (h, _), text in zip(figure_columns, cells):
            out[h] = max(out[h], cell_len(text))
    return tuple((h, out.get(h, w)) for h, w in columns)


def _line(key: str, key_width: int, models: list[str] | None, figures: list[str], columns: tuple,
          cell: str | None = None, hide: frozenset = frozenset()) -> str:
    """One table line: the key cell ``key`` (``key_width`` cells), the MODELS cell when the table has one (``models``
    the row's models; None: no MODELS column, ``asz usage model``; ``cell`` its text when given, a breakdown line's
    ``└ model``), then ``figures`` (:func:`_figures`) in ``columns``' widths (:func:`widened`); ``hide`` the headers
    of the columns a narrow terminal leaves out (:func:`narrowed`)."""
    widths = dict(columns)
    cells = [_cell(key, key_width, True)]
    if models is not None and "MODELS" not in hide:
        cells.append(_cell(cell if cell is not None else models_cell(models), widths["MODELS"], True))
    cells += [_cell(text, widths[h]) for text, h in zip(figures, [h for h, _ in COLUMNS[1:]]) if h not in hide]
    return "  ".join(cells)


#: The columns a terminal too narrow for the table leaves out, first to last; the key, CALLS, TOTAL and COST stay.
NARROW = ("MODELS", "INPUT", "OUTPUT", "CACHE WRITE", "CACHE READ")


def narrowed(key_width: int, columns: tuple, terminal: int) -> tuple[frozenset, int]:
    """What a terminal of ``terminal`` cells does to a table of ``columns`` after a key column ``key_width`` cells
    wide: the headers it leaves out (those of :data:`NARROW` in turn while a line is longer) and the key's width,
    then cut to fit, to no fewer than :data:`MIN_KEY` cells. ``terminal`` 0 (no terminal): nothing changes."""
    hide: set[str] = set()

    def over() -> int:
        return key_width + sum(w + 2 for h, w in columns if h not in hide) - terminal

    for name in NARROW:
        if not terminal or over() <= 0:
            break
        hide.add(name)
    if terminal and over() > 0:
        key_width = max(min(key_width, MIN_KEY), key_width - over())
    return frozenset(hide), key_width


#: The fewest cells a narrow terminal cuts the key column (a conversation's id and title) down to.
MIN_KEY = 24


def _unrecorded(r: dict) -> bool:
    """True when ``r`` (a row or the totals) counts calls and none of them carries token usage, or counts no call
    but credits (Kiro: a record that metered credits falls on its own day, its calls on theirs)."""
    return usage_unrecorded(r["calls"], r["calls_with_usage"], r.get("credits"))


def _rate_lines(cost: dict, rows: list[dict], usage: dict | None = None) -> None:
    """The lines under the table for the total ``cost``'s calls at a rate the price table does not hold (``^``) and
    calls whose rate was not checked when they landed (``?``, said once: in how many of ``rows`` they are, the rows
    themselves unmarked, :func:`_checked`; trial 20: every row of an upgraded root read ``$…?``); the copies the
    total ``usage`` folded (:func:`~asz_core.reading.listing.replays_line`) and its calls whose 1-hour part was above
    their whole (:func:`~asz_core.reading.listing.hour_over_line`)."""
    from ..reading.listing import hour_over_line, rate_line, replays_line, unchecked_line

    if folded := (usage or {}).get("replays_folded"):
        typer.echo(replays_line(folded))
    if cost.get("rate_not_priced_calls"):
        typer.echo(rate_line(cost["rate_not_priced_calls"]))
    if cost.get("hour_above_whole_calls"):
        typer.echo(hour_over_line(cost["hour_above_whole_calls"]))
    if cost.get("rate_not_checked_calls"):
        n = sum(1 for r in rows if isinstance(r.get("cost"), dict) and r["cost"].get("rate_not_checked_calls"))
        typer.echo(unchecked_line(cost["rate_not_checked_calls"], f"in {n:,} of {len(rows):,} row(s)",
                                  cost.get("hour_not_kept_calls", 0)))


def _sent(row: dict) -> str:
    """`` (dev@hostA)``: the instance ids that sent a session row's conversation to a root asz receive landed, after its
    id (trial 19, F3: which host, from the team root); '' in a root no receiver landed."""
    return f" ({row['instance']})" if row.get("instance") else ""


def _checked(cost: dict) -> dict:
    """A row's ``cost`` without its ``rate_not_checked_calls``: the table marks those calls ``?`` on its total only, and
    says them once under it (:func:`_rate_lines`); --json keeps each row's count."""
    return {k: v for k, v in cost.items() if k != "rate_not_checked_calls"}


def _cut_start(label: str, width: int) -> str:
    """``label`` cut at its start to ``width`` terminal cells, ``…`` first: a sender's label keeps its end, `` (credential
    NAME)``, the receiver's check, which a cut at the end hid (review34: ``alice@hostA (credential alice)
    (credential…``)."""
    from rich.cells import cell_len

    from .reading_common import fit_cells

    text = fit_cells(label, max(len(label) * 2, 1)).rstrip()  # escapes first, as every cell
    while text and cell_len(text) > width - 1:
        text = text[1:]
    return "…" + text


def _key_cells(rows: list[dict], key: str, label_of: Callable[[dict], str], width: int) -> list[str]:
    """Each of ``rows``' key cell (``label_of`` it) in ``width`` cells, with its marks (:func:`_marks`, kept whole on a
    narrow key: the mark is what says the row leaves calls or counts out). A project is cut at its start, as asz ls
    cuts PROJECT (the tail tells projects apart; trial 16b, 14), projects that would read alike each keeping enough of
    their first folders to tell them apart (:func:`~asz_core.view.project_labels.project_labels`; trial 31c F3). A
    sender's label is cut at its start too (:func:`_cut_start`): its end names the credential checked."""
    from rich.cells import cell_len
    from ..view.project_labels import project_labels

    cut = project_labels([label_of(r) for r in rows], {label_of(r): width - len(_marks(r)) for r in rows}) if key == "project" else {}
    out = []
    for r in rows:
        label, marks = label_of(r), _marks(r)
        if key == "project" and cell_len(label) + len(marks) > width:
            label = fit_cells(cut.get(label, label), width - len(marks)).rstrip()
        elif key == "instance" and cell_len(label) + len(marks) > width:  # the tail names the credential checked
            label = _cut_start(label, width - len(marks))
        if marks:
            label = (label if cell_len(label) + len(marks) <= width else fit_cells(label, width - len(marks))) + marks
        out.append(label)
    return out


def print_table(rows: list[dict], key: str, session: bool, t: dict, breakdown: bool = False, unreadable: list[str] = (),
           unchained: str = "", no_time: str = "", left_out: bool = False, undescribed: dict[str, int] = {},
           shown: Callable[[str], str] = str, undescribed_named: dict[str, int] | None = None,
           stopped: list[dict] = ()) -> None:
    """Print ``rows`` (keyed by ``key``; a conversation's row by its id and title when ``session``) and the totals ``t``
    as the text table: columns in terminal cells, marks and the lines under it. With ``breakdown``, each row is followed
    by one row per model (``  └ model`` in MODELS, the key cell blank) with its calls, tokens and cost.
    ``unreadable``: conversations that did not read, in no figure: the total is marked ! and a line names them;
    ``unchained``: the line naming landed sessions with no conversation chain (in no figure either: marked ! too);
    ``no_time``: the line saying the calls with no time (:func:`no_time_line`), ``left_out`` when a window left them
    out of every figure (the total is marked ! then); ``undescribed``: conversation -> transcript records it holds
    the dialect could not read (trial 18, F-f): the total is marked ! and a line names them (``undescribed_named``:
    conversation -> those of them naming the model call they belong to, said apart); ``stopped``: sources no longer read (the total marked !, a line each: 46a F1); an open block's line.
    Every line names a conversation by ``shown`` (its shortest prefix unique in the root)."""
    from rich.cells import cell_len
    from ..verify.unparsed import figures_off
    from ..view.zone import zone_name

    short = bool((marked := figures_off(unchained)) or unreadable or left_out or undescribed or stopped)  # counted once here: no !
    label_of = (lambda r: f"{r.get('shown_id') or shown(r[key])}{_sent(r)} {listed_title(r['title'])}") if session else (lambda r: str(r[key]))
    head = f"{key.upper()} ({zone_name()})" if key in ("date", "week", "month", "block") else key.upper()  # the zone the days are of, named
    # in terminal cells (a CJK project name takes two a character); the total row fits whole
    total = ("total !" if short else "total") + _partial(t)  # a mark of the total's (trial 39b F3)
    width = max([len(head), len(total)]
                + [min(cell_len(" ".join(label_of(r).split())) + len(_marks(r)), 44) for r in rows])
    by_model = key == "model"  # the key is the model: no MODELS column, no breakdown under a row
    if by_model or key == "instance":  # a model id is never cut (the widest known is 28 characters), nor a sender but by
        width = max([width] + [cell_len(label_of(r)) + len(_marks(r)) for r in rows])  # a narrow terminal (review34)
    lines = _table_lines(rows, t, by_model, breakdown, total)
    columns = widened(COLUMNS[1:] if by_model else COLUMNS, [f for _, _, f, _, _ in lines])
    hide, width = narrowed(width, columns, terminal_columns())
    say_left_out("usage", [h for h, _ in columns if h in hide])
    typer.echo("  ".join([_cell(head, width, True)] + [_cell(h, w, h == "MODELS") for h, w in columns if h not in hide]))
    labels, last = iter(_key_cells(rows, key, label_of, width)), None
    for key_cell, models, figures, cell, r in lines:
        if r is not None or key_cell.startswith("total"):  # a row's (or the total's) line: the row before it ends
            if last is not None:
                _kinds_line(last, "cost by kind", width, hide)
            key_cell, last = (next(labels), r) if r is not None else (key_cell, None)
        else:  # a model's line: named in the key's cell when MODELS is left out
            key_cell = f"└ {short_model(key_cell)}" if "MODELS" in hide else ""
        typer.echo(_line(key_cell, width, models, figures, columns, cell, hide))
    _kinds_line(t, "total cost by kind", width, hide)
    [typer.echo(text) for text in total_lines(rows, t, breakdown)]  # what caching saved; the rows' cents apart
    if t["cost"]["unpriced"]:
        from ..reading.listing import unpriced_line

        typer.echo(unpriced_line(t["cost"]["unpriced"], (t.get("prices") or {}).get("config") or "asz.yaml"))
    _rate_lines(t["cost"], rows, t.get("usage"))
    long = t["cost"].get("long_context_calls")
    if long:  # Anthropic prices a call whose input is above 200K at its model's long-context rates, all its tokens
        typer.echo(f"{long:,} call(s) above 200K input tokens priced at long-context rates (input counts cache reads "
                   "and writes; --json: cost.long_context_calls, usage.long_context)")
    from .usage_lines import continues_lines, held_line, same_calls_lines, undescribed_line

    for line in same_calls_lines(t.get("same_calls") or [], session, shown) + (continues_lines(rows, shown) if session else []):
        typer.echo(line)
    if held := held_line(rows, shown):
        typer.echo(held)
    if unreadable:
        from ..reading.listing import not_read_line

        typer.echo(not_read_line(unreadable, "in no figure above", shown=shown))
    if unchained:
        typer.echo(f"! {unchained}" if marked else unchained)
    if no_time:
        typer.echo(no_time)
    for line in stopped_lines(list(stopped), shown):  # later lines in no figure (46a F1)
        typer.echo(f"! {line}")
    if undescribed:
        typer.echo(undescribed_line(undescribed, key, shown, undescribed_named))
    for line in [active_line(r) for r in rows if r.get("active") or r.get("after_now")] + [credits_line(rows, key, t, breakdown and key != "model"),
                                                                      _partial_line(rows, t, label_of)]:
        typer.echo(line) if line else None
    short = {h["conversation"]: h for h in incomplete_sum(rows)}  # the total's: a conversation's calls of every row
    if short:
        typer.echo("~ usage incomplete, the figures above leave out counts a record left out (listed under dropped) or "
                   "gave below 0 (counted 0; asz conversation names the calls): "
                   + ", ".join(f"{shown(c)} ({h['calls']} call(s): {', '.join(h['fields'])})" for c, h in sorted(short.items())))


def _table_lines(rows: list[dict], t: dict, by_model: bool, breakdown: bool, total: str) -> list[tuple]:
    """Every line of the table before it is printed, so each column fits its widest figure (:func:`widened`): ``(key
    cell, models, figures, MODELS cell, row)`` of each row (its key cell None: :func:`_key_cells` gives it), of each of
    its ``--breakdown`` model lines (the model as key cell, row None) and of the total (key cell ``total``, row None)."""
    lines = []
    for r in rows:
        held = "held_back" in r and not r["calls"] and not r.get("credits")  # every call of the row held back
        models = None if by_model else r["models"] or (["held back"] if held else [])
        lines.append((None, models, _figures(r["usage"], _checked(r["cost"]), f"{r['calls']:,}", _unrecorded(r), held),
                      "held back" if models == ["held back"] else None, r))
        if breakdown and not by_model:
            for m, u, cost, n in _model_lines(r):
                lines.append((m, [m], _figures(u, _checked(cost), f"{n:,}", u is None), f"└ {m}", None))
    lines.append((total, None if by_model else [], _figures(t["usage"], t["cost"], f"{t['calls']:,}", _unrecorded(t)),
                  None, None))
    return lines


def with_kinds(rows: list[dict], table) -> list[dict]:
    """``rows``, each with ``cost_by_kind`` (:func:`~asz_core.view.prices.cost_by_kind` of its usage by model) and
    ``cost_share_by_kind`` (:func:`~asz_core.view.prices.cost_shares`: percent of the exact amounts)."""
    from ..view.prices import cache_saved, cost_by_kind, cost_shares

    return [{**r, "cost_by_kind": cost_by_kind(r["usage_by_model"], table),
             "cost_share_by_kind": cost_shares(r["usage_by_model"], table),
             "cache_saved": cache_saved(r["usage_by_model"], table)} for r in rows]


def _kinds_line(row: dict, name: str, width: int, hide: frozenset) -> None:
    """With ``--breakdown``, the line under a row (or the total) saying what each kind of token cost
    (:func:`~asz_core.reading.cost_kinds.kinds_text`), where the MODELS column starts (the key's cell when a narrow
    terminal left MODELS out); nothing for a row without ``cost_by_kind`` or whose calls carry no token usage. A row's
    line (not the total's) leaves the ``?`` out, as its row does (:func:`_checked`)."""
    if "cost_by_kind" not in row or _unrecorded(row):
        return
    from ..reading.cost_kinds import kinds_text

    cost = row["cost"] if name.startswith("total") else _checked(row["cost"])
    typer.echo(("" if "MODELS" in hide else " " * (width + 2)) + f"{name}: {kinds_text(cost, row['cost_by_kind'], row['cost_share_by_kind'])}")


def active_line(row: dict) -> str:
    """The line naming a block still open (``active``): when it ends and how long from now, in the block's zone; or
    one whose start is after now (``after_now``), not open (trial 46a F4)."""
    import datetime as dt
    import time

    from ..sessiondata.times import format_duration

    if not row.get("active"):
        return after_now_line(row)
    end = dt.datetime.fromisoformat(row["block"]) + dt.timedelta(milliseconds=row["end"] - row["start"])
    minutes = -(-max(0, row["end"] - int(time.time() * 1000)) // 60_000)  # whole minutes, rounded up
    return (f"> block {row['block']} is open: it ends at {end.isoformat(timespec='minutes')}, "
            f"{format_duration(minutes * 60)} from now (a call after that starts the next block); "
            + burn_words(row, end.tzinfo))


def after_now_line(row: dict) -> str:
    """``> block … starts after now …``: a block whose calls are timed after this machine's clock (trial 46a F4)."""
    return (f"> block {row['block']} starts after now: its calls are timed ahead of this machine's clock (a clock set "
            "ahead, or a transcript from a machine whose clock is), so it is not open and has no burn rate or projection")


def burn_words(row: dict, zone) -> str:
    """The open block's burn rate and projection in words (``row``'s ``burn_rate``, ``projection``: docs/view.md,
    asz usage blocks): ``burn rate 1,234,567 tokens/h, $12.34/h (its calls from 08:02 to 09:15); at that rate
    5,000,000 tokens, $50.00 at its end``, or that its calls span no time yet."""
    import datetime as dt

    rate, proj = row.get("burn_rate"), row.get("projection")
    if not rate or not proj:
        return "no burn rate yet (its calls span no time)"
    hm = [dt.datetime.fromtimestamp(rate[k] / 1000, zone).strftime("%H:%M") for k in ("from", "to")]
    return (f"burn rate {rate['tokens_per_hour']:,} tokens/h, ${rate['usd_per_hour']:,.2f}/h (its calls from {hm[0]} "
            f"to {hm[1]}); at that rate {proj['tokens']:,} tokens, ${proj['usd']:,.2f} at its end")


def credits_line(rows: list[dict], key: str, t: dict, by_model: bool = False) -> str:
    """``credits (what the runtime metered, …): KEY 0.711, …; total 2.053``: the credits of each row whose records
    metered some (Kiro), by its key (a conversation by its shown id, the shortest prefix unique in the root), and the total, kept apart from the
    tokens and cost (never a token count, never USD; trial 15 F14); with ``by_model`` each row's ``(model credits,
    …)`` after it. '' when no row has credits."""
    from ..reading.listing import credits_text

    def one(r: dict) -> str:
        name = (r.get("shown_id") or str(r[key])) if key == "conversation" else str(r[key])
        models = ", ".join(f"{m} {credits_text(v)}" for m, v in r["credits_by_model"].items())
        return f"{name} {credits_text(r['credits'])}" + (f" ({models})" if by_model and models else "")

    metered = [one(r) for r in rows if r.get("credits") is not None]
    if not metered:
        return ""
    return (f"credits (what the runtime metered, in its own unit: not tokens, not USD): {', '.join(metered)}; "
            f"total {credits_text(t['credits'])}")


def _model_lines(row: dict) -> list[tuple[str, dict | None, dict, int]]:
    """``(model, usage or None when its calls carry none, cost, calls)`` of each model of ``row``, by name: the
    ``--breakdown`` lines under it (a model whose calls carry no usage reads "not recorded", as a row does)."""
    none = {"usd": 0.0, "unpriced": []}
    return [(m, row["usage_by_model"].get(m), row["cost_by_model"].get(m, none), n)
            for m, n in row["calls_by_model"].items()]


def _marks(row: dict) -> str:
    """The marks after a row's key: `` !`` when it holds calls back (they do not verify) or records the dialect could
    not read (``undescribed``), `` ~`` when a counted call's usage is incomplete, `` +`` when some of its calls carry
    no token counts while others do (:func:`_partial`)."""
    return (" !" if "held_back" in row or row.get("undescribed") else "") + (" ~" if row.get("usage_incomplete") else "") \
        + _partial(row)


def _partial(row: dict) -> str:
    """`` +`` (:data:`~asz_core.view.rate_words.PARTIAL_MARK`) for a row or total some of whose ``calls`` carry no token
    counts while others do (``calls_with_usage``; trial 39b F3: 4 of 31 calls counted, unmarked); '' otherwise."""
    return f" {PARTIAL_MARK}" if calls_uncounted(row.get("calls"), row.get("calls_with_usage")) else ""


def _partial_line(rows: list[dict], t: dict, label_of: Callable[[dict], str]) -> str:
    """The ``+ …`` line under the table naming the rows :func:`_partial` marks, each with its uncounted calls, and the
    total's (marked too when its rows' calls carry token counts in some rows only); '' when the total is not marked."""
    if not (total := calls_uncounted(t.get("calls"), t.get("calls_with_usage"))):
        return ""
    some = [(r, n) for r in rows if (n := calls_uncounted(r.get("calls"), r.get("calls_with_usage")))]
    named = [f"{' '.join(label_of(r).split())} ({n:,} of {r['calls']:,})" for r, n in some]
    return partial_line(total, t["calls"], ", ".join(named + [f"total ({total:,} of {t['calls']:,})"]))
