"""Which landed records are copies of another record of the conversation, and which of their parts the search index
keeps (:func:`copies_kept`): a replayed model call's copy (fix46c) and a line its runtime wrote again (trial 48b F1)
are one hit each, at the record every reader draws."""

from __future__ import annotations

__all__ = ["replay_rows", "written_again", "copies_kept"]


def replay_rows(nodes: dict) -> set[tuple[int, int]]:
    """``(seq, row)`` of each landed record a model call of the fold's ``nodes`` says is a copy of it (its
    ``attrs.replayed``: a sub-agent's or side question's file replaying its parent's call under the same message id,
    :func:`~asz_core.flow.asm_state.replays`), which every reader draws once, at the call's own record."""
    out: set[tuple[int, int]] = set()
    for n in nodes.values():
        for at in (n.attrs.get("replayed") or ()) if n.kind == "llm.call" else ():
            if isinstance(at, dict) and isinstance(at.get("seq"), int) and isinstance(at.get("row"), int):
                out.add((at["seq"], at["row"]))
    return out


def written_again(ids: set[str], rec: dict, cited: bool) -> bool:
    """Whether landed record ``rec`` is a line its runtime wrote again (field reports 20, 21, 23: the same id and
    payload, appended byte for byte, in the same pass as the first or a later one): no step cites it (``cited``:
    the fold kept the first landed copy, assembly's stage 1) and a record read before it in the conversation has
    its id (``ids``, to which its id is added). Its parts are then searched as a copy's (:func:`copies_kept`): the
    text is one hit, at the record drawn (trial 48b F1: a second hit with step '' in a later file)."""
    rid = rec.get("id")
    if not isinstance(rid, str) or not rid:
        return False
    if rid in ids:
        return not cited
    ids.add(rid)
    return False


def copies_kept(rows: list[tuple], copies: list[tuple]) -> list[tuple]:
    """The index rows of ``copies`` (the parts of :func:`replay_rows`' records and of records :func:`written_again`)
    whose text and kind no row of ``rows`` (every other record's) holds: a replayed call's or a repeated line's text is
    one hit, at the record drawn, unless the copy is the only place it is (fix46c: ``tool_input`` at ``tool/X`` and
    again at the talk holding only the copy)."""
    have = {(r[0], r[4]) for r in rows}
    return [r for r in copies if (r[0], r[4]) not in have]
