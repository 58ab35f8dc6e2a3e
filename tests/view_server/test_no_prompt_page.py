"""The page's Talks tab draws a conversation with no talk's steps under "Outside any talk", as the exports do (trial
43b F1: it said "No talks." and the content was only on the Loose tab). Real input: the corpus's 55604662 with its
prompt lines removed (tests/reading/test_no_prompt_drawn.py checks the exports on it), its reply read from the source."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import forked
from test_view_server_browser import go, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

By = pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed").By

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
SOURCE = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "claude-code" / "projects" / "-home-user-spotter" / f"{SID}.jsonl"


@pytest.mark.slow
def test_a_conversation_with_no_talk_draws_its_steps_on_the_talks_tab(tmp_path, serve, browser):
    if not SOURCE.is_file():
        pytest.skip(f"the corpus is absent ({SOURCE})")
    kept, replies = [], []
    for line in SOURCE.read_bytes().splitlines(keepends=True):
        d = json.loads(line)
        content = (d.get("message") or {}).get("content")
        if d.get("type") == "user" and (isinstance(content, str) or any(b.get("type") == "text" for b in content or ())):
            continue  # a person's line: none left, so no talk
        kept.append(line)
        if d.get("type") == "assistant":
            replies += [b["text"].strip() for b in content if b.get("type") == "text" and b["text"].strip()]
    assert len(replies) == 1
    (tmp_path / "src" / SOURCE.parent.name).mkdir(parents=True)
    (tmp_path / "src" / SOURCE.parent.name / SOURCE.name).write_bytes(b"".join(kept))
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(tmp_path / "src"),
                    "--root", str(tmp_path / "root")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    s = serve(tmp_path / "root")
    drv = browser
    drv.set_window_size(1280, 1000)
    go(drv, f"{s.base}/c/{SID}")
    try:
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel #outside-talks"), timeout=120)
        assert drv.find_element(By.ID, "no-talks").text == "No talks."
        wait(drv, lambda d: replies[0] in d.find_element(By.ID, "panel").text, timeout=30)
    except Exception:
        shot(drv, "43b-no-prompt-talks-tab")
        raise
