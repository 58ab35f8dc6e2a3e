"""Several source folders of one adapter collected into one storage root (docs/storage-root.md, Several source folders).

Claude Code keeps sessions in ``~/.claude/projects``, ``${XDG_CONFIG_HOME:-~/.config}/claude/projects`` and each
``CLAUDE_CONFIG_DIR`` entry's ``projects``. One adapter may read several of them into one storage root. The first
folder is the root's own: its sources' ``src`` (header ``src``, cursor ``source``) stay relative to it, as the original
writes them (origin-digest §2.2, §3.1), so a root collected from one folder is byte for byte what it was. A source of a
further folder is named by its absolute path (``/home/me/.config/claude/projects/-p/<id>.jsonl``): a relative path
never starts with ``/``, so it can never be a source of the first folder (the same project folder name in two folders
gives two ``src``), and the source root joined with it (``source_root / src``, what every reader of a cursor does) is
the file itself, whichever folder is first.

The storage layout does not follow the source tree (origin-digest §2.1): a session's files and cursors live under its
id. The same session file in two folders (a copied configuration folder) therefore names one stream twice; one lands
(:func:`asz_core.collect.second_source.refuse_seconds`: the one the stream's cursor follows, else the first folder's).
A copy in another folder whose bytes are all in the one that lands (the same bytes, or, for a stream of lines, the
first bytes of it) is no conflict: nothing of it is left out, so it is listed as skipped (:func:`copy_of`), once
per pass. A copy in another folder that is all the landing source's bytes and more lines after them is its growth:
it lands instead, the cursor following it (:func:`asz_core.collect.second_source.follow_fuller`; trial 37a F4). A
copy whose bytes differ from the landing source's stays a conflict (``conflicts=``): asz does not guess.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import attrs

from ..plugins.adapter import Adapter, Discovery, Source, discovery_failure

__all__ = ["FolderDiscovery", "starts_with", "current_roots", "discover_folders", "discover_each", "tell_folders", "absolute_src", "copy_of", "NO_ROOT", "NO_FOLDER", "NO_DEFAULT", "same_file", "RENAMED"]

#: Bytes compared at a time by :func:`copy_of`.
_CHUNK = 1 << 20
#: (path, size, mtime_ns, ino) of a copy and of the source that lands -> whether the copy is in it: a watching
#: collector compares a pair again only when one of them changed.
_SEEN: dict[tuple, bool] = {}
#: Pairs :data:`_SEEN` keeps at most.
_KEEP = 65536


@attrs.define
class FolderDiscovery:
    """What :func:`discover_folders` found: one :class:`Discovery` of every folder, the folder (index into the roots)
    each source came from (by ``id``), the folders that do not exist and the folders whose discovery failed
    (``(folder, message)``)."""

    disc: Discovery
    folder_of: dict[int, int] = attrs.Factory(dict)
    missing: list[Path] = attrs.Factory(list)
    failed: list[tuple[Path, str]] = attrs.Factory(list)


def absolute_src(folder: str | os.PathLike, src: str) -> str:
    """The ``src`` of a source of a further folder: ``folder`` made absolute (not resolved: a symbolic link stays the
    path the user named), forward slashes, then ``/`` and the ``src`` discovery gave relative to it."""
    return Path(os.path.abspath(folder)).as_posix().rstrip("/") + "/" + src


def current_roots(col) -> list[Path]:
    """Collector ``col``'s source folders for this pass: its ``source_roots``, to which, when it reads the adapter's
    default folders (``col.default_folders``), each of ``adapter.default_source_roots()`` not read yet is added (a
    folder that appeared since the command started: Claude Code made ``~/.config/claude/projects``), after the others,
    and kept; the first stays the root's own. Symbolic links are resolved to compare. Never raises."""
    if not col.default_folders:
        return col.source_roots
    try:
        now = [Path(p) for p in col.adapter.default_source_roots()]
    except Exception:  # an adapter's answer never stops a pass
        return col.source_roots
    seen = {os.path.realpath(r) for r in col.source_roots}
    for p in now:
        if os.path.realpath(p) not in seen:
            seen.add(os.path.realpath(p))
            col.source_roots.append(p)
    return col.source_roots


def discover_folders(adapter: Adapter, roots: Sequence[str | os.PathLike], *, include=(), exclude=()) -> FolderDiscovery:
    """``adapter.discover`` of each folder of ``roots`` (the first the root's own), as one discovery: the sources of
    a further folder get :func:`absolute_src`; the lists of every folder are joined in folder order. A folder that does
    not exist is in ``missing``; one whose discovery raised in ``failed``; neither stops the others. Never raises."""
    out = FolderDiscovery(Discovery())
    for i, folder in enumerate(roots):
        folder = Path(folder)
        if not folder.exists():
            out.missing.append(folder)
            continue
        try:
            disc = adapter.discover(folder, include=list(include), exclude=list(exclude))
        except Exception as exc:  # an adapter bug or an unreadable folder: the caller tells it
            out.failed.append((folder, discovery_failure(exc)))
            continue
        for s in disc.sources:
            if i:
                s.src = absolute_src(folder, s.src)
            out.folder_of[id(s)] = i
        out.disc.sources += disc.sources
        out.disc.skipped += disc.skipped
        out.disc.errors += disc.errors
        out.disc.pending += disc.pending
        out.disc.conflicts += disc.conflicts
        out.disc.notes += [n for n in disc.notes if n not in out.disc.notes]  # one settings file seen from two folders
    return out


def discover_each(adapter: Adapter, roots: Sequence[str | os.PathLike]) -> tuple[Discovery, dict[int, int] | None]:
    """The discovery ``asz sources --reland`` and ``--reset-conflict`` read, and each source's folder: of one folder,
    ``adapter.discover`` as before (what it raises goes on); of several, :func:`discover_folders` (a folder it cannot
    read is left out)."""
    if len(roots) == 1:
        return adapter.discover(Path(roots[0])), None
    found = discover_folders(adapter, roots)
    return found.disc, found.folder_of


#: The error of a source root that does not exist (the adapter's only folder, or every one of its folders is missing).
NO_ROOT = "no such source root for adapter {adapter} (give --source DIR or set source_root)"
#: The note of one of several source folders that does not exist: the others are read.
NO_FOLDER = ("no such source folder for adapter {adapter}; its other source folders are collected (a folder that "
             "appears later is read from its first byte)")


#: The note of an adapter none of whose default folders exists while another adapter of the command is collected
#: (``col.optional``; trial 29c F5: a Kiro-only machine's missing ``~/.claude/projects`` was an error on every pass).
NO_DEFAULT = ("no such source root for adapter {adapter}: none of its default folders exists, so it collects nothing "
              "here; the command's other adapters are collected (a folder that appears later is read from its first "
              "byte; --source DIR or source_root names another, and one named that is missing is an error)")


def tell_folders(col, found: FolderDiscovery, c) -> bool:
    """Tell what :func:`discover_folders` could not read, for collector ``col`` (its ``report``, counted in ``c``, a
    :class:`~asz_core.collect.report.Counters`); False when no folder was read (the pass lands nothing for ``col``).

    A folder whose discovery failed is an ``error:``. A folder that does not exist is an ``error:`` (:data:`NO_ROOT`)
    when no folder exists, as for an adapter's only source root, but for an adapter reading its default folders beside
    another adapter (``col.optional``): then a ``note:`` (:data:`NO_DEFAULT`), told once per process and not counted;
    one of several that does not exist is a ``note:`` (:data:`NO_FOLDER`), told once per process and not counted: the
    others are collected.
    """
    read = len(col.source_roots) - len(found.missing) - len(found.failed)
    for folder, message in found.failed:
        col.report.error(folder, message)
        c.errors += 1
    for folder in found.missing:
        if not read and not found.failed and getattr(col, "optional", False):
            if (str(folder), NO_DEFAULT) not in col.told_errors:
                col.told_errors.add((str(folder), NO_DEFAULT))
                col.report.note(folder, NO_DEFAULT.format(adapter=col.adapter.name))
        elif not read and not found.failed:
            col.report.error(folder, NO_ROOT.format(adapter=col.adapter.name))
            c.errors += 1
        elif (str(folder), NO_FOLDER) not in col.told_errors:
            col.told_errors.add((str(folder), NO_FOLDER))
            col.report.note(folder, NO_FOLDER.format(adapter=col.adapter.name))
    return read > 0


#: Why a cursor follows its source to another name: the storage root's first folder changed (docs/storage-root.md).
RENAMED = ("the same file: the source folders changed, so a folder's sources are named relative to it or by "
           "absolute path as it is now the first folder or a further one")


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether the two paths name one existing file (:func:`os.path.samefile`: the same device and inode); False when
    either cannot be stat'ed."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def copy_of(copy: Source, kept: Source, cur=None) -> bool:
    """True when every byte of ``copy`` is in ``kept`` (the source that lands into the same stream): the same bytes,
    or, for a stream of lines (``append``), the first ``len(copy)`` bytes of ``kept``. Documents are never compared
    (False). ``cur``: the stream's cursor (None when it has none). A stream of lines exactly as long as what landed
    from ``kept`` (the cursor's ``offset``, the cursor ``active`` and following ``kept``) whose up to 1 MiB before
    its end hashes to the cursor's ``tail_sha256`` holds what landed (the rule of the whole collector: step 4,
    docs/storage-root.md) and nothing more: only that is read. Otherwise the two files are compared, at most the
    copy's size, :data:`_CHUNK` at a time, stopping at the first difference. The answer is kept per process until
    either file changes. False when either cannot be read."""
    if copy.mode == "document" or kept.mode == "document":
        return False
    try:
        a, b = os.stat(copy.path), os.stat(kept.path)
    except OSError:
        return False
    key = (os.fspath(copy.path), a.st_size, a.st_mtime_ns, a.st_ino, os.fspath(kept.path), b.st_size, b.st_mtime_ns, b.st_ino)
    if key not in _SEEN:
        if len(_SEEN) >= _KEEP:
            _SEEN.clear()  # a long watch: growing sessions leave stale pairs behind
        same = a.st_size == b.st_size or (copy.mode == "append" and a.st_size < b.st_size)
        _SEEN[key] = same and (_landed_whole(copy, kept, a.st_size, cur) or starts_with(kept.path, copy.path, a.st_size))
    return _SEEN[key]


def _landed_whole(copy: Source, kept: Source, size: int, cur) -> bool:
    """Whether ``copy``, ``size`` bytes, is what landed from ``kept`` by its cursor ``cur`` (:func:`copy_of`)."""
    from ..storage.cursor import AppendCursor
    from .reset import holds_landed  # reset imports this module

    if not (isinstance(cur, AppendCursor) and copy.mode == "append" and cur.state == "active" and cur.source == kept.src
            and cur.tail_sha256 and size == cur.offset):
        return False
    return holds_landed(copy.path, cur)[1] == ""


def starts_with(longer: Path, shorter: Path, n: int) -> bool:
    """Whether the first ``n`` bytes of ``longer`` are those of ``shorter`` (which holds ``n``)."""
    try:
        with open(longer, "rb") as fa, open(shorter, "rb") as fb:
            left = n
            while left > 0:
                x, y = fa.read(min(_CHUNK, left)), fb.read(min(_CHUNK, left))
                if x != y or not x:
                    return False
                left -= len(x)
        return True
    except OSError:
        return False
