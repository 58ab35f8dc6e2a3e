"""The night the clocks go back (trial 30a F2): in the hour a zone shows twice, every time asz prints carries its
UTC offset, so 02:20 CEST (00:20Z) and 02:20 CET (01:20Z) no longer read the same and a session of 80 minutes no
longer reads as 20; a wall-clock ``--since`` that names two instants, or none (the hour skipped in spring), is a
usage error naming both, not the first taken silently.

Real input: a corpus transcript (9 lines) whose ``timestamp`` fields alone are moved across Europe/Berlin's change
of 2026-10-25 (01:00Z), 20 minutes apart from 23:40Z; the expected texts are made here from those stamps by the
standard library's own fold (``datetime.fold``), not by asz's rule."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import forked
from cli_helpers import asz_in_process

HELLO = "-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
BERLIN = ZoneInfo("Europe/Berlin")
START = dt.datetime(2026, 10, 24, 23, 40, tzinfo=dt.timezone.utc)
_STAMP = re.compile(r'"timestamp":"[^"]+"')


@pytest.fixture(scope="module")
def moved(corpus_source: Path, tmp_path_factory) -> tuple[Path, list[dt.datetime]]:
    """The root and the stamps given to the transcript's lines, in order."""
    base = tmp_path_factory.mktemp("set-back")
    src = base / "projects" / HELLO
    src.parent.mkdir(parents=True)
    lines, stamps = [], []
    for i, line in enumerate((corpus_source / HELLO).read_text(encoding="utf-8").splitlines()):
        at = START + dt.timedelta(minutes=20 * i)
        stamps.append(at)
        lines.append(_STAMP.sub(f'"timestamp":"{at.strftime("%Y-%m-%dT%H:%M:%S.000Z")}"', line, count=1))
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copystat(corpus_source / HELLO, src)
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    assert p.returncode == 0, p.stderr
    return base / "root", stamps


def _shown(at: dt.datetime, fmt: str) -> str:
    """``at`` in Berlin as ``fmt``, with its offset where Berlin shows that wall time twice (the other fold's offset
    differs), by the standard library's fold."""
    local = at.astimezone(BERLIN)
    twice = local.replace(fold=1 - local.fold).utcoffset() != local.utcoffset()
    if not twice:
        return local.strftime(fmt)
    off = int(local.utcoffset().total_seconds()) // 60
    return local.strftime(fmt) + f"{'+' if off >= 0 else '-'}{abs(off) // 60:02d}:{abs(off) % 60:02d}"


@pytest.mark.parametrize("how", ["--tz", "TZ"])
def test_an_export_says_the_offset_of_each_time_in_the_repeated_hour(moved, how):
    root, stamps = moved
    args = ("export", SESSION, "--format", "md", "--root", str(root))
    if how == "--tz":
        p = asz_in_process(*args, "--tz", "Europe/Berlin")
    else:  # the machine's own zone: a process of its own, so the C library reads TZ
        p = forked.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "TZ": "Europe/Berlin"})
    assert p.returncode == 0, p.stderr
    fmt = "%Y-%m-%d %H:%M:%S"
    steps = re.findall(r"^\*\*[^*]+\*\* · (\S+ \S+) · `", p.stdout, re.M)
    expected = {_shown(at, fmt) for at in stamps}
    assert steps and set(steps) <= expected, (steps, expected)
    assert {"2026-10-25 02:00:00+02:00", "2026-10-25 02:00:00+01:00"} <= expected  # the test's stamps cross the fold
    assert any(s.endswith("+02:00") for s in steps) and any(s.endswith("+01:00") for s in steps)
    assert not re.search(r"2026-10-25 02:\d\d:\d\d(?![+-]\d)", p.stdout)  # no time of the repeated hour bare
    assert "2026-10-25 03:20:00" in steps  # the last reply, 02:20Z: after the repeated hour, no offset


def test_search_hits_in_the_repeated_hour_carry_their_offset(moved):
    root, stamps = moved
    p = asz_in_process("search", "--tz", "Europe/Berlin", "--root", str(root), "hello")
    assert p.returncode == 0, p.stderr
    shown = set(re.findall(r"2026-10-2[45] \d\d:\d\d(?:[+-]\d\d:\d\d)?", p.stdout))
    assert shown and shown <= {_shown(at, "%Y-%m-%d %H:%M") for at in stamps}, (shown, p.stdout)


@pytest.mark.parametrize("when, words", [
    ("2026-10-25T02:50", "is 02:50 twice in Europe/Berlin (the clocks were set back): give the offset, "
                         "2026-10-25T02:50:00+02:00 or 2026-10-25T02:50:00+01:00"),
    ("2026-03-29T02:30", "does not exist in Europe/Berlin (the clocks skipped that hour): give the offset "
                         "(2026-03-29T01:30:00+01:00 or 2026-03-29T03:30:00+02:00) or a time outside the hour"),
])
def test_a_wall_time_naming_two_instants_or_none_is_a_usage_error(moved, when, words):
    root, _ = moved
    for cmd in (("ls",), ("usage",), ("search", "hello")):
        p = asz_in_process(*cmd, "--tz", "Europe/Berlin", "--since", when, "--root", str(root))
        assert p.returncode == 2, (cmd, p.stdout, p.stderr)
        assert words in p.stderr, (cmd, p.stderr)
    p = asz_in_process("ls", "--tz", "Europe/Berlin", "--since", "2026-10-25T02:50+01:00", "--root", str(root))
    assert p.returncode == 0, p.stderr  # the offset given: one instant
