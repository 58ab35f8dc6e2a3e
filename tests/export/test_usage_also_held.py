"""``asz usage instance`` says which conversations another instance also holds (trial 32c F2: h03 held four of h02's
sessions byte for byte; the team root counted them under h02 only, once, and h03's row was 23 % short of h03's own
``asz usage`` with nothing saying why).

Real input: one corpus transcript collected by the real ``asz collect --once`` into two roots (two machines of one
developer), each pushed by the real ``asz push`` to a real loopback receiver: hostA's files land, hostC's are refused
as held whole. The calls are counted straight from the source file (tests/source_calls.py).
"""

from __future__ import annotations

import json

import orjson

from source_calls import source_calls
from test_push_elsewhere import CORPUS, PROJECT, SESSION, _push, collect, hosts  # noqa: F401 - fixtures

from export_helpers import asz, page_json


def test_a_conversation_two_hosts_hold_is_named_under_the_table(hosts, tmp_path):
    r, collect = hosts
    host_a, host_c = collect("hostA"), collect("hostC")
    assert _push(host_a, r).returncode == 0
    assert _push(host_c, r).returncode == 0  # held whole: no failure
    calls = [c for c in source_calls(CORPUS / PROJECT)[0] if c["session"] == SESSION]
    assert calls
    # the receiver kept who else sent the session's files
    held = [orjson.loads(x) for x in (r.root / "_received" / "seen.list").read_bytes().splitlines()
            if b'"held"' in x]
    assert [(h["instance"], h["session"]) for h in held] == [("dev@hostC", SESSION)]
    p = asz("usage", "instance", "--root", str(r.root))
    assert p.returncode == 0, p.stderr
    rows = [ln.split()[0] for ln in p.stdout.splitlines()[1:] if ln.startswith("dev@")]
    assert rows == ["dev@hostA"]  # counted once, under the instance whose files landed
    note = next(ln for ln in p.stdout.splitlines() if ln.startswith("note: "))
    assert note.startswith("note: 1 conversation(s) also held by another instance, counted once, under the instance "
                           "whose files landed")
    assert f"{SESSION[:8]}" in note and f"also held by dev@hostC, counted under dev@hostA: {len(calls):,} call(s), $" in note
    # hostC's own usage counts those calls: the note is what reconciles its figure with the team's
    own = json.loads(asz("usage", "--root", str(host_c), "--json", "--total-once").stdout)["total"]
    assert own["calls"] == len(calls)
    j = json.loads(asz("usage", "instance", "--root", str(r.root), "--json", "--total-once").stdout)
    (got,) = j["also_held"]
    assert (got["conversation"], got["also_held_by"], got["counted_under"], got["calls"]) == \
        (SESSION, ["dev@hostC"], "dev@hostA", len(calls))
    assert got["cost"] == own["cost"]
    # the other views say nothing of it
    assert "also held" not in asz("usage", "daily", "--root", str(r.root)).stdout
    # every reader of who sent it says who else holds it, by one function (trial 45c F3: only usage instance did)
    said = asz("conversation", SESSION, "--root", str(r.root)).stdout
    assert "sent by dev@hostA" in said and "also held by dev@hostC" in said, said
    head = asz("export", SESSION, "--root", str(r.root), "--format", "text").stdout.split("\n\n", 1)[0]
    senders = next(ln for ln in head.splitlines() if ln.startswith("senders: "))
    assert senders.startswith("senders: instance dev@hostA, credential none, files 1,") and \
        senders.endswith("; instance dev@hostC, credential none, files 0, first_received none, last_received "
                         f"{held[0]['at']}, also_held yes"), senders
    (row,) = json.loads(asz("ls", "--root", str(r.root), "--instance", "dev@hostC", "--json").stdout)
    assert row["id"] == SESSION
    assert [(s["instance"], s["files"], s.get("also_held", False)) for s in row["senders"]] == \
        [("dev@hostA", len([f for f in host_a.rglob("*.sd")]), False), ("dev@hostC", 0, True)]
    table = asz("ls", "--root", str(r.root)).stdout
    assert "dev@hostA" in table and "dev@hostC" not in table  # SENT BY names who landed it, as usage counts it
    (listed,) = page_json(r.root, "/api/conversations", tmp_path)["conversations"]
    assert (listed["sent_by"], listed["also_held_by"]) == ("dev@hostA", ["dev@hostC"])


def test_the_page_s_list_says_who_else_holds_it(hosts, tmp_path, browser):
    """The page's Sent by cell names the host whose copy was held whole, as asz conversation and the exports do."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    import forked
    from export_helpers import ASZ, free_port

    def cell(d):
        got = d.find_elements(By.CSS_SELECTOR, "td.sent-by")
        return got and "also held" in got[0].text and got[0].text

    r, collect = hosts
    assert _push(collect("hostA"), r).returncode == 0 and _push(collect("hostC"), r).returncode == 0
    port = free_port()
    page = forked.Popen([*ASZ, "view", "--root", str(r.root), "--port", str(port)], cwd=tmp_path)
    try:
        page_json(r.root, "/api/status", tmp_path, port=port)  # listening: asked until it answers
        browser.get(f"http://127.0.0.1:{port}/")
        assert WebDriverWait(browser, 60, poll_frequency=0.1).until(cell) == "dev@hostA (also held by dev@hostC)"
    finally:
        page.terminate()
        page.wait(timeout=60)
