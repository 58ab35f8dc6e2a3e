"""What ``asz receive`` says and keeps of requests beyond the files they land (trial 32c F3 and F7): the instances a
request's resources name (:func:`resources_of`), each request counted in the root's seen list
(:func:`seen_request`, :mod:`asz_core.storage.seen_list`), the words naming a refused request's sender
(:func:`refused_from`), and :class:`Summed`: the requests that land nothing (a push pass's probe, metrics) said in
one line a minute at most. docs/push.md, ``asz receive``.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, TextIO

from ..storage.seen_list import REFUSED

if TYPE_CHECKING:
    from .receive import Receiver

__all__ = ["attrs_of", "request_files", "resources_of", "seen_request", "refused_from", "Summed", "PROBES", "METRICS"]


def attrs_of(rec) -> dict:
    """The attributes of ``rec`` (a resource or a log record): key -> the value its one-of holds (None: none)."""
    out = {}
    for kv in rec.attributes:
        which = kv.value.WhichOneof("value")
        out[kv.key] = getattr(kv.value, which) if which else None
    return out


def request_files(req) -> list[str]:
    """The paths (``asz.file``) the records of ``req`` (an ExportLogsServiceRequest) name, landed or not: what the
    receiver's list-row keeper counts again (:mod:`asz_core.cli.receive_rows`)."""
    return [rel for rl in req.resource_logs for sl in rl.scope_logs for rec in sl.log_records
            if isinstance(rel := attrs_of(rec).get("asz.file"), str)]


def resources_of(req) -> dict[str | None, list[str | None]]:
    """``service.name`` -> the ``service.instance.id`` of each resource of ``req`` (an ``ExportLogsServiceRequest``
    or ``ExportMetricsServiceRequest``) naming that service; None for an attribute absent or not a string. ``{}``
    for a request with no resource (the probe of an asz before 2026-12-05)."""
    out: dict[str | None, list[str | None]] = {}
    for r in list(getattr(req, "resource_logs", ())) + list(getattr(req, "resource_metrics", ())):
        res = attrs_of(r.resource)
        inst, service = res.get("service.instance.id"), res.get("service.name")
        out.setdefault(service if isinstance(service, str) else None, []).append(inst if isinstance(inst, str) else None)
    return out


def seen_request(receiver: "Receiver | None", kind: str, req, credential: str | None = None,
                 why: str | None = None) -> list[str]:
    """Count ``req`` in ``receiver``'s :class:`~asz_core.storage.seen_list.Seen` (nothing when None) as ``kind``
    (accepted or refused) per service and instance of its resources; returns the instance ids it names, sorted."""
    by = resources_of(req)
    if receiver is not None and (by or kind == REFUSED):  # a resourceless probe (an older asz) names no one
        for service, insts in (by or {None: []}).items():
            receiver.seen.add(kind, insts, service, credential, why)
    return sorted({i for insts in by.values() for i in insts if i is not None})


def refused_from(names: list[str]) -> str:
    """`` from dev@hostA`` (the instance ids a refused request's resources name, each as
    :func:`~asz_core.storage.senders.instance_word` writes it, comma-separated), '' for none."""
    from ..storage.senders import instance_word

    return f" from {', '.join(instance_word(n) for n in names)}" if names else ""


#: :class:`Summed`'s kinds: a logs request with no record (a push pass's probe), and a metrics request.
PROBES = "logs: {n} request(s) with no file (push passes' probes), answered{by}"
METRICS = "metrics: {n} request(s), {points} data point(s), answered and not kept{by}"


class Summed:
    """What the receiver says summed, per kind, on ``err``: the first at once, then one line a minute at most with what
    came since the last; :meth:`flush` says what a minute has passed for, and everything as the receiver stops. The
    kinds: the requests that land nothing (:data:`PROBES`, :data:`METRICS`: trial 32c F7, a storm's stderr was 58 %
    metrics lines, and each pass's probe a line naming no one), with their data points and instances (``credential
    NAME`` for a token's name); and the connections the front closed or its clients dropped without a request
    (:mod:`.receive_http`'s ``TIMED_OUT``, ``DROPPED``, ``EVICTED``: trial 27c F7). A kind is a :meth:`str.format`
    pattern given ``n`` (the count), ``points``, ``by`` (``; from …`` or '') and the words it was last added with."""

    def __init__(self, err: TextIO | None, every: float = 60.0):
        self.err, self.every = err, every
        self._lock = threading.Lock()
        self._held: dict[str, dict] = {}
        self._said: dict[str, float] = {}

    def add(self, kind: str, points: int = 0, names: list[str] = (), credential: str | None = None, **fmt) -> None:
        """Count one of ``kind`` (``points``: a request's data points; ``names``: the instance ids it names; ``fmt``:
        words its line is said with, the last given kept)."""
        from ..storage.senders import sender_label
        from .receive import said  # before the clock is read: the first import is slow

        now = time.monotonic()
        with self._lock:
            h = self._held.setdefault(kind, {"n": 0, "points": 0, "names": set(), "fmt": {}})
            h["n"] += 1
            h["points"] += points
            h["names"].update(sender_label({"instance": x, "credential": credential}) for x in names or ())
            h["fmt"] = fmt
            if now - self._said.get(kind, -1e18) < self.every:
                return
            self._said[kind] = now
            line = self._line(kind, self._held.pop(kind))
        said(self.err, line)

    def flush(self, everything: bool = False) -> None:
        """Say each kind whose last line is a minute old or more (``everything``: each, as the receiver stops)."""
        now = time.monotonic()
        with self._lock:
            due = [k for k in self._held if everything or now - self._said.get(k, -1e18) >= self.every]
            lines = []
            for k in due:
                self._said[k] = now
                lines.append(self._line(k, self._held.pop(k)))
        from .receive import said

        for line in lines:
            said(self.err, line)

    def _line(self, kind: str, h: dict) -> str:
        by = f"; from {', '.join(sorted(h['names']))}" if h["names"] else ""
        return kind.format(n=h["n"], points=h["points"], by=by, **h["fmt"])
