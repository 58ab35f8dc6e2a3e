"""The types of an sd/1 record line's fields, checked (seed 000, "Reading a record"; origin-digest §3).

Split from :mod:`asz_core.sessiondata.codec` (encoding and decoding sd/1 lines), which re-exports every public name
here. :func:`check_record_dict` checks a decoded record object in place: every listed field has its one type,
integers fit 64 bits with their sign, ``ord`` and ``off`` are never negative, ``null`` is removed, unknown keys are
ignored; each refusal is a :class:`FieldError` naming the field (``parts[0].bytes``). :func:`record_line_clear`
answers in one msgspec pass in C whether a line passes that check unchanged.
"""

from __future__ import annotations

from typing import Annotated, Any, NoReturn

try:  # a dependency (pyproject); a checkout whose environment predates it still reads, with the full check only
    import msgspec
except ImportError:  # pragma: no cover
    msgspec = None  # type: ignore[assignment]

__all__ = ["FieldError", "MAX_DEPTH", "INT64_MIN", "INT64_MAX", "check_record_dict", "record_line_clear"]

#: Deepest nesting of objects and arrays a line may hold (seed 000, Reading a record).
MAX_DEPTH = 256
#: The bounds of a Session Data integer: 64 bits with its sign.
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


class FieldError(ValueError):
    """A line that does not decode as what it should be; ``field`` names the offending key ('' for the line)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


_RECORD_STR = ("sha", "id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from", "time", "trigger", "model", "cwd", "git_branch", "runtime_version", "request")
_PART_STR = ("k", "text", "id", "of", "name", "server", "server_tool", "media", "encoding", "state", "sha256")
_PART_TYPES = dict.fromkeys(_PART_STR, "str") | {"bytes": "int0", "failed": "bool"}
_DROPPED_TYPES = {"what": "str", "why": "str", "bytes": "int0"}
_USAGE_TYPES = dict.fromkeys(("in", "out", "cache_read", "cache_write", "cache_write_1h"), "int")  # cache_write_1h: asz's addition
_REC_TYPES = dict.fromkeys(_RECORD_STR, "str") | {"ord": "int0", "off": "int0", "bytes": "int0", "replaced": "int0", "flags": "flags",
                                                  "usage": "usage", "parts": "parts", "dropped": "dropped", "t": "t", "sidechain": "bool"}


def _check_fields(d: dict, types: dict[str, str], prefix: str = "") -> None:
    """Type-check the listed keys of ``d`` in place (null removed); other keys are ignored. Raises FieldError.

    Keys are checked in the object's order and the first bad one is refused;
    field names in messages carry ``prefix`` (``parts[0].``). Written for
    speed: every landed record goes through here.
    """
    nulls = None
    for key, v in d.items():
        kind = types.get(key)
        if kind is None:
            continue
        tv = type(v)
        if kind == "str":
            if tv is str:
                continue
        elif kind == "int0" or kind == "int":
            if tv is int and INT64_MIN <= v <= INT64_MAX and (v >= 0 or kind == "int"):
                continue
        elif kind == "parts" or kind == "dropped":
            if tv is list:
                item_types = _PART_TYPES if kind == "parts" else _DROPPED_TYPES
                for i, item in enumerate(v):
                    if type(item) is not dict:
                        raise FieldError(f"{prefix}{key}[{i}]", "expected an object")
                    try:
                        _check_fields(item, item_types)
                    except FieldError as exc:  # the item's field named from the record: parts[0].bytes
                        raise FieldError(f"{prefix}{key}[{i}].{exc.field}", exc.message) from None
                    if kind == "parts" and not item.get("k"):
                        raise FieldError(f"{prefix}{key}[{i}].k", "missing")
                continue
        elif kind == "flags":
            if tv is list and all(type(x) is str for x in v):
                continue
        elif kind == "usage":
            if tv is dict:
                _check_fields(v, _USAGE_TYPES, "usage.")
                continue
        elif kind == "bool":
            if tv is bool:
                continue
        if v is None:
            if nulls is None:
                nulls = []
            nulls.append(key)
            continue
        _refuse(prefix + key, kind, v)
    if nulls:
        for key in nulls:
            del d[key]


def _refuse(name: str, kind: str, v: Any) -> NoReturn:
    """Raise the FieldError for field ``name`` of check kind ``kind`` holding the bad value ``v``."""
    if kind == "str":
        raise FieldError(name, f"expected a string, got {type(v).__name__}")
    if kind in ("int0", "int"):
        if type(v) is not int:
            raise FieldError(name, f"expected an integer, got {type(v).__name__} {v!r:.40}")
        if v > INT64_MAX or v < INT64_MIN:
            raise FieldError(name, "integer does not fit in 64 bits")
        raise FieldError(name, f"must not be negative, got {v}")
    if kind == "bool":
        raise FieldError(name, "expected a boolean")
    if kind == "flags":
        raise FieldError(name, "expected a list of strings")
    if kind == "usage":
        raise FieldError(name, "expected an object")
    if kind in ("parts", "dropped"):
        raise FieldError(name, "expected a list of objects")
    raise FieldError("t", "a record has no 't' key")


def check_record_dict(d: dict) -> dict:
    """Check the types of a decoded record object in place (nulls removed). Raises FieldError.

    ``ord`` and ``off`` are required non-negative int64; every other listed
    field has its one type (seed 000, Reading a record); unlisted keys are ignored.
    """
    for key in ("ord", "off"):
        if d.get(key) is None:
            raise FieldError(key, "missing")
    _check_fields(d, _REC_TYPES)
    return d


def _schema(name: str, types: dict[str, str], required: tuple[str, ...] = ()) -> type:
    """A msgspec Struct checking exactly what :func:`_check_fields` checks with ``types`` (one check kind a key):
    every key optional but ``required``, none null (the full check would remove it), unknown keys ignored whatever
    they hold (``from``/``in`` are named through a rename)."""
    i64 = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]
    kinds: dict[str, Any] = {
        "str": str, "int": i64, "int0": Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)], "bool": bool, "flags": list[str],
        "usage": _schema("UsageCheck", _USAGE_TYPES) if "usage" in types else None,
        "parts": list[_schema("PartCheck", _PART_TYPES, ("k",))] if "parts" in types else None,  # type: ignore[misc]
        "dropped": list[_schema("DroppedCheck", _DROPPED_TYPES, ("what",))] if "dropped" in types else None,  # type: ignore[misc]
        "t": Annotated[str, msgspec.Meta(min_length=2, max_length=1)],  # no value passes: a record has no ``t``
    }
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for key, kind in types.items():
        tp = Annotated[str, msgspec.Meta(min_length=1)] if key == "k" else kinds[kind]
        fields.append((key + "_", tp) if key in required else (key + "_", tp, msgspec.UNSET))
    fields.sort(key=lambda f: len(f) == 3)  # required fields first
    return msgspec.defstruct(name, fields, rename=lambda f: f[:-1], forbid_unknown_fields=False)


#: One C pass over a record line checking what :func:`check_record_dict` and :func:`~asz_core.sessiondata.codec.check_record_structures` check.
_RECORD_CHECK = msgspec.json.Decoder(_schema("RecordCheck", {"ord": "int0", "off": "int0", **_REC_TYPES}, ("ord", "off"))) \
    if msgspec is not None else None


def record_line_clear(line: bytes) -> bool:
    """True when the record line ``line`` (no newline) passes :func:`check_record_dict` and
    :func:`~asz_core.sessiondata.codec.check_record_structures` unchanged: every listed field of the record, its parts, usage and dropped
    entries has its type, ``ord`` and ``off`` are present, a part has a ``k``, a dropped entry a ``what``, no
    ``t``, and none of those fields is ``null`` (so the full check would remove none).

    One msgspec pass in C, about a third of the Python check. False says only "check it the full way": for any
    line this refuses (a null field, a bad type, JSON msgspec reads otherwise), the caller runs the full check,
    which removes the nulls or raises the FieldError naming the field. It never clears a line the full check
    refuses or changes (tests/core/test_record_line_clear.py compares the two on every field and check kind).
    """
    if _RECORD_CHECK is None:
        return False
    try:
        _RECORD_CHECK.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return False
    return True
