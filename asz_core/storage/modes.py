"""Who else can read a root an older asz made (fix36c; trial 34c F5).

Every ``asz`` command writes under a ``077`` umask added to its user's own (``asz_core.cli.filemode``), so what it
makes is its user's alone; a root, folder or file that was there before keeps its mode (nothing is changed behind
anyone's back). ``asz verify`` says on stderr, once, how many entries of the root are open to more than the mask allows now
(a mode bit the mask takes away: group or others may read, write or enter), names the first, and gives the command
that closes them: ``chmod -R go-rwx ROOT`` (``g-w,o-rwx`` under ``ASZ_UMASK=027``). A note, never a problem (the
evidence is whole; the report on stdout and its exit code are the same), and a root a group shares on purpose is
opened by ``ASZ_UMASK`` (docs/storage-root.md, "Who can read a root").
"""

from __future__ import annotations

import os
import stat
from typing import Callable

from ..termsafe import line_value, shell_word

__all__ = ["open_entries", "open_below", "close_command", "modes_note", "open_said", "umask_bits"]


def _mask() -> int:
    """The process's umask (``asz`` set it before anything ran: :func:`asz_core.cli.filemode.private_umask`)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def open_entries(root: str | os.PathLike, mask: int, parts: dict[str, tuple[int, str]] | None = None,
                 below: Callable[..., tuple[int, str]] | None = None) -> tuple[int, str]:
    """How many entries of ``root`` (the root itself, every folder and file under it; a symbolic link is not
    followed, and not counted: its own mode means nothing) have a permission bit of the group or others that
    ``mask`` takes away, and the first of them met (its path under ``root`` as given; '' when none). ``parts``: what
    :func:`open_below` already told of some folders under ``root`` (by their path as this walk spells it), taken
    instead of walking them (``asz verify``'s workers walk their sessions' folders: issue 22, session 49). ``below``:
    the walk of what is under the root, :func:`open_below` or one that answers as it does (``asz verify`` gives the
    compiled ``asz_core.verify.linescan.open_below``)."""
    bits = mask & 0o077
    if not bits:
        return 0, ""
    top = os.fspath(root)
    try:
        n, first = (1, top) if stat.S_IMODE(os.lstat(top).st_mode) & bits else (0, "")
    except OSError:
        return 0, ""
    got, met = (below or open_below)(top, bits, parts)
    return n + got, first or met


def open_below(top: str, bits: int, parts: dict[str, tuple[int, str]] | None = None) -> tuple[int, str]:
    """:func:`open_entries` of the entries under folder ``top`` (not ``top`` itself) for mode ``bits``: a stack of
    folders, the last pushed read next, each folder's entries in :func:`os.scandir`'s order; a folder in ``parts`` is
    not read, its ``(n, first)`` there counted in its place (the same count and the same first: the walk reads
    a folder's whole tree before any folder pushed before it). ``asz_core.verify.linescan.open_below`` is this
    without ``parts``, in C."""
    n, first = 0, ""
    stack = [top]
    while stack:
        path = stack.pop()
        if parts and path in parts:
            got, met = parts[path]
            n, first = n + got, first or met
            continue
        try:
            with os.scandir(path) as it:
                for e in it:
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISLNK(st.st_mode):
                        continue
                    if stat.S_IMODE(st.st_mode) & bits:
                        n += 1
                        first = first or e.path
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(e.path)
        except OSError:
            continue
    return n, first


def close_command(root: str | os.PathLike, mask: int) -> str:
    """The command that takes from ``root``, recursively, every bit ``mask`` takes from what asz writes now:
    ``chmod -R go-rwx ROOT`` for ``077``, ``chmod -R g-w,o-rwx ROOT`` for ``027`` (the root shell-quoted)."""
    def letters(b: int) -> str:
        return "".join(c for c, v in (("r", 4), ("w", 2), ("x", 1)) if b & v)

    group, other = (mask >> 3) & 7, mask & 7
    who = ([f"go-{letters(group)}"] if group == other else
           [f"{c}-{letters(b)}" for c, b in (("g", group), ("o", other)) if b])
    return f"chmod -R {','.join(who)} {shell_word(root)}"


def umask_bits() -> int:
    """The mode bits of the group and others this process's umask takes away (0: none, and nothing is ever said)."""
    return _mask() & 0o077


def modes_note(root: str | os.PathLike, parts: dict[str, tuple[int, str]] | None = None,
               below: Callable[..., tuple[int, str]] | None = None) -> str:
    """The one line ``asz verify`` says on stderr when :func:`open_entries` finds entries of ``root`` open to more
    users than the process's umask allows (``asz verify: note:`` then :func:`open_said`); '' when none is.
    ``parts`` and ``below``: as :func:`open_entries` takes them."""
    said = open_said(root, parts, below)
    return f"asz verify: note: {said}" if said else ""


def open_said(root: str | os.PathLike, parts: dict[str, tuple[int, str]] | None = None,
              below: Callable[..., tuple[int, str]] | None = None) -> str:
    """``412 file(s) and folder(s) of ROOT are open to more users than asz allows now (the first: ROOT/…; umask 077):
    made by an older asz or under a looser umask; chmod -R go-rwx ROOT closes them (…)``, '' when none is: the words
    of ``asz verify``'s note and of the first ``asz collect`` pass on a root an older asz made (trial 37c F5:
    :func:`asz_core.collect.collector` says them when it writes the root's first ``_sessions.list``)."""
    mask = _mask()
    n, first = open_entries(root, mask, parts, below)
    if not n:
        return ""
    return (f"{n:,} file(s) and folder(s) of {line_value(os.fspath(root))} are open to more users "
            f"than asz allows now (the first: {line_value(first)}; umask {mask:03o}): made by an older asz or under a "
            f"looser umask; {close_command(root, mask)} closes them (docs/storage-root.md, Who can read a root)")
