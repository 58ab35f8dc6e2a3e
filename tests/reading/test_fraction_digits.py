"""A time with more than six fraction digits counts on its own day, never the next (trial 6, finding 3:
``2026-01-21T23:59:59.9999995Z`` was counted by ``asz usage --tz UTC`` on 2026-01-22: nanoseconds divided as a float
rounded up to the next second).

Real input: the corpus's session de3b8b19 with every line's ``timestamp`` written again as an increasing run of
seconds ending at ``2026-01-21T23:59:59.9999995Z`` (seven fraction digits, as the seed allows up to nine), collected by
the real ``asz collect --once``. The truth is read from those timestamps as text: every call is on 2026-01-21 and the
last is at 23:59:59.999 (its milliseconds truncated, never rounded up).
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
from pathlib import Path

import pytest

from reading_helpers import asz, source_lines

PROJECT = "-home-user-claude-reliability"
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
LAST = "2026-01-21T23:59:59.9999995Z"


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory) -> tuple[Path, list[str]]:
    src = corpus_source / PROJECT / f"{SID}.jsonl"
    if not src.is_file():
        pytest.skip(f"the corpus lacks {src}")
    base = tmp_path_factory.mktemp("fraction")
    lines = source_lines(src)
    n = len(lines)
    stamps = []
    for i, d in enumerate(lines):
        if "timestamp" in d:
            d["timestamp"] = f"2026-01-21T23:59:{59 - (n - 1 - i):02d}.9999995Z"
            stamps.append(d["timestamp"])
    assert n <= 60 and stamps[-1] == LAST
    (base / "projects" / PROJECT).mkdir(parents=True)
    (base / "projects" / PROJECT / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    r = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(r))
    with_usage = {d["message"].get("id"): d["timestamp"] for d in lines
                  if isinstance(d.get("message"), dict) and d["message"].get("usage")}  # a call's last line with usage
    return r, list(with_usage.values())


def _ms(stamp: str) -> int:
    whole, frac = stamp.rstrip("Z").split(".")
    secs = calendar.timegm(dt.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").timetuple())
    return secs * 1000 + int(frac[:3])


def test_the_day_is_the_one_the_time_names(root):
    r, stamps = root
    assert stamps[-1] == LAST  # the last call's usage line carries the time at the day's last nanosecond
    rows = json.loads(asz("usage", "daily", "--tz", "UTC", "--json", "--root", str(r)).stdout)
    assert [row["date"] for row in rows] == ["2026-01-21"]
    assert rows[0]["calls"] == len(stamps)


def test_the_last_call_is_at_the_truncated_millisecond_and_stays_last(root):
    r, stamps = root
    [row] = json.loads(asz("usage", "session", "--tz", "UTC", "--json", "--root", str(r)).stdout)
    assert row["from"] == min(_ms(s) for s in stamps)
    assert row["to"] == _ms(LAST) == calendar.timegm((2026, 1, 21, 23, 59, 59)) * 1000 + 999
    conv = json.loads(asz("ls", "--json", "--root", str(r)).stdout)
    assert [c["to"] for c in conv] == [_ms(LAST)]
