"""Kiro source records into Session Data records (dialect ``kiro/1``).

Seed 000 ("Record", "Parts", "What data holds", "Dropped") and origin-digest
§3.3-§3.5 are the rules; ``docs/adapters/kiro.md`` is the mapping table.

Four source shapes, told apart by their fields, never by file name:

* a Kiro CLI 3.x ``messages.jsonl`` line: ``{"id", "timestamp", "payload": {"type", …}}``
  (:func:`convert_line`);
* a Kiro CLI 2.x ``<id>.jsonl`` line: ``{"version", "kind", "data"}`` (:func:`convert_line`);
* a conversation state document: a Kiro CLI 1.x ``conversations`` /
  ``conversations_v2`` row value or a ``/chat save`` export, an object with a
  ``history`` list (:func:`convert_document`);
* a session metadata document: 3.x ``session.json``, 2.x ``<id>.json``, or
  any other one-document source (Kiro IDE files), landed whole as one data
  part (:func:`convert_document`).

Every conversion yields exactly one :class:`~asz_core.Record` and never
raises: a record that is not JSON, not an object, nested too deep, or of a
kind this dialect does not describe lands as one ``unknown`` part keeping its
bytes; an internal failure falls back the same way with the failure named.

Part sizes (seed 000, Parts: ``bytes`` is the size of the original): a text,
reasoning or result part with text counts the UTF-8 bytes of its text; a part
holding source JSON (data, a call's input, a result without text) counts the
compacted JSON; a media part the length of its base64 text; an unknown part
the bytes it keeps. Every ``data`` part holding source JSON is
``RawJSON(compact(slice))`` of that value's exact source bytes. Credits
(``metering_usage``, ``usage_summary``, ``user_turn_metadata.usage_info``) are
not tokens: they stay inside data parts and never become ``usage``.
"""


from __future__ import annotations

import orjson

from asz_core import Part, Record, Source

from .build import DIALECT, failed_from_status, guard, mcp_split, unix_seconds_rfc3339
from .spans import REASON_NOT_JSON, parse
from .changes import records
from .documents import document_record
from .ide import workspace_of
from .lines import V2_KINDS, V3_TYPES, Turn, line_record
from .turns import TRACKER

__all__ = [
    "DIALECT",
    "V3_TYPES",
    "V2_KINDS",
    "convert_line",
    "convert_document",
    "unfinished_reason",
    "mcp_split",
    "failed_from_status",
    "unix_seconds_rfc3339",
]


def convert_line(source: Source, line: bytes, ord: int, off: int) -> Record:
    """One complete source line (no newline) of a 3.x ``messages.jsonl`` or 2.x ``<id>.jsonl`` into one record.

    ``ord`` counts lines from 1, ``off`` is the line's byte offset; the record's
    ``bytes`` is ``len(line)`` and ``sha`` the first 12 hex of its SHA-256
    (seed 000, Record). The line's shape decides the mapping (3.x: a
    ``payload`` object; 2.x: ``kind`` + ``data``). The record's ``run`` is the
    id of the prompt whose turn the line sits in, which the lines before it
    in ``source.path`` say (:mod:`asz_adapters_kiro.turns`; remembered between
    calls, read backward from ``off`` otherwise); without that file only a
    prompt line or a 3.x ``executionId`` gives a run. Never raises: what
    cannot be described is one ``unknown`` part holding the line.
    """
    path = getattr(source, "path", None)
    turn = Turn(TRACKER.before(path, off))
    rec = guard(line, ord, off, lambda r, root: line_record(r, root, turn), getattr(source, "src", "") or "")
    TRACKER.after(path, off + len(line) + 1, (turn.after, turn.request))
    if turn.writes:
        _add_changes(rec, turn.writes, source)
    return rec


def _add_changes(rec: Record, writes: list, source: Source) -> None:
    """The derived ``changes/1`` record of each write ``rec``'s line reported, as ``data`` parts after its source
    parts (seed 000, Parts; :mod:`asz_adapters_kiro.changes`), for the writes whose call (3.x) or result (2.x) the
    record holds: a line that fell back to one ``unknown`` part gets none."""
    held = {p.id for p in rec.parts if p.k == "call"} | {p.of for p in rec.parts if p.k == "result" and not p.failed}
    mine = [w for w in writes if w[0] in held]
    for record in records(mine, getattr(source, "session", "") or "", getattr(source, "stream", "") or ""):
        # A value the adapter built (seed 000, What data holds): the writer encodes it.
        rec.parts.append(Part(k="data", data=record, bytes=len(orjson.dumps(record))))


def convert_document(source: Source, data: bytes) -> Record:
    """One whole document (snapshot source) into one record at ord 1, off 0.

    ``sha`` and ``bytes`` cover ``data`` as given (seed 000, File kinds). A
    document with a ``history`` list is a 1.x conversation state and is
    broken into parts per history entry; 2.x and 3.x session metadata and
    other documents land whole as one data part. Never raises.
    """
    rec = guard(data, 1, 0, document_record, getattr(source, "src", "") or "")
    if "external_input" in rec.flags and not rec.cwd:  # a Kiro IDE session JSON: its directory names the workspace
        rec.cwd = workspace_of(getattr(source, "src", "") or "")
    return rec


def unfinished_reason(data: bytes) -> str:
    """``the document is not valid JSON (…)`` when ``data`` (a whole snapshot file, trailing newlines trimmed) does
    not decode as JSON, the one way a document Kiro was rewriting reads when cut (:data:`~.spans.REASON_NOT_JSON`);
    '' otherwise (a document that decodes, whatever it holds, reads whole). Never raises."""
    _, reason = parse(data)
    return f"{REASON_NOT_JSON.replace('the record', 'the document')} (read while Kiro rewrote it?)" if reason == REASON_NOT_JSON else ""
