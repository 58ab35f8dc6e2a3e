"""The one type of each field of a landed record, checked quickly for the common case (seed 000, Reading a record).

:func:`plain_record` answers True only for a decoded record line the codec's
:func:`~asz_core.sessiondata.codec.check_record_dict` accepts as it is, with
no call into the codec: ``asz verify --deep`` asks it of every record line
(:mod:`asz_core.verify.landed`) and gives the codec only what it refuses.
"""

from __future__ import annotations

__all__ = ["plain_record"]

_INT64_MAX = 2**63 - 1
_NO = object()
# The one type of each field a record and a part carry (seed 000, Reading a record); ``None`` never passes.
_RECORD_TYPES = dict.fromkeys(
    ("sha", "id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from", "time", "trigger", "model"), str
) | {"ord": int, "off": int, "bytes": int, "flags": list, "usage": dict, "parts": list, "dropped": list, "t": _NO, "sidechain": bool}
_PART_TYPES = dict.fromkeys(("k", "text", "id", "of", "name", "server", "server_tool", "media", "encoding", "state", "sha256"), str) | {
    "bytes": int, "failed": bool,
}
_USAGE_TYPES = dict.fromkeys(("in", "out", "cache_read", "cache_write", "cache_write_1h"), int)  # cache_write_1h: asz's addition
_DROPPED_TYPES = {"what": str, "why": str, "bytes": int}


def _fits(d: dict, types: dict, lowest: int) -> bool:
    """Every listed key of ``d`` has its type; integers (not bools) lie in ``lowest``..int64 max."""
    get = types.get
    for k, v in d.items():
        t = get(k)
        if t is not None:
            if type(v) is not t:
                return False
            if t is int and not lowest <= v <= _INT64_MAX:
                return False
    return True


def plain_record(d: dict) -> bool:
    """True only for a record :func:`check_record_dict` accepts as it is: the common case, checked quickly.

    Stricter than the codec (a ``null`` or anything unusual answers False and
    the codec then decides), never looser.
    """
    if not _fits(d, _RECORD_TYPES, 0) or "ord" not in d or "off" not in d:
        return False
    flags = d.get("flags")
    if flags is not None:
        for x in flags:
            if type(x) is not str:
                return False
    usage = d.get("usage")
    if usage is not None and not _fits(usage, _USAGE_TYPES, -_INT64_MAX - 1):
        return False
    for p in d.get("parts", ()):
        if type(p) is not dict or not _fits(p, _PART_TYPES, 0) or not p.get("k"):
            return False
    for e in d.get("dropped", ()):
        if type(e) is not dict or not _fits(e, _DROPPED_TYPES, 0):
            return False
    return True
