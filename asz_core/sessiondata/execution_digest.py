"""The digest an execution record keeps of a JSON value: canonical JSON and its ``{state: "size_only", bytes, sha256}``
(origin-digest §3.8; docs/claude-code-hooks.md).

The one definition of the rule, read by ``asz hook`` (:mod:`asz_adapters_claude.hook`, which writes ``arguments`` and
``result`` with it) and by the view (:mod:`asz_core.view.arguments_check`, which measures the transcript's call input
with it), so the two sides of an ``arguments_check`` are measured alike. Standard library only and importing nothing
of asz: the hook, run as ``python -S path/to/hook.py`` with no site-packages, loads this file by its path.
"""

from __future__ import annotations

import json
import re

try:  # the interpreter's own SHA-256 (the digest hashlib.sha256 gives), without hashlib loading OpenSSL's library and
    from _sha2 import sha256 as _sha256  # blake2 at each start of the hook (trial 33b F2: its largest import); 3.12+
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # 3.11
    except ImportError:  # an interpreter built without them
        from hashlib import sha256 as _sha256

__all__ = ["Number", "strict_loads", "strict_loads_twice", "key_path", "mark_twice", "twice_objects", "twice_entries", "TWICE_DROPPED", "TWICE_WHY",
           "TWICE_LISTED", "NOT_UTF8", "not_utf8_entries", "canonical_json", "encode_json", "content", "measure_value", "measure"]


class Number(str):
    """A JSON number kept as its literal text, so two integers above 2**53 never collapse into one."""

    __slots__ = ()


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def strict_loads(text: str):
    """Decode JSON text (a str) with numbers kept literal (:class:`Number`); NaN and Infinity are refused as Go's
    decoder refuses them. Raises ValueError (json.JSONDecodeError) for text that is not one JSON value, RecursionError
    for one nested too deep."""
    return json.loads(text, parse_int=Number, parse_float=Number, parse_constant=_no_constant)


#: How the ``what`` of a dropped entry for the earlier value of a key one object gives twice begins, followed by the
#: member's path from the top (:func:`key_path`): every JSON reader reads the last value, and so does asz (trial 27c
#: F9 for a transcript line, trial 30c F6 for a hook event). Defined here, beside the digest, so ``asz hook`` (standard
#: library only) names it in the words the dialects use (asz_core.sessiondata.vocabulary, keystwice import it).
TWICE_DROPPED = "key given twice "
#: Why such an earlier value is listed under ``dropped`` (seed 000, Dropped); the value itself is never in it.
TWICE_WHY = "the same object gives this key again later: the last value is read, as JSON readers read it, and this one is not"
#: At most this many entries name the keys given twice; one more entry counts the rest (a hostile line).
TWICE_LISTED = 10


def key_path(segments: list) -> str:
    """A member's path from the top of a JSON value: ``message.usage.input_tokens``, an element as ``content[2]``."""
    out = ""
    for s in segments:
        out += f"[{s}]" if isinstance(s, int) else (f".{s}" if out else s)
    return out


class _Twice(dict):
    """A decoded object that gave a key twice: ``twice`` the ``(key, value)`` of each earlier member not read."""

    __slots__ = ("twice",)


def mark_twice(pairs: list) -> dict:
    """``json.loads``' ``object_pairs_hook`` that marks an object giving a key twice (its last value read, as every
    JSON reader reads it): a dict subclass whose ``twice`` lists each earlier ``(key, value)``."""
    d = dict(pairs)
    if len(d) == len(pairs):
        return d
    t = _Twice(d)
    last = {k: i for i, (k, _) in enumerate(pairs)}
    t.twice = [(k, v) for i, (k, v) in enumerate(pairs) if last[k] != i]
    return t


def twice_objects(value) -> list:
    """``(segments, object)`` of each object :func:`mark_twice` marked in ``value``, walked from the top in the order
    of the text (only objects a reader reads: one inside an earlier value is not walked); ``segments`` its path's keys
    and indexes (:func:`key_path`)."""
    found: list = []
    stack: list = [([], value)]
    while stack:
        segs, v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v, _Twice):
                found.append((segs, v))
            stack.extend((segs + [k], c) for k, c in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((segs + [i], c) for i, c in reversed(list(enumerate(v))))
    return found


def strict_loads_twice(text: str):
    """``(value, twice)``: :func:`strict_loads` of ``text``, and ``(path, earlier value)`` of each member an object of
    it gives again later (the last is the one read), objects in the order of :func:`twice_objects`. Raises as
    :func:`strict_loads`."""
    value = json.loads(text, parse_int=Number, parse_float=Number, parse_constant=_no_constant,
                       object_pairs_hook=mark_twice)
    return value, [(key_path(segs + [k]), earlier) for segs, obj in twice_objects(value) for k, earlier in obj.twice]


def twice_entries(twice: list) -> list[dict]:
    """The ``dropped`` entries (``{what, bytes, why}``) of :func:`strict_loads_twice`'s ``twice``: ``what``
    :data:`TWICE_DROPPED` and the path, ``bytes`` the earlier value's size as canonical JSON (:func:`measure_value`),
    ``why`` :data:`TWICE_WHY`; at most :data:`TWICE_LISTED`, then one counting the rest."""
    def size(v) -> int:
        try:
            return measure_value(v)["bytes"]
        except (TypeError, ValueError, RecursionError):
            return 0

    out = [{"what": f"{TWICE_DROPPED}{path}", "bytes": size(v), "why": TWICE_WHY} for path, v in twice[:TWICE_LISTED]]
    rest = twice[TWICE_LISTED:]
    if rest:
        out.append({"what": f"{TWICE_DROPPED}{len(rest)} more", "bytes": sum(size(v) for _, v in rest), "why": TWICE_WHY})
    return out


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f",
            "\u2028": "\\u2028", "\u2029": "\\u2029"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\u2028\u2029\ud800-\udfff]')


def _escape_char(m: re.Match) -> str:
    c = m.group(0)
    if c in _ESCAPES:
        return _ESCAPES[c]
    if "\ud800" <= c <= "\udfff":  # a lone surrogate: Go's decoder has already made it U+FFFD
        return "\ufffd"
    return "\\u%04x" % ord(c)


def _string(s: str) -> str:
    """A JSON string as Go's encoder writes it without HTML escaping: ``<``, ``>``, ``&`` literal, U+2028/9 escaped."""
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, s) + '"'


def _encode(v, out: list, sort_keys: bool) -> None:
    if isinstance(v, str):
        out.append(v if isinstance(v, Number) else _string(v))
    elif isinstance(v, dict):
        out.append("{")
        items = sorted(v.items()) if sort_keys else v.items()
        first = True
        for k, x in items:
            if not first:
                out.append(",")
            first = False
            out.append(_string(k))
            out.append(":")
            _encode(x, out, sort_keys)
        out.append("}")
    elif isinstance(v, (list, tuple)):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _encode(x, out, sort_keys)
        out.append("]")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif v is None:
        out.append("null")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, float):
        out.append(repr(v) if v == v and v not in (float("inf"), float("-inf")) else _no_constant(repr(v)))
    else:
        raise TypeError(f"cannot encode {type(v).__name__} as JSON")


def encode_json(value, sort_keys: bool) -> bytes:
    """``value`` as compact JSON, UTF-8, strings escaped as :func:`canonical_json` escapes them; each object's keys
    sorted when ``sort_keys``, else in the dict's order (an execution record's own line). Raises as
    :func:`canonical_json` does."""
    out: list[str] = []
    _encode(value, out, sort_keys)
    return "".join(out).encode("utf-8")


def canonical_json(value) -> bytes:
    """``value`` as compact JSON with every object's keys sorted, UTF-8 (§3.8).

    Numbers decoded by :func:`strict_loads` keep their literal text; strings are
    escaped as Go's ``encoding/json`` does with HTML escaping off, so the bytes
    (and digests) equal the original plugin's. Raises TypeError for a value
    that is not JSON data and RecursionError for one nested too deep.
    """
    return encode_json(value, True)


#: Why a member's bytes that are not UTF-8 are listed under ``dropped`` (trial 33b F3).
NOT_UTF8 = ("bytes that are not UTF-8, each read as U+FFFD (3 bytes), as Go's JSON decoder reads them, before the "
            "member was measured: its size and digest are of the text so read, not of the bytes given")


def not_utf8_entries(raw: bytes) -> list:
    """``[{what, bytes, why}]`` (``dropped`` entries) of each top-level member of the JSON object ``raw`` (bytes
    that are not all UTF-8) whose text holds bytes that are not UTF-8 (trial 33b F3: ``{"query":"caf\\xe9-latin1"}``,
    23 bytes, was measured as the 25 of ``{"query":"caf\\ufffd-latin1"}`` with no word of it): ``what`` ``not UTF-8
    in <member>`` (``in a member's name`` when the name holds them), ``bytes`` how many such bytes, ``why``
    :data:`NOT_UTF8`. The bytes are read again with each such byte kept as a lone surrogate (``surrogateescape``) to
    find where they are; [] when that does not read as one JSON object."""
    try:
        event = strict_loads(raw.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return []
    if not isinstance(event, dict):
        return []

    def count(v) -> int:
        n, stack = 0, [v]
        while stack:
            x = stack.pop()
            if isinstance(x, str) and not isinstance(x, Number):
                n += sum(1 for c in x if "\udc80" <= c <= "\udcff")
            elif isinstance(x, dict):
                stack.extend(x.keys())
                stack.extend(x.values())
            elif isinstance(x, list):
                stack.extend(x)
        return n

    out = []
    for name, value in event.items():
        if n := count(value):
            out.append({"what": f"not UTF-8 in {name}", "bytes": n, "why": NOT_UTF8})
        if n := count(name):
            out.append({"what": "not UTF-8 in a member's name", "bytes": n, "why": NOT_UTF8})
    return out


def content(b: bytes) -> dict:
    """``{state: "size_only", bytes: len(b), sha256: hex digest of b}``."""
    return {"state": "size_only", "bytes": len(b), "sha256": _sha256(b).hexdigest()}


def measure_value(value) -> dict:
    """``{state: "size_only", bytes, sha256}`` of an already decoded JSON value, over :func:`canonical_json` (§3.8).
    Raises TypeError for a value that is not JSON data, ValueError for a float NaN or infinity, RecursionError for one
    nested too deep."""
    return content(canonical_json(value))


def measure(raw: bytes) -> dict:
    """``{state: "size_only", bytes, sha256}`` of one JSON text (§3.8).

    ``bytes`` and ``sha256`` cover the value re-encoded as canonical JSON
    (compact, sorted keys, numbers as written). Bytes that are not one JSON
    value (or are followed by more than white space) are measured as they are.
    Never raises.
    """
    try:
        return measure_value(strict_loads(raw.decode("utf-8", "replace")))
    except (ValueError, TypeError, RecursionError):
        return content(bytes(raw))
