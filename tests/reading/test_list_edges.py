"""What a new user met at the edges of ``asz ls`` and ``asz search`` (issue 20 follow-ups).

Real input: one corpus project collected by the real ``asz collect``, its transcript edited the way the user's
was: its model renamed to one the price table does not know (the cost leaves it out, and says so), and its last
line dated in the year 9999 (a span of millennia).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from asz_core.view.prices import price_table

from reading_helpers import asz, asz_process

PROJECT = "-home-user-sample-project"
MODEL = "claude-sonnet-4-20250514"
UNKNOWN = "claude-unpriced-test-model"
LAST = "9999-12-31T23:59:59.000Z"


@pytest.fixture(scope="module")
def edited_root(corpus_source: Path, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("list-edges")
    proj = shutil.copytree(corpus_source / PROJECT, base / "projects" / PROJECT)
    for f in proj.glob("*.jsonl"):
        lines = f.read_bytes().replace(MODEL.encode(), UNKNOWN.encode()).split(b"\n")
        last = max(i for i, x in enumerate(lines) if b'"timestamp":"' in x)
        old = orjson.loads(lines[last])["timestamp"]
        lines[last] = lines[last].replace(f'"timestamp":"{old}"'.encode(), f'"timestamp":"{LAST}"'.encode())
        f.write_bytes(b"\n".join(lines))
    asz_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def test_ls_marks_a_cost_that_leaves_out_an_unpriced_model_as_usage_does(edited_root):
    assert price_table().price(UNKNOWN) is None  # the shipped table has no price for it
    rows = orjson.loads(asz("ls", "--json", "--root", str(edited_root)).stdout)
    assert [r["cost"]["unpriced"] for r in rows] == [[UNKNOWN]]
    usage = asz("usage", "daily", "--root", str(edited_root)).stdout
    note = f"* unpriced, left out of the cost: {UNKNOWN} (add them under prices in asz.yaml)"
    assert note in usage.splitlines()
    table = asz("ls", "--root", str(edited_root)).stdout.splitlines()
    # none of its tokens had a price: the cell reads unpriced, never $0.00* (trial 28a F6), the JSON priced: false
    assert rows[0]["cost"]["priced"] is False and rows[0]["cost"]["usd"] is None  # null, never 0.0 (50c F3)
    assert "unpriced" in table[1].split() and "$0.00*" not in table[1].split() and table[-1] == note


def test_ls_shows_a_span_of_millennia_in_years(edited_root):
    rows = orjson.loads(asz("ls", "--json", "--root", str(edited_root)).stdout)
    years = (rows[0]["to"] - rows[0]["from"]) // 1000 // 31_557_600
    assert years > 7000  # 2025 to 9999
    line = asz("ls", "--root", str(edited_root)).stdout.splitlines()[1]
    assert f"{years:,}y" in line.split() and "…" not in line.split()[4:6]


@pytest.mark.parametrize("limit", ["-1", "-20"])
def test_search_refuses_a_limit_below_0(edited_root, limit):
    """0 is every hit since b7edfe8, as in asz ls (tests/reading/test_search_limit.py); below 0 is refused."""
    p = asz("search", "the", "--limit", limit, "--root", str(edited_root), check=False)
    assert p.returncode == 2 and "--limit" in p.stderr and "hit(s)" not in p.stdout


def test_the_since_until_parser_reads_days_instants_and_times_back():
    """One parser for ``asz conversations``, ``search``, ``export`` and ``usage`` (trial finding 12): a day in the
    zone asked for (start, or its last ms with ``end``), ``YYYYMMDD`` too, an instant, a time back from now."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    from asz_core.reading.listing import TimeError, parse_time

    utc, paris = dt.timezone.utc, ZoneInfo("Europe/Paris")
    midnight = 1_776_470_400_000  # 2026-04-18T00:00:00Z
    assert parse_time("2026-04-18", zone=utc) == parse_time("20260418", zone=utc) == midnight
    assert parse_time("2026-04-18", end=True, zone=utc) == midnight + 86_400_000 - 1
    assert parse_time("2026-04-18", zone=paris) == midnight - 2 * 3_600_000  # CEST, UTC+2
    assert parse_time("2026-04-18T10:00:00Z") == parse_time("2026-04-18T12:00", zone=paris) == midnight + 10 * 3_600_000
    now = midnight + 123
    assert parse_time("7d", now_ms=now) == now - 7 * 86_400_000
    assert parse_time("30m", now_ms=now) == now - 30 * 60_000
    for bad in ("yesterdays", "2026-04-31", "2026-0418", "7y"):
        with pytest.raises(TimeError):
            parse_time(bad, zone=utc)


@pytest.mark.parametrize("cmd", [["ls"], ["usage"], ["search", "the"], ["export", "--format", "md"]])
def test_a_since_after_the_until_is_a_usage_error_not_an_empty_answer(edited_root, cmd):
    """--since 2026-04-19 --until 2026-04-17 can match nothing: exit 2 naming both, instead of an empty table or a
    $0.00 total that reads like a real answer (a new user's second trial)."""
    p = asz(*cmd, "--since", "2026-04-19", "--until", "2026-04-17", "--root", str(edited_root), check=False)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "--since 2026-04-19 is after --until 2026-04-17" in p.stderr and p.stdout == ""
    same_day = asz(*cmd[:1], *cmd[1:], "--since", "2026-04-17", "--until", "2026-04-17", "--root", str(edited_root), check=False)
    assert same_day.returncode != 2, same_day.stderr  # one day is a range
