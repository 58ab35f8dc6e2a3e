"""The LangSmith-compatible receiver: what the official clients send, staged durably (origin-digest §5.4).

An app traces here with ``LANGSMITH_TRACING=true``,
``LANGSMITH_ENDPOINT=http://127.0.0.1:1985``, ``LANGSMITH_API_KEY`` and
``LANGSMITH_PROJECT``. Routes:

==============================  ==========================================================
``GET /info``                   server facts; the batch config asks for multipart, 16 threads
``POST /runs/multipart``        ``post.<id>``/``patch.<id>`` parts and their out-of-band fields → 202
``POST /runs/batch``            ``{"post": [run…], "patch": [run…]}`` → 202
``POST /runs``                  one run → 202
``PATCH /runs/{id}``            the fields that changed → 202
==============================  ==========================================================

Every accepted request becomes one inbox file
``<root>/_ingest/langsmith/inbox/<ns>-<pid>-<n>.jsonl`` holding one arrival
per line (``{"op": "post"|"patch", "id": <run id>, "run": {…}, "received":
<RFC 3339>}``), written to a temporary name, fsynced, renamed and the
directory fsynced *before* the 2xx answer, so an acknowledged run survives a
crash. A request that cannot be read whole is refused with a 4xx and stages
nothing: 400 (truncated or malformed multipart, JSON that does not parse,
a run without an id or with a field of the wrong type, a part or key this
receiver does not know, a part sent twice, bytes after a compressed stream,
a body with no part at all), 401 (wrong ``x-api-key`` when a token is set),
413 (body over the limit: recorded in ``refused.jsonl``, :func:`.listening.record_refusal`), 415 (content type or
encoding not spoken), 421 (a ``Host`` that is not loopback or the listen address, when no token is set), 403
(an ``Origin`` not the receiver's own; a browser-simple request without ``x-api-key``, ``Authorization`` or a
LangSmith client's ``User-Agent``: trial 34c F2, what a web page could send). A part over its limit is taken out (:func:`taken_out`) and the rest staged (trial 32a F1). Errors are JSON ``{"error": "<why>"}``: every malformed post is
refused with its reason, and nothing of it is staged.

Compression: ``Content-Encoding: gzip`` is always read; ``zstd`` only when
the ``zstandard`` module is importable, and ``/info`` advertises zstd only
then (the client compresses only when told it may).

What a request's body holds (multipart parts, a batch, each run checked) is read by :mod:`.arrivals`, whose names
this module re-exports.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from asz_core.httpbody import BodyRefused, Decoded, zstd_available
from asz_core.view.guard import HostGuard

from .inbox_state import write_atomic
from .listening import record_refusal
from .page_guard import page_could_send
from .runs import TAKEN_OUT
from .arrivals import (MAX_PART, OOB_FIELDS, RUN_FIELD_TYPES, BadRequest, arrivals_from_batch, check_run, parse_multipart, read_json,
                       run_of, taken_out, taken_out_text)
from .settings import DEFAULT_LISTEN  # the receiver's default address, defined once with the asz.yaml keys

__all__ = ["INBOX", "DEFAULT_LISTEN", "MAX_BODY", "MAX_PART", "OOB_FIELDS", "TAKEN_OUT", "BadRequest", "taken_out",
           "taken_out_text", "parse_multipart", "arrivals_from_batch", "stage", "check_run", "RUN_FIELD_TYPES", "make_app",
           "inbox_dir", "zstd_available"]

#: Where arrivals are staged, relative to the storage root.
INBOX = Path("_ingest") / "langsmith" / "inbox"
#: Largest request body accepted after decompression, in bytes (128 MiB).
MAX_BODY = 128 << 20
_counter = itertools.count(1)
_lock = threading.Lock()


def inbox_dir(root: str | os.PathLike) -> Path:
    """``<root>/_ingest/langsmith/inbox``."""
    return Path(root) / INBOX



# --------------------------------------------------------------------------- staging


def stage(root: str | os.PathLike, arrivals: list[dict]) -> Path:
    """Write ``arrivals`` as one inbox file, durably: temp file, fsync, rename, fsync of the directory.

    Each arrival gets ``received`` (RFC 3339 UTC, the receiver's clock).
    Returns the inbox file's path; raises OSError when the root cannot take
    it (nothing visible is left half-written: the temporary name starts with
    ``.tmp-`` and is never read).
    """
    d = inbox_dir(root)
    d.mkdir(parents=True, exist_ok=True)
    now = time.time_ns()
    received = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now // 10**9)) + f".{now % 10**9:09d}Z"
    with _lock:
        n = next(_counter)
    name = f"{now:020d}-{os.getpid()}-{n:06d}.jsonl"
    data = b"".join(orjson.dumps({**a, "received": received}) + b"\n" for a in arrivals)
    write_atomic(d / name, data)  # under .tmp-NAME, removed whatever stops it (session 41)
    return d / name


# --------------------------------------------------------------------------- app


async def _read_body(request: Request, max_body: int) -> bytes:
    """The body uvicorn framed (``Content-Length`` or chunked), decoded as it arrives by the one decoder ``asz receive``
    uses (:class:`asz_core.httpbody.Decoded`: gzip, zstd with ``zstandard``), within ``max_body`` bytes received and
    decoded; BadRequest 413 over it, 415 for a coding not spoken, 400 for a body that does not decode."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_body:
        raise BadRequest(413, f"body of {declared} bytes is over the limit of {max_body}")
    try:
        body = Decoded(request.headers.get("content-encoding"), max_body)
        async for chunk in request.stream():
            body.feed(chunk)
        return body.end()
    except BodyRefused as exc:
        raise BadRequest(exc.status, str(exc), exc.size) from None


def _err(status: int, message: str) -> Response:
    return Response(orjson.dumps({"error": message}), status_code=status, media_type="application/json")


def _authorized(request: Request, token: str) -> bool:
    """True when ``token`` is empty or the request carries it as ``x-api-key`` or ``Authorization: Bearer``."""
    if not token:
        return True
    if request.headers.get("x-api-key") == token:
        return True
    auth = request.headers.get("authorization") or ""
    return auth.lower().startswith("bearer ") and auth[7:].strip() == token


def _json_body(request: Request, body: bytes) -> Any:
    """The JSON value of a request body declared ``application/json`` (415 for another type, 400 when not JSON)."""
    ct = (request.headers.get("content-type") or "application/json").split(";")[0].strip().lower()
    if ct != "application/json":
        raise BadRequest(415, f"expected application/json, got {ct}")
    return read_json(body, "body")


def _info_doc(max_body: int) -> dict:
    """What ``GET /info`` answers: the LangSmith server settings a client reads (multipart on, sizes in bytes)."""
    return {
        "version": "asz-langsmith-ingest",
        "license_expiration_time": None,
        "batch_ingest_config": {
            "use_multipart_endpoint": True,
            "scale_up_qsize_trigger": 1000,
            "scale_up_nthreads_limit": 16,
            "scale_down_nempty_trigger": 4,
            "size_limit": 100,
            "size_limit_bytes": min(max_body, 20 << 20),
        },
        "instance_flags": {"zstd_compression_enabled": zstd_available()},
    }


def _one_run(body: bytes, r: Request) -> list[dict]:
    """``POST /runs``: one run started (its arrival, checked)."""
    run = run_of(_json_body(r, body), "run")
    return [{"op": "post", "id": run["id"], "run": run}]


def _patch_of(rid: str):
    """``PATCH /runs/{rid}``'s parser: the body is the run's later fields; an ``id`` in it must be ``rid``."""

    def parse(body: bytes, r: Request) -> list[dict]:
        run = _json_body(r, body)
        if not isinstance(run, dict):
            raise BadRequest(400, "a patch must be a JSON object")
        if run.get("id", rid) != rid:
            raise BadRequest(400, f"the body names run {run.get('id')!r}, the path {rid}")
        run["id"] = rid
        return [{"op": "patch", "id": rid, "run": check_run(run, f"patch of run {rid}")}]

    return parse


async def _not_routed(request: Request, exc: Exception) -> Response:
    """A 404 or 405 as the receiver's JSON error, naming the path."""
    status = getattr(exc, "status_code", 404)
    what = "no such route" if status == 404 else f"method {request.method} is not allowed here"
    return _err(status, f"{what}: {request.url.path}")


def _say(line: str) -> None:
    print(f"asz ingest langsmith: {line}", file=sys.stderr, flush=True)


def make_app(root: str | os.PathLike, *, token: str = "", max_body: int = MAX_BODY, max_part: int = MAX_PART,
             say=_say, listen_host: str = "127.0.0.1") -> HostGuard:
    """The receiver as a Starlette app staging into ``root`` (see the module docstring for routes and statuses),
    behind :class:`~asz_core.view.guard.HostGuard` (Host unless a ``token`` is set, with ``listen_host``; Origin) and
    :func:`.page_guard.page_could_send`: what a web page could send is refused (trial 34c F2).

    ``token`` non-empty: every request must carry it as ``x-api-key`` (or
    ``Authorization: Bearer``), else 401. ``max_body``/``max_part`` in bytes.
    A part over ``max_part`` is taken out and the rest staged (:func:`parse_multipart`); a body over ``max_body``
    is refused 413 and recorded (:func:`.listening.record_refusal`); ``say`` tells each on stderr (trial 32a F1).
    """
    root = Path(root)

    async def accept(request: Request, parse, cuts: list | None = None) -> Response:
        if not _authorized(request, token):
            return _err(401, "wrong or missing x-api-key")
        if why := page_could_send(request):
            return _err(403, why)
        try:
            body = await _read_body(request, max_body)
            arrivals = parse(body, request)
        except BadRequest as exc:
            if exc.status == 413:  # unread, so lost whole: recorded where the readers say it (trial 32a F1)
                declared = request.headers.get("content-length") or ""
                size = exc.size or (int(declared) if declared.isdigit() else 0)  # decompressed when known
                said = await run_in_threadpool(record_refusal, root, request.url.path, size, exc.message)
                say(f"warning: {said}")
            return _err(exc.status, exc.message)
        if arrivals:
            try:
                await run_in_threadpool(stage, root, arrivals)
            except OSError as exc:
                return _err(503, f"cannot stage: {exc.strerror or exc}")
        for name, what in cuts or ():
            say(f"warning: part {name} of a request on {request.url.path} holds {what['why']} (sha256 {what['sha256']}); "
                "the request's other runs and parts are staged, and the run's record says what was taken out")
        return Response(orjson.dumps({"accepted": len(arrivals)}), status_code=202, media_type="application/json")

    async def info(request: Request) -> Response:
        if not _authorized(request, token):
            return _err(401, "wrong or missing x-api-key")
        return Response(orjson.dumps(_info_doc(max_body)), media_type="application/json")

    async def multipart(request: Request) -> Response:
        cuts: list = []
        return await accept(request, lambda body, r: parse_multipart(body, r.headers.get("content-type") or "",
                                                                      max_part=max_part, cuts=cuts), cuts)

    async def batch(request: Request) -> Response:
        return await accept(request, lambda body, r: arrivals_from_batch(_json_body(r, body)))

    async def one(request: Request) -> Response:
        return await accept(request, _one_run)

    async def patch(request: Request) -> Response:
        return await accept(request, _patch_of(request.path_params["run_id"]))

    routes = [
        Route("/info", info, methods=["GET"]),
        Route("/runs/multipart", multipart, methods=["POST"]),
        Route("/runs/batch", batch, methods=["POST"]),
        Route("/runs", one, methods=["POST"]),
        Route("/runs/{run_id}", patch, methods=["PATCH"]),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _not_routed, 405: _not_routed})
    return HostGuard(app, listen_host, origin=True, any_host=bool(token), json=True)
