"""``_received/seen.list``: the requests a receiving root's receiver answered that left no sender line, by instance
(trial 32c F3; docs/push.md, "Alerting on a host that did not send").

The sender record (:mod:`.senders`) names who sent each landed file; a request that lands nothing leaves no line
there: the empty request each push pass sends first (its probe), a pass whose files were all already there or held,
and a request the receiver refused (a wrong or missing token). So a host with a wrong token read ``never sent``, as a
host that is off. ``asz receive`` appends one JSON line per such sighting to ``<root>/_received/seen.list``::

    {"at":"2026-12-05T17:54:15.2Z","kind":"refused","instance":"ivan@h09","service":"asz","credential":null,
     "why":"the bearer token does not match","requests":3}

``kind`` is ``accepted`` (a logs request the receiver took: a probe, or files landed, already there or held) or
``refused`` (answered 401 / UNAUTHENTICATED; ``why`` says which of the two refusals); ``instance`` and ``service``
the ``service.instance.id`` and ``service.name`` of the request's resource (``null`` when absent, or when the body
of a refused request was not read: an HTTP body over :data:`READ_REFUSED` bytes is read no further, never parsed);
``credential`` the token file's name of the token an accepted request carried (``null`` for a refused one: no token
of the file matched; the token tried is never written); ``at`` the receiver's clock at the last request counted;
``requests`` how many requests of that key (kind, instance, service, credential, why) the line stands for. A key
gets a line at its first request, then at most one each :data:`EVERY` seconds (``$ASZ_RECEIVE_SEEN_EVERY``, 600),
counting the requests between: a pusher passing every few seconds adds six lines an hour, not thousands. Lines held
back are written when their key's time comes, by the receiver's guard within a second of it, and when the receiver
stops. A third kind, ``held``, is written at once, one line per request and session: ``session`` (its directory)
whose files the request sent and the receiver refused only because it holds every record of them from another root
(``requests``: how many files), so ``asz usage instance`` can say which conversations another instance also holds
(trial 32c F2). Not evidence of a landed file (no digest chain: nothing in it names a file): a cut-short last line (a crash
while writing it) is skipped by the reader.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Iterable, Optional

import orjson

from ..envsetting import Setting
from .senders import RECEIVED, read_while_unchanged

__all__ = ["SEEN", "ACCEPTED", "REFUSED", "HELD", "also_held", "EVERY", "READ_REFUSED", "SHORT_WHY", "Seen", "read_seen"]

#: The file under ``_received/``.
SEEN = "seen.list"
#: ``kind`` of a request the receiver took.
ACCEPTED = "accepted"
#: ``kind`` of a request refused for its token.
REFUSED = "refused"
#: ``kind`` of a line naming a session (``session``, its directory) whose files a request sent and the receiver
#: refused as held here whole, landed from another root or another credential (``requests``: how many of its files).
HELD = "held"


#: ``$ASZ_RECEIVE_SEEN_EVERY``: seconds from 0 (a line per request) up to a day, default 600 (``asz receive`` says
#: a value it does not take as it starts: :func:`asz_core.export.receive_http.settings_unused`).
EVERY_SETTING = Setting("ASZ_RECEIVE_SEEN_EVERY", "seconds", 600.0, 0, 86400, low_taken=True, what="the interval")
#: Seconds between two lines of one key (``$ASZ_RECEIVE_SEEN_EVERY``; 0: a line per request).
EVERY = EVERY_SETTING.value()
#: How ``asz senders`` says a refusal's ``why`` (the receiver's words, :data:`asz_core.export.receive.TOKEN_MISMATCH`
#: and ``TOKEN_REQUIRED``).
SHORT_WHY = {"the bearer token does not match": "token does not match", "a bearer token is required": "no token sent"}
#: The largest refused HTTP body (bytes) the receiver parses for its resource: a push's probe and any batch it sends
#: unprobed (``asz push`` probes before a batch over 64 KiB) are below it; a larger one is read no further, unparsed.
READ_REFUSED = 64 * 1024


class Seen:
    """The sightings of one receiving root, appended to its ``_received/seen.list`` (module doc). Thread-safe.
    ``every``: seconds between two lines of one key (None: :data:`EVERY`). ``err``: where a list that cannot be
    written is said (once per error text)."""

    def __init__(self, root: str | os.PathLike, every: float | None = None, err=None):
        self.path = Path(root) / RECEIVED / SEEN
        self.every = EVERY if every is None else every
        self.err = err
        self._lock = threading.Lock()
        self._written: dict[tuple, float] = {}  # key -> monotonic time of its last line
        self._held: dict[tuple, tuple[int, int]] = {}  # key -> (requests not yet written, time ns of the last)
        self._said: set[str] = set()

    def add(self, kind: str, instances: Iterable[Optional[str]], service: Optional[str] = None,
            credential: Optional[str] = None, why: Optional[str] = None) -> None:
        """Count one request of ``kind`` from each of ``instances`` (its resources' ``service.instance.id``; an empty
        iterable counts it under ``null``); its line written now when its key's last line is :attr:`every` seconds old
        or more (or it has none), else held for :meth:`flush`. Never raises."""
        now_ns, now = time.time_ns(), time.monotonic()
        due = []
        with self._lock:
            for inst in sorted(set(instances), key=lambda x: (x is None, x or "")) or [None]:
                key = (kind, inst, service, credential, why)
                n = self._held.get(key, (0, 0))[0] + 1
                if now - self._written.get(key, -1e18) >= self.every:
                    self._held.pop(key, None)
                    self._written[key] = now
                    due.append((key, n, now_ns))
                else:
                    self._held[key] = (n, now_ns)
            self._write(due)

    def held(self, session: str, n: int, instance: Optional[str], service: Optional[str],
             credential: Optional[str]) -> None:
        """A :data:`HELD` line now: ``n`` files of ``session`` (its directory) sent by ``instance`` were refused as held
        here whole. Never raises."""
        from ..sessiondata.times import format_rfc3339

        line = {"at": format_rfc3339(time.time_ns()), "kind": HELD, "instance": instance, "service": service,
                "credential": credential, "session": session, "requests": n}
        with self._lock:
            self._append(orjson.dumps(line) + b"\n")

    def flush(self, everything: bool = False) -> None:
        """Write the lines held back whose key's last line is :attr:`every` seconds old or more (``everything``: all,
        as the receiver stops). Never raises."""
        now = time.monotonic()
        with self._lock:
            due = [(k, n, at) for k, (n, at) in self._held.items()
                   if everything or now - self._written.get(k, -1e18) >= self.every]
            for k, _, _ in due:
                del self._held[k]
                self._written[k] = now
            self._write(due)

    def _write(self, due: list[tuple[tuple, int, int]]) -> None:
        from ..sessiondata.times import format_rfc3339

        if not due:
            return
        out = bytearray()
        for (kind, inst, service, credential, why), n, at in sorted(due, key=lambda d: d[2]):
            line = {"at": format_rfc3339(at), "kind": kind, "instance": inst, "service": service,
                    "credential": credential}
            if why:
                line["why"] = why
            out += orjson.dumps({**line, "requests": n}) + b"\n"
        self._append(bytes(out))

    def _append(self, out: bytes) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, out)
            finally:
                os.close(fd)
        except OSError as exc:
            text = f"error: {self.path}: cannot record the requests seen: {exc.strerror or exc}"
            if self.err is not None and text not in self._said:
                self._said.add(text)
                print(text, file=self.err, flush=True)


def read_seen(root: str | os.PathLike) -> list[dict]:
    """The lines of ``root``'s ``_received/seen.list``, each a dict with ``at`` (RFC 3339 str), ``kind``, ``instance``,
    ``service``, ``credential``, ``requests`` (int) and, for a refusal, ``why``, for a :data:`HELD` line ``session``; a line that is no such object (cut
    short by a crash) is left out. [] when there is none. Never raises."""
    try:
        data = (Path(root) / RECEIVED / SEEN).read_bytes()
    except OSError:
        return []
    out = []
    for raw in data.split(b"\n"):
        try:
            d = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            continue
        if isinstance(d, dict) and isinstance(d.get("at"), str) and d.get("kind") in (ACCEPTED, REFUSED, HELD) \
                and isinstance(d.get("requests"), int):
            out.append(d)
    return out


#: (path, size, mtime_ns) -> :func:`also_held`'s answer: read once while the list is unchanged (``asz ls`` asks it per
#: conversation, through :func:`~asz_core.storage.senders.session_senders`).
_HELD_READ: dict[tuple, dict[str, dict[str, str]]] = {}


def also_held(root: str | os.PathLike) -> dict[str, dict[str, str]]:
    """Session directory -> {instance id: its last :data:`HELD` line's ``at``} of ``root``'s seen list: the instances
    that sent files of the session the receiver refused as held here whole (another root's copy). {} when none. The
    one answer to "who else holds it": ``asz usage instance``'s note and every reader of
    :func:`~asz_core.storage.senders.session_senders` (trial 45c F3)."""
    def read(_path: Path) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for d in read_seen(root):
            if d["kind"] == HELD and isinstance(d.get("session"), str) and isinstance(d.get("instance"), str):
                out.setdefault(d["session"], {})[d["instance"]] = d["at"]
        return out

    return read_while_unchanged(Path(root) / RECEIVED / SEEN, _HELD_READ, read)
