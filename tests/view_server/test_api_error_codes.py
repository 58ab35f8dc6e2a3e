"""Every JSON refusal of ``asz view``'s API carries a stable ``code`` beside ``error`` (trial 36a F5: a script told an
ambiguous prefix from an unknown id by matching English), the same mistake gets the same status and code on every
route (an unknown dialect: 400 ``unknown_dialect``, also ``/api/glossary``'s, which was a 404), a query whose
%-escapes are not UTF-8 says so plainly, and an HTTP/1.0 request with no ``Host`` gets the documented 400, not the
421 of a foreign Host (F6). docs/view.md, Errors.

Real input: the Claude Code corpus collected and parsed by the real ``asz collect`` (tests/conftest.py); the
ambiguous prefix is found from the source transcripts' names; a real ``asz view`` on loopback, raw sockets for the
requests http.client would not send.
"""

from __future__ import annotations

import json

from test_ambiguous_prefix_links import _shared_prefix
from test_view_server_guard import _raw as guard_raw

DIALECT_ROUTES = ("/api/glossary", "/api/conversations", "/api/usage", "/api/usage/blocks", "/api/tools",
                  "/api/search?q=x&")


def _refused(s, path: str, status: int, code: str) -> dict:
    r = s.get(path)
    body = r.json()
    assert (r.status, body.get("code")) == (status, code), (path, r.status, body)
    assert isinstance(body["error"], str) and body["error"], body
    return body


def test_each_mistake_has_one_status_and_code_on_every_route(corpus_dir, corpus_root, serve):
    s = serve(corpus_root)
    prefix, want = _shared_prefix(corpus_dir)
    one = sorted(want)[0]
    for route in DIALECT_ROUTES:  # the same mistake, the same answer (it was 404 on /api/glossary, 400 elsewhere)
        sep = "" if route.endswith("&") else "?"
        body = _refused(s, f"{route}{sep}dialect=nope", 400, "unknown_dialect")
        assert "no installed adapter speaks dialect 'nope'" in body["error"]
    for route in ("/api/status", "/api/conversations", "/api/usage", f"/api/c/{one}/view", "/api/tools", "/api/search?q=x&"):
        sep = "" if route.endswith("&") else "?"
        _refused(s, f"{route}{sep}bogus=1", 400, "unknown_parameter")
    for route in ("/api/conversations?sort=last&sort=first", "/api/usage?tz=UTC&tz=UTC", "/api/search?q=a&q=b"):
        _refused(s, route, 400, "repeated_parameter")
    # an ambiguous prefix and an unknown id told apart by code, on the document and on /api/tools
    body = _refused(s, f"/api/c/{prefix}/view", 400, "ambiguous_id")
    assert set(body["matches"]) == want and body["matched"] == len(want)
    _refused(s, f"/api/tools?conversation={prefix}", 400, "ambiguous_id")
    _refused(s, "/api/c/ffffffff-dead/view", 404, "unknown_id")
    _refused(s, "/api/tools?conversation=ffffffff-dead", 404, "unknown_id")
    _refused(s, "/api/nope", 404, "unknown_route")
    assert s.get("/api/status", method="POST").json()["code"] == "method_not_allowed"
    _refused(s, "/api/conversations?limit=x", 400, "bad_parameter")
    _refused(s, f"/api/c/{one}/record/1/999999", 404, "not_found")


def test_a_query_not_utf8_is_said_plainly(corpus_root, serve):
    s = serve(corpus_root)
    body = _refused(s, "/api/conversations?limit=5&project=%FFab", 400, "bad_query")
    assert body["error"] == ("the query does not parse: 'project=%FFab' %-encodes bytes that are not UTF-8 text "
                             "(encode the text as UTF-8, then %-encode those bytes)")
    assert "codec" not in body["error"]
    assert s.get("/api/conversations?project=%C3%A9&limit=1").status == 200  # é, UTF-8: read


def _raw(port: int, request: bytes) -> tuple[int, bytes]:
    """``request`` sent as is (test_view_server_guard's reader): its status code and body."""
    status, _, body = guard_raw(port, request)
    return int(status.split(b" ", 2)[1]), body


def test_no_host_is_a_400_in_http_1_0_and_1_1(corpus_root, serve):
    s = serve(corpus_root)
    for version in (b"1.0", b"1.1"):
        status, body = _raw(s.port, b"GET /api/status HTTP/" + version + b"\r\n\r\n")
        assert status == 400 and json.loads(body)["code"] == "bad_request", (version, status, body)
    status, body = _raw(s.port, b"GET /api/status HTTP/1.0\r\nHost: evil.example\r\n\r\n")
    assert status == 421 and b"Misdirected" in body  # a foreign Host stays 421
    status, body = _raw(s.port, b"GET /api/status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    assert status == 200 and json.loads(body)["mode"] == "view"
