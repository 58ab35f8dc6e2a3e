"""A later partial copy of a Kiro session takes nothing from the session that holds it whole (trial 34a F3).

Real input: the corpus Kiro home (its IDE 3.x session ``sess_5e804080…`` and CLI 2.x session ``8e247382``) plus, as
the trial made it, a copy of the IDE session's first 10 lines and half its 11th under a new session id, with its
``session.json`` (the new id, the same dates). Kiro resumes a session under its own id, so a session repeating
another's records is a copy of it (``Adapter.resumes_as_new_session`` False): the fragment, whose records are all in
the original, is the copy, drawn and counted there. Before, it was taken for the earlier session (no record of its
own), so the original ``continued`` it and lost 2 of its 9 model calls and 2 of its 8 tool calls to it.

Every figure expected is counted here from the source files: model calls by the rule ``asz ls`` prints for Kiro 3.x
(one per stretch of model lines, ``assistant``, ``tool_call`` and ``sub_agent_start``, with no result, ``tool_result``
or ``sub_agent_complete``, handed back between them) and for 2.x one per ``AssistantMessage``; tool calls the IDE's
``tool_call`` and ``sub_agent_start`` lines and the CLI's ``toolUse`` entries; credits the IDE's
``promptTurnSummaries`` usage in credits and the CLI document's ``metering_usage`` in credits. Checked in ``asz ls
--json``, ``asz usage session --json``, ``asz usage tools --json``, ``asz usage --json`` (daily), ``asz conversation --json``
of both, and a real ``asz view``'s ``/api/conversations`` rows and ``/api/c/ID/view`` summaries (the page's headline).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from view_server_helpers import asz, asz_here, counted_rows
from test_view_server_kiro_page import CORPUS_KIRO as KIRO

COPY = "sess_aaaaaaaa-0000-4000-8000-000000000004"
MODEL = ("assistant", "tool_call", "sub_agent_start")
RESULT = ("tool_result", "sub_agent_complete")


def _ide_truth(lines: list[dict]) -> tuple[int, int, float]:
    """(model calls, tool calls, credits) of IDE 3.x lines, by the rules of the module docstring."""
    calls, tools, credits, open_ = 0, 0, 0.0, False
    for d in lines:
        t = (d.get("payload") or {}).get("type")
        if t in MODEL and not open_:
            calls, open_ = calls + 1, True
        elif t in RESULT:
            open_ = False
        tools += t in ("tool_call", "sub_agent_start")
        for s in (d.get("payload") or {}).get("promptTurnSummaries") or ():
            credits += s["usage"] if s.get("unit") == "credit" else 0.0
    return calls, tools, credits


def _cli_truth(cli: Path) -> tuple[int, int, float]:
    lines = [json.loads(x) for x in cli.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    tools = sum(1 for x in lines for c in ((x.get("data") or {}).get("content") or ())
                if isinstance(c, dict) and c.get("kind") == "toolUse")
    doc = json.loads(cli.with_suffix(".json").read_text(encoding="utf-8"))
    credits = sum(m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
                  for m in t["metering_usage"] if m["unit"] == "credit")
    return sum(1 for x in lines if x["kind"] == "AssistantMessage"), tools, credits


@pytest.fixture(scope="module")
def copied(tmp_path_factory) -> dict:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    base = tmp_path_factory.mktemp("kiro-partial-copy")
    home = base / "home"
    shutil.copytree(KIRO, home / ".kiro")
    for p in (home / ".kiro").rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (orig,) = (home / ".kiro" / "sessions").glob("*/sess_*")
    frag = home / ".kiro" / "sessions" / "ffff000000000001" / COPY
    frag.mkdir(parents=True)
    raw = (orig / "messages.jsonl").read_bytes().split(b"\n")
    (frag / "messages.jsonl").write_bytes(b"\n".join(raw[:10]) + b"\n" + raw[10][: len(raw[10]) // 2])
    meta = json.loads((orig / "session.json").read_text(encoding="utf-8"))
    (frag / "session.json").write_text(json.dumps({**meta, "id": COPY}, indent=2), encoding="utf-8")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(base / "root"))
    (cli,) = (home / ".kiro" / "sessions" / "cli").glob("*.json")
    whole = [json.loads(x) for x in raw if x.strip()]
    t = {"orig": orig.name, "cli": cli.stem, "ide": _ide_truth(whole), "part": _ide_truth(whole[:10]),
         "clit": _cli_truth(cli), "root": base / "root"}
    assert t["ide"][:2] == (9, 8) and t["part"][:2] == (2, 2)  # the premise: the fragment holds 2 calls of 9
    return t


def _read(t: dict, *args: str):
    return json.loads(asz_here(*args, "--json", "--root", str(t["root"])).stdout)


def test_the_session_holding_the_records_whole_keeps_its_calls_in_every_reader(copied, serve):
    t = copied
    orig, cli = t["orig"], t["cli"]
    want = {orig: (t["ide"][0], round(t["ide"][2], 6)), cli: (t["clit"][0], round(t["clit"][2], 6)), COPY: (0, 0)}
    rows = {r["id"]: r for r in _read(t, "ls")}
    assert {k: (r["llm_calls"], round(r["credits"] or 0, 6)) for k, r in rows.items()} == want
    assert rows[COPY]["continues"] == orig and rows[orig]["continues"] is None  # was: orig continues the fragment
    sess = {r["conversation"]: (r["calls"], round(r.get("credits") or 0, 6)) for r in _read(t, "usage", "session")}
    assert {k: v for k, v in want.items() if v != (0, 0)} == {k: v for k, v in sess.items() if v != (0, 0)}
    days = _read(t, "usage")  # daily rows
    assert sum(r["calls"] for r in days) == t["ide"][0] + t["clit"][0]
    # each row's figure is rounded to 6 decimals: their sum is within 1e-6 a row of the files'
    assert abs(sum(r["credits"] or 0 for r in days) - (t["ide"][2] + t["clit"][2])) <= 1e-6 * len(days)
    tools = {k: _read(t, "usage", "tools", "--conversation", k)["total"]["calls"] for k in (orig, COPY)}
    assert tools == {orig: t["ide"][1], COPY: 0}
    assert _read(t, "usage", "tools")["total"]["calls"] == t["ide"][1] + t["clit"][1]
    for k, (calls, credits) in ((orig, want[orig]), (COPY, want[COPY])):
        s = _read(t, "conversation", k)["summary"]
        assert (s["llm_calls"], round(s.get("credits") or 0, 6)) == (calls, credits)
    assert _read(t, "conversation", orig)["summary"]["continued_in"] == [COPY]
    s = serve(t["root"])
    api = {r["id"]: (r["llm_calls"], round(r.get("credits") or 0, 6), r["continues"]) for r in counted_rows(s)}
    assert api == {k: (*v, orig if k == COPY else None) for k, v in want.items()}
    for k in (orig, COPY):
        head = s.get(f"/api/c/{k}/view").json()["summary"]
        assert (head["llm_calls"], round(head.get("credits") or 0, 6)) == want[k]
