"""What differs between two records landed under one id, named in a conflict line (trial 48c F4).

A ``summary.problems`` line of a conflict said ``with a different payload`` whatever differed: a Kiro line copied byte
for byte into another session, where a model line before it opens another model request, is read under another call
(its ``call`` field: the id of the request's first model line), and ``different payload`` read as changed bytes. From
render 44 (:data:`~asz_core.reading.export_render.FIELDS_RENDER`) the line names the fields that differ
(:func:`apart_said`): ``read under another model call (its call: A at 1/33, B in S)``; a copy of an earlier render is
drawn again with the earlier words (:data:`PAYLOAD_SAID`, set while it is made again).

Two sessions' records are one record when their parent, time, call and kind, payload (usage, parts) and content agree
(:func:`~asz_core.flow.shared_ids._same`); within one session, when their parts, call and usage do
(:func:`~asz_core.view.coverage.same_payload`). :func:`entry_fields` and :func:`record_fields` say which of those
differ, each as ``(field, value of the first, value of the second)``.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterable

__all__ = ["PAYLOAD_SAID", "OLD_WORDS", "apart_said", "entry_fields", "record_fields", "across", "across_said"]

#: The words every conflict line gave before render 44, and still gives when no field can be named.
OLD_WORDS = "with a different payload"
#: True while a copy of a render before 44 is drawn again (:func:`~asz_core.reading.export_render.drawing`): its
#: conflict lines said :data:`OLD_WORDS`.
PAYLOAD_SAID: ContextVar[bool] = ContextVar("asz_conflict_payload_said", default=False)

#: Field -> how a conflict line says it differs; ``{a}``/``{b}`` are the two values with where each is.
_WORDS = {
    "call": "read under another model call (its call: {a}, {b})",
    "parent": "under another parent (its parent: {a}, {b})",
    "ts": "at another time (its ts: {a}, {b})",
    "kind": "from another kind of landed file (its kind: {a}, {b})",
    "usage": "with other token counts (its usage)",
    "parts": "with other parts (its parts' kinds, ids, names, state, failed or sizes)",
    "content": "with another text or data in the same parts (its content's digest)",
    "record_parts": "with other parts (their kinds, ids, names, state, text or data)",
}


def _value(v: Any) -> str:
    return str(v) if v not in (None, "") else "none"


def apart_said(fields: Iterable[tuple[str, Any, Any]], first: str, second: str) -> str:
    """How a conflict line says what differs: each field's words (:data:`_WORDS`), joined with ``and``, the two values
    of a named value said ``VALUE FIRST`` and ``VALUE SECOND`` (``first``/``second``: where each record is, ``at 1/33``,
    ``in SESSION``); :data:`OLD_WORDS` when no field is named or a render before 44 is drawn."""
    return _joined((f, f"{_value(a)} {first}", f"{_value(b)} {second}") for f, a, b in fields)


def _joined(fields: Iterable[tuple[str, str, str]]) -> str:
    """Each ``(field, first value and place, second value and place)``'s words joined with ``and``, else
    :data:`OLD_WORDS` (none, or a render before 44 drawn)."""
    said = [] if PAYLOAD_SAID.get() else [_WORDS[f].format(a=a, b=b) for f, a, b in fields]
    return " and ".join(said) if said else OLD_WORDS


def record_fields(a: dict, b: dict) -> list[tuple[str, Any, Any]]:
    """The fields two landed records under one id differ in, as one session compares them (call, usage, parts)."""
    return [("record_parts" if k == "parts" else k, a.get(k), b.get(k)) for k in ("call", "usage", "parts") if a.get(k) != b.get(k)]


def entry_fields(a, b) -> list[tuple[str, Any, Any]]:
    """The fields two sessions' index entries (:class:`~asz_core.flow.index_model.IndexEntry`) under one id differ in,
    as :func:`~asz_core.flow.shared_ids._same` compares them."""
    from ..flow.index_model import payload_key, same_content

    out = [(k, getattr(a, k), getattr(b, k)) for k in ("call", "parent", "ts", "kind") if getattr(a, k) != getattr(b, k)]
    ka, kb = payload_key(a), payload_key(b)
    out += [(k, None, None) for k, i in (("usage", 1), ("parts", 2)) if ka[i] != kb[i]]
    return out if out or same_content(a, b) else [("content", None, None)]


def across(root: Path, session: str) -> Callable[[str, list[str]], str]:
    """:func:`across_said` of ``session``'s conflict lines (``(id, other sessions)`` -> the words), each session's
    index read once for them all (a copy read under other calls has a conflict line per record); nothing imported
    until a line asks (a document without conflicts loads no module: test_view_server_startup)."""
    read: dict[str, dict] = {}

    def ids(name: str) -> dict:
        if name not in read:
            from ..flow.ids_seen import first_ids
            from ..flow.index import load_index

            try:
                read[name] = first_ids(load_index(root / name, rebuild=False))
            except (OSError, ValueError, RuntimeError):
                read[name] = {}
        return read[name]

    return lambda rid, others: across_said(ids, session, rid, others)


def across_said(ids: Callable[[str], dict], session: str, rid: str, others: list[str]) -> str:
    """What a conflict line says of record ``rid`` of ``session`` and the copies ``others`` (sessions of the root)
    hold: each other session's differing fields (:func:`entry_fields`, from each index as landed, ``ids(session)``:
    its first entry by id, nothing written), said once each (values from the first session naming it);
    :data:`OLD_WORDS` when no index names the id."""
    if PAYLOAD_SAID.get():
        return OLD_WORDS
    here = ids(session).get(rid)
    named: dict[str, tuple[str, Any, Any, str]] = {}
    for other in others if here is not None else ():
        there = ids(other).get(rid)
        for f, a, b in entry_fields(here, there) if there is not None else ():
            named.setdefault(f, (f, a, b, other))
    return _joined((f, f"{_value(a)} here", f"{_value(b)} in {o}") for f, a, b, o in named.values())
