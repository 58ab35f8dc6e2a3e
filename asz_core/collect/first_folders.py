"""The folders a root's relative source names were landed from, one list per adapter (trial 30c F5; docs/storage-root.md,
Several source folders).

A source of a pass's first folder is named relative to it (header ``src``, cursor ``source``), as the original does;
which folder that was is kept nowhere else. A root collected from ``src`` and then, in a pass of its own, from
``src2`` has relative cursors of both: joined to the one folder a pass reads first, the other's read as gone (705
``gone:`` lines naming paths that never existed). So each pass adds its first folder, made absolute (not resolved, as
:func:`~asz_core.collect.folders.absolute_src` names a further folder), to ``_collect/first_folders/<adapter>.list``
once, one line each, in the order they were first read; the session files and cursors stay byte for byte what one
folder alone lands. A relative cursor whose file is not under this pass's first folder is gone only when no other
listed folder holds it either (:func:`elsewhere`).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.cursor import AppendCursor

#: Where the lists are, under the storage root.
FIRST_FOLDERS = Path("_collect") / "first_folders"


def list_path(root: str | os.PathLike, adapter: str) -> Path:
    """``<root>/_collect/first_folders/<adapter>.list``."""
    return Path(root) / FIRST_FOLDERS / f"{adapter}.list"


def _absolute(folder: str | os.PathLike) -> str:
    return Path(os.path.abspath(folder)).as_posix().rstrip("/") or "/"


def listed(root: str | os.PathLike, adapter: str) -> list[str]:
    """The folders listed for ``adapter`` (absolute, posix), first read first; [] when none or unreadable."""
    try:
        text = list_path(root, adapter).read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return []
    return [line for line in text.split("\n") if line]


def remember(root: str | os.PathLike, adapter: str, folder: str | os.PathLike) -> None:
    """Add ``folder`` (this pass's first folder of ``adapter``) to its list unless listed; nothing when ``folder`` is
    not a directory. A write that fails is left (the list is what lets a later pass tell gone from elsewhere; the
    pass itself goes on); never raises."""
    try:
        if not Path(folder).is_dir():
            return
        name = _absolute(folder)
        if name in listed(root, adapter):
            return
        p = list_path(root, adapter)
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(name + "\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError:
        return


def elsewhere(root: str | os.PathLike, adapter: str, first: str | os.PathLike, rel: str) -> str | None:
    """The listed folder other than ``first`` (this pass's first folder) that holds relative source path ``rel`` (a
    cursor's ``source``, a document's ``#`` suffix left out), None when ``rel`` is absolute or no other listed folder
    holds it: then it is gone. Never raises (a folder that cannot be read holds nothing)."""
    if not rel or rel.startswith("/"):
        return None
    own = _absolute(first)
    for folder in listed(root, adapter):
        if folder == own:
            continue
        try:
            if os.path.lexists(os.path.join(folder, rel)):
                return folder
        except (OSError, ValueError):
            continue
    return None


#: The note of :func:`say_elsewhere`.
ELSEWHERE_SAID = ("{n:,} source(s) of this root were landed from {folder}, not read by this pass (its first folder is "
                  "{first}): they are not gone, their cursors stay as they were; a pass that reads {folder} goes on "
                  "with them (docs/storage-root.md, Several source folders)")


def kind_mode(cur) -> str:
    """``document`` for a snapshot cursor of a document (its ``source`` may end in ``#…``), else ``append`` or
    ``snapshot``: how :meth:`~asz_core.collect.collector.Collector._cursor_source` reads its ``source``."""
    if isinstance(cur, AppendCursor):
        return "append"
    return "document" if getattr(cur, "mode", "") == "document" else "snapshot"


def say_elsewhere(col) -> None:
    """One note per listed first folder holding sources collector ``col``'s pass did not read (its ``elsewhere``:
    folder -> cursors), then forgotten: ``note: FOLDER: N source(s) of this root were landed from FOLDER, not read by
    this pass …``; never ``gone`` (trial 30c F5: 705 ``gone:`` lines for sources still in place)."""
    for folder, cursors in sorted(col.elsewhere.items()):
        col.report.note(folder, ELSEWHERE_SAID.format(n=len(cursors), folder=folder, first=col.source_root))
    col.elsewhere.clear()
