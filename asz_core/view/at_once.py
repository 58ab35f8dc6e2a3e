"""What many requests at once may cost ``asz view`` and ``asz server`` (trial 36a F8: 200 concurrent ``/api/status``
took seconds, and nothing bounded costly searches).

- :class:`Recent`: a figure read from disk kept for :data:`STATUS_KEPT` seconds and computed by one thread at a time,
  so a burst of ``/api/status`` pays for it once (the conversations counted under ``_conversations``, the stat of
  asz's ~430 code files for ``code_changed``: 1.5 ms of CPU a request on the corpus before, every request).
- :class:`AtOnce`: at most :data:`SEARCHES_AT_ONCE` searches and tool-use readings (``/api/search``, ``/api/tools``)
  run together, one bound for both; one more is refused at once, 503 with the
  code ``busy`` and ``Retry-After: 1``, instead of waiting in a thread every other answer needs (docs/view.md,
  Errors).

``bench/status_burst.py`` measures both against the cheapest answer in the same run.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Generic, Iterator, TypeVar

__all__ = ["STATUS_KEPT", "SEARCHES_AT_ONCE", "Recent", "AtOnce"]

T = TypeVar("T")

#: Seconds ``/api/status`` keeps what it read from disk (the conversations' count, ``code_changed``): a figure is at
#: most this old, and ``asz server``'s pass that ends renews the count at once.
STATUS_KEPT = 1.0
#: The most searches and tool-use readings (``/api/search``, ``/api/tools``, one bound) the server runs together; they share one interpreter, so more at once only
#: makes each slower, and each holds one of the threads every request is answered in.
SEARCHES_AT_ONCE = 4


class Recent(Generic[T]):
    """``make()`` computed at most once every ``seconds`` (monotonic), by one thread at a time: a caller that finds it
    older waits for the one computing it and takes its value. :meth:`forget` makes the next call compute it again,
    :meth:`set` puts a value known fresh."""

    def __init__(self, make: Callable[[], T], seconds: float = STATUS_KEPT):
        self._make, self._seconds = make, seconds
        self._lock = threading.Lock()
        self._value: T | None = None
        self._at: float | None = None

    def value(self) -> T:
        with self._lock:
            now = time.monotonic()
            if self._at is None or now - self._at >= self._seconds:
                self._value, self._at = self._make(), now
            return self._value  # type: ignore[return-value]

    def set(self, value: T) -> None:
        with self._lock:
            self._value, self._at = value, time.monotonic()

    def forget(self) -> None:
        with self._lock:
            self._at = None


class AtOnce:
    """At most ``n`` calls of what :meth:`bounded` wraps run together; one more raises ``error(503, …, code="busy")``
    at once, ``Retry-After: 1`` in its ``headers`` (``what``: the calls' name in the message, ``searches``)."""

    def __init__(self, n: int, what: str):
        self.n, self.what = n, what
        self._slots = threading.BoundedSemaphore(n)

    def bounded(self, answer: Callable[..., Any]) -> Callable[..., Any]:
        """``answer(root, pairs, hide, error)`` (:func:`~asz_core.view.app.json_answer`'s shape) bounded."""

        def run(root, pairs, hide, error):
            with self.slot(error):
                return answer(root, pairs, hide, error)

        return run

    @contextmanager
    def slot(self, error: Callable[..., Exception]) -> Iterator[None]:
        """Hold one of the ``n`` slots while the block runs; none free: ``error(503, …)`` raised at once (``error``:
        :class:`~asz_core.view.query.ApiError` or the shape :meth:`bounded`'s answers are given)."""
        if not self._slots.acquire(blocking=False):
            raise error(503, f"busy: this server is answering {self.n} {self.what} already, the most it runs at "
                             "once; ask again in a moment", code="busy", headers={"retry-after": "1"})
        try:
            yield
        finally:
            self._slots.release()
