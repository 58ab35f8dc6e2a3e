"""The ``example-codex/1`` glossary: what Codex calls each model name, and where it appears (origin-digest §6).

Every name of :data:`asz_core.VOCABULARY` has one :class:`~asz_core.Term`
(:func:`asz_core.build_glossary`). A term with a ``native`` name says ``where``
it appears in a rollout line; a term Codex has no word for has an empty
``native``, a ``note`` saying why, and no ``where``.
"""

from __future__ import annotations

from asz_core import build_glossary

__all__ = ["GLOSSARY"]

# model name -> (native, where, note)
_NAMED: dict[str, tuple[str, str, str]] = {
    "session": ("session_meta.payload.id", "first line of a rollout file; also the UUID in the file name", ""),
    "time": ("timestamp", "every rollout line", ""),
    "model": ("turn_context.payload.model", "turn_context lines", ""),
    "tool": ("call_id", "function_call, custom_tool_call, local_shell_call and their *_output payloads", ""),
    "message.external": ("response_item message, role user", 'payload.role == "user"', ""),
    "message.assistant": ("response_item message, role assistant", 'payload.role == "assistant"', ""),
    "context.injection": ("response_item message, role developer",
                          'payload.role == "developer" or "system", or user text wrapped in <environment_context>', ""),
    "thinking": ("response_item reasoning", "payload.summary[].text; encrypted_content is dropped", ""),
    "epoch.boundary": ("compacted", "line type compacted", ""),
    "epoch.summary": ("compacted.payload.message", "line type compacted", ""),
    "trigger": ("response_item message, role user", 'payload.role == "user" (trigger external)', ""),
    "external": ("user", 'payload.role == "user"', ""),
}
#: What Codex has no word for, and why.
_DERIVED = {
    "stream": "a rollout file is one stream, always main",
    "llm.call": "Codex writes no provider call id: each token_count line is the request it reports (call token_count:<its sha>), its model the turn's",
    "available": "every part a line carries in readable form",
    "unavailable": "a reasoning item with no summary text",
}

GLOSSARY = build_glossary(_NAMED, _DERIVED, default_note="Codex rollout files have no word for this; asz derives it or it does not occur")
