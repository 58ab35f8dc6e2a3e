"""The asz.view document: one conversation rebuilt from its rounds and landed files (seed 004).

:func:`build_view` folds a conversation's chain, reads the records its nodes
reference and returns the document as a plain ``dict`` whose key order is the
order seed 004 and origin-digest §7 list. It is never written to disk.

Verification is content: a missing or broken round, a missing landed file or
a digest that does not match goes into ``summary.state`` and
``summary.problems`` and the rest is still shown. Only a chain with no usable
round is an error (:class:`ViewError`).

Withholding: ``hide`` names withholdable flags (``system_prompt``,
``tool_schemas``); records carrying them are withheld as they are read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable

from .chain import ChainReader, ViewError
from .rows import list_conversations  # here since the arguments check of asz verify reads it without this module
from .conflicts import stopped_and_gone
from ..sessiondata import gc_pause
from ..storage.layout import rounds_dir, session_dir
from ..storage.torn import session_torn_tails, torn_line
from ..storage.senders import mixed_problem
from ..storage.short_list import short_problems
from .kinds import FORMAT, STEP_KINDS, TEXT_LIMIT, VERSION, clip_text
from .session_records import LandedSession, header_time, title_unread, title_withheld
from ..flow.index import SET_ASIDE_KINDS
from .links import conflict_lines, dangling_parents, links_of, shares_of, there_split
from .prices import PriceTable, kinds_line
from .summary import DocumentView
from .view_base import untimed_lines
from .turn_places import outside_line
from .usage import call_key, call_ms, key_of, keyed_calls, provider_calls
from .usage_relayed import RELAYED_FROM, UNCOUNTED_BEFORE, relayed_kept, relayed_within
from .usage_continues import repeated_both, repeated_models
from .tool_tallies import mcp_server, refusal, tool_tallies
from .unended import error_failed

__all__ = [
    "ViewError", "build_view", "FORMAT", "VERSION", "TEXT_LIMIT", "STEP_KINDS", "list_conversations", "clip_text",
    "title_unread", "title_withheld", "conversation_calls", "conversation_checked", "listed_problems", "build_summary", "conversation_call_ids",
    "HELD_SUMMARY_KEYS", "hold_back_figures", "checked_call_ids", "conversation_executions",
]



def build_view(root: str | os.PathLike, conversation: str, *, hide: Iterable[str] = (), through_round: int | None = None,
               prices: PriceTable | None = None, read: dict | None = None, requests: dict | None = None,
               credits: list | None = None, times: dict | None = None, counted: dict | None = None) -> dict:
    """Build the asz.view document of ``conversation`` under storage root ``root``.

    Returns a dict in document key order (JSON-ready). ``hide`` names the
    withholdable flags to withhold; ``through_round`` builds the document as
    of that round (the head by default); ``prices`` prices the usage
    (:func:`~asz_core.view.prices.price_table`; the shipped table by default). Raises :class:`ViewError` when the
    chain has no usable round, ValueError for a hide name that is not withholdable. ``read``, when given, gets the
    record lines of the landed files the build read bound by the chain
    (:attr:`~asz_core.view.session_records.LandedSession.bound_lines`: seq -> (path, stat key, lines)), which the
    server's headings answer reads its records from instead of reading and checking those files again. ``requests``,
    when given, gets each ``llm.call`` node holding one provider call -> its provider request id ('' when its records
    name none), which the document does not draw: the root-wide key of the call
    (:func:`~asz_core.view.usage_buckets.call_entries`, ``/api/usage`` counting each call once); ``credits``, when
    given, gets the key of each part of ``summary.credits_at``, in its order
    (:meth:`~asz_core.view.summary.DocumentView.credits_at`: what it metered; '' where none), which the summary does
    not carry; ``times``, when given, gets each provider call's root-wide key (:func:`~asz_core.view.usage.call_key`)
    -> when it counts (unix ms, None when it has no time: :func:`~asz_core.view.usage.call_ms`, the record its usage
    came from, as ``asz usage`` places it), which the document does not draw (a node's ``at`` is its first line's).
    ``counted``, when given, gets what the readers keep of the same fold (:func:`counted_of`: the summary entry's
    ``places`` and ``calls``, as :func:`build_summary` gives them, and ``asz usage tools``' ``tools``), so a pass
    keeping a conversation's row, its record and its tool calls folds it once (:mod:`asz_core.reading.kept_whole`).

    The cyclic garbage collector is paused while the document is built. A
    build allocates a few hundred thousand dicts and lists that all stay alive
    until it returns; every collection those allocations trigger walks every
    live object of the process and finds nothing to free (a third of a large
    build's time). Reference counting still frees as usual, and the collector
    runs again once the build returns. Only a collector this call disabled is
    enabled again, so nested or concurrent builds never leave it off. The
    pause comes first, before anything is allocated, so a build does not start
    by collecting what its caller left young. The document is meant to live on:
    what the build leaves alive goes to the oldest generation as it ends
    (``gc_pause.paused(keep=True)``) instead of being walked, all of it, by the
    young collection the build's allocations would start at once (28 ms for
    the 357-talk bench session, freeing nothing; the build leaves about 25
    objects in cycles, collected by the next full collection).
    """
    with gc_pause.paused(keep=True):
        return _build(Path(root), conversation, hide, through_round, prices, read, requests, credits, times, counted)


def build_summary(root: str | os.PathLike, conversation: str, *, hide: Iterable[str] = (),
                  prices: PriceTable | None = None) -> tuple[dict, dict, list, list[str]]:
    """``(head, places, calls, problems)`` without drawing the conversation: what a list row needs, for about half a build.

    ``head`` holds the document's ``conversation``, ``sessions``, ``head`` and
    ``summary`` as :func:`build_view` gives them (the summary reads the fold,
    the landed records and the checks, not the drawn talks), except that
    ``summary.problems`` gets the lines drawing adds (a tool result's missing
    companion file, which change no state) from :meth:`~asz_core.view.companions.Companions.missing_companions`;
    ``places`` and ``calls`` are :func:`conversation_calls`' pair from the
    same fold; ``problems`` is ``summary.problems`` (as :func:`conversation_checked` gives it). Raises as :func:`build_view`.
    """
    with gc_pause.paused(keep=True):  # its objects are freed by reference counting as it returns, never walked young
        b, fold, _, accepted, _, _, v = _prepare(Path(root), conversation, hide, None, lines_kept=False)
        # the lines drawing adds (they change no state), so summary.problems is the drawn document's
        b.problems = with_companions(b.problems, v)
        summary = _summary(v, b, fold, len(accepted), len(v.undescribed()), prices)
        head = {"conversation": conversation, "sessions": [fold.head.session],
                "head": {"round": fold.head.round, "digest": fold.head_digest}, "summary": summary}
        places, calls = _counted(v, summary["title"], fold.head, summary)
        return head, places, calls, list(summary["problems"])


def _counted(v: DocumentView, title: str, head, summary: dict | None = None) -> tuple[dict, list]:
    """(places, provider calls) the summary counts, from a built view whose head round header is ``head``;
    ``summary``: its :func:`_summary` when the caller built it, whose recorded range (``from``, ``to``:
    :meth:`~asz_core.view.summary.DocumentView.recorded_range`) and ``shares`` are taken, not worked out again."""
    places = {"title": title, **v.places()}
    rng = v.recorded_range(head) if summary is None else (summary["from"], summary["to"])
    if rng != (None, None):  # the summary's from/to: what places a call with no time (kiro22)
        places["range"] = list(rng)
    if unknown := v.lines_unknown():  # changed files whose lines are not known, for the list rows (kiro21b)
        places["changes_lines_unknown"] = unknown
    credits = v.credits()
    if credits is not None:  # the runtime's own metering (Kiro): the summary's keys, kept with the entry (trial 15, F14)
        places["credits"] = credits
        places["credits_at"] = v.credits_at_keys(keyed=True)  # where, with what and of what, for asz usage's rows
    if v.links.earlier:  # where the records it repeats, their calls with them, are counted (trial 22b)
        places["continues"] = v.links.earlier[0]
        calls, places["repeated_in"] = repeated_both(v.sess.records, v.links.evidence, v.counted_calls())  # each row's (50a F3)
        places["repeated_calls"] = calls  # 48a F5
    elif earlier := there_split(v.there, v.links)[0]:  # a receiving root: drawn here by its host, counted there (trial 28a F1)
        places["continues"] = min(earlier.values())
        places["repeated_calls"] = (summary["counted_there"] if summary is not None else counted_there_key(v))["calls"]
        places["repeated_in"] = _there_in(v, earlier)
    if there_split(v.there, v.links)[1]:  # calls drawn here that go on in a later session, counted there (trial 33a F1)
        places["counted_later"] = summary["counted_later"] if summary is not None else counted_later_key(v)
    if errors := (summary["kinds"].get("error.api", 0) if summary is not None else v.api_errors()):
        places["api_errors"] = errors  # a failed run or model call: the list rows mark it (trial 27a)
        if runs := (summary.get("failed_runs", 0) if summary is not None else sum(1 for x in error_failed(v).values() if x == "run")):
            places["failed_runs"] = runs  # of them failed runs, not model requests: said so (trial 32a F7)
        if failed := (summary.get("calls_failed", 0) if summary is not None else v.calls_failed()):
            places["calls_failed"] = failed  # model calls an error ended: TOKENS says so (trial 28c F9)
    if v.call_usage and (grouped := v.calls_grouped()):  # asz's grouping, not the runtime's ids: the rows mark it (F15)
        places["calls_grouped"] = grouped
    shares = _shares(v) if summary is None else summary.get("shares")
    if shares:  # counted here and there too
        places["shares"] = shares
    removed = v.removal()
    if removed is not None:  # what retention took, kept with the entry for the list rows' removed_files (trial 19, F21)
        places["removed"] = removed
    cut = summary["cut"] if summary is not None else v.cut()
    if cut:  # the parts made smaller to land, kept with the entry: a kept row says them as a checked one (trial 29b F8)
        places["cut"] = cut
    if v.relayed and not UNCOUNTED_BEFORE.get():  # each relayed call's agent and tools, for asz usage's note (49a F3)
        places["relayed"] = relayed_kept(v.relayed)
    if und := (summary.get("undescribed_calls") if summary is not None else undescribed_calls(v)):
        places["undescribed_calls"] = und  # the records that could hold calls, counted: asz usage reads them (fix41b)
    return places, list(keyed_calls(sorted(v.counted_calls().items())))  # each with its node id: call_key


def conversation_calls(root: str | os.PathLike, conversation: str, *, hide: Iterable[str] = ()) -> tuple[dict, list]:
    """``(places, calls)`` of a conversation, for readers that count usage (``asz usage``) without the document.

    ``places`` holds ``title``, ``project``, ``git_branch`` and ``runtime`` as
    the summary gives them; ``calls`` is the
    :class:`~asz_core.view.usage.CallUsage` of every provider call the summary's
    totals count (:func:`~asz_core.view.usage.provider_calls`) (a call a resumed session repeats is drawn and counted in the earlier one only),
    so the calls' usage sums to ``summary.usage``. Raises as :func:`build_view`.
    """
    places, calls, _, _ = conversation_checked(root, conversation, hide=hide)
    return places, calls


def conversation_call_ids(root: str | os.PathLike, conversation: str) -> list[tuple[str, Any]]:
    """``(id, call)`` of every provider call :func:`conversation_calls` gives, in its order: ``id`` is the ``llm.call``
    node's id, and for each call of a node holding several, the node's id, ``#`` and the provider request id. A call
    keeps its id from round to round while later records change its usage (what ``asz push``'s metrics count by).
    Raises as :func:`build_view`."""
    return checked_call_ids(root, conversation)[0]


def checked_call_ids(root: str | os.PathLike, conversation: str) -> tuple[list[tuple[str, Any]], str, list[str]]:
    """``(calls, state, problems)``: :func:`conversation_call_ids`' list from the same fold as the verification state
    and problems :func:`conversation_checked` gives, so a reader counts only calls of a conversation that verifies."""
    return checked_call_ids_within(root, conversation, None)[:3]


def checked_call_ids_within(root: str | os.PathLike, conversation: str, within: Callable[[int, int], bool] | None
                            ) -> tuple[list[tuple[str, Any]], str, list[str], dict[str, dict | None]]:
    """:func:`checked_call_ids`' ``(calls, state, problems)`` and, per call id of ``calls``, its usage (four counts;
    None: none) as read from only the records ``within(seq, ord)`` keeps (the landed file's seq, the record's
    ``ord``), from the same fold: what a call counted when only those records had landed (``asz push``'s metrics of a
    session the receiver holds partly from another root, which counted those records' calls). A call none of whose
    records is kept is not a key. ``within`` None: no usage map ({})."""
    with gc_pause.paused():
        b, _, _, _, _, sess, v = _prepare(Path(root), conversation, (), None)
        out: list[tuple[str, Any]] = []
        before: dict[str, dict | None] = {}
        for nid, cu in sorted(v.call_usage.items()):  # provider_calls' rule: a synthetic call is none
            mine = ([(key_of(nid, r.request), r) for r in cu.requests if not r.synthetic] if cu.requests
                    else [] if cu.synthetic else [(nid, cu)])
            out.extend(mine)
            if within is not None and mine:
                before.update(_usage_within(v, sess, nid, within, [ident for ident, _ in mine]))
        return out, b.state, list(b.problems), before


def _usage_within(v: DocumentView, sess, nid: str, within: Callable[[int, int], bool], idents: list[str]) -> dict[str, dict | None]:
    """Call id -> usage of the calls ``idents`` of node ``nid`` read from the refs ``within`` keeps
    (:func:`checked_call_ids_within`); {} when it keeps none."""
    import msgspec

    n = v.nodes[nid]
    refs = [r for r in (n.refs or ([n.ref] if n.ref else []))
            if (ords := sess.ords.get(r.seq)) is not None and 0 < r.row <= len(ords) and ords[r.row - 1] is not None
            and within(r.seq, ords[r.row - 1])]
    if not refs:
        return {}
    got = v.read_call(msgspec.structs.replace(n, refs=refs, ref=None)) if n.attrs.get("usage_from") != RELAYED_FROM \
        else relayed_within(sess, refs) or msgspec.structs.replace(v.call_usage[nid], usage=None)  # a sub-agent's call read from its copies (fix49a)
    by_request = {q.request: q.usage for q in got.requests} if got.requests else {got.request: got.usage}
    return {ident: (by_request.get(ident.split("#", 1)[1]) if "#" in ident else got.usage) for ident in idents}


def conversation_checked(root: str | os.PathLike, conversation: str, *, hide: Iterable[str] = ()) -> tuple[dict, list, str, list[str]]:
    """``(places, calls, state, problems)``: :func:`conversation_calls`' pair and the verification state the document's
    ``summary.state`` gives (``verified``, ``incomplete`` or ``mismatch``) with the document's ``summary.problems``
    (:func:`listed_problems`: what decided the state, then the lines drawing and counting add), what a list row
    carries (``asz ls --json``, ``/api/conversations``). Raises as :func:`build_view`.
    """
    with gc_pause.paused():
        b, fold, _, _, _, _, v = _prepare(Path(root), conversation, hide, None)
        places, calls = _counted(v, v.title(fold.head.title), fold.head)
        return places, calls, b.state, listed_problems(b, v)


def conversation_executions(root: str | os.PathLike, conversation: str, *, hide: Iterable[str] = ()
                            ) -> tuple[str, list[dict], dict[int, str]]:
    """``(session, entries, files)`` without drawing the conversation: its head round's session, the document's
    ``tool_executions`` entries (each with its ``ref`` and ``arguments_check``: docs/claude-code-hooks.md, Held against
    the transcript) and the root-relative landed file of each seq (``asz verify`` names a differing one's file and
    line, ``asz show`` prints the check under an execution record). Raises as :func:`build_view`."""
    with gc_pause.paused():
        _, fold, _, _, _, sess, v = _prepare(Path(root), conversation, hide, None)
        return fold.head.session, list(v.executions), {seq: str(f.get("file", "")) for seq, f in sess.files.items()}


def conversation_tool_calls(root: str | os.PathLike, conversation: str, hide: Iterable[str] = ()
                            ) -> tuple[str, list[dict], list[dict]]:
    """``(state, calls, executions)`` of one conversation without drawing it: the verification state (``verified``,
    ``incomplete``, ``mismatch``), one ``{"id", "name", "server", "failed", "refused", "at", "ms", "ms_from"}`` per
    tool call of the chain (``failed`` True, False or None when the runtime said nothing, False for a call the person
    refused: ``refused`` True, :func:`~asz_core.view.tool_tallies.refused`, trial 38a F4; ``at`` unix ms or None; ``ms`` the tool's
    own run time its runtime recorded, the step's ``duration_ms`` (``ms_from`` ``tool_run``: LangSmith's tool run
    start to end, trial 37b F4), else its step's ``request_to_result_ms`` (0 under a millisecond) where its dialect's
    adapter says that times the tool (``ms_from`` ``call_to_result``; ``tool_timed``: LangSmith, from the asking model
    call's end to the tool run's end; trial 32a F5), else None) and the document's ``tool_executions`` entries.
    Raises as :func:`build_view`; ``asz usage tools`` adds them up (:mod:`asz_core.reading.tool_use`)."""
    with gc_pause.paused():
        b, _, _, _, _, _, v = _prepare(Path(root), conversation, hide, None)
        return b.state, _tool_calls(v), list(v.executions)


def _tool_calls(v: DocumentView) -> list[dict]:
    """:func:`conversation_tool_calls`' calls, read from a built view ``v`` (a whole build's too: the pass keeping a
    conversation's row keeps its tool calls from the same fold, :mod:`asz_core.reading.kept_whole`)."""
    from .titles import ask_adapter

    calls = []
    timed: dict[str, bool] = {}
    said: dict[str, Callable[[object], bool]] = {}
    for kind in ("tool", "agent.call"):
        for n in v.of_kind(kind):
            d: dict = {}
            v._tool_keys_py(n, d)
            name = str(d.get("name") or n.attrs.get("name") or "")
            server = n.attrs.get("mcp_server")
            h = v.sess.headers.get(n.ref.seq) if n.ref is not None else None
            dialect = h.dialect if h is not None else ""
            if dialect not in timed:  # its adapter asked once a dialect
                timed[dialect] = bool(dialect) and ask_adapter(dialect, "tool_timed") is True
                said[dialect] = refusal(dialect)
            ms, ms_from = v.tool_runs.get(n.id), "tool_run"
            if ms is None:
                ms = d.get("request_to_result_ms", 0) if timed[dialect] and "request_to_result_join" in d else None
                ms_from = "call_to_result" if ms is not None else None
            said_no = said[dialect](d.get("result"))  # the person refused it: not a failure (trial 38a F4)
            calls.append({"id": n.id.split("/", 1)[1] if "/" in n.id else n.id, "name": name,
                          "server": server if isinstance(server, str) and server else mcp_server(name),
                          "failed": False if said_no else d.get("failed"), "refused": said_no, "at": v.at(n), "ms": ms,
                          "ms_from": ms_from})
    return calls


def _dialect(v: DocumentView) -> str:
    """The dialect of the view's first landed file's header ('' when none): whose adapter reads its fixed notices."""
    for h in v.sess.headers.values():
        if getattr(h, "dialect", ""):
            return h.dialect
    return ""


def _shares(v: DocumentView) -> dict | None:
    """:func:`~asz_core.view.links.shares_of` the view's fold, landed ids, counted calls and links."""
    return shares_of(v.fold, v.sess.ids, (v.nodes[k] for k in v.call_usage), v.links)


def listed_problems(b: ChainReader, v: DocumentView) -> list[str]:
    """The document's ``summary.problems`` without drawing it: the chain's and the landed files' (``b.problems``, which
    decided the state), each missing companion file drawing would add (:meth:`~asz_core.view.companions.Companions.missing_companions`),
    issue 18's coverage lines and the incomplete-usage lines, in the order :func:`_summary` lists them."""
    return [*with_companions(b.problems, v), *v.coverage.problems,
            *_conflicts(v), *v.usage_lines(), *v.reread_lines(), *v.twice_lines(), *untimed_lines(v.sess)]


def with_companions(problems: list[str], v: DocumentView) -> list[str]:
    """``problems`` (a chain's, before drawing), then each missing companion file drawing would add that it does not
    hold (:meth:`~asz_core.view.companions.Companions.missing_companions`: every landed record's, drawn or not): the
    problems a summary build starts from (:func:`build_summary`, :func:`listed_problems`, :func:`counted_of`)."""
    return [*problems, *(x for x in v.missing_companions() if x not in problems)]


def undescribed_calls(v: DocumentView) -> dict | None:
    """The summary's ``undescribed_calls`` (:func:`~asz_core.view.usage_undescribed.undescribed_counts` of the view's
    session): the counts of its ``undescribed records that could hold calls`` line, as data (fix41b)."""
    from .usage_undescribed import undescribed_counts

    return undescribed_counts(v.sess.headers, v.sess.records, v.sess.listed_parts())


def _conflicts(v: DocumentView) -> list[str]:
    """:func:`~asz_core.view.links.conflict_lines` of the view: records under ids a linked session holds otherwise."""
    from .conflict_fields import across

    return conflict_lines(v.fold, v.links, v.sess.records, across(v.sess.root, v.sess.session))


def _prepare(root: Path, conversation: str, hide: Iterable[str], through_round: int | None,
             lines_kept: bool = True) -> tuple:
    """(chain reader, fold, unread round rows, accepted rounds, their verified flags, landed session, view);
    ``lines_kept`` as :class:`~asz_core.view.session_records.LandedSession` takes it."""
    b = ChainReader(root, conversation, hide, through_round)
    fold, unread_rows, accepted = b.fold_chain()
    assert fold.head is not None
    sess = LandedSession(root, fold.head.session, fold.head.through_seq, accepted, lines_kept)
    for p in sess.problems:
        b.problem("mismatch", p)
    # A torn tail is said, not a mismatch: the landed records are whole, one source line waits for its newline.
    sdir = session_dir(root, fold.head.session)  # its folders as the landed session listed them, when the same
    b.problems.extend(torn_line(src, size) for src, size in session_torn_tails(sdir, sess.listing if sdir == sess.dir else None))
    b.problems.extend(mixed_problem(root, fold.head.session))  # files from two credentials: said, the state kept
    b.problems.extend(short_problems(root, fold.head.session))  # a receiving root short of its records (trial 28a F2)
    verified = b.check_inputs(accepted, sess)
    for r, ok in zip(accepted, verified):
        if not ok:  # a round whose landed files changed: the file the session index points at is not evidence
            for line in sess.pin_damage(r.header.from_seq, r.header.through_seq):
                b.problem("mismatch", line)
    v = DocumentView(b, fold, sess, links_of(fold))
    stream_records = {seq: recs for seq, recs in sess.records.items()  # changes, executions, bodies: another id space
                      if sess.headers.get(seq) is None or sess.headers[seq].kind not in SET_ASIDE_KINDS}
    v.dangling = dangling_parents(stream_records, v.links, (sess.ids, sess.parents))  # issue 18: said by the document, not the chain
    return b, fold, unread_rows, accepted, verified, sess, v


def _build(root: Path, conversation: str, hide: Iterable[str], through_round: int | None, prices: PriceTable | None,
           read: dict | None = None, requests: dict | None = None, credits: list | None = None,
           times: dict | None = None, counted: dict | None = None) -> dict:
    # a pass's build (counted, no read) serves no heading: its bound files' lines let go of, as a list row's
    b, fold, unread_rows, accepted, verified, sess, v = _prepare(root, conversation, hide, through_round,
                                                                 lines_kept=read is not None or counted is None)
    if read is not None:
        read.update(sess.bound_lines)
    before = list(b.problems) if counted is not None else []  # before drawing adds its lines (counted_of)
    if requests is not None:
        requests.update((nid, cu.request) for nid, cu in v.call_usage.items() if not cu.requests)
    if times is not None:  # when each provider call counts: asz usage's one rule (trial 40b F1)
        times.update((call_key(c), call_ms(c)) for c in keyed_calls(v.call_usage.items()))
    if credits is not None:
        credits.extend(k for *_, k in v.credits_at() or ())
    head = fold.head
    session = head.session
    rounds = []
    for r, ok in zip(accepted, verified):
        h = r.header
        rounds.append({
            "round": h.round, "digest": r.digest, "previous": h.previous or None, "from_seq": h.from_seq, "through_seq": h.through_seq,
            "input_digest": h.input_digest, "from_time": header_time(h.from_time), "through_time": header_time(h.through_time), "verified": ok,
        })
    rounds.extend(unread_rows)
    files = [sess.files[s] for s in sorted(sess.files)]
    for r in accepted:
        data = r.data
        files.append({
            "file": (rounds_dir(root, conversation) / r.file_name).relative_to(root).as_posix(), "format": "sf", "kind": "round",
            "seq": None, "round": r.header.round, "stream": None, "run": None, "lines": r.line_count(), "bytes": len(data),
            "digest": r.file_sha256(), "from_time": header_time(r.header.from_time), "through_time": header_time(r.header.through_time),
        })
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "conversation": conversation,
        "sessions": [session],
        "head": {"round": head.round, "digest": fold.head_digest},
        "parser": head.parser,
        "policy": head.policy,
        "summary": None,
        "rounds": rounds,
        "files": files,
        "streams": v.streams(),
        "segments": v.segments(),
        "talks": v.talks(),
        "loose": v.loose(),
        "relations": [v.relation_dict(r) for r in v.ordered_relations],
        "unresolved": [
            {"id": u.id, "kind": u.kind, "ref": u.ref, "reason": u.reason, "state": u.state}
            for u in sorted(fold.unresolved.values(), key=lambda u: u.id)
        ] + v.dangling,
        "workspace_changes": v.changes,
        "tool_executions": v.executions,
        "undescribed": v.undescribed(),
        "not_drawn": v.coverage.not_drawn,
    }
    doc["summary"] = _summary(v, b, fold, len(accepted), len(doc["undescribed"]), prices)
    doc["summary"]["calls_by_tool"] = tool_tallies(doc, _dialect(v))  # calls per tool name (trial 30b F2; docs/view.md)
    if doc["summary"]["kinds"].get("error.api"):
        _mark_failed(doc, v)
    if counted is not None:
        counted_of(counted, v, b, fold.head, doc["summary"], before,
                   lambda listed: _summary(v, b, fold, len(accepted), len(doc["undescribed"]), prices, listed))
    # sources the collector stopped reading (trial 19, F5) and sources a pass found gone, kept in this root only
    # (trial 23b, F3): only when some
    conflicts, gone = stopped_and_gone(root, session)
    if conflicts:
        doc["summary"]["conflicts"] = conflicts
    if gone:
        doc["summary"]["sources_gone"] = gone
    return doc


def counted_of(counted: dict, v: DocumentView, b: ChainReader, head, summary: dict, before: list[str],
               again: Callable[[list[str]], dict]) -> None:
    """Put in ``counted`` what a whole build gives the readers' kept figures beside its document (:func:`build_view`'s
    ``counted``), each as :func:`build_summary` gives it, so a row counted either way is the same: ``summary`` (the
    document's ``summary``, or, where drawing added other problem lines than a summary build does, ``again(listed)``,
    the summary made with the summary build's: :func:`with_companions` of ``before``, the chain's problems before
    drawing; a copy draws none of the records it repeats, so drawing says none of their companions), ``places`` and
    ``calls`` (:func:`_counted`), and ``tools``, :func:`conversation_tool_calls`' ``(state, calls, executions)``."""
    listed = with_companions(before, v)
    if b.problems != listed:
        summary = again(listed)
    places, calls = _counted(v, summary["title"], head, summary)
    counted.update(summary=summary, places=places, calls=calls, tools=(b.state, _tool_calls(v), list(v.executions)))


def _summary(v: DocumentView, b: ChainReader, fold, rounds: int, undescribed: int, prices: PriceTable | None,
             problems: list[str] | None = None) -> dict:
    """The summary with issue 18's coverage problems, ``coverage``, and the links to other sessions:
    ``continues`` (the session this one continues; ``continues_all`` when more than one), ``repeated`` (records
    repeated from it, drawn there and listed in ``not_drawn``), ``continued_in`` (sessions continuing this one),
    ``counted_there`` (:func:`counted_there_key`: on a receiving root, the calls drawn here that the figures count in
    the session this one continues; ``continues`` names it then too),
    ``shares`` (record ids shared with sessions neither continuing the other, :func:`~asz_core.view.links.shares_of`),
    and for one that verifies with calls carrying usage ``cost_by_kind_line``, what each kind of token cost with its
    share of the exact cost (:func:`~asz_core.view.prices.kinds_line`: the page's header and the exports' head say it
    as ``asz conversation`` does). ``problems``: the chain's problem lines to start from, ``b.problems`` by default
    (:func:`counted_of` gives a summary build's)."""
    problems = b.problems if problems is None else problems
    s = v.summary(fold.head, rounds, b.state, problems + v.coverage.problems + _conflicts(v) + v.usage_lines() + v.reread_lines() + v.twice_lines() + untimed_lines(v.sess)
                  + outside_line(v.turns_outside, v.recorded_range(fold.head)),
                  undescribed,
                  prices)
    if und := undescribed_calls(v):  # only then, as credits: the records that could hold calls, counted (fix41b)
        s["undescribed_calls"] = und
    s["coverage"] = v.coverage.summary
    s["unresolved"] += len(v.dangling)  # issue 18: dangling parents are open entries of the document
    links = v.links
    if links.earlier:
        s["continues"] = links.earlier[0]
        if len(links.earlier) > 1:
            s["continues_all"] = links.earlier
        s["repeated"] = sum(1 for d in v.coverage.not_drawn if isinstance(d.get("of"), dict) and "conversation" in d["of"])
    if links.later:
        s["continued_in"] = links.later
    if there_split(v.there, v.links)[0]:  # a receiving root's later session its host assembled alone: the calls it repeats count there only
        s["counted_there"] = counted_there_key(v)
        s.setdefault("continues", s["counted_there"]["continues"])
    if there_split(v.there, v.links)[1]:  # calls that go on in a later session, which holds their last line: counted there (trial 33a F1)
        s["counted_later"] = counted_later_key(v)
    if (v.there or links.earlier) and not s.get("models") and not UNCOUNTED_BEFORE.get():  # counted in another session (render 45)
        there = {c.model for c in provider_calls(v.call_usage[k] for k in v.there) if c.model}
        if there := sorted(there | repeated_models(v.sess.records, links.evidence, v.sess.unverified)):
            s["models_there"] = there  # the models of the calls counted there, which asz conversation's line names
    if shares := _shares(v):  # ids shared, neither continuing
        s["shares"] = shares
    if fold.head.changes_not_derived:  # editing tool calls with no changes record: not in changes (only when some)
        s["changes_not_derived"] = fold.head.changes_not_derived
    if failed := v.calls_failed():  # model calls an error ended: no usage to read, said apart (trial 28c F9)
        s["calls_failed"] = failed
    if runs := sum(1 for x in error_failed(v).values() if x == "run"):  # error steps that are an app's run failing, not a model request (trial 32a F7)
        s["failed_runs"] = runs
    if b.state != "verified":
        hold_back_figures(s, b.state, v.counted_calls().values())
    elif s.get("calls_with_usage") and isinstance(s.get("cost"), dict):  # as asz conversation's line (trial 27a F3)
        s["cost_by_kind_line"] = kinds_line(s["cost"], s.get("usage_by_model") or {}, prices)
    return s


def _mark_failed(doc: dict, v: DocumentView) -> None:
    """Give each drawn error step (``error.api`` node) of ``doc`` its ``failed`` key, what it records as failed:
    ``request`` (a model request) or ``run`` (an app's run; :func:`~asz_core.view.unended.error_failed`), which the
    page and the exports label it by (``API error``, ``Run failed``; trial 32a F7)."""
    failed = error_failed(v)

    def walk(nodes: list) -> None:
        for n in nodes:
            if n.get("kind") == "error.api" and n.get("id") in failed:
                n["failed"] = failed[n["id"]]
            if n.get("children"):
                walk(n["children"])

    walk(doc["talks"])
    walk(doc["loose"])


def counted_there_key(v: DocumentView) -> dict:
    """The summary's ``counted_there`` (trial 28a F1; docs/view.md): ``{"continues": E, "calls": N, "nodes": [id, …]}``,
    the earlier session counting this one's calls drawn in ``nodes`` (``llm.call`` node ids, sorted; ``calls``: the
    provider calls among them), which no figure of this document counts (``summary.usage``, ``cost``, ``llm_calls``,
    the usage per hour, the costliest talks)."""
    there = there_split(v.there, v.links)[0]
    nodes = sorted(there)
    return {"continues": min(there.values()), "calls": sum(1 for _ in provider_calls(v.call_usage[k] for k in nodes)),
            "nodes": nodes}


def _there_in(v: DocumentView, there: dict[str, str]) -> dict[str, list[str]]:
    """The provider calls among ``there`` (``llm.call`` node id -> the earlier session counting it: a receiving root's,
    :func:`counted_there_key`) per session, by id, each by its root-wide key, as
    :func:`~asz_core.view.usage_continues.repeated_in` gives them."""
    by: dict[str, list[str]] = {}
    for k, session in there.items():
        by.setdefault(session, []).append(k)
    return {s: sorted(call_key(c) for c in provider_calls(v.call_usage[k] for k in nodes)) for s, nodes in sorted(by.items())}


def counted_later_key(v: DocumentView) -> dict:
    """The summary's ``counted_later`` (trial 33a F1; docs/view.md, Links across sessions): ``{"in": [L, …], "calls": N,
    "nodes": [id, …]}``, the model calls drawn here (``llm.call`` node ids, sorted; ``calls``: the provider calls among
    them) all of whose records the later sessions ``in`` repeat while they hold the calls' later lines, the last with
    the final usage: counted there, once, and by no figure of this document."""
    there = there_split(v.there, v.links)[1]
    nodes = sorted(there)
    return {"in": sorted(set(there.values())), "calls": sum(1 for _ in provider_calls(v.call_usage[k] for k in nodes)),
            "nodes": nodes}


#: The summary keys a document that does not verify gives as null (:func:`hold_back_figures`): the token and cost
#: figures, read from evidence that does not verify, as ``asz ls`` and ``asz usage`` hold them back.
HELD_SUMMARY_KEYS = ("usage", "usage_by_model", "usage_by_lane", "cost")


def hold_back_figures(s: dict, state: str, call_usage: Iterable) -> None:
    """Make ``s`` (a document's summary whose ``state`` is ``incomplete`` or ``mismatch``) count nothing it read from
    evidence that does not verify, as ``asz ls`` and ``asz usage`` do: :data:`HELD_SUMMARY_KEYS` become null and a
    last key ``held_back`` says so, ``{"state", "keys", "calls"}`` (``calls``: the provider calls with usage the
    totals leave out). A changed file's numbers are what cannot be trusted, a missing file's are not all there;
    ``models`` and the structure counts (talks, steps, kinds) stay, as the list's do."""
    held = sum(1 for c in provider_calls(call_usage) if c.usage is not None)
    for k in HELD_SUMMARY_KEYS:
        s[k] = None
    s["held_back"] = {"state": state, "keys": list(HELD_SUMMARY_KEYS), "calls": held}
