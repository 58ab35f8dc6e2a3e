"""The page's usage table and ``asz usage daily`` place a Kiro call with no time of its own by one rule
(``asz_core.view.summary.recorded_range``, then ``usage_report.range_span``/``span_key``): the conversation's recorded
range, its records' first and last times, else, when no stream record has a time, its observations' own (kiro22,
session 21's open item). Real input: the Kiro corpus's 2.x session 8e247382, whole and trimmed of every time its
records carry, collected by the real ``asz collect``; a real ``asz view`` on loopback answers ``/api/usage``.
Expected counts are read from the source files, never from asz's own output.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from view_server_helpers import asz

from test_usage_page_marks import V2, _whole_usage
from test_view_server_kiro_page import CORPUS_KIRO as KIRO

sys_path = Path(__file__).resolve().parents[1] / "view"
import sys  # noqa: E402

sys.path.insert(0, str(sys_path))
from cli_helpers import asz_in_process  # noqa: E402

CLI = KIRO / "sessions" / "cli"


def _source() -> tuple[list[dict], dict]:
    lines = [json.loads(x) for x in (CLI / f"{V2}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    return lines, json.loads((CLI / f"{V2}.json").read_text(encoding="utf-8"))


def _credits(doc: dict) -> float:
    return sum(m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
               for m in t["metering_usage"] if m["unit"] == "credit")


def _untimed(lines: list[dict], doc: dict) -> tuple[list[dict], dict]:
    """The session with every time its records carry taken out: the prompts' ``meta.timestamp``, the document's
    ``created_at``/``updated_at`` and its turns' ``end_timestamp`` and reply ``meta.timestamp``."""
    lines = json.loads(json.dumps(lines))
    for x in lines:
        (x["data"].get("meta") or {}).pop("timestamp", None)
    doc = json.loads(json.dumps(doc))
    doc.pop("created_at"), doc.pop("updated_at")
    for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]:
        t.pop("end_timestamp", None)
        ((t.get("result") or {}).get("Ok", {}).get("meta") or {}).pop("timestamp", None)
    assert "timestamp" not in json.dumps(lines) and "_at\"" not in json.dumps(doc)  # the premise: no time is left
    return lines, doc


#: How far the ``midnight`` copy moves every time: its prompt (2026-05-27T18:15:03Z) to 23:59:55Z, so its one turn
#: runs over midnight (it ends 2026-05-28T00:00:19.45Z, 23.95 s of turn_duration later, which is not a time)
SHIFT_S = (23 * 3600 + 59 * 60 + 55) - (18 * 3600 + 15 * 60 + 3)


def _shifted(lines: list[dict], doc: dict, by: int = SHIFT_S) -> tuple[list[dict], dict]:
    """The session with every time its records carry moved by ``by`` seconds, and nothing else changed: the prompts'
    ``meta.timestamp`` (unix s), the document's ``created_at``/``updated_at`` and its turns' ``end_timestamp``
    (RFC 3339, microseconds kept) and reply ``meta.timestamp``."""
    import datetime as dt

    def rfc(v: str) -> str:
        t = dt.datetime.strptime(v, "%Y-%m-%dT%H:%M:%S.%fZ") + dt.timedelta(seconds=by)
        return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    lines, doc = json.loads(json.dumps(lines)), json.loads(json.dumps(doc))
    for x in lines:
        if "timestamp" in (x["data"].get("meta") or {}):
            x["data"]["meta"]["timestamp"] += by
    doc["created_at"], doc["updated_at"] = rfc(doc["created_at"]), rfc(doc["updated_at"])
    for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]:
        t["end_timestamp"] = rfc(t["end_timestamp"])
        t["result"]["Ok"]["meta"]["timestamp"] += by
    return lines, doc


@pytest.fixture(scope="module")
def roots(tmp_path_factory) -> dict[str, Path]:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    base = tmp_path_factory.mktemp("kiro22-one-rule")
    lines, doc = _source()
    out = {}
    for name, (ls, d) in (("whole", (lines, doc)), ("untimed", _untimed(lines, doc)), ("midnight", _shifted(lines, doc))):
        cli = base / name / "home" / ".kiro" / "sessions" / "cli"
        cli.mkdir(parents=True)
        (cli / f"{V2}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in ls), encoding="utf-8")
        (cli / f"{V2}.json").write_text(json.dumps(d), encoding="utf-8")
        asz("collect", "--once", "--adapter", "kiro", "--source", str(base / name / "home"), "--root", str(base / name / "root"))
        out[name] = base / name / "root"
    return out


def _page_days(u: dict) -> dict[str, tuple[int, float]]:
    """The page's usage table by day, as /api/usage?tz=UTC gives it: the quarters on their UTC day, the placed days,
    and the (no time) row: ``{day: (calls, credits)}``, rows of neither left out."""
    days: dict[str, list] = {}
    for q in u["quarters"]:
        d = days.setdefault(time.strftime("%Y-%m-%d", time.gmtime(q["at"] // 1000)), [0, 0.0])
        d[0], d[1] = d[0] + q["calls"], d[1] + q.get("credits", 0)
    for p in u["placed"]:
        d = days.setdefault(p["day"], [0, 0.0])
        d[0], d[1] = d[0] + p["calls"], d[1] + p.get("credits", 0)
    days["(no time)"] = [u["no_time"]["calls"], u["no_time"].get("credits", 0)]
    return {k: (c, round(v, 6)) for k, (c, v) in days.items() if c or v}


def _cli_days(root: Path, *window: str, view: str = "daily", key: str = "date") -> dict[str, tuple[int, float]]:
    p = asz_in_process("usage", view, "--json", "--tz", "UTC", "--root", str(root), *window)
    # a window holding no call matches nothing: [] and exit 1, as asz ls exits for it (trial 26b F2)
    assert p.returncode == (0 if json.loads(p.stdout) else 1), p.stdout + p.stderr
    return {r[key]: (r["calls"], round(r["credits"] or 0, 6)) for r in json.loads(p.stdout) if r["calls"] or r["credits"]}


@pytest.mark.parametrize("name", ["whole", "untimed"])
def test_the_page_and_asz_usage_daily_place_an_untimed_kiro_call_alike(roots, serve, name):
    lines, doc = _source()
    calls = sum(1 for x in lines if x["kind"] == "AssistantMessage")  # one model request each; none carries a time
    credits = round(_credits(doc), 6)
    (prompt,) = [x for x in lines if x["kind"] == "Prompt"]
    day = time.strftime("%Y-%m-%d", time.gmtime(prompt["data"]["meta"]["timestamp"]))
    assert (calls, day, doc["updated_at"][:10]) == (7, "2026-05-27", "2026-05-27")
    # the whole session's range is one day: its calls and credits are there; trimmed, nothing places them
    want = {day: (calls, credits)} if name == "whole" else {"(no time)": (calls, credits)}
    u = _whole_usage(serve(roots[name]))
    assert u["complete"]
    assert _page_days(u) == _cli_days(roots[name]) == want


def test_a_turn_over_midnight_places_its_calls_and_credits_at_its_end(roots, serve):
    """The ``midnight`` copy: one turn from 2026-05-27T23:59:55Z to 2026-05-28T00:00:19Z, so the conversation's range
    crosses a day and placed no call (before kiro22b: ``(no time)`` 7 calls, 0.711332 credits, in both). Its turn's
    entry names its replies by ``message_id`` and says when it ended: each call and the turn's credits are at that
    end, in ``asz usage daily``, its windows, ``blocks`` and the page's ``/api/usage`` alike (counts from the source)."""
    lines, doc = _shifted(*_source())
    (turn,) = doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
    calls = sum(1 for x in lines if x["kind"] == "AssistantMessage" and x["data"]["message_id"] in turn["message_ids"])
    credits = round(sum(m["value"] for m in turn["metering_usage"] if m["unit"] == "credit"), 6)
    (prompt,) = [x for x in lines if x["kind"] == "Prompt"]
    start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(prompt["data"]["meta"]["timestamp"]))
    assert (calls, credits, start, turn["end_timestamp"]) == (7, 0.711332, "2026-05-27T23:59:55Z", "2026-05-28T00:00:19.451690Z")
    end = turn["end_timestamp"][:10]
    s = serve(roots["midnight"])
    u = _whole_usage(s)
    assert u["complete"]
    assert _page_days(u) == _cli_days(roots["midnight"]) == {end: (calls, credits)}
    # the calls are in the quarter hour of the turn's end, on the page as in asz usage blocks (a block of their own)
    assert [(q["at"], q["calls"], round(q.get("credits", 0), 6)) for q in u["quarters"]] == [(1779926400000, calls, credits)]
    assert _cli_days(roots["midnight"], view="blocks", key="block") == {"2026-05-28T00:00+00:00": (calls, credits)}
    # a window holding the turn's end counts them; one holding the rest of the range alone does not
    for since, until, want in (("2026-05-28T00:00:00Z", "", {end: (calls, credits)}), ("", "2026-05-27T23:59:59.999Z", {})):  # a quarter hour's last ms
        window = [*(("--since", since) if since else ()), *(("--until", until) if until else ())]
        query = "&".join(f"{k}={v}" for k, v in (("since", since), ("until", until)) if v)
        got = s.get(f"/api/usage?{query}").json()
        assert got["complete"] and _page_days(got) == _cli_days(roots["midnight"], *window) == want
