"""Who may read the page: ``asz server --token`` and ``asz view --token`` answer only requests carrying the run's
token, exchanged for a cookie as Jupyter does (trial 38c F3; docs/view.md, "Who may read it"); without ``--token``
both serve issue 7's endpoints with no token, as its contract says (fix38g).

The trial: on a shared host another account (``runuser -u mallory -- curl``) read ``/api/conversations`` (160,727 B,
every title) and a landed record from a tokenless ``asz view`` on loopback. Real servers on loopback (``asz server``
and ``asz view`` children over the corpus root), real HTTP, and headless Chromium for the banner's address.
"""

from __future__ import annotations

import http.client
import json

from view_server_helpers import Served, asz

from test_view_server_browser import open_at

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


def _locked_out(s: Served, title: str) -> None:
    """Without the token, or with another, every page and API path is 401 and holds nothing of the root."""
    for headers in ({}, {"Authorization": "Bearer not-the-token"}, {"Cookie": f"asz-token-{s.port}=not-the-token"},
                    {"Cookie": f"asz-token-1={s.token}"}):  # another port's cookie name
        for path in ("/", f"/c/{DEEP}", "/api/status", "/api/conversations", f"/api/c/{DEEP}/view",
                     f"/api/c/{DEEP}/record/1/1", "/api/search?q=server", "/?token=wrong"):
            status, _, body = _raw(s, path, headers)
            assert status == 401, (path, headers, status)
            assert title.encode() not in body and DEEP.encode() not in body and str(s.port).encode() not in body
            if path.startswith("/api/"):
                assert json.loads(body)["code"] == "unauthorized"


def test_asz_server_token_answers_only_its_token_and_the_banner_address_sets_a_strict_cookie(corpus_root, tmp_path):
    src = tmp_path / "nothing-new"
    src.mkdir()
    s = Served(["server", "--root", str(corpus_root), "--source", str(src), "--interval", "1h", "--token"], tmp_path,
               token=True)
    try:
        out = s.output()
        assert f"listening: http://127.0.0.1:{s.port}/?token={s.token}" in out and len(s.token) == 43
        assert "access   : only with this run's token" in out
        got = s.get("/api/conversations").json()  # Authorization: Bearer TOKEN (a script)
        assert DEEP in {r["id"] for r in got["conversations"]}
        title = got["root"]  # the root's path: in every list answer, in no refusal
        _locked_out(s, title)
        status, headers, _ = _raw(s, f"/c/{DEEP}?token={s.token}&hide=")
        assert status == 303 and headers["location"] == f"/c/{DEEP}?hide="
        cookie = headers["set-cookie"]
        assert cookie == f"asz-token-{s.port}={s.token}; HttpOnly; SameSite=Strict; Path=/"
        status, _, body = _raw(s, "/api/conversations", {"Cookie": f"other=1; {cookie.split(';')[0]}"})
        assert status == 200 and title.encode() in body and DEEP.encode() in body
        assert _raw(s, "/static/app.js")[0] == 200  # the page's own script: nothing of the root
    finally:
        s.stop()
    for extra in ([], ["--no-token"]):  # issue 7's contract: the default serves its endpoints without a token
        none = Served(["server", "--root", str(corpus_root), "--source", str(src), "--interval", "1h", *extra], tmp_path)
        try:
            status, _, body = _raw(none, "/api/status")
            assert status == 200 and json.loads(body)["mode"] == "server", body
            assert _raw(none, "/api/conversations")[0] == 200
            assert "?token=" not in none.output()
            assert "access   : no token: every account on this machine that reaches the port reads the root " \
                   "(--token requires one)" in none.output()
        finally:
            none.stop()
    both = asz("server", "--root", str(tmp_path / "r"), "--token", "--no-token", check=False)
    assert both.returncode == 2 and "--token and --no-token: give one" in both.stderr, both.stderr


def test_asz_view_token_and_the_banner_address_in_chromium(corpus_root, tmp_path, browser):
    s = Served(["view", "--root", str(corpus_root), "--token"], tmp_path, token=True)
    try:
        _locked_out(s, "/context")
        open_at(browser, f"{s.base}/c/{DEEP}?token={s.token}", "section.talk .talkhead .label")  # the banner's address
        labels = [e.text for e in browser.find_elements("css selector", "section.talk .talkhead .label")]
        assert labels[:2] == ["/context", "/model"]  # the headings answer, fetched by the page with the cookie, drawn
        assert "token=" not in browser.current_url  # the address it was sent on to holds no token
        assert browser.execute_script("return document.cookie") == ""  # HttpOnly: no script reads it
    finally:
        s.stop()
    plain = Served(["view", "--root", str(corpus_root)], tmp_path)  # asz view without --token: as before, and said
    try:
        assert _raw(plain, "/api/conversations")[0] == 200
        assert "access   : no token: every account on this machine that reaches the port reads the root (--token " \
               "requires one)" in plain.output()
    finally:
        plain.stop()
