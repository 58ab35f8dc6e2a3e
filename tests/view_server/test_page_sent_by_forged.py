"""The page's Sent by filter and ``/api/conversations?instance=`` keep a sender by the id and credential the receiver
recorded, never by a label's words (review34, after trial 34c F7: an instance id ``alice@hostA (credential alice)``
pushed with mallory's token read as alice's credential, and the filter ``credential alice`` kept mallory's rows).

Real input: two corpus projects collected by the real ``asz collect --once`` and pushed by the real pass to a real
loopback receiver whose token file names alice and mallory (tests/export/export_helpers.pushed_team), mallory
claiming the forged id; a real ``asz view`` over the team root, read by headless Chromium. Which conversation each
credential sent is read from the receiver's sender record with orjson, not from asz.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import quote

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
from export_helpers import ALICE, FORGED, MALLORY, pushed_team  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from test_view_server_browser import open_at, wait  # noqa: E402, F401  (the browser fixture: tests/conftest.py)

WORKERS = {"a": ("-home-user-spotter", "alice@hostA", "alice", "tokA-35p", "http"),
           "m": ("-home-user-sample-project", FORGED, "mallory", "tokM-35p", "http")}


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> Path:
    return pushed_team(corpus_dir, tmp_path_factory.mktemp("sent-by-forged"), WORKERS)["team"]


def _sent(team: Path) -> dict[str, set[str]]:
    """credential -> the sessions whose sender record names it (the record's own lines)."""
    out: dict[str, set[str]] = {}
    for p in (team / "_received").glob("*.senders"):
        for line in p.read_bytes().splitlines():
            e = orjson.loads(line)
            out.setdefault(e["credential"], set()).add(p.name[: -len(".senders")])
    return out


def _rows(drv) -> set[str]:
    return {r.get_attribute("data-id") for r in drv.find_elements(By.CSS_SELECTOR, "tr[data-id]")}


def test_the_list_keeps_a_credentials_rows_not_an_id_that_names_it(team, serve, browser):
    s = serve(team)
    sent = _sent(team)
    assert set(sent) == {"alice", "mallory"} and sent["alice"] and sent["mallory"]
    for text, who in (("credential alice", "alice"), ("credential mallory", "mallory"), (MALLORY, "mallory"),
                      (ALICE, "alice")):
        got = s.get("/api/conversations?instance=" + quote(text)).json()
        assert {r["id"] for r in got["conversations"]} == sent[who], text  # before: 'credential alice' kept mallory's
    rows = s.get("/api/conversations").json()["conversations"]
    assert {r["sent_by"] for r in rows} == {ALICE, MALLORY}
    assert all(r["sent_by_senders"] == [{"label": r["sent_by"], "instance": "alice@hostA" if r["sent_by"] == ALICE
                                         else FORGED, "credential": "alice" if r["sent_by"] == ALICE else "mallory"}]
               for r in rows), rows

    drv = browser
    open_at(drv, s.base + "/", "tr[data-id]")
    options = {o.get_attribute("value") for o in drv.find_elements(By.CSS_SELECTOR, "#f-sentby option")}
    assert options == {"", ALICE, MALLORY}
    Select(drv.find_element(By.CSS_SELECTOR, "#f-sentby")).select_by_value(MALLORY)
    wait(drv, lambda d: _rows(d) == sent["mallory"])
    open_at(drv, s.base + "/#sentby=credential%20alice", "tr[data-id]")
    wait(drv, lambda d: _rows(d) == sent["alice"])  # before: mallory's rows too (the label's words held the text)
    assert _rows(drv) == sent["alice"]
