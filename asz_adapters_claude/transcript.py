"""Claude Code transcript lines into records: identifiers, flags, trigger and parts (origin-digest §5.1).

Seed 000 ("Record", "Parts") and origin-digest §5.1 ("Record fields landed",
"Index flags computed per record", Trigger) are the rules; seed 003 for
transcripts written before ``origin`` existed.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

import orjson

from asz_core import Dropped, Part, RawJSON, Record, Source, Usage, load_compiled, unknown_part

from .blocks import (CONTENT_LIST_WHAT, CONTENT_LIST_WHY, INTERRUPT_NOTICES, SIGNATURE_WHY, Parts, attachment_flags, mcp_split,
                     adapter_version, content_shape, note_content_list, ordered_flags, shown, str_of, usage_of,
                     withheld_flags_of_undecodable)
from .changes import derive_changes, editing_tool_of
from .companions import companion_dropped
from .jsonspans import Obj
from .members import ATTACHMENT_TEXT_CHECK, ATTACHMENT_TEXT_LEVEL, CHECKS, LINE_STRINGS, MEMBERS, undescribed_members
from .prompts import prompt_blocks

__all__ = ["DESCRIBED_TYPES", "LABEL_FOR", "BASH_OUTPUT_RULE_FROM", "INTERRUPT_RULE_FROM", "SIDECHAIN_FROM", "interrupt_notice", "given_title", "label_target", "landed_without", "read_today", "record_line",
           "string_prompt", "transcript_record", "unknown_record", "whole_line"]

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


def unknown_record(rec: Record, raw: bytes, reason: str) -> None:
    rec.parts = [unknown_part(raw, reason)]
    rec.flags = ordered_flags(withheld_flags_of_undecodable(raw))


#: String contents the runtime itself writes into a ``user`` record of a transcript without ``origin``: a task
#: notification, a slash command's output, a bash-mode command's output (the record after its ``<bash-input>``).
_RUNTIME_USER_PREFIXES = ("<task-notification>", "<local-command-stdout>", "<local-command-stderr>",
                          "<bash-stdout>", "<bash-stderr>")


#: The first ``claude-code-local`` version all of whose files land a bash-mode command's output (``<bash-stdout>``,
#: ``<bash-stderr>``) as no typed prompt: the rule changed in commit 691801f (trial 16b, finding 8) while the adapter
#: still called itself 0.2.0, so a 0.1.0 file and some 0.2.0 files flag it ``external_input`` (a talk of its own).
BASH_OUTPUT_RULE_FROM = (0, 3, 0)
#: What today's rule reads differently in such a file (:func:`read_today`'s ``why``).
BASH_OUTPUT_WHY = "a bash-mode command's output is no typed prompt"
_BASH_OUTPUT = ("<bash-stdout>", "<bash-stderr>")


#: The first ``claude-code-local`` version that lands a main transcript line's ``"isSidechain": true`` as the record's
#: ``sidechain`` (trial 31b F5): Claude Code 1.0.x wrote a sub-agent's lines into its parent's file, and a reader counts
#: their calls as the sub-agent's. Only the main stream's file: every line of a child's file says it, and its stream
#: (an agent id) already does, so those records land byte for byte as before. A file of an earlier version kept no such
#: fact: its sub-agent's lines count in the main lane, as they did (:data:`_LANDED_WITHOUT` says so).
SIDECHAIN_FROM = (0, 8, 0)


#: The first ``claude-code-local`` version that lands Claude Code's interrupt notice (a ``user`` line without ``origin``
#: whose content is a list of one text block holding, whole, ``[Request interrupted by user]`` or ``[Request interrupted
#: by user for tool use]``: :data:`~asz_adapters_claude.blocks.INTERRUPT_NOTICES`) as the runtime's notice, flagged
#: ``notice``, not a typed prompt (trial 43c F1: each became a talk of its own, drawn as the person's words). Seed 003
#: tells a person's prompt (a string) from such a list; an earlier file flagged it ``external_input``.
INTERRUPT_RULE_FROM = (0, 9, 0)
#: What today's rule reads differently in such a file (:func:`read_today`'s ``why``).
INTERRUPT_WHY = "the runtime's interrupt notice is no typed prompt"


#: What a ``claude-code-local`` file before each version did not keep or read as today (:func:`landed_without`): the
#: version from which it does, and the phrase a reader is told (the versions of plugin.ClaudeCodeLocal.version's note).
_LANDED_WITHOUT = (
    ((0, 2, 0), "whether a person's prompt was a string or a list of one text block (asz export --format prose reads "
                "the source line)"),
    ((0, 3, 0), "a call's rate other than standard (its calls are counted rate_not_checked, the cost marked ?)"),
    ((0, 3, 0), "a bash-mode command's output as no typed prompt (asz parse reads it so today)"),
    ((0, 4, 0), "a line member it did not describe (it did not land)"),
    ((0, 5, 0), "a content block's or a text attachment's member it did not describe (it did not land)"),
    ((0, 6, 0), "a member of a tool result's content item or of a queued command's prompt it did not describe (it "
                "did not land)"),
    ((0, 7, 0), "a line after the file's first that starts with a byte order mark (files joined): it landed verbatim "
                "as an unknown part, so a call on it is not counted"),
    (SIDECHAIN_FROM, "whether a line of the main transcript was a sub-agent's (isSidechain, Claude Code 1.0.x): its "
                     "calls count in the main lane"),
    (INTERRUPT_RULE_FROM, "Claude Code's interrupt notice as the runtime's notice, not a typed prompt (asz parse reads "
                          "it so today)"),
)


def landed_without(adapter: str) -> list[str]:
    """What a file whose header names ``adapter`` (``claude-code-local/X.Y.Z`` before today's version) did not keep or
    read as today (:meth:`asz_core.Adapter.landed_without`), in version order; [] for another adapter or a version
    that is not dotted integers. Never raises."""
    v = adapter_version(adapter)
    return [] if v is None else [what for since, what in _LANDED_WITHOUT if v < since]


def read_today(adapter: str, record: Mapping[str, Any]) -> dict | None:
    """The flags and trigger today's rule gives a landed record that a file of ``adapter`` (its header's
    ``claude-code-local/X.Y.Z``) flagged by an earlier rule (:meth:`asz_core.Adapter.read_today`), or None.

    Before :data:`BASH_OUTPUT_RULE_FROM`, a ``user`` line of a transcript without ``origin`` whose string content
    opens with ``<bash-stdout>`` or ``<bash-stderr>`` (a ``!`` command's output, which Claude Code writes itself)
    landed as a typed prompt: ``external_input``, trigger ``external``. Today (:func:`string_prompt`) it is neither,
    so it is a step of its command's talk. The landed record holds what the rule reads: its one ``text`` part is the
    string content as it was (the opening after white space), and from ``claude-code-local/0.2.0`` on a list of one
    text block says so under ``dropped`` (:func:`~asz_adapters_claude.blocks.content_shape`; a list of text blocks is
    a typed prompt under both rules, so such a record is left as it landed). A 0.1.0 file cannot tell a string from a
    list of one text block: its record is read as a string, the shape Claude Code writes such output in (the
    corpus's 326189cf, 1.0.51). The record does not keep whether its line had ``origin`` (a line with
    ``origin.kind`` ``human`` is ``external_input`` under both rules); Claude Code wrote none on its lines of
    ``<bash-stdout>`` in the transcripts asz has seen. Returns ``{"flags", "trigger": "", "why"}``; never raises."""
    v = adapter_version(adapter)
    if v is None or v >= INTERRUPT_RULE_FROM or record.get("from") != "external":
        return None
    flags = record.get("flags")
    parts = record.get("parts")
    if not isinstance(flags, list) or "external_input" not in flags or not isinstance(parts, list) or len(parts) != 1:
        return None
    part = parts[0]
    text = part.get("text") if isinstance(part, dict) and part.get("k") == "text" else None
    if not isinstance(text, str):
        return None
    shape = content_shape(adapter, record)
    if text in INTERRUPT_NOTICES and shape != "string":
        return {"flags": ordered_flags({f for f in flags if f != "external_input"} | {"notice"}), "trigger": "",
                "why": INTERRUPT_WHY}
    if v >= BASH_OUTPUT_RULE_FROM or not text.lstrip().startswith(_BASH_OUTPUT) or shape == "list":
        return None
    return {"flags": [f for f in flags if f != "external_input"], "trigger": "", "why": BASH_OUTPUT_WHY}


def _typed_prompt(v: dict) -> str:
    """A ``user`` record of a runtime that writes no ``origin`` (Claude Code before ``origin`` existed; seed 003).

    Returns ``external`` for a person's prompt: not ``isMeta``, not a compact
    summary, not ``isSidechain`` (a child's opening prompt is its parent's
    words), no ``toolUseResult``, and content that is a string or a list of
    only text/image blocks (no ``tool_result``), except the runtime's interrupt
    notice (:func:`interrupt_notice`). Returns ``notification`` for
    a string content that opens with ``<task-notification>``; '' otherwise
    (including what the runtime writes for a local command: a slash command's
    ``<local-command-stdout>``/``<local-command-stderr>``, a bash-mode
    command's ``<bash-stdout>``/``<bash-stderr>``).
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
        return string_prompt(content)
    if isinstance(content, list) and content and all(isinstance(b, dict) and b.get("type") in ("text", "image") for b in content):
        return "" if _notice_words(content) else "external"
    return ""


def _notice_words(content: list) -> bool:
    """A content list of one text block holding, whole, one of Claude Code's interrupt notices."""
    return len(content) == 1 and content[0].get("type") == "text" and content[0].get("text") in INTERRUPT_NOTICES


def interrupt_notice(v: Mapping[str, Any]) -> bool:
    """Whether the transcript line ``v`` is Claude Code's interrupt notice (:data:`INTERRUPT_RULE_FROM`): a ``user``
    line without ``origin``, not ``isMeta``, not a compact summary, not ``isSidechain``, without ``toolUseResult``,
    whose ``message.content`` is a list of one text block holding, whole, one of
    :data:`~asz_adapters_claude.blocks.INTERRUPT_NOTICES` (seed 003 §5: a string is a person's prompt, a list is the
    runtime's). Flagged ``notice``, with no trigger: exactly the lines an earlier version flagged ``external_input``
    (:func:`_typed_prompt`), so a root of either version reads alike (:func:`read_today`); a sub-agent's such line is
    an unflagged input, as before."""
    if v.get("type") != "user" or "origin" in v or v.get("isMeta") is True or v.get("isCompactSummary") is True:
        return False
    if "toolUseResult" in v or v.get("isSidechain") is True:
        return False
    message = v.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and bool(content) and isinstance(content[0], dict) and _notice_words(content)


def string_prompt(content: str) -> str:
    """What a ``user`` line's string ``content`` is, in a transcript without ``origin`` (:func:`_typed_prompt`):
    ``notification`` when it opens with ``<task-notification>`` (after white space), '' when it opens with another of
    the runtime's own prefixes (:data:`_RUNTIME_USER_PREFIXES`), else ``external`` (a person's prompt)."""
    head = content.lstrip()
    if head.startswith("<task-notification>"):
        return "notification"
    if head.startswith(_RUNTIME_USER_PREFIXES):
        return ""
    return "external"


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
        flags |= attachment_flags(attachment)
    elif t == "user" and not meta and v.get("isCompactSummary") is not True:
        origin = v.get("origin")
        if (isinstance(origin, dict) and origin.get("kind") == "human") or (origin is None and v.get("promptSource") == "sdk"):
            flags.add("external_input")
        elif _typed_prompt(v) == "external":
            flags.add("external_input")
        elif interrupt_notice(v):
            flags.add("notice")
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


def _attachment_part(parts: Parts, att: Obj) -> None:
    """Attachment → text when it holds prose, then an unknown part for each of its members outside
    :data:`~asz_adapters_claude.members.ATTACHMENT_TEXT_KNOWN` (``member "x" of attachment is not one this dialect
    describes``) and of a ``queued_command``'s ``prompt`` items outside theirs (``of attachment.prompt[0] (text)``),
    else the whole attachment as data (origin-digest §5.1)."""
    a = att.value
    text = None
    if a.get("type") == "queued_command" and a.get("commandMode") == "prompt":
        prompt = a.get("prompt")
        if isinstance(prompt, str):
            text = prompt
        elif isinstance(prompt, list) and prompt and all(isinstance(x, dict) and isinstance(x.get("text"), str) for x in prompt):
            text = "\n".join(x["text"] for x in prompt)
    if text is None:
        text = next((a[key] for key in ("text", "content") if isinstance(a.get(key), str) and a[key]), None)
    if text is None:
        whole = att.whole()
        parts.add(Part(k="data", data=whole, bytes=len(whole.raw)))
        return
    parts.text(text)
    if not ATTACHMENT_TEXT_CHECK(a):
        parts.rec.parts += undescribed_members(att, ATTACHMENT_TEXT_LEVEL, "attachment")


#: The key of a ``summary`` record naming the message whose conversation its summary names (written on resuming,
#: into the transcript resumed in, and often for another session's message).
LABEL_FOR = "leafUuid"


def label_target(rec) -> str | None:
    """The id of the message a landed ``summary`` record's label was written for: :data:`LABEL_FOR` of its one
    whole-record data part (the record lands whole, as one data part: seed 000 has no role field for it); None for a
    ``summary`` record naming no message (no :data:`LABEL_FOR`, or not a string with text), whose label then names no
    conversation; else '' (an ``ai-title``, a sidecar's or a manifest's label names the conversation it is in).

    A record of a skeleton (seed 000, Skeletons: retention removed its file) keeps its label but not its data part,
    so whether it was a ``summary`` naming another session's message can no longer be read: a labelled record whose
    one data part is ``removed`` gives None too, so a pruned session never takes another's summary for its title
    (nothing guessed; an ``ai-title``, which the skeleton no longer tells from a ``summary``, names nothing either)."""
    parts = rec.get("parts")
    if not isinstance(parts, list) or len(parts) != 1 or not isinstance(parts[0], dict) or parts[0].get("k") != "data":
        return ""
    data = parts[0].get("data")
    if data is None and parts[0].get("state") == "removed" and rec.get("label"):
        return None
    if not isinstance(data, dict):
        return ""
    got = data.get(LABEL_FOR)
    if isinstance(got, str) and got:
        return got
    return None if data.get("type") == "summary" else ""


def whole_line(rec, kind: str) -> dict | None:
    """The source line of a landed record of ``kind`` (its ``type``) that landed whole as one data part (runtime
    bookkeeping: :data:`DESCRIBED_TYPES`); None for any other record, and a skeleton's (its data part removed)."""
    parts = rec.get("parts")
    if not isinstance(parts, list) or len(parts) != 1 or not isinstance(parts[0], dict) or parts[0].get("k") != "data":
        return None
    data = parts[0].get("data")
    return data if isinstance(data, dict) and data.get("type") == kind else None


def given_title(rec) -> str | None:
    """The name a person gave the session with ``/rename``: ``customTitle`` of a landed ``custom-title`` record (it
    lands whole as one data part, with no ``label``: the landed form since the type was described, so every root
    reads alike); None for any other record, one whose ``customTitle`` is not a string with text, and a skeleton's
    (its data part went with retention: it names nothing shown, docs/reading.md)."""
    data = whole_line(rec, "custom-title")
    if data is None:
        return None
    got = data.get("customTitle")
    return got if isinstance(got, str) and got.strip() else None


#: The adapter's optional compiled module (asz_adapters_claude/usual_line.c): the usual line (an assistant line of text,
#: call and thinking blocks; a user line of a prompt or of tool results; a runtime bookkeeping line) filled in one C
#: call exactly as :func:`transcript_record` fills it (the derived changes of an editing tool's result still added
#: here); None without it (no C compiler, or a build from another version of its source).
usual_line = load_compiled("asz_adapters_claude.usual_line")
if usual_line is not None:
    usual_line.setup(Part, RawJSON, Usage, Dropped, orjson.dumps, mcp_split,
                     DESCRIBED_TYPES - {"user", "assistant", "attachment", "system"},
                     tuple(ordered_flags({"synthetic", "finished", "reset_summary", "injected", "external_input",
                                          "launch_ack", "child_result"})),
                     SIGNATURE_WHY, companion_dropped, string_prompt, CONTENT_LIST_WHAT, CONTENT_LIST_WHY)


def transcript_record(rec: Record, obj: Obj, raw: bytes, source: Source | None = None) -> None:
    """Fill ``rec`` (fresh from :func:`~asz_adapters_claude.convert.convert_record`) from the transcript line ``obj``
    (its bytes ``raw``): identifiers, flags, trigger, usage, parts and dropped (origin-digest §5.1), and ``sidechain``
    for a line of the main stream's file that says ``"isSidechain": true`` (:data:`SIDECHAIN_FROM`). A line that is
    orjson's own encoding of its value is offered first to :data:`usual_line`, which fills the usual shapes the same
    way in C and leaves any other untouched (issue 22)."""
    v = obj.value
    t = v.get("type")
    if not isinstance(t, str) or t not in DESCRIBED_TYPES:
        reason = (
            f"record type {json.dumps(shown(t), ensure_ascii=False)} is not one this dialect describes"
            if "type" in v
            else "a record with no type is not one this dialect describes"
        )
        unknown_record(rec, raw, reason)
        return
    check = CHECKS.get(t)
    known = check is None or check(v)
    if v.get("isSidechain") is True and source is not None and (source.stream or "main") == "main":
        rec.sidechain = True  # a sub-agent's line in its parent's file (:data:`SIDECHAIN_FROM`); the C fill keeps it
    if usual_line is not None and obj.canonical and known and usual_line.fill(rec, v, obj.buf, obj.start, obj.end):
        if t == "user":  # the derived changes of an editing tool's result stay in Python
            _derived_changes(rec, v, source)
        return
    message = v.get("message") if t in ("user", "assistant") and isinstance(v.get("message"), dict) else None
    attachment = v.get("attachment") if t == "attachment" and isinstance(v.get("attachment"), dict) else None
    tur = v.get("toolUseResult") if isinstance(v.get("toolUseResult"), dict) else None

    # str_of over the line's string fields in one pass (this runs for every transcript line)
    (rec.id, rec.parent, rec.run, rec.continues, rec.time, rec.cwd, rec.git_branch, rec.runtime_version,
     rec.request) = [x if isinstance(x, str) else "" for x in map(v.get, LINE_STRINGS)]
    rec.from_ = _FROM_BY_TYPE.get(t, "")
    if t == "ai-title":
        rec.label = str_of(v, "aiTitle")
    elif t == "summary":
        rec.label = str_of(v, "summary")  # the title older Claude Code wrote (a record with no uuid of its own)
    if tur is not None:
        rec.tool = str_of(tur, "toolUseId")
        rec.child = str_of(tur, "agentId")
        rec.batch = str_of(tur, "runId")
    mo = None
    if message is not None:
        mo = obj.child("message")  # made once: usage and content both read from it
        rec.call = str_of(message, "id")
        rec.model = str_of(message, "model")
        rec.usage = usage_of(message, mo, rec.dropped)
    rec.trigger = _trigger(v, attachment)
    rec.flags = ordered_flags(_transcript_flags(v, t, message, attachment, tur))

    parts = Parts(rec, obj.child("toolUseResult") if tur is not None else None)
    content = message.get("content") if message is not None else None
    if isinstance(content, str):
        parts.text(content)  # a text part's bytes is its text's size: no span needed
        _notification_links(rec, content)
    elif isinstance(content, list):
        for i, (item, b, e) in enumerate(mo.items("content")):  # type: ignore[union-attr]  # content comes from a message
            parts.block(item, raw, b, e, obj.canonical, i)
        if t == "user":  # a person's prompt is a string (seed 003 §2); a list of one text block says so in dropped
            note_content_list(rec, mo, content)  # type: ignore[arg-type]
    elif content is not None:
        parts.unknown(mo.member_bytes("content"), "message content that is neither text nor a list of blocks")  # type: ignore[union-attr]
    elif attachment is not None:
        _attachment_part(parts, obj.child("attachment"))
    else:
        parts.add(Part(k="data", data=obj.whole(), bytes=obj.whole_size()))
        return
    if parts.tur is not None:  # a toolUseResult with no result block to sit beside
        parts.add(Part(k="data", data=parts.tur.whole(), bytes=parts.tur.whole_size()))
    if not known:  # after the content's parts, before the parts the adapter adds (seed 000, Addressing a record)
        rec.parts += undescribed_members(obj, MEMBERS[t])
    _derived_changes(rec, v, source)


def _derived_changes(rec: Record, v: dict, source: Source | None) -> None:
    """Edit, MultiEdit, Write and NotebookEdit results get a second data part: the derived ``changes/1`` record (§3.6, §5.1).

    It comes after the parts of the source content (seed 000, Addressing a
    record); the record's ``tool`` names the call it answers.
    """
    tur = v.get("toolUseResult")
    tool_name = editing_tool_of(tur)
    if not tool_name:
        return
    of = next((p.of for p in rec.parts if p.k == "result" and p.of), "")
    cwd = v.get("cwd") if isinstance(v.get("cwd"), str) else ""
    session = source.session if source is not None else str_of(v, "sessionId")
    stream = (source.stream if source is not None else "") or "main"
    record = derive_changes(tool_name, of, None, tur, cwd, session, stream, str_of(v, "timestamp"))
    if record is None:
        return
    # A value the adapter built (seed 000, What data holds): the writer encodes it.
    rec.parts.append(Part(k="data", data=record, bytes=len(orjson.dumps(record))))
    if not rec.tool:
        rec.tool = of


def _data_part(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The record's first data part (its line as written), or None. A plain dict is tried first: an isinstance of
    Mapping for each part cost most of a /headings of 33,333 notices' reading of their short forms (review43)."""
    for p in record.get("parts") or ():
        if isinstance(p, (dict, Mapping)) and isinstance(d := p.get("data"), (dict, Mapping)):
            return d
    return None


def record_line(record: Mapping[str, Any]) -> str | None:
    """A short form of Claude Code's own ``system`` line, read from the record's data part (the line as written):
    ``compact_boundary`` reads ``auto, 167,731 tokens before`` (``compactMetadata``' trigger and ``preTokens``);
    ``stop_hook_summary`` ``stop hooks: 1 ran, 0 errors`` (``hookCount``, ``hookErrors``; ``prevented continuation``
    when it did); ``away_summary`` and ``turn_duration`` their ``content`` / ``durationMs``; ``local_command`` its
    ``content`` as a person reads it (:func:`~asz_adapters_claude.prompts.prompt_blocks`: ``/model`` as typed, an
    output's text, one line); a line with only a text ``content`` that text. None for any other record (the step is then drawn with no short form)."""
    data = _data_part(record)
    if data is None or data.get("type") != "system":
        return None
    sub = data.get("subtype")
    if sub == "compact_boundary":
        meta = data.get("compactMetadata") if isinstance(data.get("compactMetadata"), Mapping) else {}
        trigger = meta.get("trigger") if isinstance(meta.get("trigger"), str) else ""
        pre = meta.get("preTokens")
        pre_text = f"{pre:,} tokens before" if isinstance(pre, int) and not isinstance(pre, bool) else ""
        return ", ".join(x for x in (trigger, pre_text) if x) or None
    if sub == "stop_hook_summary":
        n, errs = data.get("hookCount"), data.get("hookErrors")
        line = "stop hooks: " + (f"{n} ran" if isinstance(n, int) and not isinstance(n, bool) else "ran")
        if isinstance(errs, list):
            line += f", {len(errs)} error{'s' if len(errs) != 1 else ''}"
        return line + (", prevented continuation" if data.get("preventedContinuation") is True else "")
    if sub == "turn_duration" and isinstance(data.get("durationMs"), int):
        return f"turn took {data['durationMs'] / 1000:,.1f} s"
    content = data.get("content")
    if sub == "local_command" and isinstance(content, str):  # /model as typed, its output as text (trial 17, F12)
        read = " ".join(" ".join(b.split()) for _, b in prompt_blocks(content) if b.strip())
        return read or None
    if isinstance(content, str) and content.strip():
        return ("recap: " if sub == "away_summary" else "") + content
    return None


def record_commands(record: Mapping[str, Any]) -> list[tuple[str, int | None]]:
    """The hooks a ``stop_hook_summary`` ``system`` line says ran, read from the record's data part (the line as
    written): each ``hookInfos`` entry's ``command`` and ``durationMs`` (None when absent), in the line's order; [] for
    any other record."""
    data = _data_part(record)
    if data is None or data.get("type") != "system" or data.get("subtype") != "stop_hook_summary":
        return []
    infos = data.get("hookInfos")
    return [(i["command"], i.get("durationMs") if isinstance(i.get("durationMs"), int) else None)
            for i in infos if isinstance(i, Mapping) and isinstance(i.get("command"), str)] if isinstance(infos, list) else []


def record_words(record: Mapping[str, Any]) -> str | None:
    """The words of Claude Code's own ``system`` line a reader reads, one piece a line, read from the record's data
    part (the line as written): its short form (:func:`record_line`), its ``content`` (not a ``local_command``'s,
    whose markup the short form reads), a stop hook summary's commands (:func:`record_commands`), its ``hookErrors``
    texts and ``stopReason``; a piece another already holds is left out; '' when it holds none. None for any other
    record (the index then holds its data's string values). Never its field names nor metadata (``userType``,
    ``cwd``, ``version``: trial 50b F2)."""
    data = _data_part(record)
    if data is None or data.get("type") != "system":
        return None
    content = data.get("content") if data.get("subtype") != "local_command" else None
    errors = data.get("hookErrors") if isinstance(data.get("hookErrors"), list) else []
    pieces = [record_line(record), content, *(c for c, _ in record_commands(record)), *errors, data.get("stopReason")]
    out: list[str] = []
    for x in pieces:
        if isinstance(x, str) and x.strip() and not any(x in y for y in out):
            out.append(x)
    return "\n".join(out)


#: The agent id prefix of the agent Claude Code runs to compact a conversation (2.1.39, the corpus's 8463c716:
#: ``subagents/agent-acompact-f46190.jsonl``, whose last reply is the summary the main transcript's
#: ``isCompactSummary`` record then holds).
COMPACTION_AGENT = "acompact-"


#: The longest child prompt that names its child (:func:`child_label`): one line, at most this many characters.
PROMPT_LABEL_MAX = 80


def child_label(stream: str, call: Mapping[str, Any] | None, prompt: str = "") -> str:
    """What a child with no ``.meta.json`` was started to do: the ``description`` of the call that started it
    (``call``: the landed ``call`` part of the parent's ``Task``/``Agent`` tool use, its input in ``data``), as a
    sidecar's ``description`` labels a newer child; else ``compaction`` for an agent id (``stream``) opening with
    :data:`COMPACTION_AGENT`; else its own ``prompt`` when that is one line of at most :data:`PROMPT_LABEL_MAX`
    characters (Claude Code's automatic ``Warmup`` agents, ``agent-<id>.jsonl`` at the project folder's top level,
    which no call started: trial 17b F15); else ''. Never raises."""
    data = call.get("data") if isinstance(call, Mapping) else None
    description = data.get("description") if isinstance(data, Mapping) else None
    if isinstance(description, str) and description.strip():
        return description.strip()
    if isinstance(stream, str) and stream.startswith(COMPACTION_AGENT):
        return "compaction"
    said = prompt.strip() if isinstance(prompt, str) else ""
    return said if said and "\n" not in said and len(said) <= PROMPT_LABEL_MAX else ""


def child_prompt(call: Mapping[str, Any] | None) -> str:
    """What the ``Task``/``Agent`` call that started a child asked it: the ``prompt`` of its input (``call``: the landed
    ``call`` part, its input in ``data``), whole; '' when there is none. Claude Code 2.0.x's ``agent-<id>.jsonl``
    opens with the subagent's first reply, so this is the only place its prompt is written. Never raises."""
    data = call.get("data") if isinstance(call, Mapping) else None
    prompt = data.get("prompt") if isinstance(data, Mapping) else None
    return prompt if isinstance(prompt, str) and prompt.strip() else ""
