"""A ``--since``/``--until`` window is a filter of the whole report (trial 48d F2): a provider call two conversations
hold is counted under one copy, chosen over the whole root (docs/view.md, One provider call, one count), and a window
keeps it when that copy's time is in it. The window chose among its own copies: ``asz usage monthly`` gave 2026-02 as
158 calls and ``asz usage daily --since 2026-02 --until 2026-02`` 162, adding 4 calls on 2026-02-01 that the whole
report counts on 2026-01-21, under the copy made first.

Real input, collected by the real ``asz collect``: the corpus's de3b8b19 (4 calls on 2026-01-21), a copy of it under
a new session id and new record uuids with every ``timestamp`` moved 11 days on (2026-02-01), as the trial's copies
were made, and the corpus's 55604662 (1 call on 2026-02-10, held by no other). The expected rows are counted here
straight from the three files: one call per message id and request id of an assistant line with usage, on the day of
the earliest copy's line (the copies are whole, so the copy made first is the one counted). Served by a real
``asz view`` for ``/api/usage``.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import pytest

from view_server_helpers import asz, whole_usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from same_calls_roots import copied  # noqa: E402

ORIGINAL_DIR = "-home-user-claude-reliability"
ORIGINAL = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
COPY = "0c000000-0000-4000-8000-0000000000c1"  # sorts before ORIGINAL: the time, not the id, decides
OTHER_DIR = "-home-user-spotter"
OTHER = "55604662-cf2a-4331-851a-ec234028f8ca"
DAYS = 11  # 2026-01-21 + 11 days: 2026-02-01, over the month's end


def _moved(lines: list[str], days: int) -> list[str]:
    """``lines`` with every record's ``timestamp`` ``days`` days later (the trial's copies: scripts/build.py)."""
    out = []
    for ln in lines:
        d = json.loads(ln)
        if isinstance(d.get("timestamp"), str):
            t = dt.datetime.fromisoformat(d["timestamp"].replace("Z", "+00:00")) + dt.timedelta(days=days)
            d["timestamp"] = t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        out.append(json.dumps(d, ensure_ascii=False))
    return out


def _days(*files: list[str]) -> dict[str, int]:
    """``{YYYY-MM-DD (UTC): calls}``: each (message id, request id) of an assistant line with usage once, on the day
    of its earliest copy's last such line."""
    first: dict[tuple, str] = {}
    for lines in files:
        last: dict[tuple, str] = {}
        for ln in lines:
            d = json.loads(ln)
            m = d.get("message") or {}
            if d.get("type") == "assistant" and isinstance(m, dict) and m.get("usage") and m.get("model") != "<synthetic>":
                last[(m.get("id"), d.get("requestId"))] = d["timestamp"]
        for k, t in last.items():
            first[k] = min(first.get(k, t), t)
    out: dict[str, int] = {}
    for t in first.values():
        out[t[:10]] = out.get(t[:10], 0) + 1
    return dict(sorted(out.items()))


@pytest.fixture(scope="module")
def moved_root(corpus_dir, tmp_path_factory) -> tuple[Path, dict[str, int]]:
    """(root, the whole report's calls per day counted from the files)."""
    projects = corpus_dir / "claude-code" / "projects"
    base = tmp_path_factory.mktemp("window-once")
    original = (projects / ORIGINAL_DIR / f"{ORIGINAL}.jsonl").read_text(encoding="utf-8").splitlines()
    other = (projects / OTHER_DIR / f"{OTHER}.jsonl").read_text(encoding="utf-8").splitlines()
    copy = _moved(copied(original, COPY), DAYS)
    for folder, sid, lines in ((ORIGINAL_DIR, ORIGINAL, original), (ORIGINAL_DIR, COPY, copy), (OTHER_DIR, OTHER, other)):
        (base / "projects" / folder).mkdir(parents=True, exist_ok=True)
        (base / "projects" / folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    days = _days(original, copy, other)
    assert days == {"2026-01-21": 4, "2026-02-10": 1}  # the premise: the copy's 4 calls, on 2026-02-01, are the original's
    assert _days(copy) == {"2026-02-01": 4}
    return root, days


def _rows(root: Path, view: str, *window: str) -> dict[str, int]:
    rows = json.loads(asz("usage", view, "--json", "--total-once", "--tz", "UTC", "--root", str(root), *window).stdout)["rows"]
    return {r["date" if view == "daily" else "month"]: r["calls"] for r in rows}


def test_a_window_keeps_the_whole_reports_rows_in_it(moved_root):
    root, days = moved_root
    assert _rows(root, "daily") == days
    feb = {d: n for d, n in days.items() if d.startswith("2026-02")}
    assert _rows(root, "daily", "--since", "2026-02", "--until", "2026-02") == feb  # was {2026-02-01: 4, 2026-02-10: 1}
    monthly = _rows(root, "monthly")
    assert monthly == {"2026-01": 4, "2026-02": sum(feb.values())}
    assert _rows(root, "monthly", "--since", "2026-02", "--until", "2026-02") == {"2026-02": monthly["2026-02"]}
    assert _rows(root, "daily", "--since", "2026-01-21", "--until", "2026-02-05") == {"2026-01-21": 4}


def test_the_window_says_where_the_calls_it_leaves_out_are_counted(moved_root):
    root, _ = moved_root
    out = asz("usage", "daily", "--tz", "UTC", "--since", "2026-02", "--until", "2026-02", "--root", str(root)).stdout
    assert f"{COPY[:8]}'s 4 under {ORIGINAL[:8]}" in out
    assert "4 of them counted under a copy made outside the --since/--until window, so in no row of it" in out
    session = json.loads(asz("usage", "session", "--json", "--total-once", "--tz", "UTC", "--since", "2026-02",
                             "--until", "2026-02", "--root", str(root)).stdout)
    rows = {r["conversation"]: r for r in session["rows"]}
    assert rows[COPY]["calls"] == 4  # its own figure, as asz ls gives it
    assert rows[COPY]["same_calls"] == {"with": [ORIGINAL], "calls": 4, "counted_in": {ORIGINAL: 4}, "outside": 4}
    assert session["total"]["calls"] == 1
    whole = json.loads(asz("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
    assert all("outside" not in s for s in whole["total"]["same_calls"])  # no window: every copy counted is in it


def test_the_pages_usage_window_counts_as_the_cli(moved_root, serve):
    root, days = moved_root
    s = serve(root)
    assert whole_usage(s)["total"]["calls"] == sum(days.values())
    u = s.get("/api/usage?since=2026-02-01&until=2026-02-28&tz=UTC").json()
    assert u["complete"] and u["total"]["calls"] == 1  # was 5: the copy's 4 calls of 2026-02-01 counted again
    assert sum(q["calls"] for q in u["quarters"]) == 1
    same = {x["conversation"]: x for x in u["same_calls"]}
    assert same[COPY]["counted_in"] == {ORIGINAL: 4} and same[COPY]["outside"] == 4
    jan = s.get("/api/usage?since=2026-01-01&until=2026-01-31&tz=UTC").json()
    assert jan["total"]["calls"] == 4 and all("outside" not in x for x in jan["same_calls"])


def test_a_window_of_copies_alone_says_what_it_holds(moved_root):
    """A window holding only the copy's calls has no row, as the whole report has none on 2026-02-01: exit 1 with the
    line of an empty window (docs/reading.md), and a line saying the calls made in it are counted outside it."""
    root, days = moved_root
    assert not [d for d in days if "2026-02-01" <= d <= "2026-02-05"]
    got = asz("usage", "daily", "--tz", "UTC", "--since", "2026-02-01", "--until", "2026-02-05", "--root", str(root), check=False)
    assert got.returncode == 1 and got.stdout == ""
    assert "asz usage: no model call in" in got.stderr
    assert ("asz usage: 4 model call(s) made in the window are copies of calls two conversations hold, counted under a "
            "copy made outside it, so in no row of it") in got.stderr
    empty = asz("usage", "daily", "--tz", "UTC", "--since", "2099-01-01", "--root", str(root), check=False)
    assert empty.returncode == 1 and "made in the window" not in empty.stderr
