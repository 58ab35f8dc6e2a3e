"""The conversation list narrowed by who sent it, and the conversation page saying who sent it (trial 32c F4:
``/api/conversations?instance=`` was refused 400, the page had a "Sent by" column but no filter, and a received
conversation's page named no sender).

Real input: two corpus projects collected by the real ``asz collect --once`` into two worker roots (dev@hostA,
credential alice, over gRPC; dev@hostB, credential bob, over HTTP) and pushed by the real pass to a real loopback
receiver (tests/export/export_helpers.pushed_team); a real ``asz view`` over the team root, read by headless
Chromium. Which conversation each host sent is read from the receiver's sender record with orjson, not from asz.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
from export_helpers import pushed_team  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from test_view_server_browser import open_at, wait  # noqa: E402, F401  (the browser fixture: tests/conftest.py)

WORKERS = {"a": ("-home-user-spotter", "dev@hostA", "alice", "tokA-4", "grpc"),
           "b": ("-home-user-sample-project", "dev@hostB", "bob", "tokB-4", "http")}


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> Path:
    return pushed_team(corpus_dir, tmp_path_factory.mktemp("sent-by"), WORKERS)["team"]


def _sent(team: Path) -> dict[str, set[str]]:
    """instance -> the sessions whose sender record names it (the record's own lines)."""
    out: dict[str, set[str]] = {}
    for p in (team / "_received").glob("*.senders"):
        for line in p.read_bytes().splitlines():
            e = orjson.loads(line)
            out.setdefault(e["instance"], set()).add(p.name[: -len(".senders")])
    return out


def test_the_list_answer_is_narrowed_by_instance_or_credential(team, serve):
    s = serve(team)
    sent = _sent(team)
    assert set(sent) == {"dev@hostA", "dev@hostB"} and not sent["dev@hostA"] & sent["dev@hostB"]
    every = s.get("/api/conversations").json()
    ids = {r["id"] for r in every["conversations"]}
    for text, who in (("hosta", "dev@hostA"), ("bob", "dev@hostB")):
        got = s.get(f"/api/conversations?instance={text}").json()
        assert {r["id"] for r in got["conversations"]} == sent[who] & ids and got["total"] == len(sent[who] & ids)
        assert got["filters"] == {"instance": text} and got["of"] == len(ids)
        cred = {"dev@hostA": "alice", "dev@hostB": "bob"}[who]  # the id and the credential checked (trial 34c F7)
        assert all(r["sent_by"] == f"{who} (credential {cred})" for r in got["conversations"])
    none = s.get("/api/conversations?instance=nobody").json()
    assert none["conversations"] == [] and "no conversation matched instance=nobody" in none["note"]


def test_the_page_filters_by_sender_and_the_conversation_says_who_sent_it(team, serve, browser):
    s = serve(team)
    sent = _sent(team)
    drv = browser
    open_at(drv, s.base + "/", "tr[data-id]")
    options = [o.get_attribute("value") for o in drv.find_elements(By.CSS_SELECTOR, "#f-sentby option")]
    assert options == ["", "dev@hostA (credential alice)", "dev@hostB (credential bob)"]  # trial 34c F7
    Select(drv.find_element(By.CSS_SELECTOR, "#f-sentby")).select_by_value("dev@hostB (credential bob)")
    wait(drv, lambda d: {r.get_attribute("data-id") for r in d.find_elements(By.CSS_SELECTOR, "tr[data-id]")} <= sent["dev@hostB"])
    shown = {r.get_attribute("data-id") for r in drv.find_elements(By.CSS_SELECTOR, "tr[data-id]")}
    assert shown == sent["dev@hostB"]
    assert "sentby=dev%40hostB" in drv.current_url or "sentby=dev@hostB" in drv.current_url
    # the Usage tab asks /api/usage with the same sender and says so
    drv.find_element(By.CSS_SELECTOR, "#tab-usage").click()
    wait(drv, lambda d: "sent by dev@hostB" in d.find_element(By.CSS_SELECTOR, "#listpanel").text)
    # the conversation page names who sent it, in asz conversation's words
    one = sorted(sent["dev@hostA"])[0]
    chip = open_at(drv, f"{s.base}/c/{one}", "#sent-by")
    assert chip.text.startswith("sent by dev@hostA (credential alice): ")
    files = sum(1 for line in (team / "_received" / f"{one}.senders").read_bytes().splitlines())
    assert f": {files} landed file(s), received " in chip.text
