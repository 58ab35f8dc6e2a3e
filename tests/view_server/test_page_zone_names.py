"""Issue 22, a brand-new browser's first page: a conversation's first screen makes no Intl formatter (the first one a
Chromium page makes starts ICU, 12-20 ms), so its times name their zone from the Date's own text (app.js ``tzGuess``:
an English long name en-US abbreviates, else the offset as ICU writes it) and its counts are grouped by app.js
(``num``). Once that screen is painted, ``checkFormats`` asks Intl for every zone name so guessed and draws the
document again where one differs; from then on Intl names every zone.

Headless Chromium over the real ``asz collect`` and parse of ``../shared/corpus`` (skipped when absent): 8463c716
(the corpus's largest conversation, 3 talks), opened in five time zones set by CDP (``Emulation.setTimezoneOverride``).
A script run before the page's own (``Page.addScriptToEvaluateOnNewDocument``) counts the Intl formatters and
``toLocaleString`` calls made before the first talk appears and notes that talk's time as first drawn."""

from __future__ import annotations

import pytest

from test_tool_fields import SPOTTER
from test_view_server_browser import go, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

WATCH = """
window.__intl = 0; window.__first = null;
(function () {
  const DTF = Intl.DateTimeFormat, NF = Intl.NumberFormat, tls = Number.prototype.toLocaleString;
  Intl.DateTimeFormat = function (a, b) { window.__intl += 1; return new DTF(a, b); };
  Intl.NumberFormat = function (a, b) { window.__intl += 1; return new NF(a, b); };
  Number.prototype.toLocaleString = function (a, b) { window.__intl += 1; return tls.call(this, a, b); };
  window.__DTF = DTF;
  if (window.__lie) {  // the Date's text names another zone than the one it is in: the guess is wrong
    const ts = Date.prototype.toString;
    Date.prototype.toString = function () { return ts.call(this).replace(/\\([^()]*\\)$/, '(' + window.__lie + ')'); };
  }
})();
new MutationObserver(function (ms, obs) {
  const t = document.querySelector('section.talk .when');
  if (!t) return;
  obs.disconnect();
  const chips = Array.from(document.querySelectorAll('.chip')).map(function (c) { return c.textContent; });
  window.__first = { intl: window.__intl, when: t.textContent, tokens: chips.filter(function (c) { return c.indexOf('tokens ') === 0; })[0] };
}).observe(document, { childList: true, subtree: true });
"""

#: Each talk's time as app.js's fmtTime writes it, its zone named by a real Intl formatter (en-US, short).
EXPECTED = """
const DTF = window.__DTF || Intl.DateTimeFormat;
const f = new DTF('en-US', { timeZoneName: 'short' });
const pad = function (n) { return String(n).padStart(2, '0'); };
return arguments[0].map(function (ms) {
  const d = new Date(ms);
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + pad(d.getHours()) + ':' +
    pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + ' ' + f.formatToParts(d).filter(function (p) { return p.type === 'timeZoneName'; })[0].value;
});
"""


def _open(drv, url: str, zone: str, lie: str | None = None) -> dict:
    """Open ``url`` in ``zone`` with :data:`WATCH` run first; returns what it noted at the first talk."""
    drv.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
    pre = f"window.__lie = {lie!r};" if lie else ""
    sid = drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": pre + WATCH})["identifier"]
    try:
        go(drv, url)
        return wait(drv, lambda d: d.execute_script("return window.__first"))
    finally:
        drv.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": sid})


def _doc(s) -> dict:
    return s.get(f"/api/c/{SPOTTER[1]}/view").json()


def _talk_times(s) -> list[int]:
    return [t.get("at") or t["from"] for t in _doc(s)["talks"]]


def _drawn(drv) -> list[str]:
    return drv.execute_script("return Array.from(document.querySelectorAll('#panel > section.talk > .talkh > .talkhead .when'))"
                              ".map(function (e) { return e.textContent; })")


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kathmandu", "Europe/London", "Pacific/Honolulu"])
def test_the_first_screen_starts_no_intl_and_names_each_zone_as_intl_does(corpus_root, serve, browser, zone):
    s = serve(corpus_root)
    try:
        first = _open(browser, f"{s.base}/c/{SPOTTER[1]}", zone)
        expected = browser.execute_script(EXPECTED, _talk_times(s))
        assert len(expected) == 3
        # Hawaii's names changed over the years (HST, HAST): no guess there, Intl at once
        assert first["intl"] == (0 if zone != "Pacific/Honolulu" else 1)
        assert first["when"] == expected[0]  # as first drawn
        u = _doc(s)["summary"]["usage"]  # counts grouped as en-US groups them (Python's ',' is the same rule)
        assert first["tokens"].startswith(f"tokens in {u['in']:,} · out {u['out']:,} · cache read {u['cache_read']:,} · "
                                          f"cache write {u['cache_write']:,}")
        assert u["cache_read"] >= 1_000_000
        wait(browser, lambda d: d.execute_script("return window.__intl") > first["intl"])  # checkFormats ran
        assert _drawn(browser) == expected
    finally:
        browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})


def test_a_wrong_guess_is_drawn_again_as_intl_names_it(corpus_root, serve, browser):
    """A Date text naming another zone (here Eastern while the page is in UTC) makes the first screen say EST; once
    it is painted, checkFormats finds Intl's UTC and the document is drawn again, every talk still there."""
    s = serve(corpus_root)
    try:
        first = _open(browser, f"{s.base}/c/{SPOTTER[1]}", "UTC", lie="Eastern Standard Time")
        assert first["intl"] == 0 and first["when"].endswith(" EST")
        expected = browser.execute_script(EXPECTED, _talk_times(s))
        assert [e[-4:] for e in expected] == [" UTC"] * 3
        wait(browser, lambda d: _drawn(d) == expected)
        assert browser.execute_script("return document.querySelectorAll('#panel > section.talk').length") == 3
    finally:
        browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
