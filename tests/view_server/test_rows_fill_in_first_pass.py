"""Trial 48b F2: during ``asz server``'s first pass the list gave every row as ``counting…`` with no title until the
pass ended (295 MB: 410 rows for 100 s), although ``/api/status`` said ``keeping the list rows, 398 of 410 done`` and
``_index/summaries.sqlite`` held them. docs/view.md: a row gives its figures "when they are kept, in memory … or in
``_index/summaries.sqlite``". A row the pass has kept now gives them at once, while the pass still runs.

Real input: one corpus transcript copied under fresh ids (tests/project_spellings.py's rule) into a source folder a
real ``asz server`` on loopback collects; each copy's tokens are counted here from its lines (each call once, its last
line, as ccusage counts them) and its title is its first prompt's first words.

The moment looked for is held open whatever the machine's speed: once the pass has kept a row in
``_index/summaries.sqlite``, the test takes the store's write lock for 3 s at a time (the pass's next row waits for it,
within the store's 5 s busy wait), so the pass cannot end between two looks however fast it keeps the rest."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from project_spellings import SOURCE, _IDS, _fresh, calls_and_tokens
from view_server_helpers import Served

COPIES = 48  # three runs of the keeping's 16 (asz_core.reading.listing.RUN_MOST): some kept, some not, while held
#: Seconds the test holds the store's write lock at a time: within its busy wait (summary_cache.BUSY_WAIT, 5 s), so a
#: row waiting for it is kept after, never given up.
HOLD_S = 3.0
PROMPT = "Oh, I just found out that this is not supported by Chrome"  # the transcript's first prompt starts so


def _copies(corpus_projects: Path, to: Path) -> int:
    """Write :data:`COPIES` copies of :data:`SOURCE` under fresh ids into ``to``; return each copy's tokens
    (:func:`~project_spellings.calls_and_tokens`, counted from its lines)."""
    text = (corpus_projects / SOURCE).read_text(encoding="utf-8")
    tokens = calls_and_tokens(text)[1]
    to.mkdir(parents=True)
    for copy in range(1, COPIES + 1):
        body = _IDS.sub(lambda m: _fresh(m.group(0), copy), text)
        (to / f"{json.loads(body.splitlines()[0])['sessionId']}.jsonl").write_text(body, encoding="utf-8")
    return tokens


def _hold_the_store(store: Path, stop: threading.Event) -> None:
    """Each time ``store`` holds more kept rows than when last looked at, hold its write lock for :data:`HOLD_S`
    seconds (``BEGIN IMMEDIATE``, then rolled back: nothing written), until ``stop``."""
    con, last = None, 0
    try:
        while not stop.wait(0.005):
            if con is None:
                if not store.exists():
                    continue
                con = sqlite3.connect(store, timeout=30, isolation_level=None)
            try:
                n = con.execute("SELECT count(*) FROM rows").fetchone()[0]
            except sqlite3.OperationalError:  # no table yet
                continue
            if n > last:
                con.execute("BEGIN IMMEDIATE")
                stop.wait(HOLD_S)
                con.execute("ROLLBACK")
                last = con.execute("SELECT count(*) FROM rows").fetchone()[0]
    finally:
        if con is not None:
            con.close()


def _usage_tokens(u: dict) -> int:
    return sum(u.get(k) or 0 for k in ("in", "out", "cache_read", "cache_write"))


@pytest.mark.slow
def test_rows_kept_by_the_first_pass_are_given_while_it_runs(corpus_projects, tmp_path):
    tokens = _copies(corpus_projects, tmp_path / "src" / "-Users-alex-workspace-personal-site-next")
    assert tokens > 0
    s = Served(["server", "--root", str(tmp_path / "root"), "--source", str(tmp_path / "src"), "--adapter",
                "claude-code-local", "--no-follow", "--interval", "10m"], tmp_path, timeout=60)
    seen, mid = [], None
    stop = threading.Event()
    holder = threading.Thread(target=_hold_the_store, args=(tmp_path / "root" / "_index" / "summaries.sqlite", stop),
                              daemon=True)
    holder.start()
    try:
        deadline = time.monotonic() + 120
        while mid is None:
            status = s.get("/api/status").json()
            assert status["last_pass"] is None and time.monotonic() < deadline, (seen[-5:], s.output()[-2000:])
            m = re.search(r"keeping the list rows, (\d+) of (\d+) done", status["reading"])
            rows = s.get("/api/conversations").json()["conversations"]
            kept = [r for r in rows if not r.get("counting")]
            seen.append((round(time.monotonic() - s.started, 1), status["reading"], len(rows), len(kept)))
            if m and kept and len(kept) < COPIES and s.get("/api/status").json()["last_pass"] is None:
                mid = kept  # answered while the pass keeps the rows: those it kept are given whole
            time.sleep(0.05)
    finally:
        stop.set()
        holder.join(10)
        s.stop()
    assert mid, [x for i, x in enumerate(seen) if i == 0 or x[1:] != seen[i - 1][1:]]
    for r in mid:
        assert r["title"].startswith(PROMPT[:40]), r["title"]
        assert _usage_tokens(r["usage"]) == tokens, r
        assert "counting" not in r
