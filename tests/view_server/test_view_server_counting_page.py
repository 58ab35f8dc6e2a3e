"""The list page while the server still counts rows (issue 22), in headless Chromium: "counting…", never 0 or blank.

The server withholds nothing but takes a request's ``hide`` (``view.hide_override``);
the page asks withholding both names, for which nothing is counted yet on a
copy of the corpus root without ``_index/``, so its first list answer marks
every row as still being counted, whatever the background checker did. A
script added before the page loads records every drawing of the rows, so the
test reads what the page showed at each step instead of racing it.
"""

from __future__ import annotations

import json
import shutil

from view_server_helpers import Served, counted_rows, write_config

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402

HIDE = "?hide=system_prompt,tool_schemas"
#: Runs before the page's own script: keeps a copy of the rows' cells each time the table is drawn again.
RECORDER = """
window.__drawn = [];
new MutationObserver(function () {
  const tb = document.getElementById('rows');
  if (!tb || !tb.children.length) return;
  const rows = Array.from(tb.children).map(function (tr) {
    return [tr.getAttribute('data-id')].concat(Array.from(tr.children).map(function (td) { return td.innerText.split('\\n')[0]; }));
  });
  const key = JSON.stringify(rows);
  if (!window.__drawn.length || window.__drawn[window.__drawn.length - 1] !== key) window.__drawn.push(key);
}).observe(document, { childList: true, subtree: true });
"""


def _tokens(usage: dict) -> str:
    return f"{sum(usage[k] for k in ('in', 'out', 'cache_read', 'cache_write')):,}"


def test_rows_still_counted_say_counting_and_fill_in(corpus_root, browser, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(corpus_root, root, ignore=shutil.ignore_patterns("_index"))
    s = Served(["view", "--root", str(root), "--config", str(write_config(tmp_path / "asz.yaml", hide=[], override=True))], tmp_path)
    drv = browser
    added = drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    try:
        open_at(drv, s.base + "/" + HIDE, "#rows tr")
        wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#rows td.counting") and len(d.find_elements(By.CSS_SELECTOR, "#rows tr")) == 11,
             timeout=180)
        drawn = [json.loads(k) for k in drv.execute_script("return window.__drawn")]
        rows = {r["id"]: r for r in counted_rows(s, HIDE)}
        shot(drv, "14-counted-list")
    finally:
        drv.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
        s.stop()
    # cells: id, conversation (title, project, id), last activity, model, tokens, cost, talks, model calls, steps, state
    first = drawn[0]
    assert len(first) == 11
    for cells in first:  # the first answer: nothing counted for these names yet
        assert cells[1] == "counting…" and cells[3:6] == ["counting…"] * 3, cells
        r = rows[cells[0]]
        assert cells[6:9] == [f"{r['talks']:,}", f"{r['llm_calls']:,}", f"{r['steps']:,}"], cells  # the head round's counts, exact
    for snapshot in drawn:  # at every step a row shows "counting…" or its exact figures, never 0 or blank for them
        for cells in snapshot:
            r = rows[cells[0]]
            assert cells[4] in ("counting…", _tokens(r["usage"])), cells
            assert cells[5] == "counting…" or cells[5].startswith("$"), cells
    last = {cells[0]: cells for cells in drawn[-1]}
    for cid, r in rows.items():
        assert last[cid][4] == _tokens(r["usage"]) and last[cid][1] == (r["title"] or "(untitled)"), last[cid]
