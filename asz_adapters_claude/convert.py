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
* Types that are runtime bookkeeping (``progress``, ``summary``,
  ``file-history-snapshot``, …, see :data:`DESCRIBED_TYPES`) land whole as
  one ``data`` part with their ids and time, and no ``from``: §5.1 names a
  ``from`` only for user, assistant, system and attachment lines.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

import orjson

from .changes import derive_changes, editing_tool_of
from asz_core import (
    nesting_depth,
    FLAGS,
    Dropped,
    JSONSpanError,
    Part,
    RawJSON,
    Record,
    Source,
    Usage,
    array_elements,
    compact,
    loads_source,
    settle_surrogates,
    object_members,
    source_sha,
    unknown_part,
    value_span,
)

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

#: Top-level ``type`` values of a transcript line this dialect describes. Any
#: other value lands as one unknown part (field report 26).
DESCRIBED_TYPES = frozenset(
    {
        # conversation records
        "user",
        "assistant",
        "attachment",
        "system",
        # runtime bookkeeping: land whole as one data part
        "progress",
        "summary",
        "custom-title",
        "agent-name",
        "ai-title",
        "last-prompt",
        "queue-operation",
        "file-history-snapshot",
        "pr-link",
        "permission-mode",
        "bridge-session",
    }
)

#: Deepest nesting of a source line that still lands parsed: a record puts the
#: value three levels down (record, parts, part), and a Session Data reader
#: may refuse a line nesting deeper than 256 (seed 000, Reading a record).
MAX_SOURCE_DEPTH = 253

REASON_NOT_JSON = "the record is not valid JSON"
REASON_NOT_OBJECT = "the record is JSON but not an object"
REASON_TOO_DEEP = f"the record nests objects and lists deeper than {MAX_SOURCE_DEPTH}"
REASON_SCRIPT = "a workflow script is a program, not data"

SIGNATURE_WHY = "a provider verifies it; a reader cannot read it"
REDACTED_WHY = "the provider encrypted it; a reader cannot read it"

_FROM_BY_TYPE = {"assistant": "agent", "user": "external", "system": "runtime", "attachment": "runtime"}
_SYSTEM_FLAGS = {
    "compact_boundary": "context_reset",
    "api_error": "error",
    "turn_duration": "turn_duration",
    "local_command": "command",
}
_TRIGGERS = {"human": "external", "task-notification": "notification"}
_TOOL_USE_ID = re.compile(r"<tool-use-id>\s*([^<\s]+)\s*</tool-use-id>")
_TASK_ID = re.compile(r"<task-id>\s*([^<\s]+)\s*</task-id>")
_AGENT_ID = re.compile(r"a[0-9a-f]{16}")
_FLAG_ORDER = {f: i for i, f in enumerate(FLAGS)}


# --------------------------------------------------------------------------- JSON with spans


#: Lines up to this size (bytes) are checked for being orjson's own encoding of their value (see _Obj).
_CANONICAL_MAX = 1 << 16


def _canonical(raw: bytes, value: Any, begin: int, end: int) -> bool:
    """True when ``raw[begin:end]`` is byte for byte what ``orjson.dumps(value)`` writes.

    Claude Code writes compact JSON (JSON.stringify), which orjson writes the
    same way for almost every line. Such a line is a concatenation of its
    members' encodings, so member spans follow from encoded lengths (no
    scan of the bytes), and no part of it has whitespace to compact. Only
    lines up to ``_CANONICAL_MAX`` bytes are checked: a longer line is mostly
    long strings, which the byte walk skips faster than re-encoding.
    """
    if end - begin > _CANONICAL_MAX:
        return False
    try:
        encoded = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return len(encoded) == end - begin and raw.startswith(encoded, begin)


class _Obj:
    """A decoded JSON object together with the source bytes its members came from.

    ``canonical`` says the object's bytes are ``orjson.dumps`` of its value
    (:func:`_canonical`, checked once for the line): spans are then computed
    from encoded lengths and slices need no compacting. Otherwise spans come
    from :func:`asz_core.object_members` / :func:`asz_core.array_elements`.
    """

    __slots__ = ("value", "buf", "start", "end", "_spans", "canonical")

    def __init__(self, value: dict, buf: bytes, start: int, end: int = -1, canonical: bool = False):
        self.value = value
        self.buf = buf
        self.start = start
        self.end = end  # -1 until known
        self._spans: dict[str, tuple[int, int]] | None = None
        self.canonical = canonical

    def span(self, key: str) -> tuple[int, int]:
        """``(begin, end)`` of member ``key``'s value in ``buf``. Raises KeyError when absent."""
        if self._spans is None:
            if self.canonical:
                spans = {}
                pos = self.start + 1  # after "{"
                dumps = orjson.dumps
                for k, v in self.value.items():
                    b = pos + len(dumps(k)) + 1  # after "key":
                    pos = b + len(dumps(v))
                    spans[k] = (b, pos)
                    pos += 1  # the "," or "}"
                self._spans = spans
            else:
                self._spans = {k: (b, e) for k, b, e in object_members(self.buf, self.start)}
        return self._spans[key]

    def _slice(self, b: int, e: int) -> RawJSON:
        raw = self.buf[b:e]
        return RawJSON(raw if self.canonical else compact(raw))

    def raw(self, key: str) -> RawJSON:
        """Member ``key``'s source bytes, compacted (seed 000, What data holds)."""
        return self._slice(*self.span(key))

    def size(self, key: str) -> int:
        """Size in source bytes of member ``key``'s value."""
        b, e = self.span(key)
        return e - b

    def whole(self) -> RawJSON:
        """The whole object's source bytes, compacted."""
        return self._slice(*self.bounds())

    def bounds(self) -> tuple[int, int]:
        """``(begin, end)`` of the whole object in ``buf`` (scanned once)."""
        if self.end < 0:
            if self.canonical:
                self.end = self.start + len(orjson.dumps(self.value))
            else:
                self.start, self.end = value_span(self.buf, self.start)
        return self.start, self.end

    def whole_size(self) -> int:
        """Size in source bytes of the whole object."""
        b, e = self.bounds()
        return e - b

    def child(self, key: str) -> "_Obj | None":
        """Member ``key`` as an :class:`_Obj` when it is an object, else None."""
        v = self.value.get(key)
        if not isinstance(v, dict):
            return None
        return _Obj(v, self.buf, *self.span(key), canonical=self.canonical)

    def items(self, key: str) -> list[tuple[Any, int, int]]:
        """Elements of the array member ``key`` as ``(value, begin, end)``."""
        values = self.value[key]
        if self.canonical:
            out = []
            pos = self.span(key)[0] + 1  # after "["
            for v in values:
                e = pos + len(orjson.dumps(v))
                out.append((v, pos, e))
                pos = e + 1
            return out
        spans = array_elements(self.buf, self.span(key)[0])
        if len(spans) != len(values):  # pragma: no cover - the decoder and the span walker disagree
            raise JSONSpanError(f"array {key!r}: {len(spans)} spans for {len(values)} values")
        return [(v, b, e) for v, (b, e) in zip(values, spans)]


def _parse(raw: bytes) -> tuple[Any, str]:
    """Decode one line strictly: ``(value, "")`` or ``(None, reason)``.

    orjson first; a line orjson refuses only for an escaped lone surrogate is
    decoded by :func:`asz_core.loads_source` (no NaN, no infinite numbers),
    which keeps each lone surrogate as a code point; :func:`convert_record`
    then applies the surrogate rule (:func:`asz_core.settle_surrogates`: U+FFFD
    in text, counted in ``replaced``; field report 8).
    """
    try:
        return orjson.loads(raw), ""
    except orjson.JSONDecodeError as exc:
        message = str(exc)
        if "depth" in message or "recursion" in message:
            return None, REASON_TOO_DEEP
        if "surrogate" not in message:
            return None, REASON_NOT_JSON
    try:
        return loads_source(raw), ""
    except RecursionError:
        return None, REASON_TOO_DEEP
    except (ValueError, UnicodeDecodeError):
        return None, REASON_NOT_JSON


# --------------------------------------------------------------------------- small readers


def _s(d: Any, key: str) -> str:
    """``d[key]`` when ``d`` is a dict and the value a string, else ''."""
    if isinstance(d, dict):
        v = d.get(key)
        if isinstance(v, str):
            return v
    return ""


def _utf8_len(text: str) -> int:
    """Size in bytes of ``text`` as UTF-8, without encoding an ASCII string (a multi-megabyte copy) to learn it.

    A lone surrogate counts 3 bytes, the size of the U+FFFD that replaces it (asz_core.settle_surrogates).
    """
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _count(d: dict, key: str) -> int:
    v = d.get(key)
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63:
        return v
    return 0


def _usage(message: dict) -> Usage | None:
    u = message.get("usage")
    if not isinstance(u, dict):
        return None
    usage = Usage(
        in_=_count(u, "input_tokens"),
        out=_count(u, "output_tokens"),
        cache_read=_count(u, "cache_read_input_tokens"),
        cache_write=_count(u, "cache_creation_input_tokens"),
    )
    return None if usage.is_empty() else usage


def _ordered(flags: set[str]) -> list[str]:
    return sorted(flags, key=_FLAG_ORDER.__getitem__)


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 80 else text[:80] + "…"


def mcp_split(name: str) -> tuple[str, str] | None:
    """Split ``mcp__<server>__<tool>`` into ``(server, tool)``; None when it does not split exactly.

    The split is made only when exactly one ``__`` follows ``mcp__``, counting
    ones that overlap, and both sides are non-empty: ``mcp__a__b__c`` and
    ``mcp__foo___bar`` stay whole (seed 000, Parts; origin-digest §5.1).
    The server is Claude Code's mangled name, as written. Never raises.
    """
    if not name.startswith("mcp__"):
        return None
    rest = name[5:]
    if sum(1 for i in range(len(rest) - 1) if rest[i] == "_" and rest[i + 1] == "_") != 1:
        return None
    server, tool = rest.split("__")
    if not server or not tool:
        return None
    return server, tool


def withheld_flags_of_undecodable(raw: bytes) -> set[str]:
    """Withholdable flags for a line whose fields cannot be read (origin-digest §5.1 ``sentFlags``).

    A line containing ``prompt_snapshot`` may carry the system prompt and the
    tool schemas; one containing ``deferred_tools_record`` may carry tool
    schemas. Naming it is safer than showing it (seed 000, Flags). ``raw`` is
    the line's bytes; returns a set of flag names. Never raises.
    """
    flags: set[str] = set()
    if b"prompt_snapshot" in raw:
        flags.update(("system_prompt", "tool_schemas"))
    if b"deferred_tools_record" in raw:
        flags.add("tool_schemas")
    return flags


def _nonempty(v: Any, *, strings: bool) -> bool:
    if isinstance(v, (list, dict)):
        return bool(v)
    return strings and isinstance(v, str) and bool(v)


def _attachment_flags(att: dict) -> set[str]:
    """``sentFlags`` of an attachment (origin-digest §5.1)."""
    kind = att.get("type")
    if kind == "prompt_snapshot":
        flags = {"system_prompt"}
        if any("tool" in k.lower() and _nonempty(v, strings=True) for k, v in att.items()):
            flags.add("tool_schemas")
        return flags
    if kind == "deferred_tools_record":
        if any(k not in ("type", "toolInputCopies") and _nonempty(v, strings=False) for k, v in att.items()):
            return {"tool_schemas"}
    return set()


# --------------------------------------------------------------------------- content blocks


class _Parts:
    """Parts and dropped entries of one record, built in source order."""

    def __init__(self, rec: Record, tool_use_result: "_Obj | None"):
        self.rec = rec
        self.tur = tool_use_result  # taken by the first result part

    def add(self, part: Part) -> None:
        self.rec.parts.append(part)

    def unknown(self, buf: bytes, b: int, e: int, reason: str) -> None:
        self.add(unknown_part(buf[b:e], reason))

    def text(self, text: str, size: int = 0) -> None:
        """A text part; its ``bytes`` is the text's UTF-8 size (the original is the text itself)."""
        self.add(Part(k="text", text=text, bytes=_utf8_len(text)))

    def block(self, item: Any, buf: bytes, b: int, e: int, canonical: bool = False) -> None:
        """One content block into its part(s), or an unknown part (``canonical`` as for :class:`_Obj`)."""
        if not isinstance(item, dict):
            self.unknown(buf, b, e, "a content item that is not a JSON object")
            return
        kind = item.get("type")
        handler = _BLOCKS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            what = f'block type "{_shown(kind)}"' if isinstance(kind, str) else "a content block with no type"
            self.unknown(buf, b, e, f"{what} is not one this dialect describes")
            return
        if not handler(self, _Obj(item, buf, b, e, canonical), e - b):
            self.unknown(buf, b, e, f'block type "{kind}" does not have the shape this dialect describes')

    # Each handler returns False when the block lacks the fields its kind needs.

    def _text(self, blk: _Obj, size: int) -> bool:
        text = blk.value.get("text")
        if not isinstance(text, str):
            return False
        self.text(text, size)
        return True

    def _call(self, blk: _Obj, size: int) -> bool:
        v = blk.value
        part = Part(k="call", id=_s(v, "id"), name=_s(v, "name"))
        if "input" in v:
            part.data = blk.raw("input")
            part.bytes = len(part.data.raw)
        split = mcp_split(part.name)
        if split:
            part.server, part.server_tool = split
        self.add(part)
        return True

    def _thinking(self, blk: _Obj, size: int) -> bool:
        v = blk.value
        text = v.get("thinking")
        if text is not None and not isinstance(text, str):
            return False
        text = text or ""
        self.add(Part(k="reasoning", text=text, state="available" if text else "unavailable", bytes=_utf8_len(text)))
        sig = v.get("signature")
        if isinstance(sig, str) and sig:
            self.rec.dropped.append(Dropped(what="reasoning signature", bytes=_utf8_len(sig), why=SIGNATURE_WHY))
        return True

    def _redacted(self, blk: _Obj, size: int) -> bool:
        data = blk.value.get("data")
        self.add(Part(k="reasoning", state="redacted", bytes=_utf8_len(data) if isinstance(data, str) else 0))
        if isinstance(data, str) and data:
            self.rec.dropped.append(Dropped(what="redacted reasoning", bytes=_utf8_len(data), why=REDACTED_WHY))
        return True

    def _image(self, blk: _Obj, size: int) -> bool:
        src = blk.value.get("source")
        if not isinstance(src, dict) or src.get("type") != "base64" or not isinstance(src.get("data"), str):
            return False
        data = src["data"]
        self.add(Part(k="media", media=_s(src, "media_type"), data=data, bytes=_utf8_len(data)))
        return True

    def _result(self, blk: _Obj, size: int) -> bool:
        v = blk.value
        part = Part(k="result", of=_s(v, "tool_use_id"), bytes=size)
        if isinstance(v.get("is_error"), bool):
            part.failed = v["is_error"]
        media: list[tuple[_Obj, int]] = []
        content = v.get("content")
        raw_content = False
        if isinstance(content, str):
            part.text = content
        elif isinstance(content, list):
            texts = []
            for item, b, e in blk.items("content"):
                kind = item.get("type") if isinstance(item, dict) else None
                if kind == "text" and isinstance(item.get("text"), str):
                    texts.append(item["text"])
                elif kind == "image":
                    media.append((_Obj(item, blk.buf, b, e, blk.canonical), e - b))
                else:
                    raw_content = True
            part.text = "\n".join(texts)
        elif content is not None:
            raw_content = True
        if self.tur is not None:
            part.data = self.tur.whole()
            self.tur = None
        elif raw_content:
            part.data = blk.raw("content")
        # bytes is the size of the original result: its text, or its data when it has no text
        part.bytes = _utf8_len(part.text) if part.text else (len(part.data.raw) if isinstance(part.data, RawJSON) else 0)
        self.add(part)
        for item, item_size in media:
            if not self._image(item, item_size):
                b, e = item.bounds()
                self.unknown(item.buf, b, e, 'an image inside a tool result without base64 data')
        return True


_BLOCKS: dict[str, Callable[[_Parts, _Obj, int], bool]] = {
    "text": _Parts._text,
    "tool_use": _Parts._call,
    "server_tool_use": _Parts._call,
    "thinking": _Parts._thinking,
    "redacted_thinking": _Parts._redacted,
    "image": _Parts._image,
    "tool_result": _Parts._result,
}


# --------------------------------------------------------------------------- records by file kind


def _unknown_record(rec: Record, raw: bytes, reason: str) -> None:
    rec.parts = [unknown_part(raw, reason)]
    rec.flags = _ordered(withheld_flags_of_undecodable(raw))


#: String contents the runtime itself writes into a ``user`` record of a transcript without ``origin``.
_RUNTIME_USER_PREFIXES = ("<task-notification>", "<local-command-stdout>", "<local-command-stderr>")


def _typed_prompt(v: dict) -> str:
    """A ``user`` record of a runtime that writes no ``origin`` (Claude Code before ``origin`` existed; seed 003).

    Returns ``external`` for a person's prompt: not ``isMeta``, not a compact
    summary, not ``isSidechain`` (a child's opening prompt is its parent's
    words), no ``toolUseResult``, and content that is a string or a list of
    only text/image blocks (no ``tool_result``). Returns ``notification`` for
    a string content that opens with ``<task-notification>``; '' otherwise
    (including content the runtime writes for local commands).
    """
    if v.get("type") != "user" or "origin" in v or v.get("isMeta") is True or v.get("isCompactSummary") is True:
        return ""
    if v.get("isSidechain") is True:
        return ""
    if "toolUseResult" in v:
        return ""
    message = v.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        head = content.lstrip()
        if head.startswith("<task-notification>"):
            return "notification"
        if head.startswith(_RUNTIME_USER_PREFIXES):
            return ""
        return "external"
    if isinstance(content, list) and content and all(isinstance(b, dict) and b.get("type") in ("text", "image") for b in content):
        return "external"
    return ""


def _trigger(v: dict, attachment: dict | None) -> str:
    """Trigger by rule (origin-digest §5.1, Trigger; seed 003 for transcripts without ``origin``)."""
    origin = v.get("origin")
    if not isinstance(origin, dict) and attachment is not None:
        origin = attachment.get("origin")
    if isinstance(origin, dict):
        return _TRIGGERS.get(origin.get("kind"), "unknown") if isinstance(origin.get("kind"), str) else "unknown"
    if v.get("type") == "user" and v.get("isMeta") is not True and v.get("promptSource") == "sdk":
        return "external"
    return _typed_prompt(v)


def _transcript_flags(v: dict, t: str, message: dict | None, attachment: dict | None, tur: dict | None) -> set[str]:
    """``flagsOf`` and ``sentFlags`` of a transcript record (origin-digest §5.1)."""
    flags: set[str] = set()
    meta = v.get("isMeta") is True
    if t == "assistant" and message is not None:
        if message.get("model") == "<synthetic>":
            flags.add("synthetic")
        if isinstance(message.get("stop_reason"), str) and message["stop_reason"]:
            flags.add("finished")
    elif t == "system":
        flags.add(_SYSTEM_FLAGS.get(v.get("subtype"), "notice"))  # type: ignore[arg-type]
    elif t == "attachment" and attachment is not None:
        if attachment.get("type") == "queued_command" and attachment.get("commandMode") == "prompt":
            flags.add("external_input")
        else:
            flags.add("injected")
        flags |= _attachment_flags(attachment)
    elif t == "user" and not meta and v.get("isCompactSummary") is not True:
        origin = v.get("origin")
        if (isinstance(origin, dict) and origin.get("kind") == "human") or (origin is None and v.get("promptSource") == "sdk"):
            flags.add("external_input")
        elif _typed_prompt(v) == "external":
            flags.add("external_input")
    if v.get("isCompactSummary") is True:
        flags.add("reset_summary")
    if meta:
        flags.add("injected")
        flags.discard("external_input")
    if tur is not None:
        status = tur.get("status")
        if status == "async_launched":
            flags.add("launch_ack")
        elif status == "completed":
            flags.add("child_result")
    return flags


def _notification_links(rec: Record, content: str) -> None:
    """``<tool-use-id>`` and the first ``<task-id>`` shaped like an agent id of a task notification."""
    if not content.lstrip().startswith("<task-notification>"):
        return
    if not rec.tool:
        m = _TOOL_USE_ID.search(content)
        if m:
            rec.tool = m.group(1)
    if not rec.child:
        for m in _TASK_ID.finditer(content):
            if _AGENT_ID.fullmatch(m.group(1)):
                rec.child = m.group(1)
                break


def _attachment_part(parts: _Parts, att: _Obj, size: int) -> None:
    """Attachment → text when it holds prose, else the whole attachment as data (origin-digest §5.1)."""
    a = att.value
    if a.get("type") == "queued_command" and a.get("commandMode") == "prompt":
        prompt = a.get("prompt")
        if isinstance(prompt, str):
            parts.text(prompt, size)
            return
        if isinstance(prompt, list) and prompt and all(isinstance(x, dict) and isinstance(x.get("text"), str) for x in prompt):
            parts.text("\n".join(x["text"] for x in prompt), size)
            return
    for key in ("text", "content"):
        if isinstance(a.get(key), str) and a[key]:
            parts.text(a[key], size)
            return
    whole = att.whole()
    parts.add(Part(k="data", data=whole, bytes=len(whole.raw)))


def _transcript(rec: Record, obj: _Obj, raw: bytes, source: Source | None = None) -> None:
    v = obj.value
    t = v.get("type")
    if not isinstance(t, str) or t not in DESCRIBED_TYPES:
        reason = (
            f"record type {json.dumps(_shown(t), ensure_ascii=False)} is not one this dialect describes"
            if "type" in v
            else "a record with no type is not one this dialect describes"
        )
        _unknown_record(rec, raw, reason)
        return
    message = v.get("message") if t in ("user", "assistant") and isinstance(v.get("message"), dict) else None
    attachment = v.get("attachment") if t == "attachment" and isinstance(v.get("attachment"), dict) else None
    tur = v.get("toolUseResult") if isinstance(v.get("toolUseResult"), dict) else None

    rec.id = _s(v, "uuid")
    rec.parent = _s(v, "parentUuid")
    rec.run = _s(v, "promptId")
    rec.continues = _s(v, "logicalParentUuid")
    rec.time = _s(v, "timestamp")
    rec.from_ = _FROM_BY_TYPE.get(t, "")
    if t == "ai-title":
        rec.label = _s(v, "aiTitle")
    if tur is not None:
        rec.tool = _s(tur, "toolUseId")
        rec.child = _s(tur, "agentId")
        rec.batch = _s(tur, "runId")
    if message is not None:
        rec.call = _s(message, "id")
        rec.model = _s(message, "model")
        rec.usage = _usage(message)
    rec.trigger = _trigger(v, attachment)
    rec.flags = _ordered(_transcript_flags(v, t, message, attachment, tur))

    parts = _Parts(rec, obj.child("toolUseResult") if tur is not None else None)
    content = message.get("content") if message is not None else None
    if isinstance(content, str):
        parts.text(content)  # a text part's bytes is its text's size: no span needed
        _notification_links(rec, content)
    elif isinstance(content, list):
        for item, b, e in obj.child("message").items("content"):
            parts.block(item, raw, b, e, obj.canonical)
    elif content is not None:
        b, e = obj.child("message").span("content")
        parts.unknown(raw, b, e, "message content that is neither text nor a list of blocks")
    elif attachment is not None:
        _attachment_part(parts, obj.child("attachment"), obj.size("attachment"))
    else:
        parts.add(Part(k="data", data=obj.whole(), bytes=obj.whole_size()))
        return
    if parts.tur is not None:  # a toolUseResult with no result block to sit beside
        parts.add(Part(k="data", data=parts.tur.whole(), bytes=parts.tur.whole_size()))
    _derived_changes(rec, v, source)


def _derived_changes(rec: Record, v: dict, source: Source | None) -> None:
    """Edit, Write and NotebookEdit results get a second data part: the derived ``changes/1`` record (§3.6, §5.1).

    It comes after the parts of the source content (seed 000, Addressing a
    record); the record's ``tool`` names the call it answers.
    """
    tur = v.get("toolUseResult")
    tool_name = editing_tool_of(tur)
    if not tool_name:
        return
    of = next((p.of for p in rec.parts if p.k == "result" and p.of), "")
    cwd = v.get("cwd") if isinstance(v.get("cwd"), str) else ""
    session = source.session if source is not None else _s(v, "sessionId")
    stream = (source.stream if source is not None else "") or "main"
    record = derive_changes(tool_name, of, None, tur, cwd, session, stream, _s(v, "timestamp"))
    if record is None:
        return
    # A value the adapter built (seed 000, What data holds): the writer encodes it.
    rec.parts.append(Part(k="data", data=record, bytes=len(orjson.dumps(record))))
    if not rec.tool:
        rec.tool = of


def _whole_data(rec: Record, obj: _Obj) -> None:
    rec.parts = [Part(k="data", data=obj.whole(), bytes=obj.whole_size())]
    rec.from_ = "runtime"


def _journal(rec: Record, obj: _Obj, source: Source) -> None:
    v = obj.value
    _whole_data(rec, obj)
    rec.child = _s(v, "agentId")
    rec.batch = source.batch or _s(v, "runId")
    rec.time = _s(v, "timestamp")
    if "result" in v:
        rec.flags = ["child_result"]


def _sidecar(rec: Record, obj: _Obj, source: Source) -> None:
    v = obj.value
    _whole_data(rec, obj)
    rec.child = _s(v, "agentId") or source.stream
    rec.tool = _s(v, "toolUseId")
    rec.label = _s(v, "description")
    rec.started_by = _s(v, "parentAgentId")
    rec.batch = source.batch


def _manifest(rec: Record, obj: _Obj, source: Source) -> None:
    v = obj.value
    _whole_data(rec, obj)
    rec.batch = source.batch or _s(v, "runId")
    rec.label = _s(v, "workflowName")


_KINDS = {"journal": _journal, "agent_meta": _sidecar, "workflow_manifest": _manifest}


def _may_nest_too_deep(raw: bytes, value: Any) -> bool:
    """False only when ``value`` (decoded from ``raw``) cannot nest deeper than MAX_SOURCE_DEPTH.

    Nesting deeper than the limit needs more than that many objects and
    lists, each opened by its own ``{`` or ``[`` in ``raw``. A short line
    counts those bytes; a long one counts the containers of the decoded
    value, stopping past the limit, so a line of long strings is not scanned
    again.
    """
    if len(raw) <= 1 << 12:
        return raw.count(b"{") + raw.count(b"[") > MAX_SOURCE_DEPTH
    seen = 1  # the value itself, an object
    stack = [value]
    while stack:
        v = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        for c in children:
            if isinstance(c, (dict, list)):
                seen += 1
                if seen > MAX_SOURCE_DEPTH:
                    return True
                stack.append(c)
    return False


def _line_bounds(raw: bytes) -> tuple[int, int]:
    """``(begin, end)`` of the one JSON value a decoded line holds: the line without its outer whitespace."""
    begin, end = 0, len(raw)
    while raw[begin] in b" \t\n\r":
        begin += 1
    while raw[end - 1] in b" \t\n\r":
        end -= 1
    return begin, end


def _fill(rec: Record, source: Source, raw: bytes) -> None:
    if source.kind == "workflow_script":
        rec.parts = [unknown_part(raw, REASON_SCRIPT)]
        rec.from_ = "runtime"
        rec.batch = source.batch
        return
    value, reason = _parse(raw)
    if not reason and not isinstance(value, dict):
        reason = REASON_NOT_OBJECT
    if not reason and _may_nest_too_deep(raw, value) and nesting_depth(value) > MAX_SOURCE_DEPTH:
        reason = REASON_TOO_DEEP
    if reason:
        _unknown_record(rec, raw, reason)
        return
    begin, end = _line_bounds(raw)
    obj = _Obj(value, raw, begin, end, _canonical(raw, value, begin, end))
    if source.kind == "transcript":
        _transcript(rec, obj, raw, source)
    elif source.kind in _KINDS:
        _KINDS[source.kind](rec, obj, source)
    else:
        _unknown_record(rec, raw, f"file kind {source.kind!r} is not one this dialect lands")


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
        _fill(rec, source, raw)
        settle_surrogates(rec)
    except Exception as exc:  # never let one record stop a pass
        rec = Record(ord=ord, off=off, sha=rec.sha, bytes=len(raw))
        _unknown_record(rec, raw, f"the dialect could not convert this record ({type(exc).__name__}: {_shown(str(exc))})")
    return rec
