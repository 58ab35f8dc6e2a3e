"""A key given twice in one object of a source line: found, and named for ``dropped`` (trial 27c, F9).

JSON leaves a repeated key to the reader, and every reader asz meets (orjson, Python's json, JavaScript's JSON.parse)
keeps the last value. asz reads it that way too, so its figures match other tools; but the earlier value is then read
into no field, and a person looking at the line sees it first (``"usage":{"input_tokens":1,…,"input_tokens":999999}``
counts 999,999). Seed 000 (Dropped): a loss is stated rather than silent. So an adapter lists each earlier value
under ``dropped`` (:func:`twice_dropped`), collect says a ``warning:`` naming the file, line and field
(asz_core.collect.session_pass), and the readers a problem (asz_core.view.view_base, ``keys given twice``).

:func:`keys_twice` is asked for a line that is not orjson's own encoding of its value (a canonical line holds no key
twice: asz_core.canonical_json), so nearly every line costs nothing; it asks the optional compiled
:mod:`asz_core.sessiondata.jsoncheck` (``keys_twice``, one pass over the bytes), and where that is not built or does
not tell, decodes the text with Python's json (:func:`keys_twice_py`, the definition: the same answer).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .canonical import jsoncheck
from .jsonbytes import array_elements, object_members
from .model import Dropped
from .vocabulary import TWICE_DROPPED
from .execution_digest import TWICE_LISTED, TWICE_WHY, key_path, mark_twice, twice_objects  # asz hook names a hook event's keys with them too

__all__ = ["keys_twice", "keys_twice_py", "keys_twice_at", "twice_dropped", "TWICE_WHY", "TWICE_LISTED"]

class _Found(Exception):
    pass


def _no_twice(pairs: list) -> None:
    if len(pairs) > 1 and len({k for k, _ in pairs}) != len(pairs):
        raise _Found
    return None


def _zero(_: str) -> int:
    return 0


#: orjson decodes a text nesting up to this deep (its own limit); Python's json recurses once a level, so the two
#: readers below are given that much room above the caller's own stack, else a line nesting ~990-1024 deep that
#: orjson landed would raise RecursionError here: False, [] while the compiled check says True.
_ORJSON_DEPTH = 1024


def _loads(text: bytes, hook: Any, **kw: Any) -> Any:
    """``json.loads(text, object_pairs_hook=hook, **kw)`` with room for :data:`_ORJSON_DEPTH` levels of nesting above
    the stack in use (the recursion limit raised for the call, then put back). Raises ValueError, RecursionError as
    json.loads does."""
    try:
        return json.loads(text, object_pairs_hook=hook, **kw)
    except RecursionError:
        pass
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + _ORJSON_DEPTH + 64)
    try:
        return json.loads(text, object_pairs_hook=hook, **kw)
    finally:
        sys.setrecursionlimit(limit)


def keys_twice_py(data: bytes, begin: int, end: int) -> bool:
    """Whether some object of the JSON text ``data[begin:end]`` (one ``orjson.loads`` decoded) gives a key twice, keys
    compared as decoded strings: Python's json over the text, numbers not converted. False for a text it cannot
    decode (then no key was read twice)."""
    try:
        _loads(data[begin:end], _no_twice, parse_int=_zero, parse_float=_zero, parse_constant=_zero)
    except _Found:
        return True
    except (ValueError, RecursionError):
        return False
    return False


def keys_twice(data: bytes, begin: int, end: int) -> bool:
    """Whether some object of the JSON text ``data[begin:end]`` (``bytes``, a text ``orjson.loads`` decoded) gives a
    key twice: the compiled check where it tells, else :func:`keys_twice_py` (the same answer)."""
    if jsoncheck is not None:
        got = jsoncheck.keys_twice(data, begin, end)
        if got is not None:
            return got
    return keys_twice_py(data, begin, end)


_path = key_path  # one way to name a member's path (asz hook names a hook event's keys with it: trial 30c F6)


def keys_twice_at(data: bytes, begin: int, end: int) -> list[tuple[str, int, int]]:
    """``(path, begin, end)`` of each member that the same object gives again later, in the order of the text:
    ``path`` names it from the line's top (``message.usage.input_tokens``, an element as ``content[2]``), and
    ``data[begin:end]`` is its value's source bytes. Only objects a reader reads are looked in: one inside an earlier
    value that is itself not read is named with that value. ``[]`` when no key is given twice, or the text is not
    JSON."""
    try:
        value = _loads(data[begin:end], mark_twice)
    except (ValueError, RecursionError):
        return []
    found = twice_objects(value)
    out: list[tuple[str, int, int]] = []
    for segs, obj in found:
        at = begin
        for s in segs:  # down to the object's bytes, each key's last member (the one read)
            if isinstance(s, int):
                at = array_elements(data, at)[s][0]
            else:
                at = [b for k, b, _ in object_members(data, at) if k == s][-1]
        members = object_members(data, at)
        last = {k: i for i, (k, _, _) in enumerate(members)}
        out.extend((_path(segs + [k]), b, e) for i, (k, b, e) in enumerate(members) if last[k] != i)
    out.sort(key=lambda x: x[1])
    return out


def twice_dropped(data: bytes, begin: int, end: int) -> list[Dropped]:
    """The ``dropped`` entries of a line whose text ``data[begin:end]`` gives a key twice in one object: one per earlier
    value (``what``: :data:`~asz_core.sessiondata.vocabulary.TWICE_DROPPED` and its path, ``bytes``: its source bytes,
    ``why``: :data:`TWICE_WHY`, never the value: see there), at most
    :data:`TWICE_LISTED`, then one counting the rest; ``[]`` when none (:func:`keys_twice` says whether to ask)."""
    at = keys_twice_at(data, begin, end)
    out = [Dropped(what=f"{TWICE_DROPPED}{path}", bytes=e - b, why=TWICE_WHY) for path, b, e in at[:TWICE_LISTED]]
    rest = at[TWICE_LISTED:]
    if rest:
        out.append(Dropped(what=f"{TWICE_DROPPED}{len(rest)} more", bytes=sum(e - b for _, b, e in rest), why=TWICE_WHY))
    return out
