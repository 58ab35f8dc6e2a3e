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
from typing import BinaryIO, Optional

from ..sessiondata.nolink import NOFOLLOW, link_target

__all__ = ["NotRegular", "put_in_place", "refuse_odd", "temp_open", "temp_write", "written_at"]


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
            raise NotRegular(path, f"a symbolic link to {link_target(path)}, which does not exist") from None
        if isinstance(exc, NotADirectoryError):
            raise
        return None
    except OSError as exc:
        if not is_link or exc.errno != errno.ELOOP:
            raise
        raise NotRegular(path, "a symbolic link that does not end at a file (a loop)") from None
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(path, _kind_of(st), f" (a symbolic link to {link_target(path)})" if is_link else "")
    return Path(os.path.realpath(path)) if is_link else path


def refuse_odd(path: str | os.PathLike) -> None:
    """Raise :class:`NotRegular` when something other than a regular file is at ``path`` itself (a symbolic link is
    not followed: it is refused too, named with its target); nothing when it is absent or a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise NotRegular(path, f"a symbolic link to {link_target(path)} (asz does not write through a link there)")
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(path, _kind_of(st))


def put_in_place(tmp: str | os.PathLike, path: str | os.PathLike) -> None:
    """Rename ``tmp`` (a temporary beside ``path``, whole) over ``path`` when ``path`` is absent or a regular file
    (:func:`refuse_odd`, looked at just before the rename, so what appeared there meanwhile is not replaced either);
    raises :class:`NotRegular` otherwise, ``tmp`` left for its writer to remove."""
    refuse_odd(path)
    os.replace(tmp, path)


def temp_open(tmp: str | os.PathLike, mode: int = 0o666) -> BinaryIO:
    """``tmp`` (a writer's temporary name beside what it replaces: ``FILE.part``, ``.FILE.PID.tmp``) opened to write,
    emptied, binary, never through what is planted there: ``O_NOFOLLOW`` (a symbolic link, its target untouched) and
    ``O_NONBLOCK`` (a FIFO without a reader) refuse it, and anything opened that is not a regular file (a FIFO with
    a reader, a device) is closed unwritten; each raises :class:`NotRegular` naming it (fix47j: the exports' whole-file
    writer and the root's atomic writer opened theirs with a plain ``open``, which wrote through a planted link). A
    new file's permission bits: ``mode`` less the umask. Raises OSError otherwise."""
    try:  # opened by name, so the stream's name is the path an interrupted writer says (os.fdopen's is the fd)
        f = open(tmp, "wb", opener=lambda path, flags: os.open(path, flags | NOFOLLOW | os.O_NONBLOCK, mode))
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENXIO) or os.path.islink(tmp):
            refuse_odd(tmp)  # says what is there: a link (with its target), a FIFO
        raise
    st = os.fstat(f.fileno())
    if not stat.S_ISREG(st.st_mode):
        f.close()
        raise NotRegular(tmp, _kind_of(st))
    return f


def temp_write(tmp: str | os.PathLike, data: bytes, fsync: bool = False) -> None:
    """``data`` into ``tmp`` opened by :func:`temp_open` (a link or a FIFO planted there refused), fsynced with
    ``fsync``: what a writer then renames over its file (:func:`put_in_place`)."""
    with temp_open(tmp) as f:
        f.write(data)
        if fsync:
            f.flush()
            os.fsync(f.fileno())
