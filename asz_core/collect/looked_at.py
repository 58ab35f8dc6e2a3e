"""Which landed sources a pass looked at: one in no folder the pass was given is not gone (trial 30c F5;
docs/storage-root.md, Several source folders).

A pass is given its folders: the ``--source`` folders (or ``source_root``) as named, or, with neither, every folder the
runtime may keep sessions in (``Adapter.default_source_candidates``, existing or not) beside those it reads. A landed
source whose file is missing is ``gone`` (cursor ``source_gone``, counted in ``gone=``, a ``gone:`` line) only when
it lies in one of them (origin-digest §2.2, pruned sources). One in no folder this pass was given was not looked at:
its cursor stays as it was, it is not counted, and the pass says one note per adapter (:data:`NOT_LOOKED_SAID`).
Before, a root collected from ``A`` and then from ``B`` alone called every source of ``A`` gone (705 ``gone:``
lines for files still in place).

It is decided from this pass's folders and the cursor's ``source`` alone, never from a record of earlier passes: a
copied root carries such a record to where the first root's files still are (the original's ``pruned_sources_gone``
copies a built root, removes the sources under the copy and expects every cursor ``source_gone``; session 30's list
of first folders failed it). So:

* a source of a further folder is named by absolute path (:func:`asz_core.collect.folders.absolute_src`): it lies in
  a folder given when its name is under that folder, as named or both resolved;
* a source of the first folder is named relative to whichever folder was first when it landed, which the name does
  not say. It lies in a folder given when its project folder (``Adapter.project_folder``: Claude Code's,
  ``-home-me-proj`` of ``-home-me-proj/<id>.jsonl``) is in a folder given that exists, when its adapter keeps no
  project folders (every other adapter: a missing file is gone, as always) or the name has none, or when a folder
  given that it may be relative to is missing (one named that does not exist; of the default folders, one asz
  prefers to the first folder it reads, which was first while it existed): a folder removed with its sources leaves
  them gone.

What paths alone cannot tell: a project folder of one name in two folders (``A/-p`` and ``B/-p``), ``A`` collected,
then ``B`` alone: ``A``'s sources of ``-p`` are gone, as before (``B/-p`` was looked at); and a project folder
removed whole from the folder given reads as not looked at, not gone. Nothing is lost either way: what landed is
kept, and a pass that finds the file reads it on from its cursor.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

__all__ = ["Given", "NOT_LOOKED_SAID", "given_folders", "looked_at", "say_not_looked"]

#: The note of a pass that found landed sources in no folder it was given (``{n}`` of adapter ``{adapter}``), on the
#: storage root, once per collector while the count stays the same.
NOT_LOOKED_SAID = ("{n:,} landed source(s) of {adapter} are in no folder this pass was given ({folders}): not looked "
                   "at, so not counted gone; their cursors stay as they were, and a pass given their folder reads them "
                   "on (a project folder removed whole reads the same; docs/storage-root.md, Several source folders)")


@attrs.frozen
class Given:
    """The folders a pass was given (:func:`given_folders`): ``names`` absolute as named (posix, no trailing ``/``),
    ``resolved`` the same resolved, ``there`` those that are directories now, ``open`` True when a folder given that
    the root's relative names may be relative to does not exist."""

    names: tuple[str, ...] = ()
    resolved: tuple[str, ...] = ()
    there: tuple[str, ...] = ()
    open: bool = False


def _name(p: str | os.PathLike) -> str:
    return Path(os.path.abspath(p)).as_posix().rstrip("/") or "/"


def _is_dir(p: str) -> bool:
    try:
        return os.path.isdir(p)
    except (OSError, ValueError):
        return False


def given_folders(col) -> Given:
    """The folders collector ``col``'s pass was given: its ``source_roots`` (the first its own), and, when it reads
    the adapter's default folders (``col.default_folders``), every one of ``adapter.default_source_candidates()``.
    ``open``: one of its ``source_roots`` is missing, or a default candidate ahead of its first folder is, or no folder
    given holds a folder at all (every project folder removed: ``rm -rf`` of a folder's contents stays gone). Never
    raises (an adapter's failing answer leaves its folders read)."""
    folders = [Path(r) for r in col.source_roots]
    ahead: list[Path] = []
    if col.default_folders:
        try:
            candidates = [Path(p) for p in col.adapter.default_source_candidates()]
        except Exception:  # an adapter's answer never stops a pass
            candidates = []
        first = os.path.realpath(col.source_root)
        at = next((i for i, p in enumerate(candidates) if os.path.realpath(p) == first), 0)
        ahead = candidates[:at]
        folders += candidates
    names = tuple(dict.fromkeys(_name(p) for p in folders))
    there = tuple(n for n in names if _is_dir(n))
    missing = [r for r in col.source_roots if not _is_dir(_name(r))] + [p for p in ahead if not _is_dir(_name(p))]
    bare = not any(_holds_folder(f) for f in there)  # every project folder removed: nothing to tell by, gone as before
    return Given(names, tuple(dict.fromkeys(os.path.realpath(n) for n in names)), there, bool(missing) or bare)


def _holds_folder(folder: str) -> bool:
    """Whether ``folder`` holds a directory (a project folder); False when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            return any(e.is_dir(follow_symlinks=False) for e in it)
    except OSError:
        return False


def looked_at(given: Given, adapter, src: str, mode: str) -> bool:
    """Whether a landed source of ``adapter`` named ``src`` (a cursor's ``source``; ``mode`` ``document``: its ``#``
    suffix left out) lies in a folder of ``given`` (the rules of this module; a relative name's project folder is
    ``adapter.project_folder``). Never raises: what cannot be told is looked at."""
    name = src.partition("#")[0] if mode == "document" else src
    try:
        if name.startswith("/"):
            if any(name.startswith(f + "/") for f in given.names):
                return True
            real = os.path.realpath(name)
            return any(real.startswith(r.rstrip("/") + "/") for r in given.resolved)
        if given.open:
            return True
        top = adapter.project_folder(name)
        if not top or "/" in top or top in (".", ".."):
            return True
        return any(os.path.lexists(os.path.join(f, top)) for f in given.there)
    except Exception:  # an adapter's failing answer: as before, a missing file is gone
        return True


def say_not_looked(col, n: int) -> None:
    """The note of ``n`` landed sources of ``col``'s adapter in no folder its pass was given (:data:`NOT_LOOKED_SAID`),
    on the storage root, unless ``col`` told the same one before (a watching collector)."""
    text = NOT_LOOKED_SAID.format(n=n, adapter=col.adapter.name, folders=", ".join(str(r) for r in col.source_roots))
    key = (str(col.root), text)
    if n and key not in col.told_errors:
        col.told_errors.add(key)
        col.report.note(col.root, text)
