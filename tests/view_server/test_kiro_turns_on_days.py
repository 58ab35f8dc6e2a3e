"""A Kiro CLI 2.x session whose turns fall on different days (note22, "Kiro": the corpus has one turn, so this was
checked by a unit test only). Real-shaped input made here from the corpus's own 8e247382: its records and its session
document's turn entry repeated three times, each copy with its ids changed (message ids, tool use ids) and every time
it carries moved by whole days (the prompt's ``meta.timestamp``, the turn's ``end_timestamp`` and its reply's
``meta.timestamp``); nothing else changed. Collected by the real ``asz collect``; a real ``asz view`` answers
``/api/usage``. Each turn's 7 calls (one per ``AssistantMessage``, none with a time of its own) and its credits must
land on its own day in ``asz usage daily``, the page's usage table and the audit export (``--in-range-only``)."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

from view_server_helpers import asz

from test_usage_kiro_one_rule import _cli_days, _page_days, _source
from test_usage_page_marks import V2, _whole_usage
from test_view_server_kiro_page import CORPUS_KIRO as KIRO

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from cli_helpers import asz_in_process  # noqa: E402

#: Days each copy of the turn is moved by: 2026-05-27, 2026-05-28 and 2026-05-30 (a day with no turn between)
SHIFTS = (0, 1, 3)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TOOL_USE = re.compile(r"tooluse_[A-Za-z0-9]+")


def _renamed(text: str, k: int) -> str:
    """``text`` (JSON) with every id of copy ``k`` changed (the session's own id kept): a UUID's first group and a
    tool use id's last two characters; copy 0 is the corpus's."""
    if not k:
        return text
    text = UUID.sub(lambda m: m.group(0) if m.group(0) == V2 else f"{k:08x}" + m.group(0)[8:], text)
    return TOOL_USE.sub(lambda m: m.group(0)[:-2] + f"{k:02d}", text)


def _moved(rfc: str, days: int) -> str:
    import datetime as dt

    t = dt.datetime.strptime(rfc, "%Y-%m-%dT%H:%M:%S.%fZ") + dt.timedelta(days=days)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _session() -> tuple[list[dict], dict, list[dict]]:
    """``(lines, document, turns)``: the three copies' transcript lines and one session document listing their turns."""
    lines, doc = _source()
    (turn,) = doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
    out, turns = [], []
    for k, days in enumerate(SHIFTS):
        for x in lines:
            x = json.loads(_renamed(json.dumps(x), k))
            if "timestamp" in (x["data"].get("meta") or {}):
                x["data"]["meta"]["timestamp"] += days * 86400
            out.append(x)
        t = json.loads(_renamed(json.dumps(turn), k))
        t["end_timestamp"] = _moved(t["end_timestamp"], days)
        t["result"]["Ok"]["meta"]["timestamp"] += days * 86400
        turns.append(t)
    doc = json.loads(json.dumps(doc))
    doc["session_state"]["conversation_metadata"]["user_turn_metadatas"] = turns
    doc["updated_at"] = _moved(doc["updated_at"], SHIFTS[-1])
    return out, doc, turns


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    base = tmp_path_factory.mktemp("kiro-turn-days")
    lines, doc, _ = _session()
    cli = base / "home" / ".kiro" / "sessions" / "cli"
    cli.mkdir(parents=True)
    (cli / f"{V2}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    (cli / f"{V2}.json").write_text(json.dumps(doc), encoding="utf-8")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(base / "home"), "--root", str(base / "root"))
    return base / "root"


def _want() -> dict[str, tuple[int, float]]:
    """``{day: (calls, credits)}`` from the made source: each turn's replies its entry names, on its end's day."""
    lines, _, turns = _session()
    got = {}
    for t in turns:
        calls = sum(1 for x in lines if x["kind"] == "AssistantMessage" and x["data"]["message_id"] in t["message_ids"])
        got[t["end_timestamp"][:10]] = (calls, round(sum(m["value"] for m in t["metering_usage"] if m["unit"] == "credit"), 6))
    return got


def test_each_turns_calls_land_on_its_day_in_usage_the_page_and_the_audit_export(root, serve):
    want = _want()
    assert want == {"2026-05-27": (7, 0.711332), "2026-05-28": (7, 0.711332), "2026-05-30": (7, 0.711332)}
    lines, _, turns = _session()
    prompts = [time.strftime("%Y-%m-%d", time.gmtime(x["data"]["meta"]["timestamp"])) for x in lines if x["kind"] == "Prompt"]
    assert prompts == list(want)  # each turn starts and ends on its day
    assert _cli_days(root) == want
    u = _whole_usage(serve(root))
    assert u["complete"] and _page_days(u) == want
    starts = [x["data"]["meta"]["timestamp"] for x in lines if x["kind"] == "Prompt"]
    for (day, (calls, credits)), start, end in zip(want.items(), starts, [t["end_timestamp"] for t in turns]):
        window = ("--since", day, "--until", day, "--tz", "UTC")
        p = asz_in_process("export", *window, "--audit", "--in-range-only", "--root", str(root))
        assert p.returncode == 0, p.stderr
        head, *rest = [json.loads(x) for x in p.stdout.splitlines()]
        kinds = [(x["kind"], x["in_range"]) for x in rest]
        assert kinds == [("prompt", True)] + [("tool_call", True)] * 6 + [("reply", True)], (day, kinds)
        assert (head["in_window"]["calls"], round(head["in_window"]["credits"], 6)) == (calls, credits), head
        # the header's from and to: the prompt's time (unix s) and the turn's recorded end (to the ms)
        assert (head["from"], head["to"]) == (time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(start)), end[:23] + "Z")
        assert "no time" not in p.stderr
    between = asz_in_process("export", "--since", "2026-05-29", "--until", "2026-05-29", "--tz", "UTC", "--audit",
                             "--in-range-only", "--root", str(root))
    assert between.stdout == "" and "with no line inside the window" in between.stderr  # the day between: no turn
