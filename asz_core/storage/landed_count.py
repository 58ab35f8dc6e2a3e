"""A count this process moves each time it lands, removes or replaces landed files (a collect pass, ``asz prune``).

What a reader's memo of the whole root's landed files (:mod:`asz_core.view.named_titles`) compares with the count it
was made at, so a command that lands files and then reads in the same process (``asz collect`` keeping its list rows,
a test) never reads the root as it was before. Another process's landing is seen when the memo ages out.
"""

from __future__ import annotations

__all__ = ["landed_changed", "landed_count"]

_COUNT = [0]


def landed_changed() -> None:
    """Say that this process changed the root's landed files (each memo made before is read again)."""
    _COUNT[0] += 1


def landed_count() -> int:
    """How many times :func:`landed_changed` was called in this process."""
    return _COUNT[0]
