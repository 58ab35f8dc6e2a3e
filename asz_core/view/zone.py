"""The reader's time zone: what ``--tz`` names for every command that prints a local time or counts by day
(``asz conversations``, ``search``, ``export``, ``usage``), so none of them needs ``TZ=`` in the environment.

:func:`zone_of` reads a name (an IANA name as zoneinfo spells it, ``Europe/Paris``; ``UTC`` in any case, ``utc``,
``Utc``); :func:`use_zone` makes it the zone :func:`local_text` writes times in for the rest of the command. With
no ``--tz`` nothing is set and times are this machine's local time, as they always were.
"""

from __future__ import annotations

import datetime as dt
import time
from zoneinfo import ZoneInfo, available_timezones

__all__ = ["zone_of", "windows_zone", "use_zone", "reader_zone", "local_text", "repeated_offset", "zone_name"]

#: The zone ``--tz`` named for this command (None: this machine's local time).
_zone: dt.tzinfo | None = None


def zone_of(name: str | None) -> dt.tzinfo:
    """The zone ``name`` (an IANA name such as ``Europe/Paris``, ``UTC`` in any case, or a Windows zone name such as
    ``W. Europe Standard Time``, read as its IANA zone: :func:`windows_zone`); None is the machine's own.
    Raises ValueError (also for '' or a name of blanks: ``--tz ''`` is a mistake, not a wish for the default), with
    the name zoneinfo spells when only the case differs (``europe/paris``: did you mean Europe/Paris?)."""
    if name is None:
        return dt.datetime.now().astimezone().tzinfo or dt.timezone.utc
    wrong = f"{name!r} is not a time zone name such as UTC or Europe/Paris"
    if not name.strip():
        raise ValueError(wrong)
    if name.upper() == "UTC":  # what ccusage's --timezone takes too (Intl reads zone names in any case)
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):
        pass
    if (iana := windows_zone(name)) is not None:  # what tzutil /g and Get-TimeZone give (trial 36c F8)
        return ZoneInfo(iana)
    near = sorted(z for z in available_timezones() if z.lower() == name.lower())
    raise ValueError(wrong + (f" (did you mean {near[0]}?)" if near else "")) from None


def windows_zone(name: str) -> str | None:
    """The IANA name of Windows time zone ``name`` (``W. Europe Standard Time`` gives ``Europe/Berlin``; any case), as
    CLDR's windowsZones maps it for the zone's own territory (``001``), through tzlocal's table
    (``tzlocal.windows_tz.win_tz``); None for a name it does not hold."""
    try:
        from tzlocal.windows_tz import win_tz
    except ImportError:  # an install made before tzlocal was a dependency: IANA names only
        return None
    folded = {k.lower(): v for k, v in win_tz.items()}
    return folded.get(" ".join(name.split()).lower())


def use_zone(zone: dt.tzinfo | None) -> None:
    """Make ``zone`` the zone :func:`local_text` writes in (None: this machine's local time)."""
    global _zone
    _zone = zone


def reader_zone() -> dt.tzinfo | None:
    """The zone ``--tz`` named (:func:`use_zone`), None when none was named."""
    return _zone


def local_text(ms: int, fmt: str) -> str:
    """Unix ms ``ms`` as ``fmt`` (strftime) in the reader's zone: ``--tz``'s, else this machine's local time; followed
    by its UTC offset (``02:20:00+02:00``) when the zone shows that wall-clock time twice, in the hour a clock set
    back repeats (:func:`repeated_offset`; trial 30a F2: 02:20 CEST and 02:20 CET read the same, so commands read out
    of order across the night the clocks changed)."""
    if _zone is None:
        text = time.strftime(fmt, time.localtime(ms // 1000))
    else:
        text = dt.datetime.fromtimestamp(ms // 1000, tz=_zone).strftime(fmt)
    return text + repeated_offset(ms)


def _offset_s(s: int) -> int:
    """The reader's zone's UTC offset in seconds at unix second ``s``."""
    if _zone is None:
        return time.localtime(s).tm_gmtoff
    off = dt.datetime.fromtimestamp(s, tz=_zone).utcoffset()
    return int(off.total_seconds()) if off is not None else 0


#: How far a clock is set back at once, in seconds: an hour almost everywhere, half an hour (Lord Howe), two (Troll).
_SET_BACK = (3600, 1800, 7200)


def repeated_offset(ms: int) -> str:
    """``''``, or ``+HH:MM`` (the offset at unix ms ``ms``) when the reader's zone shows the wall-clock time of ``ms``
    at another instant too: the instant ``ms + d`` with ``offset(ms + d) == offset(ms) - d`` for a set-back ``d`` of
    :data:`_SET_BACK`, before or after it. Three offsets are read when no change is within two hours (the usual
    case), at most nine otherwise."""
    s = ms // 1000
    off = _offset_s(s)
    if _offset_s(s - 7200) == off == _offset_s(s + 7200):
        return ""
    if not any(_offset_s(s + d) == off - d for back in _SET_BACK for d in (back, -back)):
        return ""
    sign, whole = ("-", -off) if off < 0 else ("+", off)
    return f"{sign}{whole // 3600:02d}:{whole % 3600 // 60:02d}"


_UTC_NAMES = {"Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "UCT", "Universal", "Zulu", "Etc/GMT", "GMT"}


def zone_name() -> str:
    """The name of the zone :func:`local_text` writes in, for a reader to see once beside the times: ``--tz``'s name
    (``Europe/Paris``, ``UTC``); else this machine's zone by its IANA name (``TZ=`` or ``/etc/localtime``'s link),
    else its offset now (``UTC+01:00``); ``Etc/UTC`` and its aliases are ``UTC``."""
    name = _name()
    return "UTC" if name in _UTC_NAMES else name


def _name() -> str:
    import os

    if isinstance(_zone, ZoneInfo):
        return _zone.key
    if _zone is not None:
        return str(_zone)
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz:
        try:
            return ZoneInfo(tz).key
        except (KeyError, ValueError, OSError):
            pass
    else:
        try:
            link = os.readlink("/etc/localtime")
        except OSError:
            link = ""
        if "zoneinfo/" in link:
            return link.split("zoneinfo/", 1)[1]
    offset = dt.datetime.now().astimezone().strftime("%z")
    return "UTC" if offset in ("+0000", "") else f"UTC{offset[:3]}:{offset[3:]}"
