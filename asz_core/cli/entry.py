"""The ``asz`` console script: a tiny entry that keeps ``asz hook`` fast.

Claude Code runs ``asz hook`` after every MCP call, so that path imports only
the standard-library observer (:mod:`asz_adapters_claude.hook`); every other
command loads the Typer app in :mod:`asz_core.cli.main`.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run ``asz``: ``hook`` goes straight to the observer (always exit 0); anything else to the full CLI."""
    if sys.argv[1:2] == ["hook"]:
        from asz_adapters_claude.hook import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    from .main import main as full_main

    full_main()


if __name__ == "__main__":  # pragma: no cover
    main()
