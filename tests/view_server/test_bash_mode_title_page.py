"""Trial 30b F5 on the page: a title that is a command typed in bash mode (``! uv run ty check``: Claude Code's
``<bash-input>`` in the corpus's 326189cf) is drawn as code in the list and in the conversation's heading, as the
conversation draws that command, so it is never read as asz's own ``!`` mark (the list marks a verified row with
problems ``!`` after its state); ``/api/conversations`` keeps the title as it is. Real ``asz view`` on loopback over
the corpus collected by the real ``asz collect``, headless Chromium."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from view_server_helpers import counted_rows

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

SESSION = "326189cf-5676-4237-8cde-1ce80aae4a9f"


def test_the_list_and_the_heading_draw_a_bash_mode_title_as_code(corpus_root, serve, browser):
    s = serve(corpus_root)
    rows = {r["id"]: r for r in counted_rows(s)}
    assert rows[SESSION]["title"] == "! uv run ty check"
    drv = browser
    try:
        open_at(drv, s.base + "/", "a.convtitle")
        link = wait(drv, lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, "a.convtitle")
                                    if a.get_attribute("href").endswith("/c/" + SESSION)])[0]
        code = link.find_elements(By.CSS_SELECTOR, "code.command-title")
        assert len(code) == 1 and code[0].text == "! uv run ty check"
        assert "bash mode" in code[0].get_attribute("title")
        others = [a for a in drv.find_elements(By.CSS_SELECTOR, "a.convtitle") if not a.get_attribute("href").endswith(SESSION)]
        assert len(others) == 10 and not any(a.find_elements(By.CSS_SELECTOR, "code") for a in others)
        h1 = open_at(drv, s.base + "/c/" + SESSION, "h1#title code.command-title")
        assert h1.text == "! uv run ty check"
    except Exception:
        shot(drv, "30b-f5-bash-title")
        raise
