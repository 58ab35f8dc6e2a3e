"""A command's named output file as it is given on the command line (``asz export --out``, ``asz usage --out``,
``asz push --receipts``): ``-`` for stdout where the command prints there, and the refusal, exit 2 before anything is
read or written, of a name that is neither absent nor a regular file (trial 47b F1: ``asz export ID --out /dev/null``
replaced /dev/null). The rule itself is :mod:`asz_core.storage.out_path`'s, which every writer follows again at its
rename; :func:`refused` says what such a writer met in the same words."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from ..storage.out_path import NotRegular, written_at
from .jobs import usage_error

__all__ = ["STDOUT", "out_file", "refused"]

#: The ``--out`` that names stdout.
STDOUT = "-"
#: What a command that prints on stdout offers instead of a device or a FIFO.
PRINT = "to print on stdout, leave out {flag} or give {flag} - (> /dev/null throws it away)"


def out_file(cmd: str, flag: str, given, stdout: bool = True) -> Optional[Path]:
    """``given`` (``flag``'s value, a str or Path, or None) as the file ``asz CMD`` writes: None when not given, or
    ``-`` where the command prints on stdout (``stdout``); else the path, when nothing is there, or a regular file is,
    or a symbolic link to one (written through, the link kept). Exit 2 (typer.Exit) for ``-`` where ``stdout`` is
    False, and for anything else (a FIFO, a device, a socket, a directory, a link to one, a dangling link): nothing
    is written. A path that cannot be looked at (no permission) is the writer's to say."""
    if given is None:
        return None
    if os.fspath(given) == STDOUT:
        if stdout:
            return None
        raise usage_error(cmd, f"{flag} - is not offered: give a file's name")
    try:
        written_at(given)
    except NotRegular as exc:
        raise refused(cmd, flag, exc, stdout) from None
    except OSError:
        pass
    return Path(given)


def refused(cmd: str, flag: str, exc: NotRegular, stdout: bool = True, named: bool = True) -> typer.Exit:
    """Say on stderr that ``asz CMD`` writes nothing at ``exc``'s path (:class:`~asz_core.storage.out_path.NotRegular`):
    the file ``flag`` names (``named``: ``asz export: --out dev/null: a character device (1,3), not a regular file:
    nothing written (…)``), or one a writer under it met (a folder export's file: ``asz export: cannot write
    DIR/ID.md: a FIFO (named pipe), …: left as it is; …``); the exit (2) to raise."""
    if not named:
        return usage_error(cmd, f"cannot write {exc}: left as it is, and nothing more written (asz renames a file it "
                                "writes only over a regular file; move this one away and run the command again)")
    hint = PRINT.format(flag=flag) if stdout else "give a regular file's name"
    return usage_error(cmd, f"{flag} {exc}: nothing written (asz writes a file whole under a temporary name and renames "
                            f"it over the one named, so it replaces only a regular file, or writes through a symbolic "
                            f"link to one; {hint})")
