"""Registration of the ``claude-code-provider`` adapter (entry point ``claude-code-provider``; origin-digest §5.3)."""

from __future__ import annotations

from asz_core import Adapter, hookimpl

from .provider import ClaudeCodeProvider

__all__ = ["ClaudeCodeProvider", "asz_register_adapters", "asz_register_commands"]


@hookimpl
def asz_register_adapters() -> list[type[Adapter]]:
    """The adapters this plugin provides: ``[ClaudeCodeProvider]`` (dialect ``claude-code-provider/1``, kind provider_body)."""
    return [ClaudeCodeProvider]


@hookimpl
def asz_register_commands(cli) -> None:
    """``asz provider enable|disable|status`` (:mod:`asz_adapters_claude.provider_cmd`)."""
    from .provider_cmd import register

    register(cli)
