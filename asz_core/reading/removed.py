"""What retention left of a conversation (seed 000, Skeletons; trial 15, F5; trial 19, F14, F15, F21): how many of its
session's landed files ``asz prune`` replaced by skeletons, when, and how many bytes went, so every reader says
"removed by retention" where the text was, never ``(no prompt)`` or ``no working directory recorded``.

The asz.view document decides (:meth:`~asz_core.view.summary.DocumentView.title` and ``summary.removed``, read from
the skeletons' own headers): a pruned conversation with no title left is titled ``(removed by retention)`` by the
document itself, so ``asz ls`` (table and ``--json``), the ``--audit`` header, the page and every export give the same
title. This module says it in words for the readers that print text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..storage.layout import landed_files, session_dirs
from ..view.rate_words import KEPT_SRC  # what a skeleton keeps of where its source was: the page's words too

__all__ = ["Removal", "removal_line", "removed_size", "shown_removed", "removed_sessions", "retention_loss_line", "PROJECT_REMOVED",
           "KEPT_SRC"]

#: The project a reader shows for a conversation whose records' working directory (cwd) went with its text.
PROJECT_REMOVED = "(removed by retention)"


@dataclass(frozen=True)
class Removal:
    """``files`` of the ``landed`` files of a conversation's session are skeletons; ``bytes``: the removed files'
    sizes (``removed.size``) summed; ``at``: the latest ``removed.at`` (ISO 8601 UTC), '' when no header gives one.
    The document's ``summary.removed`` (:meth:`~asz_core.view.summary.DocumentView.removal`)."""

    files: int
    landed: int
    bytes: int
    at: str
    #: ``(file, why)`` of each skeleton whose header does not give the removed file's size (``summary.removed``'s
    #: ``size_unknown``): its size is in no ``bytes``.
    unknown: tuple[tuple[str, str], ...] = ()


def removal_line(r: Removal) -> str:
    """``removed by retention at AT: F of N landed file(s) (B bytes) are skeletons: …`` (what is kept, what went, and
    :data:`KEPT_SRC`)."""
    when = f" at {r.at}" if r.at else ""
    return (f"removed by retention{when}: {r.files} of {r.landed} landed file(s) ({removed_size(r)}) are skeletons, "
            "which keep the structure, times, ids, models and token usage; the prompts, replies, tool input and output "
            f"and each record's working directory (cwd) went with the text; {KEPT_SRC}")


def removed_size(r: Removal) -> str:
    """The removed files' size in words: ``3,439,771 bytes``; when a skeleton's header does not give it (the skeleton
    cannot be read), never 0 but ``size unknown: skeleton S/…/x.sk cannot be read: Permission denied``, after the
    bytes of the others when some are known (``6,169 bytes, and 1 more of size unknown: …``)."""
    if not r.unknown:
        return f"{r.bytes:,} bytes"
    why = "; ".join(f"skeleton {f} {w}" for f, w in r.unknown)
    if len(r.unknown) >= r.files:
        return f"size unknown: {why}"
    return f"{r.bytes:,} bytes, and {len(r.unknown)} more of size unknown: {why}"


def shown_removed(doc: dict) -> Removal | None:
    """For a reader that prints an asz.view document ``doc`` as text (``asz conversation``, ``asz export`` md, html,
    prose): the :class:`Removal` its summary's ``removed`` gives, for :func:`removal_line`, with an empty project made
    :data:`PROJECT_REMOVED` in place (as ``asz ls`` shows it; the title is the document's own, ``(removed by
    retention)`` when none is left); None, ``doc`` left as it is, when retention removed none of its files."""
    s = doc.get("summary")
    r = s.get("removed") if isinstance(s, dict) else None
    if not isinstance(r, dict):
        return None
    if not s.get("project"):
        s["project"] = PROJECT_REMOVED
    unknown = tuple((u.get("file") or "", u.get("why") or "") for u in r.get("size_unknown") or () if isinstance(u, dict))
    return Removal(r.get("files") or 0, r.get("landed") or 0, r.get("bytes") or 0, r.get("at") or "", unknown)


def removed_sessions(root: str | os.PathLike) -> list[str]:
    """The sessions of ``root`` (folder names, sorted) retention replaced any landed file of by its skeleton."""
    out = []
    for d in session_dirs(Path(root)):
        if any(ln.ext == "sk" for ln, _ in landed_files(d, skeletons=True)):
            out.append(d.name)
    return sorted(out)


def retention_loss_line(n: int, project_given: bool = False) -> str:
    """What readers lose of ``n`` conversations retention removed (trial 36b F2: after a prune a year's per-project
    costs moved to ``(removed by retention)`` and ``asz ls --project`` lost them, and no command said so), the one
    wording of ``asz ls``, ``asz usage`` and ``asz prune``: their text went, and with it the title and the working
    directory (``cwd``) the project is read from (a skeleton keeps neither: seed 000, Skeletons; its header's ``src`` is
    not read as a project, docs/reading.md), so each lists as :data:`PROJECT_REMOVED`, ``asz usage project`` counts them
    under it and ``--project`` keeps none of them; their times, models, token counts and costs stay. With
    ``project_given``: the words for a reader ``--project`` narrowed. '' for none."""
    if not n:
        return ""
    if project_given:
        return (f"--project keeps none of the {n:,} conversation(s) retention removed (asz prune): their project went "
                f"with their text; asz usage project counts them under {PROJECT_REMOVED}")
    return (f"{n:,} conversation(s) removed by retention (asz prune): their title and project went with their text, so "
            f"they read {PROJECT_REMOVED}, asz usage project counts them under it and --project keeps none of them; "
            "their times, models, tokens and cost stay")
