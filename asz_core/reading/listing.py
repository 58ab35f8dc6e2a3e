"""``asz conversations``: one row per conversation, filtered and newest first (issue 20).

A row is :func:`asz_core.view.rows.document_row` of the conversation's
asz.view document built with the withheld names (so ``title`` and ``state``
are the page's), plus ``dialect`` (the dialect of the session's first landed
file) and ``removed_files`` (how many of the session's landed files retention
replaced by skeletons: a title or project the removed text gave is gone, and
the table says ``(removed by retention)`` there). :class:`Filters` holds what a person may narrow the list by; the same
filters narrow ``asz search``. The filters and the orders live in :mod:`asz_core.view.row_filters`, so the server's
``/api/conversations`` narrows and orders its rows by the same rule; they are re-exported here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..storage.layout import removed_count, session_listing
from ..view.view_error import ViewError
from ..view.match import TimeError, parse_time
from ..view.row_filters import (A_TO_Z, ROW_SORTS, UNVERIFIED_STATES, Filters, blind_to, calls_figure, cost_value,
                                duration_ms, model_names, newest_first, sorted_rows, talks_figure, total_tokens)
from ..view.rows import document_row, header_row, list_conversations, read_head, usage_unrecorded
from ..view.titles import dialect_of
from ..view.rate_words import HOUR_OVER_SAID, NO_CALL, NO_CALL_READ, NO_TOKENS_TO_PRICE, NONE_RECORDED, NOT_BY_RUNTIME, RATE_MARK, REPLAYS_SAID, REPLAYS_WHY, UNCHECKED_MARK, UNCHECKED_MORE, cost_marks, rate_text, unchecked_why
from ..termsafe import shell_word

__all__ = ["ROW_SORTS", "sorted_rows", "talks_figure", "calls_figure", "Filters", "TimeError", "parse_time", "conversation_rows", "keep_rows", "dialect_of", "model_names", "total_tokens", "cost_value", "duration_ms", "usage_lines", "unrecorded_cell", "unrecorded_text", "cut_text", "RATE_MARK", "UNCHECKED_MARK", "cost_marks", "cost_text", "figure_cells", "token_cell", "rate_line", "unpriced_line", "replays_line", "hour_over_line", "unchecked_line", "UNVERIFIED_STATES", "blind_to", "unjudged_line", "unjudged_calls_line", "newest_first", "A_TO_Z", "UNTIMED", "unplaced_lines", "unplaced_why", "shown_id", "going_on_lines"]


# RATE_MARK (^): asz_core.view.rate_words, the page's too.


def cost_text(cost: Any, usd: float | None = None) -> str:
    """A cost as ``asz ls`` and ``asz usage`` print it in a cell: ``$1,234.57`` and its :func:`cost_marks`; ``unpriced``
    when none of it had a price and it names models that have none (``cost.priced`` false and ``cost.unpriced``: a
    ``$0.00*`` read as free by a reader or a spreadsheet, trial 28a F6). The exact amount (``usd_exact``) as
    :func:`~asz_core.view.prices.money` prints it (rounded once to the cent; ``<$0.01`` when it rounds to nothing);
    ``usd``: the figure when ``cost`` gives none."""
    from ..view.prices import exact_usd, money

    if isinstance(cost, dict) and cost.get("priced") is False and cost.get("unpriced"):
        return "unpriced"
    return money(cost if exact_usd(cost) is not None else usd) + cost_marks(cost)  # <$0.01 when small (32a F8)


def figure_cells(row: dict) -> tuple[str, str]:
    """``(tokens, cost)`` of a row (``asz ls --json``'s keys) as ``asz ls`` prints them, and a folder export's index
    (trial 45d F4: one function): ``not recorded`` and ``-`` where no call recorded token counts
    (``usage_recorded`` false: :func:`unrecorded_cell`), never 0; ``-`` where none was counted; the tokens with `` ~``
    (a call's usage incomplete) and `` +`` (some calls carry no token counts: :data:`PARTIAL_MARK`), the cost as
    :func:`cost_text` (``unpriced``, ``*`` and the rate marks). A held-back row's cells are the caller's."""
    count, said = token_cell(row)
    if row.get("usage_recorded") is False:
        return said, "-"
    cost = cost_value(row.get("cost"))
    return (said if count is None else f"{count:,}" + (f" {said}" if said else ""),
            "-" if cost is None else cost_text(row.get("cost"), cost))


def token_cell(row: dict) -> tuple[int | None, str]:
    """A row's TOKENS cell (:func:`figure_cells`) in its parts: ``(count, its marks)`` (``~``, ``+``, space-separated;
    '' for none) where it holds a figure, else ``(None, the words)`` (:func:`unrecorded_cell`, ``-``): a folder
    index's total says the count and its marks apart (``318 tokens +``), from the figure, not its text."""
    from ..view.rate_words import PARTIAL_MARK, calls_uncounted

    if row.get("usage_recorded") is False:
        return None, unrecorded_cell(row)
    tokens = total_tokens(row.get("usage"))
    if tokens is None:
        return None, "-"
    marks = ("~" if row.get("usage_incomplete") else "",
             PARTIAL_MARK if calls_uncounted(row.get("llm_calls"), row.get("calls_with_usage")) else "")
    return tokens, " ".join(m for m in marks if m)


def rate_line(calls: int) -> str:
    """The line under a table whose costs count ``calls`` (> 0) calls at a rate the price table does not hold."""
    return f"{RATE_MARK} {rate_text(calls)} (--json: cost.rate_not_priced_calls)"  # the page's words (rate_words)


def unpriced_line(models: Iterable[str], config_name: str = "asz.yaml") -> str:
    """The line under a table whose cost leaves out ``models`` (``cost.unpriced``): those to add under ``prices`` in
    ``config_name`` (the file ``--config`` named, trial 44a F4), and apart ``(no model)``, calls whose records name no
    model, which no entry can price (trial 44a F9: it was told to add them). '' for none."""
    from ..view.usage import NO_MODEL

    models = list(models)
    named = [m for m in models if m != NO_MODEL]
    said = [f"{', '.join(named)} (add them under prices in {config_name})"] if named else []
    if NO_MODEL in models:
        said.append(f"{NO_MODEL}: calls whose records name no model, which no price can be added for")
    return f"* unpriced, left out of the cost: {'; '.join(said)}" if said else ""


def replays_line(copies: int) -> str:
    """The line under a table whose calls folded ``copies`` (> 0, usage's ``replays_folded``) copies of a call another
    stream's file holds under a request id of its own (a sub-agent's or side question's file copying its parent's
    response), each counted once with its call, as ccusage 20 counts them and ccusage 18 did not (trial 44a F3, trial
    48a F2; docs/ccusage.md)."""
    return f"{copies:,} {REPLAYS_SAID} ({REPLAYS_WHY}; --json: usage.replays_folded)"  # the page's words (rate_words)


def hour_over_line(calls: int) -> str:
    """The line under a table whose costs count ``calls`` (> 0) calls whose record gave a 1-hour part of its cache
    writes above the whole (``cache_creation.ephemeral_1h_input_tokens`` above ``cache_creation_input_tokens``):
    each such call's 1-hour writes are counted and priced at its whole cache writes, call by call, so a cost is the
    same however the calls are grouped (trial 44a F2)."""
    return f"{calls:,} {HOUR_OVER_SAID} (--json: cost.hour_above_whole_calls)"  # the page's words (rate_words)


def unchecked_line(calls: int, where: str = "", hourless: int = 0) -> str:
    """The line under a table whose costs count ``calls`` (> 0) calls whose rate was not checked when they landed
    (``where``, when given, after the count: ``in 3 of 5 row(s)``), and what the user can do: the landed records of
    such a call keep its token counts only, not the fields that decide its rate (Claude Code's ``message.usage``
    ``speed``, ``service_tier``, ``inference_geo``: checked in a root asz upgraded from 54bd206, trial 20), and
    landed files are written once, so only collecting the same sources into a new root checks them (seed 000: nothing
    is inferred). ``hourless`` of them (``cost.hour_not_kept_calls``) hold cache writes and no 1-hour part in their own
    records: the 1-hour clause names them, and is left out when none does (trial 37c F1). The words are
    :mod:`asz_core.view.rate_words`' (the page's too)."""
    return (f"{UNCHECKED_MARK} {calls:,} call(s){' ' + where if where else ''} {unchecked_why(hourless)}{UNCHECKED_MORE} "
            "(--json: cost.rate_not_checked_calls)")


def not_read_line(ids: Iterable[str], where: str, why: str = "stderr says why, asz verify names the problems", *,
                  shown: Callable[[str], str]) -> str:
    """``! not read, WHERE (no usable round; WHY): ID, ID`` naming conversations that do not read, each by ``shown``
    (its shortest prefix unique in the root, :func:`~asz_core.reading.ids.conversation_names`) (asz usage's line
    under its total; asz ls and asz export say with it which ones a --since/--until window cannot place)."""
    return f"! not read, {where} (no usable round; {why}): " + ", ".join(shown(c) for c in ids)


#: Where :func:`not_read_line` says a conversation a time window could not place is, and why.
UNPLACED = ("so not placed in the --since/--until window", "it has no times; asz verify names the problems")
#: Why a conversation that verifies but holds no record with a time yet is in no window (trial 27b F6: a resumed
#: file holding only its head's summary and file-history-snapshot lines so far was said as not read, exit 1).
UNTIMED = ("no record with a time of its own yet, so in no --since/--until window (so far only records with none, "
           "such as Claude Code's summary and file-history-snapshot; nothing is wrong: a later record's time places it)")


def unplaced_why(row: dict) -> str:
    """Why ``asz export``'s index lists a row a window could not place as not exported: :data:`UNTIMED` for one that
    verifies (no failure: not counted in the exit status, trial 27b F6), else no usable round."""
    return UNTIMED if row.get("state") == "verified" else f"no usable round, {UNPLACED[0]}: {UNPLACED[1]}"


def unplaced_lines(rows: Iterable[dict], *, shown: Callable[[str], str]) -> tuple[str, str]:
    """``(note, warning)`` naming the rows a ``--since``/``--until`` window could not place (no times;
    :attr:`Filters.unplaced`), each by ``shown``: ``note`` those that verify (:data:`UNTIMED`: no record with a time
    yet, nothing is wrong), ``warning`` the others (:func:`not_read_line` with :data:`UNPLACED`: no usable round, or
    one that does not verify); '' for none."""
    rows = list(rows)
    untimed = [r["id"] for r in rows if r.get("state") == "verified"]
    bad = [r["id"] for r in rows if r.get("state") != "verified"]
    return (f"{UNTIMED}: " + ", ".join(shown(c) for c in untimed) if untimed else "",
            not_read_line(bad, *UNPLACED, shown=shown) if bad else "")


def unjudged_line(rows: Iterable[dict], project: str = "", model: str = "", *, shown: Callable[[str], str],
                  kept: str = "listed") -> str:
    """``! kept though --project cannot judge it: it does not verify, so its project is held back (listed, never left
    out silently; asz verify names the problems): ID mismatch``, naming each row of ``rows`` (:attr:`Filters.unjudged`;
    each with ``id`` and ``state``) by ``shown`` and its state; the flags are those of ``project``/``model`` (the
    values given) some row is blind to (:func:`blind_to`), ``kept`` says what the reader did with them (``listed``,
    ``exported``, ``counted as held back``, ``their hits held back``); '' for none."""
    rows = list(rows)
    flags = sorted({f for row in rows for f in blind_to(row, project, model)}, reverse=True)  # --project first
    if not rows or not flags:
        return ""
    one = len(rows) == 1
    fields = " and ".join({"--project": "project", "--model": "models"}[f] for f in flags)
    return (f"! kept though {' and '.join(flags)} cannot judge {'it' if one else 'them'}: {'it does' if one else 'they do'} "
            f"not verify, so {'its' if one else 'their'} {fields} {'is' if fields == 'project' else 'are'} held back "
            f"({kept}, never left out silently; asz verify names the problems): "
            + ", ".join(f"{shown(r['id'])} {r.get('state') or 'unverified'}" for r in rows))


def unjudged_calls_line(counted: Iterable, project: str, model: str, shown: Callable[[str], str]) -> str:
    """:func:`unjudged_line` (``counted as held back``) of ``asz usage``'s calls ``counted`` (the
    :class:`~asz_core.view.usage_report.Counted` that ``--project``/``--model`` keep: held back ones whose
    conversation gives no project or model are kept only because the filter cannot judge them; recheck 25 N3)."""
    rows: dict[str, dict] = {}
    for c in counted:
        if c.held:
            row = rows.setdefault(c.conversation, {"id": c.conversation, "state": c.held, "held_back": True,
                                                   "project": c.places.get("project"), "models": []})
            row["models"] += [c.model] if c.model and c.model not in row["models"] else []
    return unjudged_line([rows[c] for c in sorted(rows)], project, model, shown=shown, kept="counted as held back")


def _dialect_and_removed(root: Path, session: str) -> tuple[str, int]:
    """:func:`dialect_of` (the first landed file's, a skeleton's too) and
    :func:`~asz_core.storage.layout.removed_count` of ``session`` from one listing of its folders with skeletons (a
    landed file winning over its skeleton)."""
    sdir = root / session
    listing = session_listing(sdir, skeletons=True) if sdir.is_dir() else None
    return dialect_of(root, session, listing), sum(1 for ln, _ in listing.files if ln.ext == "sk") if listing else 0


def conversation_rows(root: str | os.PathLike, hide: Sequence[str] = (), filters: Filters | None = None,
                      *, ids: Iterable[str] | None = None, step: Callable[[str], None] | None = None,
                      prices: Any = None, cache: bool = True, build: Callable | None = None) -> Iterator[dict]:
    """The rows of the conversations under ``root`` (``ids`` when given) that pass ``filters``, in id order.

    Each conversation's document is built withholding ``hide`` (its state is
    the page's), unless ``cache`` and a row stored for the same files, withheld
    names and prices can be reused (:mod:`asz_core.reading.row_cache`); one
    with no usable round gives a row with state ``unreadable`` and null
    counts. ``step(conversation)`` is called after each. ``prices`` is the
    price table the cost is read with (the shipped one by default). ``build``: what a row not kept is counted with
    (:func:`counted_row`'s).
    """
    from .row_cache import RowCache, fingerprint

    f = filters or Filters()
    from ..view.as_of import in_as_of

    rc = RowCache(Path(root)) if cache and not in_as_of() else None  # the kept rows are the heads'
    try:
        for cid in list_conversations(root) if ids is None else ids:
            row = _row(Path(root), cid, hide, rc, fingerprint, prices, build)
            if step is not None:
                step(cid)
            if f.keeps(row):
                yield row
    finally:
        if rc is not None:
            rc.close()


#: The most conversations :func:`keep_rows` counts in one run when it tells its progress.
RUN_MOST = 16


def keep_rows(root: str | os.PathLike, hide: Sequence[str], prices: Any, ids: Iterable[str], *, jobs: int = 1,
              step: Callable[[int], None] | None = None, whole: tuple | None = None) -> int:
    """Count and keep the list row and the summary entry of each conversation in ``ids`` whose kept ones are not
    current (:func:`conversation_rows` with its cache, the rows thrown away), so the next ``asz ls`` or ``asz usage``
    withholding ``hide`` with ``prices`` reads them from ``_index/summaries.sqlite`` instead of the landed files.

    What ``asz collect --once`` runs after its pass line for the conversations its parse wrote rounds for
    (docs/reading.md, "After a collect"). ``jobs`` forked processes count at once (consecutive runs of ``ids``);
    where this process may not fork, it counts them alone. ``step(n)``: called as each run of ``n`` conversations is
    kept (a progress bar); with it, a run holds at most :data:`RUN_MOST` conversations, so the count moves while a
    long list is kept (trial 46c F4: ``/api/status`` said ``keeping the list rows, 0 of 935 done`` for 30 s, the
    first of two workers' runs holding 233). ``whole``: ``(withheld names, price table)`` of the server's found
    records (:class:`~asz_core.reading.kept_whole.Whole`): each row not kept is counted from one whole build, which
    keeps what ``/api/usage`` and ``asz usage tools`` read too. Returns how many conversations were looked at. Derived data
    only: a row that could not be kept is counted by the next reader; raises only what a reader would
    (``OSError`` for a root that cannot be read).
    """
    from ..storage.layout import conversation_dir

    dirs = []
    for i in ids:
        try:
            dirs.append(conversation_dir(root, i))
        except ValueError:  # an empty or dot id has no chain to list
            continue
    ids = sorted({d.name for d in dirs if d.is_dir()})  # the names the list knows them by (list_conversations)
    if not ids:
        return 0
    from ..view.summary_cache import SummaryStore

    SummaryStore(root).close()  # made (schema, WAL) once, before workers open it side by side
    most = RUN_MOST if step is not None else len(ids)  # a count told as it moves: short runs
    pool = None
    if jobs > 1 and len(ids) > 1:
        from ..collect.workers import guided, process_pool
        from ..heap import give_back

        give_back()  # the pass's freed pages, before the workers fork and share what is left (issue 22)
        pool = process_pool(min(jobs, len(ids)), fork_only=True)
    cut = guided(ids, jobs) if pool is not None else [ids]  # each worker's consecutive run, cut to ``most``
    runs = [(root, list(hide), prices, run[i:i + most], whole) for run in cut for i in range(0, len(run), most)]
    if pool is None:
        return _kept(map(_keep_run, runs), step)
    from concurrent.futures import as_completed

    with pool:  # Ctrl-C: the workers are killed at once; a row not kept is counted by the next reader
        looked = _kept((f.result() for f in as_completed([pool.submit(_keep_run, run) for run in runs])), step)
    # Two workers closing the store at the same moment each see the other open and leave summaries.sqlite-wal and
    # -shm behind (sqlite removes them only on the last close it finds alone): closed here once more, alone, they go.
    SummaryStore(root).close()
    return looked


def _kept(counts: Iterable[int], step: Callable[[int], None] | None) -> int:
    """The sum of ``counts``, each told to ``step`` as it comes."""
    looked = 0
    for n in counts:
        looked += n
        if step is not None:
            step(n)
    return looked


def _keep_run(args: tuple) -> int:
    from .kept_whole import rows_kept

    return rows_kept(*args)


def _row(root: Path, cid: str, hide: Sequence[str], rc, fingerprint, prices: Any, build: Callable | None = None) -> dict:
    head = read_head(root, cid)
    header = head.header if head else None
    session = (header or {}).get("session") or cid
    fp = fingerprint(root, cid, session if isinstance(session, str) else "") if rc is not None else ""
    key = row_cache_key(hide, prices)
    cached = rc.get(cid, key, fp) if rc is not None else None
    if cached is not None:
        cached.setdefault("removed_files", removed_count(root / session) if isinstance(session, str) and "/" not in session else 0)
        return _with_conflicts(cached, root, session)
    from .row_cache import count_and_keep  # the row, and the same fold's summary entry for asz usage and the server

    row = count_and_keep(root, cid, hide, prices, head, rc.store if rc is not None else None, fp, build)[0]
    return _with_conflicts(row, root, session)


def _with_conflicts(row: dict, root: Path, session: Any) -> dict:
    """``row`` with ``conflicts``, its session's sources the collector no longer reads
    (:func:`~asz_core.view.conflicts.session_conflicts`), and ``sources_gone``, those a pass found gone (kept in this
    root only: :func:`~asz_core.view.conflicts.session_sources_gone`), read now, never kept with the row (trial 19,
    F5; trial 23b, F3), and ``state_from`` ``checked`` (trial 26b, F7: an ``/api/conversations`` row's key): its state
    is found for its files as they are, counted now or kept (``_index/summaries.sqlite``) for the same files, their
    fingerprint unchanged; a row reads the same either way."""
    from ..view.conflicts import stopped_and_gone

    conflicts, gone = stopped_and_gone(root, session if isinstance(session, str) else "")
    return {**row, "conflicts": conflicts, "sources_gone": gone, "state_from": "checked"}


def row_cache_key(hide: Sequence[str], prices: Any) -> list[str]:
    """The withheld names a row is kept under in the ``rows`` table: ``hide``, and with a price table other than the
    shipped one a ``prices=`` element naming it (16 hex digits of SHA-256 over its ``repr``)."""
    import hashlib

    return [*hide, "prices=" + hashlib.sha256(repr(prices).encode()).hexdigest()[:16]] if prices is not None else list(hide)


def counted_row(root: Path, cid: str, hide: Sequence[str], prices: Any, head: Any,
                build: Callable | None = None) -> tuple[dict, tuple | None]:
    """``(row, summary)`` of ``cid`` counted from its files, never from a cache: the list row, and the summary
    entry's ``(places, calls, state, problems)`` (:func:`~asz_core.view.summary_cache.store_summary`), None for a
    conversation with no usable round (its row then has state ``unreadable``). ``head``: its newest round
    (:func:`~asz_core.view.rows.read_head`). ``build``: :func:`~asz_core.view.document.build_summary` (the default) or
    what stands for it (:meth:`~asz_core.reading.kept_whole.Whole.build`: a whole build, the same four values)."""
    if build is None:  # imported here: a listing the cache answers never builds a document
        from ..view.document import build_summary as build

    header = head.header if head else None
    session = (header or {}).get("session") or cid
    summary = None
    try:
        doc, places, calls, problems = build(root, cid, hide=hide, prices=prices)
        row = document_row(doc, header)
        session = doc["sessions"][0] if doc.get("sessions") else cid
        summary = (places, calls, doc["summary"]["state"], problems)
    except ViewError as exc:  # no round folds (the first does not verify): the row says why, titled from what verifies
        from ..view.titles import landed_title

        title, project, runtime = (landed_title(root, session, hide) if isinstance(session, str) and "/" not in session
                                   else ("", "", None))
        row = header_row(cid, None, head.round if head else 0, title=title, state="unreadable")
        row["project"], row["runtime"] = project or None, runtime
        row["problem"] = str(exc)
        row["problems"] = [row["problem"]]
    row["dialect"], row["removed_files"] = (_dialect_and_removed(root, session) if isinstance(session, str)
                                            and "/" not in session else ("", 0))
    return row, summary


def cut_text(cut: dict | None) -> str:
    """What a summary's ``cut`` (parts made smaller to land: ``{"truncated", "too_large", "bytes"}``) says as a fact:
    ``landed without its text: 1 part too large to land (4,050,044 bytes)``, with ``; 2 part(s) landed truncated`` when
    some kept part of their text, ``without the runtime's structured copy of 1 tool result, too large to land (…); its
    text kept whole`` for ``data_taken``; ``bytes``: what was not kept, as written, each part's own (a too-large
    result's text, not its structured copy taken out before it; the copy's when the text was kept whole); '' if none."""
    if not isinstance(cut, dict) or not (cut.get("too_large") or cut.get("truncated")):
        return ""
    big, short, size = cut.get("too_large") or 0, cut.get("truncated") or 0, cut.get("bytes") or 0
    data, unsized = cut.get("data_taken") or 0, cut.get("data_unsized") or 0
    short -= data
    said = [f"without its text: {big:,} part{'s' if big != 1 else ''} too large to land"] if big else []
    said += [f"{short:,} part{'s' if short != 1 else ''} truncated to land"] if short > 0 else []
    said += [f"without the runtime's structured copy of {data:,} tool result{'s' if data != 1 else ''}, too large "
             "to land"] if data else []
    sized = ", ".join([f"{size:,} bytes as written"] * bool(size or not unsized)
                      + [f"the size of {unsized:,} not recorded by the asz that collected it"] * bool(unsized))
    kept = f"; {'its' if data == 1 else 'their'} text kept whole" if data else ""
    return "landed " + "; ".join(said) + f" ({sized}){kept}"


def renamed_line(before: list) -> str:
    """``renamed: the session's metadata document named the project /a before`` (``summary.project_before``, oldest
    first; the project line names the newest): a Kiro workspace renamed (trial 34a F4)."""
    return ("renamed: the session's metadata document named the project " + ", then ".join(map(str, before))
            + " before (asz ls --project matches either name)")


def credits_text(credits: float) -> str:
    """A credits figure as the readers print it: 3 decimals (``0.711``), as Kiro shows a session's credits."""
    return f"{credits:,.3f}"


def models_unnamed(calls) -> str:
    """What the models line says when no model is named: ``not recorded by the runtime`` when the conversation has
    model calls (:data:`~asz_core.view.rate_words.NOT_BY_RUNTIME`: Kiro CLI 3.x names none; trial 27a F10), else
    :data:`~asz_core.view.rate_words.NONE_RECORDED`, ``(none recorded)``. The page's models chip says the same (app.js
    ``WORDS.not_by_runtime``, ``WORDS.none_recorded``)."""
    return NOT_BY_RUNTIME if isinstance(calls, int) and not isinstance(calls, bool) and calls > 0 else NONE_RECORDED


def usage_lines(s: dict) -> list[str]:
    """The lines about where, with what and at what cost (issue 17), from an asz.view document's ``summary``:
    ``project …``, ``models …``, ``model calls N (grouped by asz: …)`` where the runtime records no call id
    (``calls_grouped``: Kiro CLI 3.x), ``tokens in N, out N, cache read N, cache write N`` and ``cost $U.UU``, the cost
    rounded to cents as ``asz ls`` and ``asz usage`` round it; for a conversation that does not verify
    (``held_back``) a ``tokens held back: …`` line and ``cost held back`` instead of the figures; for one whose
    calls carry no token usage, or which has no model call (``calls_with_usage`` 0: Kiro; hook records alone)
    ``tokens not recorded: …`` (:func:`unrecorded_text`) and ``cost -``, but ``tokens 0, counted in ID …`` and
    ``cost $0.00, counted in ID`` for a copy whose summary a reader gave ``counted_in``
    (:func:`~asz_core.view.counted_in.summary_counted_in`: its calls are records it repeats of ID, counted there).
    ``asz conversation`` prints them; the Markdown and HTML exports carry them in their header. Raises KeyError when ``summary`` has no ``usage``, ``usage_by_lane``
    or ``cost``."""
    rt = s.get("runtime") or {}
    where = s.get("project") or "(no working directory recorded)"
    if s.get("git_branch"):
        where += f" on branch {s['git_branch']}"
    runtime = " ".join(x for x in (rt.get("name"), rt.get("version")) if x)
    lines = [f"project {where}" + (f", {runtime}" if runtime else "")]
    if s.get("project_before"):  # the runtime's session document named another project before (trial 34a F4)
        lines.append(renamed_line(s["project_before"]))
    there = s.get("models_there") if s.get("counted_in") else None  # the models where they are counted (fix49a)
    lines.append(f"models {', '.join(there)}, counted in {s['counted_in']}" if there
                 else f"models {', '.join(s.get('models') or []) or models_unnamed(s.get('llm_calls'))}")
    if s.get("calls_grouped") and s.get("llm_calls"):  # asz's grouping of the runtime's lines, not its call ids (F15)
        lines.append(f"model calls {s['llm_calls']:,} (grouped by asz: {s['calls_grouped']})")
    held = s.get("held_back")
    if held:  # it does not verify: no figure read from it is counted (as asz ls and asz usage hold it back)
        lines.append(f"tokens held back: the conversation does not verify ({held['state']}), so its {held['calls']} call(s) "
                     "with usage are in no figure (asz verify names the problems)")
        lines.append("cost held back")
        return lines
    if s.get("counted_in"):  # a copy whose calls are the records it repeats, counted there (trial 46a F5; render 33)
        from ..view.counted_in import cost_counted_in, tokens_counted_in

        # counted_why: the words summary_counted_in chose (a copy, or its calls go on there: 48a F4)
        return lines + [tokens_counted_in(s["counted_in"], s["counted_why"]), cost_counted_in(s["counted_in"])]
    calls, with_usage = s.get("llm_calls"), s.get("calls_with_usage")
    credits = [] if s.get("credits") is None else [  # the runtime's own unit (Kiro): never tokens, never USD (F14)
        f"credits {credits_text(s['credits'])} (what the runtime metered, in its own unit: not tokens, not USD)"]
    if usage_unrecorded(calls, with_usage, s.get("credits")):  # Kiro meters credits: no token figure, never 0 (as asz ls)
        lines.append(unrecorded_text(calls, s.get("credits"), unread=_unread_records(s), failed=s.get("calls_failed") or 0,
                                     outside=_outside_records(s)))
        lines += credits
        lines.append(f"cost - ({NO_TOKENS_TO_PRICE})")
        return lines
    lines += credits
    u, lanes = s["usage"], s["usage_by_lane"]
    lines.append(f"tokens {_tokens(u)}" + (f" (of which subagents: {_tokens(lanes['subagent'])})" if any(lanes["subagent"].values()) else ""))
    if s.get("usage_incomplete"):  # counts a record listed under dropped: the figures above are short by them
        lines.append(f"tokens incomplete: {s['usage_incomplete']} call(s) left out a usage count Session Data cannot carry "
                     "or gave one below 0, counted 0 (the notes name each), so the figures are short by it")
    from ..view.prices import cents_before, money

    cost = s["cost"]
    # as asz ls and asz usage print it (money: the exact amount rounded once, <$0.01 when small; --json keeps the exact
    # figure); unpriced when none of it had a price, never $0.00 (trial 32a F8, configuration.md)
    none_priced = cost.get("priced") is False and bool(cost["unpriced"]) and not cents_before()
    lines.append((f"cost unpriced (no price for {', '.join(cost['unpriced'])})" if none_priced
                  else f"cost {money(cost)}"
                  + (f" (unpriced: {', '.join(cost['unpriced'])})" if cost["unpriced"] else ""))
                 + (f" ({cost['long_context_calls']:,} call(s) above 200K input tokens at long-context rates)"
                    if cost.get("long_context_calls") else "")
                 + (f" ({cost['rate_not_priced_calls']:,} call(s) at a rate the price table does not hold, priced at "
                    "standard rates)" if cost.get("rate_not_priced_calls") else "")
                 + (f" ({cost['rate_not_checked_calls']:,} call(s) whose rate was not checked when they landed, priced "
                    "at standard rates)" if cost.get("rate_not_checked_calls") else ""))
    return lines


def unrecorded_cell(row: dict) -> str:
    """``asz ls``'s TOKENS of a row no call of which carries token usage (``usage_recorded`` false): ``none: N
    failed`` when an error ended each of its N model calls (``calls_failed``: no call returned usage; trial 28c F9,
    where such a thread read ``not recorded`` as if the runtime kept no counts), ``not recorded (F failed)`` when an
    error ended F of them, else ``not recorded``."""
    calls, failed = row.get("llm_calls") or 0, row.get("calls_failed") or 0
    if failed and failed >= calls:
        return f"none: {failed:,} failed"
    return "not recorded" + (f" ({failed:,} failed)" if failed else "")


def unrecorded_text(calls: Any, credits: Any, unread: bool = False, failed: int = 0, outside: str = "") -> str:
    """The ``tokens not recorded: …`` line of a conversation :func:`~asz_core.view.rows.usage_unrecorded` holds no
    token figure for: its ``calls`` (model calls) carry none; it metered ``credits`` and has no call drawn (a copy
    whose calls are counted in the one it continues); no model call could be read while transcript records the dialect
    could not read are there (``unread``: a Kiro session in UTF-16, trial 23a F17: they may hold calls); or no model
    call is recorded in it at all (a session of hook records alone, no transcript landed). ``failed`` of the calls an
    error ended (``summary.calls_failed``): every one, ``tokens none: no model call returned usage: its N model
    call(s) all failed``; some, said after the line (trial 28c F9). ``outside`` (:func:`_outside_records`: the
    ``usage outside any call`` problem's count, '' when none): records carry token counts that name no model call,
    so the runtime did record some and the line says that instead (trial 39b F1)."""
    if outside:
        return (f"tokens not counted: {outside} record(s) carry token counts but name no model call, so no figure "
                f"counts them ({calls or 0:,} model call(s) carry none; the problems name the records)")
    if calls and failed >= calls:
        return f"tokens none: no model call returned usage: its {calls:,} model call(s) all failed (asz conversation names the errors)"
    if calls:
        return (f"tokens not recorded: the runtime recorded no token counts for its {calls:,} model call(s)"
                + (f", {failed:,} of which failed" if failed else ""))
    if credits is not None:
        return "tokens not recorded: the runtime recorded no token counts (it metered credits; no model call is drawn here)"
    return f"tokens not recorded: {NO_CALL_READ if unread else NO_CALL}"  # the page's words too (rate_words.page_words)


def _unread_records(s: dict) -> bool:
    """Whether a document ``summary``'s problems name transcript records its dialect could not read (the
    :data:`~asz_core.view.usage.UNDESCRIBED_PREFIX` line): they may hold model calls no figure counts."""
    from ..view.usage import UNDESCRIBED_PREFIX

    return any(str(p).startswith(UNDESCRIBED_PREFIX) for p in s.get("problems") or ())


def _outside_records(s: dict) -> str:
    """How many records a document ``summary``'s problems name as carrying usage outside any call (the
    :data:`~asz_core.view.usage.OUTSIDE_PREFIX` line's count, as it says it), '' when none."""
    from ..view.usage import OUTSIDE_PREFIX

    for p in s.get("problems") or ():
        if str(p).startswith(OUTSIDE_PREFIX):
            return str(p)[len(OUTSIDE_PREFIX):].split(" ", 1)[0]
    return ""


def _tokens(u: dict) -> str:
    hour = u.get("cache_write_1h")  # the 1-hour part of the cache writes, when the records name one
    return (f"in {u['in']:,}, out {u['out']:,}, cache read {u['cache_read']:,}, cache write {u['cache_write']:,}"
            + (f" (1-hour {hour:,})" if hour else ""))


def read_in_memory(row: dict) -> bool:
    """True when ``row``'s conversation was read from its landed records in memory, its chain being damaged (its
    problems hold :data:`~asz_core.flow.in_memory.IN_MEMORY_NOTE`: trial 29a F8)."""
    from ..flow.in_memory import IN_MEMORY_NOTE

    return any(str(p).startswith(IN_MEMORY_NOTE) for p in row.get("problems") or ())


def memory_note(rows: list[dict], root: str, shown: Callable[[dict], str]) -> list[str]:
    """``in memory: ID8, ID8: chain damaged: read from the landed records, not from the chain (…)`` naming the rows
    :func:`read_in_memory` holds (``shown(row)``: the id shown), what verify and parse do about it; [] when none."""
    from ..flow.in_memory import IN_MEMORY_NOTE

    ids = [shown(row) for row in rows if read_in_memory(row)]
    if not ids:
        return []
    return [f"in memory: {', '.join(ids)}: {IN_MEMORY_NOTE} (no round of the chain verifies: asz verify --root {shell_word(root)} "
            f"names the damage; its tokens and cost stay held back until asz parse ID --anew --root {shell_word(root)}, in a "
            "writable root, writes the chain again from the landed files)"]


def link_lines(s: dict) -> list[str]:
    """The summary's links to other sessions as lines (docs/view.md, Links across sessions).

    ``continues ID (N repeated record(s): drawn and counted there, listed here in not_drawn)`` when the
    conversation opens by repeating another's records (``continues_all`` names every one), and
    ``continued in ID, ID`` when others continue it; a trial user saw ``(no prompt)``, 0 talks and no
    word of where a resumed copy's records went.
    """
    out = []
    there = s.get("counted_there") if isinstance(s.get("counted_there"), dict) else None
    if s.get("continues") and there is not None and not s.get("repeated"):  # a receiving root (trial 28a F1)
        out.append(f"continues {s['continues']} (counted once here: its {there.get('calls')} repeated model call(s) are "
                   "drawn here, as the host that sent it assembled them, and counted there only)")
    elif s.get("continues"):
        ids = ", ".join(s.get("continues_all") or [s["continues"]])
        out.append(f"continues {ids} ({s.get('repeated', 0)} repeated record(s): drawn and counted there, listed here in not_drawn)")
    if s.get("continued_in"):
        later = s.get("counted_later") if isinstance(s.get("counted_later"), dict) else None
        out.append(f"continued in {', '.join(s['continued_in'])}" + (
            f" ({later.get('calls')} model call(s) drawn here go on there: their later lines, the last with the final "
            "usage, landed there only, so they are counted there)" if later else ""))
    return out


def shown_id(row: dict) -> str:
    """The id a line of the table names ``row`` by: ``shown_id`` (the shortest prefix, 8 characters or more, that is
    unique in the root: :func:`~asz_core.reading.ids.unique_prefixes`) when the listing set it, else 8 characters."""
    return row.get("shown_id") or row["id"][:8]


def going_on_lines(rows: list[dict], shown) -> list[str]:
    """One line per conversation of ``rows`` drawing model calls that go on in a later session (a copy cut after a
    streamed message's first line, the session continuing it holding the last: ``counted_later``): ``ID draws N model
    call(s) that go on in ID, which holds their last line: counted there, with its final usage`` (trial 33a F1)."""
    return [f"{shown_id(row)} draws {c.get('calls')} model call(s) that go on in {', '.join(shown(o) for o in c.get('in') or [])}, "
            "which holds their last line: counted there, with its final usage"
            for row in rows if isinstance(c := row.get("counted_later"), dict)]
