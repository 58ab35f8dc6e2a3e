"""A step under no talk opens expanded and marked (trial 16b, 13): a search hit on Claude Code's compaction summary
(``summary/1/715`` of the corpus's 8463c716, an ``isCompactSummary`` record at line 715 of the transcript, drawn in the
document's ``loose`` list) linked to ``#step=summary/1/715``, and the page opened at its top with nothing marked. It
opened on the Loose tab; since the page draws a compaction in the talk where it happened, as the exports do, it
opens there, in that talk (test_page_like_exports.py). Real values: the line is found in the source transcript; the
step id is the document's."""

from __future__ import annotations

import json

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

SPOTTER = ("-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20")


def test_a_loose_step_in_the_hash_opens_in_its_talk_marked(corpus_root, corpus_dir, serve, browser):
    path = corpus_dir / "claude-code" / "projects" / SPOTTER[0] / f"{SPOTTER[1]}.jsonl"
    rows = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if json.loads(line).get("isCompactSummary")]
    assert rows == [715]
    s = serve(corpus_root)
    with __import__("urllib.request").request.urlopen(f"{s.base}/api/c/{SPOTTER[1]}/view") as r:
        doc = json.loads(r.read())
    loose = [n["id"] for n in doc["loose"] if n["kind"] == "epoch.summary"]
    assert loose == ["summary/1/715"]
    drv = browser
    marked = open_at(drv, f"{s.base}/c/{SPOTTER[1]}#step=summary/1/715", '.node.target[data-id="summary/1/715"]')
    assert marked.is_displayed()
    assert "continued from a previous conversation" in marked.text  # the summary's text, expanded
    tab = drv.find_element(By.CSS_SELECTOR, 'button[data-tab="talks"]')
    assert tab.get_attribute("aria-selected") == "true"
    talk = marked.find_element(By.XPATH, "ancestor::section[contains(@class,'talk')]").get_attribute("data-talk")
    assert talk == doc["talks"][0]["id"] and f"talk={talk}" in drv.current_url.replace("%2F", "/")
