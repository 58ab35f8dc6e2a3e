"""The page server on a laptop (issue 23): Host check, header and idle timeouts, a connection cap, quiet errors.

- :class:`HostGuard` answers a request only when its ``Host`` names a loopback
  name or address (``localhost``, ``127.0.0.0/8``, ``::1``) or the address the
  server listens on; any other is answered 421 with a one-line reason and
  nothing else, so a web page that rebinds its own name to 127.0.0.1 (DNS
  rebinding) reads nothing. A request with both ``Transfer-Encoding`` and
  ``Content-Length`` is answered 400 and its connection closed (h11 frames it
  by its chunks and would read on: what a proxy in front framed as its body
  would be read as the next request; trial 42a F1).
- :class:`GuardedH11` is uvicorn's h11 protocol with a header timeout (a
  connection must finish a request's headers within :data:`HEADER_TIMEOUT`
  seconds of connecting or of sending its first byte after a keep-alive) and a
  connection cap: past :func:`connection_cap` open connections, the ones that
  have been idle longest (no request in progress) are closed to make room, so
  the server keeps answering however many idle connections are held open.
  Idle keep-alive connections close after :data:`IDLE_TIMEOUT` seconds.
- :func:`raise_open_files` lifts the soft open-files limit to the hard one,
  and :func:`log_once` / :class:`OnceFilter` log a repeated error once (then a
  count at most once a minute), never once per request.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..httpbody import BOTH_FRAMINGS
from ..netguard import HEADER_TIMEOUT as _HEADER
from ..netguard import IDLE_TIMEOUT as _IDLE
from ..netguard import MISDIRECTED, accept_batch, connection_cap, host_allowed, raise_open_files, refusal, seconds

__all__ = ["HostGuard", "host_allowed", "GuardedH11", "connection_cap", "raise_open_files", "log_once", "OnceFilter",
           "HEADER_TIMEOUT", "IDLE_TIMEOUT", "uvicorn_config"]


#: Seconds a connection has to send a request's complete headers (environment ``ASZ_VIEW_HEADER_TIMEOUT`` overrides).
HEADER_TIMEOUT = seconds("ASZ_VIEW_HEADER_TIMEOUT", _HEADER)
#: Seconds an idle keep-alive connection stays open (environment ``ASZ_VIEW_IDLE_TIMEOUT`` overrides).
IDLE_TIMEOUT = seconds("ASZ_VIEW_IDLE_TIMEOUT", _IDLE)
_421 = f"421 Misdirected Request: {MISDIRECTED}\n".encode()
#: The body of the 400 for bytes that are not an HTTP/1.1 request (:meth:`GuardedH11.send_400_response`).
BAD_REQUEST_BODY = (b'{"error":"bad request: not a valid HTTP/1.1 request line or header (a byte outside ASCII in the '
                    b'address must be %-encoded, RFC 3986)","code":"bad_request"}')
#: The body of ``asz view``'s 400 for a request with no ``Host`` that h11 let through (HTTP/1.0 may omit it; trial 36a
#: F6: it was the 421 of a foreign Host, where docs/view.md says 400).
NO_HOST_BODY = (b'{"error":"bad request: no Host header; this server answers only requests that name it (localhost, a '
                b'loopback address or the address it listens on)","code":"bad_request"}')


class HostGuard:
    """ASGI middleware: refuse with 421 every HTTP request whose ``Host`` :func:`host_allowed` refuses.

    ``app`` is the wrapped application (its ``state`` is exposed as this one's). ``origin``: also refuse with 403 a
    request whose ``Origin`` is not the server's own (:func:`~asz_core.netguard.refusal`; ``asz ingest langsmith``,
    trial 34c F2); ``any_host``: a token guards the server, the Host is not checked; ``json``: the refusal's body is
    ``{"error": why}`` (the receiver's errors) instead of a line of text; ``no_host_400``: a request with no ``Host``
    at all (HTTP/1.0) is a 400 with :data:`NO_HOST_BODY`, as h11 answers an HTTP/1.1 one (``asz view``)."""

    def __init__(self, app: Any, listen_host: str = "127.0.0.1", *, origin: bool = False, any_host: bool = False,
                 json: bool = False, no_host_400: bool = False):
        self.app = app
        self.state = getattr(app, "state", None)
        self.listen_host = listen_host
        self.origin, self.any_host, self.json, self.no_host_400 = origin, any_host, json, no_host_400

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            host = origin = None
            names = set()
            for k, v in scope.get("headers") or ():
                names.add(k)
                if k == b"host" and host is None:
                    host = v.decode("latin-1")
                elif k == b"origin" and origin is None and self.origin:
                    origin = v.decode("latin-1")
            if {b"transfer-encoding", b"content-length"} <= names:  # h11 frames it by its chunks, and would keep the
                # connection open for what follows: a proxy framing it by Content-Length reads that as its body (trial 42a F1)
                body = json.dumps({"error": f"bad request: {BOTH_FRAMINGS}", **({} if self.json else {"code": "bad_request"})},
                                  separators=(",", ":"))
                return await _refuse(send, 400, body.encode(), b"application/json")
            server = scope.get("server")
            got = refusal(host, origin, self.listen_host, server[0] if server else None, any_host=self.any_host)
            if got is not None:
                status, why = got
                if host is None and self.no_host_400 and not self.any_host:
                    status, body, ctype = 400, NO_HOST_BODY, b"application/json"
                elif self.json:
                    body, ctype = json.dumps({"error": why}).encode(), b"application/json"
                else:
                    body = _421 if status == 421 else f"{status} Forbidden: {why}\n".encode()
                    ctype = b"text/plain; charset=utf-8"
                return await _refuse(send, status, body, ctype)
        await self.app(scope, receive, send)


async def _refuse(send, status: int, body: bytes, ctype: bytes) -> None:
    """Answer ``status`` with ``body`` and close the connection after it (its request's body, if any, left unread)."""
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


# --------------------------------------------------------------------------- logging once

_seen_lock = threading.Lock()
_seen: dict[str, list] = {}  # key -> [count, last time a summary was logged]


def log_once(logger: logging.Logger, key: str, msg: str, *args: Any, exc_info: bool = False) -> None:
    """Log ``msg`` at error level the first time ``key`` is met; later ones only as a count, at most once a minute."""
    now = time.monotonic()
    with _seen_lock:
        hit = _seen.get(key)
        if hit is None:
            _seen[key] = [0, now]
        else:
            hit[0] += 1
            if now - hit[1] < 60:
                return
            n, hit[0], hit[1] = hit[0], 0, now
    if hit is None:
        logger.error(msg, *args, exc_info=exc_info)
    else:
        logger.error("the same error again %d more time(s) in the last minute: " + msg, n, *args)


class OnceFilter(logging.Filter):
    """A logging filter that lets each distinct message through once, then a count at most once a minute."""

    def filter(self, record: logging.LogRecord) -> bool:
        first = str(record.msg).split("\n", 1)[0]
        key = f"{record.name}:{record.levelno}:{re.sub(r'[0-9]+', '#', first)[:100]}"
        now = time.monotonic()
        with _seen_lock:
            hit = _seen.get(key)
            if hit is None:
                _seen[key] = [0, now]
                return True
            hit[0] += 1
            if now - hit[1] < 60:
                return False
            n, hit[0], hit[1] = hit[0], 0, now
        record.msg = f"(repeated {n} time(s) in the last minute) {record.msg}"
        record.exc_info = None
        record.exc_text = None
        return True


# --------------------------------------------------------------------------- connections


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a header timeout and a cap on open connections (idle ones closed first).

    :attr:`cap` is set by :func:`uvicorn_config`. A connection counts as idle
    while no request is in progress on it; past the cap, the longest-idle
    connections other than the newest are closed.
    """

    cap = 4096
    header_timeout = HEADER_TIMEOUT

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._active = self.loop.time()
        self._hdr: Any = None
        self._hdr_cycle = self.cycle
        self._arm_header_timer()
        if len(self.connections) > self.cap:
            self._evict()

    def _arm_header_timer(self) -> None:
        if self._hdr is not None:
            self._hdr.cancel()
        self._hdr_cycle = self.cycle
        self._hdr = self.loop.call_later(self.header_timeout, self._header_timed_out)

    def _header_timed_out(self) -> None:
        self._hdr = None
        if self.cycle is self._hdr_cycle:  # no request's headers arrived in time
            self._close()

    def _close(self) -> None:
        if self.transport.is_closing():
            return
        try:
            self.conn.send(h11.ConnectionClosed())
        except h11.LocalProtocolError:
            pass
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        self._active = self.loop.time()
        super().data_received(data)
        if self.cycle is not self._hdr_cycle:
            if self._hdr is not None:
                self._hdr.cancel()
                self._hdr = None
            self._hdr_cycle = self.cycle
        elif self._hdr is None and not self.transport.is_closing():
            self._arm_header_timer()  # the first bytes of a next request on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_hdr", None) is not None:
            self._hdr.cancel()
            self._hdr = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:  # noqa: ARG002  (uvicorn's words: "Invalid HTTP request received.")
        """The answer to bytes h11 cannot read as an HTTP/1.1 request (a raw byte outside ASCII in the target, a broken
        request line or header): the documented refusal, ``{"error": …}`` as JSON with status 400 (docs/view.md,
        Endpoints), not uvicorn's plain text; the connection is closed after it (trial 29b F9)."""
        body = BAD_REQUEST_BODY
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close")]
        try:
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body),
                          h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:  # h11 cannot answer in the state the bad bytes left: the connection is closed
            pass
        self.transport.close()

    def idle(self) -> bool:
        """True while no request is in progress on this connection."""
        return self.cycle is None or self.cycle.response_complete

    def _evict(self) -> None:
        over = len(self.connections) - self.cap
        idle = [c for c in self.connections if c is not self and isinstance(c, GuardedH11) and c.idle()
                and not c.transport.is_closing()]
        idle.sort(key=lambda c: c._active)
        for c in idle[: max(over, 0) + max(1, self.cap // 16)]:  # room for a few more before the next eviction
            c._close()


def uvicorn_config(app: Any, host: str, port: int, **kw: Any):
    """A ``uvicorn.Config`` for ``app`` with the guards above: :class:`GuardedH11`, idle timeout, quiet repeated errors."""
    import uvicorn

    open_files = raise_open_files()
    proto = type("GuardedH11Capped", (GuardedH11,), {"cap": connection_cap(open_files)})
    for name in ("asyncio", "uvicorn.error"):
        lg = logging.getLogger(name)
        if not any(isinstance(f, OnceFilter) for f in lg.filters):
            lg.addFilter(OnceFilter())
    return uvicorn.Config(app, host=host, port=port, http=proto, timeout_keep_alive=IDLE_TIMEOUT, backlog=accept_batch(open_files),
                          log_level="warning", access_log=False, lifespan="off", server_header=False, ws="none", **kw)
