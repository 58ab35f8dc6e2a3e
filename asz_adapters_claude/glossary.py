"""The ``claude-code/1`` glossary: what Claude Code calls each model name, and where (origin-digest §6).

Every name in :data:`asz_core.VOCABULARY` has one :class:`~asz_core.Term`. A
term with a ``native`` name says ``where`` it appears in Claude Code's files;
a term with an empty ``native`` is derived by asz (the runtime has no word for
it) and says so in ``note``, with no ``where``.
"""

from __future__ import annotations

from asz_core import Term, build_glossary

__all__ = ["GLOSSARY", "glossary_terms"]

_REC = "top level of a transcript line"
_MSG = "message.content[] of a transcript line"

# (native, where, note) per model name; an empty native is derived.
_NAMED: dict[str, tuple[str, str, str]] = {
    # structure
    "session": ("sessionId", f"{_REC}; also the main transcript's file name", "a conversation is one session: /clear starts a new session, not linked"),
    "stream": ("agentId", "a child's lines and its file name agent-<id>.jsonl", "the main stream is the session file; a child stream is named by its file, never by the agentId inside it"),
    "run": ("promptId", _REC, "one prompt cycle of a stream; assistant records reach it through parentUuid"),
    "main": ("<session-id>.jsonl", "file name under the project directory", "the session's own transcript"),
    # steps
    "message.external": ('origin.kind == "human"', f"{_REC} of a user line that is not isMeta", 'also promptSource "sdk" with no origin, and a queued_command attachment with commandMode "prompt"'),
    "message.assistant": ("text block", f"{_MSG} of an assistant line", "the model's visible prose"),
    "message.synthetic": ('message.model == "<synthetic>"', "message.model of an assistant line", "written by the client, not by a model"),
    "context.injection": ("attachment", f"{_REC} of an attachment line; also isMeta on a user line", "every attachment except a queued prompt"),
    "llm.call": ("message.id", "message.id of assistant lines", "the lines sharing one message.id are fragments of one provider call"),
    "thinking": ("thinking / redacted_thinking block", _MSG, "the text is usually empty; the signature is dropped"),
    "tool": ("tool_use + tool_result", f"{_MSG}; the tool_result's tool_use_id names its call", "enriched by the line's toolUseResult"),
    "agent.call": ("Agent, Skill or Workflow tool_use", f"{_MSG} of an assistant line", "a tool call a child stream joins to"),
    "agent.launch_ack": ('toolUseResult.status == "async_launched"', "toolUseResult of a user line", "acknowledges that a child started; not its result"),
    "runtime.notification": ("<task-notification>", 'string message.content of a user line with origin.kind "task-notification"', "carries <task-id> and <tool-use-id>"),
    "epoch.boundary": ("system/compact_boundary", "type and subtype of a system line", "an explicit context reset"),
    "epoch.summary": ("isCompactSummary", f"{_REC} of the user line after a compact boundary", "the summary carried into the new context"),
    "error.api": ("system/api_error", "type and subtype of a system line", "retry state is not recorded"),
    "control.interrupt": ("toolUseResult.interrupted", "toolUseResult of a user line", "not emitted as a step by this dialect"),
    "control.permission": ("permission-mode", "type of a permission-mode line", "not emitted as a step by this dialect"),
    "control.command": ("system/local_command", "type and subtype of a system line", "a command run in line"),
    "turn.duration": ("system/turn_duration", "type and subtype of a system line; durationMs", "measured by the runtime"),
    # roles
    "id": ("uuid", _REC, "a file-history-snapshot's messageId is a reference, not an id"),
    "parent": ("parentUuid", _REC, "containment parent"),
    "call": ("message.id", "message.id of an assistant line", "not requestId"),
    "batch": ("toolUseResult.runId", "toolUseResult of a user line; the workflows/<run> directory and wf_<run> file names", "a workflow run"),
    "continues": ("logicalParentUuid", f"{_REC} of a compact_boundary line", "the record the new context resumes from"),
    "child": ("toolUseResult.agentId", "toolUseResult of a user line; agentId of a sidecar or journal line", "the child stream named"),
    "time": ("timestamp", _REC, "RFC 3339 as the runtime wrote it; sidecars, manifests and scripts have none"),
    "trigger": ("origin.kind", f"{_REC}, else attachment.origin.kind", 'human → external, task-notification → notification, other → unknown; with no origin key: a typed prompt (string or text-only content, no toolUseResult) → external, a <task-notification> string → notification'),
    "model": ("message.model", "message.model of an assistant line", "as the runtime wrote it"),
    # relations
    "starts": ("toolUseResult.agentId, or a run journal", "toolUseResult of a user line; journal.jsonl started rows", "a call starting a child stream"),
    "reports": ("<task-notification>", "string message.content of a user line", "a child's completion reported to its parent"),
    "follows": ("logicalParentUuid", f"{_REC} of a compact_boundary line", "a new epoch follows the old one"),
    "summarizes": ("parentUuid", "parentUuid of the isCompactSummary line", "the summary points at its boundary"),
    "result_of": ("tool_use_id", "tool_result block in message.content[]", "joined by exact id"),
    "cancels": ("toolUseResult.interrupted", "toolUseResult of a user line", "an interrupted call"),
    # content states, trigger values
    "redacted": ("redacted_thinking", f"{_MSG} of an assistant line", "the provider encrypted the reasoning"),
    "external": ('origin.kind "human"', f"{_REC} of a user line", 'also promptSource "sdk" with no origin'),
    "notification": ('origin.kind "task-notification"', f"{_REC} of a user line", "a runtime notification started the talk"),
}

_DERIVED: dict[str, str] = {
    "conversation": "derived: one conversation per session",
    "segment": "derived by assembly from the chain of parents",
    "epoch": "derived: the stretch between compact boundaries",
    "talk": "derived from triggers",
    "agent.output": "derived: a child's last response that is not synthetic",
    "ends_with": "derived by assembly",
    "in_segment": "derived by assembly",
    "retries": "derived: Claude Code records no retry identity",
    "input_of": "derived: no serialized request is recorded",
    "auxiliary": "derived: Claude Code has no auxiliary streams",
    "judge": "derived: Claude Code has no judge streams",
    "unknown": "derived: an origin.kind other than human or task-notification",
    "unavailable": "derived: a thinking block with empty text",
}


def glossary_terms() -> list[Term]:
    """One Term per name of :data:`asz_core.VOCABULARY`, in its order (origin-digest §6).

    Names not listed as named or with a specific derivation note (qualities,
    claim states and most content states) are derived by asz.
    """
    return list(build_glossary(_NAMED, _DERIVED, default_note="derived by asz; Claude Code has no word for it"))


#: The glossary of ``claude-code/1``, computed once.
GLOSSARY: tuple[Term, ...] = tuple(glossary_terms())
