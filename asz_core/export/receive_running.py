"""What a stopping ``asz receive`` counts of the requests still running on both its protocols: its HTTP/1.1
requests' handlers (:class:`~asz_core.export.receive_http.Server`) and its gRPC calls' methods
(:func:`~asz_core.export.receive_grpc.stop_calls`), each by a key (:class:`Running`), a wait for none, and the one
line said of those still running as the drain ends (:func:`still_landing`; fix46a: one set of words for both)."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Hashable, Iterator, TextIO

__all__ = ["Running", "still_landing"]


def still_landing(n: int, what: str, drain: float) -> str:
    """The line a stopping receiver says of ``n`` requests (``what``: ``request(s)``, HTTP/1.1; ``gRPC call(s)``) still
    landing once its drain of ``drain`` seconds is over: one set of words for both protocols (fix46a)."""
    return (f"asz receive: {n} {what} still landing after {drain:g} s; it takes no other and ends once they have (each "
            "file whole with its sender line, or absent; the sender sends what was not answered again)")


class Running:
    """The requests or calls of a receiver running now, each by a key: a set, so one started or ended twice (a signal
    stopping the receiver just after an HTTP handler's thread started: both ends then say it ended) is never counted
    twice; a wait for none, and what is said of those left at a drain's end (:meth:`drained`)."""

    def __init__(self) -> None:
        self._keys: set[Hashable] = set()
        self._cond = threading.Condition()

    def started(self, key: Hashable) -> None:
        """Count ``key`` as running."""
        with self._cond:
            self._keys.add(key)

    def ended(self, key: Hashable) -> None:
        """Count ``key`` as ended (again: nothing)."""
        with self._cond:
            self._keys.discard(key)
            self._cond.notify_all()

    @contextmanager
    def method(self) -> Iterator[None]:
        """Count the ``with`` block as running (a gRPC call's method)."""
        key = object()
        self.started(key)
        try:
            yield
        finally:
            self.ended(key)

    def now(self) -> int:
        """How many run now."""
        with self._cond:
            return len(self._keys)

    def none_within(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until none runs; True when none does."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._keys, timeout)

    def drained(self, what: str, drain: float, err: TextIO | None, wait: float = 0.0) -> int:
        """Wait up to ``wait`` seconds until none runs, then say on ``err`` how many still do, as ``what``, once a drain
        of ``drain`` seconds is over (:func:`still_landing`; nothing when none does); how many."""
        with self._cond:
            self._cond.wait_for(lambda: not self._keys, wait)
            late = len(self._keys)
        if late and err is not None:
            print(still_landing(late, what, drain), file=err, flush=True)
        return late
