"""Every command that prints a local time or counts by day takes the same ``--tz`` (new-user trial: only ``asz usage``
had it, and ``asz ls``, ``search`` and ``export`` needed ``TZ=`` in the environment). The times are checked against
the source transcripts' own ``timestamp`` fields, written in the zone by the standard library."""

from __future__ import annotations

import datetime as dt
import inspect
import json
from zoneinfo import ZoneInfo

import pytest

from cli_helpers import asz_in_process

HELLO = "-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
MIDNIGHT = "-Users-alex-workspace-claude-code-log-sample/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"
COMMANDS = ("conversations", "ls", "search", "export", "usage")


def _stamps(path) -> list[dt.datetime]:
    """Every line's ``timestamp`` of a source transcript, as aware datetimes."""
    out = []
    for line in path.read_text().splitlines():
        t = json.loads(line).get("timestamp") if line.strip() else None
        if t:
            out.append(dt.datetime.fromisoformat(t.replace("Z", "+00:00")))
    return out


def _in(t: dt.datetime, zone: str, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return t.astimezone(ZoneInfo(zone)).strftime(fmt)


def test_every_reading_command_has_one_tz_option():
    from asz_core.cli import conversations_cmd, export_cmd, search_cmd, usage_cmd
    from asz_core.cli.reading_common import TZ_HELP

    for fn in (conversations_cmd.conversations, search_cmd.search, export_cmd.export):
        opt = inspect.signature(fn).parameters["tz"].default
        assert (opt.param_decls, opt.default, opt.help) == (("--tz",), None, TZ_HELP), fn.__name__
    opt = inspect.signature(usage_cmd.usage).parameters["tz"].default  # also ccusage's name (trial 38b F7)
    assert (opt.param_decls, opt.default) == (("--tz", "--timezone"), None)
    assert opt.help == TZ_HELP + " --timezone: the same (ccusage's name)."


@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize("zone", ["", " ", "Mars/Olympus"])
def test_a_name_that_is_no_zone_is_refused_alike(tmp_path, cmd, zone):
    args = (cmd, "hello") if cmd == "search" else (cmd, "abc") if cmd == "export" else (cmd,)
    p = asz_in_process(*args, "--tz", zone, "--root", str(tmp_path))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f"asz {cmd}: --tz: {zone!r} is not a time zone name such as UTC or Europe/Paris\n"


def test_a_zone_in_the_wrong_case_names_the_right_spelling(tmp_path):
    p = asz_in_process("ls", "--tz", "europe/paris", "--root", str(tmp_path))
    assert p.returncode == 2
    assert p.stderr.endswith("(did you mean Europe/Paris?)\n")


def test_ls_shows_last_activity_in_the_zone(corpus_root, corpus_source):
    last = max(_stamps(corpus_source / HELLO))
    for zone in ("Asia/Tokyo", "America/New_York", "utc", "Utc", "UTC"):
        p = asz_in_process("ls", "--tz", zone, "--root", str(corpus_root))
        assert p.returncode == 0, p.stderr
        row = next(line for line in p.stdout.splitlines() if line.startswith("de3b8b19"))
        assert _in(last, "UTC" if zone.upper() == "UTC" else zone) in row, (zone, row)


def test_since_and_until_take_a_day_of_the_zone(corpus_root, corpus_source):
    stamps = _stamps(corpus_source / MIDNIGHT)
    first, last = min(stamps), max(stamps)
    for zone in ("UTC", "utc", "America/New_York", "Asia/Tokyo"):
        z = ZoneInfo("UTC" if zone.upper() == "UTC" else zone)
        for day in {first.astimezone(z).date(), last.astimezone(z).date(), dt.date(2025, 6, 15)}:
            start = dt.datetime.combine(day, dt.time(), z)
            end = start + dt.timedelta(days=1)
            active = last >= start and first < end
            p = asz_in_process("ls", "--json", "--tz", zone, "--since", str(day), "--until", str(day), "--root", str(corpus_root))
            ids = {r["id"][:8] for r in json.loads(p.stdout)}
            assert p.returncode == (0 if ids else 1), p.stderr  # a window that keeps no conversation: said, exit 1
            assert ("fe869ecb" in ids) == active, (zone, day, ids)


def test_search_and_export_write_times_in_the_zone(corpus_root, corpus_source):
    lines = [json.loads(x) for x in (corpus_source / HELLO).read_text().splitlines() if x.strip()]
    prompt = next(x for x in lines if x.get("type") == "user" and isinstance(x["message"]["content"], str))
    at = dt.datetime.fromisoformat(prompt["timestamp"].replace("Z", "+00:00"))
    for zone in ("Asia/Tokyo", "America/New_York", "utc"):
        name = "UTC" if zone == "utc" else zone
        p = asz_in_process("search", "--tz", zone, "--kind", "prompt", "hello.sh", "--root", str(corpus_root))
        assert p.returncode == 0, p.stderr
        hit = next(line for line in p.stdout.splitlines() if line.startswith("de3b8b19"))
        assert hit.split()[1:3] == _in(at, name).split(), hit
        p = asz_in_process("export", "de3b8b19", "--tz", zone, "--root", str(corpus_root))
        assert p.returncode == 0, p.stderr
        assert f"**Person** · {_in(at, name, '%Y-%m-%d %H:%M:%S')} · `" in p.stdout


def test_usage_takes_utc_in_any_case(corpus_root):
    days = {}
    for zone in ("UTC", "utc", "Utc"):
        p = asz_in_process("usage", "--json", "--tz", zone, "--root", str(corpus_root))
        assert p.returncode == 0, p.stderr
        days[zone] = p.stdout
    assert days["utc"] == days["UTC"] == days["Utc"]


@pytest.mark.parametrize("zone,today", [("Europe/Berlin", "2026-12-04"), ("America/New_York", "2026-12-03"),
                                        ("UTC", "2026-12-03")])
def test_today_and_yesterday_are_calendar_days_in_the_zone(zone, today):
    """Trial 22a, F21: ``--since yesterday`` is yesterday's calendar day in ``--tz`` (``1d`` is the last 24 hours), read
    as its date is, by the one parser every command's ``--since``/``--until`` goes through. At 2026-12-03T23:30Z it is
    already 2026-12-04 in Berlin, still 2026-12-03 in New York and in UTC."""
    from asz_core.view.match import parse_time

    now = int(dt.datetime(2026, 12, 3, 23, 30, tzinfo=dt.timezone.utc).timestamp() * 1000)
    z = ZoneInfo(zone)
    day = dt.date.fromisoformat(today)
    for word, d in (("today", day), ("yesterday", day - dt.timedelta(days=1)), ("Yesterday", day - dt.timedelta(days=1))):
        start = dt.datetime.combine(d, dt.time(), tzinfo=z)
        end = dt.datetime.combine(d + dt.timedelta(days=1), dt.time(), tzinfo=z)
        assert parse_time(word, now_ms=now, zone=z) == int(start.timestamp() * 1000)
        assert parse_time(word, end=True, now_ms=now, zone=z) == int(end.timestamp() * 1000) - 1
        assert parse_time(word, now_ms=now, zone=z) == parse_time(d.isoformat(), now_ms=now, zone=z)


@pytest.mark.parametrize("cmd", ["ls", "usage", "search", "export"])
def test_every_command_reads_yesterday(corpus_copy, cmd):
    """Each command's ``--since yesterday --until yesterday`` is read (the corpus is of 2025: nothing that recent, said
    as a filter matching nothing, exit 1, never a usage error); a word it does not know is a usage error naming them."""
    root = corpus_copy()
    query = ("search", "the") if cmd == "search" else (cmd,)
    p = asz_in_process(*query, "--since", "yesterday", "--until", "yesterday", "--tz", "Europe/Berlin", "--root", str(root))
    assert p.returncode != 2, p.stderr
    bad = asz_in_process(*query, "--since", "yesterdays", "--root", str(root))
    assert bad.returncode == 2 and "today or yesterday" in bad.stderr


def test_a_windows_zone_name_is_read_as_its_iana_zone(corpus_root):
    """Trial 36c F8: ``tzutil /g`` and ``Get-TimeZone`` give a Windows user ``W. Europe Standard Time``; ``--tz`` reads
    it (in any case) as CLDR's windowsZones maps it, Europe/Berlin, so every figure and time is the same as with the
    IANA name, the zone named Europe/Berlin; a name neither list holds is still refused."""
    out = {}
    for zone in ("Europe/Berlin", "W. Europe Standard Time", "w. europe standard time"):
        p = asz_in_process("usage", "daily", "--json", "--tz", zone, "--root", str(corpus_root))
        assert p.returncode == 0, p.stderr
        out[zone] = p.stdout
    assert out["W. Europe Standard Time"] == out["Europe/Berlin"] == out["w. europe standard time"]
    assert len(json.loads(out["Europe/Berlin"])) > 1
    p = asz_in_process("usage", "daily", "--tz", "Pacific Standard Time", "--root", str(corpus_root))
    assert p.returncode == 0 and "America/Los_Angeles" in p.stdout + p.stderr, p.stdout + p.stderr
    p = asz_in_process("usage", "daily", "--tz", "Mars Standard Time", "--root", str(corpus_root))
    assert p.returncode == 2 and "'Mars Standard Time' is not a time zone name" in p.stderr, p.stderr
