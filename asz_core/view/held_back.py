"""What a list row holds back when its conversation does not verify, and how many of its files retention replaced:
the rules of a row's keys shared by the kept summaries (:mod:`asz_core.view.summary_cache`, which re-exports them)
and every reader of rows."""

from __future__ import annotations

#: The row keys a conversation that does not verify gives as null (:func:`hold_back`): figures read from evidence
#: that does not verify are counted in no list and no total.
HELD_KEYS = ("usage", "cost")


def removed_files(summary: dict) -> int:
    """How many of the landed files a summary (the document's, or a kept entry's :meth:`ConversationSummary.keys`)
    was counted from retention replaced by skeletons (its ``removed.files``; 0 when it has no ``removed``): the
    ``removed_files`` of a list row, as ``asz ls --json`` gives it."""
    r = summary.get("removed")
    return r["files"] if isinstance(r, dict) and isinstance(r.get("files"), int) else 0


def hold_back(keys: dict, state: str | None) -> dict:
    """``keys`` (a list row's summary keys) as a list gives them: when ``state`` is a verification state other than
    ``verified`` (``incomplete``, ``mismatch``), :data:`HELD_KEYS` are null and ``held_back`` says
    ``{"state": state, "keys": [...]}``, so no total counts what does not verify; else ``keys`` unchanged."""
    if state in (None, "verified", "unreadable"):
        return keys
    out = {**keys, **{k: None for k in HELD_KEYS if k in keys}}
    out["held_back"] = {"state": state, "keys": [k for k in HELD_KEYS if k in keys]}
    return out
