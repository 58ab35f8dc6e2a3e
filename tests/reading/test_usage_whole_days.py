"""A time back from now in ``asz usage daily``/``weekly``/``monthly`` means whole days (trial 50a F2: ``--since 7d`` at
22:50 UTC started the first daily row at 22:50 of 2026-11-30 and printed it as the whole day, 52 calls where the day
holds 181, unmarked; ccusage takes dates and gives whole days).

The corpus's transcript 5c0375b4 (../shared/corpus, skipped when absent), collected by a real ``asz collect``: its calls
are counted here straight from its lines (one per message id + request id, on the day of its last line). ``--since Nd
--until Nd`` with N the days from that day to today is that whole day (before: the empty instant between, exit 1); an
instant inside the day stays exact; the session view reads a time back as that instant.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import AWAY_HOME, asz_in_process  # noqa: E402

SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"


def _call_times(f: Path) -> list[str]:
    """Each call's time (its last line's timestamp), counted from the transcript's lines."""
    last: dict[tuple, str] = {}
    for ln in f.read_bytes().splitlines():
        r = json.loads(ln)
        if r.get("type") == "assistant" and (r.get("message") or {}).get("id"):
            last[(r["message"]["id"], r.get("requestId") or "")] = r["timestamp"]
    return sorted(last.values())


def _usage(root: Path, *args: str):
    return asz_in_process("usage", *args, "--json", "--total-once", "--tz", "UTC", "--root", str(root), env=AWAY_HOME)


def test_a_time_back_in_a_daily_report_is_whole_days(corpus_dir, tmp_path):
    f = corpus_dir / "claude-code" / "projects" / "-home-user-sample-project" / f"{SID}.jsonl"
    src = tmp_path / "projects" / "-p"
    src.mkdir(parents=True)
    (src / f.name).write_bytes(f.read_bytes())
    root = tmp_path / "root"
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root), env=AWAY_HOME).returncode == 0
    times = _call_times(f)
    day = times[0][:10]
    assert {t[:10] for t in times} == {day}  # one day: 2025-09-07, 20 calls
    for _ in range(2):  # a run across UTC midnight names another day: once more
        today = dt.datetime.now(dt.timezone.utc).date()
        back = f"{(today - dt.date.fromisoformat(day)).days}d"
        daily = _usage(root, "daily", "--since", back, "--until", back)
        if dt.datetime.now(dt.timezone.utc).date() == today:
            break
    assert daily.returncode == 0, daily.stderr
    rows = json.loads(daily.stdout)["rows"]
    assert [(r["date"], r["calls"]) for r in rows] == [(day, len(times))]
    for view in ("weekly", "monthly"):  # the week and the month of that day hold it whole too
        assert json.loads(_usage(root, view, "--since", back, "--until", back).stdout)["total"]["calls"] == len(times)
    mid = times[len(times) // 2]  # an instant stays exact: the calls at or after it
    at = _usage(root, "daily", "--since", mid)
    assert json.loads(at.stdout)["rows"][0]["calls"] == sum(1 for t in times if t >= mid) < len(times)


def test_whole_days_reads_a_time_back_as_its_date_in_the_zone():
    from zoneinfo import ZoneInfo

    from asz_core.view.match import parse_time, whole_days

    now = int(dt.datetime(2026, 12, 7, 22, 50, tzinfo=dt.timezone.utc).timestamp() * 1000)
    utc, kolkata = dt.timezone.utc, ZoneInfo("Asia/Kolkata")
    assert whole_days("7d", utc, now_ms=now) == "2026-11-30"
    assert whole_days("7d", kolkata, now_ms=now) == "2026-12-01"  # 04:20 on 2026-12-01 there
    assert whole_days("2w", utc, now_ms=now) == "2026-11-23"
    assert whole_days("12h", utc, now_ms=now) == "2026-12-07"
    start = parse_time(whole_days("7d", utc, now_ms=now), zone=utc)
    assert start == int(dt.datetime(2026, 11, 30, tzinfo=utc).timestamp() * 1000)
    for same in ("2026-11-30T22:50", "2026-11-30", "today", "", "9999999999d"):  # the rest as given
        assert whole_days(same, utc, now_ms=now) == same
