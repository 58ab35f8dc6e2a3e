"""What a LangSmith client's request holds: its body read into arrivals, each run checked (origin-digest §5.4).

Split from :mod:`asz_adapters_langchain.receiver` (the HTTP routes, the body's limits and encodings, staging), which
re-exports every public name here. A ``POST /runs/multipart`` body is read part by part (:func:`parse_multipart`:
``post.<id>``/``patch.<id>`` and their out-of-band fields, a part over its limit taken out, :func:`taken_out`); a
``POST /runs/batch`` document by :func:`arrivals_from_batch`; every run is held to the shapes a client sends
(:func:`check_run`). Anything else is a :class:`BadRequest` naming the part, the field and what it held.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from .exactjson import loads as exact_loads
from .runs import TAKEN_OUT

__all__ = ["MAX_PART", "OOB_FIELDS", "TAKEN_OUT", "BadRequest", "read_json", "taken_out", "taken_out_text", "parse_multipart",
           "check_run", "run_of", "RUN_FIELD_TYPES", "arrivals_from_batch"]

#: Largest single multipart part, in bytes (64 MiB).
MAX_PART = 64 << 20
#: Run fields a multipart request may send as parts of their own (``post.<id>.<field>``).
OOB_FIELDS = ("inputs", "outputs", "events", "extra", "error", "serialized", "tags", "feedback")
_BATCH_KEYS = ("post", "patch")
#: The members of a run part over the limit that are taken out (the rest is its envelope).
_BULKY = ("inputs", "outputs", "events", "extra", "serialized", "attachments", "child_runs")
_NAME_RE = re.compile(rb'name="([^"]*)"')


class BadRequest(Exception):
    """A request refused: ``status`` (4xx) and a message saying why."""

    def __init__(self, status: int, message: str, size: int = 0):
        super().__init__(message)
        self.status = status
        self.message = message
        self.size = size  # a 413's bytes known when refused (read, or decompressed, so far)


def read_json(data: bytes, what: str) -> Any:
    """``data`` decoded, a number no double or 64-bit integer holds kept as its source text (:mod:`.exactjson`:
    staged byte for byte, never rounded or refused); BadRequest 400 when it is not JSON."""
    try:
        return exact_loads(data)
    except ValueError as exc:
        why = lone_surrogate(data) if "surrogate" in str(exc) else ""
        raise BadRequest(400, f"{what}: not valid JSON ({why or exc})") from None


_ESCAPE_RE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.S)


def lone_surrogate(data: bytes) -> str:
    """The first ``\\uXXXX`` escape of ``data`` that is half a surrogate pair with no other half, named as what it
    is (``a lone low surrogate \\udcb2 at byte 1, no high surrogate before it``), or "" when there is none. orjson
    says ``invalid high surrogate`` of a lone low one (trial 48c F6), so the receiver's 400 names it itself."""
    high = None  # (code, byte) of a high surrogate waiting for its low half
    for m in _ESCAPE_RE.finditer(data):
        code = int(m.group(1), 16) if m.group(1) else -1
        if high is not None:
            if 0xDC00 <= code <= 0xDFFF and m.start() == high[1] + 6:
                high = None
                continue
            return f"a lone high surrogate \\u{high[0]:04x} at byte {high[1]}, no low surrogate after it"
        if 0xD800 <= code <= 0xDBFF:
            high = (code, m.start())
        elif 0xDC00 <= code <= 0xDFFF:
            return f"a lone low surrogate \\u{code:04x} at byte {m.start()}, no high surrogate before it"
    if high is not None:
        return f"a lone high surrogate \\u{high[0]:04x} at byte {high[1]}, no low surrogate after it"
    return ""


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
            value = read_json(data, f"part {name!r}")
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


def run_of(run: Any, what: str) -> dict:
    """:func:`check_run` of ``run``, whose missing ``id`` is first taken from its ``dotted_order`` (the JS client may
    leave a patch's id to it)."""
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
            run = run_of(run, f"{op}[{i}]")
            if run["id"] in seen:
                raise BadRequest(400, f"{op}[{i}]: run {run['id']!r} is sent twice in one batch")
            seen.add(run["id"])
            out.append({"op": op, "id": run["id"], "run": run})
    return out
