"""A conversation whose only model call goes on in its continuation reads 0, counted there, not ``not recorded``
(trial 48a F4).

The shape of trial 48a's hand-made pair (field report shape: a reply streamed across ``--resume``): session A holds a
prompt and two streamed snapshots of one call (output 10, then 20); its continuation B repeats those three lines under
its own session id, holds the call's final snapshot (output 500), then a prompt and a call of its own. The call is
counted once, in B, from its last line (trial 33a F1: A's ``counted_later``). A carries token counts, so ``asz ls``
read ``not recorded`` (the words of a runtime that records none) while saying the call goes on in B; now A reads 0 and
$0.00, counted in B, as a copy counted where it continues does (trial 46a F5). Every figure is counted here from the
lines written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asz_core.view.counted_in import COUNTED_LATER_WHY
from cli_helpers import asz_ok

A = "66666666-ffff-4fff-8fff-00000000000a"
B = "66666666-ffff-4fff-8fff-00000000000b"
SPLIT, NEWER = "msg_hand06split00000000001", "msg_hand06newer00000000002"


def _user(sid: str, uuid: str, parent, text: str, at: str) -> dict:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/me/handmade",
            "sessionId": sid, "version": "2.0.37", "gitBranch": "main", "type": "user",
            "message": {"role": "user", "content": text}, "uuid": uuid, "timestamp": at}


def _reply(sid: str, uuid: str, parent: str, mid: str, out: int, at: str, end: bool) -> dict:
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000,
             "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 0},
             "output_tokens": out, "service_tier": "standard"}
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/me/handmade",
            "sessionId": sid, "version": "2.0.37", "gitBranch": "main",
            "message": {"model": "claude-opus-4-5-20251101", "id": mid, "type": "message", "role": "assistant",
                        "content": [{"type": "text", "text": "s"}], "stop_reason": "end_turn" if end else None,
                        "stop_sequence": None, "usage": usage},
            "requestId": "req_" + mid[4:], "type": "assistant", "uuid": uuid, "timestamp": at}


def _lines(sid: str) -> list[dict]:
    return [_user(sid, "u6-a-1", None, "split call original", "2026-11-25T20:00:00.000Z"),
            _reply(sid, "a6-a-1", "u6-a-1", SPLIT, 10, "2026-11-25T20:00:01.000Z", False),
            _reply(sid, "a6-a-2", "a6-a-1", SPLIT, 20, "2026-11-25T20:00:02.000Z", False)]


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[Path, dict]:
    base = tmp_path_factory.mktemp("counted-later")
    folder = base / "projects" / "-home-me-handmade"
    folder.mkdir(parents=True)
    a = _lines(A)
    b = _lines(B) + [_reply(B, "a6-b-3", "a6-a-2", SPLIT, 500, "2026-11-26T09:00:03.000Z", True),
                     _user(B, "u6-b-2", "a6-b-3", "next", "2026-11-26T09:01:00.000Z"),
                     _reply(B, "a6-b-4", "u6-b-2", NEWER, 60, "2026-11-26T09:01:05.000Z", True)]
    for sid, lines in ((A, a), (B, b)):
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    last: dict[tuple, dict] = {}  # one usage per message id + request id, from its last line: all of them are B's
    for d in a + b:
        if d["type"] == "assistant":
            last[(d["message"]["id"], d["requestId"])] = d["message"]["usage"]
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root", last


def test_ls_reads_0_counted_in_the_continuation(pair):
    root, last = pair
    rows = {r["id"]: r for r in json.loads(asz_ok("ls", "--json", "--root", str(root)))}
    assert rows[B]["llm_calls"] == len(last) == 2
    assert rows[B]["usage"]["out"] == sum(u["output_tokens"] for u in last.values()) == 560  # the split call's 500 there
    a = rows[A]
    assert a["counted_later"] == {"in": [B], "calls": 1, "nodes": [f"call/{SPLIT}"]}
    assert (a["llm_calls"], a["usage_recorded"], a["usage"], a["cost"]["usd"]) == (0, True, dict.fromkeys(a["usage"], 0), 0)
    table = asz_ok("ls", "--root", str(root))
    (line,) = [ln for ln in table.splitlines() if ln.startswith(A) and "split call original" in ln]
    assert "not recorded" not in line and " 0 " in line and "$0.00" in line, table
    assert f"{A} draws 1 model call(s) that go on in {B}" in table


def test_conversation_says_where_its_call_is_counted(pair):
    root, _ = pair
    said = asz_ok("conversation", A, "--root", str(root))
    assert f"tokens 0, counted in {B} ({COUNTED_LATER_WHY})" in said and f"cost $0.00, counted in {B}" in said, said
    assert "tokens not recorded" not in said
    # its models line names the model of the call counted there, not '(none recorded)' (fix49a; render 44)
    assert f"\nmodels claude-opus-4-5-20251101, counted in {B}\ntokens 0" in said and "(none recorded)" not in said, said
    md = asz_ok("export", A, "--format", "md", "--root", str(root))
    assert f"tokens 0, counted in {B} ({COUNTED_LATER_WHY})" in md and f"models claude-opus-4-5-20251101, counted in {B}" in md
    assert "tokens in 6, out 560, cache read 2,000, cache write 200" in asz_ok("conversation", B, "--root", str(root))
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    client = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1")
    summary = client.get(f"/api/c/{A}/view").json()["summary"]  # the page's header shows these words as given
    assert (summary["counted_in"], summary["counted_why"]) == (B, COUNTED_LATER_WHY), summary


def test_a_folder_export_row_reads_0_and_checks(pair, tmp_path):
    root, _ = pair
    asz_ok("export", "--since", "2000-01-01", "--format", "md", "--out", str(tmp_path / "md"), "--root", str(root))
    (row,) = [ln for ln in (tmp_path / "md" / "index.md").read_text().splitlines() if f"[{A}.md]" in ln]
    assert "| 0 | $0.00 |" in row and "not recorded" not in row, row
    said = asz_ok("verify", "--export", str(tmp_path / "md"), "--root", str(root)).splitlines()
    assert said[-1] == "the folder checks against the root", said
