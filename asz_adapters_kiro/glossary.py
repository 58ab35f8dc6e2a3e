"""The ``kiro/1`` glossary: what Kiro calls each model name, and where it appears (origin-digest §6).

Every name of :data:`asz_core.VOCABULARY` has one :class:`~asz_core.Term`. A
term with a ``native`` name says ``where`` it appears in Kiro's files; a term
with an empty ``native`` is derived by asz or absent from Kiro, says so in
``note``, and has no ``where``.

Places are written as: "3.x line" = a line of ``messages.jsonl`` (``payload``
members unless said otherwise); "2.x entry" = a line of
``sessions/cli/<id>.jsonl``; "1.x state" = a ``conversations_v2`` /
``conversations`` row value or a ``/chat save`` export.
"""

from __future__ import annotations

from asz_core import Term, build_glossary

__all__ = ["GLOSSARY", "glossary_terms"]

_V3 = "3.x line"
_V2 = "2.x entry"
_V1 = "1.x state"

# model name -> (native, where, note)
_NAMED: dict[str, tuple[str, str, str]] = {
    # structure
    "session": (
        "id / session_id / conversation_id",
        f"3.x session.json id and the sess_<id> directory; 2.x <id>.json session_id and the file names; {_V1} conversation_id",
        "a 3.x or 2.x child session is a stream of its parent session, not a session of its own",
    ),
    "stream": (
        "subSessionId / parent_session_id",
        f"{_V3} sub_agent_start.subSessionId and a child's session.json parentSessionId; 2.x <id>.json parent_session_id",
        "a 3.x child stream is named by its sub-session id without the sess_ prefix",
    ),
    "run": (
        "id / message_id of the prompt",
        f"{_V3} id of the user line (source not hook) that opens a turn, stated on every line through the turn_end "
        "that closes it; 2.x entry data.message_id of a Prompt, stated on every entry until the next Prompt",
        "derived by line order: Kiro writes the prompt's id on the prompt line only, and no id on the lines joins them "
        "(a 3.x user line has no executionId; turn_end names another). A 3.x line outside any turn states its "
        "payload.executionId (parentExecutionId on sub-agent lines); 1.x records no run",
    ),
    "main": ("messages.jsonl / <id>.jsonl", "the session's own files", "the stream the person talks to"),
    # steps
    "message.external": ('payload.type "user"', f"{_V3}; 2.x entry kind Prompt; {_V1} history[].user.content.Prompt; IDE session JSON history[].message with role user (one step per message)", "a user line with source hook is an injection instead"),
    "message.assistant": ('payload.type "assistant"', f"{_V3} with operationType Say or Print; 2.x AssistantMessage text item; {_V1} assistant.Response; IDE execution log bot text entry", "the model's visible prose; the IDE session JSON's placeholder (\"On it.\") is never one"),
    "context.injection": ('source "hook" / session_start', f"{_V3} user payload; {_V3} payload.type session_start (Kiro IDE); {_V1} history[].user.additional_context", "hook output and context files placed into the prompt; Kiro IDE's session_start content is its system prompt (flag system_prompt)"),
    "thinking": ('operationType "Reasoning"', f"{_V3} assistant payload; 2.x content item kind thinking", "the reasoning signature is dropped"),
    "tool": ("tool_call + tool_result", f"{_V3} joined by toolCallId; 2.x toolUse + toolResult items by toolUseId; {_V1} ToolUse.tool_uses + ToolUseResults; IDE execution log toolUse + toolUseResponse entries by the id or toolUseId they write", "failed comes from success (3.x, IDE) or status (2.x, 1.x)"),
    "llm.call": (
        "id / message_id",
        f"{_V3} id of the first model line of a request; 2.x AssistantMessage data.message_id",
        "2.x: one AssistantMessage is one model request (<id>.json total_request_count counts them). 3.x writes no "
        "provider call or request id; a request is answered by the runtime running its tool calls and handing the "
        "results back, so by line order one request is a stretch of assistant, tool_call and sub_agent_start lines "
        "with no tool_result, sub_agent_complete, user, turn_start, turn_end or tombstone line between them "
        "(approvals and session_metadata lines neither open nor close one); its call is the id of its first line. "
        "Calls a response made in parallel but Kiro ran one by one, each result before the next call, count as "
        "separate requests: the lines cannot tell them apart. IDE: one execution log is one call (executionId)",
    ),
    "agent.call": ("sub_agent_start / executionId", f"{_V3} payload.type; IDE session JSON assistant entry naming an executionId (call name execution)", "names the child in subSessionId; its call id is the line id without -sub-agent-start. IDE: the placeholder starts the execution, whose log is the stream execution-<id>; its result is the log's status"),
    "epoch.boundary": ("tombstone / Compaction / Clear", f"{_V3} payload.type tombstone (kind summarization or checkpoint_revert); 2.x entry kind Compaction or Clear", "an explicit context reset"),
    "epoch.summary": ('operationType "Summary" / summary / latest_summary', f"{_V3} assistant payload; 2.x Compaction data.summary; {_V1} latest_summary[0]", "the summary carried into the new context"),
    "error.api": ("displayError", f"{_V3} session_metadata with key displayError", "value.errorType and value.message say what failed"),
    "control.interrupt": ("CancelledToolUses / CancelledPrompt", f"{_V1} history[].user.content; 2.x entry kind", "not emitted as a step by this dialect"),
    "control.permission": ("pending_interaction / interaction_resolved", f"{_V3} payload.type (interactionType tool_approval)", "drawn as a notice (control.notice, flag notice) whose text says what was asked and which option the person chose (always-accept: a lasting approval); the line is kept whole as data"),
    "turn.duration": ("elapsedTime / turn_duration", f"{_V3} usage_summary.elapsedTime (milliseconds); 2.x <id>.json user_turn_metadatas[].turn_duration", "measured by the runtime"),
    # roles
    "id": ("id / message_id", f"{_V3} top-level id; 2.x data.message_id", "a 3.x tool line id is the tool call id with a -call, -result or -pending suffix"),
    "call": ("id / message_id", f"{_V3} id of the first model line of the request (see llm.call); 2.x AssistantMessage data.message_id", "the model request a record belongs to"),
    "parent": ("_meta.kiro.userMessageId", f"{_V3} payload _meta of assistant, tool_call and user lines", "the user prompt that triggered the line, when Kiro writes it"),
    "child": ("subSessionId", f"{_V3} sub_agent_start and sub_agent_complete", "the child stream named"),
    "time": ("timestamp / meta.timestamp", f"{_V3} top-level timestamp (RFC 3339); 2.x data.meta.timestamp (seconds since the epoch, written as RFC 3339)", "2.x assistant and tool entries carry no time; of the metadata documents only a 2.x <id>.json has one, its updated_at (a 3.x session.json's lastModifiedAt moves at every rewrite: kept in its data, not its time)"),
    "trigger": ("source", f"{_V3} user payload source (absent, chat, api, steer → external); 2.x Prompt → external", "hook-sourced input is an injection, not a trigger"),
    "model": ("modelId / model_info.model_id / reasoningModelId", f"3.x session.json modelId and assistant reasoningModelId; 2.x <id>.json session_state.rts_model_state.model_info.model_id; {_V1} model_info.model_id", "often the router name auto; a call whose lines name no model (no Reasoning line) is counted under the session's modelId"),
    # relations
    "starts": ("sub_agent_start.subSessionId", f"{_V3}", "a call starting a child stream"),
    "reports": ("sub_agent_complete", f"{_V3}; response, status and errorMessage", "the child's synchronous return (flag child_result)"),
    "result_of": ("toolCallId / toolUseId / tool_use_id", f"{_V3} tool_result; 2.x toolResult item; {_V1} tool_use_results[]", "joined by exact id"),
    "cancels": ("CancelledToolUses", f"{_V1} history[].user.content", "each cancelled call gets an error result"),
    # trigger values
    "external": ('payload.type "user"', f"{_V3} user payload without source hook; 2.x Prompt", "a person or an API client started the talk"),
}

_DERIVED: dict[str, str] = {
    "conversation": "derived: one conversation per session",
    "segment": "derived by assembly",
    "epoch": "derived: the stretch between context resets",
    "talk": "derived from triggers",
    "message.synthetic": "Kiro writes no client-made assistant messages",
    "agent.launch_ack": "Kiro sub-agents return synchronously: there is no launch acknowledgement",
    "agent.output": "derived: a child's last response; the parent's copy is sub_agent_complete",
    "runtime.notification": "Kiro records no runtime notifications",
    "control.command": "Kiro records no slash commands in its sessions",
    "batch": "Kiro has no workflow runs",
    "continues": "a 3.x tombstone names the first message no longer effective (effectiveFromMessageId), kept in data, not the record the context resumes from",
    "ends_with": "derived by assembly",
    "follows": "derived: the new epoch follows its tombstone or Compaction entry",
    "summarizes": "derived: the Summary line follows its tombstone",
    "in_segment": "derived by assembly",
    "retries": "derived: Kiro records no retry identity",
    "input_of": "derived: no serialized request is recorded",
    "auxiliary": "Kiro has no auxiliary streams",
    "judge": "Kiro has no judge streams",
    "notification": "Kiro records no notification-started talks",
    "unknown": "derived: a trigger this dialect cannot name",
    "unavailable": "derived: a reasoning line with empty content",
    "redacted": "Kiro writes no redacted content",
}


def glossary_terms() -> list[Term]:
    """One Term per name of :data:`asz_core.VOCABULARY`, in its order (origin-digest §6).

    Names neither named nor given a specific note (qualities, claim states
    and the other content states) are derived by asz.
    """
    return list(build_glossary(_NAMED, _DERIVED, default_note="derived by asz; Kiro has no word for it"))


#: The glossary of ``kiro/1``, computed once.
GLOSSARY: tuple[Term, ...] = tuple(glossary_terms())
