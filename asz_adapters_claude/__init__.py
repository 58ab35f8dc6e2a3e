"""Built-in adapter ``claude-code-local``: Claude Code's local files as Session Data (dialect ``claude-code/1``).

See :mod:`asz_adapters_claude.plugin` for the adapter, :mod:`.discover` for
where sources are found, :mod:`.convert` for the record mapping and
:mod:`.glossary` / :mod:`.flags` for the declarations (origin-digest §5.1, §6).
"""

from .plugin import ClaudeCodeLocal

__all__ = ["ClaudeCodeLocal"]
