"""``--since``/``--until`` take a month, ``YYYY-MM``: ``--since`` its first day's start, ``--until`` its last day's
last millisecond, in the ``--tz`` zone (trial 36b F7: ``asz usage monthly --since 2026-03`` was refused, and a user
reading a year typed both days of every month). One parser (``asz_core.view.match.parse_time``) serves every command.

Real input: the bundled example's Claude Code transcript with its ``"timestamp"`` values moved from 2026-11-20 09:00Z
to 2026-11-30 23:50Z (only those values change: every line keeps its shape), so its calls lie on November's last day
in UTC and on December 1st in Europe/Berlin; landed by ``asz collect --once``. The expected calls are counted from the
source (one per message id and request id of its assistant lines).
"""

from __future__ import annotations

import shutil

import orjson
import pytest
from reading_helpers import REPO, asz, asz_json

from asz_core.view.match import TimeError, parse_time

SID = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"
EXAMPLE = REPO / "examples" / "claude-code" / "projects" / "-home-dev-hello-app" / f"{SID}.jsonl"


@pytest.fixture(scope="module")
def month_end(tmp_path_factory):
    base = tmp_path_factory.mktemp("month")
    proj = base / "projects" / "-home-dev-hello-app"
    proj.mkdir(parents=True)
    text = EXAMPLE.read_bytes()
    assert text.count(b'"timestamp":"2026-11-20T09:00:') == text.count(b'"timestamp"') > 0
    (proj / EXAMPLE.name).write_bytes(text.replace(b'"timestamp":"2026-11-20T09:00:', b'"timestamp":"2026-11-30T23:50:'))
    calls = {(d["message"]["id"], d.get("requestId")) for d in map(orjson.loads, text.splitlines()) if d["type"] == "assistant"}
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    return root, len(calls)


def test_parse_time_reads_a_month():
    import datetime as dt

    utc = dt.timezone.utc
    assert parse_time("2026-03", zone=utc) == int(dt.datetime(2026, 3, 1, tzinfo=utc).timestamp() * 1000)
    assert parse_time("2026-02", end=True, zone=utc) == int(dt.datetime(2026, 3, 1, tzinfo=utc).timestamp() * 1000) - 1
    assert parse_time("2026-12", end=True, zone=utc) == int(dt.datetime(2027, 1, 1, tzinfo=utc).timestamp() * 1000) - 1
    with pytest.raises(TimeError, match=r"'2026-13' \(no such month\) is not a date \(YYYY-MM-DD\), a month \(YYYY-MM\)"):
        parse_time("2026-13")


def test_a_month_is_a_window_in_every_reader(month_end):
    root, calls = month_end
    r = str(root)
    assert calls > 0
    # UTC: November holds it to its last day's end; December does not
    assert [x["id"] for x in asz_json("ls", "--json", "--since", "2026-11", "--until", "2026-11", "--tz", "UTC", "--root", r)] == [SID]
    assert asz("ls", "--json", "--since", "2026-12", "--tz", "UTC", "--root", r, check=False).returncode == 1
    (nov,) = asz_json("usage", "monthly", "--json", "--since", "2026-11", "--until", "2026-11", "--tz", "UTC", "--root", r)
    assert (nov["month"], nov["calls"]) == ("2026-11", calls)
    # Europe/Berlin: 23:50Z on November 30th is December 1st there
    (dec,) = asz_json("usage", "monthly", "--json", "--since", "2026-12", "--until", "2026-12", "--tz", "Europe/Berlin", "--root", r)
    assert (dec["month"], dec["calls"]) == ("2026-12", calls)
    assert asz("ls", "--json", "--until", "2026-11", "--tz", "Europe/Berlin", "--root", r, check=False).returncode == 1
    hits = asz_json("search", "hello", "--json", "--since", "2026-11", "--until", "2026-11", "--tz", "UTC", "--root", r)
    assert hits and {h["conversation"] for h in hits} == {SID}
    r2 = asz("export", "--since", "2026-11", "--until", "2026-11", "--tz", "UTC", "--format", "md", "--root", r,
             "--out", str(root.parent / "nov"))
    assert r2.returncode == 0 and any((root.parent / "nov").iterdir())
