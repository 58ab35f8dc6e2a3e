"""The server's list and ``/api/usage`` never count usage from evidence that does not verify (trial 3, finding 1).

Real input: the Claude Code corpus collected by the real ``asz collect --once``
(tests/conftest.py), one output count of a landed transcript changed in place
(closing digest left as it was), and a real ``asz view`` on loopback. The
conversation's row holds its tokens and cost back (null, with ``held_back``),
and ``/api/usage`` sums the other conversations only and names it.
"""

from __future__ import annotations

import os
import stat
import sys
import time

import pytest

from test_view_server_browser import open_at, open_usage, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import REPO, counted_rows

sys.path.insert(0, str(REPO / "tests" / "view"))  # the corpus's own usage counts, shared with the usage tests
from test_view_usage import ANCHOR, sessions_of, transcript_truth  # noqa: E402

By = pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed").By

SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


@pytest.fixture(scope="module")
def tampered(corpus_dir, corpus_copy):
    root = corpus_copy()
    [path] = [p for p in sorted((root / SID / "streams" / "main").glob("transcript-*.sd")) if b'"out":4658' in p.read_bytes()]
    data = path.read_bytes()
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(b'"out":4658', b'"out":9999'))
    os.chmod(path, stat.S_IRUSR)
    return root, transcript_truth(sessions_of(corpus_dir / "claude-code" / "projects")[SID])[0]


@pytest.mark.slow
def test_the_list_and_usage_per_day_hold_back_a_conversation_that_does_not_verify(tampered, serve, browser):
    root, usage = tampered
    s = serve(root)
    rows = {r["id"]: r for r in counted_rows(s)}
    row = rows.pop(SID)
    assert row["usage"] is None and row["cost"] is None
    assert row["held_back"] == {"state": "mismatch", "keys": ["usage", "cost"]}
    assert sum(r["usage"]["out"] for r in rows.values()) == ANCHOR["out"] - usage["out"]
    assert not any("held_back" in r for r in rows.values())
    deadline = time.monotonic() + 300
    while True:  # /api/usage sums the conversations the checker built so far: wait until it built every one
        u = s.get("/api/usage").json()
        if u["counted"] + len(u["held_back"]) == u["conversations"]:
            break
        assert time.monotonic() < deadline, u
        time.sleep(0.2)
    assert u["held_back"] == [{"conversation": SID, "name": SID[:8], "state": "mismatch"}]  # 8: no other shares them
    assert u["counted"] == u["conversations"] - 1 == 10
    for k in ("in", "out", "cache_read", "cache_write"):
        assert sum(h[k] for h in u["hours"]) == ANCHOR[k] - usage[k], k
    drv = browser
    try:
        cells = open_at(drv, s.base + "/", f"tr[data-id='{SID}'] td.held").find_elements(By.XPATH, "../td[contains(@class,'held')]")
        assert [c.text for c in cells] == ["held back", "held back"]
        assert "does not verify (mismatch)" in cells[0].get_attribute("title")
        note = open_usage(drv, s.base, "#usage-note")
        assert f"Read from 10 of 11 conversation(s). Held back, in no figure (they do not verify): {SID[:8]} (mismatch)." in note.text
        held = open_at(drv, s.base + f"/c/{SID}", "#usage-held")  # the conversation's own figures say they are not verified
        assert held.text.startswith("tokens and cost held back (mismatch): this conversation does not verify, so its ")
    except Exception:
        shot(drv, "trial3-held-back")
        raise
