"""A storage root a writer cannot use: ``asz collect``, ``asz server`` and ``asz parse`` say it in one line and exit 1.

``asz collect`` and ``asz server`` learn it when their collector lock cannot be made (``<root>/_collect/.lock``);
``asz parse`` asks before it parses, so a read-only root is one line, not an ``error:`` line per session, a table of
zeros and ``N problem(s)`` (trial 40d F2: 391 of each). Spec: origin-digest §2.1 (the storage root is asz's own tree).
"""

from __future__ import annotations

import os
from typing import NoReturn

import typer

from ..storage.frozen import unwritable_why

__all__ = ["refuse_unusable", "refuse_unwritable", "said_error", "unwritable_why"]


def refuse_unusable(cmd: str, root: str | os.PathLike, why: object) -> NoReturn:
    """Say ``asz CMD: cannot use the storage root ROOT: WHY`` on stderr (``why``: an OSError's strerror or the error)
    and exit 1."""
    typer.echo(f"asz {cmd}: cannot use the storage root {root}: {why}", err=True)
    raise typer.Exit(1)


def said_error(exc: OSError) -> str:
    """``exc`` as :func:`refuse_unusable` says it: the system's words, after the path it was refused (``cannot make
    r5/_collect/.lock: Operation not permitted``; trial 43d F2 was told the words alone) when the error names one."""
    words = exc.strerror or str(exc)
    return f"cannot make {exc.filename}: {words}" if exc.filename else words


def refuse_unwritable(cmd: str, root: str | os.PathLike) -> None:
    """:func:`refuse_unusable` with :func:`unwritable_why` when ``root`` cannot be written; nothing when it can."""
    why = unwritable_why(root)
    if why:
        refuse_unusable(cmd, root, why)
