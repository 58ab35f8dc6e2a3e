"""One row per conversation: what ``/api/conversations`` and ``asz conversations`` list (seed 004; issue 20).

Both read a conversation's newest round file's header line, never the whole
chain: the counts and times a row shows are the ones parse wrote there. The
server adds the verification state of a document it built; ``asz
conversations`` builds the document itself (:func:`document_row`).

Row keys, in order (:data:`ROW_KEYS`): ``id``, ``title``, ``talks``,
``steps``, ``streams``, ``segments``, ``rounds``, ``from``, ``to`` (unix ms,
null when the header has no time, 0 when it is not a time), ``unresolved``,
``changes``, ``lines_added``, ``lines_removed``, ``changes_not_derived``
(editing tool calls that returned with no changes/1 record, so left out of
``changes`` and the lines: a subagent's edits), ``llm_calls``, ``subagents``,
``bash_runs`` (null when the head round predates them), ``state``. The
summary keys of :data:`SUMMARY_KEYS` (``project``, ``models``, ``usage``,
``cost``, ``git_branch``, ``runtime``, ``usage_incomplete``: how many calls'
usage lacks a count their record lists under ``dropped``, 0 when none; ``calls_with_usage`` and ``usage_recorded``,
false when no call carries usage: Kiro, or no model call is recorded at all; ``credits``, the credits the runtime metered, null when it recorded none; ``continues``, the id of the conversation
this one continues, where the records it repeats and their calls are drawn and counted, null when none; ``shares``, for
record ids it shares with conversations neither continuing the other, ``{"with": [ids], "ids": N, "calls": N}``: those
records and their calls are counted in each, null when none; ``calls_grouped``, how asz grouped the runtime's lines
into the ``llm_calls`` it counts where the runtime records no call id (Kiro CLI 3.x: the summary's ``calls_grouped``),
null when every call is keyed by the runtime's own id; ``calls_unread``, :func:`calls_unread`, null until counted;
``api_errors`` and ``never_ended``, the API error steps and the runs that never ended (:func:`counted_keys`), null
until counted; ``calls_failed``; ``counted_later``, ``{"in": [ids], "calls": N, "nodes": [ids]}`` for model calls drawn
here that go on in a later session holding their last line, counted there, null when none, trial 33a F1;
``cache_write_1h`` and ``calls_long_context``, beside ``usage`` on every row, 0 when none, null where its tokens are
not known: :func:`flat_after_hold`, session 40) follow
when the header or the document carries them, else they are null; ``llm_calls``
is the document summary's count (one per provider call, message id + request
id) once the summary is counted, the head round's count of call nodes before; ``usage`` and ``cost`` are null
and ``held_back`` follows for a conversation that does not verify.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import orjson

from ..sessiondata.times import parse_instant
from ..storage.filekey import stat_key
from ..flow.listed import LINKS_NAMED, list_conversations, rounds_links, rounds_links_note  # noqa: F401  (public here too)
from ..storage.layout import rounds_dir

__all__ = ["ROW_KEYS", "SUMMARY_KEYS", "Head", "calls_unread", "counted_keys", "recorded_keys", "usage_unrecorded", "header_ms", "newest_round", "read_head", "head_session", "header_row", "document_row", "inside_word", "REMOVED"]

#: What a list shows for a title or project retention took away: the text (the prompt, the record's ``cwd``) that
#: named it is not in the skeletons (seed 000, Skeletons), and no derived file may keep it (issue 21). Here, not in
#: :mod:`asz_core.view.summary` (which re-exports it), so ``asz usage`` names it without the document's modules.
REMOVED = "(removed by retention)"

#: Keys of a ``/api/conversations`` row, in order (origin-digest §8.3; ``state`` added when known).
ROW_KEYS = (
    "id", "title", "talks", "steps", "streams", "segments", "rounds", "from", "to", "unresolved",
    "changes", "lines_added", "lines_removed", "changes_not_derived", "llm_calls", "subagents", "bash_runs", "state",
)
#: Summary keys a row carries after :data:`ROW_KEYS` (issue 17), null when neither header nor document has them.
SUMMARY_KEYS = ("project", "models", "usage", "cost", "git_branch", "runtime", "usage_incomplete", "cut", "calls_with_usage",
                "usage_recorded", "credits", "changes_lines_unknown", "continues", "shares", "calls_grouped", "calls_unread",
                "api_errors", "never_ended", "calls_failed", "failed_runs", "errors_said",
                "counted_later", "project_before", "cache_write_1h", "calls_long_context")
_LATER_COUNTS = ("changes", "lines_added", "lines_removed", "llm_calls", "subagents", "bash_runs")


class Head(NamedTuple):
    """The newest round file of a conversation: its number, file name, ``(name, size, mtime_ns)`` and header (None when it does not read)."""

    round: int
    name: str
    stat: tuple
    header: dict | None


def header_ms(value: Any) -> int | None:
    """A header time in unix ms: None when absent, 0 when not a time (seed 004)."""
    if not value:
        return None
    ns = parse_instant(value)
    return 0 if ns is None else ns // 1_000_000


def newest_round(root: str | os.PathLike, conversation: str) -> tuple[int, str, tuple] | None:
    """The newest round file listed for ``conversation``: (number, file name, (name, size, mtime_ns)); None if none."""
    from ..flow.round import parse_round_file_name  # loaded with the first list, not before the server listens

    best: tuple[int, str] | None = None
    try:
        rdir = rounds_dir(root, conversation)
        names = os.listdir(rdir)
    except (OSError, ValueError):  # ValueError: an id no folder can have ("", ".", "..")
        return None
    for name in names:
        parsed = parse_round_file_name(name)
        if parsed and (best is None or parsed[0] > best[0]):
            best = (parsed[0], name)
    if best is None:
        return None
    try:
        st = os.lstat(os.path.join(rdir, best[1]))  # a link is not followed (issue 23); its own size and time
    except OSError:
        return None
    return best[0], best[1], (best[1], *stat_key(st))


def read_head(root: str | os.PathLike, conversation: str, newest: tuple | None = None) -> Head | None:
    """The newest round of ``conversation`` (``newest``, as :func:`newest_round` gives it, when the caller just
    listed it) with its header line decoded; None when it has no round file."""
    newest = newest or newest_round(root, conversation)
    if newest is None:
        return None
    header: dict | None = None
    try:
        path = rounds_dir(root, conversation) / newest[1]
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))  # a link is not followed
        with os.fdopen(fd, "rb") as f:
            line = f.readline(1 << 20)
        d = orjson.loads(line)
        if isinstance(d, dict) and d.get("t") == "header":
            header = d
    except (OSError, ValueError):
        header = None
    return Head(newest[0], newest[1], newest[2], header)


def head_session(root: str | os.PathLike, conversation: str) -> str:
    """The session id ``conversation``'s newest round names in its header (:func:`read_head`), else ``conversation``
    itself (no round, no header, no session named): the session whose landed files and sender record are the
    conversation's."""
    head = read_head(root, conversation)
    session = (head.header or {}).get("session") if head else None
    return session if isinstance(session, str) and session else conversation


def _count(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def header_row(conversation: str, header: dict | None, rounds: int, *, title: str, state: str | None) -> dict:
    """A row (keys :data:`ROW_KEYS` then :data:`SUMMARY_KEYS`) from a head round's header.

    ``title`` is the title to show (the caller withholds it, see
    :func:`asz_core.view.document.title_withheld`); ``rounds`` is the newest
    round's number; ``state`` is a verification state or None when not known.
    """
    h = header or {}
    row: dict[str, Any] = {
        "id": conversation,
        "title": title,
        "talks": h.get("talks"),
        "steps": h.get("steps"),
        "streams": h.get("streams"),
        "segments": h.get("segments"),
        "rounds": rounds,
        "from": header_ms(h.get("session_from_time")),
        "to": header_ms(h.get("session_through_time")),
        "unresolved": h.get("unresolved"),
    }
    for k in _LATER_COUNTS:
        row[k] = _count(h.get(k))
        if k == "lines_removed":  # written only when above 0, so 0 where the round counts changes
            row["changes_not_derived"] = _count(h.get("changes_not_derived")) or (0 if row["changes"] is not None else None)
    row["state"] = state
    for k in SUMMARY_KEYS:
        row[k] = h.get(k)
    return row


def document_row(doc: dict, header: dict | None = None) -> dict:
    """A row from a built asz.view document (its summary, withheld as it was built), completed from ``header``.

    The document's summary gives title, state and the counts it has; the head
    round's header gives the counts the summary lacks. Keys as :func:`header_row`;
    ``problems`` is the summary's list of problems (the lines the document shows); a conversation that does not verify
    has ``usage`` and ``cost`` null and a last key ``held_back`` (:func:`~asz_core.view.summary_cache.hold_back`).
    """
    s = doc.get("summary") or {}
    h = dict(header or {})
    for k in ("talks", "steps", "streams", "segments", "unresolved", *SUMMARY_KEYS):
        if s.get(k) is not None:
            h[k] = s[k]
    row = header_row(doc.get("conversation", ""), h, (doc.get("head") or {}).get("round") or 0,
                     title=s.get("title") or "", state=s.get("state"))
    row.update(recorded_keys(s))
    row.update(counted_keys(s))
    row["problems"] = [str(p) for p in s.get("problems") or ()]  # the document's own list: what a reader lists it by
    if row["llm_calls"] is None and isinstance(s.get("kinds"), dict):
        row["llm_calls"] = s["kinds"].get("llm.call", 0)
    return flat_after_hold(row, row["state"])


def flat_after_hold(row: dict, state: str | None) -> dict:
    """``row`` held back by ``state`` (:func:`~asz_core.view.summary_cache.hold_back`), then its keys beside ``usage``
    (:func:`~asz_core.view.usage_keys.row_flat_keys`: ``cache_write_1h``, ``calls_long_context``), null where it is
    held back: the one order ``asz ls`` rows and ``/api/conversations`` rows are made in."""
    from .summary_cache import hold_back
    from .usage_keys import row_flat_keys

    out = hold_back(row, state)
    out.update(row_flat_keys(out))
    return out


def usage_unrecorded(calls: Any, with_usage: Any, credits: Any = None) -> bool:
    """True when no token count is recorded to read a figure from: ``calls`` (a count of model calls, 0 included) is
    an int and ``with_usage`` of them carry token usage is 0, or ``credits`` (what the runtime metered, in its own unit)
    is not None and no call carries token usage. So a conversation with calls and no usage (Kiro meters credits) and
    one with no model call at all (a session of ``asz hook`` records alone, no transcript landed; a Kiro session whose
    every record is undescribed) both read "not recorded" and ``-``, never 0 tokens and $0.00: nothing recorded is not
    a figure. The one test of a row's ``usage_recorded``, ``asz conversation``'s ``tokens not recorded`` line and
    ``asz usage``'s rows and total (trial 23a, F12/F17: a Kiro conversation that metered credits and has no call drawn
    read ``tokens in 0 … cost $0.00`` in asz conversation where asz usage said not recorded; session 24: a session of
    hook records alone read ``0`` and ``$0.00`` in asz ls and on the page). ``calls`` None (not counted yet) is
    never "not recorded" on its own."""
    if with_usage:
        return False
    return (isinstance(calls, int) and with_usage == 0) or credits is not None


def calls_unread(calls: Any, problems: Any) -> bool:
    """True when no model call could be read (``calls`` is 0) while ``problems`` (a summary's or a row's list) name
    transcript records the dialect could not read (the :data:`~asz_core.view.usage.UNDESCRIBED_PREFIX` line: a Kiro
    session written in UTF-16, trial 23a F17): they may hold talks and calls, so the row's 0 talks and 0 calls are not
    figures and read as not recorded (``-`` in asz ls, as every figure not recorded reads; the page's list too), as
    its tokens do (:func:`usage_unrecorded`)."""
    if calls != 0 or isinstance(calls, bool) or not isinstance(problems, (list, tuple)):
        return False
    from .usage import UNDESCRIBED_PREFIX  # loaded with the first such row, not before the server listens

    return any(str(p).startswith(UNDESCRIBED_PREFIX) for p in problems)


def recorded_keys(summary: dict) -> dict:
    """``from`` and ``to`` (unix ms) of a counted summary, each when known: the conversation's recorded range
    (:meth:`~asz_core.view.summary.DocumentView.recorded_range`: its records' first and last times, else, a session of
    ``asz hook`` records alone, the records' own ``time``), a document summary's ``from``/``to`` or a kept entry's
    ``range``. The one rule ``asz ls`` rows (:func:`document_row`) and ``/api/conversations`` rows
    (:meth:`~asz_core.view.summary_cache.RowSummaries.note`) take over the head round's header (trial 27a F7: the
    page's rows of hook records alone had no time, which its date filter then could not place)."""
    rng = summary.get("range")
    got = dict(zip(("from", "to"), rng)) if isinstance(rng, (list, tuple)) and len(rng) == 2 else \
        {k: summary.get(k) for k in ("from", "to")}
    return {k: v for k, v in got.items() if isinstance(v, int) and not isinstance(v, bool)}


def counted_keys(summary: dict) -> dict:
    """The row keys a counted summary (a document's, or :meth:`~asz_core.view.summary_cache.ConversationSummary.keys`)
    decides over the head round's header: ``llm_calls`` (one per provider call,
    :func:`~asz_core.view.usage.call_count`) when it has it, ``usage_incomplete`` (0 when no call's usage is short),
    ``changes_lines_unknown`` (the summary's, 0 when none),
    and with the summary's ``calls_with_usage`` that count and ``usage_recorded``: False when no call carries token usage
    (:func:`usage_unrecorded`: Kiro meters credits; no model call recorded at all), so its 0 tokens and $0.00 are not
    figures: its ``usage`` then keeps every key, each null, as ``asz usage --json`` gives it (trial 29c; its ``cost``
    stays, ``"priced": false``); ``calls_unread`` (:func:`calls_unread`): True when its 0 talks and 0 calls are not figures, no call being
    read while records the dialect could not read may hold some; ``api_errors``, its API error steps (a model call or
    a run, such as a failed LangGraph trace, that ended with an error: the summary's ``api_errors``, else its
    ``kinds``' ``error.api``; 0 when none), ``failed_runs`` (of them, an app's runs that failed, not model requests:
    the summary's, 0 when none) and ``errors_said`` (both in words, :func:`~asz_core.view.rate_words.error_words`;
    '' when none; trial 32a F7), and ``never_ended``, the runs that started and have no end recorded
    (:func:`~asz_core.view.unended.unended_count` of its problems; 0 when none): what ``asz ls`` marks ``errors`` and
    ``never ended`` (trial 27a: only ``asz conversation`` and the talk said a trace failed)."""
    from .rate_words import error_words
    from .unended import unended_count

    out = {"usage_incomplete": summary.get("usage_incomplete") or 0,
           "changes_lines_unknown": summary.get("changes_lines_unknown") or 0}  # changed files whose lines are not known
    calls = summary.get("llm_calls")
    if isinstance(calls, int):
        out["llm_calls"] = calls
    out["calls_unread"] = calls_unread(calls, summary.get("problems"))
    errors = summary.get("api_errors")
    if not isinstance(errors, int) or isinstance(errors, bool):
        kinds = summary.get("kinds")
        errors = kinds.get("error.api", 0) if isinstance(kinds, dict) else 0
    out["api_errors"], out["never_ended"] = errors, unended_count(summary.get("problems"))
    runs = summary.get("failed_runs")
    out["failed_runs"] = runs if isinstance(runs, int) and not isinstance(runs, bool) else 0
    out["errors_said"] = error_words(errors, out["failed_runs"]) if errors else ""
    out["calls_failed"] = summary.get("calls_failed") or 0
    with_usage = summary.get("calls_with_usage")
    if isinstance(with_usage, int):
        out["calls_with_usage"] = with_usage
        out["usage_recorded"] = not usage_unrecorded(calls, with_usage, summary.get("credits"))
        if not out["usage_recorded"] and isinstance(summary.get("usage"), dict):  # nothing recorded is not 0 tokens
            out["usage"] = dict.fromkeys(summary["usage"])  # every key kept, each null, as asz usage --json gives them
    return out


def inside_word(before: str, after: str) -> bool:
    """True when a cut between the characters ``before`` and ``after`` falls inside a word of a script that spaces its
    words (both letters or digits, neither East Asian wide: Chinese and Japanese text has no spaces to end on). A
    title's cut (:func:`~asz_core.view.summary.shorten`, which re-exports it) and a table cell's
    (:func:`~asz_core.cli.reading_common.fit_cells`); here, in a light module the title fingerprint hashes
    (:data:`~asz_core.view.summary_cache.TITLE_CODE`), so a table is cut without the document's modules (issue 22)."""
    import unicodedata

    return all(c.isalnum() and unicodedata.east_asian_width(c) not in "WF" for c in (before, after))
