"""A storage root may not overlap a source root: ``asz collect``, ``asz server`` and ``asz sources --reland`` refuse it.

Spec: origin-digest §2.1 (the storage root is asz's own tree). Exit code 2 (usage).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import typer

__all__ = ["overlap", "read_folders", "refuse_overlap", "root_overlap"]


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


def read_folders(adapter, source_root: Path) -> list[Path]:
    """``adapter.read_folders(source_root)`` (:meth:`asz_core.Adapter.read_folders`), or ``[source_root]`` when the
    adapter's answer is not a list of paths or it raises (the whole tree, the safe side). Never raises."""
    try:
        got = [Path(p) for p in adapter.read_folders(Path(source_root))]
    except Exception:  # an adapter's answer never loosens the check
        got = None
    return got if got is not None else [Path(source_root)]


def root_overlap(storage, adapter, source_root) -> tuple[str, Path] | None:
    """How the storage root overlaps what ``adapter`` reads under ``source_root``: ``(how, folder)`` with ``how`` as
    :func:`overlap` says it and ``folder`` the source root or the read folder it concerns; None when it does not.

    Refused: the storage root is the source root or holds it, or it is, lies inside or holds one of the adapter's
    :func:`read_folders`. A storage root inside the source root but outside every read folder is accepted (Kiro's
    source root is the home directory; it reads ``~/.kiro`` and the IDE's folders there, not ``~/asz-data``). An
    adapter whose source is inside the storage root by design (:attr:`asz_core.Adapter.source_in_storage`) never
    overlaps. Never raises."""
    if adapter.source_in_storage:
        return None
    how = overlap(storage, source_root)
    if how in ("is the same folder as", "holds"):
        return how, Path(source_root)
    for folder in read_folders(adapter, source_root):
        how = overlap(storage, folder)
        if how:
            return how, folder
    return None


def refuse_overlap(cmd: str, storage: Path, jobs: Iterable) -> None:
    """Refuse a storage root that overlaps what a job's adapter reads (:func:`root_overlap`): raises typer.Exit(2)
    after one line on stderr per overlapping adapter naming the storage root, the folder (as given, and resolved when
    that differs) and the adapter, then, when the command has other adapters, a line saying they are not collected
    either and how to collect one alone.

    ``jobs`` are :class:`asz_core.cli.collect_cmd.Job` (``adapter``, ``source_root``; each of its ``source_roots``
    is checked). asz writes its files
    (``.lock``, ``index/``, ``_index/``, ``_conversations/``, session folders) into the storage root, so a root
    inside a folder an adapter reads (``--root ~/.claude/projects``) would write into the runtime's own folder, and a
    source inside the root would be read among asz's own files. The storage root is one for every adapter of the
    command, so one adapter's overlap refuses the whole command, before anything is written (docs/storage-root.md,
    A storage root apart from the sources): the other adapters are not collected either, and the last line says so.
    Spec: origin-digest §2.1; exit 2 (usage), as every refusal of this check always was.
    """
    jobs = list(jobs)
    refused = []
    for j, source_root in ((j, r) for j in jobs for r in getattr(j, "source_roots", [j.source_root])):
        hit = root_overlap(storage, j.adapter, source_root)
        if hit:
            how, folder = hit
            shown = _shown(folder, _real(folder))
            what = (f"the source root {shown} of {j.adapter.name}" if Path(folder) == Path(source_root)
                    else f"{shown}, a folder {j.adapter.name} reads (its source root is {source_root})")
            refused.append(j.adapter.name)
            typer.echo(f"asz {cmd}: the storage root {_shown(storage, _real(storage))} {how} {what}; asz writes its own "
                       f"files into the storage root: give --root a folder that neither is inside {_real(folder)} nor "
                       "holds it", err=True)
    if refused:
        others = [j.adapter.name for j in jobs if j.adapter.name not in refused]
        if others:
            typer.echo(f"asz {cmd}: nothing is written for {', '.join(others)} either: one storage root serves every "
                       f"adapter of the command; move the root, or name one adapter with --adapter {others[0]}", err=True)
        raise typer.Exit(2)
