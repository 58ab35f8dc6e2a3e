"""``/api/usage`` and the page's Usage tab honour the project, model and date filters shown above it (trial 17b, F12:
the tab showed the whole root's usage under a project's name, and ``/api/usage?project=…`` ignored the parameter).

Real input: the corpus collected and parsed; a real ``asz view`` on loopback; headless Chromium. Expected calls and
tokens counted from the source transcripts (tests/source_calls.py), never from asz's own output.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
from pathlib import Path
from urllib.parse import quote

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from source_calls import source_calls  # noqa: E402

KINDS = ("in", "out", "cache_read", "cache_write")


def _whole(s, query: str = "") -> dict:
    deadline = time.monotonic() + 180
    while True:
        r = s.get("/api/usage" + (f"?{query}" if query else ""))
        assert r.status == 200, r.json()
        u = r.json()
        if u["complete"] or time.monotonic() > deadline:
            return u
        time.sleep(0.3)


def _figures(u: dict) -> tuple[int, int]:
    return u["total"]["calls"], sum(u["total"][k] for k in KINDS)


def _source(corpus_dir: Path, keep) -> tuple[int, int]:
    calls, cwd = source_calls(corpus_dir / "claude-code" / "projects")
    kept = [c for c in calls if keep(cwd.get(c["session"], ""), c["model"], c["time"])]
    return len(kept), sum(c["tokens"] for c in kept)


def test_api_usage_narrows_by_project_model_and_days_and_says_so(corpus_root, corpus_dir, serve):
    s = serve(corpus_root)
    whole = _whole(s)
    assert _figures(whole) == _source(corpus_dir, lambda p, m, t: True)
    assert whole["filters"] == {"project": "", "model": "", "dialect": "", "since": None, "until": None, "exact": False}

    u = _whole(s, "project=SPOTTER&model=opus")  # a part of the name, case-insensitive: asz ls's rule
    assert _figures(u) == _source(corpus_dir, lambda p, m, t: "spotter" in p.lower() and "opus" in m) == (145, 16_239_095)
    assert u["filters"] == {"project": "SPOTTER", "model": "opus", "dialect": "", "since": None, "until": None, "exact": False}
    assert u["conversations"] == u["counted"] == 2
    assert {m["model"] for m in u["models"]} == {"claude-opus-4-6"}

    # the page's dropdown picks a whole name: exact=1 keeps the worktree's /…/spotter-worktrees/spotter-fum out
    u = _whole(s, "project=" + quote("/home/kim/projects/spotter", safe="") + "&exact=1")
    assert _figures(u) == _source(corpus_dir, lambda p, m, t: p == "/home/kim/projects/spotter") == (1, 25_366)

    day = "since=2026-02-11T00:00:00Z&until=2026-02-11T23:59:59.999Z"
    u = _whole(s, "project=spotter&" + day)
    assert _figures(u) == _source(corpus_dir, lambda p, m, t: "spotter" in p.lower() and t.startswith("2026-02-11"))
    assert u["filters"]["since"] == int(dt.datetime(2026, 2, 11, tzinfo=dt.timezone.utc).timestamp() * 1000)
    assert all(q["at"] // 86_400_000 == u["filters"]["since"] // 86_400_000 for q in u["quarters"])

    for bad, says in (("projekt=x", "unknown parameter 'projekt'"), ("since=yesterday-ish", "since/until"),
                      ("project=a&project=b", "at most once"), ("exact=2", "exact is 0 or 1")):
        r = s.get("/api/usage?" + bad)
        assert r.status == 400 and says in r.json()["error"], (bad, r.json())


def _total_calls(drv) -> str:
    """The Total row's calls, '' while the table is being drawn again."""
    try:
        rows = drv.find_elements(By.CSS_SELECTOR, "#usage-days tbody tr")
        return rows[-1].find_elements(By.TAG_NAME, "td")[1].text if rows else ""
    except StaleElementReferenceException:
        return ""


def test_the_usage_tab_draws_the_filtered_usage(corpus_root, corpus_dir, serve, browser):
    s = serve(corpus_root)
    _whole(s)  # every conversation counted: the tab's figures are whole
    project = "/src/deep-manifest"
    calls, _ = _source(corpus_dir, lambda p, m, t: p == project)
    every, _ = _source(corpus_dir, lambda p, m, t: True)
    assert 0 < calls < every  # the premise (109 of 543)
    drv = browser
    open_at(drv, s.base + "/#view=usage&project=" + quote(project, safe=""), "#usage-days")
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#usage-partial") and _total_calls(d) == f"{calls:,}", timeout=60)
    assert drv.find_element(By.ID, "usage-note").text.startswith(f"Only project {project} (the filters above).")

    haiku = _source(corpus_dir, lambda p, m, t: p == project and "haiku" in m)[0]
    model = next(o.get_attribute("value") for o in drv.find_elements(By.CSS_SELECTOR, "#f-model option") if "haiku" in (o.get_attribute("value") or ""))
    Select(drv.find_element(By.ID, "f-model")).select_by_value(model)  # picked on the Usage tab: drawn again
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#usage-days") and _total_calls(d) == f"{haiku:,}", timeout=60)
    assert "model " + model in drv.find_element(By.ID, "usage-note").text

    drv.find_element(By.ID, "clearf").click()  # no filter: the whole root again
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#usage-days") and _total_calls(d) == f"{every:,}", timeout=60)


def test_a_filter_that_keeps_no_call_says_so_not_yet(corpus_root, corpus_dir, serve, browser):
    """Trial 30b F6: a date filter that kept none of the corpus's calls read "No model call with usage yet.", as if
    the figures were still loading; it now says that the filters keep none. The corpus's calls are all after 2020."""
    calls = source_calls(corpus_dir / "claude-code" / "projects")[0]
    assert calls and min(c["time"] for c in calls if c["time"]) > "2020-01-02"  # the premise: none on that day
    s = serve(corpus_root)
    _whole(s)
    drv = browser
    open_at(drv, s.base + "/#view=usage&since=2020-01-01&until=2020-01-01", "#usage-none")
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#usage-partial"), timeout=60)
    assert drv.find_element(By.ID, "usage-none").text == "No model call matches the filters above."
    assert "yet" not in drv.find_element(By.ID, "usage-note").text
