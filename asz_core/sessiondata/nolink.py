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

__all__ = ["NOFOLLOW", "LINK_RULE", "LinkRefused", "open_nofollow", "read_nofollow", "gunzip_nofollow", "first_link"]

#: ``os.O_NOFOLLOW`` where the system has it (0 elsewhere): opening a path whose last part is a symbolic link fails
#: with ``ELOOP`` instead of reading (or writing) what it names.
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

#: The rule a refusal states (docs/view.md, "No links").
LINK_RULE = "asz follows no symbolic link inside a storage root"


class LinkRefused(OSError):
    """A landed file that is a symbolic link: ``errno`` ``ELOOP``, ``filename`` the link's path, ``target`` what it
    names (``?`` when that does not read), ``strerror`` and ``str()`` ``a symbolic link to <target>, not the file asz
    landed: asz follows no symbolic link inside a storage root``."""

    def __init__(self, path: str | os.PathLike):
        try:
            self.target = os.readlink(path)
        except OSError:
            self.target = "?"
        super().__init__(errno.ELOOP, f"a symbolic link to {self.target}, not the file asz landed: {LINK_RULE}",
                         os.fspath(path))

    def __str__(self) -> str:
        return self.strerror


def open_nofollow(path: str | os.PathLike) -> BinaryIO:
    """``open(path, 'rb')`` that never follows a symbolic link as the last part of ``path``. Raises
    :class:`LinkRefused` for a link, :class:`OSError` as ``open`` does for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):
            raise LinkRefused(path) from None
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
