"""What a reader narrows conversations and model calls by: the matching rule of ``--project`` and ``--model`` and the
one parser of ``--since``/``--until`` (``asz ls``, ``search``, ``export``, ``usage`` and the page's ``/api/usage`` and
``/api/search``).

A project or model filter is a part of the name, matched case-insensitively (:func:`contains`): ``deep`` matches
``/src/deep-manifest``, ``opus-4-7`` matches ``claude-opus-4-7``. The page's dropdowns pick a whole name, which
``exact`` matching (:func:`matches`) takes as the whole name, so ``/home/kim/projects/spotter`` does not take in
``/home/kim/projects/spotter-worktrees/spotter-fum`` there. Both compare the names' NFC spellings
(:mod:`asz_core.sessiondata.spelling`): macOS's decomposed ``Zoe\u0308`` and a keyboard's ``Zo\u00eb`` are one name
(trial 31c F2).
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
import time

from ..sessiondata.spelling import folded, project_key, windows_path
from ..sessiondata.times import parse_instant

__all__ = ["TimeError", "parse_time", "time_window", "whole_days", "contains", "matches", "dialect_matches", "runtime_keeps", "NO_PROJECT"]

#: The project filter's value for the conversations that name no project (''; a Kiro session whose cwd is relative,
#: asz_adapters_kiro's workspace_path): ``asz ls --project '(no project)'``, ``/api/conversations?project=(no project)``,
#: the page's Project choice, and ``asz usage project``'s row for them (trial 44b F4: the page could not pick them).
NO_PROJECT = "(no project)"


def contains(name: object, part: str) -> bool:
    """True when ``part`` is empty or a part of ``name`` (a project or model name; None or another non-string counts as
    ''), case-insensitively and in either Unicode spelling (:func:`~asz_core.sessiondata.spelling.folded`): the rule
    of ``asz ls --project/--model`` and ``asz usage --project/--model``. A Windows path (a drive, UNC or WSL
    ``/mnt/<d>`` path: :func:`~asz_core.sessiondata.spelling.windows_path`) also contains ``part`` when its Windows
    name does with each ``/`` of ``part`` read as ``\\``: ``C:/Users/Zoë`` and ``C:\\Users\\Zoë`` both match
    ``/mnt/c/Users/Zoë/my app`` and ``C:\\Users\\Zoë\\my app`` (trial 36c F2, F4)."""
    if not part:
        return True
    if part == NO_PROJECT:
        return not name
    if folded(part) in folded(name):
        return True
    win = windows_path(name)  # a Windows folder: / read as \\, and WSL's /mnt/c/… as C:\\… (trial 36c F2, F4)
    return win is not None and folded(part).replace("/", "\\") in folded(win)


def matches(name: object, asked: str, exact: bool = False) -> bool:
    """:func:`contains`, or with ``exact`` ``name == asked`` as one project (the page's dropdowns pick a whole name;
    :func:`~asz_core.sessiondata.spelling.project_key`: their NFC spellings, and for a Windows folder any letter case,
    separator or WSL mount; or ``name`` as the page lists it, a credential in it masked: review37); True when ``asked``
    is empty."""
    if not exact or not asked or asked == NO_PROJECT:
        return contains(name, asked)
    if project_key(name) == project_key(asked):
        return True
    # the page lists a project whose credential is masked (``/api/conversations``), and its dropdown sends that
    if "…" in asked and isinstance(name, str):
        from .secret_forms import shown_title

        return project_key(shown_title(name)) == project_key(asked)
    return False


def dialect_matches(dialect: object, asked: str) -> bool:
    """True when ``asked`` is empty or is ``dialect`` (a conversation's, e.g. ``kiro/1``; None counts as '') exactly or
    its name before ``/`` (``kiro``): the rule of ``asz ls --dialect`` and ``asz usage --dialect``."""
    d = str(dialect or "")
    return not asked or asked in (d, d.split("/", 1)[0])


def runtime_keeps(dialect: object, runtime: object, asked: str) -> bool:
    """The page's Runtime filter (``/api/conversations?runtime=``; review A 26: the page held its own copy in
    JavaScript): True when ``asked`` is empty; a value holding ``/`` (a dialect, ``claude-code/1``) keeps a row whose
    ``dialect`` is it, whole, in any case (trial 24: ``claude-code/2`` keeps no ``claude-code/1`` row); any other keeps
    a row whose ``runtime`` (``{"name", "version"}``, a list row's) name, or name and version as the runtime chip
    shows them (``claude-code 2.1.3``), starts with it, in any case (session 25: ``claude``, ``kir``). A row with no
    runtime name (no transcript landed, or still counted) is kept by no such value. Broader than
    :func:`dialect_matches` (``asz ls --dialect``, whose value is a dialect or name an adapter speaks), which keeps a
    subset of what it keeps."""
    if not asked:
        return True
    v = asked.lower()
    if v.find("/") > 0:
        return isinstance(dialect, str) and dialect.lower() == v
    rt = runtime if isinstance(runtime, dict) else {}
    name = rt.get("name") if isinstance(rt.get("name"), str) else ""
    if not name:
        return False
    version = rt.get("version") if isinstance(rt.get("version"), str) else ""
    return any(x.lower().startswith(v) for x in (name, *([f"{name} {version}"] if version else [])))


_RELATIVE = re.compile(r"([0-9]+)\s*([mhdw])")
#: The first millisecond a ``--since``/``--until`` may name: 0001-01-01T00:00:00Z, the earliest day Python's dates hold.
EARLIEST_MS = -62_135_596_800_000
_UNIT_S = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
#: The words ``--since``/``--until`` read as a calendar day: how many days before today.
DAY_WORDS = {"today": 0, "yesterday": 1}


class TimeError(ValueError):
    """A ``--since`` / ``--until`` value that is not a date, an instant or a relative time."""


def not_a_time(text: str, why: str = "") -> str:
    """What :func:`parse_time` says of ``text`` it cannot read, every accepted form listed whatever the mistake (trial
    33a F7: ``2026-13-01`` was told ``not a date (YYYY-MM-DD)`` alone): ``'2026-13-01' is not a date (YYYY-MM-DD), an
    instant …`` with ``why`` (``no such day``) in parentheses after the value when given."""
    said = f" ({why})" if why else ""
    return (f"{text!r}{said} is not a date (YYYY-MM-DD), a month (YYYY-MM), an instant (RFC 3339), a time back from now (30m, 12h, 7d, "
            "2w), today or yesterday")


def parse_time(text: str, *, end: bool = False, now_ms: int | None = None, zone: _dt.tzinfo | None = None) -> int:
    """A ``--since`` / ``--until`` value as unix ms: the one parser of ``asz conversations``, ``search``, ``export``
    and ``usage``.

    Accepted: ``YYYY-MM-DD`` or ``YYYYMMDD`` (a day in ``zone``, by default the
    reader's local time zone: its start, or with ``end`` its last
    millisecond), ``YYYY-MM`` (a whole month in ``zone``: its first day's start,
    or with ``end`` its last day's last millisecond; trial 36b F7), an RFC 3339 instant (``2026-11-21T10:00:00Z``), a
    ``YYYY-MM-DDTHH:MM[:SS]`` in ``zone``, a time back from now: ``30m``,
    ``12h``, ``7d``, ``2w``, and ``today`` or ``yesterday``: that calendar day in
    ``zone``, as its date would be (trial 22a, F21: ``1d`` is the last 24 hours,
    not yesterday). Raises :class:`TimeError`.
    """
    s = text.strip()
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if s.lower() in DAY_WORDS:  # a calendar day in the zone: read as its date
        today = _dt.datetime.fromtimestamp(now / 1000, tz=zone or _dt.datetime.now().astimezone().tzinfo).date()
        s = (today - _dt.timedelta(days=DAY_WORDS[s.lower()])).isoformat()
    month = re.fullmatch(r"([0-9]{4})-([0-9]{2})", s)
    if month:  # a whole month: its first day, or (end) its last
        y, mo = int(month.group(1)), int(month.group(2))
        if not 1 <= mo <= 12 or y < 1:
            raise TimeError(not_a_time(text, "no such month"))
        s = f"{y:04d}-{mo:02d}-{calendar.monthrange(y, mo)[1] if end else 1:02d}"  # 9999-12 too (trial 44a F1)
    m = _RELATIVE.fullmatch(s)
    if m:
        back = now - int(m.group(1)) * _UNIT_S[m.group(2)] * 1000
        if back < EARLIEST_MS:  # trial 44a F8: 9999999999d was told it is not of the form
            raise TimeError(f"{text!r} reaches too far back: before 0001-01-01, the earliest day asz reads (give a "
                            "date, or a shorter time back)")
        return back
    if re.fullmatch(r"[0-9]{4}-?[0-9]{2}-?[0-9]{2}", s) and (len(s) == 8 or s.count("-") == 2):
        try:
            day = _in_zone(_dt.datetime.strptime(s, "%Y-%m-%d" if "-" in s else "%Y%m%d"), zone)  # midnight
        except ValueError:
            raise TimeError(not_a_time(text, "no such day")) from None
        return _day_end(day, zone) if end else int(day.timestamp() * 1000)
    ns = parse_instant(s)
    if ns is not None:
        return ns // 1_000_000
    try:
        local = _dt.datetime.fromisoformat(s)
    except ValueError:
        raise TimeError(not_a_time(text)) from None
    if local.tzinfo is None:
        local = _one_instant(text, local, zone)
    return int(local.timestamp() * 1000)


def _day_end(midnight: _dt.datetime, zone: _dt.tzinfo | None) -> int:
    """The last unix ms of the day ``midnight`` (aware, in ``zone``) starts: the next day's start less 1 ms; for
    9999-12-31, which has no next day in Python's dates, its start and 24 hours less 1 ms (no zone moves its clocks
    on a 31 December; trial 44a F1: a traceback)."""
    try:
        nxt = _in_zone((midnight + _dt.timedelta(days=1)).replace(tzinfo=None), zone)
    except (OverflowError, ValueError):
        return int(midnight.timestamp() * 1000) + 86_400_000 - 1
    return int(nxt.timestamp() * 1000) - 1


def time_window(since: str, until: str, zone: _dt.tzinfo | None = None, *, flag: str = "--") -> tuple[int | None, int | None]:
    """``(since, until)`` in unix ms (None where not given, '' or None) as :func:`parse_time` reads them, ``until``
    to its last millisecond: the one date range of every command (``asz ls``, ``search``, ``export``, ``usage``,
    ``senders``: ``flag`` ``--``) and of the page's ``/api/`` routes (``flag`` ``''``: ``since=``). Raises
    :class:`TimeError` whose words name the options (``--since/--until: '2026-13-01' (no such month) is not …``) for a
    time that does not read, and for a ``since`` after the ``until`` (nothing could match: an empty answer that
    looks like a real one)."""
    def read(text: str, end: bool) -> int | None:
        if not text:
            return None
        try:
            return parse_time(text, end=end, zone=zone)
        except TimeError as exc:
            raise TimeError(f"{flag}since/{flag}until: {exc}") from None
        except (OverflowError, ValueError):  # a day Python cannot hold in this zone: refused, never a traceback
            raise TimeError(f"{flag}since/{flag}until: {text!r} is outside the dates asz reads (0001-01-01 to "
                            "9999-12-31 in the zone)") from None

    first, last = read(since, False), read(until, True)
    if first is not None and last is not None and first > last:
        raise TimeError(f"{flag}since {since} is after {flag}until {until}: nothing can match (swap them?)")
    return first, last


def whole_days(text: str, zone: _dt.tzinfo | None = None, *, now_ms: int | None = None) -> str:
    """``text`` (a ``--since``/``--until`` value) as a report whose rows are whole days reads it (``asz usage daily``,
    ``weekly``, ``monthly``; trial 50a F2: ``--since 7d`` at 22:50 started the first row at 22:50 of its day and printed
    that part as the whole day, unmarked): a time back from now (``7d``, ``2w``, ``12h``) as the date it falls on in
    ``zone`` (``YYYY-MM-DD``, which :func:`parse_time` reads as that day's start, or with ``end`` its last millisecond),
    as ccusage takes dates; every other value as it is (an instant stays exact, and one that does not read is said by
    :func:`parse_time`)."""
    s = (text or "").strip()
    if not _RELATIVE.fullmatch(s):
        return text
    try:
        back = parse_time(s, now_ms=now_ms, zone=zone)  # the instant it reads as, by the one parser
    except TimeError:
        return text  # parse_time says it reaches too far back
    try:
        at = _dt.datetime.fromtimestamp(back / 1000, tz=zone) if zone is not None else _dt.datetime.fromtimestamp(back / 1000)
        return at.date().isoformat()  # this machine's zone on that day, its offset then
    except (OverflowError, ValueError, OSError):
        return text


def _one_instant(text: str, naive: _dt.datetime, zone: _dt.tzinfo | None) -> _dt.datetime:
    """The wall-clock time ``naive`` in ``zone`` (None: this machine's) as the one instant it names. Raises
    :class:`TimeError` when it names two (the hour a clock set back repeats) or none (the hour it skipped), naming
    them and the offset to give (trial 30a F2: ``--since 2026-10-25T02:50`` in Europe/Berlin was the first silently)."""
    first, second = _in_zone(naive.replace(fold=0), zone), _in_zone(naive.replace(fold=1), zone)
    if first.utcoffset() == second.utcoffset():
        return first
    where = f"in {getattr(zone, 'key', None) or zone or 'this machine' + chr(39) + 's zone'}"

    def wall(d: _dt.datetime) -> _dt.datetime:  # the wall-clock time the instant d shows in the zone
        return _dt.datetime.fromtimestamp(d.timestamp()) if zone is None else d.astimezone(_dt.timezone.utc).astimezone(zone).replace(tzinfo=None)

    def instant(d: _dt.datetime) -> _dt.datetime:  # d as the zone writes that instant (a skipped time moves)
        return d.astimezone(_dt.timezone.utc).astimezone(zone if zone is not None else None)

    both = " or ".join(d.isoformat(timespec="seconds") for d in sorted(map(instant, (first, second))))
    if wall(first) == naive == wall(second):
        raise TimeError(f"{text!r} is {naive:%H:%M} twice {where} (the clocks were set back): give the offset, {both}")
    raise TimeError(f"{text!r} does not exist {where} (the clocks skipped that hour): give the offset ({both}) or "
                    "a time outside the hour")


def _in_zone(naive: _dt.datetime, zone: _dt.tzinfo | None) -> _dt.datetime:
    """A wall-clock time in ``zone`` (None: this machine's local zone)."""
    return naive.astimezone() if zone is None else naive.replace(tzinfo=zone)
