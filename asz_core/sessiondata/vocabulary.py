"""Every closed vocabulary of asz's formats, defined once (seed 000 for Session Data, seed 001 / origin-digest §4 for
Session Flow); everything else imports them from here.

Session Data (what an adapter writes into a record; the writer refuses any other value):

* :data:`FROM_VALUES`: who produced a record (``from``);
* :data:`TRIGGERS`: what started a turn (``trigger``);
* :data:`PART_KINDS`: a part's ``k``; :data:`STATES`: a part's ``state`` (``removed`` only in a skeleton);
* :data:`FLAGS`: the closed flag vocabulary, :data:`WITHHOLDABLE` the flags a server may withhold;
* :data:`FILE_KINDS`: the kinds of landed files an adapter writes.

Session Flow (what assembly names; the glossary of every dialect covers :data:`GLOSSARY_NAMES`):
:data:`STRUCTURAL_KINDS`, :data:`STEP_KINDS`, :data:`ROLES`, :data:`RELATION_TYPES`, :data:`QUALITIES`,
:data:`CLAIM_STATES`, :data:`CONTENT_STATES`, :data:`STREAM_ROLES`.

This module imports nothing, so every room of the core (and every adapter, through ``asz_core``) can use it.
"""

from __future__ import annotations

__all__ = [
    "FROM_VALUES",
    "TRIGGERS",
    "PART_KINDS",
    "STATES",
    "FLAGS",
    "WITHHOLDABLE",
    "FILE_KINDS",
    "STRUCTURAL_KINDS",
    "STEP_KINDS",
    "ROLES",
    "RELATION_TYPES",
    "QUALITIES",
    "CLAIM_STATES",
    "CONTENT_STATES",
    "STREAM_ROLES",
    "GLOSSARY_NAMES",
    "USAGE_COUNT_DROPPED",
    "USAGE_RATE_DROPPED",
    "USAGE_DROPPED",
    "TWICE_DROPPED",
]

# --------------------------------------------------------------------------- Session Data (seed 000)

#: ``from``: who produced the record (seed 000, Record).
FROM_VALUES = ("agent", "external", "runtime")
#: ``trigger``: what started the turn a record opens (seed 000, Record).
TRIGGERS = ("external", "notification", "unknown")
#: Part kinds (seed 000, Parts).
PART_KINDS = ("text", "reasoning", "call", "result", "media", "data", "unknown")
#: Part states; ``removed`` only appears in a skeleton (seed 000, Skeletons).
STATES = ("available", "truncated", "redacted", "omitted", "unavailable", "too_large", "removed")
#: The closed flag vocabulary (origin-digest §3.4), in its documented order.
FLAGS = (
    "external_input",
    "injected",
    "system_prompt",
    "tool_schemas",
    "finished",
    "synthetic",
    "context_reset",
    "reset_summary",
    "child_result",
    "error",
    "launch_ack",
    "turn_duration",
    "command",
    "notice",
    "auxiliary",
)
#: Flags a server may withhold by name, in this order (seed 000, Flags).
WITHHOLDABLE = ("system_prompt", "tool_schemas")
#: File kinds written by adapters (origin-digest §3.1).
FILE_KINDS = (
    "transcript",
    "agent_meta",
    "journal",
    "workflow_manifest",
    "workflow_script",
    "changes",
    "execution",
    "provider_body",
    "tool_output",
)

# --------------------------------------------------------------------------- Session Flow (seed 001; origin-digest §4.4, §4.5)

#: Structural kinds.
STRUCTURAL_KINDS = ("conversation", "segment", "session", "stream", "epoch", "talk", "run")
#: Step kinds, in documented order; ``control.notice`` is a kind but not in the glossary vocabulary.
STEP_KINDS = (
    "message.external",
    "message.assistant",
    "message.synthetic",
    "context.injection",
    "llm.call",
    "thinking",
    "tool",
    "agent.call",
    "agent.launch_ack",
    "agent.output",
    "runtime.notification",
    "epoch.boundary",
    "epoch.summary",
    "error.api",
    "control.interrupt",
    "control.permission",
    "control.command",
    "turn.duration",
    "control.notice",
)
#: Roles on records.
ROLES = ("id", "parent", "call", "run", "batch", "stream", "continues", "tool", "child", "time", "trigger", "model")
#: Relation types: written ones and vocabulary-only ones.
RELATION_TYPES = ("starts", "reports", "ends_with", "follows", "summarizes", "in_segment", "result_of", "retries", "cancels", "input_of")
#: Qualities of a join or relation.
QUALITIES = ("exact_unique", "exact_ambiguous", "strong_inference", "weak_inference", "unresolved", "conflict")
#: Claim states of an attribute.
CLAIM_STATES = ("observed_replayable", "observed_report_only", "proposed", "unavailable")
#: Content states of a node's content.
CONTENT_STATES = ("available", "redacted", "omitted", "hash_only", "size_only", "truncated", "unavailable")
#: Roles of a stream.
STREAM_ROLES = ("main", "child", "auxiliary", "judge")


def _glossary_names() -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in (STRUCTURAL_KINDS, tuple(k for k in STEP_KINDS if k != "control.notice"), ROLES, RELATION_TYPES,
                  QUALITIES, CLAIM_STATES, CONTENT_STATES, STREAM_ROLES, TRIGGERS):
        for name in group:
            seen.setdefault(name, None)
    return tuple(seen)


#: Every model name a dialect's glossary must cover (origin-digest §4.5 and §6), in this order.
GLOSSARY_NAMES: tuple[str, ...] = _glossary_names()

#: How the ``what`` of a dropped entry for a usage count begins, followed by the source field (``usage count
#: message.usage.output_tokens``): a count Session Data cannot carry (not an integer in 64 bits with its sign). A reader
#: says the usage of the call whose record lists one is incomplete (docs/view.md, Usage).
USAGE_COUNT_DROPPED = "usage count "

#: How the ``what`` of a dropped entry for a call's rate begins, followed by the source field and its value (``usage
#: rate message.usage.speed fast``): a usage field that makes the call cost a multiple of standard rates (fast mode, a
#: priority or batch tier, a data-residency region), which no price table asz holds prices. A reader prices the call at
#: standard rates and says so (docs/view.md, Usage).
USAGE_RATE_DROPPED = "usage rate "
#: How the ``what`` of every dropped entry about a call's usage begins (:data:`USAGE_COUNT_DROPPED`,
#: :data:`USAGE_RATE_DROPPED`): the compiled reader of calls (``bytescan.call_usages``) leaves a call one of whose
#: records lists such an entry to the Python one, which reads both.
USAGE_DROPPED = "usage "
assert USAGE_COUNT_DROPPED.startswith(USAGE_DROPPED) and USAGE_RATE_DROPPED.startswith(USAGE_DROPPED)

#: How the ``what`` of a dropped entry for the earlier value of a key one object of the source line gives twice begins,
#: followed by the member's path from the line's top (``key given twice message.usage.input_tokens``): every JSON reader
#: reads the last value, and so does the dialect (asz_core.sessiondata.keystwice, trial 27c F9). Collect says a
#: ``warning:`` of it, and a reader a problem (docs/session-data.md, Dropped).
from .execution_digest import TWICE_DROPPED  # noqa: E402  (defined beside the digest: asz hook names it too)
