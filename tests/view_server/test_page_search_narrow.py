"""Trial 50b F6: in a window 380 px wide the list's search field was about 110 px ("Search pro"): the button and the
"by conversation" option took the rest of its row. On a narrow screen it now has the row's whole width, its button and
option under it, and nothing scrolls sideways. Real parts: the real headless Chromium (tests/conftest.py) on a real
``asz view`` over loopback serving the example root."""

from __future__ import annotations

import pytest
from test_view_server_browser import open_at


@pytest.mark.parametrize("width", [380, 320])
def test_the_search_field_takes_the_row_on_a_narrow_screen(example_root, serve, browser, width):
    s = serve(example_root)
    try:
        open_at(browser, s.base + "/", "a.convtitle", width=width, height=800)
        got = browser.execute_script("""const f = document.querySelector('form.searchbar'), q = document.getElementById('q');
          const cs = getComputedStyle(f), r = q.getBoundingClientRect(), b = f.querySelector('button').getBoundingClientRect();
          return {form: f.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight), field: r.width,
                  below: b.top >= r.bottom, page: document.documentElement.clientWidth,
                  sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth};""")
    finally:
        browser.set_window_size(1280, 1000)
    assert abs(got["field"] - got["form"]) <= 1 and got["field"] >= got["page"] - 40, got
    assert got["below"] and got["sideways"] <= 1, got


def test_a_wide_screen_keeps_the_button_beside_the_field(example_root, serve, browser):
    s = serve(example_root)
    open_at(browser, s.base + "/", "a.convtitle", width=1280, height=1000)
    got = browser.execute_script("""const q = document.getElementById('q').getBoundingClientRect();
      const b = document.querySelector('form.searchbar button').getBoundingClientRect();
      return {same_row: Math.abs(b.top - q.top) < q.height, field: q.width};""")
    assert got["same_row"] and got["field"] > 600, got
