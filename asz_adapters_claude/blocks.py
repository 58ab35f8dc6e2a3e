"""Content blocks of a Claude Code message into Session Data parts (origin-digest §5.1, Session Data mapping of content blocks).

Part sizes: ``bytes`` on a part is the size in bytes of the source JSON the
part was made from (a content block, a string value), except a media part
(the length of its base64 text) and an unknown part (the bytes it keeps). A
result part that also takes the record's ``toolUseResult`` counts both.
See :mod:`asz_adapters_claude.convert` for the decisions where the mapping leaves room.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from asz_core import FLAGS, Dropped, Part, RawJSON, Record, Usage, is_member_part, mcp_split, unknown_part
from asz_core.sessiondata.vocabulary import USAGE_COUNT_DROPPED, USAGE_RATE_DROPPED
from asz_core.plugins.adapter import adapter_version as core_adapter_version

from .companions import note_companion
from .jsonspans import Obj, element_bytes
from .members import BLOCK_CHECKS, BLOCK_LEVELS, undescribed_members

__all__ = [
    "BLOCKS",
    "CONTENT_LIST_WHAT",
    "CONTENT_LIST_WHY",
    "RATE_WHY",
    "FLAG_ORDER",
    "REDACTED_WHY",
    "SIGNATURE_WHY",
    "USAGE_WHY",
    "Parts",
    "adapter_version",
    "attachment_flags",
    "content_shape",
    "count_of",
    "fixed_notice",
    "mcp_split",
    "note_content_list",
    "ordered_flags",
    "shown",
    "str_of",
    "rate_dropped",
    "rates_stated",
    "usage_of",
    "utf8_len",
    "withheld_flags_of_undecodable",
]

SIGNATURE_WHY = "a provider verifies it; a reader cannot read it"
REDACTED_WHY = "the provider encrypted it; a reader cannot read it"
FLAG_ORDER = {f: i for i, f in enumerate(FLAGS)}

#: What a ``user`` line whose content was a list of one text block lists under ``dropped`` (seed 000, Dropped): the
#: list and the block around the text, which its one text part cannot show, since a string lands as one text part too
#: (origin-digest §5.1: "Plain-string content -> one text part"). Seed 003 tells a person's prompt (a string) from the
#: runtime's list of one text block (an interrupt notice) by exactly this; :func:`content_shape` reads it back. An
#: ``assistant`` line is the API message shape, whose content is a list (seed 003 §2), and gets no such entry: the
#: original's example document (asz-view-example.yaml) shows its one-block replies with none.
CONTENT_LIST_WHAT = "content list"
CONTENT_LIST_WHY = "the list held only this text block, which is the text part"
#: The first ``claude-code-local`` version whose files state :data:`CONTENT_LIST_WHAT` (docs/adapter-claude-code.md).
CONTENT_LIST_FROM = (0, 2, 0)
#: The first ``claude-code-local`` version that states :data:`CONTENT_LIST_WHAT` for a list of one text block holding a
#: member no dialect describes (0.5.0 landed that member's part beside the text and stated no list: :func:`content_shape`
#: reads such a record of a 0.5.0 file as not known).
BLOCK_MEMBERS_LISTED_FROM = (0, 6, 0)
#: The first ``claude-code-local`` version that lists a call's rate other than standard under ``dropped``
#: (:func:`rate_dropped`); the adapter stated it from commit 7a8464b, still calling itself 0.2.0, and 0.3.0 says it.
RATES_STATED_FROM = (0, 3, 0)


def str_of(d: Any, key: str) -> str:
    """``d[key]`` when ``d`` is a dict and the value a string, else ''."""
    if isinstance(d, dict):
        v = d.get(key)
        if isinstance(v, str):
            return v
    return ""


def utf8_len(text: str) -> int:
    """Size in bytes of ``text`` as UTF-8, without encoding an ASCII string (a multi-megabyte copy) to learn it.

    A lone surrogate counts 3 bytes, the size of the U+FFFD that replaces it (asz_core.settle_surrogates).
    """
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def count_of(d: dict, key: str) -> int:
    v = d.get(key)
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63:
        return v
    return 0


#: The counts of a message's ``usage`` in the order of :class:`Usage`'s fields (in, out, cache read, cache write).
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
#: Why a usage count that is not a Session Data integer is listed under ``dropped`` (seed 000, Record and Dropped).
USAGE_WHY = "not an integer that fits in 64 bits with its sign"
_I64 = range(-(2**63), 2**63)
#: A 1-hour cache write count: from 0, in 64 bits.
_COUNTS = range(2**63)
#: Why a 1-hour cache write count is dropped: it is asz's split of ``cache_write``, a part of it, never below 0.
SPLIT_WHY = "not a count of the 1-hour cache writes (an integer from 0 that fits in 64 bits)"


def _usage_count(u: dict, key: str, parent: Obj | None, path: tuple[str, ...], dropped: list[Dropped] | None,
                 why: str = USAGE_WHY, counts: range = _I64) -> int:
    """``u[key]`` when it is an integer in ``counts`` (Session Data's: 64 bits with its sign, so a negative count is
    kept as written); 0 when absent or null (seed 000: null is a field left out); otherwise 0 and, when ``dropped`` is
    given, an entry naming the field, its size in source bytes and the value (docs/adapters/claude-code.md, Usage).
    ``u`` is the object at ``path`` below the message ``parent`` (its :class:`Obj`, for the value's source bytes: the
    Obj of ``u`` is made only then, as this runs for every assistant record)."""
    v = u.get(key)
    if v is None or (type(v) is int and v in counts):
        return v or 0
    if dropped is not None:
        obj = parent
        for name in path:
            obj = obj.child(name) if obj is not None else None
        raw = obj.member_bytes(key).strip() if obj is not None else json.dumps(v).encode()
        where = ".".join(("message",) + path)
        dropped.append(Dropped(what=f"{USAGE_COUNT_DROPPED}{where}.{key}", bytes=len(raw), why=f"{why}: {shown(raw.decode('utf-8', 'replace'))}"))
    return 0


def usage_of(message: dict, msg: Obj | None = None, dropped: list[Dropped] | None = None) -> Usage | None:
    """``message.usage`` as Session Data usage; None when there is none or all are 0.

    ``cache_write`` is ``cache_creation_input_tokens`` (every cache write, as
    the original lands it); ``cache_write_1h`` the 1-hour part of it,
    ``cache_creation.ephemeral_1h_input_tokens``, when the source gives one
    (the rest are 5-minute writes). A count that is not an integer in 64 bits
    with its sign (12.5, "7", 10**30, true) is left out of usage and, with
    ``dropped`` given, listed there (``msg`` is the message's :class:`Obj`, for
    the value's source bytes). What usage leaves out is listed in
    docs/adapters/claude-code.md, Known gaps.
    """
    u = message.get("usage")
    if not isinstance(u, dict):
        return None
    # the common case in one pass (a decoded int is exactly int: bool is not taken); a count that is not, one by one,
    # with the usage's source bytes (its Obj is made only then: this runs for every assistant record)
    counts = [v if type(v) is int and -(2**63) <= v < 2**63 else 0 if v is None else None for v in map(u.get, _USAGE_KEYS)]
    if None in counts:
        counts = [_usage_count(u, k, msg, ("usage",), dropped) for k in _USAGE_KEYS]
    split = u.get("cache_creation")
    if type(split) is dict:
        counts.append(_usage_count(split, "ephemeral_1h_input_tokens", msg, ("usage", "cache_creation"), dropped,
                                   SPLIT_WHY, _COUNTS))
    if dropped is not None and (u.get("speed", "standard") != "standard" or u.get("service_tier", "standard") != "standard"
                                or u.get("inference_geo", "") not in _NO_REGION):
        rate_dropped(u, msg, dropped)
    return Usage(*counts) if any(counts) else None


#: The ``message.usage`` fields that price a call at a multiple of standard rates, each with the values that do not:
#: ``speed`` (``fast``: fast mode), ``service_tier`` (``priority``, ``batch``), ``inference_geo`` (a region such as
#: ``us``; ``global``, the API's default, is priced at standard rates). null is a field left out (seed 000). The values
#: the shared corpus holds: speed and service_tier ``standard``, inference_geo ``""`` or ``not_available``.
_NO_REGION = ("", "not_available", "global", None)
_RATE_FIELDS = (("speed", ("standard", None)), ("service_tier", ("standard", None)), ("inference_geo", _NO_REGION))
#: Why a rate field is listed under ``dropped`` (seed 000, Dropped): usage lands its counts only, and readers price them.
RATE_WHY = "priced by a rate the price table does not hold; the call is priced at standard rates"


def rate_dropped(u: dict, msg: Obj | None, dropped: list[Dropped]) -> None:
    """List under ``dropped`` each field of ``u`` (a message's usage; ``msg`` the message's :class:`Obj`, for the
    field's source bytes) that prices the call at a rate other than standard (:data:`_RATE_FIELDS`): ``what`` is
    :data:`USAGE_RATE_DROPPED`, the source field and its value, ``bytes`` the value's source bytes."""
    obj = msg.child("usage") if msg is not None else None
    for key, standard in _RATE_FIELDS:
        v = u.get(key)
        if v in standard:
            continue
        raw = obj.member_bytes(key).strip() if obj is not None else json.dumps(v).encode()
        value = v if isinstance(v, str) else raw.decode("utf-8", "replace")
        dropped.append(Dropped(what=f"{USAGE_RATE_DROPPED}message.usage.{key} {shown(value)}", bytes=len(raw), why=RATE_WHY))


def ordered_flags(flags: set[str]) -> list[str]:
    return sorted(flags, key=FLAG_ORDER.__getitem__)


def shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 80 else text[:80] + "…"


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


def attachment_flags(att: dict) -> set[str]:
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


def note_content_list(rec: Record, message: Obj, content: list) -> None:
    """When a ``user`` message's ``content`` (a list) landed as exactly one text part (beside the unknown parts of its
    block's members no dialect describes: a member part is not a content block), list the wrapper under ``rec.dropped``:
    ``what`` :data:`CONTENT_LIST_WHAT`, ``bytes`` the list's source bytes less those of the text's JSON string as
    written (the brackets, the block's other members and their separators), ``why`` :data:`CONTENT_LIST_WHY`."""
    parts = rec.parts
    if len(content) != 1 or not parts or parts[0].k != "text" or not all(map(is_member_part, parts[1:])):
        return
    ((item, b, e),) = message.items("content")
    text = Obj(item, message.buf, b, e, message.canonical).member_bytes("text")
    rec.dropped.append(Dropped(what=CONTENT_LIST_WHAT, bytes=len(message.member_bytes("content")) - len(text),
                               why=CONTENT_LIST_WHY))


def adapter_version(adapter: str) -> tuple[int, ...] | None:
    """The version of a ``claude-code-local/X.Y.Z`` header value (a landed file's ``adapter``) as a tuple of ints,
    ``(0, 3, 1)``; None for another adapter or a version that is not dotted integers (``0.2.0-dev``). Raises nothing."""
    return core_adapter_version(adapter, "claude-code-local")


def rates_stated(adapter: str) -> bool | None:
    """Whether a landed file whose header names ``adapter`` lists a call's rate other than standard under ``dropped``
    (:func:`rate_dropped`): True from ``claude-code-local`` :data:`RATES_STATED_FROM` on, False before it (the rate was
    not looked at: a fast-mode call's record reads as a standard one), None for another adapter or version. A file
    landed from commit 7a8464b to 0.3.0 states it under the name 0.2.0 and reads as False: its calls are said not
    checked, never priced otherwise. Never raises."""
    v = adapter_version(adapter)
    return None if v is None else v >= RATES_STATED_FROM


def content_shape(adapter: str, record: Mapping[str, Any]) -> str | None:
    """``"list"`` or ``"string"``: the shape of the message content a landed record of one text part was read from,
    for a file whose header names ``adapter`` ``claude-code-local/V`` with V at least :data:`CONTENT_LIST_FROM`: a
    record from ``external`` (a ``user`` line) is a list when its ``dropped`` lists :data:`CONTENT_LIST_WHAT`
    (:func:`note_content_list`), else a string; a record from ``agent`` (an ``assistant`` line, the API message shape:
    seed 003 §2) is a list. None for any other record or file (an earlier version did not state the list, so its
    records cannot tell), and for a record from ``external`` of a file before :data:`BLOCK_MEMBERS_LISTED_FROM` whose
    text block held a member no dialect describes (its member part beside the text) and states no list. Never raises."""
    v = adapter_version(adapter)
    if v is None or v < CONTENT_LIST_FROM:
        return None
    who = record.get("from")
    if who == "agent":
        return "list"
    if who != "external":
        return None
    dropped = record.get("dropped")
    listed = isinstance(dropped, list) and any(isinstance(d, dict) and d.get("what") == CONTENT_LIST_WHAT for d in dropped)
    if not listed and v < BLOCK_MEMBERS_LISTED_FROM and _block_member(record):
        return None  # 0.5.0 left such a list unstated: the source line decides
    return "list" if listed else "string"


def _block_member(record: Mapping[str, Any]) -> bool:
    """Whether a landed record holds a member part of a content block (``member "x" of message.content[0] (text) …``)."""
    parts = record.get("parts")
    return isinstance(parts, list) and any(isinstance(p, dict) and is_member_part(p) and " of message.content[" in p["text"]
                                           for p in parts)


class Parts:
    """Parts and dropped entries of one record, built in source order."""

    def __init__(self, rec: Record, tool_use_result: "Obj | None"):
        self.rec = rec
        self.tur = tool_use_result  # taken by the first result part

    def add(self, part: Part) -> None:
        self.rec.parts.append(part)

    def unknown(self, data: bytes, reason: str) -> None:
        """An unknown part keeping ``data``, a value's source bytes as they stand."""
        self.add(unknown_part(data, reason))

    def text(self, text: str) -> None:
        """A text part; its ``bytes`` is the text's UTF-8 size (the original is the text itself)."""
        self.add(Part(k="text", text=text, bytes=utf8_len(text)))

    def block(self, item: Any, buf: bytes, b: int, e: int, canonical: bool = False, index: int = 0) -> None:
        """One content block (an element ``(item, b, e)`` of :meth:`Obj.items` over ``buf``, ``index`` its place in
        ``message.content``) into its part(s), or an unknown part (``canonical`` as for :class:`Obj`). A member of a
        described block outside :data:`~asz_adapters_claude.members.BLOCK_KNOWN` (or of an item of a ``tool_result``'s
        ``content`` the block reads, outside its level) lands after the block's parts as one unknown part, verbatim,
        its text ``member "x" of message.content[2] (text) is not one this dialect describes`` (``of
        message.content[0].content[1] (text)`` for an item; seed 000, Parts: :func:`~asz_adapters_claude.members.undescribed_members`)."""
        if not isinstance(item, dict):
            self.unknown(element_bytes(buf, item, b, e), "a content item that is not a JSON object")
            return
        kind = item.get("type")
        handler = BLOCKS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            what = f'block type "{shown(kind)}"' if isinstance(kind, str) else "a content block with no type"
            self.unknown(element_bytes(buf, item, b, e), f"{what} is not one this dialect describes")
            return
        blk = Obj(item, buf, b, e, canonical)
        if not handler(self, blk):
            self.unknown(element_bytes(buf, item, b, e), f'block type "{kind}" does not have the shape this dialect describes')
            return
        if not BLOCK_CHECKS[kind](item):
            self.rec.parts += undescribed_members(blk, BLOCK_LEVELS[kind], f"message.content[{index}]", kind)

    # Each handler returns False when the block lacks the fields its kind needs.

    def _text(self, blk: Obj) -> bool:
        text = blk.value.get("text")
        if not isinstance(text, str):
            return False
        self.text(text)
        return True

    def _call(self, blk: Obj) -> bool:
        v = blk.value
        part = Part(k="call", id=str_of(v, "id"), name=str_of(v, "name"))
        if "input" in v:
            part.data = blk.raw("input")
            part.bytes = len(part.data.raw)
        split = mcp_split(part.name)
        if split:
            part.server, part.server_tool = split
        self.add(part)
        return True

    def _thinking(self, blk: Obj) -> bool:
        v = blk.value
        text = v.get("thinking")
        if text is not None and not isinstance(text, str):
            return False
        text = text or ""
        self.add(Part(k="reasoning", text=text, state="available" if text else "unavailable", bytes=utf8_len(text)))
        sig = v.get("signature")
        if isinstance(sig, str) and sig:
            self.rec.dropped.append(Dropped(what="reasoning signature", bytes=utf8_len(sig), why=SIGNATURE_WHY))
        return True

    def _redacted(self, blk: Obj) -> bool:
        data = blk.value.get("data")
        self.add(Part(k="reasoning", state="redacted", bytes=utf8_len(data) if isinstance(data, str) else 0))
        if isinstance(data, str) and data:
            self.rec.dropped.append(Dropped(what="redacted reasoning", bytes=utf8_len(data), why=REDACTED_WHY))
        return True

    def _image(self, blk: Obj) -> bool:
        src = blk.value.get("source")
        if not isinstance(src, dict) or src.get("type") != "base64" or not isinstance(src.get("data"), str):
            return False
        data = src["data"]
        self.add(Part(k="media", media=str_of(src, "media_type"), data=data, bytes=utf8_len(data)))
        return True

    def _result(self, blk: Obj) -> bool:
        v = blk.value
        part = Part(k="result", of=str_of(v, "tool_use_id"))
        if isinstance(v.get("is_error"), bool):
            part.failed = v["is_error"]
        media: list[Obj] = []
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
                    media.append(Obj(item, blk.buf, b, e, blk.canonical))
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
        part.bytes = utf8_len(part.text) if part.text else (len(part.data.raw) if isinstance(part.data, RawJSON) else 0)
        self.add(part)
        note_companion(self.rec, part.text)  # a preview: its whole output is in a companion file
        for item in media:
            if not self._image(item):
                self.unknown(item.source(), 'an image inside a tool result without base64 data')
        return True


BLOCKS: dict[str, Callable[[Parts, Obj], bool]] = {
    "text": Parts._text,
    "tool_use": Parts._call,
    "server_tool_use": Parts._call,
    "thinking": Parts._thinking,
    "redacted_thinking": Parts._redacted,
    "image": Parts._image,
    "tool_result": Parts._result,
}

#: Claude Code's interrupt notices, written as a user line's list of one text block (no field marks them), whole.
INTERRUPT_NOTICES = frozenset(("[Request interrupted by user]", "[Request interrupted by user for tool use]"))
#: How Claude Code's tool result begins when the person rejected the call (``is_error`` true; the ``toolUseResult``
#: string repeats it after ``Error: ``).
REFUSED_RESULT = "The user doesn't want to proceed with this tool use."


#: Claude Code's whole answer when the person rejected a call and gave no reason (a reason follows ``… for the
#: rejection: `` in another wording, and is the person's words).
REFUSED_WHOLE = frozenset((REFUSED_RESULT + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT "
                           "written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",))


def fixed_wording(text: str) -> bool:
    """Whether ``text`` is, whole, one of Claude Code's fixed wordings :func:`fixed_notice` reads, with nothing a
    person or the model wrote in it: an interrupt notice, or the answer to a refused call with no reason given
    (:data:`REFUSED_WHOLE`, after an optional ``Error: ``); the text a skeleton keeps (``Adapter.fixed_wording``)."""
    return text in INTERRUPT_NOTICES or text.removeprefix("Error: ") in REFUSED_WHOLE


#: Claude Code's answer to a refused call, up to where the person's reason for the rejection begins (what follows
#: is their words): the wording of Claude Code 2.0 (``… for the rejection: ``) and of later versions (``… the user
#: said:`` and a new line), as the corpus and Claude Code's own rejection messages write them.
REFUSED_LEADS = (REFUSED_RESULT + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to "
                 "the file). The user provided the following reason for the rejection: ",
                 REFUSED_RESULT + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to "
                 "the file). To tell you how to proceed, the user said:\n")


def fixed_prefix(text: str) -> str | None:
    """The leading part of ``text`` that is Claude Code's own wording when the rest is not (``Adapter.fixed_prefix``):
    an answer to a refused call that carries the person's reason keeps its fixed lead (:data:`REFUSED_LEADS`, after
    an optional ``Error: ``), and one in a wording asz does not know keeps :data:`REFUSED_RESULT` alone, so the call
    still reads refused once the reason went; None for any other text."""
    body = text.removeprefix("Error: ")
    lead = text[:len(text) - len(body)]
    if not body.startswith(REFUSED_RESULT):
        return None
    return lead + next((w for w in REFUSED_LEADS if body.startswith(w)), REFUSED_RESULT)


def fixed_notice(text: str) -> str | None:
    """``"interrupt"`` when ``text`` is one of :data:`INTERRUPT_NOTICES` whole, ``"refused"`` when it begins with
    :data:`REFUSED_RESULT` (after an optional ``Error: ``), else None (:meth:`Adapter.fixed_notice`)."""
    if text in INTERRUPT_NOTICES:
        return "interrupt"
    return "refused" if text.removeprefix("Error: ").startswith(REFUSED_RESULT) else None
