"""``asz verify`` on a root a collector is still landing into: it must never report damage that is not there.

A file lands before its cursor moves, and a round's file before the
conversation state that names it; verify reads in the matching order (or
looks again), so a root that grows while it is checked verifies clean.
"""

from __future__ import annotations

import io
import random
import subprocess
import threading
import time
from pathlib import Path

import pytest

from asz_core.collect.collector import Collector, CollectOptions, Report
from asz_core.verify.landed import check_for_walk
from asz_core.storage.layout import session_listing
from asz_core.verify.walk import _verify_session, verify

from collect_helpers import ASZ, append, env, line, mini_args, source_lines


def test_files_landed_after_the_listing_are_walked_not_called_a_gap(dirs, adapter):
    src, root = dirs
    append(src / "s1" / "main.jsonl", *(line(i) for i in range(5)))
    col = Collector(root, adapter, src, options=CollectOptions(fsync=False), report=Report(io.StringIO()))
    col.run_pass()
    sdir = root / "s1"
    listing = session_listing(sdir, skeletons=True)  # what verify listed ...
    append(src / "s1" / "main.jsonl", *(line(i) for i in range(5, 9)))
    assert col.run_pass().landed == 1  # ... before a collector landed seq 2 and moved the cursor past it
    results = [check_for_walk(p) for _, p in listing.files]
    problems: list = []
    streams, records, dups, bare = _verify_session(root, str(root), sdir, listing, results, problems)
    assert problems == [] and (streams, records, dups, bare) == (1, 9, 0, 0)
    # a file really gone is still a gap
    newest = sorted((sdir / "streams" / "main").glob("transcript-*.sd"))[-1]
    newest.chmod(0o644)
    newest.unlink()
    problems = []
    _verify_session(root, str(root), sdir, listing, results, problems)
    assert [p.problem for p in problems] == ["end gap"]


@pytest.mark.slow
def test_verify_while_a_collector_lands_and_parses_finds_nothing_wrong(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    rng = random.Random(7)
    for s in ("s1", "s2", "s3"):
        append(src / s / "main.jsonl", line(0, 500))
    stop = threading.Event()
    written = [0]

    def grow() -> None:
        while not stop.is_set():
            written[0] += 1
            append(src / rng.choice(("s1", "s2", "s3")) / "main.jsonl", line(written[0], rng.randint(100, 4000)))
            time.sleep(0.002)

    writer = threading.Thread(target=grow, daemon=True)
    writer.start()
    proc = subprocess.Popen([*ASZ, "collect", *mini_args(src, root, "--interval", "100ms", "--max-delta-bytes", "8192")],
                            env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not (root / "_conversations").is_dir() and time.monotonic() < deadline:
            time.sleep(0.05)
        runs = 0
        end = time.monotonic() + 6
        while runs < 5 or time.monotonic() < end:  # five verifies at least, however slow the machine (no timing asserted)
            report = verify(root, jobs=1)
            assert report.ok, report.lines()
            runs += 1
    finally:
        stop.set()
        writer.join(timeout=10)
        proc.terminate()
        proc.wait(timeout=60)
    assert verify(root).ok
    assert written[0] > 100 and sum(len(source_lines(src / s / "main.jsonl")) for s in ("s1", "s2", "s3")) == written[0] + 3
