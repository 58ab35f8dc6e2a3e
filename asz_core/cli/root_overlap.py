"""A storage root may not overlap a source root: ``asz collect``, ``asz server`` and ``asz sources --reland`` refuse it.

Spec: origin-digest §2.1 (the storage root is asz's own tree). Exit code 2 (usage).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import typer

__all__ = ["overlap", "refuse_overlap"]


def _shown(given, real: Path) -> str:
    """``given`` as typed, followed by ``(real)`` when resolving symlinks (and ``~``) changed it."""
    return f"{given}" + ("" if str(given) == str(real) else f" ({real})")


def _real(path) -> Path:
    """``path`` with ``~`` expanded and symlinks resolved (it need not exist)."""
    from ..config import user_path

    return Path(os.path.realpath(user_path(Path(path))))


def overlap(storage, source) -> str:
    """How ``storage`` and ``source`` (paths, neither needs to exist) overlap once symlinks are resolved: ``"is the same
    folder as"``, ``"is inside"`` (the root inside the source), ``"holds"`` (the source inside the root), or '' (none)."""
    root, src = _real(storage), _real(source)
    if src == root:
        return "is the same folder as"
    if src in root.parents:
        return "is inside"
    return "holds" if root in src.parents else ""


def refuse_overlap(cmd: str, storage: Path, jobs: Iterable) -> None:
    """Refuse a storage root that is a job's source root, lies inside it, or holds it: raises typer.Exit(2) after one
    line on stderr naming both paths (as given, and resolved when that differs).

    ``jobs`` are :class:`asz_core.cli.collect_cmd.Job` (``adapter``, ``source_root``). asz writes its files
    (``.lock``, ``index/``, ``_index/``, ``_conversations/``, session folders) into the storage root, so a root
    inside a source tree (``--root ~/.claude/projects``) would write into the runtime's own folder, and a source
    inside the root would be read among asz's own files. An adapter whose source is inside the storage root by
    design (:attr:`asz_core.Adapter.source_in_storage`, langsmith-ingest) is not refused. Called before anything
    is written.
    """
    for j in jobs:
        how = "" if j.adapter.source_in_storage else overlap(storage, j.source_root)
        if how:
            typer.echo(f"asz {cmd}: the storage root {_shown(storage, _real(storage))} {how} the source root "
                       f"{_shown(j.source_root, _real(j.source_root))} of {j.adapter.name}; asz writes its own files into the storage "
                       "root: give --root a folder outside the source tree", err=True)
            raise typer.Exit(2)
