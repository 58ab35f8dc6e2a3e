"""The page prints a cost to the cent from its exact amount rounded once, half to even, as ``asz ls`` does (reviewG28).

It printed the micro-dollar figure (``cost.usd``, already rounded once) rounded again by the browser, which rounds half
away from zero: a call whose exact cost is $0.1249995 has the micro-dollar figure 0.125000 (half to even), which the
page read $0.13; the exact amount rounded once is $0.12, what ``asz ls`` prints. Real input: a Claude Code transcript
of one such call, collected by the real ``asz collect``; the exact amount is worked out here from its counts and
prices.yaml's rates; a real ``asz view`` on loopback and Chromium.
"""

from __future__ import annotations

import re
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import collect_claude, priced  # noqa: E402
from cli_helpers import asz_in_process  # noqa: E402

pytestmark = pytest.mark.slow

SID = "c3c3c3c3-0000-4000-8000-000000000003"
#: in 1, out 8,333, cache read 5 at Sonnet 4's rates (3, 15 and 0.30 per million tokens): $0.1249995 (:func:`_exact`)
USAGE = {"input_tokens": 1, "output_tokens": 8333, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0}


def _exact() -> Decimal:
    return priced("claude-sonnet-4-20250514", USAGE)


def test_the_page_prints_a_cost_rounded_once(tmp_path, serve, browser):
    exact = _exact()
    once = exact.quantize(Decimal("0.01"))
    assert (exact, once, exact.quantize(Decimal("0.000001"))) == (Decimal("0.1249995"), Decimal("0.12"), Decimal("0.125000"))
    base = {"sessionId": SID, "cwd": "/home/dev/app", "version": "2.1.14", "userType": "external", "isSidechain": False}
    lines = [base | {"type": "user", "uuid": "u3", "parentUuid": None, "timestamp": "2026-02-01T10:00:00.000Z",
                     "message": {"role": "user", "content": "count the cents"}},
             base | {"type": "assistant", "uuid": "a3", "parentUuid": "u3", "timestamp": "2026-02-01T10:00:02.000Z",
                     "requestId": "req_cents_3",
                     "message": {"id": "msg_cents_3", "type": "message", "role": "assistant",
                                 "model": "claude-sonnet-4-20250514", "content": [{"type": "text", "text": "done"}],
                                 "stop_reason": "end_turn", "usage": USAGE}}]
    root = collect_claude(tmp_path, {SID: lines})
    assert f"${once}" in asz_in_process("ls", "--root", str(root)).stdout
    s = serve(root)
    drv = browser
    row = open_at(drv, s.base + "/", f'tr[data-id="{SID}"]')
    wait(drv, lambda d: "$" in row.text)
    assert re.findall(r"\$\d+\.\d\d", row.text) == [f"${once}"], row.text
    open_at(drv, s.base + f"/c/{SID}", ".chip")
    chip = wait(drv, lambda d: next((c for c in d.find_elements(By.CSS_SELECTOR, ".chip") if c.text.startswith("cost ")), None))
    assert chip.text.startswith(f"cost ${once}"), chip.text
