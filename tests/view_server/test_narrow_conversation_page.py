"""Trial 48b F6: at 360 px the conversation page scrolled sideways (scrollWidth 459 against a clientWidth of 345): its
problems line ``missing companion file tool-results/toolu_….txt …`` is one unbroken word that did not wrap. Long
words now wrap wherever the page prints them (app.css: ``overflow-wrap`` on the body), tables scrolling in their box.

Real input: the corpus's largest transcript (by bytes), which names companion files the corpus does not hold,
collected by the real ``asz collect --once`` (tests/conftest.py); a real ``asz view`` on loopback; headless Chromium
at a 360 px wide viewport (CDP's device metrics, as the trial measured)."""

from __future__ import annotations

from view_server_helpers import Served  # noqa: F401  (serve's servers)
from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

WIDE = "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


def test_the_largest_conversation_does_not_scroll_sideways_at_360_px(corpus_root, corpus_projects, serve, browser):
    largest = max(corpus_projects.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    assert "tool-results/" in largest.read_text(encoding="utf-8")  # the premise: it names companion files
    s = serve(corpus_root)
    drv = browser
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 800, "deviceScaleFactor": 1,
                                                                "mobile": False})
    try:
        box = open_at(drv, f"{s.base}/c/{largest.stem}", "#problems", width=500, height=800)
        wait(drv, lambda d: "missing companion file tool-results/" in box.text)
        wide, client = drv.execute_script(WIDE)
        assert client <= 360 and wide <= client, (wide, client)
    except Exception:
        shot(drv, "48b-f6-narrow-failed")
        raise
    finally:
        drv.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
