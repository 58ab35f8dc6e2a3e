"""``/api/usage`` and the page's Usage tab say what ``asz usage`` says of calls counted in a way a reader may not expect
(close44 "Not done": the tab said neither and ``/api/usage`` gave no ``replays_folded``): ``hour_above_whole_calls``,
calls whose record gave a 1-hour part of its cache writes above the whole (counted and priced at the whole, trial 44a
F2), and ``replays_folded``, copies of a parent's response a sub-agent's file holds under a new request id, folded
into the call they copy (trial 44a F3). Each a line under the tab's table, as ``asz usage`` prints it less its
``--json`` pointer, only when not 0 (docs/view.md, Usage).

Real input: a Claude Code session and its sub-agent file written here as Claude Code writes them (a call whose
``ephemeral_1h_input_tokens`` 5,000 exceeds its ``cache_creation_input_tokens`` 1,000; a call the sub-agent's file
copies with the same message id and a new ``requestId``), landed by ``asz collect --once``; a real ``asz view`` on
loopback, headless Chromium. The expected counts are made from the source lines in this test."""

from __future__ import annotations

import json

from selenium.webdriver.common.by import By

from cli_helpers import asz_in_process
from view_server_helpers import whole_usage

from test_view_server_browser import open_usage, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)

SID = "7a6b5c4d-0000-4000-8000-0000000045c2"
PLAIN = {"input_tokens": 12, "output_tokens": 34}
OVER = {"input_tokens": 10, "output_tokens": 100, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 1000,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 5000}}


def _said(uid: str, parent, side: bool, at: str, **kw) -> dict:
    line = {"parentUuid": parent, "isSidechain": side, "cwd": "/home/me/tab", "sessionId": SID, "version": "2.0.1",
            "uuid": uid, "timestamp": at}
    if "text" in kw:
        return {**line, "type": "user", "message": {"role": "user", "content": kw["text"]}}
    return {**line, "type": "assistant", "requestId": kw["request"],
            "message": {"id": kw["msg"], "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                        "content": [{"type": "text", "text": f"answer {uid}"}], "stop_reason": "end_turn", "usage": kw["usage"]}}


def _root(tmp_path) -> tuple:
    main = [_said("u1", None, False, "2026-11-20T10:00:00.000Z", text="go"),
            _said("a1", "u1", False, "2026-11-20T10:00:05.000Z", request="req_over", msg="msg_over", usage=OVER),
            _said("u2", "a1", False, "2026-11-20T10:20:00.000Z", text="again"),
            _said("a2", "u2", False, "2026-11-20T10:20:05.000Z", request="req_parent", msg="msg_parent", usage=PLAIN)]
    side = [_said("s1", None, True, "2026-11-20T10:20:10.000Z", text="task"),
            _said("s2", "s1", True, "2026-11-20T10:20:12.000Z", request="req_copy", msg="msg_parent", usage=PLAIN)]
    proj = tmp_path / "projects" / "-home-me-tab"
    (proj / SID / "subagents").mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in main))
    (proj / SID / "subagents" / "agent-atab01.jsonl").write_text("".join(json.dumps(d) + "\n" for d in side))
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root),
                       env={"HOME": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    return root, [d for d in main + side if d["type"] == "assistant"]


def test_api_usage_and_the_usage_tab_say_the_calls_asz_usage_says(tmp_path, serve, browser):
    from asz_core.reading.listing import hour_over_line, replays_line

    root, calls = _root(tmp_path)
    over = sum(1 for d in calls if (u := d["message"]["usage"]).get("cache_creation", {}).get("ephemeral_1h_input_tokens", 0)
               > u.get("cache_creation_input_tokens", 0))
    copies = len({(d["message"]["id"], d["requestId"]) for d in calls}) - len({d["message"]["id"] for d in calls})
    assert (over, copies) == (1, 1)
    cli = json.loads(asz_in_process("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root),
                                    env={"HOME": str(tmp_path)}).stdout)["total"]
    assert (cli["cost"]["hour_above_whole_calls"], cli["usage"]["replays_folded"]) == (over, copies)
    s = serve(root)
    usage = whole_usage(s)
    total = usage["total"]
    assert (total["hour_above_whole_calls"], total["replays_folded"], total["calls"]) == (over, copies, len(calls) - copies)
    for rows in (usage["quarters"], usage["hours"], usage["models"]):
        assert sum(r.get("replays_folded", 0) for r in rows) == copies
        assert sum(r.get("hour_above_whole_calls", 0) for r in rows) == over
    assert [(r.get("hour_above_whole_calls"), r.get("replays_folded")) for r in usage["quarters"]] == [(over, None), (None, copies)]
    open_usage(browser, s.base, "#usage-replays")
    said = {i: browser.find_element(By.CSS_SELECTOR, f"#usage-{i}").text for i in ("hour-over", "replays")}
    assert said == {"hour-over": hour_over_line(over).replace(" (--json: cost.hour_above_whole_calls)", "") + ".",
                    "replays": replays_line(copies).replace("; --json: usage.replays_folded)", ")") + "."}
    shot(browser, "usage-counted-once")
