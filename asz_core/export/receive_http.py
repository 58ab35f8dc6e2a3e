"""``asz receive``'s one port: the front listener, its HTTP/1.1 handler and its defences (trial 27c F7).

:class:`Front` reads the first bytes of each connection without consuming them: the HTTP/2 client preface (gRPC on
a plain-text channel) is relayed byte for byte to the receiver's inner grpcio server (:func:`pipe`); any other
connection is HTTP/1.1, answered by :class:`Http` (``POST /v1/logs``, ``POST /v1/metrics``). :class:`Server` gives
the port the view's defences (:mod:`asz_core.netguard`; docs/push.md, The receiver's limits):

- a header timeout: a connection has :data:`HEADER_TIMEOUT` seconds (``$ASZ_RECEIVE_HEADER_TIMEOUT``, 10) from
  connecting to send its first request's complete headers (or the gRPC preface), and a kept-alive one
  :data:`IDLE_TIMEOUT` seconds (``$ASZ_RECEIVE_IDLE_TIMEOUT``, 20) after an answer to send its next request's;
  a request's body may pause at most :data:`IDLE_TIMEOUT` seconds between bytes; then the connection is closed;
- a connection cap (:func:`~asz_core.netguard.connection_cap` of the open-files limit): past it, the connections
  that have waited longest with no request in progress (a gRPC relay with no byte from its client for
  :data:`IDLE_TIMEOUT` seconds counts as waiting) are closed to make room;
- a body is framed by ``Content-Length`` or ``Transfer-Encoding: chunked`` and decoded from ``Content-Encoding: gzip``
  (``zstd`` with ``zstandard``) by :func:`~asz_core.httpbody.read_body` (trial 42a F1: a chunked body was answered
  200 unread and its chunks read as the next request; gzip was 400): a body over :data:`MAX_BODY` (1 GiB, the inner
  gRPC server's largest message; ``$ASZ_RECEIVE_MAX_BODY`` lowers it), received or decoded, is answered 413 unread
  past the limit; a framing that cannot be read (both headers, a bad chunk, a ``Content-Length`` that is no whole
  number) 400, another transfer coding 501, another content coding 415; each closes the connection;
- the body of a request refused before it is read (401, 421, 403) is read no further than
  :data:`~asz_core.storage.seen_list.READ_REFUSED` bytes; past them its refusal closes the connection too;
- an answer that closes the connection with bytes of its request unread closes it lingering (:func:`linger`): sent,
  writing ended, the rest read and dropped within :data:`LINGER_BYTES` and :data:`LINGER_S`
  (``$ASZ_RECEIVE_LINGER_BYTES``, ``$ASZ_RECEIVE_LINGER_TIMEOUT``, ``$ASZ_RECEIVE_LINGER_IDLE``), so a sender still writing
  its body reads the answer instead of a reset (session 43);
- a request a web page could have sent is refused before its token or body is read (trial 34c F6,
  :func:`~asz_core.netguard.refusal`, the check ``asz ingest langsmith`` makes): 421 when no token is set and its
  ``Host`` names neither a loopback name or address nor the address listened on (DNS rebinding), 403 when it carries
  an ``Origin`` that is not the receiver's own;
- the connections closed for these reasons, or dropped by their client before their headers or body ended, are said
  on the receiver's stderr in one line a minute at most, with a count (the receiver's
  :class:`~asz_core.export.receive_seen.Summed`, as the requests that land nothing are), never as a request refused.
"""

from __future__ import annotations

import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, TextIO

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest, ExportMetricsServiceResponse

from ..netguard import HEADER_TIMEOUT as _HEADER
from ..netguard import IDLE_TIMEOUT as _IDLE
from ..envsetting import Setting, unused_lines
from ..netguard import connection_cap, raise_open_files, refusal, timeout_setting
from .receive_running import Running

if TYPE_CHECKING:
    from .receive import Receiver

__all__ = ["Front", "Http", "Server", "MAX_BODY", "SETTINGS", "settings_unused", "DRAIN", "HEADER_TIMEOUT", "IDLE_TIMEOUT", "PREFACE"]

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#: The largest request body ever taken, in bytes: 1 GiB, the inner gRPC server's largest message.
LARGEST_BODY = 1 << 30


#: The receiver's settings read from the environment (docs/configuration.md, Environment variables): the body limit,
#: the header and idle timeouts, the stop's wait and the lingering close's bytes, time and pause (:func:`linger`; fixed
#: at 64 MiB, 10 s and 2 s until fix44a); with ``ASZ_RECEIVE_SEEN_EVERY`` (seen_list), what
#: :func:`settings_unused` says at start when given a value they do not take.
SETTINGS = (Setting("ASZ_RECEIVE_MAX_BODY", "bytes", LARGEST_BODY, 1, LARGEST_BODY, whole=True, low_taken=True,
                    what="the limit"),
            timeout_setting("ASZ_RECEIVE_HEADER_TIMEOUT", _HEADER), timeout_setting("ASZ_RECEIVE_IDLE_TIMEOUT", _IDLE),
            timeout_setting("ASZ_RECEIVE_DRAIN", 60.0, "the wait"),
            Setting("ASZ_RECEIVE_LINGER_BYTES", "bytes", 64 << 20, 0, LARGEST_BODY, whole=True, low_taken=True,
                    what="the linger's limit"),
            timeout_setting("ASZ_RECEIVE_LINGER_TIMEOUT", 10.0, "the linger's time"),
            timeout_setting("ASZ_RECEIVE_LINGER_IDLE", 2.0, "the linger's pause"))


def settings_unused() -> list[str]:
    """``asz receive: warning: NAME=VALUE is no …: … in force is …`` for each ``ASZ_RECEIVE_*`` number given a value
    it does not take (``10s``, ``-1``, ``abc``; review42 and session 43: a value not taken left the default in silence),
    said once as the receiver starts (:func:`~asz_core.envsetting.unused_lines`)."""
    from ..storage.seen_list import EVERY_SETTING

    return unused_lines((*SETTINGS, EVERY_SETTING), "asz receive")


#: The largest request body taken, received or decoded, in bytes (``$ASZ_RECEIVE_MAX_BODY``, at most and by default
#: 1 GiB; the inner gRPC server's largest message too): above it, 413, unread past the limit.
MAX_BODY = int(SETTINGS[0].value())
#: Seconds a new connection has to send its first request's complete headers (``$ASZ_RECEIVE_HEADER_TIMEOUT``).
HEADER_TIMEOUT = SETTINGS[1].value()
#: Seconds a kept-alive connection may wait for its next request's headers, and a body may pause between bytes
#: (``$ASZ_RECEIVE_IDLE_TIMEOUT``).
IDLE_TIMEOUT = SETTINGS[2].value()

#: Seconds a stopping receiver waits for the requests in progress to land and be answered (``$ASZ_RECEIVE_DRAIN``).
DRAIN = SETTINGS[3].value()


#: A lingering close (:func:`linger`): the most bytes (``$ASZ_RECEIVE_LINGER_BYTES``, 64 MiB; 0: none read, the
#: connection closed at once), the most seconds (``$ASZ_RECEIVE_LINGER_TIMEOUT``, 10) and the most seconds with no byte
#: (``$ASZ_RECEIVE_LINGER_IDLE``, 2) a connection answered and closed with its request's body unread is read for, every
#: byte dropped.
LINGER_BYTES = int(SETTINGS[4].value())
LINGER_S = SETTINGS[5].value()
LINGER_IDLE_S = SETTINGS[6].value()

#: What the receiver's :class:`~asz_core.export.receive_seen.Summed` says of each kind of connection closed.
TIMED_OUT = ("closed {n} connection(s) that sent no complete request headers in time "
             f"(header timeout {HEADER_TIMEOUT:g} s, idle {IDLE_TIMEOUT:g} s)")
DROPPED = "{n} connection(s) closed by their client before their request's headers or body ended (nothing read from them)"
EVICTED = "closed {n} waiting connection(s) to stay under the cap of {cap} open at once"


class _Conn:
    """One open connection: its socket, ``deadline`` (monotonic; None while a request is in progress), ``since`` (its
    last byte or state change), ``relay`` (a gRPC relay, waiting when its client sent nothing for IDLE_TIMEOUT)."""

    __slots__ = ("sock", "deadline", "since", "relay", "closed")

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.since = time.monotonic()
        self.deadline: float | None = self.since + HEADER_TIMEOUT
        self.relay = False
        self.closed = ""

    def waiting(self, now: float) -> bool:
        return self.deadline is not None or (self.relay and now - self.since >= IDLE_TIMEOUT)

    def stop_reading(self) -> None:
        """The receiver stops: no further byte is read (a blocked read wakes with the end of the stream), while a
        request already read is landed and answered (the socket still writes)."""
        self.closed = self.closed or "stopping"
        try:
            self.sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass

    def close(self, why: str) -> None:
        if not self.closed:
            self.closed = why
            try:
                self.sock.shutdown(socket.SHUT_RDWR)  # wakes the handler's blocked read: it ends the connection
            except OSError:
                pass


class Server(socketserver.ThreadingTCPServer):
    """The threaded front listener with the header and idle timeouts and the connection cap (module doc)."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address, handler, receiver: "Receiver"):
        # what server_close reads is set before the bind: a port in use closes the socket through it and raises the
        # OSError (trial 41a F3: an AttributeError on ``_stop`` hid ``Address already in use``)
        self.conns: dict[int, _Conn] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        super().__init__(address, handler, bind_and_activate=True)
        self.receiver = receiver
        self.summed = receiver.summed  # the receiver's one counter of summed lines (receive_seen.Summed)
        self.cap = connection_cap(raise_open_files())
        # connections (by id of their socket) whose handler thread was started and has not ended
        self.handling = Running()
        self._watcher = threading.Thread(target=self._watch, name="asz-receive-guard", daemon=True)
        self._watcher.start()

    def conn(self, sock: socket.socket) -> _Conn | None:
        with self._lock:
            return self.conns.get(id(sock))

    def process_request(self, request, client_address) -> None:
        c = _Conn(request)
        with self._lock:
            self.conns[id(request)] = c
            over = sum(not x.closed for x in self.conns.values()) - self.cap  # closed ones leave as their threads end
            if over > 0:
                now = time.monotonic()
                idle = sorted((x for x in self.conns.values() if x is not c and not x.closed and x.waiting(now)),
                              key=lambda x: x.since)
                for x in idle[: over + max(1, self.cap // 16)]:  # room for a few more before the next eviction
                    x.close("evicted")
                    self.summed.add(EVICTED, cap=self.cap)
            self.handling.started(id(request))
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._handler_ended(request)
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._handler_ended(request)

    def _handler_ended(self, request) -> None:
        self.handling.ended(id(request))

    def shutdown_request(self, request) -> None:
        with self._lock:
            self.conns.pop(id(request), None)
        super().shutdown_request(request)

    def _watch(self) -> None:
        while not self._stop.wait(0.25):
            now = time.monotonic()
            with self._lock:
                late = [c for c in self.conns.values() if not c.closed and c.deadline is not None and now > c.deadline]
            for c in late:
                c.close("timeout")
                self.summed.add(TIMED_OUT)
            self.receiver.said_now()  # the seen list and the summed lines, these among them
        # the receiver stops: what is held back is said by drain, once the handlers that may still count have ended
        # (said here too, a handler's count after it was a third line of its kind: session 49)

    def server_close(self) -> None:
        """Close the port; no HTTP/1.1 connection reads any further byte (:meth:`_Conn.stop_reading`), while each request
        it has already read is landed and answered. gRPC relays are left to the inner server's graceful stop (its
        GOAWAY, then each call in progress answered: :meth:`.receive.Receiver.stop`), then :meth:`drain`."""
        self._stop.set()
        super().server_close()
        with self._lock:
            conns = [c for c in self.conns.values() if not c.relay]
        for c in conns:
            c.stop_reading()

    def drain(self) -> None:
        """After :meth:`server_close` and the inner server's stop: no connection reads any further; wait up to
        :data:`DRAIN` seconds for every handler (a request in progress lands, is recorded and answered), then end the
        guard's thread. A stopped receiver leaves no thread behind, and no request half-landed (a ``.NAME.PID.tmp``, a
        file landed without its sender line, an answer lost: the CI run of session 31, trial 32c F1). A handler still
        running after DRAIN is said on stderr."""
        with self._lock:
            conns = list(self.conns.values())
        for c in conns:
            c.stop_reading()
        self.handling.drained("request(s)", DRAIN, self.receiver.err, wait=DRAIN)
        self._watcher.join(timeout=5)
        self.receiver.said_now(everything=True)  # what the requests drained held back (seen list, summed lines)

    def answered(self, timeout: float) -> bool:
        """After :meth:`drain` and ``durable.settle`` (a request still landing past the drain has landed and recorded
        its files): wait up to ``timeout`` seconds for each handler left to write its answer and end (its reply follows
        its landing: a process ending at once lost it, and the sender sent that request again). True when none is
        left."""
        return self.handling.none_within(timeout)

    def handle_error(self, request, client_address) -> None:
        """A sender that went away mid-request (killed, timed out) is routine: counted (:class:`~asz_core.export.receive_seen.Summed`), no traceback."""
        err = sys.exc_info()[1]
        if isinstance(err, (ConnectionError, TimeoutError)):
            c = self.conn(request)
            if c is None or not c.closed:  # one the guard closed is counted already
                self.summed.add(TIMED_OUT if isinstance(err, TimeoutError) else DROPPED)
            return
        print(f"asz receive: {client_address[0]}: {type(err).__name__}: {err}", file=self.receiver.err)


def linger(sock: socket.socket, c: _Conn | None = None) -> int:
    """The lingering close of a connection answered with a refusal that closes it while its request's bytes were left
    unread (401 or 413 before the body, 400 mid-body): end writing (the answer, then the end of the stream, reach the
    sender), then read and drop what the sender still sends until it ends its side, :data:`LINGER_BYTES` are dropped,
    :data:`LINGER_IDLE_S` pass with no byte, or :data:`LINGER_S` in all; the caller then closes. A socket closed with
    bytes unread is reset (RST) at once: a sender still writing its body (``http.client``, ``asz push``) failed on the
    reset and never read the answer (session 43). Returns the bytes dropped; never raises."""
    if c is not None:
        c.deadline = None  # bounded here, not by the idle timeout (whose close would be counted as timed out)
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        return 0
    end, dropped, buf = time.monotonic() + LINGER_S, 0, bytearray(1 << 16)
    try:
        while dropped < LINGER_BYTES and (left := end - time.monotonic()) > 0:
            sock.settimeout(min(LINGER_IDLE_S, left))
            if not (n := sock.recv_into(buf)):
                break  # the sender ended its side: nothing is reset
            dropped += n
    except OSError:  # no byte in LINGER_IDLE_S, the sender reset, or the receiver stopping (stop_reading)
        pass
    return dropped


def pipe(src: socket.socket, dst: socket.socket, c: _Conn | None = None) -> None:
    """Copy ``src`` to ``dst`` until ``src`` ends, then end ``dst``'s writing; ``c``: marked active per chunk."""
    try:
        while chunk := src.recv(1 << 16):
            if c is not None:
                c.since = time.monotonic()
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class Front(socketserver.BaseRequestHandler):
    """One connection: the gRPC preface relayed to the inner server, anything else answered by :class:`Http`."""

    server: Server

    def handle(self) -> None:
        sock: socket.socket = self.request
        c = self.server.conn(sock)
        try:
            while True:
                head = sock.recv(len(PREFACE), socket.MSG_PEEK)
                if not head:
                    if c is not None and not c.closed:
                        self.server.summed.add(DROPPED)
                    return
                if len(head) >= len(PREFACE) or not PREFACE.startswith(head):
                    break
                time.sleep(0.005)  # the first bytes are still on their way
        except OSError:
            return
        rcv = self.server.receiver
        if head.startswith(PREFACE):
            if c is not None:
                c.deadline, c.relay = None, True
            with socket.create_connection(("127.0.0.1", rcv.grpc_port)) as up:
                t = threading.Thread(target=pipe, args=(up, sock), daemon=True)
                t.start()
                pipe(sock, up, c)
                t.join()
        else:
            sock.settimeout(IDLE_TIMEOUT)  # no answer sent to, nor body read from, a peer silent that long
            Http(sock, self.client_address, self.server)


class _Read:
    """The handler's ``rfile``, remembering whether a line read hit the end of the stream (headers cut short)."""

    def __init__(self, raw):
        self.raw = raw
        self.ended = False

    def readline(self, *a):
        line = self.raw.readline(*a)
        self.ended = self.ended or not line
        return line

    def __getattr__(self, name):
        return getattr(self.raw, name)


class Http(BaseHTTPRequestHandler):
    """``POST /v1/logs`` and ``POST /v1/metrics`` over HTTP/1.1, body ``application/x-protobuf`` (:func:`.receive.answer_logs`)."""

    protocol_version = "HTTP/1.1"
    server_version = "asz-receive"
    server: Server

    def setup(self) -> None:
        super().setup()
        self.rfile = _Read(self.rfile)  # type: ignore[assignment]
        self.conn = self.server.conn(self.request)
        self.lingers = False  # an answer closed the connection with bytes of its request unread (:func:`linger`)

    def finish(self) -> None:
        super().finish()
        if self.lingers:
            linger(self.connection, self.conn)

    def send_error(self, code, message=None, explain=None):
        """http.server's answer to a request line or headers it cannot take (400, 414, 431, 501), which closes the
        connection: closed lingering, as the body after them was not read."""
        super().send_error(code, message, explain)
        self.lingers = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def parse_request(self) -> bool:
        """The base class's, then: headers ended by the connection's end (its client left, or the header timeout
        closed it) are no request: nothing answered, the connection closed (counted, :class:`~asz_core.export.receive_seen.Summed`)."""
        ok = super().parse_request()
        if ok and self.rfile.ended:  # type: ignore[attr-defined]
            if self.conn is None or not self.conn.closed:
                self.server.summed.add(DROPPED)
            self.close_connection = True
            return False
        if ok and self.conn is not None:
            self.conn.deadline = None  # a request in progress: its body is read under the socket's idle timeout
            self.conn.since = time.monotonic()
        return ok

    def _reply(self, status: int, body: bytes = b"", ctype: str = "application/x-protobuf", by: str = "",
               close: bool = False, retry_after: int | None = None) -> None:
        from .receive import said

        if status != 200 and retry_after is None:  # a refused request is said, with why (the body's first line),
            said(self.server.receiver.err, f"refused POST {self.path}{by}: {body.decode('utf-8', 'replace').strip()} "
                                           f"(HTTP {status})")  # ``by``: `` from INSTANCE``; a busy one is summed
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if retry_after is not None:
            self.send_header("Retry-After", str(retry_after))
        self.send_header("Content-Length", str(len(body)))
        if close or status in (400, 413):  # ``close``: a body not read whole, whose rest no request is read from
            self.send_header("Connection", "close")
            self.close_connection = self.lingers = True
        try:
            self.end_headers()
            self.wfile.write(body)
        except ConnectionError:  # its client left as its answer was written: its request was read (and said when
            self.close_connection, self.lingers = True, False  # refused), so no connection closed with nothing read
            return  # (counted so before, as its reset reached handle_error: session 49)
        if self.conn is not None:
            self.conn.since = time.monotonic()
            self.conn.deadline = self.conn.since + IDLE_TIMEOUT  # the next request's headers, or the connection ends

    def _body(self, keep: bool = True) -> bytes | None:
        """The request's body, framed by its ``Content-Length`` or ``Transfer-Encoding: chunked`` and decoded from its
        ``Content-Encoding`` (:func:`~asz_core.httpbody.read_body`: gzip, or zstd with ``zstandard``), within
        :data:`MAX_BODY` bytes received and decoded; or None when it was answered (400, 413, 415, 501: the connection
        closed, as nothing after the refusal was read, trial 42a F1) or its client left before its end (counted).
        ``keep`` False, for a request refused before its body: one of at most
        :data:`~asz_core.storage.seen_list.READ_REFUSED` bytes is kept, to name its sender; a larger one is read no
        further and b'' given, :attr:`left` set (its refusal closes the connection, lingering: :func:`linger`), so an
        unauthenticated sender never makes the receiver read or hold up to 1 GiB."""
        from ..httpbody import BodyCut, BodyLeft, BodyRefused, read_body
        from ..storage.seen_list import READ_REFUSED

        self.left = False
        try:
            return read_body(self.rfile, self.headers, self.request_version, MAX_BODY,  # type: ignore[arg-type]
                             hold=None if keep else READ_REFUSED)
        except BodyLeft:
            self.left = True
            return b""
        except BodyRefused as exc:
            self._reply(exc.status, f"{exc}\n".encode(), "text/plain", close=True)
        except BodyCut:
            self.close_connection = True
            if self.conn is None or not self.conn.closed:
                self.server.summed.add(DROPPED)
        return None

    def _page_refusal(self) -> tuple[int, str] | None:
        """:func:`~asz_core.netguard.refusal` of this request: 421 when no token is set and its ``Host`` is not a
        loopback name or address nor the address listened on (a DNS-rebinding page names its own name), 403 when it
        carries an ``Origin`` not the receiver's own (a web page's request); None when it may be answered. gRPC
        (HTTP/2 with prior knowledge, relayed by :class:`Front`) is no request a browser can send."""
        host = self.server.receiver.listen.rpartition(":")[0].strip("[]") or "127.0.0.1"
        return refusal(self.headers.get("Host"), self.headers.get("Origin"), host, self.request.getsockname()[0],
                       any_host=bool(self.server.receiver.auth.expected))

    def do_POST(self):  # noqa: N802 - http.server's name
        from ..storage.seen_list import REFUSED
        from .owners import RETRY_AFTER, Busy
        from .receive import BUSY, answer_logs
        from .receive_seen import refused_from, seen_request

        rcv = self.server.receiver
        if got := self._page_refusal():  # before the token and the body: a web page's request (trial 34c F6)
            if self._body(keep=False) is None:  # answered (400, 413) or its client left
                return
            return self._reply(got[0], f"{got[1]}\n".encode(), "text/plain", close=self.left)
        why, name = rcv.auth.check(self.headers.get("Authorization"))
        if (data := self._body(keep=not why)) is None:
            return
        if self.path not in ("/v1/logs", "/v1/metrics"):
            return self._reply(404, b"not found: POST /v1/logs or /v1/metrics\n", "text/plain", close=self.left)
        if why:  # the sender named by the body's resources, when it reads (a probe does): the token tried never kept
            req = ExportLogsServiceRequest() if self.path == "/v1/logs" else ExportMetricsServiceRequest()
            try:
                req.ParseFromString(data)
            except DecodeError:
                req.Clear()
            names = seen_request(rcv, REFUSED, req, None, why)
            return self._reply(401, f"{why}\n".encode(), "text/plain", refused_from(names), close=self.left)
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/x-protobuf":
            return self._reply(415, b"the body must be application/x-protobuf\n", "text/plain")
        req = ExportLogsServiceRequest() if self.path == "/v1/logs" else ExportMetricsServiceRequest()
        try:
            req.ParseFromString(data)
        except DecodeError as exc:
            return self._reply(400, f"not an OTLP request: {exc}\n".encode(), "text/plain")
        if self.path == "/v1/metrics":
            rcv.metrics_said(req)
        try:
            resp = answer_logs(rcv.root, req, rcv.err, rcv.quiet, name, rcv) if self.path == "/v1/logs" else ExportMetricsServiceResponse()
        except Busy as exc:  # nothing landed: 503 with Retry-After, which asz push sends again after (fix44a)
            rcv.summed.add(BUSY)
            return self._reply(503, f"{exc}\n".encode(), "text/plain", retry_after=RETRY_AFTER,
                               close=rcv.closing.is_set())  # stopping: its next try finds the port closed
        self._reply(200, resp.SerializeToString())
