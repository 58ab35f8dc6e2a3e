"""What retention left of a conversation (seed 000, Skeletons; trial 15, F5): how many of its sessions' landed files
``asz prune`` replaced by skeletons, when, and how many bytes went, so every reader says "removed by retention"
where the text was, never ``(no prompt)`` or ``no working directory recorded``.

A skeleton's header carries ``removed`` (``size``, ``at``, …: :mod:`asz_core.sessiondata.skeleton`); a removal is
read from those headers alone (one gzip member's first line per skeleton).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import orjson

from ..sessiondata.reader import header_line
from ..storage.layout import landed_files, session_dirs

__all__ = ["Removal", "removal_of", "removal_line", "shown_removed", "removed_sessions", "PROJECT_REMOVED"]

#: The project a reader shows for a conversation whose working directory went with its text.
PROJECT_REMOVED = "(removed by retention)"


@dataclass(frozen=True)
class Removal:
    """``files`` of the ``landed`` files of a conversation's sessions are skeletons; ``bytes``: the removed files'
    sizes (``removed.size``) summed; ``at``: the latest ``removed.at`` (ISO 8601 UTC), '' when no header reads."""

    files: int
    landed: int
    bytes: int
    at: str


def _removed_header(path: Path) -> dict:
    """The ``removed`` mapping of the skeleton at ``path``; {} when its header does not read (asz verify names it)."""
    try:
        head = orjson.loads(header_line(path))
    except (OSError, EOFError, ValueError):
        return {}
    r = head.get("removed") if isinstance(head, dict) else None
    return r if isinstance(r, dict) else {}


def removal_of(root: str | os.PathLike, sessions: Iterable[str]) -> Removal | None:
    """The :class:`Removal` of the sessions (ids, folders under ``root``) of one conversation; None when retention
    removed none of their landed files."""
    files = landed = size = 0
    at = ""
    for s in sessions:
        d = Path(root) / s
        if not isinstance(s, str) or "/" in s or not d.is_dir():
            continue
        for ln, p in landed_files(d, skeletons=True):
            landed += 1
            if ln.ext != "sk":
                continue
            files += 1
            r = _removed_header(p)
            if isinstance(r.get("size"), int):
                size += r["size"]
            if isinstance(r.get("at"), str) and r["at"] > at:
                at = r["at"]
    return Removal(files, landed, size, at) if files else None


def removal_line(r: Removal) -> str:
    """``removed by retention at AT: F of N landed file(s) (B bytes) are skeletons: …`` (what is kept, what went)."""
    when = f" at {r.at}" if r.at else ""
    return (f"removed by retention{when}: {r.files} of {r.landed} landed file(s) ({r.bytes:,} bytes) are skeletons, "
            "which keep the structure, times, ids, models and token usage; the prompts, replies, tool input and output "
            "and the working directory went with the text")


def shown_removed(root: str | os.PathLike, doc: dict) -> Removal | None:
    """For a reader that prints an asz.view document ``doc`` as text (``asz conversation``, ``asz export`` md, html,
    prose): when retention removed its landed files, the summary's ``(no prompt)`` title becomes ``(removed by
    retention)`` and its empty project :data:`PROJECT_REMOVED`, in place (as ``asz ls`` shows them), and the
    :class:`Removal` is returned for :func:`removal_line`; else ``doc`` is left as it is and None returned."""
    from ..view.summary import NO_PROMPT, REMOVED

    r = removal_of(root, doc.get("sessions") or [doc.get("conversation")])
    s = doc.get("summary")
    if r is not None and isinstance(s, dict):
        if s.get("title") in ("", None, NO_PROMPT):
            s["title"] = REMOVED
        if not s.get("project"):
            s["project"] = PROJECT_REMOVED
    return r


def removed_sessions(root: str | os.PathLike) -> list[str]:
    """The sessions of ``root`` (folder names, sorted) retention replaced any landed file of by its skeleton."""
    out = []
    for d in session_dirs(Path(root)):
        if any(ln.ext == "sk" for ln, _ in landed_files(d, skeletons=True)):
            out.append(d.name)
    return sorted(out)
