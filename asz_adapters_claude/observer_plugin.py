"""Registration of the ``changes`` adapter (entry point ``changes`` in the ``asz`` group; origin-digest §5.2)."""

from __future__ import annotations

from asz_core import Adapter, hookimpl

from .observer_adapter import ClaudeCodeObserver

__all__ = ["ClaudeCodeObserver", "asz_register_adapters"]


@hookimpl
def asz_register_adapters() -> list[type[Adapter]]:
    """The adapters this plugin provides: ``[ClaudeCodeObserver]`` (name ``changes``, dialect ``asz-changes/1``)."""
    return [ClaudeCodeObserver]
