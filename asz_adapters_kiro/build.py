"""The ``kiro/1`` record builder and the small rules every Kiro shape shares (docs/adapters/kiro.md).

:class:`Build` collects a record's parts, flags and dropped entries in source
order; :func:`guard` decodes a record, runs a shape's filler on it and falls
back to one ``unknown`` part on any failure, then applies the surrogate rule.
Part sizes (seed 000, Parts): see :mod:`asz_adapters_kiro.convert`.
"""

from __future__ import annotations

import datetime as _dt
import json
import ntpath
import posixpath
from typing import Callable

from asz_core import (FLAGS, Dropped, Part, RawJSON, Record, compact, described_escaped, keys_twice, member_part, member_source,
                      not_utf8_reason, settle_surrogates, source_sha, time_as_written, twice_dropped, unknown_part)

from .spans import REASON_NOT_JSON, REASON_NOT_OBJECT, Node, parse, root_node

__all__ = [
    "ANNOTATION_WHY",
    "CLASSIFICATION",
    "PAYLOAD_ANNOTATIONS",
    "DIALECT",
    "ENV_WHY",
    "EXECUTION_WHY",
    "FLAG_ORDER",
    "SIGNATURE_WHY",
    "Build",
    "call_part",
    "failed_from_status",
    "guard",
    "mcp_split",
    "new_record",
    "original_size",
    "result_content",
    "shown",
    "unix_seconds_rfc3339",
    "unknown_record",
    "v1_text",
    "v2_text",
    "workspace_path",
    "node_time",
]

#: The dialect this module reads.
DIALECT = "kiro/1"

ANNOTATION_WHY = "runtime annotations (display titles, modes, checkpoint links, statuses) this dialect does not carry"
#: The members of a 3.x ``payload`` that are runtime annotations this dialect knows and does not carry (the real
#: corpus's, docs/adapters/kiro.md): listed under ``dropped`` with :data:`ANNOTATION_WHY`. Any other member it does
#: not read lands as an unknown part (:meth:`Build.leftovers`).
PAYLOAD_ANNOTATIONS = frozenset({"_meta", "title", "kind", "actionType", "status", "filePath", "durationMs"})
#: The members of a 3.x / IDE ``tool_call`` payload that are Kiro's own classification of the call (its approval
#: ``status``, ``kind`` ``edit``/``delete``/``execute``/``read``…, ``actionType`` and the ``filePath`` it acts on): kept as
#: one data part after the call (:meth:`Build.kept`; trial 29c, F9), no longer dropped.
CLASSIFICATION = ("status", "kind", "actionType", "filePath")
SIGNATURE_WHY = "a provider verifies it; a reader cannot read it"
ENV_WHY = "the environment snapshot sent with each prompt (operating system, working directory, variables)"
EXECUTION_WHY = "the id of one execution inside the turn; the record's run is the id of the prompt that opened the turn"

FLAG_ORDER = {f: i for i, f in enumerate(FLAGS)}
_OK = frozenset({"success", "completed", "complete", "ok", "succeeded"})
_FAILED = frozenset({"error", "failed", "failure", "cancelled", "canceled", "denied", "rejected", "timeout", "timed_out"})


# --------------------------------------------------------------------------- small rules


def failed_from_status(status: object) -> bool | None:
    """``failed`` of a result from the runtime's status word (case-insensitive).

    ``success``/``completed``/``ok`` → False; ``error``/``failed``/``cancelled``/
    ``denied``/``rejected``/``timeout`` → True; a bool ``success`` field is
    read by the caller. Anything else → None (the runtime said nothing this
    dialect can read, so ``failed`` stays absent; seed 000, Parts).
    """
    if not isinstance(status, str):
        return None
    s = status.strip().lower()
    if s in _OK:
        return False
    if s in _FAILED:
        return True
    return None


def mcp_split(name: str) -> tuple[str, str] | None:
    """Split an MCP tool name into ``(server, tool)`` only when it splits one way.

    Two forms exist in the Kiro / Amazon Q CLI family: the name the model
    sees, ``<server>___<tool>`` (three underscores, the CLI's namespace
    delimiter), and the display form ``@<server>/<tool>``. The split is made
    when exactly one ``___`` occurs counting overlapping runs (so ``a____b``
    and ``a___b___c`` stay whole), or when the name starts with ``@`` and
    holds exactly one ``/``; both sides must be non-empty. Returns None
    otherwise (seed 000, Parts: MCP names split only where they split exactly).
    """
    if name.startswith("@"):
        rest = name[1:]
        if rest.count("/") == 1:
            server, tool = rest.split("/")
            if server and tool:
                return server, tool
        return None
    hits = [i for i in range(len(name) - 2) if name[i:i + 3] == "___"]
    if len(hits) != 1:
        return None
    i = hits[0]
    server, tool = name[:i], name[i + 3:]
    if not server or not tool:
        return None
    return server, tool


def unix_seconds_rfc3339(value: object) -> str:
    """An integer count of seconds since the epoch as RFC 3339 UTC (``2026-05-27T18:15:03Z``; seed 000, Reading a record).

    Returns '' for anything that is not an int in the platform's range (a bool is not one). Never raises.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return ""
    try:
        return _dt.datetime.fromtimestamp(value, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return ""


def workspace_path(value: str) -> str:
    """``value`` when it is an absolute path (POSIX ``/…``; Windows ``C:\\…`` or ``\\\\server\\…``), else '': the
    record's ``cwd`` and so the view's project. A relative working directory names no folder: Kiro 2.x writes ``.``
    in the ``<id>.json`` of a session a sub-agent started (the real corpus), and a project of ``.`` would be made
    up; the document keeps the value in its data part. Never raises."""
    return value if value and (posixpath.isabs(value) or ntpath.isabs(value)) else ""


def node_time(node: Node | None, read: str = "") -> str:
    """A record's ``time`` from the runtime's time member ``node``: ``read`` (the dialect's reading of it as RFC 3339,
    a 2.x count of seconds, an IDE count of milliseconds) when given, else the value as written
    (:func:`asz_core.time_as_written`: a string as written, another value as its source text), which every reader
    reads as no time and ``asz collect`` says, naming the line, field and value (trial 30a F8); '' when the member is
    absent. A metadata document's own time of last writing (2.x ``updated_at``) is the one time a 2.x session states
    after its prompt (assistant and tool entries carry none), so a conversation's range, and the list's DURATION,
    end there instead of at the prompt. Never raises."""
    if read or node is None:
        return read
    return time_as_written(node.value, node.source() if not isinstance(node.value, str) else None)


def shown(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 80 else text[:80] + "…"


def call_part(call_id: str, name: str, inp: Node | None) -> Part:
    """A ``call`` part: its id, name, input as source JSON, and MCP server and tool when the name splits exactly."""
    part = Part(k="call", id=call_id, name=name)
    if inp is not None:
        part.data = inp.raw()
    split = mcp_split(name)
    if split:
        part.server, part.server_tool = split
    return part


# --------------------------------------------------------------------------- record builder


class Build:
    """One record under construction: parts in source order, flags, and stated drops."""

    def __init__(self, rec: Record):
        self.rec = rec
        self.flags: set[str] = set()
        self._drops: dict[str, list] = {}
        self._undescribed: list[Part] = []  # unknown parts of members not described (:meth:`leftovers`)

    def add(self, part: Part) -> None:
        self.rec.parts.append(part)

    def text(self, text: str) -> None:
        self.add(Part(k="text", text=text))

    def data(self, node: Node) -> None:
        self.add(Part(k="data", data=node.raw()))

    def kept(self, node: Node, names) -> set[str]:
        """The members of ``node`` named in ``names`` that it holds, not null, kept as one ``data`` part: an object of
        those members and their values, in source order, a value the adapter built (seed 000, What data holds: not
        one source slice, so the writer encodes it), its ``bytes`` the size of the members as written. Returns the
        names kept (none: no part)."""
        if not isinstance(node.value, dict):
            return set()
        found = [(k, child) for k, child in node.members() if k in names and child.value is not None]
        if found:
            size = sum(len(compact(member_source(node.buf, node.begin, k))) - 2 for k, _ in found) + len(found) + 1
            self.add(Part(k="data", data={k: child.value for k, child in found}, bytes=size))
        return {k for k, _ in found}

    def unknown(self, node: Node, reason: str) -> None:
        self.add(unknown_part(node.source(), reason))

    def drop(self, what: str, size: int, why: str) -> None:
        entry = self._drops.setdefault(what, [0, why])
        entry[0] += size

    def leftovers(self, node: Node | None, used: set[str], where: str, understood: frozenset[str] = frozenset(),
                  in_place: bool = False) -> None:
        """The members of ``node`` not in ``used``: those in ``understood`` (runtime annotations the dialect knows and
        does not carry) stated as one dropped entry, null ones left out (seed 000, Dropped); any other member, one the
        dialect does not describe, kept verbatim as an unknown part, ``{"name":value}`` from the source bytes, with the
        text ``member "name" of the <where> is not one this dialect describes``, placed by :meth:`finish` after the
        content's parts, or here with ``in_place`` (a 1.x conversation state: one record, each entry's parts in
        turn; seed 000, Parts; trial 23a F7)."""
        if node is None or not isinstance(node.value, dict):
            return
        names, size = [], 0
        for key, child in node.members():
            if key in used:
                continue
            if key not in understood:
                part = member_part(member_source(node.buf, node.begin, key), key, f"the {where}")
                (self.rec.parts if in_place else self._undescribed).append(part)
            elif child.value is not None:
                names.append(key)
                size += child.size
        if names:
            self.drop(f"{where} members {', '.join(names)}", size, ANNOTATION_WHY)

    def finish(self) -> None:
        self.rec.parts += self._undescribed
        self.rec.flags = sorted(self.flags, key=FLAG_ORDER.__getitem__)
        for what, (size, why) in self._drops.items():
            self.rec.dropped.append(Dropped(what=what, bytes=size, why=why))


def new_record(raw: bytes, ord_: int, off: int) -> Record:
    return Record(ord=ord_, off=off, sha=source_sha(raw), bytes=len(raw))


def unknown_record(rec: Record, raw: bytes, reason: str) -> Record:
    rec.parts = [unknown_part(raw, reason)]
    rec.flags, rec.dropped, rec.usage = [], [], None
    return rec


def guard(raw: bytes, ord_: int, off: int, body: Callable[[Record, Node], None], src: str = "") -> Record:
    """Parse ``raw`` (line ``ord_`` of source ``src`` at byte ``off``), run ``body`` on it, and fall back to one unknown
    part on any failure. A line that is not valid UTF-8 says where (:func:`asz_core.not_utf8_reason`) and, when its
    bad bytes sit inside strings, is described from the line with each written ``\\udcXX`` (the surrogate rule shows
    U+FFFD), its own bytes kept whole in a trailing unknown part (:data:`asz_core.NOT_UTF8_KEPT`; trial 50c F8: a
    Latin-1 byte in a prompt landed the line as "not valid JSON", the prompt in no talk)."""
    rec = new_record(raw, ord_, off)
    value, reason = parse(raw)
    if reason == REASON_NOT_JSON and (why := not_utf8_reason(raw, src, ord_, off)):
        return _not_utf8(rec, raw, why, body, src)
    if reason:
        return unknown_record(rec, raw, reason)
    if not isinstance(value, dict):
        return unknown_record(rec, raw, REASON_NOT_OBJECT)
    try:
        body(rec, root_node(value, raw))
        for part in rec.parts:
            part.bytes = original_size(part)
        if keys_twice(raw, 0, len(raw)):  # a key given twice: the last is read, each earlier one named (trial 27c F9)
            rec.dropped.extend(twice_dropped(raw, 0, len(raw)))
        settle_surrogates(rec)  # the one surrogate rule (docs/session-data.md): U+FFFD in text, counted
    except Exception as exc:  # never raise for input (Adapter.convert_line contract)
        return unknown_record(new_record(raw, ord_, off), raw, f"the kiro adapter failed on this record: {type(exc).__name__}")
    return rec


def _not_utf8(rec: Record, raw: bytes, why: str, body: Callable[[Record, Node], None], src: str) -> Record:
    """:func:`guard`'s record of a line that is not valid UTF-8 (``why`` says where): described from the escapes when
    that describes it with no unknown part of its own (one cut from the escaped line would hold the escapes, not the
    source bytes), else the whole line one unknown part; ``ord``, ``off``, ``bytes`` and ``sha`` stay the line's."""
    got = described_escaped(raw, why, lambda sub: guard(sub, rec.ord, rec.off, body, src))
    if got is None:
        return unknown_record(rec, raw, why)
    got.sha, got.bytes = rec.sha, rec.bytes
    return got


def original_size(part: Part) -> int:
    """A part's ``bytes``: the size of what it holds when whole (module docstring, Part sizes)."""
    if part.k in ("unknown", "media") or (part.k == "data" and isinstance(part.data, dict)):  # kept as given (Build.kept)
        return part.bytes
    if part.text and part.k in ("text", "reasoning", "result"):
        return len(part.text.encode("utf-8", "surrogatepass"))  # a lone surrogate: 3 bytes, as its U+FFFD
    if isinstance(part.data, RawJSON):
        return len(part.data.raw)
    return 0



def v2_text(blk: object) -> str | None:
    """The text of a 2.x result item ``{"kind": "text", "data": str}``, else None."""
    if isinstance(blk, dict) and blk.get("kind") == "text" and isinstance(blk.get("data"), str):
        return blk["data"]
    return None


def v1_text(blk: object) -> str | None:
    """The text of a 1.x result block ``{"Text": str}``, else None."""
    if isinstance(blk, dict) and set(blk) == {"Text"} and isinstance(blk["Text"], str):
        return blk["Text"]
    return None


def result_content(part: Part, content: Node | None, text_of: Callable[[object], str | None]) -> None:
    """Fill a result part from its content: a string is the text; a list's text items are joined with
    newlines and, when any item is not text, the whole list is kept as ``data`` beside them."""
    if content is None or content.value is None:
        return
    if isinstance(content.value, str):
        part.text = content.value
        return
    if not isinstance(content.value, list):
        part.data = content.raw()
        return
    texts = [text_of(blk) for blk in content.value]
    part.text = "\n".join(t for t in texts if t is not None)
    if any(t is None for t in texts):
        part.data = content.raw()
