"""No symbolic link inside a storage root is followed: the one rule of every reader of a root's landed files.

docs/view.md, "No links"; docs/verify.md, "symbolic link" (trial 42a F4: a landed file replaced by a link to an
identical copy outside the root passed ``asz verify``, read ``verified`` in ``asz ls`` and was exported, while the
page answered 403). A landed file (``.sd``, or a ``.sk`` skeleton) is opened with ``O_NOFOLLOW``: a link in its place
is refused at the open itself (no extra system call, no window between a check and the open) with
:class:`LinkRefused`, an :class:`OSError` whose ``strerror`` names the link's target and the rule, so every reader
that says an unreadable file (``cannot be read: <strerror>``) says this one in the same words.
:func:`first_link` finds a link among the folders above a file (the page refuses those too).
"""

from __future__ import annotations

import errno
import gzip
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NOFOLLOW", "NOFOLLOW_DIR", "LINK_RULE", "LinkRefused", "open_nofollow", "read_nofollow", "gunzip_nofollow",
           "first_link", "refuse_link", "refuse_links_in", "link_target", "link_said", "links_among"]

#: ``os.O_NOFOLLOW`` where the system has it (0 elsewhere): opening a path whose last part is a symbolic link fails
#: with ``ELOOP`` instead of reading (or writing) what it names.
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

#: Flags that open a directory only where the path's last part is one, never a symbolic link to one (``ELOOP``, or
#: ``ENOTDIR`` where the system says so): how a listing of a root enters a folder (docs/storage-root.md, "No links").
NOFOLLOW_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

#: The rule a refusal states (docs/view.md, "No links").
LINK_RULE = "asz follows no symbolic link inside a storage root"


def link_target(path: str | os.PathLike) -> str:
    """What the symbolic link at ``path`` names, as written in it; ``?`` when that does not read."""
    try:
        return os.readlink(path)
    except OSError:
        return "?"


class LinkRefused(OSError):
    """A landed file (or, naming it in ``what``, a cursor or a folder of a root) that is a symbolic link: ``errno``
    ``ELOOP``, ``filename`` the link's path, ``target`` what it names (``?`` when that does not read), ``strerror`` and
    ``str()`` ``a symbolic link to <target>, not the file asz landed: asz follows no symbolic link inside a storage
    root``."""

    def __init__(self, path: str | os.PathLike, what: str = "the file asz landed"):
        self.target = link_target(path)
        super().__init__(errno.ELOOP, f"a symbolic link to {self.target}, not {what}: {LINK_RULE}", os.fspath(path))

    def __str__(self) -> str:
        return self.strerror


def open_nofollow(path: str | os.PathLike, what: str = "the file asz landed") -> BinaryIO:
    """``open(path, 'rb')`` that never follows a symbolic link as the last part of ``path``. Raises
    :class:`LinkRefused` (naming ``what`` the link stands in place of) for a link, :class:`OSError` as ``open`` does
    for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):
            raise LinkRefused(path, what) from None
        raise
    return os.fdopen(fd, "rb")


def read_nofollow(path: str | os.PathLike) -> bytes:
    """The bytes of the file at ``path``, read through :func:`open_nofollow` (raises what it raises)."""
    with open_nofollow(path) as f:
        return f.read()


class _Gunzipped(gzip.GzipFile):
    """A gzip stream over a file :func:`open_nofollow` opened, which closing the stream closes too (a ``GzipFile`` over
    a file object leaves it open)."""

    def __init__(self, raw: BinaryIO):
        self._raw = raw
        super().__init__(fileobj=raw, mode="rb")

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def gunzip_nofollow(path: str | os.PathLike) -> gzip.GzipFile:
    """``gzip.open(path, 'rb')`` (a ``.sk`` skeleton, seed 000, Skeletons) through :func:`open_nofollow`: raises what it
    raises; reading a damaged one raises OSError, EOFError or zlib.error."""
    raw = open_nofollow(path)
    try:
        return _Gunzipped(raw)
    except BaseException:
        raw.close()
        raise


def first_link(root: Path, path: Path) -> Path | None:
    """The first part of ``path`` below ``root`` that is a symbolic link (or is gone), else None.

    ``root`` itself may be a link (the user named it); nothing under it may be. ``path`` must lie under ``root`` as
    written (no ``..``); one that does not is answered with ``path`` itself. One ``lstat`` per part.
    """
    try:
        rel = path.relative_to(root)
    except ValueError:
        return path
    cur = root
    for part in rel.parts:
        if part in ("..", "."):
            return path
        cur = cur / part
        try:
            if stat.S_ISLNK(os.lstat(cur).st_mode):
                return cur
        except OSError:
            return cur
    return None


def link_said(path: str | os.PathLike, what: str) -> str:
    """``asz verify``'s ``symbolic link`` detail for a folder or cursor of a root (``what``: ``the session folder``,
    ``the stream folder``, ``the cursor``…) found to be a link: its target, the rule, and the way back (docs/verify.md,
    ``symbolic link``). A landed file's is :func:`asz_core.sessiondata.reader.link_said`."""
    from shlex import quote

    target, link = link_target(path), quote(os.fspath(path))
    return (f"{what} is a link to {target}, which was not read: {LINK_RULE}; if it is the one asz wrote here, put it in "
            f"the link's place (rm {link}; cp -a {quote(target)} {link}) and verify again")


def links_among(folder: str | os.PathLike, names: tuple[str, ...] | None = None) -> list[str]:
    """The paths (``folder/name``, sorted) of the entries of ``folder`` that are symbolic links: those named in
    ``names``, else every entry but those starting with ``.``. One ``scandir`` (``names``: one ``lstat`` each); a
    folder that is missing, not a folder or itself a link holds none."""
    base = os.fspath(folder)
    if names is not None:
        found = []
        for name in names:
            p = os.path.join(base, name)
            try:
                if stat.S_ISLNK(os.lstat(p).st_mode):
                    found.append(p)
            except OSError:
                pass
        return found
    try:
        fd = os.open(base, NOFOLLOW_DIR)
    except OSError:
        return []
    try:
        with os.scandir(fd) as entries:
            return sorted(os.path.join(base, e.name) for e in entries if e.name[:1] != "." and e.is_symlink())
    finally:
        os.close(fd)


def refuse_link(root: str | os.PathLike, path: str | os.PathLike, what: str) -> None:
    """Raise :class:`LinkRefused` (naming ``what``: ``the session folder asz landed``…) for the first part of ``path``
    below ``root`` that is a symbolic link (:func:`first_link`; a part that is missing is no link: a writer may make
    it). One ``lstat`` per part; nothing when ``path`` is not under ``root``."""
    root, path = Path(root), Path(path)
    if root not in path.parents:
        return
    bad = first_link(root, path)
    if bad is not None and os.path.islink(bad):
        raise LinkRefused(bad, what)


def refuse_links_in(root: str | os.PathLike, parts: tuple[str, ...], what: str) -> None:
    """:func:`refuse_link` for the path ``root/parts[0]/parts[1]/…`` given as its parts below ``root``: raise
    :class:`LinkRefused` (naming ``what``) for the first of them that is a symbolic link, one ``lstat`` a part, the
    paths joined as strings and a :class:`~pathlib.Path` made only to name a link (``Chain.refuse_links``, three parts
    a chain: the Path arithmetic was a third of ``asz verify``'s listing of a chain, issue 22, session 48). A part that
    is missing is no link (a writer may make it)."""
    cur = os.fspath(root)
    for i, part in enumerate(parts):
        cur = os.path.join(cur, part)
        try:
            link = stat.S_ISLNK(os.lstat(cur).st_mode)
        except OSError:
            return
        if link:
            raise LinkRefused(Path(root).joinpath(*parts[: i + 1]), what)
