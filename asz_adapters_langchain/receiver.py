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
encoding not spoken). A part over its limit is taken out (:func:`taken_out`) and the rest staged (trial 32a F1). Errors are JSON ``{"error": "<why>"}``: every malformed post is
refused with its reason, and nothing of it is staged.

Compression: ``Content-Encoding: gzip`` is always read; ``zstd`` only when
the ``zstandard`` module is importable, and ``/info`` advertises zstd only
then (the client compresses only when told it may).
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import os
import re
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .exactjson import loads as exact_loads
from .listening import record_refusal
from .runs import TAKEN_OUT
from .settings import DEFAULT_LISTEN  # the receiver's default address, defined once with the asz.yaml keys

__all__ = [
    "INBOX",
    "DEFAULT_LISTEN",
    "MAX_BODY",
    "MAX_PART",
    "OOB_FIELDS",
    "TAKEN_OUT",
    "BadRequest",
    "taken_out",
    "taken_out_text",
    "parse_multipart",
    "arrivals_from_batch",
    "stage",
    "check_run",
    "RUN_FIELD_TYPES",
    "make_app",
    "inbox_dir",
    "zstd_available",
]

#: Where arrivals are staged, relative to the storage root.
INBOX = Path("_ingest") / "langsmith" / "inbox"
#: Largest request body accepted after decompression, in bytes (128 MiB).
MAX_BODY = 128 << 20
#: Largest single multipart part, in bytes (64 MiB).
MAX_PART = 64 << 20
#: Run fields a multipart request may send as parts of their own (``post.<id>.<field>``).
OOB_FIELDS = ("inputs", "outputs", "events", "extra", "error", "serialized", "tags", "feedback")
_BATCH_KEYS = ("post", "patch")
#: The members of a run part over the limit that are taken out (the rest is its envelope).
_BULKY = ("inputs", "outputs", "events", "extra", "serialized", "attachments", "child_runs")
_NAME_RE = re.compile(rb'name="([^"]*)"')
_counter = itertools.count(1)
_lock = threading.Lock()


class BadRequest(Exception):
    """A request refused: ``status`` (4xx) and a message saying why."""

    def __init__(self, status: int, message: str, size: int = 0):
        super().__init__(message)
        self.status = status
        self.message = message
        self.size = size  # a 413's bytes known when refused (read, or decompressed, so far)


def zstd_available() -> bool:
    """True when the ``zstandard`` module can be imported (then zstd bodies are read and advertised)."""
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


def inbox_dir(root: str | os.PathLike) -> Path:
    """``<root>/_ingest/langsmith/inbox``."""
    return Path(root) / INBOX


# --------------------------------------------------------------------------- parsing


def _json(data: bytes, what: str) -> Any:
    """``data`` decoded, a number no double or 64-bit integer holds kept as its source text (:mod:`.exactjson`:
    staged byte for byte, never rounded or refused); BadRequest 400 when it is not JSON."""
    try:
        return exact_loads(data)
    except ValueError as exc:
        raise BadRequest(400, f"{what}: not valid JSON ({exc})") from None


def _boundary(content_type: str) -> bytes:
    ct = content_type.split(";")
    if ct[0].strip().lower() != "multipart/form-data":
        raise BadRequest(415, f"expected multipart/form-data, got {ct[0].strip() or 'no content type'}")
    for p in ct[1:]:
        k, _, v = p.strip().partition("=")
        if k.lower() == "boundary" and v:
            return v.strip('"').encode("latin-1")
    raise BadRequest(400, "multipart/form-data without a boundary")


def taken_out(data: bytes, limit: int, whole: int = 0) -> dict:
    """What stands in a run for a part of ``data`` (bytes as the client sent it, JSON) over ``limit`` bytes:
    ``{"asz_taken_out": {"bytes", "sha256", "why"}}`` (its size, the SHA-256 of those bytes, the reason), so the
    rest of the request is staged and the record says what was taken out (trial 32a F1; seed 000, Too large).
    ``whole`` > 0: ``data`` is a member of a run part of ``whole`` bytes that was over the limit, taken out largest
    member first until the part fits (review32), and the reason says so rather than calling the member itself over."""
    if whole:
        why = (f"{len(data):,} bytes, a member of a run part of {whole:,} bytes, over the receiver's --max-part of "
               f"{limit:,} bytes: taken out when it arrived (the part's largest members first, until it fit); only "
               "its size and SHA-256 are kept")
    else:
        why = (f"{len(data):,} bytes, over the receiver's --max-part of {limit:,} bytes: taken out when it arrived; "
               "only its size and SHA-256 are kept")
    return {TAKEN_OUT: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "why": why}}


def taken_out_text(what: dict) -> str:
    """:func:`taken_out`'s record in words: ``[taken out at the receiver: N bytes, sha256 H]``."""
    return f"[taken out at the receiver: {what.get('bytes', 0):,} bytes, sha256 {what.get('sha256', '')}]"


def _stand_in(field: str, data: bytes, limit: int, name: str, cuts: list | None, whole: int = 0) -> Any:
    """:func:`taken_out` of ``data`` in the type ``field`` must have (:data:`RUN_FIELD_TYPES`): the object itself, a
    list holding it (``events``), its words (``error``; ``tags``: a list of them); noted in ``cuts``."""
    stub = taken_out(data, limit, whole)
    if cuts is not None:
        cuts.append((name, stub[TAKEN_OUT]))
    if field == "error":
        return taken_out_text(stub[TAKEN_OUT])
    if field == "tags":
        return [taken_out_text(stub[TAKEN_OUT])]
    return [stub] if field in ("events", "child_runs", "attachments") else stub


def parse_multipart(body: bytes, content_type: str, *, max_part: int = MAX_PART,
                    cuts: list[tuple[str, dict]] | None = None) -> list[dict]:
    """The arrivals of a ``POST /runs/multipart`` body, in first-seen order.

    ``body`` is the whole (decompressed) body; parts are found by boundary,
    never by their ``Content-Length`` header (recorded bodies may claim more).
    Returns ``[{"op", "id", "run"}]`` with out-of-band fields merged into ``run``. A part over ``max_part`` bytes
    is :func:`taken_out` (a run part: its :data:`_BULKY` members largest first until it fits, :func:`_fit_run`), appended to ``cuts``
    as ``(part name, what taken_out says)``, and the rest staged (trial 32a F1). Raises :class:`BadRequest`: 400
    truncated or malformed, an unknown part name or field, a part or field sent twice, a run field of the wrong
    type (:func:`check_run`), a body with no part at all; 415 not multipart.
    """
    b = _boundary(content_type)
    delim = b"--" + b
    if not body.startswith(delim):
        raise BadRequest(400, "multipart body does not start with its boundary")
    sep = b"\r\n" + delim
    pos = len(delim)
    runs: dict[tuple[str, str], dict] = {}
    order: list[tuple[str, str]] = []
    oob: list[tuple[str, str, str, Any]] = []
    names: set[str] = set()
    while True:
        if body.startswith(b"--", pos):
            rest = body[pos + 2:]
            if rest.strip(b"\r\n"):
                raise BadRequest(400, "bytes after the closing boundary")
            if not names:
                raise BadRequest(400, "a multipart body with no part")
            break
        if not body.startswith(b"\r\n", pos):
            raise BadRequest(400, "malformed boundary line")
        start = pos + 2
        end = body.find(sep, start)
        if end < 0:
            raise BadRequest(400, "truncated multipart body: a part has no closing boundary")
        head_end = body.find(b"\r\n\r\n", start, end)
        if head_end < 0:
            raise BadRequest(400, "malformed part: no blank line after its headers")
        head = body[start:head_end]
        data = body[head_end + 4:end]
        pos = end + len(sep)
        m = _NAME_RE.search(head)
        if not m:
            raise BadRequest(400, "a part has no name")
        name = m.group(1).decode("utf-8", "replace")
        if name in names and not name.startswith(("attachment.", "feedback.")):
            raise BadRequest(400, f"part {name!r} sent twice")
        names.add(name)
        kind, _, rest = name.partition(".")
        if kind == "attachment":
            continue  # attachments are files beside a run: not kept (their run says what it held)
        if kind not in ("post", "patch", "feedback"):
            raise BadRequest(400, f"unknown part {name!r}")
        rid, _, field = rest.partition(".")
        if not rid:
            raise BadRequest(400, f"part {name!r} names no run")
        if kind == "feedback":
            continue  # feedback is about a run, not part of it: accepted, not kept
        if field and field not in OOB_FIELDS:
            raise BadRequest(400, f"unknown field {field!r} in part {name!r}")
        if field and len(data) > max_part:  # taken out, the rest of the request kept (trial 32a F1)
            value = _stand_in(field, data, max_part, name, cuts)
        else:
            value = _json(data, f"part {name!r}")
        if field:
            oob.append((kind, rid, field, value))
            continue
        if not isinstance(value, dict):
            raise BadRequest(400, f"part {name!r} is not a JSON object")
        if len(data) > max_part:  # the run itself: its largest members taken out until it fits, its envelope kept
            _fit_run(value, len(data), max_part, name, cuts)
        key = (kind, rid)
        if key not in runs:
            order.append(key)
        runs[key] = value
    return _merged(runs, order, oob)


def _fit_run(run: dict, size: int, limit: int, name: str, cuts: list | None) -> None:
    """Take out of ``run`` (a run part of ``size`` bytes as sent, over ``limit``) only what must go: its
    :data:`_BULKY` members, largest first (by compact JSON), each replaced by :func:`_stand_in`, until the run's
    compact JSON fits in ``limit`` (review32: every bulky member went, a 26-byte ``outputs`` beside a 2 MB ``inputs``
    too, its reply and usage lost). A run whose envelope alone is over the limit keeps it (after every bulky member)."""
    sized = sorted(((len(enc), m, enc) for m in _BULKY if run.get(m) is not None for enc in [orjson.dumps(run[m])]),
                   key=lambda t: -t[0])
    for _, member, enc in sized:
        run[member] = _stand_in(member, enc, limit, f"{name} {member}", cuts, size)
        if len(orjson.dumps(run)) <= limit:
            return


def _merged(runs: dict[tuple[str, str], dict], order: list[tuple[str, str]], oob: list[tuple[str, str, str, Any]]) -> list[dict]:
    """The arrivals of a multipart body: each run with its out-of-band fields, checked (:func:`check_run`)."""
    for kind, rid, field, value in oob:
        key = (kind, rid)
        if key not in runs:
            raise BadRequest(400, f"field {field!r} for {kind} {rid} without the run itself")
        runs[key][field] = value
    out = []
    for kind, rid in order:
        run = runs[(kind, rid)]
        run.setdefault("id", rid)
        if run.get("id") != rid:
            raise BadRequest(400, f"part {kind}.{rid} holds run {run.get('id')!r}")
        check_run(run, f"part {kind}.{rid}")
        out.append({"op": kind, "id": rid, "run": run})
    return out


def _id_from_dotted(dotted: Any) -> str:
    """The run id at the end of a ``dotted_order`` (``…<YYYYMMDDTHHMMSSffffff>Z<id>``), '' if none."""
    if not isinstance(dotted, str) or not dotted:
        return ""
    last = dotted.rsplit(".", 1)[-1]
    _, sep, rid = last.partition("Z")
    return rid if sep else ""


#: Run fields and the JSON types a LangSmith client sends them as (the ``RunCreate``/``RunUpdate`` shapes); null is
#: always allowed. A time is an RFC 3339 string or a number of milliseconds (the JS client).
RUN_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,), "trace_id": (str,), "parent_run_id": (str,), "dotted_order": (str,), "name": (str,),
    "run_type": (str,), "session_name": (str,), "session_id": (str,), "reference_example_id": (str,),
    "error": (str,), "start_time": (str, int, float), "end_time": (str, int, float),
    "inputs": (dict,), "outputs": (dict,), "extra": (dict,), "serialized": (dict,), "events": (list,), "tags": (list,),
}
_TYPE_NAMES = {str: "a string", int: "a number", float: "a number", dict: "an object", list: "a list"}


def _kind(value: Any) -> str:
    return {bool: "a boolean", str: "a string", int: "a number", float: "a number", dict: "an object",
            list: "a list"}.get(type(value), type(value).__name__)


def check_run(run: Any, what: str) -> dict:
    """``run`` when it is a run a LangSmith client could have sent: a JSON object with a non-empty string ``id``,
    each field of :data:`RUN_FIELD_TYPES` null or of its type (``tags`` strings only), and a ``dotted_order``
    ending in the run's own id. Raises :class:`BadRequest` 400 naming ``what``, the field and what it held."""
    if not isinstance(run, dict):
        raise BadRequest(400, f"{what}: a run must be a JSON object")
    rid = run.get("id")
    if not isinstance(rid, str) or not rid:
        raise BadRequest(400, f"{what}: a run needs a string id")
    for field, types in RUN_FIELD_TYPES.items():
        v = run.get(field)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, types):
            want = " or ".join(dict.fromkeys(_TYPE_NAMES[t] for t in types))
            raise BadRequest(400, f"{what}: field {field!r} must be {want}, got {_kind(v)}")
    tags = run.get("tags")
    if isinstance(tags, list) and not all(isinstance(t, str) for t in tags):
        raise BadRequest(400, f"{what}: field 'tags' must hold strings only")
    dotted = run.get("dotted_order")
    if isinstance(dotted, str) and dotted and _id_from_dotted(dotted) != rid:
        raise BadRequest(400, f"{what}: dotted_order {dotted[-60:]!r} does not end with the run's id {rid!r}")
    return run


def _check_run(run: Any, what: str) -> dict:
    if isinstance(run, dict) and not run.get("id") and _id_from_dotted(run.get("dotted_order")):
        run["id"] = _id_from_dotted(run["dotted_order"])  # the JS client may leave a patch's id to its dotted order
    return check_run(run, what)


def arrivals_from_batch(doc: Any) -> list[dict]:
    """The arrivals of a ``POST /runs/batch`` document ``{"post": [...], "patch": [...]}``.

    Raises :class:`BadRequest` 400: not an object, another key, a run that :func:`check_run` refuses.
    """
    if not isinstance(doc, dict):
        raise BadRequest(400, "a batch must be a JSON object")
    extra = [k for k in doc if k not in _BATCH_KEYS]
    if extra:
        raise BadRequest(400, f"unknown batch key(s): {', '.join(map(str, extra))}")
    out = []
    for op in _BATCH_KEYS:
        items = doc.get(op)
        if items is None:
            items = []
        if not isinstance(items, list):
            raise BadRequest(400, f"batch {op!r} must be a list")
        seen: set[str] = set()
        for i, run in enumerate(items):
            run = _check_run(run, f"{op}[{i}]")
            if run["id"] in seen:
                raise BadRequest(400, f"{op}[{i}]: run {run['id']!r} is sent twice in one batch")
            seen.add(run["id"])
            out.append({"op": op, "id": run["id"], "run": run})
    return out


# --------------------------------------------------------------------------- staging


def _fsync_dir(d: Path) -> None:
    fd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
    tmp = d / f".tmp-{name}"
    data = b"".join(orjson.dumps({**a, "received": received}) + b"\n" for a in arrivals)
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    final = d / name
    os.replace(tmp, final)
    _fsync_dir(d)
    return final


# --------------------------------------------------------------------------- app


async def _read_body(request: Request, max_body: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_body:
        raise BadRequest(413, f"body of {declared} bytes is over the limit of {max_body}")
    chunks = []
    got = 0
    async for chunk in request.stream():
        got += len(chunk)
        if got > max_body:
            raise BadRequest(413, f"body is over the limit of {max_body} bytes", got)
        chunks.append(chunk)
    body = b"".join(chunks)
    enc = (request.headers.get("content-encoding") or "").strip().lower()
    if enc in ("", "identity"):
        return body
    if enc == "gzip":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = d.decompress(body, max_body + 1)
        except zlib.error as exc:
            raise BadRequest(400, f"gzip body does not decompress: {exc}") from None
        if len(out) > max_body:
            raise BadRequest(413, f"decompressed body is over the limit of {max_body} bytes", len(out))
        if not d.eof:
            raise BadRequest(400, "truncated gzip body")
        if d.unused_data:
            raise BadRequest(400, f"{len(d.unused_data)} bytes after the gzip stream")
        return out
    if enc == "zstd":
        try:
            import zstandard
        except ImportError:
            raise BadRequest(415, "zstd bodies are not read here (zstandard is not installed)") from None
        # A frame may state its own content size, which decompress() would trust: first read it as a
        # stream, never past the limit, so a small body cannot unpack into a large one here; then, the
        # size known to fit, decompress it once more to learn whether the frame is whole.
        try:
            size = 0
            with zstandard.ZstdDecompressor().stream_reader(body) as r:
                while True:
                    chunk = r.read(min(1 << 20, max_body + 1 - size))
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > max_body:
                        raise BadRequest(413, f"decompressed body is over the limit of {max_body} bytes", size)
            d = zstandard.ZstdDecompressor().decompressobj()
            out = d.decompress(body)
        except zstandard.ZstdError as exc:
            raise BadRequest(400, f"zstd body does not decompress: {exc}") from None
        if not d.eof:
            raise BadRequest(400, "truncated zstd body")
        if d.unused_data:
            raise BadRequest(400, f"{len(d.unused_data)} bytes after the zstd frame")
        return out
    raise BadRequest(415, f"content encoding {enc!r} is not spoken")


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
    return _json(body, "body")


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
    run = _check_run(_json_body(r, body), "run")
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
             say=_say) -> Starlette:
    """The receiver as a Starlette app staging into ``root`` (see the module docstring for routes and statuses).

    ``token`` non-empty: every request must carry it as ``x-api-key`` (or
    ``Authorization: Bearer``), else 401. ``max_body``/``max_part`` in bytes.
    A part over ``max_part`` is taken out and the rest staged (:func:`parse_multipart`); a body over ``max_body``
    is refused 413 and recorded (:func:`.listening.record_refusal`); ``say`` tells each on stderr (trial 32a F1).
    """
    root = Path(root)

    async def accept(request: Request, parse, cuts: list | None = None) -> Response:
        if not _authorized(request, token):
            return _err(401, "wrong or missing x-api-key")
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
    return Starlette(routes=routes, exception_handlers={404: _not_routed, 405: _not_routed})
