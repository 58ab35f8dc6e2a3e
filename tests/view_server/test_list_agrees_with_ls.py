"""The page's list and ``asz ls`` write a conversation's duration and cost by one rule (trial 12: ``18m43s``, cut,
against ``18 min 44 s``, rounded, for 1,123.8 s; ``$0.70`` against ``$0.6982``): a duration rounded half up to the
last unit shown, a cost to the cent. Read in headless Chromium from the corpus root; the durations checked against
the source transcript's own first and last ``timestamp``."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from pathlib import Path

from selenium.webdriver.common.by import By  # noqa: E402

from view_server_helpers import Served

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import asz_in_process  # noqa: E402

SID = "fe869ecb-c176-478f-9734-7e4b8ef12cff"
SOURCE = f"-Users-alex-workspace-claude-code-log-sample/{SID}.jsonl"


def _page_cells(drv) -> dict[str, tuple[str, str]]:
    out = {}
    for tr in drv.find_elements(By.CSS_SELECTOR, "#rows tr"):
        tds = tr.find_elements(By.CSS_SELECTOR, "td")
        lasted = tds[1].text.split("lasted ")[-1].strip()
        out[tr.get_attribute("data-id")[:8]] = (lasted, tds[4].text.strip())
    return out


def test_page_list_and_ls_round_alike(corpus_root, corpus_dir, browser, tmp_path):
    stamps = [json.loads(ln).get("timestamp") for ln in (corpus_dir / "claude-code" / "projects" / SOURCE).read_text().splitlines()]
    ts = [dt.datetime.fromisoformat(t.replace("Z", "+00:00")) for t in stamps if t]
    ms = round((max(ts) - min(ts)).total_seconds() * 1000)
    assert 1_123_500 < ms < 1_124_000  # 18 min 43.8 s: rounds to 44 s
    table = asz_in_process("ls", "--root", str(corpus_root), env={"COLUMNS": "80"}).stdout.splitlines()
    ls = {}
    for ln in table[1:12]:  # DURATION follows LAST ACTIVITY's HH:MM
        ls[ln[:8]] = (re.search(r" \d\d:\d\d +(\S+)", ln).group(1), re.search(r"\$[\d,.]+", ln).group())
    assert ls[SID[:8]][0] == "18m44s"
    s = Served(["view", "--root", str(corpus_root)], tmp_path)
    try:
        open_at(browser, s.base + "/", "#rows tr")
        wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#rows td.counting")
             and len(d.find_elements(By.CSS_SELECTOR, "#rows tr")) == 11, timeout=180)
        page = _page_cells(browser)
    finally:
        s.stop()
    assert page[SID[:8]][0] == "18 min 44 s"
    for cid, (lasted, cost) in page.items():
        assert cost == ls[cid][1], (cid, cost, ls[cid])  # $0.70 in both
        if " min " in lasted:  # 18 min 44 s is 18m44s
            m, sec = re.fullmatch(r"(\d+) min (\d+) s", lasted).groups()
            assert ls[cid][0] == f"{m}m{int(sec):02d}s", (cid, lasted, ls[cid])
        elif " h " in lasted:
            h, m = re.fullmatch(r"(\d+) h (\d+) min", lasted).groups()
            assert ls[cid][0] == f"{h}h{int(m):02d}m" or int(h) >= 24, (cid, lasted, ls[cid])
