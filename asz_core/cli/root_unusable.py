"""A storage root a writer cannot use: ``asz collect``, ``asz server`` and ``asz parse`` say it in one line and exit 1.

``asz collect`` and ``asz server`` learn it when their collector lock cannot be made (``<root>/_collect/.lock``);
``asz parse`` asks before it parses, so a read-only root is one line, not an ``error:`` line per session, a table of
zeros and ``N problem(s)`` (trial 40d F2: 391 of each). Spec: origin-digest §2.1 (the storage root is asz's own tree).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import NoReturn

import typer

from ..storage.frozen import mounted_read_only
from ..storage.layout import CONVERSATIONS

__all__ = ["refuse_unusable", "refuse_unwritable", "unwritable_why"]


def unwritable_why(root: str | os.PathLike) -> str:
    """Why this process cannot write in ``root`` or its ``_conversations/`` folder (when there is one), in the system's
    words: ``Read-only file system`` (a read-only mount, ``ST_RDONLY``) or ``Permission denied`` (``access(W_OK)``
    refused: no write bit this process may use; as root, a ``chmod`` alone refuses nothing); ``''`` when it can, and
    for a folder that cannot be stat'ed (the command says that itself)."""
    for folder in (Path(root), Path(root, CONVERSATIONS)):
        try:
            if mounted_read_only(folder):
                return os.strerror(errno.EROFS)
        except OSError:
            continue
        if not os.access(folder, os.W_OK):
            return os.strerror(errno.EACCES)
    return ""


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
