"""Temporary files writers left in a root's session directories (``.<name>.<pid>.tmp``: a writer killed, or refused
by a full disk; trial 26a F5): never landed, not checked; ``asz verify`` counts them in one note, and the next
``asz collect`` that takes their session's lock removes them (:func:`asz_core.storage.root.remove_session_temporaries`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["LEFTOVER_SAID", "leftover_temporaries"]

#: The note of temporary files writers left in session directories: never landed, not checked.
LEFTOVER_SAID = ("{n} temporary file(s) a writer left (.<name>.<pid>.tmp, e.g. {first}: a writer killed, or refused by a "
                 "full disk): they never landed and are not checked; the next asz collect that takes their session's "
                 "lock removes them")


def leftover_temporaries(sessions: list[Path]) -> list[Path]:
    """The ``.<name>.<pid>.tmp`` files in ``sessions`` (session directories), their ``streams/*``, ``runs/*`` and
    ``provider_body/`` (where :func:`~asz_core.storage.root.remove_session_temporaries` looks), sorted."""
    found = []
    for sdir in sessions:
        dirs = [sdir, sdir / "provider_body"]
        for sub in ("streams", "runs"):
            try:
                dirs += [Path(e.path) for e in os.scandir(sdir / sub) if e.is_dir(follow_symlinks=False)]
            except OSError:
                pass
        for d in dirs:
            try:
                found += [Path(e.path) for e in os.scandir(d) if e.name.startswith(".") and e.name.endswith(".tmp")]
            except OSError:
                pass
    return sorted(found)
