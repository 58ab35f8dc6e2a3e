"""Claude Code source records into Session Data records (dialect ``claude-code/1``).

Seed 000 ("Record", "Parts", "What data holds", "Dropped") and origin-digest
§5.1 ("Record fields landed", "Session Data mapping of content blocks",
"Index flags computed per record") are the rules this module follows.

Every conversion yields exactly one :class:`~asz_core.Record` and never
raises: a line that is not JSON, JSON that is not an object, an object of a
``type`` this dialect does not describe, or a line nested deeper than a
Session Data reader accepts becomes one ``unknown`` part keeping the bytes
(each case with its own reason), and an internal failure falls back the same
way with the failure named in the reason.

Part sizes: ``bytes`` on a part is the size in bytes of the source JSON the
part was made from (a content block, a string value, an attachment, the whole
line), except a media part (the length of its base64 text) and an unknown
part (the bytes it keeps). A result part that also takes the record's
``toolUseResult`` counts both.

Byte fidelity: every ``data`` part holding source JSON is
``RawJSON(compact(slice))`` of the exact source bytes of that value.

Decisions where the mapping leaves room (origin-digest §5.1, field reports 28-31):

* A ``tool_result`` whose content is a list: its text items are joined with
  ``"\n"`` into the result's text; each image item becomes a ``media`` part
  placed right after the result part, in source order (field report 30); any
  other item makes the raw content list the result's ``data``, unless the
  record's ``toolUseResult`` object takes ``data`` (it always wins, as
  §5.1 says; the raw content is then a known gap). ``failed`` is set only
  when ``is_error`` is a boolean in the source.
* A ``toolUseResult`` object with no ``tool_result`` block to sit beside
  lands as a ``data`` part after the content parts.
* An attachment is text when ``text`` or ``content`` is a non-empty string;
  an empty string does not count, so a hook attachment with ``content: ""``
  keeps its ``stdout`` in a whole-attachment ``data`` part.
* ``redacted_thinking`` lists its encrypted ``data`` in ``dropped`` the way a
  thinking signature is listed.
* A UTF-8 byte order mark (EF BB BF) at the start of a line of a JSON source (a transcript, journal, sidecar or
  manifest; not a companion's text or a script) is read past by ``asz_core.past_bom``, the rule every adapter
  follows (docs/adapters.md, "A byte order mark"): the record keeps ``off`` and ``bytes``/``sha``
  of the whole line, mark included, its parts are made from the JSON after the mark, and ``dropped`` lists
  ``asz_core.BOM_WHAT`` (3 bytes; why: ``BOM_WHY`` at file offset 0, ``BOM_WHY_LINE`` on a later line, where two
  files that each began with one were joined, as Windows ``copy /b a+b`` joins them: trial 31c F5). When the line
  after the mark is not described either, it lands whole, mark included, as one unknown part, as before (trial 18,
  F-b).
* Types that are runtime bookkeeping (``progress``, ``summary``,
  ``file-history-snapshot``, …, see :data:`DESCRIBED_TYPES`) land whole as
  one ``data`` part with their ids and time, and no ``from``: §5.1 names a
  ``from`` only for user, assistant, system and attachment lines.
"""

from __future__ import annotations

import attrs

from asz_core import (Part, described_escaped, not_utf8_reason, past_bom, Record, Source, keys_twice,
                      settle_surrogates, source_sha, time_as_written, twice_dropped, unknown_part, nesting_depth)

from .blocks import mcp_split, str_of, withheld_flags_of_undecodable, shown
from .companions import companion_record
from .jsonspans import (
    MAX_SOURCE_DEPTH,
    REASON_NOT_JSON,
    REASON_NOT_OBJECT,
    REASON_TOO_DEEP,
    Obj,
    canonical,
    line_bounds,
    decode_line,
    may_nest_too_deep,
    shallow_canonical,
)
from .transcript import DESCRIBED_TYPES, transcript_record, unknown_record

__all__ = [
    "DIALECT",
    "DESCRIBED_TYPES",
    "MAX_SOURCE_DEPTH",
    "REASON_NOT_JSON",
    "REASON_NOT_OBJECT",
    "REASON_TOO_DEEP",
    "REASON_SCRIPT",
    "convert_record",
    "mcp_split",
    "nesting_depth",
    "withheld_flags_of_undecodable",
]

#: The dialect this module reads.
DIALECT = "claude-code/1"

REASON_SCRIPT = "a workflow script is a program, not data"


def _whole_data(rec: Record, obj: Obj) -> None:
    rec.parts = [Part(k="data", data=obj.whole(), bytes=obj.whole_size())]
    rec.from_ = "runtime"


def _journal(rec: Record, obj: Obj, source: Source) -> None:
    v = obj.value
    _whole_data(rec, obj)
    rec.child = str_of(v, "agentId")
    rec.batch = source.batch or str_of(v, "runId")
    rec.time = str_of(v, "timestamp")
    if "result" in v:
        rec.flags = ["child_result"]


def _sidecar(rec: Record, obj: Obj, source: Source) -> None:
    v = obj.value
    _whole_data(rec, obj)
    rec.child = str_of(v, "agentId") or source.stream
    rec.tool = str_of(v, "toolUseId")
    rec.label = str_of(v, "description")
    rec.started_by = str_of(v, "parentAgentId")
    rec.batch = source.batch


def _manifest(rec: Record, obj: Obj, source: Source) -> None:
    v = obj.value
    _whole_data(rec, obj)
    rec.batch = source.batch or str_of(v, "runId")
    rec.label = str_of(v, "workflowName")


_KINDS = {"journal": _journal, "agent_meta": _sidecar, "workflow_manifest": _manifest}




def _fill(rec: Record, source: Source, raw: bytes) -> bool:
    """Fill ``rec`` from ``raw``; True when every string in it comes from ``raw`` decoded by orjson (then no lone
    surrogate: orjson refuses an escaped one, and bytes that are not UTF-8) or from the source's names, False when
    raw bytes were kept as text or data, or the line holds an escaped lone surrogate."""
    if source.kind == "workflow_script":
        rec.parts = [unknown_part(raw, REASON_SCRIPT)]
        rec.from_ = "runtime"
        rec.batch = source.batch
        return False
    if source.kind == "tool_output":  # a companion file: text, not JSON
        companion_record(rec, source, raw)
        return False
    value, reason, lone = decode_line(raw)
    if not reason and not isinstance(value, dict):
        reason = REASON_NOT_OBJECT
    if reason == REASON_NOT_JSON:  # orjson refuses bytes that are not UTF-8 as not JSON: say which, and where
        reason = not_utf8_reason(raw, source.src, rec.ord, rec.off) or reason
        if reason != REASON_NOT_JSON and (got := described_escaped(raw, reason, lambda sub: _trial(rec, source, sub))) is not None:
            _adopt(rec, got)  # each bad byte as \udcXX; own bytes kept whole
            return False
    if reason:
        unknown_record(rec, raw, reason)
        return False
    begin, end = line_bounds(raw)
    canon = shallow_canonical(raw, value, begin, end)  # nearly every line: the depth and canonical checks in one
    if canon is None:
        if may_nest_too_deep(raw, value) and nesting_depth(value) > MAX_SOURCE_DEPTH:
            unknown_record(rec, raw, REASON_TOO_DEEP)
            return False
        canon = canonical(raw, value, begin, end)
    obj = Obj(value, raw, begin, end, canon)
    if source.kind == "transcript":
        transcript_record(rec, obj, raw, source)
    elif source.kind in _KINDS:
        _KINDS[source.kind](rec, obj, source)
    else:
        unknown_record(rec, raw, f"file kind {source.kind!r} is not one this dialect lands")
        return False
    if not canon and keys_twice(raw, begin, end):  # a canonical line gives no key twice: nearly every line asks nothing
        rec.dropped.extend(twice_dropped(raw, begin, end))
    stamp = value.get("timestamp")
    if stamp is not None and not isinstance(stamp, str) and not rec.time:  # a number, say (trial 30a F8): its JSON text
        rec.time = time_as_written(stamp)  # kept in time, where it reads as no time (seed 000), never lost
    return not lone


def _fill_past_bom(rec: Record, source: Source, raw: bytes) -> bool | None:
    """Fill ``rec`` from the JSON after the byte order mark that starts ``raw``, a line of a JSON source (at any offset:
    a later line's mark is where two files with one each were joined, trial 31c F5), with ``dropped`` naming the
    mark, and give :func:`_fill`'s answer; None, ``rec`` untouched, when ``raw`` is no such line or what follows the
    mark is not described (an unknown part would keep its bytes without the mark)."""
    body, mark = past_bom(raw, rec.off)
    if mark is None or source.kind not in ("transcript", *_KINDS):
        return None
    trial = Record(ord=rec.ord, off=rec.off, sha=rec.sha, bytes=rec.bytes)
    decoded = _fill(trial, source, body)
    if any(p.k == "unknown" for p in trial.parts):
        return None
    trial.dropped.insert(0, mark)
    _adopt(rec, trial)
    return decoded


def _trial(rec: Record, source: Source, sub: bytes) -> Record:
    """A record of ``rec``'s place filled from ``sub`` (its line with each byte that is not UTF-8 as ``\\udcXX``), for
    :func:`asz_core.described_escaped`, which keeps it only when it holds no unknown part; ``rec`` untouched."""
    trial = Record(ord=rec.ord, off=rec.off, sha=rec.sha, bytes=rec.bytes)
    _fill(trial, source, sub)
    return trial


def _adopt(rec: Record, trial: Record) -> None:
    """Make ``rec`` the record ``trial`` is (every field), a trial conversion that described its line."""
    for field in attrs.fields(Record):
        setattr(rec, field.name, getattr(trial, field.name))


def _may_hold_surrogates(source: Source, decoded: bool) -> bool:
    """False when no string of the record can hold a lone surrogate: its strings come from the line decoded by
    orjson (``decoded``, see :func:`_fill`), and the source's names are well-formed text (a file name that is not
    UTF-8 decodes with lone surrogates). The surrogate rule then changes nothing, and :func:`settle_surrogates`, a
    walk over every string, is skipped."""
    if not decoded:
        return True
    names = f"{source.session}{source.src}{source.stream}{source.batch}"
    if names.isascii():
        return False
    try:
        names.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def convert_record(source: Source, raw: bytes, ord: int, off: int) -> Record:
    """Convert one source record (a line without its newline, or a whole document) into one Record.

    ``ord`` is the line number from 1 and ``off`` the byte offset where it
    starts; ``bytes`` is ``len(raw)`` and ``sha`` the first 12 hex of its
    SHA-256. Never raises: an internal failure lands the bytes in one unknown
    part whose reason names the failure (seed 000, Producing Session Data).
    """
    raw = bytes(raw)
    rec = Record(ord=ord, off=off, sha=source_sha(raw), bytes=len(raw))
    try:
        decoded = _fill_past_bom(rec, source, raw)
        if decoded is None:
            decoded = _fill(rec, source, raw)
        if _may_hold_surrogates(source, decoded):
            settle_surrogates(rec)
    except Exception as exc:  # never let one record stop a pass
        rec = Record(ord=ord, off=off, sha=rec.sha, bytes=len(raw))
        unknown_record(rec, raw, f"the dialect could not convert this record ({type(exc).__name__}: {shown(str(exc))})")
    return rec
