"""The page says a record whose time does not read (trial 30a F8, session 32): the conversation's problem list holds the
document's ``time does not read:`` line, naming the landed file and line of each such record with its value, the
words ``asz conversation`` and ``asz verify`` say it in; the list marks the row ``!``.

Real input: the corpus's smallest Claude Code session (de3b8b19) with a typed prompt's timestamp made "yesterday" and
the next reply's a number, collected by the real ``asz collect --once``; a real ``asz view`` on loopback and Chromium.
"""

from __future__ import annotations

import json
import re

import pytest
from selenium.webdriver.common.by import By

from cli_helpers import asz_in_process
from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
pytestmark = pytest.mark.slow  # a real server and browser


def test_the_page_lists_a_time_that_does_not_read_among_the_problems(corpus_dir, tmp_path, serve, browser):
    src = next((corpus_dir / "claude-code" / "projects").rglob(f"{SESSION}.jsonl"))
    projects = tmp_path / "projects" / src.parent.name
    projects.mkdir(parents=True)
    objs = [json.loads(x) for x in src.read_text(encoding="utf-8").splitlines()]
    user = next(i for i, o in enumerate(objs) if o.get("type") == "user" and isinstance(o.get("message", {}).get("content"), str))
    objs[user]["timestamp"] = "yesterday"
    (projects / src.name).write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    root = tmp_path / "root"
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).returncode == 0
    (landed,) = root.glob(f"{SESSION}/streams/main/transcript-*.sd")
    file = landed.relative_to(root).as_posix()
    line = next(n for n, x in enumerate(landed.read_text(encoding="utf-8").splitlines(), 1)
                if json.loads(x).get("ord") == user + 1)
    want = (f"time does not read: 1 record(s) give a time that does not read as an RFC 3339 time, field time "
            f"({file} line {line}: 'yesterday')")
    s = serve(root)
    mark = open_at(browser, s.base + "/", f'tr[data-id="{SESSION}"] .state.problems')
    wait(browser, lambda d: mark.text == "!")
    assert want in mark.get_attribute("title")
    mark.click()
    box = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#problems") and d.find_element(By.CSS_SELECTOR, "#problems"))
    items = [li.text for li in box.find_elements(By.CSS_SELECTOR, "li")]
    assert [x for x in items if x.startswith("time does not read")] == [next(x for x in items if want in x)]
    # no time drawn from an epoch: a year 1970 alone, never the hex of an id or digest that holds those digits
    # (s46a: the page's '96dea47f1970' failed a bare substring test)
    assert not re.search(r"(?<![0-9A-Za-z])1970(?![0-9A-Za-z])", browser.find_element(By.CSS_SELECTOR, "body").text)
