"""The members of a Claude Code line this dialect describes, level by level, and the unknown parts of those it does not
(seed 000, Parts and Dropped: "Content it cannot describe goes in as an unknown part in the same place, never left
out"; trial 23a F5; docs/adapters/claude-code.md, Members no dialect describes).

One table (:data:`MEMBERS`) says which members of a ``user``, ``assistant`` or ``attachment`` line, of its
``message``, ``message.usage``, each content block, each item of a ``tool_result`` block's ``content`` and each item of
a ``queued_command`` attachment's ``prompt`` list the dialect reads or understands and leaves out: the members the real
corpus (../shared/corpus) holds. :func:`check_of` (the check of every line, which keeps a line holding anything else
from the compiled fast path: :data:`CHECKS`) and :func:`undescribed_members` (the unknown parts of such a line) both
follow it.

A level is ``(known, nothing, below)``: ``known`` the member names read or understood and left out (the second group:
docs/adapters/claude-code.md, Known gaps), ``nothing`` those understood only at the value that says nothing happened
(any other value is not described), ``below`` the levels under it by member name: a level (for an object member) or
an :class:`Items` (for an array member: its object elements by their ``type``).
"""

from __future__ import annotations

from typing import Callable

from asz_core import Part, member_part

from .jsonspans import Obj

__all__ = ["ATTACHMENT_TEXT_CHECK", "ATTACHMENT_TEXT_KNOWN", "ATTACHMENT_TEXT_LEVEL", "BLOCK_CHECKS", "BLOCK_KNOWN",
           "BLOCK_LEVELS", "Blocks", "CHECKS", "Items", "LINE_STRINGS", "MEMBERS", "check_of", "undescribed_members"]


class Items(dict):
    """The level below an array member: each object element's level by its ``type`` (the key None for an element with
    no ``type``); an element of another type, or not an object, is not looked into (it lands whole where it lands)."""


class Blocks(Items):
    """The levels of ``message.content``'s blocks: :meth:`~asz_adapters_claude.blocks.Parts.block` lands a block's
    undescribed members after that block's parts, so :func:`undescribed_members` at the line leaves them to it."""


#: The line's string fields a record takes as they are, in the order ``transcript.transcript_record`` assigns them:
#: id, parent, run, continues, time, cwd (where the runtime was working, as it recorded it; issue 17),
#: git_branch, runtime_version, request (with call, the provider call's key where present; issue 17).
LINE_STRINGS = ("uuid", "parentUuid", "promptId", "logicalParentUuid", "timestamp", "cwd", "gitBranch", "version", "requestId")
_LINE_KNOWN = frozenset({*LINE_STRINGS, "type", "toolUseResult", "origin", "isMeta", "isCompactSummary", "promptSource",
                         "isSidechain",
                         "userType", "entrypoint", "slug", "sessionId", "agentId", "permissionMode",
                         "sourceToolAssistantUUID", "sourceToolUseID", "thinkingMetadata", "todos",
                         "isVisibleInTranscriptOnly", "isApiErrorMessage"})
_USAGE_KNOWN = frozenset({"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                          "cache_creation", "server_tool_use", "iterations", "service_tier", "inference_geo", "speed"})
_CACHE_KNOWN = frozenset({"ephemeral_1h_input_tokens", "ephemeral_5m_input_tokens"})
_SERVER_KNOWN = frozenset({"web_search_requests", "web_fetch_requests"})
_MESSAGE_KNOWN = frozenset({"id", "type", "role", "model", "content", "usage", "stop_reason", "stop_sequence",
                            "stop_details", "context_management"})

#: The members of each block type ``blocks.BLOCKS`` reads or leaves out as a known gap (``tool_use.caller``,
#: docs/adapters/claude-code.md): the real corpus's blocks hold these and no other.
_CALL_KNOWN = frozenset({"type", "id", "name", "input", "caller"})
BLOCK_KNOWN: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text"}),
    "tool_use": _CALL_KNOWN,
    "server_tool_use": _CALL_KNOWN,
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
    "image": frozenset({"type", "source"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error"}),
}
#: A text item ``{"type": "text", "text": …}``: of a ``tool_result`` block's ``content`` and of a ``queued_command``
#: attachment's ``prompt`` list (a prompt item with no ``type`` is read by its ``text`` too).
_TEXT_LEVEL = (BLOCK_KNOWN["text"], {}, {})
#: The items of a ``tool_result`` block's ``content`` list read into parts: text (joined into the result's text) and
#: image (a media part); the corpus's items hold ``type`` and ``text`` or ``source`` and no other. An item of another
#: type (the corpus's ``tool_reference``) lands whole in the result's data.
_RESULT_ITEMS = Items({"text": _TEXT_LEVEL, "image": (BLOCK_KNOWN["image"], {}, {})})
#: Each described block type's level (``tool_result``'s ``content`` items below it).
BLOCK_LEVELS = Blocks({k: (v, {}, {"content": _RESULT_ITEMS} if k == "tool_result" else {}) for k, v in BLOCK_KNOWN.items()})

#: The members of an attachment that lands as text the dialect reads (``type``, ``commandMode``, ``prompt``, ``text``,
#: ``content``) or leaves out as known gaps (a hook's and a skill listing's: docs/adapters/claude-code.md): the real
#: corpus's text attachments hold these and no other. Any other lands after the text part as an unknown part.
ATTACHMENT_TEXT_KNOWN = frozenset({"type", "commandMode", "prompt", "text", "content", "hookName", "hookEvent",
                                   "toolUseID", "command", "stdout", "stderr", "exitCode", "durationMs", "skillCount",
                                   "isInitial"})
#: A text attachment's level: its members, and the items of a ``queued_command``'s ``prompt`` list (read by their
#: ``text``: origin-digest §5.1, "text from envelope ``prompt[].text``").
ATTACHMENT_TEXT_LEVEL = (ATTACHMENT_TEXT_KNOWN, {}, {"prompt": Items({"text": _TEXT_LEVEL, None: _TEXT_LEVEL})})

_NO_EDITS = {"applied_edits": []}
_USAGE_LEVEL = (_USAGE_KNOWN, {}, {"cache_creation": (_CACHE_KNOWN, {}, {}), "server_tool_use": (_SERVER_KNOWN, {}, {})})
_MESSAGE_LEVEL = (_MESSAGE_KNOWN, {"stop_details": None, "context_management": _NO_EDITS},
                  {"usage": _USAGE_LEVEL, "content": BLOCK_LEVELS})
#: The level of a ``user``, ``assistant`` or ``attachment`` line by its type. An attachment's own members are looked
#: into only when it lands as text (:data:`ATTACHMENT_TEXT_LEVEL`); one that lands whole as data keeps every member.
MEMBERS = {"user": (_LINE_KNOWN | {"message"}, {}, {"message": _MESSAGE_LEVEL}),
           "assistant": (_LINE_KNOWN | {"message"}, {}, {"message": _MESSAGE_LEVEL}),
           "attachment": (_LINE_KNOWN | {"attachment"}, {}, {})}


def check_of(level: tuple) -> Callable[[dict], bool]:
    """The check of ``level``: a function of an object ``v`` that is True when every member of ``v`` and of the objects
    below it that ``level`` looks into is known (each ``nothing`` member at its value saying nothing happened). Made
    once per level from the table (:data:`CHECKS`): a level with nothing below is its set's ``issuperset`` (in C), so
    the check of every line is a few set operations and no walk of the table. Never raises."""
    known, nothing_, below = level
    nothing = tuple(nothing_.items())
    objects = tuple((key, check_of(sub)) for key, sub in below.items() if type(sub) is tuple)
    arrays = tuple((key, {t: check_of(lv) for t, lv in sub.items()}) for key, sub in below.items() if type(sub) is not tuple)
    if not nothing and not objects and not arrays:
        return known.issuperset  # type: ignore[return-value]  # a dict is its keys to issuperset

    def check(v: dict) -> bool:
        if not v.keys() <= known:
            return False
        for key, want in nothing:
            if key in v and v[key] != want:
                return False
        for key, inner in objects:
            value = v.get(key)
            if type(value) is dict and not inner(value):
                return False
        for key, by_type in arrays:
            value = v.get(key)
            if type(value) is list:
                for item in value:
                    if type(item) is dict and (type(t := item.get("type")) is str or t is None) \
                            and (inner := by_type.get(t)) is not None and not inner(item):
                        return False
        return True
    return check


#: The check of each level the adapter asks (:func:`check_of`): a line's by its type, each block's by its type, a text
#: attachment's.
CHECKS = {t: check_of(level) for t, level in MEMBERS.items()}
BLOCK_CHECKS = {t: check_of(level) for t, level in BLOCK_LEVELS.items()}
ATTACHMENT_TEXT_CHECK = check_of(ATTACHMENT_TEXT_LEVEL)


def undescribed_members(obj: Obj, level: tuple, path: str = "", kind: str = "") -> list[Part]:
    """One unknown part for each member of ``obj`` (and of the objects below it ``level`` looks into) that ``level``
    does not know, in source order: its bytes the member as an object of its own from the source
    (``{"agentTelemetryV9":{…}}``), its text ``member "agentTelemetryV9" of the line is not one this dialect
    describes``; below the line, of its path (``message.usage``, ``attachment.prompt[1] (text)``: ``path`` and the
    element's ``kind``). The blocks of ``message.content`` (:class:`Blocks`) are left to ``blocks.Parts.block``. A line
    whose bytes are not UTF-8 never gets here: it lands whole as one unknown part (convert._described_escaped)."""
    where = f"{path} ({kind})" if kind else (path or "the line")
    known, nothing, below = level
    out = []
    for key, value in obj.value.items():
        if key not in known or (key in nothing and value != nothing[key]):
            out.append(member_part(obj.member_source(key), key, where))
            continue
        sub = below.get(key)
        at = f"{path}.{key}" if path else key
        if type(sub) is tuple and type(value) is dict:
            out += undescribed_members(obj.child(key), sub, at)  # type: ignore[arg-type]
        elif type(sub) is Items and type(value) is list:
            for i, (item, b, e) in enumerate(obj.items(key)):
                if type(item) is dict and (type(t := item.get("type")) is str or t is None) \
                        and (lv := sub.get(t)) is not None and not check_of(lv)(item):
                    out += undescribed_members(Obj(item, obj.buf, b, e, obj.canonical), lv, f"{at}[{i}]", t or "")
    return out
