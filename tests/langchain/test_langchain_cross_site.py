"""No web page can forge runs through ``asz ingest langsmith`` (trial 34c F2; asz_core/netguard.py ``refusal``).

The receiver's documented default is loopback with no token. Before, a page served from any other origin sent it an
auto-submitting ``multipart/form-data`` form (a CORS "simple" request: no preflight) and the run it held was staged,
landed and read ``verified``; a request naming any ``Host`` (DNS rebinding) was taken too. Real input throughout: a
real receiver child on a loopback port, a real headless Chromium showing a page that a second loopback server (another
origin) serves, plain HTTP requests, the recorded requests of the real LangSmith client and the installed client
itself, which must still be taken.
"""

from __future__ import annotations

import html
import http.client
import http.server
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

RID = "99999999-2222-4333-8444-555555555555"
#: The trial's forged run (csrf.html): a model call whose prompt and reply a web page wrote.
FORGED = {"id": RID, "trace_id": RID, "dotted_order": f"20261205T000000000000Z{RID}", "name": "ChatAnthropic",
          "run_type": "llm", "start_time": "2026-12-05T00:00:00Z", "end_time": "2026-12-05T00:00:01Z",
          "inputs": {"messages": [[{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
                                    "kwargs": {"content": "CSRF-FORGED prompt from a web page"}}]]}}


def _staged(root: Path) -> list[Path]:
    d = root / "_ingest" / "langsmith" / "inbox"
    return sorted(p for p in d.glob("*.jsonl")) if d.is_dir() else []


class _Pages:
    """A second loopback web server (another origin than the receiver's) serving ``pages`` (name -> HTML)."""

    def __init__(self, pages: dict[str, str]):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                body = pages.get(self.path.lstrip("/"), "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

            # a connection the browser opens and never uses (a preconnect) ends within this many seconds, so no
            # request thread outlives the test: a thread left running stops every later test in this worker from
            # forking asz's workers (asz_core.collect.workers.can_fork), as one did in session 34's suite
            timeout = 2

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        end = time.monotonic() + 10
        while any(t.name.endswith("(process_request_thread)") for t in threading.enumerate()):
            assert time.monotonic() < end, "a request thread of the page server is still running"
            time.sleep(0.05)


def _form_page(receiver_url: str) -> str:
    """The trial's csrf.html: a form posting the forged run as ``multipart/form-data``, submitted on load."""
    return (f'<html><body><form id=f method=POST enctype="multipart/form-data" action="{receiver_url}/runs/multipart">'
            f'<textarea name="post.{RID}">{html.escape(json.dumps(FORGED))}</textarea></form>'
            '<script>document.getElementById("f").submit()</script></body></html>')


def _fetch_page(receiver_url: str) -> str:
    """``fetch`` in no-cors mode (no preflight): a run as a Blob with no type (so no Content-Type at all) to
    ``/runs``, and a FormData (multipart) to ``/runs/multipart``; the title says when both were answered."""
    run = json.dumps({**FORGED, "id": RID.replace("9", "8"), "dotted_order": f"20261205T000000000000Z{RID.replace('9', '8')}",
                      "trace_id": RID.replace("9", "8")})
    return ("<html><body><script>\n"
            f"const run = {json.dumps(run)};\n"
            f"const fd = new FormData(); fd.append('post.{RID}', {json.dumps(json.dumps(FORGED))});\n"
            f"Promise.all([fetch('{receiver_url}/runs', {{method: 'POST', mode: 'no-cors', body: new Blob([run])}}),\n"
            f"             fetch('{receiver_url}/runs/multipart', {{method: 'POST', mode: 'no-cors', body: fd}})])\n"
            "  .then(() => { document.title = 'answered'; }, e => { document.title = 'failed ' + e; });\n"
            "</script></body></html>")


def _wait(cond, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_cross_site_form_in_a_real_browser_stages_nothing(tmp_path, receiver_factory, browser):
    """The trial's page in a real Chromium: its form reaches the receiver (the browser shows the receiver's answer)
    and is refused 403 for its Origin; nothing is staged (before: ``{"accepted":1}`` and a run that read verified)."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    pages = _Pages({"csrf.html": _form_page(r.url)})
    try:
        browser.get(f"{pages.url}/csrf.html")
        _wait(lambda: browser.current_url.startswith(r.url), f"the form was not submitted: {browser.current_url}")
        _wait(lambda: browser.find_element("tag name", "body").text.strip(), "no answer shown")
        shown = browser.find_element("tag name", "body").text
    finally:
        pages.close()
    assert json.loads(shown) == {"error": f"a request from a web page (its Origin {pages.url} is not this server's own): "
                                          "refused, so that no page a browser shows can send to it"}
    assert _staged(root) == []


def test_a_cross_site_fetch_in_a_real_browser_stages_nothing(tmp_path, receiver_factory, browser):
    """``fetch`` with no preflight (a typeless Blob to ``/runs``, which read as JSON before; a FormData to
    ``/runs/multipart``): both answered, neither staged."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    pages = _Pages({"fetch.html": _fetch_page(r.url)})
    try:
        browser.get(f"{pages.url}/fetch.html")
        _wait(lambda: browser.title in ("answered",) or browser.title.startswith("failed"), f"title {browser.title!r}")
    finally:
        pages.close()
    assert browser.title == "answered"
    time.sleep(0.5)  # an accepted request is staged before its answer: nothing can still be on its way
    assert _staged(root) == []


def _post(port: int, path: str, body: bytes, headers: dict) -> tuple[int, dict]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.putrequest("POST", path, skip_host="Host" in headers, skip_accept_encoding=True)
        for k, v in {**headers, "Content-Length": str(len(body))}.items():
            c.putheader(k, v)
        c.endheaders(body)
        resp = c.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        c.close()


def test_plain_requests_a_page_could_send_are_refused_and_the_clients_are_taken(tmp_path, receiver_factory, captures):
    """Plain HTTP on a receiver with no token: another Host 421 (DNS rebinding), another Origin 403, a multipart
    body with neither key nor the client's User-Agent 403, each staging nothing; the recorded requests of the real
    client (multipart, its ``langsmith-py`` User-Agent and key) 202, and its own Origin, or a key alone, are taken."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    meta = json.loads((captures[0] / "meta.json").read_text())
    body = (captures[0] / "body.bin").read_bytes()
    ctype = meta["headers"]["Content-Type"]
    agent = meta["headers"]["User-Agent"]
    assert agent.startswith("langsmith-py/")  # what the real client sent

    status, answer = _post(r.port, "/runs/multipart", body, {"Host": "evil.example:1985", "Content-Type": ctype, "User-Agent": agent})
    assert (status, answer) == (421, {"error": "this server answers only to loopback names and the address it listens on"})
    status, answer = _post(r.port, "/runs/multipart", body, {"Content-Type": ctype, "User-Agent": agent,
                                                             "Origin": "http://evil.example"})
    assert status == 403 and "its Origin http://evil.example is not this server's own" in answer["error"]
    status, answer = _post(r.port, "/runs/multipart", body, {"Content-Type": ctype, "Origin": "null", "x-api-key": "k"})
    assert status == 403, answer
    status, answer = _post(r.port, "/runs/multipart", body, {"Content-Type": ctype})
    assert status == 403 and answer["error"].startswith("a request a web page can send (content type multipart/form-data)")
    status, answer = _post(r.port, "/runs", json.dumps(FORGED).encode(), {})  # no Content-Type: read as JSON before
    assert status == 403 and "(content type none)" in answer["error"]
    assert _staged(root) == []

    assert r.replay(captures[0])[0] == 202  # the client's request as recorded
    assert _post(r.port, "/runs/multipart", body, {"Content-Type": ctype, "User-Agent": agent,
                                                   "Origin": r.url})[0] == 202  # its own origin
    assert _post(r.port, "/runs/multipart", body, {"Content-Type": ctype, "x-api-key": "any"})[0] == 202
    assert _post(r.port, "/runs", json.dumps(FORGED).encode(), {"Content-Type": "application/json"})[0] == 202  # preflighted type
    assert len(_staged(root)) == 4


def test_with_a_token_any_host_is_answered_but_no_foreign_origin(tmp_path, receiver_factory, captures):
    """A token guards the receiver (a page cannot send it): a name it is reached by is answered (a team's host name),
    a foreign Origin still is not."""
    root = tmp_path / "root"
    r = receiver_factory(root, "--token", "s3cret")
    meta = json.loads((captures[0] / "meta.json").read_text())
    body = (captures[0] / "body.bin").read_bytes()
    head = {"Content-Type": meta["headers"]["Content-Type"], "x-api-key": "s3cret"}
    assert _post(r.port, "/runs/multipart", body, {**head, "Host": "ingest.team.example:1985"})[0] == 202
    assert _post(r.port, "/runs/multipart", body, {**head, "Origin": "http://evil.example"})[0] == 403
    assert len(_staged(root)) == 1


_CLIENT = """
import sys, uuid
from datetime import datetime, timezone
import langsmith
client = langsmith.Client(api_url=sys.argv[1], api_key=None)
rid = str(uuid.uuid4())
now = datetime.now(timezone.utc)
client.create_run(name="probe", run_type="chain", inputs={"q": "hi"}, id=rid, start_time=now, project_name="p",
                  dotted_order=now.strftime("%Y%m%dT%H%M%S%fZ") + rid, trace_id=rid)
client.flush()
print(rid)
"""


def test_the_installed_client_with_no_key_is_taken(tmp_path, receiver_factory):
    """The real LangSmith client, no API key (the receiver's default has no token): its run is staged (its
    ``langsmith-py`` User-Agent is the header no page can send). The client runs in a child process: its background
    threads would outlive the test in this one and stop later tests from forking asz's workers."""
    pytest.importorskip("langsmith")
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT")}
    root = tmp_path / "root"
    r = receiver_factory(root)
    p = subprocess.run([sys.executable, "-c", _CLIENT, r.url], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rid = p.stdout.strip()
    staged = [json.loads(line) for p in _staged(root) for line in p.read_text().splitlines()]
    assert [(a["op"], a["id"], a["run"]["inputs"]) for a in staged] == [("post", rid, {"q": "hi"})]
