"""How tools were used: calls, failures and durations per tool name and per MCP server, over one conversation or a
root (``asz usage tools``, ``asz conversation``'s ``tools`` line, the page; trial 30c F4, trial 30b F2).

Two sources, each counted as it is (docs/reading.md, "Tool use: asz usage tools"):

* the transcript's tool calls: every ``tool`` and ``agent.call`` node of a conversation's chain, keyed by its tool
  use id (one call however many records repeat it; a call a continued session repeats is counted once, in the first
  conversation read), ``failed`` as its adapter landed the result (from the runtime's word, the adapter's ``failed_word``: Claude
  Code's ``is_error: true``; seed 000, Parts, "failed is absent, not
  false, when the runtime said nothing");
* the execution records (``asz hook``'s ``execution/1``, docs/claude-code-hooks.md): one per call id, the first by time
  (the document's ``tool_executions``), each with its ``outcome``, its ``failure`` class and the ``duration_ms`` the
  runtime measured around the call;
* where no execution record measured a call: the tool's own run time its runtime recorded (the step's
  ``duration_ms``, ``ReadingHooks.tool_run_ms``; LangSmith: the tool run's start to its end, trial 37b F4), else,
  where its dialect's adapter says its step times the tool (``ReadingHooks.tool_timed``; LangSmith files landed
  before langsmith-ingest 0.12.0: from the end of the model call that asked for it to the end of its tool run), that
  step's ``request_to_result_ms`` (trial 32a F5).

A call's MCP server is its name's split (``mcp__<server>__<tool>``, made only when exactly one ``__`` follows
``mcp__``, counting the ones that overlap: seed 000, Parts); a name that does not split has none.
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from ..sessiondata.times import parse_instant
from ..view.rows import list_conversations
from ..view.tool_tallies import mcp_server

#: The failure classes of an execution record (docs/claude-code-hooks.md, "How a call failed"), then
#: ``interrupted`` (an ``outcome`` of its own): the columns of the report, in this order.
CLASSES = ("timeout", "transport", "server_error", "unclassified", "interrupted")

def time_ms(text: Any) -> int | None:
    """An RFC 3339 instant (an execution record's ``time``) as unix ms, None when it does not read: the one parser of
    landed times, :func:`~asz_core.sessiondata.times.parse_instant` (nanoseconds kept to the millisecond)."""
    ns = parse_instant(text)
    return None if ns is None else ns // 1_000_000


class Tally:
    """What the calls and execution records of one tool (or one server) add up to over the conversations read."""

    __slots__ = ("calls", "failed", "refused", "no_result_flag", "executions", "classes", "durations", "call_to_result",
                 "tool_run", "sessions", "server")

    def __init__(self, server: str | None = None):
        self.server = server
        self.calls = self.failed = self.refused = self.executions = 0
        self.classes = dict.fromkeys(CLASSES, 0)
        self.durations: list[int] = []
        self.call_to_result = 0  # of durations, those from the step's call to its result (no execution record)
        self.tool_run = 0  # of durations, the tool runs' own times their runtime recorded (no execution record)
        self.sessions: set[str] = set()

    def figures(self) -> dict:
        """The row's figures: ``calls``, ``failed`` (the result says failed, the person did not refuse the call),
        ``refused`` (the person refused it: the runtime's fixed answer, trial 38a F4), ``executions``, ``failures`` (per class of :data:`CLASSES`,
        counted from execution records only), ``duration_ms`` (``{"n", "median", "p95", "max"}`` over the execution
        records that carry one and the calls whose step times them, null when none), ``duration_from``
        (``{"execution_records", "tool_run", "call_to_result"}``: how many of ``n`` each gave; trial 32a F5, trial
        37b F4) and ``sessions`` (conversations using it)."""
        return {"calls": self.calls, "failed": self.failed, "refused": self.refused, "executions": self.executions,
                "failures": dict(self.classes), "duration_ms": durations(self.durations),
                "duration_from": {"execution_records": len(self.durations) - self.call_to_result - self.tool_run,
                                  "tool_run": self.tool_run, "call_to_result": self.call_to_result},
                "sessions": len(self.sessions)}


def durations(values: list[int]) -> dict | None:
    """``{"n", "median", "p95", "max"}`` of ``values`` (ms): the median (the mean of the two middle values, rounded
    half up, for an even count), the 95th percentile by nearest rank (the ``ceil(0.95 n)``-th smallest) and the
    largest; None for no value."""
    if not values:
        return None
    v = sorted(values)
    n = len(v)
    median = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2] + 1) // 2
    return {"n": n, "median": median, "p95": v[max(1, math.ceil(0.95 * n)) - 1], "max": v[-1]}


class ToolReport:
    """Tool use over the conversations given to :meth:`add`: per tool name and per MCP server (:class:`Tally`)."""

    def __init__(self, since: int | None = None, until: int | None = None):
        self.since, self.until = since, until
        self.tools: dict[str, Tally] = {}
        self.servers: dict[str, Tally] = {}
        self.total = Tally()
        self.conversations = 0
        #: tool use id -> the first conversation read that holds it (in the window): what :meth:`add` counts again in
        #: another one (``repeated``: those calls, ``repeated_ids``: their ids; trial 48d F4)
        self.holder: dict[str, str] = {}
        self.repeated = 0
        self.repeated_ids: set[str] = set()

    def _inside(self, ms: int | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if ms is None:
            return False
        return (self.since is None or ms >= self.since) and (self.until is None or ms <= self.until)

    def _tallies(self, name: str, server: str | None) -> Iterator[Tally]:
        yield self.tools.setdefault(name, Tally(server))
        if server:
            yield self.servers.setdefault(server, Tally(server))
        yield self.total

    def add(self, conversation: str, calls: list[dict], executions: list[dict]) -> None:
        """Count one conversation's ``calls`` and ``executions`` (:func:`~asz_core.view.document.conversation_tool_calls`); a call id or an
        execution record id counted before (a continued session repeating its records) is not counted again; with a
        window, only the calls and records made in it (by their own time; one with no time is left out). A call whose
        ``ms`` is a count (its tool run's own time, ``ms_from`` ``tool_run``, or its step's call to result) and that
        no execution record measured adds that duration (trial 32a F5, trial 37b F4)."""
        self.conversations += 1
        seen_calls: set[str] = set()
        seen_exec: set[str] = set()
        step_server: dict[str, str | None] = {}
        measured = {str(e.get("step") or "")[5:] for e in executions if str(e.get("step") or "").startswith("tool/")}
        for c in calls:
            step_server[c["id"]] = c["server"]
            if c["id"] in seen_calls or not self._inside(c["at"]):
                continue
            seen_calls.add(c["id"])
            if self.holder.setdefault(c["id"], conversation) != conversation:  # a copy's or a fork's call, or an id
                self.repeated += 1  # its runtime numbers per session: counted here all the same (docs/view.md)
                self.repeated_ids.add(c["id"])
            ms = c.get("ms")
            timed = isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0 and c["id"] not in measured
            for t in self._tallies(c["name"], c["server"]):
                t.calls += 1
                t.failed += c["failed"] is True
                t.refused += c.get("refused") is True
                t.sessions.add(conversation)
                if timed:
                    t.durations.append(ms)
                    if c.get("ms_from") == "tool_run":
                        t.tool_run += 1
                    else:
                        t.call_to_result += 1
        for e in executions:
            key = str(e.get("id") or "")
            if key in seen_exec or not self._inside(time_ms(e.get("time"))):
                continue
            seen_exec.add(key)
            name = str(e.get("tool_name") or "")
            step = str(e.get("step") or "")
            server = step_server.get(step.split("/", 1)[1]) if step.startswith("tool/") else None
            ms = e.get("duration_ms")
            outcome, failure = e.get("outcome"), e.get("failure")
            for t in self._tallies(name, server or mcp_server(name)):
                t.executions += 1
                if outcome == "interrupted":
                    t.classes["interrupted"] += 1
                elif outcome == "failed":
                    t.classes[failure if failure in t.classes else "unclassified"] += 1
                if isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0:
                    t.durations.append(ms)
                t.sessions.add(conversation)

    def rows(self, by: str = "tool") -> list[dict]:
        """Rows, most calls first (then most execution records, then by name): ``by`` ``tool`` →
        ``[{"tool", "server", …figures}]``, ``server`` → ``[{"server", …figures}]`` (:meth:`Tally.figures`)."""
        if by == "server":
            got = [{"server": k, **t.figures()} for k, t in self.servers.items()]
            key = "server"
        else:
            got = [{"tool": k, "server": t.server, **t.figures()} for k, t in self.tools.items()]
            key = "tool"
        return sorted(got, key=lambda r: (-r["calls"], -r["executions"], r[key]))


#: ``(storage root, conversation, withheld flags)`` -> ``(files key, what the conversation's read gave)``: each
#: conversation's tool calls as :func:`tool_calls` read them, kept in the process while the files a build reads are
#: unchanged (``/api/tools`` in asz view and asz server; trial 30c: every request read every conversation again).
_KEPT: dict[tuple, tuple] = {}
_KEPT_LOCK = threading.Lock()


def files_now(root: str | os.PathLike, conversation: str) -> tuple:
    """What a read of ``conversation``'s tool calls depends on: :func:`~asz_core.view.depends.files_key` of it and the
    session its head round names (the page's caches and ``/api/usage``'s buckets compare the same keys), with the
    symbolic links met. Never raises for a file gone meanwhile."""
    from ..view.depends import files_key
    from ..view.rows import read_head

    head = read_head(root, conversation)
    session = (head.header or {}).get("session") if head else None
    key = files_key(root, conversation, session if isinstance(session, str) else "")
    return key.keys, key.links


def tool_calls(root: str | os.PathLike, conversation: str, hide: Sequence[str], keep: bool = False, cache=None):
    """``(state, calls, executions)`` of :func:`~asz_core.view.document.conversation_tool_calls`, or the
    :class:`~asz_core.view.chain.ViewError` a conversation that does not read raises, as the value. With ``keep``
    the answer is kept (:data:`_KEPT`) and given again while :func:`files_now` is unchanged: a round added, a landed
    file changed, added, removed or retention's skeleton reads it again. With ``cache`` (a
    :class:`~asz_core.reading.tool_cache.ToolCache`), the entry it keeps for the files as they are is the answer, and
    one read is kept there (trial 40a F5). KeyboardInterrupt passes through."""
    from ..view.chain import ViewError
    from ..view.document import conversation_tool_calls

    key = (os.path.realpath(root), conversation, tuple(sorted(hide)))
    now = files_now(root, conversation) if keep else None
    if keep:
        with _KEPT_LOCK:
            got = _KEPT.get(key)
        if got is not None and got[0] == now:
            return got[1]
    fp, value = cache.get(conversation, hide) if cache is not None else ("", None)
    if value is None:
        try:
            value = conversation_tool_calls(root, conversation, list(hide))
        except ViewError as exc:
            value = exc
        if cache is not None and not isinstance(value, Exception):
            cache.put(conversation, hide, fp, value)
    if keep:
        with _KEPT_LOCK:
            _KEPT[key] = (now, value)
    return value


def count_tools(root: str | os.PathLike, ids: Iterable[str], hide: Iterable[str] = (),
                window: tuple[int | None, int | None] = (None, None), keep: bool = False) -> tuple[ToolReport, list[dict]]:
    """``(report, held)``: the :class:`ToolReport` of conversations ``ids`` of ``root`` (in id order; with a
    ``(since, until)`` unix ms ``window``, the calls and records made in it), and those held back, in no figure:
    ``[{"conversation", "state", "calls", "executions"}]`` for one that does not verify (``incomplete``,
    ``mismatch``), ``{"conversation", "state": "unreadable", "why"}`` for one that does not read. ``keep``: each
    conversation's read kept in the process while its files are unchanged (:func:`tool_calls`; a server). Either way
    the entry the root's summary store keeps for the files as they are is read first (the one a collect or a server's
    pass kept, :mod:`asz_core.reading.kept_whole`), and a conversation read is kept there for the next run
    (:mod:`asz_core.reading.tool_cache`; trial 48b F3: a server's first ``/api/tools`` read every conversation's files,
    25 s over 295 MB, beside the 410 entries the collect had kept). KeyboardInterrupt passes through."""
    from .tool_cache import ToolCache

    report, held, hide = ToolReport(*window), [], list(hide)
    cache = ToolCache(root)
    try:
        got_all = [(cid, tool_calls(root, cid, hide, keep, cache)) for cid in sorted(ids)]
    finally:
        cache.close()
    for cid, got in got_all:
        if isinstance(got, Exception):
            held.append({"conversation": cid, "state": "unreadable", "why": str(got)})
            continue
        state, calls, executions = got
        if state != "verified":
            held.append({"conversation": cid, "state": state, "calls": len(calls), "executions": len(executions)})
            continue
        report.add(cid, calls, executions)
    return report, held


def report_dict(report: ToolReport, held: list[dict], by_name: bool = True) -> dict:
    """``asz usage tools --json``'s object and ``/api/tools``' answer: ``{"tools", "servers", "total",
    "conversations", "held_back", "repeated_ids"}``, the rows by name (``by_name``) or most calls first;
    ``repeated_ids``: ``{"calls", "ids"}``, how many of the calls counted carry a tool use id a conversation read
    before holds too (a copied or forked session's, counted in each conversation holding it) and how many such ids
    (trial 48d F4)."""
    tools, servers = report.rows("tool"), report.rows("server")
    if by_name:
        tools.sort(key=lambda r: r["tool"])
        servers.sort(key=lambda r: r["server"])
    return {"tools": tools, "servers": servers, "total": report.total.figures(), "conversations": report.conversations,
            "held_back": held, "repeated_ids": {"calls": report.repeated, "ids": len(report.repeated_ids)}}


#: ``/api/tools``' parameters (``conversation`` may come again).
API_PARAMS = ("project", "dialect", "instance", "since", "until", "tz", "conversation", "sort")


def answer(root: Path, pairs: Sequence[tuple[str, str]], hide: Sequence[str], error: type) -> dict:
    """``/api/tools``: :func:`report_dict` of the conversations ``project``, ``dialect``, ``instance`` (in a root asz
    receive landed: those an instance id or credential name holding it sent, ``asz usage tools --instance``'s and
    ``/api/usage``'s rule; none in another root), ``since``, ``until`` (with ``tz``: ``/api/conversations``' reading
    of them) keep, or of each ``conversation`` given (an id or a unique prefix; again for more), ``sort`` ``calls`` for
    most used first; ``asz usage tools --json``'s figures. Each conversation's calls are read once and kept while its
    files are unchanged (:func:`tool_calls`), so a request reads only what changed since the last. ``error(status,
    message)`` for a refusal: 400 a parameter not known or given twice, a time or zone that does not read, an
    ambiguous id; 404 an unknown id; 503 no storage root."""
    from ..view.query import known_params, query_window
    from ..view.row_filters import unknown_dialect
    from .ids import IdError, conversation_id
    from .listing import Filters, conversation_rows

    got = known_params(pairs, API_PARAMS, repeat=("conversation",))
    if got.get("sort", "default") not in ("default", "calls"):
        raise error(400, "sort is default or calls")
    if why := unknown_dialect(got.get("dialect", ""), root):
        raise error(400, f"dialect: {why}", None, "unknown_dialect")
    _zone, since, until = query_window(got)
    if not Path(root).is_dir():
        raise error(503, f"the storage root {root} is gone")
    try:
        ids = sorted({conversation_id(root, v) for k, v in pairs if k == "conversation"})
    except IdError as exc:
        raise error(400 if exc.exit_code == 2 else 404, str(exc), None,
                    "ambiguous_id" if exc.exit_code == 2 else "unknown_id") from None
    ids = ids or list_conversations(root)
    if got.get("instance"):
        from .search_hits import sent_by

        sent = set(sent_by(Path(root), got["instance"]))
        ids = [i for i in ids if i in sent]
    if got.get("project") or got.get("dialect") or since is not None or until is not None:
        f = Filters(project=got.get("project", ""), dialect=got.get("dialect", ""), since=since, until=until)
        ids = [r["id"] for r in conversation_rows(root, hide, f, ids=ids)]
    return report_dict(*count_tools(root, ids, hide, (since, until), keep=True),
                       by_name=got.get("sort", "default") == "default")
