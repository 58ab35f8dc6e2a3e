"""The search index's rows of a sub-agent's tool calls seen only in the copies its parent's file holds (fix50a).

Where the sub-agent's own file did not land, the document draws each tool call Claude Code copied into the parent's
transcript as a ``tool`` step under its relayed model call (:func:`~asz_core.view.usage_relayed.relayed_tools`); the
index reads the same copies (:func:`~asz_core.reading.prose_relayed.relayed_parts`), so their inputs and results are
found as ``tool_input`` and ``tool_result`` of that step, as every tool call's are. A tool call the fold has a node of
(the sub-agent's own file landed) is indexed from its own record, not again from a copy. :func:`copied_parts` is what
a hit of such a row is checked against (:meth:`~asz_core.reading.search_hits.HitCheck.holds`)."""

from __future__ import annotations

from typing import Mapping

__all__ = ["copied_parts", "relayed_rows"]

#: A relayed row's ``part``: past every landed part's place, one for each copied part of the record in its order.
FIRST_PART = 1000


def copied_parts(rec: dict, dialect: str) -> list[dict]:
    """The copied ``call`` and ``result`` parts of ``rec`` (every tool call it copies), ``[]`` for nearly every record."""
    from .prose_relayed import relayed_parts

    return relayed_parts(rec, dialect, None)


def relayed_rows(out: list[tuple], rec: dict, dialect: str, where: tuple, nodes: Mapping, talk_of: Mapping) -> None:
    """Append to ``out`` an index row (as :func:`~asz_core.reading.search._part_rows` makes one) of each copied part of
    ``rec`` (``where``: conversation, its file's seq and name, its row, flags, repeats, time in ms) whose tool call has
    no node in the fold's ``nodes``: step ``tool/<id>``, in the talk of the tool call that started the sub-agent."""
    from ..flow.model import kind_id
    from .search_hits import part_index

    parts = copied_parts(rec, dialect)
    conversation, _seq, rel, row, flags, repeats, at = where
    for i, p in enumerate(parts):
        step = kind_id("tool", p["id"] if p["k"] == "call" else p["of"])
        if step in nodes or (got := part_index(rec, p, "tool")) is None:
            continue
        talk = talk_of.get(kind_id("tool", p["by"]), "") if p.get("by") else ""
        out.append((got[2], conversation, step, talk, got[0], at, rel, row, FIRST_PART + i, flags, repeats, got[3]))
