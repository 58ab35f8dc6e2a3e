"""Which conversation rows a list keeps and in what order: the filters and sorts of ``asz ls`` and ``/api/conversations``.

One rule for both readers (trial 26b, F3): :class:`Filters` narrows the rows by project, model, dialect and a time
window (``asz ls --project/--model/--dialect/--since/--until``, ``asz search``, ``asz export`` and the server's
``/api/conversations?project=…``), :func:`sorted_rows` orders them by one of :data:`ROW_SORTS` (``asz ls --sort``,
``/api/conversations?sort=``). A row is a conversation row (:func:`~asz_core.view.rows.header_row` or
:func:`~asz_core.view.rows.document_row`, with ``dialect``). :mod:`asz_core.reading.listing` re-exports every name.
"""

from __future__ import annotations

import os
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable, Iterable

import attrs

from ..sessiondata.spelling import folded
from .match import dialect_matches, matches

__all__ = ["EMPTY_FILTER", "empty_filter", "model_names", "total_tokens", "cost_value", "cost_exact", "Filters", "UNVERIFIED_STATES", "blind_to",
           "newest_first", "duration_ms", "talks_figure", "calls_figure", "ROW_SORTS", "A_TO_Z", "sorted_rows",
           "matched_none"]

#: Why a filter given empty is refused (trial 42b F7: ``--project ''`` and ``project=`` were taken as not given, silently):
#: ``asz ls``/``search``/``secrets`` exit 2 naming the flag, ``/api/…`` 400 naming the parameter.
EMPTY_FILTER = "given empty; give a value, or leave it out for no filter"


def empty_filter(got: dict[str, str], names: Iterable[str]) -> str:
    """``NAME: EMPTY_FILTER`` for the first of ``names`` (query parameters) given empty in ``got``, else ''."""
    return next((f"{n}: {EMPTY_FILTER}" for n in names if got.get(n) == ""), "")


def model_names(value: Any) -> list[str]:
    """Model names in a row's ``models`` (a list of names or of objects with ``model``/``name``, or a mapping keyed by name)."""
    if isinstance(value, dict):
        return [str(k) for k in value]
    out = []
    for v in value or ():
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict) and isinstance(v.get("model") or v.get("name"), str):
            out.append(v.get("model") or v.get("name"))
    return out


def total_tokens(usage: Any) -> int | None:
    """All tokens of a row's ``usage`` (the sum of its integer counts: in, out, cache read, cache write); None when unknown."""
    if not isinstance(usage, dict):
        return None
    total = 0
    for k, v in usage.items():
        if isinstance(v, int) and not isinstance(v, bool) and k in ("in", "out", "cache_read", "cache_write", "input", "output"):
            total += v
    return total


def cost_exact(cost: Any) -> Decimal | None:
    """The exact amount of a row's ``cost`` object (its ``usd_exact``, a decimal text:
    :func:`~asz_core.view.prices.cost_of`), None when it has none: what a total over rows adds before it rounds once
    (trial 26b, F8)."""
    exact = cost.get("usd_exact") if isinstance(cost, dict) else None
    if not isinstance(exact, str):
        return None
    try:
        return Decimal(exact)
    except InvalidOperation:
        return None


def cost_value(cost: Any) -> float | None:
    """A row's ``cost`` in US dollars (a number, or a mapping with ``usd_exact`` / ``usd`` / ``total``: the exact
    amount first, so a cost shown to the cent is rounded once from it); None when unknown."""
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        return float(cost)
    exact = cost_exact(cost)
    if exact is not None:
        return float(exact)
    if isinstance(cost, dict):
        for k in ("usd", "total", "total_usd"):
            v = cost.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return float(v)
    return None


@attrs.define
class Filters:
    """What a list or a search is narrowed by; empty fields narrow nothing.

    ``project``: a substring of the row's project (case-insensitive);
    ``since`` / ``until``: unix ms (a conversation is kept when it was active
    in the window: ``to >= since`` and ``from <= until``); ``model``: a
    substring of one of its models; ``dialect``: the dialect exactly, or its
    name before ``/`` (``claude-code``); ``exact``: ``project`` and ``model`` name the whole name instead
    (``/api/conversations?exact=1`` and ``/api/usage``'s, as the page's dropdowns pick them).
    """

    project: str = ""
    since: int | None = None
    until: int | None = None
    model: str = ""
    dialect: str = ""
    exact: bool = False
    #: ``asz search --tool NAME``: only the hits in that tool's inputs and results (the whole name, as the call names
    #: it: ``mcp__fs.files__read``; trial 30c F4); the lists' rows ignore it.
    tool: str = ""
    #: Rows left out only because they carry no time (no usable round), so no window can place them: said, never
    #: dropped silently (``asz_core.reading.listing.not_read_line``).
    unplaced: list = attrs.field(factory=list, eq=False, repr=False)
    #: Rows kept though ``project`` or ``model`` could not judge them: they do not verify, so the field is held back
    #: (:func:`blind_to`): said, never dropped silently (``asz_core.reading.listing.unjudged_line``; trial 25b F3).
    unjudged: list = attrs.field(factory=list, eq=False, repr=False)
    #: Rows the server still counts (``counting``), left out by ``project`` or ``model``, which cannot judge them yet:
    #: said in ``/api/conversations``' ``note``, never kept (:meth:`keeps`).
    uncounted: list = attrs.field(factory=list, eq=False, repr=False)

    def keeps(self, row: dict) -> bool:
        """True when ``row`` (a conversation row with ``dialect``) passes every filter. A filter on a field ``row``'s
        failed verification holds back (:func:`blind_to`) passes it, and the row, once kept, is put in
        :attr:`unjudged`. A row the server still counts (``counting``: its project and models not known yet) is not
        kept when ``project`` or ``model`` is given, and is put in :attr:`uncounted` (``/api/conversations``: an answer
        filtered by project holds only rows of that project, from the first; before session 43 it held every row
        still counted)."""
        counting = bool(row.get("counting"))
        if counting and (self.project or self.model):
            if dialect_matches(row.get("dialect"), self.dialect) and self.active_in(row.get("from"), row.get("to")):
                self.uncounted.append(row)
            return False
        blind = [] if counting else blind_to(row, self.project, self.model)
        if "--project" not in blind and not any(matches(p, self.project, self.exact)
                                                 for p in (row.get("project"), *(row.get("project_before") or ()))):
            return False
        if self.model and "--model" not in blind and not any(matches(m, self.model, self.exact)
                                                              for m in model_names(row.get("models"))):
            return False
        if not dialect_matches(row.get("dialect"), self.dialect):
            return False
        if self.active_in(row.get("from"), row.get("to")):
            if blind and not counting:
                self.unjudged.append(row)
            return True
        if row.get("from") is None and row.get("to") is None:
            self.unplaced.append(row)
        return False

    def active_in(self, start: int | None, stop: int | None) -> bool:
        """True when a span from ``start`` to ``stop`` (unix ms, either may be None) meets the ``since``/``until`` window."""
        if self.since is not None and (stop or start or 0) < self.since:
            return False
        if self.until is not None and (start or stop or 0) > self.until:
            return False
        return True


#: The verification states of a conversation whose evidence does not verify (a row's ``state``; ``unreadable``: no
#: round folds): what it gives of its project and models comes from no landed file that failed, so it may lack them.
UNVERIFIED_STATES = ("mismatch", "incomplete", "unreadable")


def blind_to(row: dict, project: str = "", model: str = "") -> list[str]:
    """The filters among ``--project`` (``project`` given) and ``--model`` (``model`` given) that cannot judge ``row``
    (a conversation row, or an ``asz usage`` conversation's places): it does not verify (``state`` one of
    :data:`UNVERIFIED_STATES`, or ``held_back`` set) and gives no project (None or '') or no model name, because what
    its failed files said of them is held back (docs/view.md: a file that does not verify names no project). One rule
    for every reader (docs/reading.md, "A filter cannot judge what does not verify"; trial 25b F3): such a row is kept
    and said (``asz_core.reading.listing.unjudged_line``), never dropped silently; what it is kept as (held back, exported with the
    warning and exit 1 every conversation that does not verify gets) is the reader's own. [] for a row that
    verifies."""
    if row.get("state") not in UNVERIFIED_STATES and not row.get("held_back"):
        return []
    return ((["--project"] if project and not row.get("project") else [])
            + (["--model"] if model and not model_names(row.get("models")) else []))


def newest_first(rows: Iterable[dict]) -> list[dict]:
    """``rows`` sorted by last activity (``to``), newest first; rows with no time last, then by id."""
    return sorted(rows, key=lambda r: (-(r.get("to") or 0), r.get("id") or ""))


def duration_ms(row: dict) -> int | None:
    """A row's first to last record in ms (``to - from``), None when either is not known."""
    a, b = row.get("from"), row.get("to")
    return b - a if isinstance(a, int) and isinstance(b, int) and b >= a else None


def _figure(row: dict, value: Any) -> Any:
    """A sortable figure of ``row``'s tokens or cost: None for a conversation that does not verify (held back: no
    figure is shown) and for one none of whose calls recorded token counts (``usage_recorded`` false, as
    :func:`~asz_core.view.rows.usage_unrecorded` decides: ``not recorded`` and ``-`` are shown, not 0)."""
    return None if row.get("held_back") or row.get("usage_recorded") is False else value


def talks_figure(row: dict) -> int | None:
    """``row``'s ``talks`` as a figure: None when not counted, and when it is 0 while no call could be read beside
    transcript records the dialect could not read (``calls_unread``: a Kiro session in UTF-16, trial 23a F17), which
    may hold some: not recorded, not 0. What ``asz ls`` prints (``-`` for None) and ``--sort talks`` orders by."""
    talks = row.get("talks")
    return None if row.get("calls_unread") and not talks else talks


def calls_figure(row: dict) -> int | None:
    """``row``'s ``llm_calls`` as a figure: None when not counted or ``calls_unread`` (as :func:`talks_figure`). What
    ``asz ls`` prints in CALLS (``-`` for None) and ``--sort calls`` orders by."""
    return None if row.get("calls_unread") else row.get("llm_calls")


#: The orders of ``asz ls --sort`` (trial 17b, F8): each a row's value; a figure or a time sorts largest first, a
#: name A to Z; a row with no value (unknown, held back, tokens not recorded) sorts last.
ROW_SORTS: dict[str, Callable[[dict], Any]] = {
    "last": lambda r: r.get("to"),
    "first": lambda r: r.get("from"),
    "duration": duration_ms,
    "cost": lambda r: _figure(r, cost_value(r.get("cost"))),
    "tokens": lambda r: _figure(r, total_tokens(r.get("usage"))),
    "calls": calls_figure,  # 0 read, records unread: not a figure
    "talks": talks_figure,
    "changes": lambda r: r.get("changes"),
    "title": lambda r: (r.get("title") or "").casefold() or None,
    "project": lambda r: folded(r.get("project")) or None,  # either Unicode spelling sorts as one (trial 31c F2)
}
#: The :data:`ROW_SORTS` that sort A to Z (the others sort largest first).
A_TO_Z = ("title", "project")


def sorted_rows(rows: Iterable[dict], by: str = "last") -> list[dict]:
    """``rows`` in the order ``by`` (:data:`ROW_SORTS`): largest or newest first (a name A to Z); equal values, and the
    rows with no value (last), newest first (:func:`newest_first`). Raises ValueError for another ``by``."""
    if by not in ROW_SORTS:
        raise ValueError(f"{by!r} is not an order (one of {', '.join(ROW_SORTS)})")
    value, rows = ROW_SORTS[by], newest_first(rows)
    known = [r for r in rows if value(r) is not None]
    known.sort(key=value, reverse=by not in A_TO_Z)  # stable: ties keep newest first
    return known + [r for r in rows if value(r) is None]


def matched_none(said: str, of: int, root: object, hint: str = "") -> str:
    """The one line every reader says when its filters keep none of the ``of`` conversations of ``root``
    (docs/reading.md, "Filters that match nothing"): ``no conversation matched SAID (of N in ROOT)``, ``hint`` before
    the closing parenthesis. ``said``: the filters as given (``--project nope`` on the command line, ``project=nope``
    in the HTTP API's ``note``, docs/view.md); ``of``: a count of conversations; ``root``: a path or its text."""
    return f"no conversation matched {said} (of {of} in {root}{hint})"


def unknown_dialect(dialect: str, root: str | os.PathLike | None = None) -> str:
    """Why ``dialect`` (a ``--dialect`` or ``dialect=`` value) names no installed adapter's dialect (neither a dialect
    such as ``claude-code/1`` nor its name ``claude-code``) and, given ``root``, no dialect a conversation of the root
    landed in (:func:`landed_in`: an uninstalled plugin's conversations are still filtered by the dialect their
    records carry, trial 35a F6): ``no installed adapter speaks dialect 'x'; installed: claude-code/1, …``; '' when one
    speaks it or the root holds it, or for '' (every dialect). The usage error of ``asz ls``, ``asz usage`` and ``asz
    search --dialect`` (exit 2) and the 400 of ``/api/conversations``, ``/api/search`` and ``/api/usage`` (trial 29b
    F3)."""
    if not dialect or not uninstalled(dialect) or (root is not None and landed_in(root, dialect)):
        return ""
    from ..plugins.manager import get_plugin_manager

    dialects = get_plugin_manager().dialects()
    return f"no installed adapter speaks dialect {dialect!r}; installed: {', '.join(dialects) or 'none'}"


def uninstalled(dialect: str) -> bool:
    """Whether no installed adapter speaks ``dialect`` (a dialect or its name); False for ''."""
    if not dialect:
        return False
    from ..plugins.manager import get_plugin_manager

    dialects = get_plugin_manager().dialects()
    return dialect not in dialects and dialect not in {d.split("/", 1)[0] for d in dialects}


def landed_in(root: str | os.PathLike, dialect: str) -> bool:
    """Whether a session of ``root`` landed in ``dialect`` (its first landed file's, :func:`~.titles.dialect_of`; a
    dialect or its name), read from the session directories' first headers: asked only for a dialect no installed
    adapter speaks."""
    from ..storage.layout import session_dirs
    from .titles import dialect_of

    return any(dialect_matches(dialect_of(root, d.name), dialect) for d in session_dirs(Path(root)))
