"""The ``kiro/1`` flag mapping: each flag this dialect sets and the rule over source fields that sets it.

Rules read fields only, never text or size (seed 000, Flags; origin-digest
§3.4). :mod:`asz_adapters_kiro.convert` applies them. ``finished``,
``synthetic``, ``launch_ack``, ``command`` and ``auxiliary`` are never set:
Kiro persists no per-call stop reason with real token usage, no client-made
assistant message, no asynchronous child launch, no in-line command and no
auxiliary stream. ``system_prompt`` is set on the one record that holds one,
Kiro IDE's ``session_start`` line.
"""

from __future__ import annotations

from asz_core import FlagRule

__all__ = ["FLAG_RULES"]

#: One rule per flag the dialect sets, in the flag vocabulary's order.
FLAG_RULES: tuple[FlagRule, ...] = (
    FlagRule("external_input", '3.x line with payload.type "user" and a source other than "hook" (or none); 2.x entry with kind "Prompt"; '
             "a Kiro IDE session JSON (a history of message objects)"),
    FlagRule("injected", '3.x line with payload.type "user" and source "hook"; 3.x line with payload.type "session_start" '
             "(the system prompt the runtime placed in the model's context)"),
    FlagRule("system_prompt", '3.x line with payload.type "session_start" (Kiro IDE: its content is the system prompt the IDE sent the model)'),
    FlagRule("tool_schemas", "a 1.x conversation state (SQLite row value or /chat save export) whose tools member is a non-empty object or list"),
    FlagRule("context_reset", '3.x line with payload.type "tombstone"; 2.x entry with kind "Compaction" or "Clear"'),
    FlagRule(
        "reset_summary",
        '3.x line with payload.type "assistant" and operationType "Summary"; 2.x entry with kind "Compaction"; '
        "a 1.x conversation state whose latest_summary is a list starting with a string",
    ),
    FlagRule("child_result", '3.x line with payload.type "sub_agent_complete"'),
    FlagRule("error", '3.x line with payload.type "session_metadata" and key "displayError"'),
    FlagRule("turn_duration", '3.x line with payload.type "usage_summary" whose elapsedTime is a number'),
    FlagRule("notice", '3.x line with payload.type "session_event", "pending_interaction" or "interaction_resolved", '
             'or "session_metadata" with key "contextUsage" and a numeric value.usagePercentage'),
)
