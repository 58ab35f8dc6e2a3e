"""Set a file or directory of a storage root aside: moved, never deleted, under ``<root>/_set_aside/<stamp>/``.

What no longer matches (a chain whose landed files are gone, a landed file whose bytes were damaged) is still
evidence of what was, so a repair never deletes it: it is renamed to ``<root>/_set_aside/<UTC stamp>/<its path
relative to the root>``, the same path under a folder named by when it was set aside. ``_set_aside`` starts with
``_``, so nothing reads it as a session, and no chain, list or push walks it (storage-root.md).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..sessiondata.durable import fsync_dir

__all__ = ["SET_ASIDE", "set_aside"]

#: The folder of everything set aside, relative to the storage root.
SET_ASIDE = "_set_aside"


def set_aside(root: str | os.PathLike, path: str | os.PathLike) -> Path:
    """Move ``path`` (a file or directory inside ``root``) to ``<root>/_set_aside/<YYYYMMDDTHHMMSSZ>/<relative
    path>`` (``-2``, ``-3``… after the stamp when that name is taken); returns where it went. Raises OSError."""
    root, path = Path(root), Path(path)
    rel = path.relative_to(root)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    n = 1
    while True:
        target = root / SET_ASIDE / (stamp if n == 1 else f"{stamp}-{n}") / rel
        if not os.path.lexists(target):
            break
        n += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(path, target)
    fsync_dir(target.parent)
    fsync_dir(path.parent)
    return target
