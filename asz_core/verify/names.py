"""How ``asz verify`` shows a landed file's path, and the quick test that a file's name agrees with its header.

:func:`show_path` gives a path under the root as the user named the root;
:func:`shown_in` gives it for every path of one session's listing, the path
itself where that is what :func:`show_path` gives back (the root shown as it
was given). :func:`names_agree` is True only where
:func:`name_problems` finds nothing (origin-digest §2.1),
known from a few comparisons for a stream's file (issue 22: one call a file
fewer); where it is False, :func:`name_problems` (here, re-exported by :mod:`asz_core.verify.walk`) is asked and
says what it says.
"""

from __future__ import annotations

import os
import stat
from functools import partial
from pathlib import Path
from typing import Callable

from ..sessiondata.model import KIND_PREFIX, Header
from ..storage.layout import dir_name, kind_dir_parts
from .report import Problem

__all__ = ["WRITE_BITS", "NOT_STREAMS", "show_path", "shown_in", "names_agree", "writable", "writable_said", "name_problems"]

#: The mode bits of a writable file (a landed file is read-only: 0444).
WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
#: The kinds not filed under ``streams/<stream>`` (kind_dir_parts): runs and provider bodies.
NOT_STREAMS = frozenset(("journal", "workflow_manifest", "workflow_script", "provider_body"))


def writable_said(path: str | Path, whole: bool) -> str:
    """The ``writable`` problem's detail for a landed file or skeleton at ``path`` with a write bit: ``mode
    -rw-r--r--: a landed file is read-only``, and, when its bytes still match its closing line's digest (``whole``), that they do and
    the way back (trial 29a F11: a copy restored with its write bits back, by ``cp -r`` or a backup tool, was told
    nothing more): ``chmod a-w`` on the root's landed files and skeletons."""
    said = f"mode {stat.filemode(os.stat(path).st_mode)}: a landed file is read-only"
    if not whole:
        return said
    return (f"{said}; its bytes still match its closing line's digest: a copy restored with its write bits back (cp -r, a backup "
            "tool) is made read-only again by chmod a-w on its landed files and skeletons (find ROOT -name '*.sd' -o "
            "-name '*.sk' | xargs chmod a-w)")


def show_path(root_shown: str, root: Path, path: str | Path) -> str:
    """``path`` (a path under ``root``, a str or a Path) as the user named the root."""
    full, base = str(path), str(root)
    if full.startswith(base) and full[len(base): len(base) + 1] == os.sep:
        rest = full[len(base) + 1:]
        if root_shown == base and rest[:1] != os.sep and base[-1:] != os.sep:
            return full  # os.path.join(base, rest) is base + sep + rest, which is full: no join a file
        return os.path.join(root_shown, rest)
    return str(Path(root_shown) / Path(path).relative_to(root))


def shown_in(root_shown: str, root: Path, session_dir: str | os.PathLike) -> Callable[[str | Path], str]:
    """:func:`show_path` for the paths under ``session_dir`` (a directory of ``root``): ``str`` itself where the root
    is shown as it was given (then every such path is shown as it is: ``base + sep + rest``, rest not starting with a
    separator), else :func:`show_path` with the root bound."""
    base = str(root)
    if root_shown == base and base[-1:] != os.sep and os.fspath(session_dir).startswith(base + os.sep):
        return str
    return partial(show_path, root_shown, root)


def names_agree(ln, header: Header, here: object, streams: str, session: str) -> bool:
    """True when the name (``ln``: a LandedName) and directory (``here``) of a landed file surely agree with its
    ``header``: the same kind and seq, ``header.session`` is ``session`` (the session directory's name, or '' when
    it is one ``dir_name`` would change), and a stream's kind filed in ``streams`` (the session directory, ``streams``
    and a separator, each a str) + its stream, a name ``dir_name`` keeps. False: ask ``name_problems``."""
    stream = header.stream or "main"
    return (header.kind == ln.kind and header.seq == ln.seq and header.session == session and session != ""
            and header.kind not in NOT_STREAMS and here == streams + stream and "/" not in stream and "\\" not in stream
            and stream not in (".", ".."))


def writable(path: Path, mode: int = -1) -> bool:
    """True when the file has any write bit; ``mode`` is its ``st_mode`` when already known (-1: stat it)."""
    try:
        if mode < 0:
            mode = os.stat(path).st_mode
        return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    except OSError:
        return False


def name_problems(shown: str, path: str | Path, ln, header: Header, root: Path, session_dir: Path, here: str | None = None) -> list[Problem]:
    """Where the name or directory of a landed file (a str or a Path) disagrees with its header (origin-digest §2.1).
    ``here``: ``os.path.dirname(path)`` when the caller knows it (the listing's directory of the file)."""
    out: list[Problem] = []
    if header.kind != ln.kind:
        out.append(Problem(shown, 1, "kind", "name mismatch", f"the name says {KIND_PREFIX.get(ln.kind, ln.kind)!r} ({ln.kind}), the header says {header.kind!r}"))
    if header.seq != ln.seq:
        out.append(Problem(shown, 1, "seq", "name mismatch", f"the name says seq {ln.seq}, the header says {header.seq}"))
    try:
        filed_under = dir_name(header.session)
    except ValueError as exc:
        return out + [Problem(shown, 1, "session", "name mismatch", str(exc))]
    if filed_under != session_dir.name:
        return out + [Problem(shown, 1, "session", "name mismatch", f"filed under session {session_dir.name!r}, the header says {header.session!r}")]
    run_kind = header.kind in ("journal", "workflow_manifest", "workflow_script")
    try:
        want = os.sep.join(kind_dir_parts(header.kind, header.stream, header.batch))
    except ValueError as exc:
        return out + [Problem(shown, 1, "batch" if run_kind else "stream", "name mismatch", str(exc))]
    base = str(session_dir)
    if here is None:
        here = os.path.dirname(os.fspath(path))
    filed = here[len(base) + 1:] if here.startswith(base + os.sep) else here
    if filed != want:
        field = "batch" if run_kind or os.path.basename(os.path.dirname(here)) == "runs" else "stream"
        out.append(Problem(shown, 1, field, "name mismatch",
                           f"filed under {Path(filed).as_posix()}/, the header belongs in {Path(want).as_posix()}/"))
    return out
