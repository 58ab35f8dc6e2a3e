"""Sending one OTLP request over gRPC or HTTP/protobuf, and what the answer means (origin-digest §8.4; issue 21).

:func:`sender` makes the sender of an endpoint; ``send(kind, request)``
(kind ``logs`` or ``metrics``) returns an :class:`Answer`:

- taken: ``ok`` True, with ``rejected`` (the partial-success count) and its ``message``;
- busy: ``pause`` seconds to wait before the same request again (HTTP 429 or
  503, gRPC RESOURCE_EXHAUSTED; a ``Retry-After`` of seconds is honoured);
- anything else: ``error`` (a redirect, a 2xx whose body is not protobuf, a
  status, a refused connection).

HTTP posts ``application/x-protobuf`` to ``<base>/v1/logs`` (or
``/v1/metrics``) and never follows a redirect. Headers from
``export.otlp.headers`` go with every request (as gRPC metadata, keys lowercased).
"""

from __future__ import annotations

import http.client
import ssl
from typing import Callable, Protocol

import attrs
import grpc
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceResponse

from .settings import ExportConfig, split_endpoint
from .wire import CLAIMED_INSTANCE, CLAIMED_SERVICE

__all__ = ["Answer", "Poked", "Sender", "sender", "one_line", "TIMEOUT"]

#: Seconds one request may take before it counts as failed.
TIMEOUT = 120.0
#: What grpcio's server says of each call it aborts as it stops (an ``asz receive`` stopping past its drain aborts so a
#: call whose message is still coming: ``asz_core.export.receive_grpc.stop_calls``).
GRPC_STOP_ABORT = "Cancelling all calls"
#: Said after it (fix46a: the pusher said grpcio's words alone, which before fix45b also ended a call whose files landed).
ABORTED_COMING = " (the receiver stopped while this request was still coming: nothing of it landed)"
_RESPONSES = {"logs": ExportLogsServiceResponse, "metrics": ExportMetricsServiceResponse}
_MAX_PAUSE = 60.0


@attrs.define
class Answer:
    """What one request got: ``ok`` (taken), ``rejected`` records and ``message``, ``pause`` seconds, ``error``;
    ``sent`` False when the request never went on the wire (no connection: refused, unreachable, TLS failed before
    it), or did not go whole and nothing of it was taken (an HTTP body cut as it was written; a gRPC call a stopping
    receiver aborted while its message was still coming, :data:`ABORTED_COMING`), so the pass counts neither its bytes
    nor the request (trial 15, F15)."""

    ok: bool = False
    rejected: int = 0
    message: str = ""
    pause: float | None = None
    error: str = ""
    sent: bool = True


class Sender(Protocol):
    """Sends one request; ``close()`` frees its connection."""

    def send(self, kind: str, request) -> Answer: ...  # pragma: no cover - protocol

    def close(self) -> None: ...  # pragma: no cover - protocol


def _partial(resp) -> Answer:
    ps = resp.partial_success
    rejected = getattr(ps, "rejected_log_records", 0) or getattr(ps, "rejected_data_points", 0)
    return Answer(ok=True, rejected=int(rejected), message=ps.error_message)


class _Grpc:
    def __init__(self, target: str, secure: bool, ca_file: str, headers: dict[str, str], who: tuple[str, str] | None):
        opts = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
        if secure:
            roots = open(ca_file, "rb").read() if ca_file else None
            self.channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(roots), options=opts)
        else:
            self.channel = grpc.insecure_channel(target, options=opts)
        self.metadata = [(k.lower(), v) for k, v in headers.items()]
        if who:  # the service and instance the requests' resources name, for a receiver refusing a call unread
            self.metadata += [(CLAIMED_SERVICE, who[0].encode("utf-8", "replace")),
                              (CLAIMED_INSTANCE, who[1].encode("utf-8", "replace"))]
        self.stubs = {"logs": logs_service_pb2_grpc.LogsServiceStub(self.channel),
                      "metrics": metrics_service_pb2_grpc.MetricsServiceStub(self.channel)}

    def send(self, kind: str, request) -> Answer:
        try:
            resp = self.stubs[kind].Export(request, metadata=self.metadata, timeout=TIMEOUT)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            details = exc.details() if hasattr(exc, "details") else str(exc)
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                return Answer(pause=_retry_after_grpc(exc))
            name = code.name if code is not None else "error"
            # UNAVAILABLE: the channel had no connection to send it on (a server that answers with it is busy-ish,
            # and is counted as not reached either), or a stopping receiver aborted the call while its message was
            # still coming: nothing of it was taken, counted in neither (as an HTTP body cut before it was all written)
            why = ABORTED_COMING if code == grpc.StatusCode.UNAVAILABLE and details == GRPC_STOP_ABORT else ""
            return Answer(error=f"gRPC {name}: {one_line(details)}{why}", sent=code != grpc.StatusCode.UNAVAILABLE)
        return _partial(resp)

    def close(self) -> None:
        self.channel.close()


def _retry_after_grpc(exc) -> float | None:
    try:
        for k, v in exc.trailing_metadata() or ():
            if k.lower() == "retry-after":
                return min(float(v), _MAX_PAUSE)
    except (TypeError, ValueError):
        pass
    return None


class _Http:
    def __init__(self, hostport: str, secure: bool, ca_file: str, base: str, headers: dict[str, str]):
        host, _, port = hostport.rpartition(":")
        self.host, self.port, self.base = host.strip("[]"), int(port), base
        self.context = ssl.create_default_context(cafile=ca_file or None) if secure else None
        self.headers = {**headers, "Content-Type": "application/x-protobuf"}
        self.conn: http.client.HTTPConnection | None = None

    def _connect(self) -> http.client.HTTPConnection:
        if self.conn is None:
            if self.context is not None:
                self.conn = http.client.HTTPSConnection(self.host, self.port, timeout=TIMEOUT, context=self.context)
            else:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        return self.conn

    def send(self, kind: str, request) -> Answer:
        path = f"{self.base}/v1/{kind}"
        body = request.SerializeToString()
        written = False
        try:
            conn = self._connect()
            if conn.sock is None:
                conn.connect()  # a refused connection fails here, before any byte of the request is written
            conn.request("POST", path, body=body, headers=self.headers)
            written = True
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            return Answer(error=f"POST {path}: {one_line(str(exc))}", sent=written)
        return self._answer(kind, path, resp, data)

    def _answer(self, kind: str, path: str, resp: http.client.HTTPResponse, data: bytes) -> Answer:
        status = resp.status
        if 300 <= status < 400:
            self.close()
            return Answer(error=f"POST {path}: HTTP {status} redirect to {one_line(resp.getheader('Location', '?'))} (redirects are not followed)")
        if status in (429, 503):
            ra = resp.getheader("Retry-After", "")
            try:
                return Answer(pause=min(float(ra), _MAX_PAUSE))
            except ValueError:
                return Answer(pause=None)
        if not 200 <= status < 300:
            return Answer(error=f"POST {path}: HTTP {status} {one_line(resp.reason or '')}: "
                                f"{one_line(data[:200].decode('utf-8', 'replace'))}")
        ctype = (resp.getheader("Content-Type") or "").split(";")[0].strip().lower()
        if data and ctype != "application/x-protobuf":
            return Answer(error=f"POST {path}: HTTP {status} with a {ctype or 'untyped'} body, not protobuf")
        msg = _RESPONSES[kind]()
        try:
            msg.ParseFromString(data)
        except DecodeError as exc:
            return Answer(error=f"POST {path}: HTTP {status} body is not an OTLP response: {exc}")
        return _partial(msg)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def one_line(text: str) -> str:
    """``text`` with its whitespace runs (line breaks too) made one space, stripped, then every control, bidi and
    zero-width character as its escape (:func:`~asz_core.termsafe.line_value`): a receiver's answer body, reason
    phrase or an error's details quoted inside one ``error:`` line (trial 15, F15: a 401 body's newline split the
    line; fix35a: a hostile receiver's ESC and OSC reached the operator's terminal)."""
    from ..termsafe import line_value

    return line_value(" ".join(text.split()))


def sender(cfg: ExportConfig, endpoint: str | None = None, who: tuple[str, str] | None = None) -> Sender:
    """The sender for ``endpoint`` (default ``cfg.endpoint``). Raises ValueError for an endpoint it cannot use.
    ``who``: the ``(service.name, service.instance.id)`` a gRPC sender claims in every call's metadata
    (:data:`~asz_core.export.wire.CLAIMED_SERVICE`, :data:`~asz_core.export.wire.CLAIMED_INSTANCE`)."""
    proto, hostport, secure, base = split_endpoint(endpoint or cfg.endpoint, cfg.protocol, cfg.tls)
    if proto == "grpc":
        return _Grpc(hostport, secure, cfg.ca_file, cfg.headers, who)
    return _Http(hostport, secure, cfg.ca_file, base, cfg.headers)


class Poked:
    """A sender (:class:`Sender`) that calls ``poke`` after each answered request."""

    def __init__(self, snd: Sender, poke: Callable[[], None]):
        self.snd, self.poke = snd, poke

    def send(self, kind: str, req) -> Answer:
        ans = self.snd.send(kind, req)
        self.poke()
        return ans

    def __getattr__(self, name: str):
        return getattr(self.snd, name)
