"""Crash safety: ``asz collect`` killed with SIGKILL at random moments while its sources grow (:mod:`crash_loop`).

After every kill a clean pass must show every complete source line landed at
least once, repeats only of whole records, no gap in ord, and every landed
file passing check_file. ``bench/crash.py`` runs the same loop as many times as asked.
"""

from __future__ import annotations

import random
import time

import pytest

from crash_loop import kill_loop

KILLS = 32


@pytest.mark.slow
@pytest.mark.parametrize("jobs,kills", [("2", KILLS), ("1", KILLS // 2)], ids=["sessions-in-2-processes", "one-process"])
def test_sigkill_at_random_moments_loses_nothing(tmp_path, jobs, kills):
    """32 kills of a collector landing sessions in two worker processes (the default on two CPUs), 16 of one landing
    them itself; after each, no worker alive and the command's pipes closed."""
    started = time.monotonic()
    written, repeats = kill_loop(tmp_path / "src", tmp_path / "data", kills, jobs, random.Random(20261129))
    assert written > 250 * kills // KILLS  # the sources really grew under the collector
    assert time.monotonic() - started < 40 * kills
    print(f"{kills} kills, {written} lines written, {repeats} records landed twice")


@pytest.mark.slow
def test_200_kills_leave_no_worker_and_lose_nothing(tmp_path):
    """Issue 23: 200 SIGKILLs of a collector with two workers; 0 workers outlive their command, 0 records lost."""
    written, repeats = kill_loop(tmp_path / "src", tmp_path / "data", 200, "2", random.Random(20261201))
    assert written > 250 * 200 // KILLS
    print(f"200 kills, 0 surviving workers, {written} lines written, {repeats} records landed twice")
