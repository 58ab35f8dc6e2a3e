"""Numbers read from environment variables (the servers' limits and timeouts): one reader, and one way to say a value
that is not taken (session 43; review42 after aa147b50: only ``ASZ_RECEIVE_MAX_BODY`` was said, ``10s`` for a timeout
left the default in silence).

A :class:`Setting` names its variable, its unit, its default and the range it takes; :meth:`Setting.value` is the
number in force (the default when the variable is unset, empty, not a number of that kind, or out of range), and
:meth:`Setting.unused` the line a command prints when a value was given and not taken. docs/configuration.md lists
every such setting ("Environment variables").
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

__all__ = ["Setting", "unused_lines"]


class Setting(NamedTuple):
    """One environment variable holding a number: ``name``; ``unit`` (``seconds`` or ``bytes``); ``default``; the
    range taken, ``low`` (taken only with ``low_taken``; else above it) to ``high`` inclusive; ``whole``: ASCII digits
    only (a count of bytes), else any decimal number; ``what``: what the value is, as its warning says it."""

    name: str
    unit: str
    default: float
    low: float
    high: float
    whole: bool = False
    low_taken: bool = False
    what: str = "the value"

    def _read(self, text: str) -> float | None:
        """``text`` as the number it takes, or None when it takes none (not a number of its kind, or out of range)."""
        t = text.strip()
        if self.whole:
            if not (t.isascii() and t.isdigit()) or len(t.lstrip("0")) > 19:
                return None
            v: float = int(t)
        else:
            try:
                v = float(t)
            except ValueError:
                return None
            if not math.isfinite(v):
                return None
        return v if (self.low <= v if self.low_taken else self.low < v) and v <= self.high else None

    def value(self) -> float:
        """The number in force: the variable's when it takes it, else :attr:`default`. Never raises."""
        got = self._read(os.environ.get(self.name, ""))
        return self.default if got is None else got

    def unused(self) -> str:
        """``NAME=VALUE is no number of seconds above 0 up to 3600: the timeout in force is 10 s`` when the variable
        holds a value not taken (``10s``, ``-1``, ``abc``); '' when unset, empty or taken. The value is shown as
        :func:`~asz_core.termsafe.line_value` writes it (no control reaches the terminal)."""
        from .termsafe import line_value

        text = os.environ.get(self.name)
        if text is None or not text.strip() or self._read(text) is not None:
            return ""
        kind = f"whole number of {self.unit}" if self.whole else f"number of {self.unit}"
        span = f"from {_num(self.low)} to" if self.low_taken else f"above {_num(self.low)} up to"
        return f"{self.name}={line_value(text)!s} is no {kind} {span} {_num(self.high)}: {self.what} in force is {self.said()}"

    def said(self) -> str:
        """The default as the warning says it: ``10 s``, ``1073741824 bytes (1 GiB)``."""
        if self.unit == "bytes":
            from .httpbody import size_words

            words = size_words(int(self.default), short=True)
            return f"{int(self.default)} bytes" + (f" ({words})" if not words.endswith("bytes") else "")
        return f"{_num(self.default)} s"


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def unused_lines(settings: tuple[Setting, ...], who: str) -> list[str]:
    """``WHO: warning: …`` for each of ``settings`` given a value it does not take (:meth:`Setting.unused`), in order."""
    return [f"{who}: warning: {said}" for s in settings if (said := s.unused())]
