"""Listing a source folder for discovery, the same way in every adapter (issue 23, recoverable states).

One broken entry in a source folder must never cost a pass: a symbolic link
that leads nowhere (its target is missing, or links loop), a folder that
cannot be listed and an entry that cannot be inspected are each reported once
as ``Discovery.skipped`` with the reason, and the pass goes on. The one
exception is a session's own file (the adapter says which names those are):
a link of that name that leads nowhere is a ``Discovery.errors`` entry, since
the session cannot be read at all. A symbolic link leading out of the
directories a link may lead into is skipped too, naming its target, so a link
never lands a file from elsewhere on the machine.

Adapters call :func:`source_entries` instead of ``os.scandir`` and use the
``is_dir`` / ``is_file`` it found (they follow links; asking the ``DirEntry``
again can raise for a link that loops).
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

import attrs

from .adapter import Discovery, link_outside, os_error_text

__all__ = ["SourceEntry", "source_entries"]


@attrs.frozen
class SourceEntry:
    """One entry of a source folder that can be read: ``name``, ``path`` (the folder's path joined with the name,
    as listed), and whether it is a directory or a regular file (both following symbolic links)."""

    name: str
    path: str
    is_dir: bool
    is_file: bool


def source_entries(directory: str | os.PathLike, out: Discovery, real_roots: str | Sequence[str], *, top: bool = False,
                   own_file: Callable[[str], bool] | None = None, shown: Callable[[str], str] | None = None) -> list[SourceEntry]:
    """The readable entries of ``directory``, sorted by name; what cannot be read goes to ``out`` once, with why.

    * ``directory`` cannot be listed: an ``errors`` entry when ``top`` (it is
      the source root), else ``skipped`` (``cannot be listed: <why>``);
    * a symbolic link that leads nowhere (inside the source root or out of
      it): ``skipped`` (``a symbolic link to <link text>, which leads
      nowhere``), or an ``errors`` entry (``the session file is a symbolic
      link to …``) when ``own_file(name)`` says the name is a session's own file;
    * a symbolic link leading to something out of every one of ``real_roots``
      (real paths, as :func:`~asz_core.plugins.adapter.link_outside` takes
      them): ``skipped`` (``a symbolic link to <target>, outside the source root``);
    * any other entry that cannot be inspected: ``skipped`` (``cannot be
      inspected: <why>``).

    ``shown(path)`` gives the path a ``skipped`` entry names (default: the
    path as listed; an adapter may show it relative to its source root);
    ``errors`` entries name the path as listed. Never raises.
    """
    show = shown or (lambda p: p)
    base = os.fspath(directory)
    try:
        with os.scandir(base) as it:
            listed = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        if top:
            out.errors.append((base, os_error_text(exc, "directory")))
        else:
            out.skipped.append((show(base), f"cannot be listed: {os_error_text(exc, 'directory')}"))
        return []
    kept: list[SourceEntry] = []
    for e in listed:
        try:
            if e.is_symlink() and not os.path.exists(e.path):  # wherever it points: a session's own file is an error
                _dangling(e, out, own_file, show)
                continue
            target = link_outside(e, real_roots)
            if target:
                out.skipped.append((show(e.path), f"a symbolic link to {target}, outside the source root"))
                continue
            kept.append(SourceEntry(e.name, e.path, e.is_dir(), e.is_file()))
        except OSError as exc:
            out.skipped.append((show(e.path), f"cannot be inspected: {os_error_text(exc, 'file')}"))
    return kept


def _dangling(e: os.DirEntry, out: Discovery, own_file: Callable[[str], bool] | None, show: Callable[[str], str]) -> None:
    """A symbolic link whose target is missing (or a loop): skipped, or an error when it is a session's own file."""
    try:
        target = os.readlink(e.path)
    except OSError:
        target = "?"
    if own_file is not None and own_file(e.name):
        out.errors.append((e.path, f"the session file is a symbolic link to {target}, which leads nowhere"))
    else:
        out.skipped.append((show(e.path), f"a symbolic link to {target}, which leads nowhere"))
