"""The page for an id prefix several conversations start with links each of them (trial 24b F5: ``/c/abcd123`` said
``'abcd123' is the start of 2 conversations: abcd1234-…, abcd1235-…; type more of it`` as plain text).

Real input: the Claude Code corpus collected and parsed by the real ``asz collect --once`` (tests/conftest.py); the
prefix is the first character two of its session ids share, found from the source transcripts' names; a real
``asz view`` on loopback, its page opened in Chromium.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import unquote, urlsplit

from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)


def _shared_prefix(corpus_dir) -> tuple[str, set[str]]:
    """The first character most main transcripts' session ids start with (two or more), and those ids."""
    ids = {p.stem for p in (corpus_dir / "claude-code" / "projects").glob("*/*.jsonl") if not p.name.startswith("agent-")}
    first, n = Counter(i[0] for i in ids).most_common(1)[0]
    assert n >= 2
    return first, {i for i in ids if i.startswith(first)}


def test_each_conversation_an_ambiguous_prefix_names_is_a_link(corpus_dir, corpus_root, serve, browser):
    prefix, want = _shared_prefix(corpus_dir)
    s, drv = serve(corpus_root), browser
    res = s.get(f"/api/c/{prefix}/view")
    assert res.status == 400
    body = res.json()
    assert set(body["matches"]) == want and body["matched"] == len(want)
    assert body["error"].startswith(f"{prefix!r} is the start of {len(want)} conversations")
    try:
        open_at(drv, s.base + f"/c/{prefix}", "#idchoices a")
        links = drv.find_elements(By.CSS_SELECTOR, "#idchoices a")
        shot(drv, "trial24b-f5-ambiguous-prefix")
        got = {unquote(urlsplit(a.get_attribute("href")).path).removeprefix("/c/"): a.text for a in links}
        assert got == {i: i for i in want}  # each id, its link opening it
        first = sorted(want)[0]
        drv.find_element(By.CSS_SELECTOR, f"#idchoices a[href='/c/{first}']").click()
        wait(drv, lambda d: d.current_url.endswith(f"/c/{first}") and not d.find_elements(By.CSS_SELECTOR, "#idchoices"))
        wait(drv, lambda d: first in d.find_element(By.ID, "app").text)  # its document: the id under its title
    except Exception:
        shot(drv, "trial24b-f5-ambiguous-prefix")
        raise
