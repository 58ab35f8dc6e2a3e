"""What each adapter's staging knows of a storage root beside its landed files (trial 28c F3), for ``asz ls`` and
``asz verify``: :func:`staged_notes`."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["STAGING", "staged_names", "staged_notes"]

#: The folder of a storage root under which every adapter stages what it receives (``_ingest/<adapter>``:
#: docs/storage-root.md); a root without it has nothing staged, and no adapter is asked.
STAGING = "_ingest"


def staged_names(folders) -> list[str]:
    """The paths of the entries directly in ``folders`` (an adapter's :meth:`~asz_core.plugins.adapter.Adapter.
    staged_folders`: its receiver's inbox) whose names do not start with ``.`` (a receiver's temporary file), folder
    by folder; a folder that is missing or cannot be listed holds none. Never raises."""
    names: list[str] = []
    for d in folders:
        try:
            with os.scandir(d) as entries:
                names += [e.path for e in entries if not e.name.startswith(".")]
        except OSError:
            continue
    return names


def staged_notes(storage: Path) -> list[str]:
    """What each adapter knows of the root beside its landed files (:meth:`~asz_core.plugins.adapter.Adapter.
    root_notes`: LangSmith's times no receiver listened, so traces sent then left no record), one sentence each, by
    adapter name. An adapter that fails says nothing. A root without :data:`STAGING` holds no adapter's staging: no
    adapter is loaded to be asked (issue 22: loading them cost ``asz verify`` 50 ms of CPU on a root of 270 sessions)."""
    if not os.path.isdir(os.path.join(storage, STAGING)):
        return []
    from .manager import get_plugin_manager

    out: list[str] = []
    for _, adapter in sorted(get_plugin_manager().adapters().items()):
        try:
            got = adapter.root_notes(Path(storage))
        except Exception:  # an adapter's bug takes nothing from the reader
            continue
        out += [x for x in got if isinstance(x, str) and x] if isinstance(got, list) else []
    return out
