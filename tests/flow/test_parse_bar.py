"""The parse progress bar counts sessions as the workers finish them, not as their runs come back (hpool).

A worker parses a run of sessions and sends the run's outcomes back at its end; the first runs hold a quarter of
the sessions each (:func:`asz_core.collect.workers.guided`). The bar used to move only when a run came back, so
after Ctrl-C it said 0/202 while the command said ``interrupted after 55 of 202 sessions``. Here the second
session of the first run waits on its chain lock, held by the test until the bar moves: the bar must move while
that run is still out. Real sessions of ../shared/corpus, collected and parsed once, parsed again by two workers.
"""

from __future__ import annotations

import pytest

from asz_core.collect.workers import guided
from cli_helpers import fork_or_skip
from asz_core.flow.chain import Chain
from asz_core.flow.parse import parse_root
from asz_core.storage.layout import session_dirs


def test_the_parse_bar_moves_as_sessions_end_before_their_run_comes_back(corpus_copy):
    fork_or_skip()
    root = corpus_copy()
    names = [p.name for p in session_dirs(root)]
    first = guided(names, 2)[0]
    assert len(names) == 11 and len(first) == 2  # the corpus's 11 main sessions; the first run holds two
    held = Chain(root, first[1]).lock()  # the first run's second session waits here until the bar has moved
    steps: list[tuple[str, int]] = []

    def step(name: str, n: int) -> None:
        if n == 0:
            return  # a tick while no session ends (parse_root's docstring): the bar has not moved yet
        steps.append((name, n))
        held.unlock()  # the bar moved: let the first run finish

    try:
        report = parse_root(root, jobs=2, lock_timeout=600, step=step)
    finally:
        held.unlock()
    # the first move came while no run had come back (a run's outcome names its last session; a tick names none yet).
    # A tick of 0 under load came first once and unlocked the chain before the bar moved: those are not moves.
    assert steps[0][0] == "" and steps[0][1] >= 1, steps
    assert [o.session for o in report.outcomes] == names and report.ok, report.problems
    assert sum(n for _, n in steps) == len(names)  # every session counted once
