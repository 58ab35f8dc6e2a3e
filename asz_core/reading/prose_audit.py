"""``asz export --format prose --audit``: the prose of seed 003 with what an audit model needs beside it (trial 17b).

The default prose is seed 003's rule applied exactly (:mod:`asz_core.reading.prose`); an audit model that reads
only the file cannot tell from it who wrote a ``user`` line, what the agent ran, or what the rule left out. The
audit form keeps every line of the default, byte for byte in its keys and values, and adds:

- ``kind`` on every line, from the record's flags as search reads them
  (:func:`~asz_core.reading.search_hits.text_kind`) and the adapter's reading of its runtime's markup
  (:func:`~asz_core.view.titles.prompt_blocks`): :data:`KINDS`;
- the person turns the rule drops because their content was a list (a record flagged ``external_input`` whose parts
  are text and media): its text parts joined with a newline, a media part as ``[image: image/png, 1,046,384
  bytes]``; kind ``prompt_blocks``, or ``interrupt`` for the runtime's interrupt notice (the adapter's
  :meth:`~asz_core.plugins.adapter.Adapter.fixed_notice`: Claude Code's fixed wording, no field marks it);
- one line per tool call (kind ``tool_call``): ``tool`` (its name), ``text`` ``NAME: SUMMARY`` (what the adapter
  says the call acts on, :meth:`~asz_core.plugins.adapter.Adapter.call_gist`: Kiro's ``write: create /w/notes.md``;
  else the input's first field of :data:`INPUT_FIELDS`, else a flat input as ``key: value`` pairs, else the input as JSON; at most :data:`INPUT_CHARS`
  characters, cut with ``…``, its credentials masked before the cut (trial 25b F2); an input not in the root says so as a turn does, ``Glob: [removed by retention: 58
  bytes]``, :func:`~asz_core.reading.export_steps.part_marker`: trial 19, F16), and ``status`` from its result: ``ok``, ``error`` (the result is flagged failed), ``refused`` (the
  runtime's result for a call the person rejected, ``fixed_notice``), ``interrupted`` (the result's data says
  ``interrupted: true``) or
  ``no_result`` (with ``--in-range-only``: ``no_result_in_window`` when no record inside the window holds its result,
  :data:`NO_RESULT_IN_WINDOW`, and the window its result lands in gets a line of kind ``tool_result``:
  :func:`_answered_late`, render 14); a result's text is never carried;
- a sub-agent's prompt when its own records hold none (Claude Code 2.0.x's ``agent-<id>.jsonl``): what the call that
  started it asked, whole, as the page and ``md`` read it (:func:`~asz_core.view.placing.call_prompts`, the
  adapter's ``child_prompt``: the ``Task``'s ``prompt``), kind ``subagent_prompt``, first in the sub-agent's stream,
  with the call's record's ``ts``, ``file`` and ``row`` (:meth:`Audit.ask`);
- kind ``notification`` for a line whose record the runtime's notification started (``trigger`` ``notification``,
  origin-digest §5.1: Claude Code's ``<task-notification>`` of a background task), not ``text``;
- context the runtime injected as a list of text parts (flag ``injected``, Claude Code's ``isMeta`` list holding a
  skill's body): its text parts joined with a newline, kind ``injected``, as an injected string is;
- a compaction's boundary (flag ``context_reset``) as a line of kind ``compaction`` (the adapter's short form:
  ``auto, 167,731 tokens before``);
- a runtime's notice with text (flag ``notice``: Kiro's tool approvals asked and answered and its context usage, a
  LangGraph ``interrupt()``) as a line of kind ``notice``, its text parts joined with a newline (trial 29c, F3), a
  text retention took said by its marker (the skeleton keeps the flag: the pruned root gives the same line);
- ``in_range`` (true or false) on every line when a ``--since``/``--until`` window is given; a line with no time of
  its own is placed by its conversation's recorded range (:func:`place_timeless`, as ``asz search`` places a hit),
  null only when that range crosses an end of the window or is not known;
- one header line per conversation before its turns (:func:`header_line`).

Streams are interleaved by time (each stream keeps its file order; a line with no time keeps the time before it),
so a subagent's lines follow the tool call that started it. A line's time and its place in a window are
:mod:`asz_core.reading.prose_times`' (re-exported here).
"""

from __future__ import annotations

import heapq
import re
from typing import Any, Callable, Iterable, Optional, Sequence


from ..sessiondata.model import Header, is_member_part
from ..sessiondata.times import parse_instant
from ..view.rate_words import LOST, removed_rest
from ..view.placing import INPUT_FIELDS, PAIRS, call_prompts, call_summary, folded_at, one_line, position, walk
from ..view.secret_forms import found_in, masked_cut
from ..view.step_words import fixed_notice
from ..view.titles import prompt_blocks, record_line
from ..view.usage_report import ms_in_window
from .audit_errors import ERROR_BYTES, ERROR_KINDS, drawing_errors, late_results_drawn, error_kinds, error_line, error_text, error_words, result_error
from .export_render import SUBAGENT_RENDER, drawn, notices_read
from .export_tools import gist_pairs
from .head_said import head_said
from .export_steps import UNREAD_MARK, media_line, part_marker
from .prose_relayed import relayed_parts
from .prose_times import instant, mark_in_range, place_by_turns, place_timeless, placed, record_of, timed, turn_at
from .search_hits import text_kind

__all__ = ["CONTENT_KEYS", "ERROR_BYTES", "ERROR_KINDS", "INPUT_CHARS", "INPUT_FIELDS", "KINDS", "NOT_COVERED", "NO_RESULT_IN_WINDOW", "Audit", "coverage", "fixed_notice", "header_line", "instant",
           "error_text", "mark_in_range", "masked_lines", "place_by_turns", "place_timeless", "placed", "record_of", "removed_text", "turn_at"]

#: The kinds a line of the audit form can have.
KINDS = ("conversation", "prompt", "prompt_blocks", "interrupt", "command", "command_output", "injected",
         "subagent_prompt", "compaction_summary", "compaction", "notice", "notification", "text", "reply", "thinking", "thinking_note", "reply_and_thinking",
         "tool_call", "tool_execution", "tool_result", "removed", "api_error", "run_failed")
#: At most this many characters of a tool call's input summary.
INPUT_CHARS = 200
#: The keys of a tool call's input that carry file contents, which its line (the path it acts on) leaves out: an
#: editing call's old and new strings (:data:`~asz_core.view.placing.PAIRS`), a MultiEdit's ``edits``, a write's
#: ``content`` (Claude Code's Write, Kiro's ``write``) or ``file_text``, a NotebookEdit's ``new_source``; a call whose
#: input holds one is counted in ``left_out`` as ``edit_contents`` (trial 25b F7).
CONTENT_KEYS = (*(k for pair in PAIRS for k in pair), "edits", "content", "file_text", "new_source")


def _companions_named(rec: dict) -> list[str]:
    """The companion files (``tool-results/….txt``) ``rec``'s ``dropped`` names (docs/session-data.md, Dropped)."""
    from ..sessiondata.model import companion_path

    got = (companion_path(x.get("what")) if isinstance(x, dict) else None for x in rec.get("dropped") or ())
    return [p for p in got if p]


def _relayed_named(rec: dict, dialect: str) -> list[tuple[str, dict]]:
    """``[(llm.call node id, copy)]`` of the sub-agent reply ``rec`` copies (its adapter's ``relayed_calls``: a Claude
    Code ``progress`` record; :mod:`asz_core.view.usage_relayed`), ``[]`` for any other record (nearly all: only a
    record naming no call and holding one part is asked about)."""
    parts = rec.get("parts")
    if rec.get("call") or not dialect or not isinstance(parts, list) or len(parts) != 1:
        return []
    from ..flow.model import kind_id
    from ..view.titles import ask_adapter

    got = ask_adapter(dialect, "relayed_calls", [rec])
    return [(kind_id("call", c["call"]), c) for _row, c in got if isinstance(c, dict) and isinstance(c.get("call"), str)
            and c["call"]] if isinstance(got, list) else []


def _named(rec: dict, dialect: str) -> tuple[list[str], list[tuple[str, dict]]]:
    """The companion files ``rec`` names and the sub-agent calls it copies (:meth:`Audit._add` keeps them)."""
    return _companions_named(rec), _relayed_named(rec, dialect)


def removed_text(rec: dict) -> bool:
    """Whether retention took the text of ``rec`` (a skeleton's record: a text or media part says ``state``
    ``removed``, docs/push.md): a person turn's kind (a typed prompt or a command, an interrupt notice or a list of
    parts, command output) is read from its text, so the audit says ``removed`` rather than guess (trial 27b F2: after
    ``asz prune`` 73 commands and 43 interrupt notices of a day read as typed prompts). A part that kept its text, the
    runtime's fixed wording (:meth:`asz_core.Adapter.fixed_wording`: an interrupt notice; trial 47a F2), is read."""
    return any(isinstance(p, dict) and p.get("state") == "removed" and p.get("k") in ("text", "media") and not p.get("text")
               for p in rec.get("parts") or ())



#: ``--in-range-only``: the ``status`` of a tool call made in the window whose result no record inside the window
#: holds (it lies after the window's end, or has not landed, or never will): the file is read from the window's
#: records only, so a closed day's file does not change when the result lands (trial 27b F1, recheck 27).
NO_RESULT_IN_WINDOW = "no_result_in_window"


def _ms(rec: dict) -> Optional[int]:
    """A record's own time in unix ms, or None."""
    ns = parse_instant(rec.get("time"))
    return None if ns is None else ns // 1_000_000


def _call_status(audit: "Audit", got: Optional[tuple]) -> str:
    """A tool call's ``status`` from ``got``, its result's entry of ``audit.results`` (None: no result). With
    ``--in-range-only`` (``audit.only`` and its window): :data:`NO_RESULT_IN_WINDOW` unless the result's record lies in
    the window, by its time or, with none, where ``audit.turn_at`` placed it: a closed day's file never changes."""
    if audit.only and audit.window is not None:
        at = None if got is None else got[2] if got[2] is not None else audit.turn_at.get(got[3])
        if at is None or not ms_in_window(at, *audit.window):
            return NO_RESULT_IN_WINDOW
    return _status(*(got[:2] if got is not None else (None, "")))


def _status(result: Optional[dict], dialect: str) -> str:
    """A tool call's ``status`` from its result part of ``dialect`` (module docstring)."""
    if result is None:
        return "no_result"
    data = result.get("data")
    if isinstance(data, dict) and data.get("interrupted") is True:
        return "interrupted"
    text = result.get("text") or (data if isinstance(data, str) else "")
    if isinstance(text, str) and fixed_notice(text, dialect) == "refused":
        return "refused"
    return "error" if result.get("failed") is True else "ok"


def reason_removed(n: int) -> str:
    """A refused call's ``reason`` when retention took the person's reason for the rejection after the runtime's
    fixed answer its skeleton keeps (:func:`~asz_core.view.rate_words.removed_rest`; trial 47a F1's other half):
    ``98 bytes, removed by retention``, the text form's ``reason:`` line (the last of its call's block,
    :data:`REASON_GONE`)."""
    return f"{n:,} bytes, {LOST['removed']}"


#: The text form's ``reason:`` line of :func:`reason_removed`, at the end of its call's block (the text a copy made
#: before ``asz prune`` lacks: :func:`~asz_core.reading.export_retention.text_removed`).
REASON_GONE = re.compile(rb"\nreason: [0-9,]+ bytes, " + re.escape(LOST["removed"].encode()) + rb"\Z")


def execution_audit_line(conversation: str, files: dict[int, str], e: dict, said: str) -> dict:
    """The line of an execution record ``e`` of ``conversation`` joined to no tool call: ``tool`` (the tool's name),
    ``text`` ``NAME: `` and what md says of it (``said``), ``status`` from its outcome (``ok`` returned, ``error``
    failed, else ``unknown``), ``ts`` its time, ``file`` and ``row`` its landed record (``files``: landed seq -> the
    file's path under the root, :attr:`Audit.files`), stream ``executions``."""
    ref = e.get("ref") if isinstance(e.get("ref"), dict) else {}
    name = str(e.get("tool_name") or "")
    return {"conversation": conversation, "stream": "executions", "role": "tool", "ts": e.get("time") or "",
            "text": f"{name}: {said}" if name else said, "file": files.get(ref.get("seq"), ""),
            "row": ref.get("row"), "kind": "tool_execution", "tool": name,
            "status": {"returned": "ok", "failed": "error"}.get(str(e.get("outcome")), "unknown")}


class Audit:
    """The audit form of one conversation's prose: :meth:`lines` per record, :meth:`arrange` once, then
    :meth:`header`. ``window`` is ``(since, until)`` in unix ms (either None) or None for no window; with ``only``
    (``--in-range-only``) ``left_out`` counts only what the records inside the window left out (:meth:`_placed`).
    With ``mask`` (``--redact``, the default) a tool call's summary is masked before it is cut
    (:func:`~asz_core.view.secret_forms.masked_cut`), and its line carries the fingerprints of what it masked as
    ``_gone`` (taken off and counted where the line is written: ``asz_core.cli.export_cmd``)."""

    def __init__(self, conversation: str, thinking: bool = False, window: Optional[tuple[Optional[int], Optional[int]]] = None, only: bool = False, mask: bool = False):
        self.conversation, self.thinking, self.window, self.only, self.mask = conversation, thinking, window, only, mask
        #: the fingerprint of each credential a part the form leaves out held (one per place): a tool result, the
        #: part of a tool input its line does not carry, thinking without ``--thinking``, a withheld record, a record
        #: that gave no line (:func:`~asz_core.view.secret_forms.found_in`; the header's ``credentials``)
        self.unwritten: list[str] = []
        self.calls: list[dict] = []
        self.results: dict[str, tuple] = {}  # call id -> (result part, dialect, its record's ms or None, record_of key)
        self.called: dict[tuple[int, int], tuple[dict, str, int]] = {}  # (seq, row) -> (record with calls, file, row)
        self.dialect = ""
        #: :func:`turn_at` of the conversation's document, set by :meth:`ask`
        self.turn_at: dict[tuple[int, int], int] = {}
        #: what the form does not carry, by what: the header's ``left_out``
        self.left_out = {"tool_results": 0, "tool_inputs_cut": 0, "edit_contents": 0, "thinking": 0, "withheld": 0, "other_records": 0, "tool_executions": 0}
        #: ``--in-range-only``: the records with no time of their own not placed yet, per stream, each ``((seq, row),
        #: what it leaves out, the credentials it held, what it names: :func:`_named`)``, placed by :meth:`place_untimed`
        self._untimed: dict[str, list[tuple[tuple, dict, list, tuple]]] = {}
        #: ``(seq, row) -> unix ms``: each record with no time of its own placed at the next record of its stream that
        #: has one (:meth:`place_untimed`; docs/reading.md, "A record with no time of its own")
        self.next_at: dict[tuple, int] = {}
        #: the companion files the records counted name (``--in-range-only``: the window's; :func:`window_head`)
        self.companions: set[str] = set()
        self.relayed: dict[str, dict] = {}  #: the sub-agent calls the window's records copy (_relayed_named, window_head)
        self.relayed_tools: frozenset[str] = frozenset()  #: tool calls drawn from copies alone (prose_relayed; set by prose)
        #: ``--in-range-only``: the header's title (:func:`window_title`), set where the lines are placed
        self.title: Optional[str] = None
        #: the lines of the execution records joined to no tool call (:meth:`_executed`), by time; ``files``: landed
        #: seq -> the file's path under the root (set by the caller: ``asz_core.reading.prose.prose_turns``)
        self.unjoined: list[dict] = []
        self.files: dict[int, str] = {}
        self.replied: set[str] = set()  #: sub-agents' streams a reply was read in so far: a later line is no prompt (render 27)

    def withhold(self, rec: dict, stream: str = "main", file: str = "", row: int = 0) -> None:
        """Count a record a ``view.hide`` flag leaves out (``rec``, placed as :meth:`lines` places it) and its credentials."""
        def count() -> None:
            self.left_out["withheld"] += 1
            self.unwritten += found_in(rec.get("parts"))

        self._placed(stream, file, row, rec, count)

    def _placed(self, stream: str, file: str, row: int, rec: dict, count: Callable[[], Any]) -> Any:
        """``count()``'s result, what it added to ``left_out``, :attr:`unwritten` and :attr:`companions` kept when the
        record ``rec`` lies in the window. Without ``--in-range-only`` every record counts. With it a record whose
        time lies outside the window gives no line (those before it are counted under ``before_window``), so the header
        of a past day does not change when the conversation goes on later (trial 22a, F6); a record with no time of
        its own is held until :meth:`place_untimed` places it (trial 27b F1: one written on a later day was counted in
        every window)."""
        if not self.only or self.window is None:
            self._companions_of(rec)
            return count()
        left, gone = dict(self.left_out), len(self.unwritten)
        got = count()
        delta = {k: v - left.get(k, 0) for k, v in self.left_out.items() if v != left.get(k, 0)}
        taken = self.unwritten[gone:]
        self.left_out.update(left)
        del self.unwritten[gone:]
        ns = parse_instant(rec.get("time"))
        if ns is None:
            key = record_of({"file": file, "row": row})
            self._untimed.setdefault(stream, []).append((key, delta, taken, _named(rec, self.dialect)))
            return got
        self._settle(stream, ns // 1_000_000)
        if ms_in_window(ns // 1_000_000, *self.window):
            self._add(delta, taken, _named(rec, self.dialect))
        return got

    def _add(self, delta: dict, taken: list, named: tuple[list[str], list[tuple[str, dict]]]) -> None:
        for k, v in delta.items():
            self.left_out[k] = self.left_out.get(k, 0) + v
        self.unwritten += taken
        self.companions.update(named[0])
        self.relayed.update(named[1])

    def _companions_of(self, rec: dict) -> None:
        self.companions.update(_companions_named(rec))

    def _settle(self, stream: str, ms: Optional[int]) -> None:
        """Place the records of ``stream`` held with no time of their own at ``ms`` (the next record's time; None: no
        such record yet, left for :meth:`place_untimed`)."""
        for key, delta, taken, named in self._untimed.pop(stream, []) if ms is not None else ():
            self.next_at[key] = ms
            if ms_in_window(ms, *self.window):
                self._add(delta, taken, named)

    def place_untimed(self, turn_ends: dict) -> None:
        """Place each record still held (:meth:`_placed`) at its turn's recorded end (``turn_ends``: :func:`turn_at`),
        else at the next held record's so placed (Kiro's tool results between replies: trial 35b F2), else held (none
        yet: in no window until one lands). docs/reading.md ("A record with no time of its own")."""
        for stream, held in list(self._untimed.items()):
            keep, after = [], None
            for item in reversed(held):
                after = turn_ends.get(item[0], after)
                if after is None:
                    keep.append(item)
                    continue
                self.next_at[item[0]] = after
                if ms_in_window(after, *self.window):
                    self._add(*item[1:])
            self._untimed[stream] = keep[::-1]

    def lines(self, header: Header, stream: str, file: str, row: int, rec: dict, line: Optional[dict]) -> list[dict]:
        """The audit lines of one record: ``line`` (the default's, or None) with its ``kind``, else a person's list
        turn or an injected list of text parts, then one line per tool call; a compaction boundary's line. What it
        leaves out is counted as :meth:`_placed` places it."""
        return self._placed(stream, file, row, rec, lambda: self._lines(header, stream, file, row, rec, line))

    def _lines(self, header: Header, stream: str, file: str, row: int, rec: dict, line: Optional[dict]) -> list[dict]:
        """:meth:`lines` with every left-out part counted (``n`` 1)."""
        base = {"conversation": self.conversation, "stream": stream, "role": "", "ts": rec.get("time", ""),
                "text": "", "file": file, "row": row}
        parts = [p for p in rec.get("parts") or () if isinstance(p, dict) and not is_member_part(p)]  # a member: no content
        parts += relayed_parts(rec, header.dialect, self.relayed_tools) if self.relayed_tools else []  # fix50a
        flags = rec.get("flags") or ()
        out, n = [], 1
        if line is not None:
            line["kind"] = self._kind(header, stream, rec, line)
            out.append(line)
        elif rec.get("from") == "external" and ("external_input" in flags or "notice" in flags and notices_read()) \
                and parts and all(p.get("k") in ("text", "media") for p in parts):  # notice: an interrupt (43c F1)
            text = "\n".join((p.get("text") or part_marker(p)) if p.get("k") == "text" else
                             media_line({"mime": p.get("media"), "bytes": p.get("bytes"), "state": p.get("state")})
                             for p in parts)
            notice = fixed_notice(text, header.dialect) == "interrupt"
            kind = "removed" if removed_text(rec) else "interrupt" if notice else "prompt_blocks"
            out.append({**base, "role": "user", "text": text, "kind": kind})
        elif rec.get("from") == "external" and "injected" in flags and parts and all(p.get("k") == "text" for p in parts):
            out.append({**base, "role": "user", "text": "\n".join(p.get("text") or part_marker(p) for p in parts),
                        "kind": "injected"})
        elif (said := _system_line(rec, parts, flags, header.dialect)) is not None:
            out.append({**base, "role": "system", **said})
        if "error" in flags and drawing_errors():  # an error step (error.api): what failed and its text (37b F5)
            out.append(error_line(base, parts, self.mask, self.unwritten))
        self.dialect = self.dialect or header.dialect
        for p in parts:
            k = p.get("k")
            if k == "call":
                self.called[(header.seq, row)] = (rec, file, row)
                call = {**base, "role": "assistant", "text": "", "kind": "tool_call", "tool": p.get("name", ""),
                        "status": "no_result", "_id": p.get("id")}
                call["text"] = f"{p.get('name', '')}: {self._summary(header.dialect, p, call, n)}"
                self.calls.append(call)
                out.append(call)
            elif k == "result":
                self.left_out["tool_results"] += n
                error, unwritten = result_error(p, _status(p, header.dialect), self.mask, rec)  # a failed call's error (37b F5)
                self.unwritten += unwritten if n else []
                if isinstance(p.get("of"), str):
                    self.results[p["of"]] = (p, header.dialect, _ms(rec), record_of({"file": file, "row": row}), error,
                                             (rec.get("time") or "", file, row))
            elif k == "reasoning" and not self.thinking:
                self.left_out["thinking"] += n
                self.unwritten += found_in(p.get("text")) if n else []
        if not out and not any(p.get("k") == "result" for p in parts):
            self.left_out["other_records"] += n
            self.unwritten += found_in(parts) if n else []
        return out

    def _summary(self, dialect: str, p: dict, call: dict, n: int) -> str:
        """A tool call part ``p``'s summary (module docstring), masked before it is cut at :data:`INPUT_CHARS`
        with ``mask``, else cut as it is (``call["_gone"]``: the fingerprints of the credentials its line shows, a
        cut one by its whole value, which :func:`masked_lines` counts instead of its text); ``left_out`` counts a cut input and one whose
        file contents (:data:`CONTENT_KEYS`) the line leaves out, and :attr:`unwritten` the credentials of the input
        the line does not carry (``n``: 1, the record's left-out parts counted; :meth:`_placed` keeps them or not)."""
        data = p.get("data") if p.get("data") is not None else p.get("text")
        if data in (None, ""):
            return part_marker(p)  # a skeleton's call: its input went (trial 19, F16)
        full = call_summary(dialect, p.get("name", ""), data, 1 << 62, gist_pairs())[0]  # whole: cut below, once masked
        cut = [False]

        def cutter(text: str) -> str:
            text, cut[0] = one_line(text, INPUT_CHARS)
            return text

        text, written, away = masked_cut(full, cutter, self.mask, folded_at)  # written whole with --no-redact
        call["_gone"] = written  # counted here, by each credential's whole value (a cut one is one, not a piece)
        self.left_out["tool_inputs_cut"] += cut[0] * n
        self.left_out["edit_contents"] += n * (isinstance(data, dict) and any(data.get(k) for k in CONTENT_KEYS))
        if n:  # what the whole input holds beyond what its line says, and what the cut took away
            said = set(found_in(full))
            self.unwritten += [m for m in found_in(data) if m not in said] + away
        return text

    def _kind(self, header: Header, stream: str, rec: dict, line: dict) -> str:
        """The kind of a line the default form keeps (module docstring)."""
        if line["role"] == "assistant":
            self.replied.add(stream)
            ks = {p.get("k") for p in rec.get("parts") or () if isinstance(p, dict) and (p.get("text") or p.get("state"))}
            if "reasoning" in ks and self.thinking:
                if line.get("text") == UNREAD_MARK:  # the note on thinking with no text, not a thought (trial 31b F9)
                    return "thinking_note"
                return "reply_and_thinking" if "text" in ks else "thinking"
            return "reply"
        kind = text_kind(rec)
        if kind == "summary":
            return "compaction_summary"
        if rec.get("trigger") == "notification":  # a runtime's notification (Claude Code's <task-notification>)
            return "notification"
        if kind == "context":
            return "injected"
        if removed_text(rec):  # what the kind is read from went (trial 27b F2: never a wrong label)
            return "removed"
        blocks = {b for b, _ in prompt_blocks(line["text"], header.dialect)}
        if kind == "prompt":
            return "command" if "command" in blocks else "prompt"
        if blocks and blocks <= {"stdout", "stderr"}:
            return "command_output"
        later = stream in self.replied and drawn() >= SUBAGENT_RENDER  # after a sub-agent's reply: not what it was asked (45b F4)
        return "subagent_prompt" if stream != "main" and not later or rec.get("sidechain") is True else "text"

    def ask(self, doc: dict, by_stream: dict[str, list[dict]]) -> None:
        """Put first in ``by_stream`` (stream name -> its lines) a ``subagent_prompt`` line for each sub-agent of
        ``doc`` (the conversation's asz.view document) whose own records hold no prompt: what the call that started
        it asked (:func:`~asz_core.view.placing.call_prompts`, read from the records :meth:`lines` saw), with that
        call's record's ``ts``, ``file`` and ``row`` (module docstring). Call after every record, before
        :meth:`arrange`."""
        def record(ref: dict) -> Optional[dict]:
            return self.called.get((ref.get("seq"), ref.get("row")), (None,))[0]

        error_kinds(doc, by_stream)
        ends = turn_at(doc)
        if self.only and self.window is not None:
            self.place_untimed(ends)
        self.turn_at = {**self.next_at, **ends}
        self._executed(doc)
        talks = {t["id"]: t for t in doc.get("talks") or () if isinstance(t, dict) and t.get("id")}
        nodes = {n["id"]: n for n in walk(talks.values()) if n.get("id")}
        for tid, said in call_prompts(doc, self.dialect, record, removed=part_marker).items():
            _, seq, row, _ = position(nodes[said["from"]])
            rec, file, row = self.called[(seq, row)]
            stream = talks[tid].get("stream") or ""
            if said["text"].startswith("[removed by retention") and any(
                    x.get("role") == "user" for x in by_stream.get(stream, ())):  # its own prompt's text went: that line
                continue
            by_stream.setdefault(stream, []).insert(0, {
                "conversation": self.conversation, "stream": stream, "role": "user", "ts": rec.get("time", ""),
                "text": said["text"], "file": file, "row": row, "kind": "subagent_prompt"})

    def _executed(self, doc: dict) -> None:
        """The execution records of ``doc`` (its ``tool_executions``: ``asz hook``'s, docs/claude-code-hooks.md): on
        the line of the tool call each is joined to, ``executed``, what md says at the step
        (:func:`~asz_core.reading.export_blocks.execution_line`: its server, outcome and how it failed, ``failed
        (transport: …)``, duration); one joined to no call (no transcript holds it: a session of hook records alone,
        or a call whose transcript has not landed) a line of its own, kind ``tool_execution`` (:func:`execution_audit_line`;
        trial 27b F7: such a session had no line, so ``--in-range-only`` left it out of its day, and its failure was
        said nowhere)."""
        from .export_blocks import execution_line

        calls = {c.get("_id"): c for c in self.calls if c.get("_id")}
        for e in doc.get("tool_executions") or ():
            call = calls.get(e.get("tool")) if e.get("step") else None
            if call is not None:
                call.setdefault("executed", []).append(execution_line(e))
            else:
                self.unjoined.append(execution_audit_line(self.conversation, self.files, e, execution_line(e)))
        self.unjoined.sort(key=lambda x: parse_instant(x["ts"]) or 0)

    def arrange(self, streams: Sequence[list[dict]]) -> list[dict]:
        """The streams' lines interleaved by time, each stream in its own order; each tool call's ``status`` set from
        its result, and ``in_range`` on every line when there is a window."""
        late = _answered_late(self)
        for call in self.calls:
            got = self.results.get(call.pop("_id", None) or "")
            call["status"] = _call_status(self, got)
            _result_said(call, got)
        keyed = [list(timed(lines, i)) for i, lines in enumerate([*streams, self.unjoined, late])]
        got = [line for _, _, _, line in heapq.merge(*keyed)]
        if self.window is not None:
            mark_in_range(got, self.window)
        return got

    def header(self, row: Optional[dict], lines: Sequence[dict], problems: Iterable[str], figures: Optional[dict] = None,
               written: Sequence[str] = ()) -> dict:
        """:func:`header_line` of this conversation, with ``figures`` (its calls, tokens, cost, credits and those in
        the window: :func:`~asz_core.reading.audit_usage.usage_figures`) after ``left_out``, then ``credentials``
        (:meth:`credentials` of ``written``, the fingerprints of those its lines hold)."""
        head = header_line(self.conversation, row, lines, [*problems], self.left_out) | (figures or {})
        head["credentials"] = self.credentials(written)
        if self.window is not None:  # the window in_range is read against
            head["window"] = [instant(self.window[0]), instant(self.window[1])]
        return head


    def credentials(self, written: Sequence[str]) -> dict:
        """The header's ``credentials`` (trial 25b F7: an audit model could not tell that parts left out held some):
        ``masked`` (whether the lines' were masked: ``--redact``, the default, or written whole: ``--no-redact``),
        ``written`` (``places`` and distinct ``credentials`` in the lines, ``written``: their fingerprints), and
        ``left_out``: ``places`` and distinct ``credentials`` found in the parts the form leaves out (tool results,
        the part of a tool input its line does not carry, thinking, withheld and other records; :attr:`unwritten`)
        and ``not_written``, how many of those stand in no line: found, never written; then :func:`coverage`."""
        said, left, n = set(written), set(self.unwritten), len(self.unwritten)
        return {"masked": self.mask, "written": {"places": len(written), "credentials": len(said)},
                "left_out": {"places": n, "credentials": len(left), "not_written": len(left - said)}, **coverage()}


def _result_said(line: dict, got: Optional[tuple]) -> None:
    """A tool call's (or a late result's) line's ``error`` when its result failed (its text bounded, 37b F5), or its
    ``reason`` when it was refused and retention took the person's reason for it (:func:`reason_removed`); ``got``:
    its result's entry of ``Audit.results`` (None: no result)."""
    if got is not None and line["status"] == "error" and got[4] is not None:
        error = dict(got[4])
        line["_gone"] = [*line.get("_gone", ()), *error.pop("_gone")]
        line["error"] = error
    elif got is not None and line["status"] == "refused" and (n := removed_rest(got[0])) is not None:
        line["reason"] = reason_removed(n)


def _answered_late(audit: "Audit") -> list[dict]:
    """``audit``'s ``--in-range-only`` lines (render 14; trial 39a F2: a call made before the window whose failing result came inside
    it was in no day's audit): a line for each result inside the window whose call lies before it, by time,
    kind ``tool_result``: the call's ``tool`` and ``text`` (what it answers), ``call_ts`` (when the call was made),
    ``status`` from the result and a failed one's ``error`` as a call's; ``ts``, ``file`` and ``row`` the result's
    record. So each call is in the audit of its own window, each result (a failure) in the one it lands in."""
    if not audit.only or audit.window is None or not late_results_drawn():
        return []
    out = []
    for call in audit.calls:
        got = audit.results.get(call.get("_id") or "")
        made = _ms({"time": call.get("ts")})
        at = None if got is None else got[2] if got[2] is not None else audit.turn_at.get(got[3])
        if made is None or at is None or ms_in_window(made, *audit.window) or not ms_in_window(at, *audit.window):
            continue
        ts, file, row = got[5]
        line = {"conversation": audit.conversation, "stream": call["stream"], "role": "tool", "ts": ts or instant(at),
                "text": call["text"], "file": file, "row": row, "kind": "tool_result", "tool": call["tool"],
                "status": _status(*got[:2]), "call_ts": call["ts"], "_gone": list(call.get("_gone", ()))}
        _result_said(line, got)
        out.append(line)
    return sorted(out, key=lambda x: _ms({"time": x["ts"]}) or 0)


def _system_line(rec: dict, parts: list[dict], flags, dialect: str) -> dict | None:
    """``{"text", "kind"}`` of a runtime's line of its own: a compaction's boundary (flag ``context_reset``, kind
    ``compaction``: ``Context compacted (<the adapter's short form>)``) or a notice with text (flag ``notice``, kind
    ``notice``: its text parts joined with a newline, a text retention took said by its marker, ``[removed by
    retention: N bytes]``: the flag is kept by a skeleton, so a pruned root gives the line, its role and its kind as
    before, recheck 29 of trial 29a F1); None for any other record."""
    if "context_reset" in flags:
        said = record_line(rec, dialect) or next((m for p in parts if (m := part_marker(p))), "")
        return {"text": f"Context compacted ({said})" if said else "Context compacted", "kind": "compaction"}
    texts = [t for p in parts if p.get("k") == "text" and (t := p.get("text") or part_marker(p))] \
        if "notice" in flags else []
    return {"text": "\n".join(texts), "kind": "notice"} if texts else None


def coverage() -> dict:
    """What the masking covers, after the header's ``credentials`` counts (trial 27b F9: ``"masked": true`` read as
    "clean" while a password with no name before it stood whole): ``forms``, the credential forms found
    (:data:`~asz_core.view.secret_forms.KINDS`' names, as ``asz secrets`` finds them), and ``not_covered``, what no
    form finds, so it may stand whole in the lines."""
    from ..view.secret_forms import KINDS

    return {"forms": [name for name, _, _ in KINDS], "not_covered": NOT_COVERED}


#: The header's ``credentials.not_covered``: what the declared forms do not find (docs/reading.md, "Credentials").
NOT_COVERED = ("a credential of no form listed in forms (a password with no name such as password or secret before "
               "it, a key with no known prefix and no name) is not found: it is neither masked nor counted")


def masked_lines(lines: list[dict], mask) -> list[str]:
    """Mask (or only count: ``mask``, a :class:`~asz_core.view.secret_forms.Masker`) each string of each prose line to
    be written, in place, its own text before it is placed in the file (trial 25b F1); an audit tool call's line,
    masked (or written whole) before it was cut (:meth:`Audit._summary`), gives its ``_gone`` in place of its
    ``text``'s. Returns the fingerprints counted."""
    start = len(mask.gone)
    for line in lines:
        gone = line.pop("_gone", None)
        mask.gone += gone or ()
        mask.tree(line, TEXT if gone is not None else frozenset())
    return mask.gone[start:]


#: The keys of an audit line whose credentials :meth:`Audit._summary` or an error's excerpt counted, masked before
#: they were cut (:func:`masked_lines`): a tool call's ``text``, an error's text (``error``).
TEXT = frozenset({"text", "error"})


def header_line(conversation: str, row: Optional[dict], lines: Sequence[dict], problems: list[str],
                left_out: dict) -> dict:
    """The line before a conversation's turns: ``kind`` ``conversation``, ``conversation``, ``title``, ``project``,
    ``branch``, ``models``, ``from``, ``to`` (RFC 3339 UTC; the list row's first and last record times), ``state``
    (the document's: ``verified``, ``mismatch``, ``incomplete``), ``problems`` (the row's and the export's, one
    sentence each), ``lines`` (how many lines of each kind follow) and ``left_out`` (what the form does not carry:
    ``tool_results`` result parts, ``tool_inputs_cut`` inputs cut at :data:`INPUT_CHARS`, ``edit_contents`` calls
    whose file contents (:data:`CONTENT_KEYS`) the line leaves out, ``thinking`` reasoning
    parts without ``--thinking``, ``withheld`` records a ``view.hide`` flag leaves out, ``other_records`` records
    that gave no line: runtime notices, attachments, a sub-agent's result records, ``tool_executions`` 0: an
    execution record joined to no tool call is a line, kind ``tool_execution``: :meth:`Audit._executed`); in a root ``asz receive`` landed,
    ``senders`` too (who sent the session's files: instance, credential, files, first and last received; docs/push.md);
    in a conversation ``asz prune`` left skeletons of, ``removed_files`` last (how many, as the list row has it).
    ``row``: the conversation's list row (:func:`~asz_core.reading.listing.conversation_rows`, with ``senders`` when
    known), or None."""
    row = row or {}
    counts: dict[str, int] = {}
    for line in lines:
        counts[line["kind"]] = counts.get(line["kind"], 0) + 1
    said = [*(row.get("problems") or ()), *(p for p in problems if p not in (row.get("problems") or ()))]
    errors = {"errors": row.get("errors_said") or None} if drawing_errors() else {}  # as asz ls says them (37b F5)
    return head_said({"conversation": conversation, "kind": "conversation", "title": row.get("title") or "",
            "project": row.get("project"), "branch": row.get("git_branch"), "models": list(row.get("models") or ()),
            "from": instant(row.get("from")), "to": instant(row.get("to")), "state": row.get("state"),
            "problems": said, **errors, "lines": counts, "left_out": left_out, **({"senders": row["senders"]} if row.get("senders") else {}),
            **({"removed_files": row["removed_files"]} if row.get("removed_files") else {})}, row, lines)  # render 55
