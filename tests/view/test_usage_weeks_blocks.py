"""``asz usage weekly`` and ``asz usage blocks`` over the Claude Code corpus, against the transcripts' own calls
(tests/source_calls.py) grouped here by their own rule: a week from Monday, a 5-hour block as ccusage finds it."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

from cli_helpers import asz_in_process
from source_calls import source_calls

HOUR = 3_600_000


def _ms(stamp: str) -> int:
    return int(dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def _rows(root, *args):
    p = asz_in_process("usage", *args, "--json", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout)


def _blocks_of(times: list[int]) -> dict[int, int]:
    """{time: block start} by ccusage's rule, written again from its description: a block opens at its first call's
    hour and closes once a call comes 5 hours or more after that hour or after the call before it."""
    out, start, prev = {}, None, None
    for t in sorted(times):
        if start is None or t >= start + 5 * HOUR or t >= prev + 5 * HOUR:
            hour = dt.datetime.fromtimestamp(t / 1000, dt.timezone.utc).replace(minute=0, second=0, microsecond=0)
            start = int(hour.timestamp() * 1000)
        out[t] = start
        prev = t
    return out


def test_weeks_hold_the_calls_of_their_monday_to_sunday(corpus):
    projects, root = corpus
    calls, _ = source_calls(projects)
    truth: dict[str, list[int]] = {}
    for c in calls:
        day = dt.datetime.fromisoformat(c["time"].replace("Z", "+00:00")).date()
        monday = (day - dt.timedelta(days=day.weekday())).isoformat()
        truth.setdefault(monday, [0, 0])
        truth[monday][0] += 1
        truth[monday][1] += c["tokens"]
    rows = _rows(root, "weekly", "--tz", "UTC")
    got = {r["week"]: [r["calls"], sum(r["usage"][k] for k in ("in", "out", "cache_read", "cache_write"))] for r in rows}
    assert got == truth
    assert sum(v[0] for v in got.values()) == 543  # reader-anchors: 543 calls in the corpus
    assert all(dt.date.fromisoformat(w).weekday() == 0 for w in got)


def test_blocks_are_the_five_hour_windows_of_the_calls(corpus):
    projects, root = corpus
    calls, _ = source_calls(projects)
    starts = _blocks_of([_ms(c["time"]) for c in calls])
    truth: dict[int, list[int]] = {}
    for c in calls:
        t = truth.setdefault(starts[_ms(c["time"])], [0, 0])
        t[0] += 1
        t[1] += c["tokens"]
    rows = _rows(root, "blocks", "--tz", "UTC")
    got = {r["start"]: [r["calls"], sum(r["usage"][k] for k in ("in", "out", "cache_read", "cache_write"))] for r in rows}
    assert got == truth
    assert len(rows) == 12  # the corpus's calls fall in 12 windows (two on 2026-02-10/11, a day apart)
    for r in rows:
        assert r["end"] - r["start"] == 5 * HOUR and r["start"] <= r["from"] <= r["to"] < r["end"]
        assert r["start"] % HOUR == 0 and r["active"] is False and r["burn_rate"] is None is r["projection"]  # months old
        assert r["block"] == dt.datetime.fromtimestamp(r["start"] / 1000, dt.timezone.utc).isoformat(timespec="minutes")
    assert [r["start"] for r in rows] == sorted(r["start"] for r in rows)


def test_blocks_are_the_same_instants_in_any_zone_and_named_with_their_offset(corpus):
    _, root = corpus
    utc = _rows(root, "blocks", "--tz", "UTC")
    paris = _rows(root, "blocks", "--tz", "Europe/Paris")
    assert [(r["start"], r["calls"]) for r in utc] == [(r["start"], r["calls"]) for r in paris]
    offsets = {r["block"][-6:] for r in paris}
    assert offsets == {"+01:00", "+02:00"}  # calls in summer and in winter
    assert paris[0]["block"] == "2025-06-15T01:00+02:00" and utc[0]["block"] == "2025-06-14T23:00+00:00"


def test_a_project_filter_counts_its_calls_in_the_blocks_every_call_shapes(corpus):
    """A block is the subscription's window, which every call opens or extends: --project keeps its calls only, in
    the blocks of the whole root (here a block whose first call is of another project starts before the project's)."""
    projects, root = corpus
    every = {r["start"]: r for r in _rows(root, "blocks", "--tz", "UTC")}
    mine = _rows(root, "blocks", "--tz", "UTC", "--project", "coderabbit")
    calls, cwd = source_calls(projects)
    wanted = [c for c in calls if "coderabbit" in cwd.get(c["session"], "")]
    assert sum(r["calls"] for r in mine) == len(wanted) == 87
    for r in mine:
        assert r["start"] in every and r["end"] == every[r["start"]]["end"]
        assert r["calls"] <= every[r["start"]]["calls"]


def _moved_to_now(tmp_path, corpus_dir, rel: str):
    """``(projects, root)``: the corpus file ``rel`` with every time moved so that its last line is ten minutes ago,
    collected into a new root."""
    src = corpus_dir / "claude-code/projects" / rel
    lines = [json.loads(ln) for ln in src.read_text().splitlines() if ln.strip()]
    stamps = [_ms(o["timestamp"]) for o in lines if "timestamp" in o]
    shift = int(time.time() * 1000) - 10 * 60_000 - max(stamps)  # the last line ten minutes ago
    for o in lines:
        if "timestamp" in o:
            t = dt.datetime.fromtimestamp((_ms(o["timestamp"]) + shift) / 1000, dt.timezone.utc)
            o["timestamp"] = t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    projects = tmp_path / "projects" / src.parent.name
    projects.mkdir(parents=True)
    (projects / src.name).write_text("".join(json.dumps(o) + "\n" for o in lines))
    root = tmp_path / "root"
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-home")}
    made = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root), env=env)
    assert made.returncode == 0, made.stdout + made.stderr
    return tmp_path / "projects", root


def test_an_open_block_is_named_with_its_end(tmp_path, corpus_dir):
    """A transcript whose calls were made minutes ago: its block is open (active), the line under the table says when
    it ends; the same transcript's calls a day older are in a closed block. Its one call spans no time: no burn rate."""
    _, root = _moved_to_now(tmp_path, corpus_dir, "-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl")
    rows = _rows(root, "blocks")
    assert len(rows) == 1 and rows[0]["active"] is True
    assert rows[0]["start"] <= rows[0]["to"] < rows[0]["end"] and rows[0]["end"] > time.time() * 1000
    text = asz_in_process("usage", "blocks", "--tz", "UTC", "--root", str(root))
    assert text.returncode == 0, text.stderr
    end = dt.datetime.fromtimestamp(rows[0]["end"] / 1000, dt.timezone.utc).isoformat(timespec="minutes")
    assert f"> block {rows[0]['block']} is open: it ends at {end}," in text.stdout
    assert rows[0]["from"] == rows[0]["to"] and rows[0]["burn_rate"] is None is rows[0]["projection"]
    assert "; no burn rate yet (its calls span no time)" in text.stdout


def test_an_open_blocks_burn_rate_and_projection(tmp_path, corpus_dir):
    """ef958aa1's own file (the main stream's calls over two hours) moved to now: its open block's burn rate and
    projection are the source's calls' arithmetic."""
    projects, root = _moved_to_now(tmp_path, corpus_dir, "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    rows = _rows(root, "blocks")
    text = asz_in_process("usage", "blocks", "--tz", "UTC", "--root", str(root))
    assert text.returncode == 0, text.stderr
    [row] = [r for r in rows if r["active"]]
    assert all(r["burn_rate"] is None is r["projection"] for r in rows if not r["active"])
    _burn_as_counted_from_the_source(projects, row, text.stdout)


def _burn_as_counted_from_the_source(projects: Path, row: dict, table: str) -> None:
    """The open block's burn rate and projection (trial 21: ccusage gives them, asz did not) against the calls of the
    source file: tokens over the time from the first call to the last, per hour, and that rate to the block's end."""
    calls, _ = source_calls(projects)
    times = [_ms(c["time"]) for c in calls if c["tokens"]]
    tokens, first, last = sum(c["tokens"] for c in calls), min(times), max(times)
    assert (row["from"], row["to"]) == (first, last) and sum(row["usage"][k] for k in ("in", "out", "cache_read", "cache_write")) == tokens
    rate, proj = row["burn_rate"], row["projection"]
    assert rate == {"tokens_per_hour": tokens * HOUR // (last - first), "usd_per_hour": round(row["cost"]["usd"] * HOUR / (last - first), 6),
                    "from": first, "to": last}
    left = row["end"] - proj["at"]
    assert 0 < left <= 5 * HOUR and proj["remaining_ms"] == left and abs(proj["at"] - time.time() * 1000) < 120_000
    assert proj["tokens"] == tokens + tokens * left // (last - first) > tokens
    assert proj["usd"] == round(row["cost"]["usd"] * (1 + left / (last - first)), 6) or abs(
        proj["usd"] - row["cost"]["usd"] * (1 + left / (last - first))) < 1e-6
    assert f"burn rate {rate['tokens_per_hour']:,} tokens/h, ${rate['usd_per_hour']:,.2f}/h (its calls from " in table
    assert " tokens, $" in table.split("at that rate ", 1)[1].split("\n", 1)[0]
