"""A visible focus ring for keyboard users, none for a mouse click (fix29c; WCAG 2.4.7 Focus Visible, 2.4.13 Focus
Appearance): whatever the keyboard gives focus to on the list and on a conversation (links, buttons, tabs, a talk's
button, a step's row, a fold) draws a 2 px solid ring whose colour reaches 3:1 against what it sits on, in the light
and the dark scheme; a talk's button or a step's row clicked with the mouse has focus and draws no ring
(``:focus-visible``; before, the page set no focus style and left Chromium's own 1 px ``auto`` ring).

Real input: the bundled example and the canary session collected and parsed by the real commands, a real ``asz view``,
headless Chromium driven by real key presses and mouse clicks (Selenium's actions); the ring is read from the
element's computed style, its contrast computed here (WCAG's relative luminance).
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_page_contrast import COLOUR_JS
from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import EXAMPLE_SESSION

#: The focused element's ring: [tag, class, [type] and :focus when it matches, :focus-visible, outline style, width
#: (px), offset (px), colour, the background under the ring (the element's own for a ring drawn inside it, else its
#: parent's), their contrast].
RING = COLOUR_JS + """
const e = document.activeElement, cs = getComputedStyle(e);
function behind(x) { for (; x; x = x.parentElement) { const c = parse(getComputedStyle(x).backgroundColor); if (c && c.a >= 1) return c; }
  return { r: 255, g: 255, b: 255, a: 1 }; }
const offset = parseFloat(cs.outlineOffset), ring = parse(cs.outlineColor), bg = behind(offset < 0 ? e : e.parentElement);
const a = lum(ring), b = lum(bg);
return [e.tagName + '.' + e.className + (e.type ? '[' + e.type + ']' : '') + (e.matches(':focus') ? ':focus' : ''), e.matches(':focus-visible'), cs.outlineStyle, parseFloat(cs.outlineWidth), offset,
        hex(ring), hex(bg), Math.round((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) * 100) / 100];
"""


def _scheme(drv, dark: bool) -> None:
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


def _tab_walk(drv, stops: int) -> list[list]:
    """Press Tab up to ``stops`` times from the page's top (its skip link), until focus leaves the page (past its last
    stop: BODY); the ring of each element that got focus on the way."""
    drv.execute_script("window.scrollTo(0, 0); document.querySelector('a.skip').focus(); document.activeElement.blur()")
    rings = []
    for _ in range(stops):
        ActionChains(drv).send_keys(Keys.TAB).perform()
        ring = drv.execute_script(RING)
        if ring[0].startswith("BODY"):
            break
        rings.append(ring)
    return rings


def _bad(rings: list[list]) -> list[list]:
    return [(i, r) for i, r in enumerate(rings) if not (r[2] == "solid" and r[3] >= 2 and r[7] >= 3)]


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_every_keyboard_stop_draws_a_ring_of_3_to_1(example_canary_root, serve, browser, dark):
    s = serve(example_canary_root)
    drv = browser
    _scheme(drv, dark)
    try:
        open_at(drv, s.base + "/", "a.convtitle")
        wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#rows .counting"), timeout=60)
        rings = _tab_walk(drv, 60)  # the skip link, the tabs, the search, the filters, the sort buttons, the rows' links
        kinds = {r[0].split(".")[0] for r in rings}
        assert len(rings) >= 20 and {"A", "BUTTON", "INPUT", "SELECT"} <= kinds, [r[0] for r in rings]
        assert _bad(rings) == [], _bad(rings)
        open_at(drv, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk .talkhead")
        drv.find_element(By.ID, "expand-all").click()  # every talk open: its steps' rows and folds are Tab stops too
        wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#panel > section.talk:not(.open)"))
        rings = _tab_walk(drv, 60)
        classes = " ".join(r[0] for r in rings)
        assert "BUTTON.talkhead" in classes and "DIV.row" in classes and "BODY" not in classes, classes
        assert _bad(rings) == [], _bad(rings)
        inside = [r for r in rings if r[0].startswith(("BUTTON.talkhead", "DIV.row"))]
        assert inside and all(r[4] < 0 for r in inside), inside  # drawn inside the rounded card, where no edge clips it
    finally:
        _scheme(drv, False)


def test_a_mouse_click_gives_focus_and_draws_no_ring(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    head = open_at(drv, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk .talkhead")
    ActionChains(drv).move_to_element(head).click().perform()  # a real mouse click: the talk opens
    assert head.get_attribute("aria-expanded") == "true"
    ring = drv.execute_script(RING)
    assert ring[0] == "BUTTON.talkhead[button]:focus" and ring[1] is False and ring[2] == "none", ring
    row = wait(drv, lambda d: d.find_element(By.CSS_SELECTOR, "section.talk.open .node > .row"))
    ActionChains(drv).move_to_element(row).click().perform()
    assert row.get_attribute("aria-expanded") == "true"
    ring = drv.execute_script(RING)
    assert ring[0] == "DIV.row:focus" and ring[1] is False and ring[2] == "none", ring
    ActionChains(drv).send_keys(Keys.TAB).perform()  # the keyboard again: the next stop draws its ring
    ring = drv.execute_script(RING)
    assert ring[1] is True and ring[2] == "solid" and ring[7] >= 3, ring
