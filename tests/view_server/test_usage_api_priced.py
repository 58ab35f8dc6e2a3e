"""``/api/usage`` says ``priced`` as ``asz usage --json`` does for the same calls (trial 29c F4: it answered
``"priced": true`` with a cost of 0.0 over a root of Kiro calls, which record no token count, where the CLI said
``"priced": false``), and the page's Usage tab says why it shows no cost, in headless Chromium.

Real input: the Kiro corpus (no token count in its files, counted here from them) and the Claude Code corpus (every
token priced), each collected by the real ``asz collect``; a real ``asz view`` on loopback."""

from __future__ import annotations

import json
from pathlib import Path

from selenium.webdriver.common.by import By
from view_server_helpers import asz, whole_usage

from test_view_server_browser import open_usage, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)
from test_view_server_kiro_page import CORPUS_KIRO, kiro_root  # noqa: F401  (the fixture, the corpus collected)

ROWS = ("quarters", "hours", "placed", "models")


def _cli_total(root: Path) -> dict:
    return json.loads(asz("usage", "--json", "--total-once", "--root", str(root)).stdout)["total"]


def _raw_calls_and_tokens() -> tuple[int, list]:
    """Model calls of the corpus's two Kiro sessions (2.x: one per ``AssistantMessage``; 3.x: a stretch of model
    lines between hand-backs, docs/adapters/kiro.md) and every value their files give under a key naming tokens
    (but the model's context window, no count of a call)."""
    cli = next(CORPUS_KIRO.glob("sessions/cli/*.jsonl"))
    ide = next(CORPUS_KIRO.glob("sessions/*/sess_*/messages.jsonl"))
    lines = {f: [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()] for f in (cli, ide)}
    calls, open_ = sum(1 for d in lines[cli] if d["kind"] == "AssistantMessage"), False
    for d in lines[ide]:
        kind = d["payload"].get("type")
        if kind in ("assistant", "tool_call", "sub_agent_start"):
            calls, open_ = calls + (not open_), True
        elif kind in ("tool_result", "sub_agent_complete", "user", "turn_start", "turn_end"):
            open_ = False
    docs = [json.loads(f.read_text(encoding="utf-8")) for f in (cli.with_suffix(".json"), ide.parent / "session.json")]
    return calls, _values([*lines[cli], *lines[ide], *docs])


def _values(data) -> list:
    if isinstance(data, dict):
        return [v for k, x in data.items() for v in ([x] if "token" in k.lower() and k != "context_window_tokens"
                                                     and not isinstance(x, (dict, list)) else _values(x))]
    if isinstance(data, list):
        return [v for x in data for v in _values(x)]
    return []


def test_a_root_of_kiro_calls_is_unpriced_in_the_api_as_in_the_cli(kiro_root, serve, browser):  # noqa: F811
    calls, counts = _raw_calls_and_tokens()
    assert calls == 16 and all(v == 0 for v in counts)  # no call recorded a token count (2.x's 0 is not one)
    s = serve(kiro_root)
    u = whole_usage(s)
    cli = _cli_total(kiro_root)
    assert cli["cost"]["priced"] is False and cli["calls"] == calls
    assert u["priced"] is False and u["total"]["priced"] is False and u["total"]["calls"] == calls
    for name in ROWS:
        assert u[name] or name == "placed"
        assert all(r["priced"] is False for r in u[name]), (name, u[name])
    drv = browser
    note = open_usage(drv, s.base, "#usage-no-cost")
    assert note.text == ("No cost is shown: the runtime recorded no token counts for these model calls (it metered "
                         "credits), so there is nothing to price."), note.text
    assert drv.find_element(By.CSS_SELECTOR, "#usage-no-tokens").text.startswith("Tokens per day: not recorded (")
    body = drv.find_element(By.TAG_NAME, "body").text
    assert "Cost per day (USD)" not in body and "No price table" not in body and "$0.00" not in body
    assert "\nTokens per day\n" not in f"\n{body}\n"  # no chart of zeros
    shot(drv, "29e-usage-kiro-no-cost")


def test_a_priced_root_says_priced_in_both(corpus_root, serve):
    s = serve(corpus_root)
    u = whole_usage(s)
    cli = _cli_total(corpus_root)
    assert "priced" not in cli["cost"] and cli["cost"]["usd"] > 0
    assert u["priced"] is True and "priced" not in u["total"] and u["total"]["cost"] == cli["cost"]["usd"]
    assert not [r for name in ROWS for r in u[name] if "priced" in r and r["calls"]]
