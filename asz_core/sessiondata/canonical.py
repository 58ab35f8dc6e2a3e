"""Whether a JSON text is orjson's own encoding of its value, told from its bytes (issue 22).

:func:`canonical_json` asks the optional compiled :mod:`asz_core.sessiondata.jsoncheck` (setup.py; the rules are in
jsoncheck.c's head). Without it, or with a stale build (:func:`asz_core.sessiondata.compiled.load_compiled`), the
answer is always None, "not told": the caller then encodes the value again (``orjson.dumps``), as it did before.
"""

from __future__ import annotations

from .compiled import load_compiled

__all__ = ["canonical_json", "jsoncheck"]

jsoncheck = load_compiled("asz_core.sessiondata.jsoncheck")


def canonical_json(data: bytes, begin: int, end: int) -> bool | None:
    """True when ``data[begin:end]`` (``bytes``; a text ``orjson.loads`` decoded without error) is byte for byte
    ``orjson.dumps`` of its value and that value nests at most 253 objects and lists deep (the outermost counts 1, as
    :func:`asz_core.nesting_depth` counts); None when that is not told from the bytes alone (a float, an integer of
    more than 18 digits, an escape orjson does not write, whitespace, a key twice in one object, deeper nesting, or no
    compiled module). Never False. Raises TypeError when ``data`` is not ``bytes``."""
    if jsoncheck is None:
        if not isinstance(data, bytes):
            raise TypeError("canonical(data: bytes, begin: int, end: int)")
        return None
    return jsoncheck.canonical(data, begin, end)
