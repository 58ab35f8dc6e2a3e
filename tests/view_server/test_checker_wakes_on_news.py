"""An idle server's state checker waits for news instead of re-listing every conversation's files every 2 s (trial 42c
F5: ~4 % of a core idle, 10k system calls a scan), and ``/api/status`` says how long its reading has lasted (F6).

Real folders and a real :class:`~asz_core.view.state.ViewState`: the checker's wait
(:func:`asz_core.view.checker_wake.wait_for_news`) ends when a round file appears in a conversation's ``rounds``
folder, when a conversation appears, when a pass of ``asz server`` landed something (its generation), and after
``full`` seconds at most; with nothing changing it keeps waiting. The idle CPU figure is bench/server_follow.py's
(docs/performance.md, Session 42).
"""

from __future__ import annotations

import threading
import time

from asz_core.view.checker_wake import wait_for_news, wake_mark
from asz_core.view.state import ViewState


def _waited(state, action, full: float = 30.0) -> float:
    """Seconds :func:`wait_for_news` waited (looking every 0.05 s) when ``action`` runs 0.3 s into the wait."""
    stop, mark = threading.Event(), wake_mark(state)
    timer = threading.Timer(0.3, action)
    started = time.monotonic()
    timer.start()
    wait_for_news(state, stop, 0.05, mark, full=full)
    timer.join()
    return time.monotonic() - started


def test_the_checker_waits_until_a_round_a_conversation_or_a_pass_is_new(tmp_path):
    rounds = tmp_path / "_conversations" / "c1" / "rounds"
    rounds.mkdir(parents=True)
    (rounds / "000001.json").write_bytes(b"{}\n")
    state = ViewState(tmp_path, mode="server")
    assert 0.3 <= _waited(state, lambda: (rounds / "000002.json").write_bytes(b"{}\n")) < 5  # a new round
    assert 0.3 <= _waited(state, lambda: (tmp_path / "_conversations" / "c2" / "rounds").mkdir(parents=True)) < 5
    assert 0.3 <= _waited(state, lambda: state.set_pass({"landed": 1, "rounds": 1}, 0, None)) < 5  # a pass landed
    # nothing new (a round rewritten in place changes no folder: told by the whole check): it waits until ``full``
    mark = wake_mark(state)
    (rounds / "000001.json").write_bytes(b"{ }\n")
    started = time.monotonic()
    wait_for_news(state, threading.Event(), 0.05, mark, full=1.5)
    assert time.monotonic() - started >= 1.5


def test_status_says_how_long_its_reading_has_lasted(tmp_path):
    state = ViewState(tmp_path, mode="server")
    assert state.status()["reading"] == "" and state.status()["reading_for"] == 0
    state.reading = "checking conversations: 0 of 2 done"
    time.sleep(0.3)
    state.reading = "checking conversations: 1 of 2 done"  # the words change, the reading goes on
    st = state.status()
    assert st["reading"] == "checking conversations: 1 of 2 done" and 300 <= st["reading_for"] < 60_000
    state.reading = ""
    assert state.status()["reading_for"] == 0
    state.reading = "checking conversations: 0 of 1 done"  # a new reading counts from its own start
    assert state.status()["reading_for"] < 300
