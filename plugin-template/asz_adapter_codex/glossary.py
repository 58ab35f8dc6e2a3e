"""Glossary and flag rules of the ``codex/1`` dialect (what Codex calls each model name)."""

from asz_core import FlagRule, Term

_T = [
    Term("session", "session_meta.payload.id", "first line of a rollout file; also in the file name"),
    Term("stream", "", "", "a rollout file is one stream, always main"),
    Term("time", "timestamp", "every rollout line"),
    Term("model", "turn_context.payload.model", "turn_context lines"),
    Term("tool", "call_id", "function_call / function_call_output payloads"),
    Term("llm.call", "", "", "Codex writes no provider call id; each response item stands alone"),
    Term("message.external", "response_item message, role user", "payload.role == \"user\""),
    Term("message.assistant", "response_item message, role assistant", "payload.role == \"assistant\""),
    Term("context.injection", "response_item message, role developer", "payload.role == \"developer\" or user text in <environment_context>"),
    Term("thinking", "response_item reasoning", "payload.summary[].text; encrypted_content is dropped"),
    Term("epoch.boundary", "compacted", "line type compacted"),
    Term("epoch.summary", "compacted.payload.message", "line type compacted"),
    Term("available", "", "", "every part a line carries in readable form"),
    Term("unavailable", "", "", "a reasoning item with no summary text"),
]
#: Terms Codex names; every other vocabulary name is derived (empty native name).
TERMS = {t.unified: t for t in _T}

FLAG_RULES = (
    FlagRule("external_input", "response_item message with role user whose text is not wrapped in <environment_context> or <user_instructions>"),
    FlagRule("injected", "response_item message with role developer or system, or a user message whose every text is wrapped in <environment_context> / <user_instructions>"),
    FlagRule("system_prompt", "response_item message with role developer or system"),
    FlagRule("context_reset", "line type compacted"),
    FlagRule("reset_summary", "line type compacted"),
)
