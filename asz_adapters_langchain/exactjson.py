"""JSON decoded with every number's exact source text kept: what the LangSmith clients send, staged and landed.

orjson (as every double-based decoder) rounds a number with more significant digits than a double holds
(``1.00000000000000000001`` becomes ``1.0``) and refuses an integer outside [-2**63, 2**64) and an exponent past a
double's range. A LangChain app can send such numbers (a model's logprobs, an id held as a number, a counter of
an app written in another language), and the evidence must keep what it sent. :func:`loads` decodes such a number
as an :class:`orjson.Fragment` of its source text, which :func:`orjson.dumps` (staging, materialising) and the
Session Data encoder write back byte for byte; every other number decodes as orjson decodes it. A text with no
candidate (no run of 17 or more digits and dots, no three-digit exponent: the cheap probe) is decoded by orjson
alone. Raises ValueError (orjson.JSONDecodeError is one) on what is not JSON, a lone surrogate escape included
(orjson refuses it, and nothing downstream writes one).
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

import orjson

from asz_core import loads_source

__all__ = ["PastDouble", "decode_line", "loads", "may_hold_inexact_number"]

_INT_LO, _INT_HI = -(1 << 63), 1 << 64
#: A number token no double or 64-bit integer may hold: 17 or more digits (and dots), or a three-digit exponent.
_CANDIDATE = re.compile(rb"[0-9][0-9.]{16}|[0-9][eE][-+]?[0-9]{3}")


def may_hold_inexact_number(data: bytes) -> bool:
    """True when ``data`` may hold a number orjson would not keep exactly (false positives cost only speed)."""
    return _CANDIDATE.search(data) is not None


def _int(text: str) -> Any:
    try:
        value = int(text)
    except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
        return orjson.Fragment(text)
    return value if _INT_LO <= value < _INT_HI else orjson.Fragment(text)


class PastDouble(ValueError):
    """A number past a double's range (``1e400``), refused by :func:`loads` with ``finite=True``: a Session Data
    reader refuses such a number in a landed line (docs/session-data.md), so a dialect keeps its line verbatim."""


def _float(text: str, finite: bool) -> Any:
    value = float(text)
    if not math.isfinite(value):
        if finite:
            raise PastDouble(f"number {text[:40]} is past a double's range")
        return orjson.Fragment(text)
    if Decimal(repr(value)) == Decimal(text):
        return value
    return orjson.Fragment(text)  # rounded or underflowed: keep the source's digits


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: bytes, *, finite: bool = False) -> Any:
    """Decode ``data`` (JSON, UTF-8) as orjson does, but a number orjson would round or refuse is an
    :class:`orjson.Fragment` of its source text (module docstring). Raises ValueError on what is not JSON, and
    with ``finite`` :class:`PastDouble` on a number past a double's range (what a landed line may not hold)."""
    if not may_hold_inexact_number(data):
        return orjson.loads(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 at byte {exc.start}") from None
    try:
        value = json.loads(text, parse_int=_int, parse_float=lambda s: _float(s, finite), parse_constant=_constant)
    except RecursionError:
        raise ValueError("nested too deep") from None
    try:
        orjson.dumps(value)  # a lone surrogate escape, which orjson refuses, is refused here as well
    except orjson.JSONEncodeError as exc:
        raise ValueError(str(exc)) from None
    return value


def decode_line(line: bytes) -> tuple[Any, str]:
    """``(value, "")`` or ``(None, why the line lands verbatim as an unknown part)``. A number no double or 64-bit
    integer holds is an orjson.Fragment of its source text (the Session Data encoder writes it back verbatim); one
    past a double's range keeps the whole line verbatim (a Session Data reader refuses it in a landed line)."""
    if may_hold_inexact_number(line):
        try:
            return loads(line, finite=True), ""
        except PastDouble as exc:
            return None, f"the record holds a {exc}, which a Session Data reader refuses: the line is kept verbatim"
        except ValueError:
            pass  # e.g. a lone surrogate escape: loads_source decides
    try:
        return loads_source(line), ""  # a lone surrogate escape stays a code point until settle_surrogates
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None, "the record is not valid JSON"
