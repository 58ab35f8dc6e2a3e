"""The background checker gives way to a reader (issue 22): no background build while a conversation was read
less than READ_QUIET seconds ago; once the reader is quiet, every conversation's state is found."""

from __future__ import annotations

import threading
import time

from asz_core.view.background import READ_QUIET
from asz_core.view.server import ViewState


class _StopOnWait(threading.Event):
    """A stop event that is set the first time the checker waits on it: the checker waited instead of building."""

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        self.set()
        return True


def test_the_checker_waits_for_a_quiet_reader_then_checks_every_conversation(example_root):
    state = ViewState(example_root)
    conversations = state.conversations()
    assert conversations  # the bundled example holds conversations to check

    state.last_read = time.monotonic() + 3600  # a conversation read "just now", for the next hour
    stop = _StopOnWait()
    assert state.check_all(stop) == 0
    assert stop.waits == 1 and state.checked == 0 and state.builds == 0
    assert all(state.known_state(c) is None for c in conversations)

    state.last_read = time.monotonic() - READ_QUIET  # the reader has been quiet long enough
    assert state.check_all(threading.Event(), pause=0) == len(conversations)
    assert state.checked == len(conversations) and state.builds == 0  # checks are not counted as reader builds
    assert all(state.known_state(c) == "verified" for c in conversations)
