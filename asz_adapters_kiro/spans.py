"""Decoded JSON values that remember the source bytes they came from.

Seed 000 ("What data holds") requires every ``data`` part that holds source
JSON to be the exact source slice with only inter-token whitespace removed.
:class:`Node` pairs a decoded value with its ``(begin, end)`` byte span in the
source buffer so a converter can hand out ``RawJSON(compact(slice))`` for any
member or element without re-encoding it.

:func:`parse` decodes one source record strictly and says why when it cannot.
"""

from __future__ import annotations

from typing import Any, Iterator

from asz_core import JSONSpanError, RawJSON, array_elements, compact, loads_source, nesting_depth, object_members, value_span

__all__ = [
    "Node",
    "parse",
    "root_node",
    "nesting_depth",  # re-exported from asz_core
    "MAX_SOURCE_DEPTH",
    "REASON_NOT_JSON",
    "REASON_NOT_OBJECT",
    "REASON_TOO_DEEP",
]

#: Deepest nesting a source record may have and still land parsed. A landed
#: record puts a source value three levels down (record, parts, part) and a
#: Session Data reader may refuse a line nesting deeper than 256 (seed 000,
#: Reading a record).
MAX_SOURCE_DEPTH = 253

REASON_NOT_JSON = "the record is not valid JSON"
REASON_NOT_OBJECT = "the record is JSON but not an object"
REASON_TOO_DEEP = f"the record nests objects and lists deeper than {MAX_SOURCE_DEPTH}"


class Node:
    """A decoded JSON value with the byte span ``buf[begin:end]`` it was decoded from.

    ``value`` is the Python value (dict, list, str, int, float, bool, None).
    Member and element spans are computed on first use with
    :func:`asz_core.object_members` / :func:`asz_core.array_elements`, which
    never decode strings. For an object with a repeated key, the last
    occurrence wins, as in the decoder.
    """

    __slots__ = ("value", "buf", "begin", "end", "_members")

    def __init__(self, value: Any, buf: bytes, begin: int, end: int):
        self.value = value
        self.buf = buf
        self.begin = begin
        self.end = end
        self._members: dict[str, tuple[int, int]] | None = None

    @property
    def size(self) -> int:
        """Size in source bytes of this value."""
        return self.end - self.begin

    def raw(self) -> RawJSON:
        """This value's source bytes, compacted (seed 000, What data holds)."""
        return RawJSON(compact(self.buf[self.begin:self.end]))

    def source(self) -> bytes:
        """This value's source bytes exactly as written."""
        return self.buf[self.begin:self.end]

    def _spans(self) -> dict[str, tuple[int, int]]:
        if self._members is None:
            self._members = {k: (b, e) for k, b, e in object_members(self.buf, self.begin)}
        return self._members

    def member(self, key: str) -> "Node | None":
        """Member ``key`` of this object as a Node; None when this is not an object or the key is absent."""
        if not isinstance(self.value, dict) or key not in self.value:
            return None
        b, e = self._spans()[key]
        return Node(self.value[key], self.buf, b, e)

    def members(self) -> Iterator[tuple[str, "Node"]]:
        """``(key, Node)`` for each member of this object in source order (a repeated key once, at its last place)."""
        if not isinstance(self.value, dict):
            return
        spans = self._spans()
        seen: set[str] = set()
        for key, b, e in object_members(self.buf, self.begin):
            if key in seen or spans[key] != (b, e):
                continue
            seen.add(key)
            yield key, Node(self.value[key], self.buf, b, e)

    def elements(self) -> list["Node"]:
        """Each element of this array as a Node, in order. Raises JSONSpanError when the spans disagree with the value."""
        if not isinstance(self.value, list):
            return []
        spans = array_elements(self.buf, self.begin)
        if len(spans) != len(self.value):  # pragma: no cover - decoder and span walker disagree
            raise JSONSpanError(f"{len(spans)} element spans for {len(self.value)} values")
        return [Node(v, self.buf, b, e) for v, (b, e) in zip(self.value, spans)]

    def get(self, key: str, default: Any = None) -> Any:
        """``value[key]`` when this is an object holding ``key``, else ``default``."""
        if isinstance(self.value, dict):
            return self.value.get(key, default)
        return default

    def s(self, key: str) -> str:
        """``value[key]`` when it is a string, else ''."""
        v = self.get(key)
        return v if isinstance(v, str) else ""


def parse(raw: bytes) -> tuple[Any, str]:
    """Decode one source record strictly: ``(value, "")``, or ``(None, reason)`` when it cannot land parsed.

    Decoding is :func:`asz_core.loads_source` (orjson; escaped lone surrogates
    stay code points until the record is settled by the surrogate rule; NaN, infinities and numbers beyond a double are refused).
    A value nesting deeper than :data:`MAX_SOURCE_DEPTH` is refused with
    :data:`REASON_TOO_DEEP` (seed 000, Reading a record). Never raises.
    """
    try:
        value = loads_source(raw)
    except RecursionError:
        return None, REASON_TOO_DEEP
    except (ValueError, UnicodeDecodeError) as exc:
        message = str(exc)
        return None, REASON_TOO_DEEP if ("recursion" in message or "depth" in message) else REASON_NOT_JSON
    if nesting_depth(value) > MAX_SOURCE_DEPTH:
        return None, REASON_TOO_DEEP
    return value, ""


def root_node(value: Any, raw: bytes) -> Node:
    """The Node of the whole record ``raw`` that decoded to ``value``. Raises JSONSpanError on a span mismatch."""
    b, e = value_span(raw, 0)
    return Node(value, raw, b, e)
