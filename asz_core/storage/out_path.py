"""Where a file a command writes by a name lands: the one rule every named output follows (``asz export --out``, a
folder export's files and manifests, ``asz usage --out``, ``asz push --receipts``, the settings ``asz hooks`` edits).

Such a file is written under a temporary name and renamed over its name, which replaces whatever is there. Trial 47b
F1: ``asz export ID --out /dev/null``, run as root, replaced the machine's /dev/null with a regular file and wrote
``/dev/null.manifest.json`` into /dev; a FIFO, and a symbolic link (to a file, or to /proc/self/fd/1), were replaced
the same way. So a name is written only when nothing is there or a regular file is (:class:`NotRegular` otherwise,
before anything is written, and again just before the rename: :func:`put_in_place`). A name the user gave that is a
symbolic link ending at a regular file is written through (:func:`written_at`: its target is replaced in the target's
folder, the link stays), as a shell's ``>`` and Claude Code's own settings writer keep such a link; a name asz chose
itself (a folder export's files, a manifest beside a copy) is never followed (:func:`refuse_odd`)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Optional

__all__ = ["NotRegular", "put_in_place", "refuse_odd", "written_at"]


class NotRegular(OSError):
    """Nothing is written at ``path``: it is neither absent nor a regular file. ``what`` says what it is (``a FIFO
    (named pipe), not a regular file``; ``(a symbolic link to T): a character device (1,3), not a regular file``);
    ``str()`` is ``PATH: WHAT`` (with a link: ``PATH (a symbolic link to T): WHAT``)."""

    def __init__(self, path: str | os.PathLike, what: str, via: str = ""):
        super().__init__(errno.EINVAL, f"{via.strip()}: {what}" if via else what, os.fspath(path))
        self.path, self.what, self.via = os.fspath(path), what, via

    def __str__(self) -> str:
        return f"{self.path}{self.via}: {self.what}"


def kind(mode: int) -> str:
    """What a file of ``mode`` (an ``st_mode``) that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return f"{name}, not a regular file"
    return "not a regular file"


def _kind_of(st: os.stat_result) -> str:
    """:func:`kind` of ``st``, a device's numbers said (``a character device (1,3)``: /dev/null's)."""
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return kind(st.st_mode).replace(" device,", f" device ({os.major(st.st_rdev)},{os.minor(st.st_rdev)}),", 1)
    return kind(st.st_mode)


def written_at(path: str | os.PathLike) -> Optional[Path]:
    """The file a write to the name ``path`` (one a user gave) replaces: ``path`` itself when it is a regular file, the
    file its chain of symbolic links ends at (resolved whole) when it is a link to a regular file, None when nothing is
    at ``path``. Raises :class:`NotRegular` for a link that ends at nothing (dangling, or a loop) and for anything that
    is not a regular file (a directory, a FIFO, a device such as /dev/null, a socket), itself or through a link;
    OSError when ``path`` cannot be looked at (no permission)."""
    path = Path(path)
    is_link = os.path.islink(path)
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError) as exc:
        if is_link:
            raise NotRegular(path, f"a symbolic link to {os.readlink(path)}, which does not exist") from None
        if isinstance(exc, NotADirectoryError):
            raise
        return None
    except OSError as exc:
        if not is_link or exc.errno != errno.ELOOP:
            raise
        raise NotRegular(path, "a symbolic link that does not end at a file (a loop)") from None
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(path, _kind_of(st), f" (a symbolic link to {os.readlink(path)})" if is_link else "")
    return Path(os.path.realpath(path)) if is_link else path


def refuse_odd(path: str | os.PathLike) -> None:
    """Raise :class:`NotRegular` when something other than a regular file is at ``path`` itself (a symbolic link is
    not followed: it is refused too, named with its target); nothing when it is absent or a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise NotRegular(path, f"a symbolic link to {os.readlink(path)} (asz does not write through a link there)")
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(path, _kind_of(st))


def put_in_place(tmp: str | os.PathLike, path: str | os.PathLike) -> None:
    """Rename ``tmp`` (a temporary beside ``path``, whole) over ``path`` when ``path`` is absent or a regular file
    (:func:`refuse_odd`, looked at just before the rename, so what appeared there meanwhile is not replaced either);
    raises :class:`NotRegular` otherwise, ``tmp`` left for its writer to remove."""
    refuse_odd(path)
    os.replace(tmp, path)
