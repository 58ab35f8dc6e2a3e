"""RFC 3339 times as instants (seed 000, "Reading a record").

Times compare as the instants they name, never as text: ``…:00.11Z`` is after
``…:00.1Z`` and ``20:00:00+08:00`` is before ``12:00:01Z``. A value that is not
such a time means the record has no time.
"""

from __future__ import annotations

import calendar
import functools
import re
from datetime import datetime, timezone

__all__ = ["parse_instant", "instant_ms", "format_stamp", "format_rfc3339"]

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def parse_instant(value: object) -> int | None:
    """See :func:`_parse_instant`; results are cached by string (records repeat few times)."""
    if not isinstance(value, str):
        return None
    return _parse_cached(value)


@functools.lru_cache(maxsize=65536)
def _parse_cached(value: str) -> int | None:
    return _parse_instant(value)


def _parse_instant(value: object) -> int | None:
    """Return the instant ``value`` names, in integer nanoseconds since the Unix epoch (UTC).

    ``value`` must be an RFC 3339 string: a four-digit year, ``T``, the time to
    the second with up to nine fraction digits, then ``Z`` or ``±hh:mm``.
    Anything else (wrong shape, impossible date, non-string) gives ``None``.
    """
    if not isinstance(value, str):
        return None
    m = _RFC3339.match(value)
    if not m:
        return None
    y, mo, d, hh, mi, ss = (int(m.group(i)) for i in range(1, 7))
    frac = m.group(7) or ""
    if not (1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1] and hh <= 23 and mi <= 59 and ss <= 60):
        return None
    if m.group(9):
        oh, om = int(m.group(10)), int(m.group(11))
        if oh > 23 or om > 59:
            return None
        offset = (oh * 60 + om) * 60 * (1 if m.group(9) == "+" else -1)
    else:
        offset = 0
    secs = calendar.timegm((y, mo, d, hh, mi, ss, 0, 0, 0)) - offset
    nanos = int(frac.ljust(9, "0")) if frac else 0
    return secs * 1_000_000_000 + nanos


def instant_ms(value: object) -> int | None:
    """The instant of an RFC 3339 string in unix milliseconds, rounded down; None if not a time."""
    ns = parse_instant(value)
    return None if ns is None else ns // 1_000_000


def format_stamp(ns: int) -> str:
    """A file-name stamp for a pass start: ``20260831T091204.481523000Z`` (UTC, nanoseconds, no ``:``)."""
    secs, frac = divmod(ns, 1_000_000_000)
    dt = datetime.fromtimestamp(secs, tz=timezone.utc)
    return dt.strftime("%Y%m%dT%H%M%S") + f".{frac:09d}Z"


def format_rfc3339(ns: int) -> str:
    """An RFC 3339 UTC time with nanoseconds, trailing zeros trimmed: ``2026-09-01T12:56:03.1818Z``."""
    secs, frac = divmod(ns, 1_000_000_000)
    dt = datetime.fromtimestamp(secs, tz=timezone.utc)
    base = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        base += "." + f"{frac:09d}".rstrip("0")
    return base + "Z"
