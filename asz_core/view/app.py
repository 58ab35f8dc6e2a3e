"""The Starlette application of ``asz view`` / ``asz server``: routes, security headers, the Host check.

Spec: seed 004, origin-digest §8.3; issue 23 (DNS rebinding). Routes (all
``GET``) are listed in :mod:`asz_core.view.server`. Every answer carries a
Content-Security-Policy allowing only this server's own script and style (the
page's shell: its one inline style sheet, by its SHA-256, :data:`~asz_core.view.page.PAGE_POLICY`).
A request whose ``Host`` is not a loopback name or address, nor the address
the server listens on, is answered 421 and nothing else (:class:`HostGuard`).
"""

from __future__ import annotations

import datetime as _dt

import functools
import hashlib
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..sessiondata.jsonbytes import dumps_wide
from .access import BASE_KEY, TokenGate
from .at_once import OWN_THREADS, Recent, own_threads
from .found_store import GZIP_OVER
from .page_secrets import HEADER, MASKED, masked_line
from .guard import HostGuard, log_once
from .page import API_POLICY, ASSETS, PAGE_HTML, PAGE_POLICY, page_html, uri_component
from .query import ApiError, QueryError, hide_from_query, known_params, parse_query, query_window
from .list_answer import conversations_answer
from .state import ViewState

__all__ = ["create_app", "api", "json_answer", "API_ROUTES", "FIELDS"]

log = logging.getLogger("asz.view")

#: One-line descriptions of Session Data's own record fields (origin-digest §3.3), served by ``/api/glossary``.
FIELDS = {
    "ord": "the line this record came from in its source file, counting from one",
    "off": "the byte offset where that line starts in its source file",
    "sha": "the first 12 hex characters of the SHA-256 of the source line",
    "bytes": "the size of the source record in bytes",
    "id": "the record's identity, as the runtime wrote it",
    "parent": "the record this one is contained in",
    "call": "the provider call this record is a fragment of",
    "run": "the agent loop (prompt cycle) this record belongs to",
    "continues": "on a reset boundary only: the record the new context resumes from",
    "tool": "the tool-use id the record is about, when stated outside its content",
    "child": "the child stream the record names",
    "batch": "the group of children (workflow run) the record belongs to",
    "label": "a name the runtime gave: a title, a child's description, a workflow name",
    "started_by": "the stream that started this one (nested children)",
    "from": "who produced the record: agent, external or runtime",
    "time": "the RFC 3339 time the runtime wrote",
    "trigger": "what started the run: external, notification or unknown",
    "flags": "what the record is, from a closed list (system_prompt and tool_schemas may be withheld)",
    "usage": "provider-reported tokens: in, out, cache_read, cache_write",
    "model": "the provider model name as the runtime wrote it",
    "parts": "the record's content, one typed part per piece (k: text, reasoning, call, result, media, data, unknown)",
    "dropped": "what the dialect understood and chose not to keep: what, bytes, why",
}

_SECURITY_HEADERS = {
    "content-security-policy": API_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
#: The shell's (:func:`_page`): the same, its inline style sheet allowed by its SHA-256.
_PAGE_HEADERS = {**_SECURITY_HEADERS, "content-security-policy": PAGE_POLICY}




def _etag_matches(header: str | None, etag: str) -> bool:
    """True when an ``If-None-Match`` value names ``etag`` (RFC 9110 §13.1.2: weak comparison, a list, or ``*``)."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    return any(t.strip().removeprefix("W/") == etag for t in header.split(","))


def _json(value: Any, status: int = 200, headers: dict | None = None) -> Response:
    h = dict(_SECURITY_HEADERS)
    if headers:
        h.update(headers)
    body = value if isinstance(value, bytes) else dumps_wide(value)
    return Response(body, status_code=status, media_type="application/json", headers=h)


#: The stable ``code`` of a JSON refusal by its status, when its place names none of its own (docs/view.md, Errors;
#: trial 36a F5: a script told an unknown id from an ambiguous prefix by matching English).
STATUS_CODES = {400: "bad_parameter", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
                409: "does_not_verify", 410: "gone", 500: "internal_error", 503: "unavailable"}


def _error(status: int, message: str, more: dict | None = None, code: str | None = None, headers: dict | None = None) -> Response:
    """The JSON refusal ``{"error": message, "code": code, **more}`` with ``status`` (and ``headers``); ``code`` None:
    the status's own (:data:`STATUS_CODES`)."""
    return _json({"error": message, "code": code or STATUS_CODES.get(status, "refused"), **(more or {})}, status, headers)


#: When this module was loaded (ns since the epoch): the server's start, against which a code file's mtime tells an
#: upgrade in place (:func:`upgraded_text`).
STARTED_NS = time.time_ns()


def upgraded_text(exc: ImportError) -> str:
    """What a request answers when a module it imports lazily does not import: asz's code on disk is not the code this
    process started with (an upgrade in place, ``git pull`` and ``pip install -e .``, while it ran: its new modules
    import names its old loaded ones lack; trial 23b, F8), said when a file of the code
    (:func:`~asz_core.view.found_store.code_files`) was written after this module was loaded (:data:`STARTED_NS`),
    else hedged. Names the module only, never a path."""
    from .found_store import code_files

    what = f"could not import {exc.name or 'a module'}"
    if code_changed(code_files()):
        _CODE_CHANGED.set(True)  # /api/status says it from this answer on, not once what it keeps is a second old
        return (f"{what}: asz's code changed on disk since this server started (upgraded in place); restart it "
                "(asz server or asz view) to use the new version")
    return f"{what} (ImportError); if asz was upgraded while this server ran, restart it"


def code_changed(paths: Iterable[str]) -> bool:
    """True when a file of ``paths`` (asz's code files, :func:`~asz_core.view.found_store.code_files`) was written after
    this server started (:data:`STARTED_NS`): an upgrade in place that a restart would take up."""
    import os

    def newer(path: str) -> bool:
        try:
            return os.stat(path).st_mtime_ns > STARTED_NS
        except OSError:
            return False

    return any(newer(p) for p in paths)


@functools.cache
def _started_code() -> tuple[str, ...]:
    """The code files as this server first listed them (one walk per process; ``/api/status`` stats them)."""
    from .found_store import code_files

    return tuple(code_files())


#: ``code_changed`` as ``/api/status`` says it: the ~430 code files stat'ed at most once a second (trial 36a F8).
_CODE_CHANGED = Recent(lambda: code_changed(_started_code()))


def _state(request: Request) -> ViewState:
    return request.app.state.view


# --------------------------------------------------------------------------- API handlers: (request, pairs, hide) -> Response


#: The version of the API's shapes (routes, keys, codes: docs/view.md): raised when a documented key, code or route
#: changes its meaning or goes; keys and routes added leave it as it is (trial 36a F7).
API_VERSION = 1


def _status(request, pairs, hide):
    from .. import __version__

    known_params(pairs, ())
    # code_changed: asz was upgraded in place since this server started; what a monitor restarts it on (trial 26a, F7)
    return _json({**_state(request).status(), "code_changed": _CODE_CHANGED.value(), "product": "asz",
                  "version": __version__, "api_version": API_VERSION})


def _keys(request, pairs, hide):
    """``/api/keys``: the keys of each answer (:mod:`asz_core.view.api_keys`; trial 36a F7)."""
    from .api_keys import keys_answer

    known_params(pairs, ())
    return _json(keys_answer())


#: The header of the answers whose texts are titles and snippets (``/api/conversations``, ``/api/search``): always
#: :data:`~asz_core.view.page_secrets.MASKED`, with ``--no-redact`` too, for every reader prints a title and a snippet
#: with its credentials masked (``asz ls``, ``asz search``: :func:`~asz_core.view.secret_forms.shown_title`,
#: ``shown_snippet``; review35: these two answers said nothing).
TITLES_MASKED = {HEADER: MASKED}


def _conversations(request, pairs, hide):
    """``/api/conversations``: :func:`~asz_core.view.list_answer.conversations_answer`'s body (shared by the requests
    asking the same at once: trial 46c F1), its titles masked (:data:`TITLES_MASKED`)."""
    return _json(conversations_answer(request, pairs, hide), headers=TITLES_MASKED)


def _view(request, pairs, hide):
    known_params(pairs, ())
    state = _state(request)
    d = state.document(request.path_params["id"], hide)
    if _etag_matches(request.headers.get("if-none-match"), d.etag):
        return Response(b"", status_code=304, headers={**_SECURITY_HEADERS, "etag": d.etag})
    headers = {"etag": d.etag, "vary": "accept-encoding", **_said(state),
               **({f"{HEADER}-masked": str(d.secrets["places"])} if d.secrets and "places" in d.secrets else {})}
    if "gzip" in request.headers.get("accept-encoding", "") and d.size > GZIP_OVER:
        return _json(state.gzipped(d), headers={**headers, "content-encoding": "gzip"})
    return _json(d.body, headers=headers)


def _headings(request, pairs, hide):
    """``{"headings": {talk id: heading}, "blocks": {step id: [[kind, text], ...]}}``: each labelled talk's heading
    as the page shows it, whole (the page lays it out; :func:`~asz_core.view.titles.talk_headings`: Claude Code's
    command markup read as ``/context``, a bash-mode command's output alone as its command, whitespace runs made one
    space), and each person's or injected step the page draws as a command and its output
    (:func:`~asz_core.view.titles.step_blocks`: whole, a clipped text read from its record), and where the page draws
    what the document holds apart from the talks' trees (``places``, ``repeats``, ``asked``, ``lines``:
    :func:`~asz_core.view.placing.page_reading`, the exports' rules), from the same document ``/api/c/{id}/view``
    answers with; the records read are those ``/api/c/{id}/record`` serves. Made once per document: kept with it
    (``Doc.headings``), so a second open of the same conversation and withheld names, its files unchanged, is
    answered from memory; never written to disk (seed 004; :meth:`~asz_core.view.state.ViewState.headings`)."""
    known_params(pairs, ())
    state = _state(request)
    return _json(state.headings(request.path_params["id"], hide), headers=_said(state))


def _record(request, pairs, hide):
    known_params(pairs, ())
    p = request.path_params
    state = _state(request)
    line = state.record(p["id"], p["seq"], p["row"], hide)
    return _json(masked_line(line) if state.credentials == MASKED else line, headers=_said(state))


def _files(request, pairs, hide):
    known_params(pairs, ("session", "seq"), repeat=("seq",))
    return _json(_state(request).provider_files(request.path_params["id"], pairs, hide))


def _body(request, pairs, hide):
    from .secret_forms import Masker  # when a body is asked for: its forms compiled after the server listens

    known_params(pairs, ())
    p = request.path_params
    state = _state(request)
    body = state.body(p["id"], p["seq"], p["row"], hide)
    return _json(Masker(True).tree(body) if state.credentials == MASKED else body, headers=_said(state))


def _said(state) -> dict:
    """The header saying how an answer holding the conversation's texts shows credentials
    (:data:`~asz_core.view.page_secrets.HEADER`: ``masked`` or ``whole``; none from a library caller's state)."""
    return {HEADER: state.credentials} if state.credentials else {}


#: The parameters ``/api/usage`` takes (``hide`` is every route's, seed 004).
USAGE_PARAMS = ("project", "model", "dialect", "instance", "by", "since", "until", "exact", "tz", "hide")
#: What ``/api/usage``'s ``by`` groups by besides the hours (trial 28a F3): ``instance`` (the answer's ``instances``),
#: ``week`` or ``month`` (its ``periods``).
USAGE_BY = ("instance", "week", "month")


def _usage_blocks(request, pairs, hide):
    """``/api/usage/blocks``: ``asz usage blocks``' rows for the same filters as ``/api/usage`` takes (but ``by``),
    :func:`~asz_core.view.blocks_answer.blocks_answer` (trial 30b F8)."""
    from .blocks_answer import blocks_answer

    got = usage_filters(pairs, _state(request).root)
    if got.pop("by"):
        raise ApiError(400, "by is /api/usage's: /api/usage/blocks has one row per 5-hour block")
    state = _state(request)
    if not state.root.is_dir():
        raise ApiError(503, f"the storage root {state.root} is gone")
    return _json(blocks_answer(state.root, hide, state.prices, **got))


def _usage(request, pairs, hide):
    """``/api/usage`` narrowed by ``project``, ``model``, ``dialect``, ``instance``, ``since``, ``until``, grouped ``by`` (:func:`usage_filters`)."""
    return _json(_state(request).usage(**usage_filters(pairs, _state(request).root)))


def usage_filters(pairs: Sequence[tuple[str, str]], root: Path | None = None) -> dict:
    """The keyword arguments of :meth:`~asz_core.view.background.BackgroundChecks.usage` from ``/api/usage``'s query:
    ``project`` and ``model`` (a part of the name, case-insensitive, as ``asz ls`` matches; with ``exact=1`` the whole
    name, as the page's dropdowns pick it), ``since`` and ``until`` (the forms ``asz usage`` takes:
    :func:`~asz_core.view.query.query_window`: a day in ``tz``, else in the server's zone; the page sends instants; a ``since`` after the ``until`` is a 400). Raises
    :class:`ApiError` 400 for a parameter it does not know (one it would ignore), one given twice, or a time that does
    not read (trial 17b, F12: ``project=`` was ignored and the whole root's usage answered); ``tz``, the zone (an
    IANA name, the page's own) whose days a day-form ``since``/``until`` names and place a call with no time of its own
    (the server's own zone without it), 400 when it names none (trial 30b F1). ``dialect`` (``claude-code/1`` or its name, as ``asz usage --dialect``): 400 for one no
    installed adapter speaks (trial 29b F4). The figures are sums of quarter-hour buckets, so a window is taken only
    as they can answer it exactly, as ``asz usage`` counts the same ``since``/``until``: ``since`` a quarter hour's
    start, ``until`` a quarter hour's last millisecond (a day form gives both); any other instant is refused with 400
    saying so and naming the quarter hours around it, never widened or narrowed silently (trial 29b F2)."""
    from .row_filters import empty_filter, unknown_dialect

    got = known_params(pairs, USAGE_PARAMS)
    if empty := empty_filter(got, ("project", "model", "dialect", "since", "until", "tz", "instance")):
        raise ApiError(400, empty, code="empty_filter")  # trial 42b F7
    if got.get("exact", "0") not in ("0", "1"):
        raise ApiError(400, "exact is 0 or 1")
    if got.get("by", "") not in ("", *USAGE_BY):
        raise ApiError(400, f"by is one of {', '.join(USAGE_BY)}")
    if why := unknown_dialect(got.get("dialect", ""), root):  # one ``root``'s conversations landed in passes (35a F6)
        raise ApiError(400, f"dialect: {why}", code="unknown_dialect")
    _zone, since, until = query_window(got)
    _on_quarters(got, since, until)
    return {"project": got.get("project", ""), "model": got.get("model", ""), "since": since, "until": until,
            "exact": got.get("exact") == "1", "tz": got.get("tz"), "instance": got.get("instance", ""),
            "by": got.get("by", ""), "dialect": got.get("dialect", "")}


def _on_quarters(got: dict[str, str], since: int | None, until: int | None) -> None:
    """Raise :class:`ApiError` 400 for a ``since`` (unix ms) that is not a quarter hour's start or an ``until`` that is
    not a quarter hour's last millisecond (:func:`usage_filters`), naming the nearest windows the buckets answer."""
    from .usage_buckets import QUARTER_MS

    def at(ms: int) -> str:  # in whole milliseconds: ms / 1000 as a float reads 9999's last one as .998 (trial 44d F4)
        t = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(milliseconds=ms)
        return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    why = ("/api/usage sums quarter-hour buckets, so it counts a window from a quarter hour's start to a quarter "
           "hour's last millisecond (a day, or instants such as 22:00:00Z and 22:14:59.999Z), never another than the "
           "one asked; asz usage --since/--until counts any instant")
    if since is not None and since % QUARTER_MS:
        low = since // QUARTER_MS * QUARTER_MS
        raise ApiError(400, f"since {got['since']} ({at(since)}) is not the start of a quarter hour: give {at(low)} or "
                            f"{at(low + QUARTER_MS)}; {why}")
    if until is not None and (until + 1) % QUARTER_MS:
        low = (until + 1) // QUARTER_MS * QUARTER_MS
        raise ApiError(400, f"until {got['until']} ({at(until)}) is not the last millisecond of a quarter hour: give "
                            f"{at(low - 1)} or {at(low + QUARTER_MS - 1)}; {why}")


def _glossary(request, pairs, hide):
    from ..plugins import get_plugin_manager

    dialects_asked = [v for k, v in pairs if k == "dialect"]
    known_params(pairs, ("dialect",))
    reg = get_plugin_manager()
    dialects = reg.dialects()
    if dialects_asked and not dialects_asked[0]:
        raise ApiError(400, f"dialect is empty: name one of {', '.join(dialects)}, or leave the parameter out")
    dialect = dialects_asked[0] if dialects_asked else reg.default_dialect()
    if not dialect:
        raise ApiError(404, "no installed adapter has a glossary")
    try:
        adapter = reg.by_dialect(dialect)
    except KeyError:
        raise ApiError(400, f"dialect: no installed adapter speaks dialect {dialect!r} (installed: {', '.join(dialects)})",
                       code="unknown_dialect") from None  # 400 as on every route (trial 36a F5: it was a 404 here)
    terms = {t.unified: {"native": t.native, "where": t.where, "note": t.note} for t in adapter.glossary(dialect)}
    return _json({"dialect": dialect, "dialects": dialects, "terms": terms, "fields": FIELDS})


def api(handler):
    """Wrap an API handler: parse the query strictly, find the withheld names, turn refusals into JSON errors.

    An ImportError is a 503 saying to restart the server when asz was upgraded under it (:func:`upgraded_text`).
    Anything else unexpected is a 500 JSON answer naming only the exception's type;
    its traceback is logged once per place it came from (:func:`log_once`)."""
    def endpoint(request: Request) -> Response:
        state = _state(request)
        reading = request.url.path.startswith("/api/c/")  # a reader reading a conversation: the checker waits
        state.requests_active += 1  # not exact under races; only tells the checker to wait
        state.reads_active += reading
        try:
            return handler(request, *_asked(request, state))
        except QueryError as exc:
            return _error(400, str(exc), code="bad_query")
        except ApiError as exc:
            return _error(exc.status, exc.message, exc.more, exc.code, exc.headers)
        except ImportError as exc:  # asz upgraded in place under this process (trial 23b, F8)
            log_once(log, f"ImportError:{exc.name}", "request %s failed: %s: %s", request.url.path, type(exc).__name__, exc)
            return _error(503, upgraded_text(exc), code="restart_needed")
        except Exception as exc:  # never shown with paths
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else ""
            log_once(log, f"{type(exc).__name__}:{where}", "request %s failed: %s: %s", request.url.path, type(exc).__name__, exc,
                     exc_info=True)
            return _error(500, f"internal error ({type(exc).__name__})")
        finally:
            state.requests_active -= 1
            state.reads_active -= reading
            if not state.first_request:
                state.first_request = time.monotonic()
            if reading:
                state.last_read = time.monotonic()

    return endpoint


def _asked(request: Request, state: ViewState) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """The request's query pairs (:func:`~asz_core.view.query.parse_query`) and the names it withholds
    (:func:`~asz_core.view.query.hide_from_query` over the server's ``view.hide``): one rule for an API request and the
    page's fold ahead, so the fold builds the very document the page's ``/view`` asks for. Raises QueryError (the query
    does not parse) or ApiError 400 (a ``hide`` refused: ``unknown_parameter``, ``bad_parameter``)."""
    pairs = parse_query(request.scope.get("query_string", b""))
    return pairs, hide_from_query(pairs, configured=state.hide, override=state.hide_override)


# --------------------------------------------------------------------------- page and assets


def _page(request: Request) -> Response:
    """The shell; a conversation's (``/c/{id}``, known) also starts folding its document, gzip'd when the browser takes
    gzip, and its headings, withholding what the page's address asks (:meth:`~asz_core.view.found_store.KeptFound.
    fold_ahead`: seed 004, the page asking is the ask; issue 22), and, with no query, asks the browser to preload both
    answers (under the ``/t/TOKEN`` the request's path began with: :data:`~asz_core.view.access.BASE_KEY`)."""
    status_code, page, fold = 200, PAGE_HTML, None
    cid = request.path_params.get("id")
    if cid is not None:
        state = _state(request)
        try:
            full = state.check_conversation(cid)  # a unique prefix opens the conversation too
            try:
                hide = _asked(request, state)[1]
            except (QueryError, ApiError):  # a query or hide refused: the page's own request for the document says so
                hide = None
            if hide is not None:  # started once the shell is sent: the fold's thread does not hold the shell back (GIL)
                fold = BackgroundTask(state.fold_ahead, full, hide, gz="gzip" in request.headers.get("accept-encoding", ""))
        except ApiError as exc:
            status_code = exc.status
        if status_code == 200 and not request.scope.get("query_string"):  # the script asks these first, as written here
            base = request.scope.get(BASE_KEY, "")  # /t/TOKEN when the token came in the path (view.access)
            page = page_html([f"{base}/api/c/{uri_component(cid)}/{what}" for what in ("view", "headings")])
    return Response(page, status_code=status_code, media_type="text/html; charset=utf-8",
                    headers=_PAGE_HEADERS, background=fold)



def _static(request: Request) -> Response:
    """A packaged asset (:data:`~asz_core.view.page.ASSETS`), kept by the browser and asked again with its ETag
    (``no-cache``: a 304 while it is the same bytes), so a reader's next page reuses its scripts as compiled (issue
    22: Chromium keeps a script's compiled code only with a response its HTTP cache keeps; ``no-store`` recompiled
    marked, DOMPurify and app.js, 25-40 ms, on every page)."""
    name = request.path_params["name"]
    asset = ASSETS.get(name)
    if asset is None:
        return _not_found(request, None)
    etag = _ASSET_TAGS.get(name) or _ASSET_TAGS.setdefault(name, '"' + hashlib.sha256(asset[1]).hexdigest()[:32] + '"')
    headers = {**_SECURITY_HEADERS, "cache-control": "no-cache", "etag": etag}
    if _etag_matches(request.headers.get("if-none-match"), etag):
        return Response(b"", status_code=304, headers=headers)
    return Response(asset[1], media_type=asset[0], headers=headers)


_ASSET_TAGS: dict[str, str] = {}


def _not_found(request: Request, exc) -> Response:
    """404 for no such route, 405 for a method other than GET and HEAD, which names them in ``Allow`` (RFC 9110
    15.5.6; trial 29b F9): JSON ``{"error"}`` under ``/api/``, plain text elsewhere."""
    code = getattr(exc, "status_code", 404)
    allow = {"allow": (getattr(exc, "headers", None) or {}).get("Allow", "GET, HEAD")} if code == 405 else {}
    if request.url.path.startswith("/api/"):
        return _json({"error": "no such route" if code == 404 else "method not allowed: only GET and HEAD are served"
                      if code == 405 else "refused", "code": {404: "unknown_route"}.get(code) or STATUS_CODES.get(code, "refused")},
                     code, allow)
    return Response("Not found\n" if code == 404 else "Refused\n", status_code=code, media_type="text/plain; charset=utf-8",
                    headers={**_SECURITY_HEADERS, **allow})


#: API routes other modules may add to (path, handler taking (request, pairs, hide)); wrapped by :func:`api`.
API_ROUTES: list[tuple[str, Any]] = [
    ("/api/status", _status),
    ("/api/keys", _keys),
    ("/api/conversations", _conversations),
    ("/api/c/{id}/view", _view),
    ("/api/c/{id}/headings", _headings),
    ("/api/c/{id}/record/{seq}/{row}", _record),
    ("/api/c/{id}/files", _files),
    ("/api/c/{id}/body/{seq}/{row}", _body),
    ("/api/glossary", _glossary),
    ("/api/usage", _usage),
    ("/api/usage/blocks", _usage_blocks),
]


def json_answer(answer: Callable[[Path, Sequence[tuple[str, str]], Sequence[str], type], Any],
                headers: dict[str, str] | None = None, first_pass: Callable | None = None) -> Callable:
    """An API handler from ``answer(root, query pairs, hide, error class)`` (what a room above the view, such as
    :mod:`asz_core.reading.search_api`, offers): its result answered as JSON, its ``error(status, message)`` refusals
    as JSON errors; a result with a ``headers`` mapping (not None) sends those headers too. The command that starts
    the server passes such handlers to :func:`create_app` (``extra``).
    While ``asz server``'s first pass runs (``hold_counting``) the answer is a 503 saying that, and that the answer
    comes when the pass ends, instead of advice to run commands the server's lock would refuse (trial 3, F15), and
    instead of an answer from an index the pass is still writing (a search then counted what was parsed so far, 0
    hits or some: trial 15, F8), unless ``first_pass`` answers then (same arguments; ``/api/search``: from the index
    as it stands, marked partial while it lacks conversations, :func:`asz_core.reading.search_api.answer_kept`; trial
    50b F5), a 503 of it said so too. ``headers``: sent with every answer (``/api/search``: :data:`TITLES_MASKED`)."""

    def handler(request, pairs, hide):
        state = _state(request)
        try:
            if state.hold_counting and first_pass is None:
                raise ApiError(503, "the first pass is still running")
            value = (first_pass if state.hold_counting else answer)(state.root, pairs, hide, ApiError)
            return _json(value, headers={**(headers or {}), **(getattr(value, "headers", None) or {})})
        except ApiError as exc:
            if exc.status != 503 or not state.hold_counting or exc.code == "busy":  # busy: asked again in a moment
                raise
            raise ApiError(503, "not available yet: asz server's first pass is still collecting and parsing the sources "
                                "(/api/status says how far it got); this is available when the pass ends",
                           code="not_ready") from None

    return handler


def create_app(state: ViewState, *, listen_host: str = "127.0.0.1", extra: Sequence[tuple[str, Any]] = (),
               token: str | None = None) -> HostGuard:
    """The application serving ``state`` (routes in :mod:`asz_core.view.server`), behind :class:`HostGuard`.

    ``listen_host`` is the address the server binds; a ``Host`` naming it is
    answered besides the loopback names. ``extra`` adds API routes (path,
    handler taking (request, pairs, hide)) from rooms the view does not import
    (``/api/search``: see ``asz_core/cli/server_cmd.py``). ``token``: every request but ``/static/`` must carry it
    (:class:`~asz_core.view.access.TokenGate`: in the path, ``/t/TOKEN/…``, or ``Authorization: Bearer``; None: no
    token, trial 38c F3). Never raises per request: refusals are
    400/401/403/404/409 JSON, anything unexpected 500 JSON without details of the root.
    """
    routes = [Route("/", _page), Route("/c/{id}", _page), Route("/static/{name:path}", _static)]
    routes += [Route(path, own_threads(api(handler), OWN_THREADS[path]) if path in OWN_THREADS else api(handler))
               for path, handler in [*API_ROUTES, *extra]]  # status and the list: threads of their own (46c F1)
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_found})
    app.state.view = state
    if token:
        return HostGuard(TokenGate(app, token), listen_host, no_host_400=True)
    return HostGuard(app, listen_host, no_host_400=True)
