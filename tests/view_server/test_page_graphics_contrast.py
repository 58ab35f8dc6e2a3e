"""The page's diff and chart colours, measured in both colour schemes (fix29c; fix28c measured the dark mode's text on
the list, a search and two conversations, not the Changes tab's diffs nor the Usage charts): every text of the
Changes tab reaches 4.5:1 against what it sits on (WCAG 1.4.3), and every bar of the Usage charts, every legend
swatch, reaches 3:1 against the chart's background (WCAG 1.4.11, non-text contrast), the bars of one day stacked with
a gap of the chart's background between them (so no two colours meet: each only needs 3:1 against that background);
the axis labels are text, 4.5:1.

Every ratio is computed here (WCAG's relative luminance) from the colours Chromium computed for the elements as drawn
(``getComputedStyle``: a bar's ``fill``, a swatch's ``background-color``, a text's ``color`` over the first opaque
background behind it). Real input: the Claude Code corpus collected and parsed by the real commands, served by a real
``asz view``, read by headless Chromium: a7da6a22's Changes tab (23 changes, their hunks drawn) and the Usage view
of the whole root.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from test_page_contrast import COLOUR_JS, CONTRAST
from test_view_server_browser import open_at, open_usage, wait  # noqa: F401  (the browser fixture: tests/conftest.py)

#: The corpus conversation with the most workspace changes whose records hold their lines (asz ls: CHANGES 23).
CHANGED = "a7da6a22-facc-4fcd-8bab-f83c87862004"

#: [[what, colour, background, ratio]] of each bar (its day and series), legend swatch and axis label of every chart
#: of the Usage view, the background being the first opaque one behind the chart; and [[day, upper bar's bottom, lower
#: bar's top]] of each pair of stacked bars of one day that touch or overlap (no gap between them).
GRAPHICS = COLOUR_JS + """
const ratio = (a, b) => { const x = lum(a), y = lum(b); return Math.round((Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05) * 100) / 100; };
function behind(e) {
  for (let x = e; x; x = x.parentElement) { const c = parse(getComputedStyle(x).backgroundColor); if (c && c.a >= 1) return c; }
  return { r: 255, g: 255, b: 255, a: 1 };
}
const out = [], touching = [];
document.querySelectorAll('svg.chart').forEach(function (svg) {
  const bg = behind(svg.parentElement);
  const byDay = {};
  svg.querySelectorAll('rect').forEach(function (r) {
    const fill = parse(getComputedStyle(r).fill);
    out.push(['bar ' + r.getAttribute('data-day') + ' ' + r.getAttribute('class'), hex(fill), hex(bg), ratio(fill, bg), 3]);
    (byDay[r.getAttribute('data-day')] = byDay[r.getAttribute('data-day')] || []).push(r);
  });
  Object.keys(byDay).forEach(function (day) {
    const bars = byDay[day].map(r => [Number(r.getAttribute('y')), Number(r.getAttribute('y')) + Number(r.getAttribute('height'))])
      .sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < bars.length; i++) if (bars[i - 1][1] > bars[i][0] - 1) touching.push([day, bars[i - 1][1], bars[i][0]]);
  });
  svg.querySelectorAll('text').forEach(function (t) {
    const fill = parse(getComputedStyle(t).fill);
    out.push(['axis ' + t.textContent, hex(fill), hex(bg), ratio(fill, bg), 4.5]);
  });
});
document.querySelectorAll('.legend .sw').forEach(function (s) {
  const c = parse(getComputedStyle(s).backgroundColor), bg = behind(s.parentElement);
  out.push(['swatch ' + s.parentElement.textContent, hex(c), hex(bg), ratio(c, bg), 3]);
});
return [out, touching];
"""


def _scheme(drv, dark: bool) -> None:
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


@pytest.fixture(params=[False, True], ids=["light", "dark"])
def schemed(request, corpus_root, serve, browser):
    """``(server, driver, dark)``: a real asz view over the corpus and Chromium in the light, then the dark scheme
    (put back to light after the test)."""
    _scheme(browser, request.param)
    try:
        yield serve(corpus_root), browser, request.param
    finally:
        _scheme(browser, False)


def test_every_diff_text_passes_aa(schemed):
    s, drv, dark = schemed
    open_at(drv, f"{s.base}/c/{CHANGED}#tab=changes", "#changes .difflines")
    assert drv.execute_script("return getComputedStyle(document.body).backgroundColor") == ("rgb(20, 23, 28)" if dark else "rgb(246, 247, 249)")
    kinds = drv.execute_script("return ['add', 'del', 'hunk', 'ctx'].map(k => document.querySelectorAll('#changes .dl.' + k).length)")
    assert all(kinds), kinds  # added, removed, hunk-head and context lines are all drawn, so all are measured
    bad, measured, _ = drv.execute_script(CONTRAST)
    assert measured > sum(kinds) and bad == [], f"{len(bad)} text(s) below AA: {bad[:12]}"


def test_every_chart_bar_and_swatch_reaches_3_to_1_and_its_labels_4_5(schemed):
    s, drv, _ = schemed
    open_usage(drv, s.base, "svg.chart rect")
    measured, touching = drv.execute_script(GRAPHICS)
    series = {m[0].split(" ")[2] for m in measured if m[0].startswith("bar ")}
    assert series == {"s-in", "s-out", "s-cache_write", "s-cache_read", "s-cost"}, series  # every series is drawn
    assert len([m for m in measured if m[0].startswith("swatch ")]) == 4
    bad = [m for m in measured if m[3] < m[4]]
    assert bad == [], f"{len(bad)} of {len(measured)} below their bar: {sorted({tuple(b[1:]) for b in bad})}"
    assert touching == [], touching[:5]
