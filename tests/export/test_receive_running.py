"""The count a stopping ``asz receive`` keeps of its HTTP/1.1 handlers and its gRPC calls' methods still running, one
piece for both (receive_running.Running, fix47d): by key, so a handler both ends say ended is counted once; a gRPC
method counted for its ``with`` block; at a drain's end the ones left said in one set of words (fix46a), nothing when
none. The receivers' own stops are tested in test_receive_stop_at_pair.py."""

from __future__ import annotations

import io
import threading

from asz_core.export.receive_running import Running

WORDS = ("asz receive: 2 request(s) still landing after 0.5 s; it takes no other and ends once they have (each file "
         "whole with its sender line, or absent; the sender sends what was not answered again)\n")


def test_a_key_ended_twice_is_counted_once_and_the_ones_left_are_said():
    running, err = Running(), io.StringIO()
    for key in (1, 2, 3, 3):
        running.started(key)
    running.ended(3)
    running.ended(3)  # a signal just after the thread started: both ends say it ended
    assert running.now() == 2 and running.drained("request(s)", 0.5, err) == 2 and err.getvalue() == WORDS
    running.ended(1)
    threading.Timer(0.05, running.ended, (2,)).start()
    assert running.none_within(5) and running.drained("request(s)", 0.5, err, wait=5) == 0 and err.getvalue() == WORDS


def test_a_method_counts_while_its_block_runs():
    running = Running()
    with running.method():
        with running.method():
            assert running.now() == 2 and not running.none_within(0)
        assert running.now() == 1
    assert running.now() == 0 and running.drained("gRPC call(s)", 0.5, None) == 0
