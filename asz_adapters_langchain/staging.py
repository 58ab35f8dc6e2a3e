"""Retention of the LangSmith staging: ``done/`` inbox files go once what they carried has landed (trial 28c F5).

``<root>/_ingest/langsmith/done/`` holds each request the receiver staged, as it arrived, after a pass materialised
it into ``sessions/`` (:mod:`.inbox`); nothing reads it again. ``asz prune`` (``storage.retention.after``) deletes a
``done/`` file when:

- it was staged before the retention cut (its name's leading nanoseconds, the receiver's clock; else its mtime);
- what every pass materialised has landed: each append source under ``sessions/`` has a cursor in the root whose
  ``offset`` is the source's size and whose state is ``active`` (a source not landed yet, or one in conflict, keeps
  every ``done/`` file: the staged copy is then the only copy besides ``sessions/`` of what is not evidence yet);
- no pass's journal is pending in ``state.json``.

Crash safety: the ``done/`` files are listed first, then the sources checked, then only the listed files are deleted,
one unlink each. A file in ``done/`` had its pass's appends written (fsync) before it moved there
(:func:`~asz_adapters_langchain.inbox_state.apply_journal`), so the check covers what it carried; a file moved there
after the listing is left for the next run. A kill at any point leaves some files deleted and the rest for the next
run (which repeats the check): nothing landed is touched, nothing is lost. ``inbox/``, ``state.json`` and ``sessions/``
are never deleted (docs/storage-root.md).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from asz_core.storage.cursor import AppendCursor, read_cursor
from asz_core.storage.layout import cursor_paths, session_dirs

from .inbox import INGEST
from .inbox_state import load_state

__all__ = ["prune_done"]

_STAGED_NS = re.compile(r"(\d{16,20})-")
#: How one staged file is deleted (one unlink: a kill leaves it whole or gone); a test kills the process after it.
_unlink = os.unlink


def _staged_ns(p: Path) -> int:
    """When the receiver staged inbox file ``p``: its name's leading nanoseconds (``<ns>-<pid>-<n>.jsonl``), else its mtime."""
    m = _STAGED_NS.match(p.name)
    return int(m.group(1)) if m else p.stat().st_mtime_ns


def _not_landed(root: Path) -> list[str]:
    """The append sources under ``sessions/`` (root-relative) that have not landed whole: no cursor names them, or
    its ``offset`` is not the source's size, or it is not ``active``."""
    sources = {p.relative_to(root).as_posix(): p.stat().st_size
               for p in (root / INGEST / "sessions").rglob("*.jsonl") if not p.name.endswith(".meta.jsonl")}
    landed: set[str] = set()
    for cp in (cp for sdir in session_dirs(root) for cp in cursor_paths(sdir)):  # the layout's cursors, not a walk of the root
        try:
            c = read_cursor(cp)
        except (OSError, ValueError):  # a cursor that does not read lands nothing: the staged copies stay
            continue
        if isinstance(c, AppendCursor) and c.source in sources and c.state == "active" and c.offset == sources[c.source]:
            landed.add(c.source)
    return sorted(set(sources) - landed)


def prune_done(root: Path, before_ns: int, dry_run: bool = False) -> tuple[int, int, list[str]]:
    """Delete the ``done/`` files of ``root``'s LangSmith staging staged before ``before_ns`` once everything
    materialised has landed (module docstring). Returns ``(files, bytes, why kept)``: what was (with ``dry_run``:
    would be) deleted, and one sentence per reason nothing could go (a ``state.json`` that does not read is one, named
    with its error). Raises OSError only for a ``done/`` folder that cannot be listed."""
    done = root / INGEST / "done"
    if not done.is_dir():
        return 0, 0, []
    listed = sorted((p for p in done.iterdir() if p.is_file()), key=lambda p: p.name)
    old = [p for p in listed if _staged_ns(p) < before_ns]
    if not old:
        return 0, 0, []
    try:
        journal = load_state(root / INGEST / "state.json").get("journal")
    except (OSError, ValueError) as exc:  # orjson.JSONDecodeError is a ValueError: a damaged state costs no session's prune
        return 0, 0, [f"{INGEST.as_posix()}/state.json does not read ({exc}); the staged copies stay until it does"]
    if journal:
        return 0, 0, [f"{INGEST.as_posix()}/done: a collect pass's journal is not applied yet; the next pass applies it"]
    behind = _not_landed(root)
    if behind:
        return 0, 0, [f"{INGEST.as_posix()}/done: {len(behind)} materialised source(s) not landed whole yet "
                      f"({', '.join(behind[:3])}{' …' if len(behind) > 3 else ''}); the staged copies stay until they are"]
    files = size = 0
    for p in old:
        try:
            n = p.stat().st_size
            if not dry_run:
                _unlink(p)
        except FileNotFoundError:
            continue
        files, size = files + 1, size + n
    return files, size, []
