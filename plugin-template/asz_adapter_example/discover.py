"""Discovery of Codex CLI rollout files: one append source per file, the session id from its name."""

from __future__ import annotations

import os
import re
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Iterable

from asz_core import Discovery, Source, os_error_text

from .convert import DIALECT

__all__ = ["discover", "ROLLOUT"]

#: ``rollout-<stamp>-<session uuid>.jsonl``; group 1 is the session id.
ROLLOUT = re.compile(r"^rollout-.*?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$")


def discover(root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
    """Every ``rollout-*.jsonl`` below ``root`` (``YYYY/MM/DD/`` in Codex's layout), in path order.

    ``include``/``exclude`` are globs on the session id. Other files are
    ``skipped`` with the reason; an unreadable directory is an ``errors``
    entry. Never raises.
    """
    out = Discovery()
    inc, exc = list(include), list(exclude)
    if not root.is_dir():
        out.errors.append((str(root), "no such directory" if not root.exists() else "not a directory"))
        return out

    def unreadable(e: OSError) -> None:
        out.errors.append((str(e.filename), os_error_text(e, "directory")))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames.sort()
        for fn in sorted(filenames):
            path = Path(dirpath) / fn
            m = ROLLOUT.match(fn)
            if not m:
                out.skipped.append((str(path), "not a rollout file"))
                continue
            session = m.group(1)
            if (inc and not any(fnmatchcase(session, g) for g in inc)) or any(fnmatchcase(session, g) for g in exc):
                out.skipped.append((str(path), "excluded by the session filters"))
                continue
            rel = path.relative_to(root).as_posix()
            out.sources.append(Source(session=session, kind="transcript", path=path, src=rel, dialect=DIALECT, stream="main"))
    return out
