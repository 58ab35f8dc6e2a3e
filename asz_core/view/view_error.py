""":class:`ViewError`, alone: what the readers that only list conversations (``asz ls``, ``asz usage``, ``asz search``)
catch without importing the chain reader that raises it (:mod:`asz_core.view.chain`, which re-exports it; issue 22,
each command's start)."""

from __future__ import annotations

__all__ = ["ViewError"]


class ViewError(RuntimeError):
    """No document can be built: the conversation has no usable round (or does not exist)."""
