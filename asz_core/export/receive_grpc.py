"""``asz receive``'s token on gRPC, checked from a call's metadata before its message is received (review38 R2).

grpcio reads a unary call's whole message (up to the receiver's 1 GiB limit) before it calls the method, so a token
checked in the method let a call without it cost its size in memory first (a 300 MB message raised the receiver's
VmHWM from 67 MB to 948 MB). :class:`TokenCheck` is a :class:`grpc.ServerInterceptor`: grpcio runs it when a call's
headers arrive, before any of its message is asked for. A call whose ``authorization`` the receiver refuses
(:meth:`~asz_core.export.receive._Auth.check`) gets a handler that never reads its request stream and aborts it
``UNAUTHENTICATED``; its message is left unread (HTTP/2 flow control holds the sender to a window of it) and
dropped with the stream. The call is said on stderr and kept in the seen list as every refusal is, its sender named by
the metadata ``asz push`` sends beside its token (:data:`~asz_core.export.wire.CLAIMED_SERVICE`,
:data:`~asz_core.export.wire.CLAIMED_INSTANCE`: what its resources say, which a refused message is not read for);
a call without them (another OTLP exporter, an asz before 2026-12-06) names no one. docs/push.md, The receiving
root's own token.

A stopping receiver stops its gRPC server as it stops its HTTP/1.1 side (:func:`stop_calls`): no new call, each call in
progress answered within the drain; past it, a call whose method runs (landing its files) is waited for and answered
(:data:`ANSWER_WAIT`), and only a call whose message is still coming is aborted. grpcio's own ``stop(grace)`` aborted
every call left at the grace's end, a method still landing among them: its files landed and recorded, its sender told
``UNAVAILABLE: Cancelling all calls`` and sending them again on its next pass (fix45b).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Sequence, TextIO

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceResponse
from opentelemetry.proto.logs.v1.logs_pb2 import ResourceLogs

from ..storage.seen_list import REFUSED
from .receive_running import Running
from .receive_seen import refused_from, seen_request
from .wire import CLAIMED_INSTANCE, CLAIMED_SERVICE, kvs

if TYPE_CHECKING:
    from .receive import Receiver

__all__ = ["LogsServicer", "MetricsServicer", "TokenCheck", "Running", "claimed", "metadata_value", "stop_calls",
           "ANSWER_WAIT"]

#: Seconds past the drain a stopping receiver waits for a gRPC call whose method runs, then sends its answer (as a
#: stopping ``asz receive`` waits 30 s for an HTTP request still landing, ``durable.settle``).
ANSWER_WAIT = 30.0
#: Seconds a call whose method returned has, once none runs, to send its answer before the calls left are aborted.
SEND_WAIT = 2.0


def stop_calls(server: grpc.Server, running: Running, drain: float, more: float = ANSWER_WAIT,
               err: TextIO | None = None) -> None:
    """Stop ``server`` (its GOAWAY at once: no new call) and return once every call has ended: each answered within
    ``drain`` seconds; then each whose method ``running`` counts given up to ``more`` seconds to return, and
    :data:`SEND_WAIT` to send its answer; a call left then (its message still coming, no method run) is aborted
    (UNAVAILABLE), nothing of it landed. On ``err``: the calls whose method still runs as the drain ends, in the words an
    HTTP/1.1 request still landing then is said in (:meth:`~asz_core.export.receive_running.Running.drained`), and the calls
    aborted (fix46a: the gRPC side said neither)."""
    stopped = server.stop(grace=drain + more + SEND_WAIT)  # the latest any call may end
    if stopped.wait(drain):
        return
    running.drained("gRPC call(s)", drain, err)  # the calls whose method still runs, in HTTP/1.1's words
    running.none_within(more)  # a call whose method lands its files: answered, not aborted
    if not stopped.wait(SEND_WAIT):
        server.stop(grace=0)  # the calls left have no method running (their message still coming): aborted
        stopped.wait()
        if err is not None:
            print("asz receive: aborted the gRPC call(s) whose message was still coming past the drain (UNAVAILABLE: "
                  "Cancelling all calls): nothing of them landed; the sender sends them again", file=err, flush=True)


def metadata_value(metadata: Sequence | None, key: str):
    """The value of ``key`` in a call's ``metadata`` (pairs of key and value: str, bytes for a ``-bin`` key), the
    first given; None when absent."""
    return next((v for k, v in metadata or () if k == key), None)


def claimed(metadata: Sequence | None) -> ExportLogsServiceRequest:
    """A request holding one resource with the ``service.name`` and ``service.instance.id`` the metadata claims
    (UTF-8; a value that does not decode has its bytes replaced), or none when it claims no instance: what
    :func:`~asz_core.export.receive_seen.seen_request` reads a refused call's sender from."""
    inst, service = (metadata_value(metadata, k) for k in (CLAIMED_INSTANCE, CLAIMED_SERVICE))
    if not isinstance(inst, bytes):
        return ExportLogsServiceRequest()
    text = [v.decode("utf-8", "replace") if isinstance(v, bytes) else None for v in (service, inst)]
    res = ResourceLogs()
    res.resource.attributes.extend(kvs([("service.name", text[0]), ("service.instance.id", text[1])]))
    return ExportLogsServiceRequest(resource_logs=[res])


def _refuse(rcv: "Receiver", why: str, metadata, requests, context) -> None:
    """The method of a call refused for its token: ``requests`` never read (the message is not received); said,
    counted in the seen list, aborted UNAUTHENTICATED with ``why``."""
    from .receive import said

    names = seen_request(rcv, REFUSED, claimed(metadata), None, why)
    said(rcv.err, f"refused a gRPC request{refused_from(names)}: {why} (UNAUTHENTICATED)")
    context.abort(grpc.StatusCode.UNAUTHENTICATED, why)


class TokenCheck(grpc.ServerInterceptor):
    """Every call of the receiver's gRPC server passes here first (module doc): one whose token is taken goes on to its
    method, any other to :func:`_refuse` before its message is received."""

    def __init__(self, rcv: "Receiver"):
        self.rcv = rcv

    def intercept_service(self, continuation, handler_call_details):
        metadata = tuple(handler_call_details.invocation_metadata or ())
        why = self.rcv.auth.refusal(metadata_value(metadata, "authorization"))
        if not why:
            return continuation(handler_call_details)
        return grpc.stream_unary_rpc_method_handler(functools.partial(_refuse, self.rcv, why, metadata))


def _credential(rcv: "Receiver", context) -> str | None:
    """The credential name of the token a gRPC call carried (None: none, or one unnamed); a call whose token is refused
    never gets here (:class:`~asz_core.export.receive_grpc.TokenCheck` refused it before its message was received)."""
    return rcv.auth.check(metadata_value(context.invocation_metadata(), "authorization"))[1]


class LogsServicer(logs_service_pb2_grpc.LogsServiceServicer):
    """The receiver's logs service: each call landed by :func:`~asz_core.export.receive.answer_logs`; one it answers
    busy (:class:`~asz_core.export.owners.Busy`, nothing landed) ends ``RESOURCE_EXHAUSTED`` with a ``retry-after``
    trailing metadata of :data:`~asz_core.export.owners.RETRY_AFTER` seconds, which ``asz push`` waits before it sends
    the call again (fix44a)."""

    def __init__(self, rcv: "Receiver"):
        self.rcv = rcv

    def Export(self, request, context):  # noqa: N802 - the generated service's name
        from .owners import RETRY_AFTER, Busy
        from .receive import BUSY, answer_logs

        name = _credential(self.rcv, context)
        try:
            with self.rcv.running.method():  # a stopping receiver waits for it and sends its answer (stop_calls)
                return answer_logs(self.rcv.root, request, self.rcv.err, self.rcv.quiet, name, self.rcv)
        except Busy as exc:  # nothing landed: RESOURCE_EXHAUSTED with retry-after, which asz push sends again after
            self.rcv.summed.add(BUSY)
            context.set_trailing_metadata((("retry-after", str(RETRY_AFTER)),))
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))


class MetricsServicer(metrics_service_pb2_grpc.MetricsServiceServicer):
    """The receiver's metrics service: each call counted in the receiver's summed line, answered, not kept."""

    def __init__(self, rcv: "Receiver"):
        self.rcv = rcv

    def Export(self, request, context):  # noqa: N802
        self.rcv.metrics_said(request)
        return ExportMetricsServiceResponse()
