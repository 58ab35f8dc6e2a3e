"""Hits of equal score come newest first (trial 47d F8: ``asz search tmux`` over 25 identical copies of a session
listed them in id order, the newest copy not first). Three copies of the bundled example's session, the same text
under new session ids, each moved a whole number of days, ids in an order that is neither the days' nor their
reverse: ``asz search`` (text and --json) and the page's ``/api/search`` give the copies' hits newest first."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "claude-code" / "projects" / "-home-dev-hello-app" / "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35.jsonl"
OLD_ID = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"
#: session id -> days the copy is moved: id order a, b, c; newest first b, a, c.
COPIES = {"aaaaaaaa-0000-4000-8000-000000000001": 1, "bbbbbbbb-0000-4000-8000-000000000002": 2,
          "cccccccc-0000-4000-8000-000000000003": 0}


def _moved(text: str, days: int) -> str:
    """``text`` with every ``"timestamp":"2026-11-DD…"`` moved ``days`` days on (the example's days are 20 to 21)."""
    return re.sub(r'"timestamp":"2026-11-(\d\d)', lambda m: f'"timestamp":"2026-11-{int(m.group(1)) + days:02d}', text)


@pytest.fixture(scope="module")
def copies_root(tmp_path_factory) -> Path:
    if not EXAMPLE.is_file():
        pytest.skip(f"{EXAMPLE} is absent")
    base = tmp_path_factory.mktemp("copies")
    text = EXAMPLE.read_text(encoding="utf-8")
    assert re.findall(r'"timestamp":"2026-11-(\d\d)', text)  # the example's times, which the copies move
    for sid, days in COPIES.items():
        d = base / "projects" / "-home-dev-hello-app"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{sid}.jsonl").write_text(_moved(text.replace(OLD_ID, sid), days), encoding="utf-8")
    root = base / "root"
    c = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    assert c.returncode == 0, c.stderr
    return root


NEWEST_FIRST = sorted(COPIES, key=lambda s: -COPIES[s])


def test_equal_hits_come_newest_first_in_text_and_json(copies_root):
    got = json.loads(asz_in_process("search", "greets", "--root", str(copies_root), "--json", "--tz", "UTC").stdout)
    firsts = [h for h in got if h["kind"] == got[0]["kind"] and h["step"] == got[0]["step"]]
    assert [h["conversation"] for h in got[:3]] == NEWEST_FIRST, [(h["conversation"], h["at"]) for h in got]
    assert len({h["snippet"] for h in got[:3]}) == 1 and len(firsts) >= 3  # the same text in each copy: equal scores
    assert got[0]["at"] > got[1]["at"] > got[2]["at"]
    text = asz_in_process("search", "greets", "--root", str(copies_root), "--tz", "UTC").stdout
    shown = [ln.split()[0] for ln in text.splitlines() if ln[:8] in {s[:8] for s in COPIES}]
    assert [s[:8] for s in shown[:3]] == [s[:8] for s in NEWEST_FIRST], text


def test_the_page_gives_the_same_order(copies_root, tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "view_server"))
    from view_server_helpers import Served

    s = Served(["view", "--root", str(copies_root)], tmp_path)
    try:
        r = s.get("/api/search?q=greets")
    finally:
        s.stop()
    assert r.status == 200
    hits = json.loads(r.body)
    assert [h["conversation"] for h in hits[:3]] == NEWEST_FIRST
