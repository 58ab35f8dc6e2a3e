"""The words of a conversation read from its landed records in memory, its chain damaged (trial 29a F8;
:mod:`asz_core.flow.in_memory`), in a module of their own: the page's word list (``asz_core.view.rate_words``) is
built as ``asz view`` starts, before its first answer, and must not load the fold and the Session Data codec that
the in-memory read imports."""

from __future__ import annotations

__all__ = ["IN_MEMORY_NOTE"]

#: What the readers say of a conversation read so (stderr, ``summary.problems``, the list's state).
IN_MEMORY_NOTE = "chain damaged: read from the landed records, not from the chain"
