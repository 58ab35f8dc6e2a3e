"""Who may read the page: ``asz view --token`` and ``asz server --token`` answer only requests carrying the run's
token, in the address's path (``/t/TOKEN/…``) or ``Authorization: Bearer`` (trial 38c F3, review38 R1; docs/view.md,
"Who may read it"); without ``--token`` both serve issue 7's endpoints with no token, as its contract says (fix38g).

The trial: on a shared host another account (``runuser -u mallory -- curl``) read ``/api/conversations`` (160,727 B,
every title) and a landed record from a tokenless ``asz view`` on loopback. Review38 R1: the token then travelled as a
cookie, which Chromium sent to a plain HTTP server on another loopback port once the owner's browser opened a page
there. Real servers on loopback (``asz view`` over the corpus root, ``asz server`` following a source), real HTTP, and
headless Chromium with a second server on another loopback port that logs every request it gets.
"""

from __future__ import annotations

import http.client
import http.server
import json
import re
import threading
import time

import pytest

from view_server_helpers import CANARY_SESSION, Served, asz, canary_lines, second_talk_lines, write_session

DEEP = "a7da6a22-facc-4fcd-8bab-f83c87862004"


def _raw(s: Served, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """One request with exactly ``headers`` (no token added), its status, headers (lower-case names) and body."""
    conn = http.client.HTTPConnection(s.host, s.port, timeout=60)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def _locked_out(s: Served, cid: str, words: list[str]) -> None:
    """Without the token, with another, or with the token as a cookie (none is honoured: a browser sends a cookie to
    every port), every page and API endpoint (``/api/search`` too) is 401 and holds none of ``words`` (the root's path, a title) nor ``cid``."""
    from asz_core.view.app import API_ROUTES

    routes = [p.format(id=cid, seq=1, row=1) for p, _ in API_ROUTES]  # every API endpoint of the server
    assert len(routes) == 11 and "/api/usage/blocks" in routes
    other = ("A" if s.token[0] != "A" else "B") + s.token[1:]
    for headers in ({}, {"Authorization": "Bearer not-the-token"}, {"Cookie": f"asz-token-{s.port}={s.token}"},
                    {"Cookie": f"asz-token={s.token}"}):
        for path in ("/", f"/c/{cid}", *routes, "/api/search?q=fox", "/?token=wrong", f"/t/{other}/",
                     f"/t/{other}/api/conversations", f"/t/{s.token[:-1]}/api/status", "/t//api/status",
                     f"/x/t/{s.token}/api/status"):
            status, got, body = _raw(s, path, headers)
            assert status == 401 and "set-cookie" not in got, (path, headers, status)
            assert not any(w.encode() in body for w in [*words, cid, str(s.port)]), (path, body)
            if "/api/" in path and not path.startswith("/x/"):
                assert json.loads(body)["code"] == "unauthorized"


def test_asz_view_token_in_the_path_or_a_bearer_header_never_a_cookie(corpus_root, tmp_path):
    s = Served(["view", "--root", str(corpus_root), "--token"], tmp_path, token=True)
    try:
        out = s.output()
        assert f"listening: http://127.0.0.1:{s.port}/t/{s.token}/\n" in out and len(s.token) == 43
        assert "access   : only with this run's token (in the address above, /t/TOKEN/" in out
        got = s.get("/api/conversations").json()  # Authorization: Bearer TOKEN (a script)
        assert DEEP in {r["id"] for r in got["conversations"]}
        _locked_out(s, DEEP, [got["root"], "/context"])
        status, headers, body = _raw(s, f"/t/{s.token}/api/conversations")  # the token in the path: no header
        assert status == 200 and json.loads(body)["root"] == got["root"] and "set-cookie" not in headers
        status, headers, page = _raw(s, f"/t/{s.token}/c/{DEEP}")  # the shell preloads its answers under /t/TOKEN
        assert status == 200 and headers["referrer-policy"] == "no-referrer"
        assert re.findall(rb'<link rel="preload" href="([^"]+)" as="fetch"', page) == \
            [f"/t/{s.token}/api/c/{DEEP}/{w}".encode() for w in ("view", "headings")]
        status, headers, _ = _raw(s, f"/c/{DEEP}?token={s.token}&hide=")  # an older address: sent on, no cookie
        assert status == 303 and headers["location"] == f"/t/{s.token}/c/{DEEP}?hide=" and "set-cookie" not in headers
        assert _raw(s, "/static/app.js")[0] == 200  # the page's own script: nothing of the root
    finally:
        s.stop()
    plain = Served(["view", "--root", str(corpus_root)], tmp_path)  # asz view without --token: as before, and said
    try:
        assert _raw(plain, "/api/conversations")[0] == 200
        assert _raw(plain, f"/t/{s.token}/api/conversations")[0] == 404  # no token, no /t/ paths
        assert "access   : no token: every account on this machine that reaches the port reads the root (--token " \
               "requires one)" in plain.output()
    finally:
        plain.stop()
    src = tmp_path / "nothing-new"
    src.mkdir()
    for extra in ([], ["--no-token"]):  # issue 7's contract: the default serves its endpoints without a token
        none = Served(["server", "--root", str(corpus_root), "--source", str(src), "--interval", "1h", *extra], tmp_path)
        try:
            status, _, body = _raw(none, "/api/status")
            assert status == 200 and json.loads(body)["mode"] == "server", body
            assert _raw(none, "/api/conversations")[0] == 200
            assert f"listening: http://127.0.0.1:{none.port}/\n" in none.output()
            assert "access   : no token: every account on this machine that reaches the port reads the root " \
                   "(--token requires one)" in none.output()
        finally:
            none.stop()
    both = asz("server", "--root", str(tmp_path / "r"), "--token", "--no-token", check=False)
    assert both.returncode == 2 and "--token and --no-token: give one" in both.stderr, both.stderr


class _Spy(http.server.BaseHTTPRequestHandler):
    """Another account's server on another loopback port: logs each request (its line and every header) and serves a
    page that asks its own port for more (an image, a fetch with credentials)."""

    seen: list[str] = []
    PAGE = (b"<!doctype html><title>other</title><img src='/pixel.png'><script>fetch('/probe', "
            b"{credentials: 'include'}).then(function () { document.title = 'probed'; });</script>")

    def do_GET(self):  # noqa: N802 - http.server's name
        type(self).seen.append(self.requestline + "\n" + str(self.headers))
        body = self.PAGE if self.path == "/" else b""
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if body else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.mark.slow  # 15 s at load 16: a server's first pass, a search, a live append, two origins in one browser
def test_the_token_reaches_no_other_port_and_the_page_works_whole_in_chromium(tmp_path, browser):
    """The owner opens the banner's address, searches, opens a hit's conversation, and sees a talk appended live;
    then the same browser opens a page another server serves on another loopback port: none of the requests that
    server gets holds the token, and the browser keeps no cookie holding it (review38 R1: a cookie did)."""
    from selenium.webdriver.common.by import By

    from test_view_server_browser import open_at, shot, wait

    src = tmp_path / "projects"
    write_session(src, canary_lines())
    s = Served(["server", "--root", str(tmp_path / "root"), "--source", str(src), "--interval", "10m", "--token"],
               tmp_path, timeout=60, token=True)
    spy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Spy)
    _Spy.seen = []
    threading.Thread(target=spy.serve_forever, daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while not ((r := s.get("/api/search?q=fox")).status == 200 and r.json()):  # the first pass indexed it
            assert time.monotonic() < deadline, s.output()
            time.sleep(0.2)
        _locked_out(s, CANARY_SESSION, [str(tmp_path), "Please check"])
        drv = browser
        open_at(drv, f"{s.base}/t/{s.token}/", "a.convtitle")  # the banner's address, one click
        q = drv.find_element(By.ID, "q")
        q.send_keys("fox")
        q.submit()
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "a.hitlink"))[0].click()
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk .talkhead .label"))
        assert drv.current_url.startswith(f"{s.base}/t/{s.token}/c/{CANARY_SESSION}#step=")
        assert len(drv.find_elements(By.CSS_SELECTOR, "section.talk")) == 1
        write_session(src, second_talk_lines(), append=True)  # live: the open page shows the appended talk
        wait(drv, lambda d: d.find_elements(By.ID, "updated"), timeout=60)
        assert "Updated to round 2" in drv.find_element(By.ID, "updated").text
        labels = [e.text for e in drv.find_elements(By.CSS_SELECTOR, "section.talk .talkhead .label")]
        assert labels[-1] == "Second question: is the log still long?"
        shot(drv, "token_in_path")
        asked = drv.execute_script("return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
        api = [u for u in asked if "/api/" in u]
        assert api and all(u.startswith(f"{s.base}/t/{s.token}/api/") for u in api), asked
        assert {c["name"] for c in drv.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
                if s.token in c["value"]} == set()
        drv.get(f"http://127.0.0.1:{spy.server_address[1]}/")  # another account's page, opened by the owner
        wait(drv, lambda d: d.title == "probed")
        wait(drv, lambda _: any(r.startswith("GET /pixel.png") for r in _Spy.seen))
        assert [r.split("\n")[0] for r in _Spy.seen if r.startswith("GET /probe")] == ["GET /probe HTTP/1.1"]
        assert not [r for r in _Spy.seen if s.token in r], _Spy.seen
        assert all(s.token not in c["value"] for c in drv.execute_cdp_cmd("Network.getAllCookies", {})["cookies"])
    finally:
        spy.shutdown()
        spy.server_close()
        s.stop()
