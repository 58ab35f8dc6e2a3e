"""The ``example-codex/1`` flag mapping: each flag this dialect sets and the rule over rollout fields that sets it.

Rules read fields only, never text or size (seed 000, Flags).
:mod:`asz_adapter_example.convert` applies them. ``finished``, ``synthetic``,
``child_result``, ``error``, ``launch_ack``, ``turn_duration``, ``command``,
``notice``, ``auxiliary`` and ``tool_schemas`` are never set: a rollout file
writes no stop reason, no client-made message, no child agent, no error record,
no command record and no tool schemas.

Each flag draws something in every reader (docs/adapters.md, "What each flag does to the readers"). Two to weigh
for a runtime of your own: with no ``finished`` rule, every model call's usage reads as its last snapshot (the
exports write ``(last snapshot, no end recorded)`` after its tokens; the tokens still count), so flag the record that
ends a call when the runtime says so (a stop reason, a final usage line); and ``error`` means a failed model
request: it draws an ``error.api`` step, ``API error step(s)`` in ``asz conversation`` and the ``asz ls`` state
``errors``, so a runtime's own error that is no failed request is better a ``notice``.
"""

from __future__ import annotations

from asz_core import FlagRule

__all__ = ["FLAG_RULES"]

FLAG_RULES = (
    FlagRule("external_input", "response_item message with role user whose texts are not all wrapped in <environment_context> or <user_instructions>"),
    FlagRule("injected", "response_item message with role developer or system; a user message whose every text is wrapped in "
                         "<environment_context> or <user_instructions>; session_meta whose payload.instructions or "
                         "payload.base_instructions is a non-empty string"),
    FlagRule("system_prompt", "response_item message with role developer or system; session_meta whose payload.base_instructions "
                              "is a non-empty string (the system prompt Codex sends the model)"),
    FlagRule("context_reset", "line type compacted"),
    FlagRule("reset_summary", "line type compacted"),
)
