"""The exports' lines of a stream in the asz.view document's order, where the landed order is not the work's (N1, recheck 28).

A Claude Code or Kiro transcript lands in the order its runtime wrote it, which is the order of the work, so the prose
and audit exports read each stream in file order (seed 003, §4). A LangSmith thread lands in the order its arrivals
reached the receiver: the client posts a run when it starts and patches it when it ends, in batches, so every start
of a batch (each question of a thread) lands before the ends that carry the model's replies and tool calls. Read in
that order, the text and prose exports listed all of a thread's questions first (trial 28c, recheck 28 N1).

The document (seed 004) orders a thread itself: its talks in time order, each a tree of runs and steps in the order
the fold gives them, and every node cites the records it was read from (``ref``, then ``refs``). An adapter whose
landed order is arrival order says so (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.landed_in_arrival_order`);
the exports then place each line by the first node, in the document's depth-first walk, that cites its record
(:func:`document_order`, :func:`in_document_order`). A record no node cites (one the document lists under
``not_drawn``, a record with no content) keeps its place after the line before it. Nothing is sorted by time, and a
stream of any other adapter is left in file order, byte for byte.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..view.placing import walk
from ..view.titles import ask_adapter

__all__ = ["arrival_ordered", "document_order", "in_document_order"]


def arrival_ordered(dialect: str, seen: dict[str, bool]) -> bool:
    """Whether the adapter of ``dialect`` lands its records in arrival order, not the work's
    (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.landed_in_arrival_order`; anything but True is False),
    asked once per dialect (``seen`` caches the answers)."""
    if dialect not in seen:
        seen[dialect] = ask_adapter(dialect, "landed_in_arrival_order") is True
    return seen[dialect]


def document_order(doc: dict) -> dict[tuple[int, int], int]:
    """``{(seq, row): n}``: for each record a node of ``doc`` (an asz.view document) cites, in its ``ref`` or its
    ``refs``, the place ``n`` of the first such node in the depth-first walk of the document's talks (a talk before its
    children; seed 004, "A node in talks"). ``loose`` nodes follow the talks' in the document's order."""
    talks = [t for t in doc.get("talks") or () if isinstance(t, dict)]
    loose = [n for n in doc.get("loose") or () if isinstance(n, dict)]
    out: dict[tuple[int, int], int] = {}
    for n, node in enumerate(walk([*talks, *loose])):
        for ref in [node.get("ref"), *(node.get("refs") or ())]:
            if isinstance(ref, dict):
                out.setdefault((ref.get("seq"), ref.get("row")), n)
    return out


def in_document_order(lines: list[dict], order: dict[tuple[int, int], int],
                      record_of: Callable[[dict], Optional[tuple[int, int]]]) -> list[dict]:
    """``lines`` (one stream's export lines, in file order) placed by ``order`` (:func:`document_order`): each line by
    the place of its record (``record_of(line)``: ``(seq, row)`` or None); a line whose record the document does not
    cite takes the place of the line before it, and lines of one place keep their file order (a stable sort)."""
    keys: list[int] = []
    at = -1
    for line in lines:
        got: Optional[int] = order.get(record_of(line))
        at = got if got is not None else at
        keys.append(at)
    return [lines[i] for i in sorted(range(len(lines)), key=lambda i: (keys[i], i))]
