"""Every JSON object inside a decoded JSON value (an asz.view document, a source line), for tests that pick nodes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def dicts_in(value: Any) -> Iterator[dict]:
    """Each dict in ``value`` (dicts and lists nested to any depth), an object before what it holds, in order."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from dicts_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from dicts_in(v)
