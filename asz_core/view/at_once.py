"""What many requests at once may cost ``asz view`` and ``asz server`` (trial 36a F8: 200 concurrent ``/api/status``
took seconds, and nothing bounded costly searches).

- :class:`Recent`: a figure read from disk kept for :data:`STATUS_KEPT` seconds and computed by one thread at a time,
  so a burst of ``/api/status`` pays for it once (the conversations counted under ``_conversations``, the stat of
  asz's ~430 code files for ``code_changed``: 1.5 ms of CPU a request on the corpus before, every request).
- :class:`AtOnce`: at most :data:`SEARCHES_AT_ONCE` searches and tool-use readings (``/api/search``, ``/api/tools``)
  run together, one bound for both; one more is refused at once, 503 with the
  code ``busy`` and ``Retry-After: 1``, instead of waiting in a thread every other answer needs (docs/view.md,
  Errors).

- :class:`Shared`: one value per key computed by one thread at a time, and taken by every caller that arrived before
  that computation started: a burst of ``/api/conversations`` builds the rows and the answer once, not once a
  request (trial 46c F1: 50 at once, 935 rows, froze the server for 15 minutes).
- :func:`own_threads`: a route answered in threads of its own bound (:data:`OWN_THREADS`), its requests waiting in the
  event loop for one, never in the thread pool every other route shares: ``/api/status`` is answered while a burst of
  lists is (trial 46c F1: 40 list requests held the pool's 40 threads), and a list request whose client left while it
  waited costs nothing.

``bench/status_burst.py`` measures the first two against the cheapest answer in the same run, ``bench/server_burst.py``
the last two.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Generic, Iterator, TypeVar

__all__ = ["STATUS_KEPT", "SEARCHES_AT_ONCE", "OWN_THREADS", "Recent", "AtOnce", "Shared", "own_threads"]

T = TypeVar("T")

#: Seconds ``/api/status`` keeps what it read from disk (the conversations' count, ``code_changed``): a figure is at
#: most this old, and ``asz server``'s pass that ends renews the count at once.
STATUS_KEPT = 1.0
#: The most searches and tool-use readings (``/api/search``, ``/api/tools``, one bound) the server runs together; they share one interpreter, so more at once only
#: makes each slower, and each holds one of the threads every request is answered in.
SEARCHES_AT_ONCE = 4
#: The routes answered in threads of their own (:func:`own_threads`), with how many of their requests run at once: a
#: list answer is built once for the requests that wait for it (:class:`Shared`), so more at once only splits the CPU.
OWN_THREADS = {"/api/status": 4, "/api/conversations": 2}


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


class Shared:
    """One value per key, computed by one thread at a time (:meth:`get`); at most ``kept`` keys kept, the oldest used
    dropped first. Thread-safe."""

    def __init__(self, kept: int = 32):
        self._kept = kept
        self._guard = threading.Lock()
        self._locks: dict[Any, threading.Lock] = {}
        self._got: dict[Any, tuple[float, Any]] = {}  # key -> (when its computation started, monotonic; value)

    def get(self, key: Any, since: float, make: Callable[[], T]) -> tuple[float, T]:
        """``(started, value)``: the value kept under ``key`` when its computation started at ``since`` (monotonic) or
        later, so it read nothing older than a caller that arrived at ``since`` would have read itself; else
        ``make()``'s, computed now (a caller finding another thread computing it waits, then takes that one's)."""
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                hit = self._got.get(key)
            if hit is not None and hit[0] >= since:
                return hit
            started = time.monotonic()
            got = (started, make())
            with self._guard:
                self._got.pop(key, None)
                self._got[key] = got  # the newest last: the first ones are dropped
                while len(self._got) > self._kept:
                    old = next(iter(self._got))
                    del self._got[old]
                    self._locks.pop(old, None)  # one computing it meanwhile keeps its own; at worst two compute once
            return got


#: The request's arrival (monotonic) in its ASGI scope, set by :func:`own_threads`: what :meth:`Shared.get` takes.
ARRIVED = "asz.arrived"


def own_threads(endpoint: Callable[[Any], Any], n: int) -> Callable[[Any], Any]:
    """An async endpoint running the sync ``endpoint(request)`` in a thread, at most ``n`` at once (an anyio capacity
    limiter of its own, made in the event loop that first runs it, again in another: Starlette's in-process client
    runs each request in a loop of its own): a request waits for its turn in the event loop, holding
    no thread of the pool the other routes share; one whose client left meanwhile is not answered (nothing is built
    for it). Its arrival is noted in its scope (:data:`ARRIVED`)."""
    import asyncio

    import anyio
    from starlette.responses import Response

    limiters: list[Any] = [None]

    async def run(request):
        request.scope.setdefault(ARRIVED, time.monotonic())
        loop = asyncio.get_running_loop()
        if limiters[0] is not loop:  # the turn, and the thread it runs in
            limiters[:] = [loop, anyio.CapacityLimiter(n), anyio.CapacityLimiter(n)]
        async with limiters[1]:
            if await request.is_disconnected():  # gone while it waited: no answer is sent, none is built
                return Response(b"", status_code=499)
            return await anyio.to_thread.run_sync(endpoint, request, limiter=limiters[2])

    return run
