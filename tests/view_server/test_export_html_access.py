"""The HTML export read in a dark-mode browser and on a phone (trial 28b, F7 and F13), and the page's evidence drawer
on a phone (F14).

F7: in dark mode the export's links were #0000ee on #111 (2.01:1), its metadata #666 (3.29:1), the Person label 2.86:1
and ``failed`` 3.46:1: every text now reaches AA (4.5:1) there, computed from the colours Chromium computed with
``prefers-color-scheme: dark`` emulated. F13: at 360 px a reply's Markdown table and a long inline code made the
export 502 px wide: a table scrolls in its own box, code wraps; the export and its index each have one ``main``
landmark. F14: the drawer, as wide as the window with its scrollbar, started at x = -15.

Real input: the bundled example and a session whose reply holds a wide table and a long inline code, collected and
parsed by the real commands, exported by the real ``asz export``, opened from the file in headless Chromium.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from test_page_contrast import CONTRAST
from test_view_server_browser import go, open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import CANARY_SESSION, EXAMPLE_SESSION, _assistant, _env, asz, collect_and_parse, copy_example, write_config, write_session

#: A reply with a Markdown table of 8 wide columns and an inline code span of 120 characters with no space.
TABLE = "| " + " | ".join(f"column {i} heading" for i in range(8)) + " |\n|" + "---|" * 8 + "\n| " + " | ".join(f"cell {i} value" for i in range(8)) + " |"
CODE = "`" + "a/very/long/path/with/no/space/" * 4 + "`"
REPLY = f"Here is the table.\n\n{TABLE}\n\nAnd the file {CODE} was read. See [the docs](https://example.org/docs)."


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    base = tmp_path_factory.mktemp("export-access")
    src = copy_example(base / "projects")
    p = "p-wide-1"
    write_session(src, [
        _env("u-1", None, "2026-11-21T10:00:00.000Z", "user", promptId=p, origin={"kind": "human"},
             message={"role": "user", "content": "Show me the table."}),
        _assistant("a-1", "u-1", "2026-11-21T10:00:02.000Z", "msg_w1",
                   [{"type": "tool_use", "id": "toolu_w1", "name": "Bash", "input": {"command": "make deploy"}}], "tool_use", p),
        _env("u-2", "a-1", "2026-11-21T10:00:03.000Z", "user", promptId=p, sourceToolAssistantUUID="a-1",
             message={"role": "user", "content": [{"tool_use_id": "toolu_w1", "type": "tool_result", "content": "make: no rule", "is_error": True}]},
             toolUseResult="Error: make: no rule"),
        _assistant("a-2", "u-2", "2026-11-21T10:00:04.000Z", "msg_w2", [{"type": "text", "text": REPLY}], "end_turn", p),
    ])
    root = base / "root"
    collect_and_parse(src, root)
    out = base / "out"
    for cid in (EXAMPLE_SESSION, CANARY_SESSION):
        asz("export", cid, "--format", "html", "--root", str(root), "--out", str(base / f"{cid[:8]}.html"))
    asz("export", "--since", "2020-01-01", "--format", "html", "--root", str(root), "--out", str(out))
    return {"root": root, "base": base, "index": out / "index.html"}


def _dark(drv, on: bool) -> None:
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if on else "light"}]})


def test_the_export_passes_aa_in_dark_mode_and_in_light(exported, browser):
    drv = browser
    drv.set_window_size(1280, 1000)
    try:
        for name in (f"{EXAMPLE_SESSION[:8]}.html", f"{CANARY_SESSION[:8]}.html"):
            for dark in (True, False):
                _dark(drv, dark)
                go(drv, (exported["base"] / name).as_uri())
                drv.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
                assert drv.execute_script("return getComputedStyle(document.body).backgroundColor") == \
                    ("rgb(17, 17, 17)" if dark else "rgb(255, 255, 255)")
                bad, measured, _ = drv.execute_script(CONTRAST)
                assert measured > 10 and bad == [], (name, "dark" if dark else "light", bad[:10])
        # what failed before was there to measure: links, metadata, the Person label, a failed call
        _dark(drv, True)
        go(drv, (exported["base"] / f"{CANARY_SESSION[:8]}.html").as_uri())
        for css in ("a[href]", ".meta", ".failed", ".step.person"):
            assert drv.find_elements(By.CSS_SELECTOR, css), css
    finally:
        _dark(drv, False)


def test_a_withheld_step_passes_aa_in_light_and_in_dark(canary_root, tmp_path, browser):
    """A step the configuration withholds is drawn in grey: it read 3.54:1 (#888 on white) in light mode, where the
    export promises every text AA (review C 28). The canary session with its system prompt and tool schemas hidden
    has two such steps (tests/reading/test_export.py's configuration)."""
    cfg = write_config(tmp_path / "asz.yaml", hide=["system_prompt", "tool_schemas"])
    page = tmp_path / "withheld.html"
    asz("export", CANARY_SESSION, "--format", "html", "--root", str(canary_root), "--config", str(cfg), "--out", str(page))
    drv = browser
    drv.set_window_size(1280, 1000)
    try:
        for dark in (False, True):
            _dark(drv, dark)
            go(drv, page.as_uri())
            assert len(drv.find_elements(By.CSS_SELECTOR, ".step.withheld")) == 2
            bad, measured, _ = drv.execute_script(CONTRAST)
            assert measured > 10 and bad == [], ("dark" if dark else "light", bad[:10])
    finally:
        _dark(drv, False)


def test_the_export_and_its_index_fit_360_px_and_have_a_main_landmark(exported, browser):
    drv = browser
    drv.set_window_size(360, 740)
    for path in (exported["base"] / f"{CANARY_SESSION[:8]}.html", exported["index"]):
        go(drv, path.as_uri())
        drv.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert drv.execute_script("return document.querySelectorAll('main').length") == 1, path
        assert drv.find_element(By.TAG_NAME, "main").find_elements(By.TAG_NAME, "h1"), path  # the content is in it
        wide = drv.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide[0] <= wide[1], (path.name, wide)
    go(drv, (exported["base"] / f"{CANARY_SESSION[:8]}.html").as_uri())
    table = drv.find_element(By.CSS_SELECTOR, "main table")  # the reply's table scrolls in its own box
    assert drv.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", table)
    assert drv.execute_script("return getComputedStyle(arguments[0]).overflowX", table) == "auto"


def test_the_evidence_drawer_starts_at_the_left_edge_at_360_px(exported, serve, browser):
    s = serve(exported["root"])
    drv = browser
    head = open_at(drv, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk .talkhead", width=360, height=740)
    head.click()
    wait(drv, lambda d: d.find_element(By.XPATH, "//button[normalize-space()='Evidence of the talk']")).click()
    drawer = wait(drv, lambda d: d.find_element(By.CSS_SELECTOR, "#drawer.open"))
    box = drv.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right, document.documentElement.clientWidth]", drawer)
    assert box[0] >= 0 and box[1] <= box[2] + 0.5, box
