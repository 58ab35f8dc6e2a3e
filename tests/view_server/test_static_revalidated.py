"""Issue 22, a conversation opened cold in a browser that has read the page before: the packaged scripts and style are
kept by the browser and asked again with their ETag (``cache-control: no-cache``), so a second page gets a 304 and
reuses what it compiled; the API's answers stay ``no-store``. Real server; real Chromium."""

from __future__ import annotations

import hashlib

from asz_core.view.page import ASSETS
from view_server_helpers import EXAMPLE_SESSION

from test_view_server_browser import open_at


def test_an_asset_is_asked_again_with_its_etag(example_root, serve):
    s = serve(example_root)
    for name, (media, body) in ASSETS.items():
        r = s.get(f"/static/{name}")
        assert r.status == 200 and r.body == body and r.headers["content-type"] == media
        assert r.headers["cache-control"] == "no-cache" and r.headers["etag"] == '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        assert r.headers["content-security-policy"].startswith("default-src 'none'")
        again = s.get(f"/static/{name}", headers={"if-none-match": r.headers["etag"]})
        assert again.status == 304 and again.body == b"" and again.headers["etag"] == r.headers["etag"]
        assert s.get(f"/static/{name}", headers={"if-none-match": '"other"'}).status == 200
    assert len({s.get(f"/static/{n}").headers["etag"] for n in ASSETS}) == len(ASSETS)
    assert s.get(f"/api/c/{EXAMPLE_SESSION}/view").headers["cache-control"] == "no-store"  # data is never kept
    assert s.get(f"/c/{EXAMPLE_SESSION}").headers["cache-control"] == "no-store"


def test_a_second_page_takes_the_scripts_from_the_browsers_cache(example_root, serve, browser):
    s = serve(example_root)
    # the list page runs no Markdown renderer (83f89cd: marked is asked only by a conversation's page), so the reader
    # goes from a conversation to the list and to a conversation again: that page has read every asset before
    open_at(browser, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk")
    open_at(browser, f"{s.base}/", "#rows")
    open_at(browser, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk")
    got = browser.execute_script(
        "return performance.getEntriesByType('resource').filter(function (r) { return r.name.indexOf('/static/') >= 0; })"
        ".map(function (r) { return [new URL(r.name).pathname, r.transferSize]; });")
    # every asset but the style sheet, which the shell holds written in (session 22)
    assert sorted(p for p, _ in got) == sorted(f"/static/{n}" for n in ASSETS if n != "app.css")
    assert b"<style>" + ASSETS["app.css"][1] + b"</style>" in s.get(f"/c/{EXAMPLE_SESSION}").body
    # headers only, each: a 304, the body read from the browser's cache (a whole answer sends the asset's bytes)
    assert all(0 < sent < 1000 < len(ASSETS[p.removeprefix("/static/")][1]) for p, sent in got), got
