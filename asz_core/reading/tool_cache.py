"""Each conversation's tool calls kept as derived data, so ``asz usage tools`` builds a conversation only when its files
changed (trial 40a F5: 3.5 s of CPU on 358 conversations, where ``asz usage daily`` reads its kept summaries).

An entry is what :func:`~asz_core.view.document.conversation_tool_calls` gives (the verification state, one dict per
tool call, and of each execution record the keys :class:`~asz_core.reading.tool_use.ToolReport` reads:
:data:`EXEC_KEYS`), stored in ``<root>/_index/summaries.sqlite`` (table ``tools``, beside the list rows and summaries
of :mod:`asz_core.view.summary_cache`, sealed as they are) under the conversation, the withheld names and a
fingerprint: :func:`~asz_core.view.summary_cache.fingerprint` (the stat of the conversation's round files and its
session's landed files, asz's version and how it counts) followed by :func:`tool_mark`, the build mark of the code that
reads tool calls. An entry is read only while both are the same, so a file added, removed or changed, or another build of
that code, reads the conversation again. ``asz verify --figures`` counts every entry in use again
(:mod:`asz_core.reading.figures`). Derived data: deleting it loses nothing; a root that cannot be written is read
without it.
"""

from __future__ import annotations

import os
from typing import Sequence

import orjson

__all__ = ["EXEC_KEYS", "ToolCache", "entry_bytes", "tool_fingerprint", "tool_mark"]

#: The keys of an execution record (a document's ``tool_executions`` entry) an entry keeps: those the report reads.
EXEC_KEYS = ("id", "tool_name", "step", "duration_ms", "outcome", "failure", "time")


def tool_mark() -> str:
    """The build mark of the code a document is built with (:func:`~asz_core.view.found_store.build_mark`: asz's
    version and the stat of every code file of asz_core and of the installed adapters, whose dialects decide a tool's
    role), once a process: a build whose reading of tool calls may differ never reads another's entries."""
    from ..view.found_store import build_mark

    return build_mark()


def tool_fingerprint(root: str | os.PathLike, conversation: str) -> str:
    """The fingerprint a ``tools`` entry of ``conversation`` is kept under: the files' (its head round's session,
    :func:`~asz_core.view.rows.head_session`) and :func:`tool_mark`."""
    from ..view.rows import head_session
    from ..view.summary_cache import fingerprint

    return f"{fingerprint(root, conversation, head_session(root, conversation))}:{tool_mark()}"


def entry_bytes(state: str, calls: list[dict], executions: list[dict]) -> bytes | None:
    """The JSON an entry holds: ``{"state", "calls", "executions"}`` (each execution record's :data:`EXEC_KEYS`);
    None when it does not serialise (a number past 64 bits: read, not kept)."""
    try:
        return orjson.dumps({"state": state, "calls": calls,
                             "executions": [{k: e[k] for k in EXEC_KEYS if k in e} for e in executions]})
    except TypeError:
        return None


class ToolCache:
    """The ``tools`` table of the root's summary store; a miss and no write when it cannot be opened."""

    def __init__(self, root: str | os.PathLike):
        from ..view.summary_cache import SummaryStore

        self.root = root
        self.store = SummaryStore(root)

    def get(self, conversation: str, hide: Sequence[str]) -> tuple[str, tuple | None]:
        """``(fingerprint, (state, calls, executions) or None)`` for ``conversation`` withholding ``hide``."""
        if self.store.con is None:
            return "", None
        fp = tool_fingerprint(self.root, conversation)
        raw = self.store.get("tools", conversation, list(hide), fp)
        if raw is None:
            return fp, None
        got = orjson.loads(raw)
        return fp, (got["state"], got["calls"], got["executions"])

    def put(self, conversation: str, hide: Sequence[str], fp: str, value: tuple) -> None:
        """Keep ``value`` (``(state, calls, executions)``) under ``fp``; nothing without a store or a fingerprint."""
        data = entry_bytes(*value) if fp else None
        if data is not None:
            self.store.put("tools", conversation, list(hide), fp, data)

    def close(self) -> None:
        self.store.close()
