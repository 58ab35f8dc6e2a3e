"""A search hit's link opens its step with the query's words marked and scrolled to, even past the bytes a clipped
text shows (trial 44b F1: a hit in a 28,124-byte thinking opened on "Shows the first 2,000 … Show all", the word at
byte ~25,743 neither shown nor marked; docs/view.md, Search).

Real input: the corpus's Claude Code transcripts collected and parsed by the real commands, a real ``asz view``, its
real search, headless Chromium. The word is chosen from the source files: it is in one line of the whole corpus, a
thinking block longer than 2,600 bytes, and not in that block's first 2,100 bytes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)


def _late_word(projects: Path) -> tuple[str, str, int, int]:
    """(word, session id, the thinking's bytes, how often the word is in it, case-blind): a word of one corpus line
    only, in a long thinking past its 2,100th byte."""
    lines_with: Counter = Counter()
    found = []
    for f in sorted(projects.rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            lines_with.update({w.lower() for w in re.findall(r"[A-Za-z]{4,}", line)})
            try:
                content = json.loads(line).get("message", {}).get("content")
            except (ValueError, AttributeError):
                continue
            for b in content if isinstance(content, list) else []:
                text = b.get("thinking", "") if isinstance(b, dict) and b.get("type") == "thinking" else ""
                raw = text.encode("utf-8")
                if len(raw) > 2600:
                    head = {w.lower() for w in re.findall(r"[A-Za-z]+", raw[:2100].decode("utf-8", "ignore"))}
                    tail = [w.lower() for w in re.findall(r"[A-Za-z]{8,}", raw[2100:].decode("utf-8", "ignore")) if w.lower() not in head]
                    found.append((tail, json.loads(line)["sessionId"], len(raw), text.lower()))
    for tail, session, size, lower in found:
        for w in tail:
            if lines_with[w] == 1:
                return w, session, size, lower.count(w)
    pytest.skip("no long thinking in the corpus holds a word of its own past its first 2,100 bytes")


@pytest.mark.slow  # the root's first search builds its index
def test_a_hit_past_the_shown_bytes_is_marked(corpus_projects, corpus_root, serve, browser):
    word, session, size, times = _late_word(corpus_projects)
    s = serve(corpus_root)
    drv = browser
    link = open_at(drv, f"{s.base}/#q={word}", f"li.hit[data-conversation^='{session[:8]}'] a.hitlink", height=900)
    href = link.get_attribute("href")
    assert "&q=" + word in href and "#step=" in href, href
    step = link.find_element(By.XPATH, "..").get_attribute("data-step")
    link.click()
    target = wait(drv, lambda d: d.find_element(By.CSS_SELECTOR, ".node.target"))
    assert target.get_attribute("data-id") == step
    marks = wait(drv, lambda d: target.find_elements(By.CSS_SELECTOR, "mark.hitword"), timeout=30)
    assert [m.text.lower() for m in marks] == [word] * times
    assert marks[0].is_displayed()
    assert drv.execute_script("const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;", marks[0])
    note = target.find_element(By.CSS_SELECTOR, ".clip").text
    assert note == f"Showing all {size:,} bytes.", note  # the rest read, as Show all reads it
