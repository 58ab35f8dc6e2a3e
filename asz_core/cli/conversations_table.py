"""``asz ls``'s table (issue 20): each row's cells and the columns' widths on the terminal it goes to.

Split from :mod:`asz_core.cli.conversations_cmd` (the command, the notes under the table), which re-exports every
public name here. A figure is never cut (a right-aligned column widens for it); a terminal narrower than the table
leaves the columns of :data:`NARROW` out in turn, TITLE cut to no fewer than :data:`MIN_TITLE` cells; output to a
pipe or a file always has every column.
"""

from __future__ import annotations

from typing import Mapping

from ..reading.listing import calls_figure, credits_text, figure_cells, read_in_memory, shown_id, talks_figure
from ..view.rate_words import GROUPED_MARK, listed_title
from ..view.zone import local_text
from .reading_common import fit_cells, fit_tail

__all__ = ["COLUMNS", "SENT_COLUMNS", "CREDITS_COLUMN", "credits_cell", "HELD", "NOT_RECORDED", "NARROW", "MIN_TITLE", "TITLE_AT", "PROJECT_AT", "columns_of",
           "calls_cell", "changes_cell", "table_cells", "runtime_cell", "state_cell", "unsaid", "column_widths", "narrowed",
           "left_out", "header_line", "table_line", "table_width", "when_cell", "duration_cell"]

#: Columns of the table: header, width (0: the rest), alignment.
COLUMNS = (("ID", 8, "<"), ("TITLE", 34, "<"), ("PROJECT", 20, "<"), ("LAST ACTIVITY", 16, "<"), ("DURATION", 8, ">"),
           ("TALKS", 5, ">"), ("CALLS", 5, ">"), ("CHANGES", 11, ">"), ("TOKENS", 11, ">"), ("COST", 8, ">"),
           ("RUNTIME", 7, "<"), ("STATE", 0, "<"))
#: RUNTIME (trial 23a, F1: which runtime wrote each conversation, only in --json's ``runtime`` and ``--dialect``): the
#: name of the dialect of its main transcript (``summary.runtime.name``: claude-code, kiro, langsmith; a held-back or
#: unreadable conversation's from a transcript whose header is what landed), ``-`` when no transcript landed (hook
#: records alone); never cut, the first column a narrow terminal leaves out. The page's list has it too (Runtime).
#: The table of a root ``asz receive`` landed (a row's ``senders`` not empty): SENT BY, before STATE, names the
#: instance ids that sent each conversation (:func:`~asz_core.storage.senders.instance_label`; trial 19, F3: which
#: host, from the team root), as wide as the longest.
SENT_COLUMNS = COLUMNS[:-1] + (("SENT BY", 7, "<"),) + COLUMNS[-1:]
#: CREDITS, after COST, in a table of which a row's runtime metered credits (Kiro: ``credits``, what the runtime
#: metered in its own unit, never tokens, never USD): its figure to 3 decimals, ``-`` where none was metered (trial 34a
#: F5: a Kiro user's table read ``not recorded`` and ``-`` on every row, the one figure Kiro records on one line under it
#: with every conversation's). Never left out on a narrow terminal, as COST is not.
CREDITS_COLUMN = ("CREDITS", 7, ">")
_COST_AT = 9


def columns_of(rows: list[dict]) -> tuple:
    """The table's columns for ``rows``: :data:`COLUMNS`, with :data:`CREDITS_COLUMN` after COST when a row's runtime
    metered credits, and SENT BY before STATE (:data:`SENT_COLUMNS`) when a row was sent to this root by a pusher
    (its ``senders``)."""
    cols = SENT_COLUMNS if any(row.get("senders") for row in rows) else COLUMNS
    if any(row.get("credits") is not None for row in rows):
        cols = cols[:_COST_AT + 1] + (CREDITS_COLUMN,) + cols[_COST_AT + 1:]
    return cols


#: What TOKENS and COST say for a conversation that does not verify (one wording, as the export index and the page say it).
HELD = "held back"
#: What TOKENS says for a conversation whose calls carry no token usage at all (Kiro meters credits), as asz usage
#: and the page say it; its COST reads ``-``.
NOT_RECORDED = "not recorded"


def when_cell(ms: int | None) -> str:
    if not ms:
        return "-"
    return local_text(ms, "%Y-%m-%d %H:%M")  # in --tz, else this machine's zone


#: A year of 365.25 days, in seconds (what a duration in years counts).
_YEAR = 31_557_600


def duration_cell(a: int | None, b: int | None) -> str:
    """The span from ``a`` to ``b`` (unix ms), rounded half up to the last unit it shows (the page's rule)."""
    if not a or not b or b < a:
        return "-"
    ms = b - a
    s = (ms + 500) // 1000
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400 - 30:
        m = (ms + 30_000) // 60_000
        return f"{m // 60}h{m % 60:02d}m"
    if s < _YEAR:
        h = (ms + 1_800_000) // 3_600_000
        return f"{h // 24}d{h % 24:02d}h"
    years, days = s // _YEAR, (s % _YEAR) // 86400
    return f"{years:,}y" if years >= 100 else f"{years}y{days}d"  # a span to year 9999 stays readable in the column


def calls_cell(row: dict) -> str:
    """The CALLS cell: ``llm_calls`` (``-`` when not counted), followed by :data:`GROUPED_MARK` when they are asz's
    grouping (``calls_grouped``); ``-`` too where no call could be read while transcript records the dialect could
    not read may hold some (``calls_unread``: not recorded, not 0; trial 23a F17)."""
    calls = calls_figure(row)
    if calls is None:  # not counted; or none could be read, records that may hold some were not: not a figure
        return "-"
    return f"{calls:,}" + (" " + GROUPED_MARK if row.get("calls_grouped") and calls else "")


def changes_cell(row: dict) -> str:
    """The CHANGES cell: ``changes`` (``-`` when the round does not count them), and ``(+N)`` for the editing tool
    calls with no changes record (``changes_not_derived``), which ``changes`` leaves out."""
    changes, nd = row.get("changes"), row.get("changes_not_derived") or 0
    if changes is None:
        return "-" if not nd else f"- (+{nd:,})"
    return f"{changes:,}" + (f" (+{nd:,})" if nd else "")


def table_cells(row: dict, cols: tuple = COLUMNS) -> tuple:
    """The cells of one row of the table (columns ``cols``: :data:`COLUMNS`, or :data:`SENT_COLUMNS` with the
    row's senders); unknown values show as ``-``."""
    title, project = row.get("title") or "", row.get("project") or ""
    if row.get("removed_files"):  # retention took the cwd the project came from (seed 000, Skeletons); the title is
        project = project or "(removed)"  # the document's own, (removed by retention) when none is left (trial 19, F15)
    held = bool(row.get("held_back"))  # it does not verify: no figure read from it is shown
    tokens, cost = (HELD, HELD) if held else figure_cells(row)  # not recorded, never 0, as asz usage says
    cells = (shown_id(row), listed_title(title) or "(untitled)", project or "-", when_cell(row.get("to")),
             duration_cell(row.get("from"), row.get("to")),
             "-" if talks_figure(row) is None else row["talks"], calls_cell(row), changes_cell(row),
             tokens, cost,
             runtime_cell(row), state_cell(row))
    heads = [h for h, _, _ in cols]
    if "SENT BY" in heads:
        from ..storage.senders import instance_label

        cells = (*cells[:-1], instance_label(row.get("senders") or []), cells[-1])
    if "CREDITS" in heads:
        cells = (*cells[:_COST_AT + 1], credits_cell(row), *cells[_COST_AT + 1:])
    return tuple(str(c) for c in cells)


def credits_cell(row: dict) -> str:
    """The CREDITS cell: the credits the runtime metered (``credits``, 3 decimals as every reader prints them), ``-``
    where it metered none; :data:`HELD` for a conversation that does not verify, as TOKENS and COST say."""
    if row.get("held_back"):
        return HELD
    return "-" if row.get("credits") is None else credits_text(row["credits"])


def runtime_cell(row: dict) -> str:
    """The RUNTIME cell: the row's ``runtime`` name (its main transcript's dialect name), ``-`` when none is known."""
    rt = row.get("runtime")
    return (rt.get("name") if isinstance(rt, dict) else None) or "-"


def state_cell(row: dict) -> str:
    """The STATE cell: the state, and ``!`` when it is ``verified`` while the conversation's document lists problems
    (``problems``: a missing companion file changes no state); :func:`problems_note` names them. A state other than
    verified says its problems itself (held back, or does not read). ``stopped`` follows when a source of its session
    is no longer read (``conflicts``; :func:`stopped_note` says which and how to resolve it: trial 19, F5), ``gone``
    when a source of it was found gone (``sources_gone``: kept in this root only, :func:`gone_note`; trial 23b, F3).
    ``errors`` when a model request or a run failed (``api_errors``), ``never ended`` when runs started
    and have no end recorded (``never_ended``: a LangGraph app that crashed), :func:`failed_note` saying each in
    ``asz conversation``'s words (trial 27a: the list read a plain ``verified`` for a failed trace)."""
    from ..storage.senders import mixed_credentials

    state = row.get("state") or "-"
    return (state + (" !" if unsaid(row) else "") + (" mixed" if mixed_credentials(row.get("senders") or []) else "") + (" stopped" if row.get("conflicts") else "")
            + (" gone" if row.get("sources_gone") else "") + (" errors" if row.get("api_errors") else "")
            + (" never ended" if row.get("never_ended") else "") + (" in memory" if read_in_memory(row) else ""))


def unsaid(row: dict) -> bool:
    """True when ``row`` is verified and its document lists problems all the same."""
    return row.get("state") == "verified" and bool(row.get("problems"))


def column_widths(rows: list[dict], columns: int | None = None, *, narrow: bool = False, cols: tuple = COLUMNS
                  ) -> list[int | None]:
    """The width of each column ``cols`` for ``rows``: its own, widened for a figure that does not fit (a
    right-aligned column holds numbers, which are never cut: ``$1,005.12`` stays whole; the id and SENT BY are never
    cut either); then, on a terminal wider
    than that table (``columns``, default the terminal's width, which ``COLUMNS=`` sets), PROJECT and then TITLE take
    the spare cells their longest cell needs. With ``narrow`` (the table goes to a terminal), on one narrower than
    the table the columns of :data:`NARROW` are left out in turn (None) until it fits with TITLE cut to no fewer
    than :data:`MIN_TITLE` cells (:func:`narrowed`). Output to a pipe or a file always has every column."""
    import shutil

    from rich.cells import cell_len

    widths: list[int | None] = [w for _, w, _ in cols]
    need = [0] * len(widths)
    for cells in (table_cells(row, cols) for row in rows):
        for i, ((head, w, align), cell) in enumerate(zip(cols, cells)):
            need[i] = max(need[i], cell_len(cell))
            if w and (align == ">" or i == 0 or head in ("SENT BY", "RUNTIME")) and cell_len(cell) > widths[i]:  # figures, ids, senders, runtimes
                widths[i] = cell_len(cell)
    if columns is None:
        columns = shutil.get_terminal_size((0, 0)).columns
    last = max(need[-1], len(cols[-1][0]))
    spare = columns - table_width(widths, last)
    if narrow and columns and spare < 0:
        return narrowed(widths, columns, last, cols)
    for i in (PROJECT_AT, TITLE_AT):  # the text columns a wide terminal shows whole
        more = max(0, min(spare, need[i] - widths[i]))
        widths[i], spare = widths[i] + more, spare - more
    return widths


#: Where TITLE and PROJECT stand among the columns (the text columns a wide terminal widens, a narrow one cuts).
TITLE_AT, PROJECT_AT = 1, 2

#: The columns a terminal too narrow for the whole table leaves out, first to last (the page and --json keep them).
NARROW = ("RUNTIME", "CHANGES", "TALKS", "DURATION", "CALLS", "PROJECT", "TOKENS", "SENT BY")

#: The fewest cells TITLE is cut down to on a narrow terminal before a column is left out.
MIN_TITLE = 24


def table_width(widths: list[int | None], last: int) -> int:
    """The cells of a line of the table with ``widths`` (None: left out), its last column ``last`` cells wide."""
    shown = [w for w in widths[:-1] if w is not None]
    return sum(shown) + 2 * len(shown) + last


def narrowed(widths: list[int | None], columns: int, last: int, cols: tuple = COLUMNS) -> list[int | None]:
    """``widths`` fitted to a terminal of ``columns`` cells: TITLE may be cut down to :data:`MIN_TITLE` cells; while
    the line is longer than ``columns`` even so, the columns of :data:`NARROW` are left out (None) in turn; then
    TITLE takes what is left. ID, TITLE, LAST ACTIVITY, COST and STATE always stay."""
    out = list(widths)
    full, out[TITLE_AT] = out[TITLE_AT], min(out[TITLE_AT], MIN_TITLE)
    names = [h for h, _, _ in cols]
    for name in NARROW:
        if table_width(out, last) <= columns:
            break
        if name in names:
            out[names.index(name)] = None
    out[TITLE_AT] = max(out[TITLE_AT], min(full, out[TITLE_AT] + columns - table_width(out, last)))
    return out


def left_out(widths: list[int | None], cols: tuple = COLUMNS) -> list[str]:
    """The headers of the columns ``cols`` that ``widths`` leaves out (a narrow terminal: :func:`narrowed`)."""
    return [h for (h, _, _), w in zip(cols, widths) if w is None]


def header_line(widths: list[int | None] | None = None, cols: tuple = COLUMNS) -> str:
    """The table's header line for the columns ``cols`` of ``widths`` (:func:`column_widths`; default their own); a
    column whose width is None is left out."""
    widths = widths or [w for _, w, _ in cols]
    return "  ".join(f"{h:{a}{w}}" if w else h for (h, _, a), w in zip(cols, widths) if w is not None)


def table_line(row: dict, widths: list[int | None] | None = None, cols: tuple = COLUMNS, projects: Mapping[str, str] = {}) -> str:
    """One row of the table (columns ``cols``, widths ``widths`` as :func:`column_widths` gives them; a column
    whose width is None is left out; PROJECT from ``projects``, the table's told apart: :func:`fit_tails`, trial 31c F3)."""
    widths = widths or [w for _, w, _ in cols]
    out = []
    for i, ((_, _, align), width, cell) in enumerate(zip(cols, widths, table_cells(row, cols))):
        if width is not None:
            out.append(cell if not width else projects.get(cell) or fit_tail(cell, width) if i == PROJECT_AT else fit_cells(cell, width, align))
    return "  ".join(out)
