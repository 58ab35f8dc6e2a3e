"""The page shows the editing tool calls with no changes record where it shows changes (``changes_not_derived``).

Real input: the Claude Code corpus collected and parsed by the real ``asz collect --once`` (tests/conftest.py) and a
real ``asz view`` on loopback, in headless Chromium. Session ef958aa1's subagents made 14 edits and writes whose
transcripts carry no ``toolUseResult`` (counted straight from the source files by
tests/observer/test_changes_counts.py's ``source_counts``): the chip and the Changes tab say ``0 changes (+14 not
derived)``, never 0 in silence.
"""

from __future__ import annotations

import sys

import pytest

from test_view_server_browser import open_at, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import REPO

sys.path.insert(0, str(REPO / "tests" / "observer"))
from test_changes_counts import source_counts  # noqa: E402

pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed")

SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"


@pytest.mark.slow
def test_the_chip_and_the_changes_tab_say_what_is_not_derived(corpus_dir, corpus_root, serve, browser):
    changes, _, _, nd = source_counts(corpus_dir / "claude-code" / "projects")[0][SID]
    assert nd == 14
    s = serve(corpus_root)
    assert s.get(f"/api/c/{SID}/view").json()["summary"]["changes_not_derived"] == nd
    drv = browser
    try:
        box = open_at(drv, s.base + f"/c/{SID}#tab=changes", "#not-derived")
        assert box.text.startswith(f"{changes} changes (+{nd} not derived): {nd} editing tool calls returned with no changes record")
        chips = " ".join(c.text for c in drv.find_elements("css selector", ".chips .chip"))
        assert f"{changes} (+{nd} not derived)" in chips
    except Exception:
        shot(drv, "changes-not-derived")
        raise
