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

__all__ = ["refuse_unusable", "refuse_unwritable", "unwritable_why"]


def refuse_unusable(cmd: str, root: str | os.PathLike, why: object) -> NoReturn:
    """Say ``asz CMD: cannot use the storage root ROOT: WHY`` on stderr (``why``: an OSError's strerror or the error)
    and exit 1."""
    typer.echo(f"asz {cmd}: cannot use the storage root {root}: {why}", err=True)
    raise typer.Exit(1)


def refuse_unwritable(cmd: str, root: str | os.PathLike) -> None:
    """:func:`refuse_unusable` with :func:`unwritable_why` when ``root`` cannot be written; nothing when it can."""
    why = unwritable_why(root)
    if why:
        refuse_unusable(cmd, root, why)
