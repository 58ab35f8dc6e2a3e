"""RFC 3339 times as instants (seed 000, "Reading a record").

Times compare as the instants they name, never as text: ``…:00.11Z`` is after
``…:00.1Z`` and ``20:00:00+08:00`` is before ``12:00:01Z``. A value that is not
such a time means the record has no time.

Durations as Go writes them (``30s``, ``10m``, ``1h30m``, ``500ms``), the
unit of every interval in ``asz.yaml``: :func:`parse_duration`, :func:`format_duration`.
"""

from __future__ import annotations

import calendar
import functools
import re
from datetime import datetime, timezone

__all__ = ["IDLE_GAP_NS", "parse_instant", "instant_ms", "format_stamp", "parse_stamp", "format_rfc3339", "parse_duration", "format_duration"]

#: The idle gap that proposes a segment (assembly policy v1+idle=10m0s) and after which an unfinished last line is a
#: torn tail, in nanoseconds (10 minutes).
IDLE_GAP_NS = 10 * 60 * 1_000_000_000

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def parse_instant(value: object) -> int | None:
    """See :func:`_parse_instant`; results are cached by string (records repeat few times).

    The shape every landed record's time has (``YYYY-MM-DDTHH:MM:SS.fffZ``, 24 ASCII characters) is read from the
    instant of its minute (:func:`_minute_seconds`, cached: a session's records share few minutes) plus its seconds
    and milliseconds, the same integer :func:`_parse_instant` gives (issue 22: a third of the cost of the regex and
    the cache of one entry per distinct time); any other value goes the regex's way."""
    if not isinstance(value, str):
        return None
    if len(value) == 24 and value[23] == "Z" and value[19] == "." and value.isascii():
        secs, frac = value[17:19], value[20:23]
        if secs.isdigit() and frac.isdigit():  # ASCII, so 0-9 only
            base, s = _minute_seconds(value[:17]), int(secs)
            if base is None or s > 60:
                return None
            return (base + s) * 1_000_000_000 + int(frac) * 1_000_000
    return _parse_cached(value)


@functools.lru_cache(maxsize=4096)
def _minute_seconds(prefix: str) -> int | None:
    """Seconds since the Unix epoch of ``prefix + "00Z"`` (``prefix``: a time's first 17 characters, up to the
    minute and its colon), or None when that is not a time: then no time of that prefix is one either."""
    ns = _parse_instant(prefix + "00Z")
    return None if ns is None else ns // 1_000_000_000


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
    ys, mos, ds, hhs, mis, sss, frac, _z, sign, ohs, oms = m.groups()
    days = _civil_days(ys, mos, ds)
    hh, mi, ss = int(hhs), int(mis), int(sss)
    if days is None or not (hh <= 23 and mi <= 59 and ss <= 60):
        return None
    if sign:
        oh, om = int(ohs), int(oms)
        if oh > 23 or om > 59:
            return None
        offset = (oh * 60 + om) * 60 * (1 if sign == "+" else -1)
    else:
        offset = 0
    secs = days * 86_400 + hh * 3600 + mi * 60 + ss - offset
    nanos = int(frac.ljust(9, "0")) if frac else 0
    return secs * 1_000_000_000 + nanos


@functools.lru_cache(maxsize=4096)
def _civil_days(ys: str, mos: str, ds: str) -> int | None:
    """Days since 1970-01-01 of a date's digit strings; None for an impossible date (a session has few dates)."""
    y, mo, d = int(ys), int(mos), int(ds)
    if not (1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1]):
        return None
    return _days_from_civil(y, mo, d)


def instant_ms(value: object) -> int | None:
    """The instant of an RFC 3339 string in unix milliseconds, rounded down; None if not a time."""
    ns = parse_instant(value)
    return None if ns is None else ns // 1_000_000


def format_stamp(ns: int) -> str:
    """A file-name stamp for a pass start: ``20260831T091204.481523000Z`` (UTC, nanoseconds, no ``:``)."""
    secs, frac = divmod(ns, 1_000_000_000)
    dt = datetime.fromtimestamp(secs, tz=timezone.utc)
    return dt.strftime("%Y%m%dT%H%M%S") + f".{frac:09d}Z"


def parse_stamp(stamp: str) -> int:
    """The nanoseconds since the epoch (UTC) of a file-name stamp made by :func:`format_stamp`
    (``20260831T091204.481523000Z``); raises ValueError when it is not one."""
    whole, frac = stamp.rstrip("Z").split(".")
    secs = datetime.strptime(whole, "%Y%m%dT%H%M%S").replace(tzinfo=timezone.utc).timestamp()
    return int(secs) * 1_000_000_000 + int(frac)


def format_rfc3339(ns: int) -> str:
    """An RFC 3339 UTC time with nanoseconds, trailing zeros trimmed: ``2026-09-01T12:56:03.1818Z``.

    Any integer works: an instant whose UTC year is outside 0000-9999 (the
    years a four-digit field holds, reached by an offset such as
    ``0000-01-01T00:00:00+01:00``) is written with a sign and its year,
    ``-0001-12-31T23:00:00Z`` or ``+10000-01-01T00:59:59Z`` (ISO 8601's
    expanded form), since no four-digit form names it.
    """
    secs, frac = divmod(ns, 1_000_000_000)
    days, rem = divmod(secs, 86_400)
    y, mo, d = _civil_from_days(days)
    hh, rem = divmod(rem, 3600)
    mi, ss = divmod(rem, 60)
    year = f"{y:04d}" if 0 <= y <= 9999 else f"{y:+05d}"
    base = f"{year}-{mo:02d}-{d:02d}T{hh:02d}:{mi:02d}:{ss:02d}"
    if frac:
        base += "." + f"{frac:09d}".rstrip("0")
    return base + "Z"


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to the proleptic Gregorian date y-m-d, for any year (0000 included)."""
    y -= m <= 2
    era, yoe = divmod(y, 400)
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    """(year, month, day) of the proleptic Gregorian date ``z`` days after 1970-01-01, for any integer ``z``.

    H. Hinnant's ``civil_from_days`` (public domain algorithm): 400-year eras of 146097 days.
    """
    z += 719_468
    era, doe = divmod(z, 146_097)
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


# --------------------------------------------------------------------------- durations (Go style)

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DUR_RE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)")


_INT64_MAX = 2**63 - 1
#: The longest duration accepted, in seconds: Go's time.Duration (int64 nanoseconds), as the original reads it.
_DURATION_MAX_S = _INT64_MAX / 1e9


def parse_duration(text: str) -> float:
    """Parse a Go-style duration (``10m``, ``30s``, ``1h30m``, ``500ms``, ``0``) into seconds.

    Beyond Go's units, ``d`` is a day of 24 hours (``30d``, ``1d12h``): retention
    is naturally written in days, and ``720h`` stays accepted as the original writes it.

    Raises ValueError for anything else, a missing unit, a negative value or
    one longer than Go's ``time.Duration`` holds (about 292 years).
    """
    s = str(text).strip()
    if s == "0":
        return 0.0
    if not s:
        raise ValueError("empty duration")
    pos, total = 0, 0.0
    while pos < len(s):
        m = _DUR_RE.match(s, pos)
        if not m:
            raise ValueError(f"{text!r} is not a duration such as 30s, 10m, 1h30m or 30d")
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if total > _DURATION_MAX_S:
        raise ValueError(f"{text!r} is longer than a duration can be (about 292 years, Go's limit)")
    return total


def format_duration(seconds: float) -> str:
    """Seconds as a short Go-style duration: ``10m``, ``30s``, ``1h30m``, ``250ms``."""
    if seconds < 1 and seconds > 0:
        return f"{round(seconds * 1000)}ms"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    out = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{sec}s" if sec else "")
    return out or "0s"
