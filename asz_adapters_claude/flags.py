"""The ``claude-code/1`` flag mapping: each flag this dialect sets and the rule that sets it.

Rules are over source fields only, never over text or size (seed 000, Flags;
origin-digest §5.1 ``flagsOf`` and ``sentFlags``). The code applying them is
:mod:`asz_adapters_claude.convert`.
"""

from __future__ import annotations

from asz_core import FlagRule

__all__ = ["FLAG_RULES"]

#: One rule per flag the dialect sets, in the flag vocabulary's order. ``auxiliary`` is never set.
FLAG_RULES: tuple[FlagRule, ...] = (
    FlagRule(
        "external_input",
        'a user line that is not isMeta and not isCompactSummary, with origin.kind "human", or with no origin and '
        'promptSource "sdk"; a user line of a transcript that writes no origin key (before Claude Code wrote origin), '
        'not isMeta, not isCompactSummary, not isSidechain, without toolUseResult, whose message.content is a string (not opening with '
        '<task-notification>, <local-command-stdout>, <local-command-stderr>, <bash-stdout> or <bash-stderr>) or a list of only text and image blocks (not the interrupt notice '
        'the notice rule names); '
        'an attachment line of type queued_command with commandMode "prompt"',
    ),
    FlagRule("injected", 'an attachment line (except a queued prompt); any line with isMeta true'),
    FlagRule(
        "system_prompt",
        "an attachment of type prompt_snapshot; a line landing as unknown whose bytes contain prompt_snapshot",
    ),
    FlagRule(
        "tool_schemas",
        'a prompt_snapshot attachment with a key containing "tool" that holds a non-empty list, object or string; '
        'a deferred_tools_record attachment with a key other than type and toolInputCopies holding a non-empty list '
        "or object; a line landing as unknown whose bytes contain prompt_snapshot or deferred_tools_record",
    ),
    FlagRule("finished", "an assistant line whose message.stop_reason is a non-empty string"),
    FlagRule("synthetic", 'an assistant line whose message.model is "<synthetic>"'),
    FlagRule("context_reset", "a system line with subtype compact_boundary"),
    FlagRule("reset_summary", "a line with isCompactSummary true"),
    FlagRule(
        "child_result",
        'a user line whose toolUseResult.status is "completed"; a journal line with a result key',
    ),
    FlagRule("error", "a system line with subtype api_error"),
    FlagRule("launch_ack", 'a user line whose toolUseResult.status is "async_launched"'),
    FlagRule("turn_duration", "a system line with subtype turn_duration"),
    FlagRule("command", "a system line with subtype local_command"),
    FlagRule(
        "notice",
        "a system line with any other subtype, or none (away_summary, bridge_status, informational, "
        "model_refusal_fallback, stop_hook_summary, future subtypes); a user line with no origin, not isMeta, not "
        "isCompactSummary, not isSidechain, without toolUseResult, whose message.content is a list of one text block holding, whole, "
        "[Request interrupted by user] or [Request interrupted by user for tool use] (Claude Code's interrupt "
        "notice, the runtime's fixed wording)",
    ),
)
