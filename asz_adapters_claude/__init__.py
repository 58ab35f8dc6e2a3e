"""Built-in adapters for Claude Code: ``claude-code-local`` (dialect ``claude-code/1``), its hook observer and provider bodies.

See :mod:`asz_adapters_claude.plugin` for the transcript adapter, :mod:`.discover`
for where sources are found, :mod:`.convert` for the record mapping and
:mod:`.glossary` / :mod:`.flags` for the declarations (origin-digest §5.1, §6).
:mod:`.hook` is the stdlib-only observer ``asz hook`` runs; importing this
package stays cheap so that path stays fast.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ClaudeCodeLocal"]


def __getattr__(name: str) -> Any:
    if name == "ClaudeCodeLocal":
        from .plugin import ClaudeCodeLocal

        return ClaudeCodeLocal
    raise AttributeError(f"module 'asz_adapters_claude' has no attribute {name!r}")
