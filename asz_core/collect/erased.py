"""Sessions ``asz erase`` erased are not landed again from a source still on disk (docs/storage-root.md, Erasure).

A pass drops each discovered session whose directory name ``_erased.list`` holds
(:mod:`asz_core.storage.erased_list`), before anything of it is read, and says so once per process and session on
stderr: ``note: SOURCE: session S was erased on WHEN by WHO (REASON) with asz erase (ROOT/_erased.list:N): its
source is not landed again; delete the source, or move it out of the collected folders, to stop this note`` (a
watching collector says it at its first pass only). Where files of the session landed again after its erasure (an asz
that knows no ``_erased.list`` collected it: trial 33c F1), the note adds what
:func:`~asz_core.storage.erased_list.landed_again_said` says: ``asz erase S`` again removes them.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.erased_list import ERASED_LIST, erasure_said, landed_again, landed_again_said, read_erased
from ..storage.layout import session_dir

__all__ = ["drop_erased"]

#: (root, session) already told in this process.
_TOLD: set[tuple[str, str]] = set()


def drop_erased(root: Path, work: dict, report) -> int:
    """Take out of ``work`` (discovered session id -> its collectors and sources) every session ``root`` erased,
    telling each once (module doc) through ``report.note``; returns how many were taken out."""
    gone = read_erased(root)
    if not gone:
        return 0
    dropped = 0
    for session in list(work):
        try:
            name = session_dir(root, session).name
        except ValueError:
            continue
        e = gone.get(name)
        if e is None:
            continue
        parts = work.pop(session)
        dropped += 1
        key = (os.path.abspath(root), name)
        if key in _TOLD:
            continue
        _TOLD.add(key)
        src = parts[0][1][0].path if parts and parts[0][1] else root
        again = landed_again(root, e)
        report.note(src, f"session {name} was {erasure_said(e)} ({root / ERASED_LIST}:{e.line}): its source is not "
                         "landed again; delete the source, or move it out of the collected folders, to stop this note"
                         + (f"; {landed_again_said(root, os.fspath(root), e, again)}" if again else ""))
    return dropped
