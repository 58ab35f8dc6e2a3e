"""The keys issue 17 adds to the asz.view document (a 1.x only adds keys), and how to take them out again
so a document compares with the original's fixtures."""

from __future__ import annotations

#: Keys issue 17 adds to ``summary``.
SUMMARY_KEYS = ("project", "git_branch", "runtime", "models", "usage", "usage_by_model", "usage_by_lane", "cost")


def strip_added(doc: dict) -> dict:
    """``doc`` without issue 17's keys, in place: the summary's, and each call's ``model``, ``long_context`` and ``usage_state``.

    A call read ``last_seen`` had no usage in the original (it kept usage only on finished calls), so its
    ``usage`` goes too; a ``final`` call's usage is the original's key and stays.
    """
    for k in SUMMARY_KEYS:
        (doc.get("summary") or {}).pop(k, None)

    def walk(n):
        if isinstance(n, dict):
            if n.get("kind") == "llm.call":
                n.pop("model", None)
                n.pop("long_context", None)  # a call above 200K input tokens (long-context prices)
                n.pop("synthetic", None)  # a message the client wrote itself: no model call (F12)
                if n.pop("usage_state", None) == "last_seen":
                    n.pop("usage", None)
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)

    walk(doc)
    return doc
