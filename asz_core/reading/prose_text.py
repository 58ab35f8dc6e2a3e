"""``asz export --format text``: the audit form as plain text a model reads, no JSON (trial 27b F4; seed 003 §3-4:
an audit model is fed prose, and the JSON Lines of ``--audit`` repeat seven keys on every line, about 69 % of it).

The lines are the audit form's (:mod:`asz_core.reading.prose_audit`), made by the same code, with the same window
(``--since``/``--until``, ``--tz``, ``--in-range-only``), the same masking and the same header counts; only how they
are written differs (:func:`to_text`):

- the header: ``=== conversation ID ===`` then one ``key: value`` line per header key in the audit header's order
  (a nested object as ``key value, key value``; a list joined by ``, ``; a list of objects by ``; ``; none as
  ``none``; ``tokens: not recorded`` and ``cost: none (no tokens to price)`` where the runtime recorded no token
  count: :func:`unrecorded_words`; ``cost: not priced (no price for MODEL)`` where tokens were recorded and none had a
  price, render 56; ``window_local`` after ``window``: :func:`window_local`, render 6), then a blank line;
  its last line :data:`QUOTED_SAID`;
- every text as a Markdown export writes it (:func:`~asz_core.reading.termtext.md_visible`), each of its lines after
  :data:`QUOTE` (``| ``; an empty one ``|``): :func:`quoted`. asz's own lines (the header's, a line's ``[TS] KIND``,
  ``executed:``) never begin so and are each one line (:func:`~asz_core.reading.termtext.md_line`: a newline in a
  cwd or a time as ``\\n``), so no text can forge them (trial 34c F1);
- each line: ``[TS] KIND`` (a person's turn whose text retention took ``prompt, removed by retention``: :func:`_label`,
  render 14; from render 36 by what its skeleton tells, ``prompt or command, removed by retention``, …; ``, stream NAME`` for a stream not ``main``; ``, outside the window`` or ``, time
  unknown`` without ``--in-range-only``; a tool call's or an execution record's ``, STATUS``: ok, error, …), then its
  text quoted, then a blank line;
- a failed tool call's error text (``status`` error) after its text: an ``error: N bytes, whole`` line (or ``N
  bytes, the first 1,000 written, K left out``: :func:`~asz_core.reading.audit_errors.error_words`) then the text
  quoted; an error step's line (kind ``api_error`` or ``run_failed``) the same line before its text (render 11,
  trial 37b F5);
- a ``command`` or ``command_output`` line's text as md reads it (:meth:`PlainAudit.as_typed`, render 6): ``! ls``,
  not the runtime's markup;
- a tool call's text is ``NAME: SUMMARY`` as ``--audit`` writes it, except where ``--audit`` writes its input as
  JSON (a nested input: ``TodoWrite``, ``AskUserQuestion``, ``ExitPlanMode``): there its text is ``NAME: N field(s)`` and one
  ``key: value`` line per field (:func:`plain_pairs`: a nested key as its path, ``todos.1.content: Update …``), each
  masked then cut at :data:`~asz_core.reading.prose_audit.INPUT_CHARS` characters, at most :data:`PLAIN_FIELDS`
  lines (``… N more field(s)``); a call asz hook's execution record is joined to gets ``executed: …`` lines.

The bytes are a function of the lines alone, so a closed day's file stays byte for byte as the ``--audit`` one does.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..view.placing import INPUT_FIELDS, folded_at
from ..view.placing import one_line as cut_line
from ..view.secret_argv import argv_spans
from ..view.secret_forms import Masker, find, masked_cut
from .prose_audit import CONTENT_KEYS, ERROR_KINDS, INPUT_CHARS, Audit, error_words
from .termtext import md_line, md_visible
from .export_render import SEPARATORS_RENDER, SHORT_HEAD_RENDER, drawn

__all__ = ["PLAIN_FIELDS", "PlainAudit", "SIDE_LINE", "SIDE_ORPHAN", "orphan_positions", "QUOTE", "QUOTED_SAID", "json_gist", "plain_pairs",
           "plain_blocks", "plain_summary", "plain_value", "quoted", "to_text", "unrecorded_words", "window_local"]

#: At most this many ``key: value`` lines of one tool call's input (the rest said as ``… N more field(s)``).
PLAIN_FIELDS = 40


def plain_pairs(data: Any, prefix: str = "", extra=()) -> Iterator[tuple[str, str, list]]:
    """``(key, value, extra)`` of each field of a tool call's input ``data`` (decoded JSON), in order: an object's
    keys, a list's items numbered from 1, nested keys joined by ``.`` (``todos.1.content``); a string as written,
    true, false, null and numbers as JSON writes them, an empty object or list as ``(empty)``; a scalar input alone
    is one pair keyed ``input``. ``extra``: the credentials a list read as an argument vector gives the value
    (:func:`~asz_core.view.secret_argv.argv_spans`: ``argv.5: VALUE`` after ``argv.4: --token``; session 45)."""
    if isinstance(data, dict) and data:
        for k, v in data.items():
            yield from plain_pairs(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(data, list) and data:
        spans = argv_spans(data, find)
        for i, v in enumerate(data, 1):
            yield from plain_pairs(v, f"{prefix}.{i}" if prefix else str(i), spans.get(i - 1, ()))
    else:
        yield prefix or "input", "(empty)" if data in ({}, []) else _scalar(data), extra


def _scalar(v: Any) -> str:
    if isinstance(v, str):
        return v
    if v is None or isinstance(v, bool):
        return {None: "null", True: "true", False: "false"}[v]
    return str(v)


def plain_value(v: Any) -> str:
    """A header value as plain text: a string as it is, none as ``none``, true/false as ``yes``/``no``, a number as
    written, a list joined by ``, `` (objects by ``; ``; empty: ``none``), an object as ``key value, key value``
    (a nested one in parentheses)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return v or "none"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, list):
        if not v:
            return "none"
        return ("; " if any(isinstance(x, dict) for x in v) else ", ").join(plain_value(x) for x in v)
    if isinstance(v, dict):
        if not v:
            return "none"
        return ", ".join(f"{k} ({plain_value(x)})" if isinstance(x, dict) else f"{k} {plain_value(x)}"
                         for k, x in v.items())
    return str(v)


#: What begins every line of a text (a turn's text, a tool call's fields) in the text form, ``|`` alone on an empty
#: one: no line asz writes itself (a header's ``=== conversation ID ===`` and ``key: value`` lines, a line's ``[TS]
#: KIND``, an ``executed:`` line) begins so, and those are each one line (:func:`~asz_core.reading.termtext.md_line`),
#: so no text can be read as asz's framing (trial 34c F1: a prompt forged a ``[TS] reply`` line and a whole header
#: saying ``state: verified``).
QUOTE = "| "
#: The header's last line, which says so (render 4).
QUOTED_SAID = 'texts: quoted, every line of a text begins with "| "; a line that does not is asz\'s own'


#: The line and paragraph separators U+2028 and U+2029: an editor, a Markdown viewer, some terminals and a reader's
#: ``str.splitlines()`` break a line at them (trial 30c F7). From render 42 a text writes each as its escape
#: (``\\u2028``), so every reader, one splitting on ``\\n`` as the form promises or one splitting at them too, reads
#: the same lines (trial 48c F5); renders 5 to 41 kept each raw with :data:`QUOTE` after it (review34: a prompt's
#: U+2028 then ``[TS] reply`` read there as a line of asz's own), a marker inside a ``\\n`` line.
_SEPARATORS = re.compile("([\u2028\u2029])")
_SEPARATOR_ESCAPES = {0x2028: "\\u2028", 0x2029: "\\u2029"}


def quoted(text: str) -> str:
    """``text`` as the text form writes a text: :func:`~asz_core.reading.termtext.md_visible`, each U+2028 and U+2029
    as its escape (:data:`_SEPARATORS`; before render 42 raw, :data:`QUOTE` after it), then each of its lines after
    :data:`QUOTE` (an empty one as ``|``). str in, str out."""
    seen = md_visible(text)
    escaped = drawn() >= SEPARATORS_RENDER
    if escaped and ("\u2028" in seen or "\u2029" in seen):
        seen = seen.translate(_SEPARATOR_ESCAPES)
    out = "\n".join(QUOTE + x if x else QUOTE.rstrip() for x in seen.split("\n"))
    return _SEPARATORS.sub("\\1" + QUOTE, out) if not escaped and ("\u2028" in out or "\u2029" in out) else out


def _head(line: dict) -> list[str]:
    """The header line of a conversation as plain lines (module docstring), its figures :func:`unrecorded_words`,
    each one line (:func:`~asz_core.reading.termtext.md_line`), the last :data:`QUOTED_SAID`."""
    out = [f"=== conversation {line.get('conversation', '')} ==="]
    out += [f"{k}: {plain_value(v)}" for k, v in unrecorded_words(line).items() if k not in ("conversation", "kind")]
    return [md_line(x) for x in out] + [QUOTED_SAID]


#: What the text form writes for an empty output (as md's ``(no output)``).
NO_OUTPUT = "(no output)"


def plain_blocks(blocks: list[tuple[str, str]]) -> str:
    """A text read in blocks (:func:`~asz_core.view.titles.prompt_blocks`: ``[(kind, text)]``) as the text form writes
    it, as md shows it (:func:`~asz_core.reading.export_blocks.markdown_blocks`) without Markdown: a command as typed
    (``! ls``, ``/model sonnet``), an output's text without the line breaks around it, or :data:`NO_OUTPUT` when
    empty, a standard error output under a ``stderr:`` line, the prose around them as written; a blank line between
    two blocks."""
    out = []
    for kind, text in blocks:
        if kind in ("stdout", "stderr"):
            text = text.strip("\r\n") or NO_OUTPUT
        out.append(f"stderr:\n{text}" if kind == "stderr" else text)
    return "\n\n".join(out)


def window_local(window: tuple) -> list[str]:
    """The text header's ``window_local`` (render 6; trial 35b F6: the file named its window in UTC only, so a model
    asked about the auditor's day saw the day before's dates): the ``--tz`` zone's name (the exporting machine's when
    none was given, as the manifest's ``tz``), then ``window``'s ends (unix ms, either None) in that zone, RFC 3339 with
    its offset to the millisecond (``2026-11-08T00:00:00.000+13:00``), ``none`` for an open end."""
    import datetime as dt

    from ..view.zone import reader_zone, zone_name, zone_of

    zone = reader_zone() or zone_of(None)
    ends = [dt.datetime.fromtimestamp(ms / 1000, zone).isoformat(timespec="milliseconds") if ms is not None else None
            for ms in window]
    return [zone_name(), *(e if e is not None else "none" for e in ends)]


def unrecorded_words(figures: dict) -> dict:
    """``figures`` (the audit header, or its ``in_window``) with, where ``usage_recorded`` is false (no call recorded a
    token count: :func:`~asz_core.reading.audit_usage.usage_figures`), ``tokens`` as ``not recorded`` and ``cost`` as
    ``none (no tokens to price)``, as ``asz conversation`` says them, never ``in 0`` and ``usd 0.0`` (trial 29c F4);
    where tokens were recorded and none had a price (``usd`` null: render 56) ``cost`` as ``not priced (no price for
    MODEL, …)`` (trial 50c F3: ``usd 0.0, …, priced no`` read as free); ``in_window`` the same way."""
    out = dict(figures)
    if out.get("usage_recorded") is False:
        out.update({k: v for k, v in (("tokens", "not recorded"), ("cost", "none (no tokens to price)")) if k in out})
    elif isinstance(cost := out.get("cost"), dict) and cost.get("priced") is False and cost.get("usd") is None:
        names = ", ".join(cost.get("unpriced") or ())  # render 56: no token had a price, no $0 (trial 50c F3)
        out["cost"] = f"not priced (no price for {names})" if names else "not priced (no tokens to price)"
    if isinstance(out.get("in_window"), dict):
        out["in_window"] = unrecorded_words(out["in_window"])
    return out


#: The render from which a person's turn whose text retention took keeps its label (:func:`_label`; trial 39a F4).
REMOVED_LABEL_RENDER = 14
#: The render from which that label says what the skeleton can tell of the turn (:meth:`PlainAudit.removed_said`;
#: trial 47a F2: 97 lines read ``prompt, removed by retention`` where 51 prompts were typed).
REMOVED_KINDS_RENDER = 36


#: A text line's ``_side`` (:meth:`PlainAudit.lines`): its record says ``sidechain``; and it is in an orphan group.
SIDE_LINE, SIDE_ORPHAN = 1, 2


def orphan_positions(doc: dict) -> set[tuple[int, int]]:
    """``{(seq, row)}`` of every record a node under a talk the asz.view document ``doc`` marks ``orphan`` cites."""
    out: set[tuple[int, int]] = set()
    stack = [t for t in doc.get("talks") or () if isinstance(t, dict) and t.get("orphan") is True]
    while stack:
        n = stack.pop()
        for r in [n.get("ref"), *(n.get("refs") or ())]:
            if isinstance(r, dict):
                out.add((r.get("seq"), r.get("row")))
        stack.extend(c for c in n.get("children") or () if isinstance(c, dict))
    return out


def _label(line: dict) -> str:
    """A line's ``KIND`` as ``[TS] KIND`` writes it: its kind; from render 14 a person's turn (``role`` user) whose
    text retention took (kind ``removed``) ``prompt, removed by retention`` (in a sub-agent's stream
    ``subagent_prompt, removed by retention``), so a pruned day's prompts can still be counted (trial 39a F4: it read
    ``removed`` while replies and tool calls kept their labels). Which sort of prompt it was (typed, a command, its
    output, an interrupt notice) went with the text (trial 27b F2), so it is never named; from render 36 a main
    stream's line says what its skeleton can tell (``_was``: :meth:`PlainAudit.removed_said`)."""
    from .export_render import drawn
    from .export_retention import REMOVED_MARK

    kind = line.get("kind") or "text"
    if kind != "removed" or line.get("role") != "user" or drawn() < REMOVED_LABEL_RENDER:
        return kind
    if line.get("_was") and drawn() >= REMOVED_KINDS_RENDER:
        return f"{line['_was']}, {REMOVED_MARK}"
    return f"{'prompt' if line.get('stream') in (None, '', 'main') else 'subagent_prompt'}, {REMOVED_MARK}"


def _turn(line: dict) -> list[str]:
    """One audit line as plain lines: ``[TS] KIND, …`` then its text (module docstring)."""
    said = [_label(line)]
    if line.get("stream") not in (None, "", "main"):
        said.append(f"stream {line['stream']}")
    side = line.get("_side")
    if side:  # a sub-agent's line in its parent's file (render 25; PlainAudit.lines)
        said.append("a sub-agent's line" + (", parent call not found" if side == SIDE_ORPHAN else ""))
    if "in_range" in line and line["in_range"] is not True:
        said.append("outside the window" if line["in_range"] is False else "time unknown")
    if line.get("kind") in ("tool_call", "tool_execution", "tool_result"):  # a call's status, an execution's (9a73f6a)
        said.append(line.get("status") or ("no_result" if line.get("kind") == "tool_call" else "unknown"))
    out = [md_line(f"[{line.get('ts') or 'no time'}] {', '.join(said)}")]
    if line.get("kind") == "tool_result":  # a result of a call made before the window: which call (render 14)
        out.append(md_line(f"answers: the tool_call made at {line.get('call_ts') or 'no time'}, before the window"))
    error = line.get("error") if isinstance(line.get("error"), dict) else None
    if error is not None and line.get("kind") in ERROR_KINDS.values():  # an error step: its size, then its text
        out.append(md_line(f"error: {error_words(error)}"))
    out.append(quoted(line.get("text") or ""))
    if error is not None and line.get("kind") in ("tool_call", "tool_result"):  # its error text, bounded (37b F5)
        out += [md_line(f"error: {error_words(error)}"), quoted(error.get("text") or "")]
    if isinstance(line.get("reason"), str):  # a refusal whose reason retention took (trial 47a F1's other half)
        out.append(md_line(f"reason: {line['reason']}"))
    out += [md_line(f"executed: {x}") for x in line.get("executed") or ()]
    return out


def to_text(lines: Iterable[dict]) -> bytes:
    """The audit lines (a header line of kind ``conversation`` first, masked already) as the text form's bytes:
    each block (the header, each line) followed by a blank line, UTF-8; its text written as a Markdown export's
    (:func:`~asz_core.reading.termtext.md_visible`: terminal formatting removed, every other control as its escape,
    so a file ``cat`` to a terminal or read by a model holds no OSC, NUL or bidi override: recheck 27, NEW-1)."""
    blocks = [_head(line) if line.get("kind") == "conversation" else _turn(line) for line in lines]
    return "".join("\n".join(b) + "\n\n" for b in blocks).encode("utf-8")


class PlainAudit(Audit):
    """The audit form of ``--format text``: :class:`~asz_core.reading.prose_audit.Audit`, a tool call whose input
    ``--audit`` writes as JSON (:func:`json_gist`) given as ``key: value`` lines instead (:func:`plain_summary`), and
    the header's ``window`` followed by ``window_local`` (:func:`window_local`)."""

    def as_typed(self, lines: list[dict]) -> None:
        """Each ``command`` and ``command_output`` line of ``lines`` (masked already) with its text as
        :func:`plain_blocks` gives it (render 6; in place): a runtime's markup read by its adapter
        (:func:`~asz_core.view.titles.prompt_blocks`), as md shows it (trial 35b F8)."""
        from ..view.titles import prompt_blocks
        from .export_render import drawn

        if drawn() < 6:
            return
        for line in lines:
            if line.get("kind") in ("command", "command_output") and isinstance(line.get("text"), str):
                blocks = prompt_blocks(line["text"], self.dialect)
                if blocks != [("text", line["text"])]:
                    line["text"] = plain_blocks(blocks)

    def lines(self, header: Any, stream: str, file: str, row: int, rec: dict, line: dict | None) -> list[dict]:
        """:meth:`Audit.lines`, each line of a record that says ``sidechain`` (a sub-agent's line in its parent's file)
        marked ``_side`` from render 25, so :func:`_turn` says so as the head counts it (:meth:`ask` marks those of
        an orphan group: field report 34)."""
        from .export_render import ORPHAN_RENDER, drawn

        out = super().lines(header, stream, file, row, rec, line)
        if rec.get("sidechain") is True and drawn() >= ORPHAN_RENDER:
            for x in out:
                x["_side"] = SIDE_LINE
        for x in out:
            if x.get("kind") == "removed" and x.get("role") == "user" and stream == "main":
                x["_was"] = self.removed_said(rec, line is None)
        return out

    @staticmethod
    def removed_said(rec: dict, listed: bool) -> str:
        """What the skeleton of a person's turn in the main stream whose text retention took can tell of it (``listed``:
        its parts a list the default leaves out), as the kinds before retention were read (:meth:`Audit._kind`): a
        turn the runtime flags ``notice`` (Claude Code's interrupt) ``notice``; another list ``prompt_blocks``; one
        flagged ``external_input`` ``prompt or command`` (the markup that tells them apart was its text); a line a
        sub-agent's record gives (``sidechain``) ``subagent_prompt``; any other ``command_output or text`` (command
        output is read from its text; trial 47a F2)."""
        flags = rec.get("flags") or ()
        if listed:
            return "notice" if "notice" in flags and "external_input" not in flags else "prompt_blocks"
        if "external_input" in flags:
            return "prompt or command"
        return "subagent_prompt" if rec.get("sidechain") is True else "command_output or text"

    def ask(self, doc: dict, by_stream: dict[str, list[dict]]) -> None:
        """:meth:`Audit.ask`, then each ``_side`` line of a record under a talk the document marks ``orphan`` (no call
        and no prompt of its own opened it) marked :data:`SIDE_ORPHAN`."""
        super().ask(doc, by_stream)
        at = orphan_positions(doc)
        if not at:
            return
        seqs = {f.get("file"): f.get("seq") for f in doc.get("files") or () if isinstance(f, dict)}
        for lines in by_stream.values():
            for x in lines:
                if x.get("_side") and (seqs.get(x.get("file")), x.get("row")) in at:
                    x["_side"] = SIDE_ORPHAN

    def header(self, *args, **kwargs) -> dict:
        head = super().header(*args, **kwargs)
        if drawn() >= SHORT_HEAD_RENDER:
            short_head(head)
        if "window" not in head or self.window is None:
            return head
        out = {}
        for k, v in head.items():
            out[k] = v
            if k == "window":
                out["window_local"] = window_local(self.window)
        return out

    def _summary(self, dialect: str, p: dict, call: dict, n: int) -> str:
        data = p.get("data") if p.get("data") is not None else p.get("text")
        if json_gist(dialect, p.get("name", ""), data):
            return plain_summary(self, data, call, n)
        return super()._summary(dialect, p, call, n)


#: The text form's header's ``status_read`` from render 51 (trial 49a F4: :data:`~asz_core.reading.audit_window.
#: STATUS_READ` and its ``LATE_SAID``, 286 characters in every conversation's file; docs/reading.md says it whole).
STATUS_READ_SHORT = ("the window's results only (a call whose result lands outside it: no_result_in_window; a result inside "
                     "it of an earlier call: a tool_result line)")


def short_head(head: dict) -> None:
    """The text form's header made short (render 51, :data:`~asz_core.reading.export_render.SHORT_HEAD_RENDER`;
    trial 49a F4: the head was 10 % of a day's bytes, ``credentials:`` alone 961 characters of 40 form names and
    ``not_covered``'s sentence, ``status_read:`` 286, in every conversation's file): ``credentials``' ``forms`` and
    ``not_covered`` said as the forms' number and where they are listed (``forms 9 (40, docs/reading.md
    "Credentials"; no other form is masked or counted)``: the manifest's ``masks_forms`` is that number, and prose's JSON
    header keeps the list), ``status_read`` as :data:`STATUS_READ_SHORT`. Its counts, which ``asz verify --export``
    reads (``left_out (places …)``), are as before."""
    from .export_forms import FORMS

    said = head.get("credentials")
    if isinstance(said, dict) and isinstance(said.get("forms"), list):
        n = len(said.pop("forms"))
        said.pop("not_covered", None)
        said["forms"] = f'{FORMS} ({n}, docs/reading.md "Credentials"; no other form is masked or counted)'
    if "status_read" in head:
        head["status_read"] = STATUS_READ_SHORT


def plain_summary(audit: Audit, data: Any, call: dict, n: int) -> str:
    """The text form's summary (``audit``: a :class:`PlainAudit`) of an input ``--audit`` writes as JSON
    (:func:`json_gist`): how many fields it has (``9 field(s)``), then one ``key: value`` line per field
    (:func:`plain_pairs`), each masked before it is cut at :data:`~asz_core.reading.prose_audit.INPUT_CHARS`, at most
    :data:`PLAIN_FIELDS` lines; counted as :meth:`~asz_core.reading.prose_audit.Audit._summary` counts (a line cut or
    fields left out: ``tool_inputs_cut``)."""
    pairs = list(plain_pairs(data))
    cut, lines, written, away = len(pairs) > PLAIN_FIELDS, [], [], []
    for i, (key, value, extra) in enumerate(pairs):
        extra = [(kind, a + len(key) + 2, b + len(key) + 2) for kind, a, b in extra]
        if i >= PLAIN_FIELDS:
            counted = Masker(False)
            counted.text(f"{key}: {value}", extra)
            away += counted.gone
            continue
        got = [False]

        def cutter(text: str) -> str:
            text, got[0] = cut_line(text, INPUT_CHARS)
            return text

        text, shown, gone = masked_cut(f"{key}: {value}", cutter, audit.mask, folded_at, extra)
        lines.append(text)
        written += shown
        away += gone
        cut = cut or got[0]
    if len(pairs) > PLAIN_FIELDS:
        lines.append(f"… {len(pairs) - PLAIN_FIELDS:,} more field(s)")
    call["_gone"] = written
    audit.left_out["tool_inputs_cut"] += cut * n
    audit.left_out["edit_contents"] += n * (isinstance(data, dict) and any(data.get(k) for k in CONTENT_KEYS))
    if n:
        audit.unwritten += away
    return f"{len(pairs):,} field(s)\n" + "\n".join(lines)


def json_gist(dialect: str, name: str, data: Any) -> bool:
    """Whether ``--audit`` writes the input ``data`` of a tool call ``name`` as JSON
    (:func:`~asz_core.view.placing.input_gist`'s last rule): no adapter's summary, no :data:`INPUT_FIELDS` field
    holding text, not a flat object; a nested object or a list (``TodoWrite``'s ``todos``)."""
    from ..view.titles import call_gist

    if not isinstance(data, (dict, list)) or (dialect and call_gist(dialect, name, data)):
        return False
    if isinstance(data, list):
        return bool(data)
    if any(isinstance(data.get(k), str) and data[k].strip() for k in INPUT_FIELDS):
        return False
    return not all(v is None or isinstance(v, (str, int, float, bool)) for v in data.values())
