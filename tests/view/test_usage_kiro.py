"""``asz usage`` over the Kiro corpus: Kiro meters credits, never tokens (docs/adapters/kiro.md, Usage and credits),
so its calls are counted in a CALLS column and their tokens read "not recorded", never 0."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
CLI_SESSION = KIRO / "sessions" / "cli" / "8e247382-c779-440f-b1db-ed9bad1afaee.jsonl"
IDE_SESSION = next(KIRO.glob("sessions/*/sess_*/messages.jsonl"), None) if KIRO.is_dir() else None
MODEL_LINES = {"assistant", "tool_call", "sub_agent_start"}
HAND_BACKS = {"tool_result", "sub_agent_complete", "user", "turn_start", "turn_end", "tombstone"}


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _ide_requests(path: Path) -> tuple[int, set[str]]:
    """Kiro 3.x requests (stretches of model lines with no hand-back between them) and the days they were made."""
    count, open_, days = 0, False, set()
    for d in _lines(path):
        kind = d["payload"].get("type")
        if kind in MODEL_LINES:
            if not open_:
                count, open_ = count + 1, True
                days.add(d["timestamp"][:10])
        elif kind in HAND_BACKS:
            open_ = False
    return count, days



def test_kiro_calls_are_counted_and_their_tokens_read_not_recorded(kiro_root):
    cli_calls = sum(1 for d in _lines(CLI_SESSION) if d["kind"] == "AssistantMessage")  # 2.x: one a request, no time
    ide_calls, days = _ide_requests(IDE_SESSION)
    assert (cli_calls, ide_calls, len(days)) == (7, 9, 1)
    p = asz_in_process("usage", "--tz", "UTC", "--root", str(kiro_root))
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout.splitlines()
    assert re.split(r"\s{2,}", out[0].strip())[:3] == ["DATE (UTC)", "MODELS", "CALLS"]  # the days' zone named
    table = out[1:out.index(next(ln for ln in out if ln.startswith("total"))) + 1]  # the rows, then the total
    assert not [ln for ln in out if "(no time)" in ln]  # the 2.x calls carry no time: placed by their conversation's day
    cells = {ln.split()[0]: ln for ln in table}
    for key, calls in (("2026-05-27", cli_calls), (days.pop(), ide_calls), ("total", cli_calls + ide_calls)):
        row = re.split(r"\s{2,}", cells[key].strip())
        assert row[2] == str(calls) and "not recorded" in row and "0" not in row[3:], row
    rows = json.loads(asz_in_process("usage", "--tz", "UTC", "--json", "--root", str(kiro_root)).stdout)
    # the calls' rows; a row of no call is the day of a record that metered credits (tests/view/test_kiro_credits.py)
    assert sorted(r["calls"] for r in rows if r["calls"]) == sorted((cli_calls, ide_calls))
    assert all(r["credits"] for r in rows if not r["calls"])
    # no token count recorded: every count null and usage_recorded false, never 0 (trial 29c F4); the keys kept
    assert all(r["calls_with_usage"] == 0 and r["usage"] == dict.fromkeys(("in", "out", "cache_read", "cache_write", "cache_write_1h"))
               and r["usage_recorded"] is False for r in rows)
    assert set(rows[0]) >= {"date", "usage", "cost", "models", "calls", "conversations"}  # the keys kept


def test_asz_ls_and_conversation_say_kiro_tokens_are_not_recorded(kiro_root):
    """asz ls reads 'not recorded' and '-' (not 0 and $0.00) for Kiro's conversations, as asz usage and the page do;
    --json gives usage's keys each null (as asz usage --json does: no token count is not 0, trial 29c), keeps cost and
    adds calls_with_usage and usage_recorded."""
    cli_calls = sum(1 for d in _lines(CLI_SESSION) if d["kind"] == "AssistantMessage")
    ide_calls = _ide_requests(IDE_SESSION)[0]
    p = asz_in_process("ls", "--tz", "UTC", "--root", str(kiro_root))
    assert p.returncode == 0, p.stdout + p.stderr
    header, *lines = p.stdout.splitlines()
    names = re.split(r"\s{2,}", header.strip())
    rows = [dict(zip(names, re.split(r"\s{2,}", ln.strip()))) for ln in lines[:2]]
    # the IDE (3.x) conversation's calls are asz's grouping, marked ≈ (trial 23a, F15); the CLI (2.x) ones are Kiro's ids
    assert sorted(r["CALLS"] for r in rows) == sorted((str(cli_calls), f"{ide_calls} ≈"))
    assert [(r["TOKENS"], r["COST"]) for r in rows] == [("not recorded", "-")] * 2, p.stdout
    got = json.loads(asz_in_process("ls", "--json", "--root", str(kiro_root)).stdout)
    assert sorted(r["llm_calls"] for r in got) == sorted((cli_calls, ide_calls))
    assert all(r["usage_recorded"] is False and r["calls_with_usage"] == 0 for r in got)
    assert all(set(r["usage"]) >= {"in", "out", "cache_read", "cache_write"} and set(r["usage"].values()) == {None}
               and r["cost"]["usd"] is None and r["cost"]["priced"] is False for r in got)  # the keys kept, each null (50c F3)
    cid = next(r["id"] for r in got if r["llm_calls"] == cli_calls)
    out = asz_in_process("conversation", cid, "--root", str(kiro_root)).stdout.splitlines()
    assert f"tokens not recorded: the runtime recorded no token counts for its {cli_calls} model call(s)" in out
    assert not any(ln.startswith(("tokens in", "cost $")) for ln in out), out


def test_a_2x_calls_and_their_credits_land_on_one_model_and_day(kiro_root):
    """Trial 21, finding 8: the 2.x session document names the model (``model_info.model_id``) and meters the
    session's credits; its calls name none. They are counted under that model, beside those credits, in every view:
    ``asz usage model`` (one row with the calls and the credits, no 0-call row), ``daily --breakdown``, ``asz ls``."""
    doc = json.loads(CLI_SESSION.with_suffix(".json").read_text(encoding="utf-8"))
    model = doc["session_state"]["rts_model_state"]["model_info"]["model_id"]
    metered = [m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
               for m in t["metering_usage"] if m["unit"] == "credit"]
    cli_calls = sum(1 for d in _lines(CLI_SESSION) if d["kind"] == "AssistantMessage")
    assert (model, len(metered), cli_calls) == ("auto", 7, 7)  # one metered figure per call (total_request_count 7)
    rows = {r["model"]: r for r in json.loads(asz_in_process("usage", "model", "--json", "--root", str(kiro_root)).stdout)}
    assert rows[model]["calls"] == cli_calls and rows[model]["credits"] == pytest.approx(sum(metered), abs=1e-6)
    assert rows["(no model)"]["calls"] == _ide_requests(IDE_SESSION)[0]  # the 3.x calls and credits name none
    for since in ("", "2026-05-27"):  # the day, with or without a window holding it
        days = json.loads(asz_in_process("usage", "daily", "--json", "--tz", "UTC", *(["--since", since] if since else []),
                                         "--root", str(kiro_root)).stdout)
        (day,) = [r for r in days if r["date"] == doc["updated_at"][:10]]
        assert day["calls_by_model"] == {model: cli_calls} and day["credits_by_model"] == {model: pytest.approx(sum(metered), abs=1e-6)}
    listed = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(kiro_root)).stdout)}
    assert listed[doc["session_id"]]["models"] == [model]


def test_a_window_holding_the_turn_s_end_counts_the_2x_calls_and_their_credits_together(kiro_root):
    """Trial 21, finding 8, the window, since kiro22b: the 2.x calls have no time of their own, but their turn's entry
    names them and says when it ended (``end_timestamp``), so they and the turn's credits are at that end together: a
    window from after the prompt (which cut the conversation's range and left both out before) holds them, and so
    does a block, where they were the (no time) row."""
    doc = json.loads(CLI_SESSION.with_suffix(".json").read_text(encoding="utf-8"))
    (turn,) = doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
    metered = sum(m["value"] for m in turn["metering_usage"] if m["unit"] == "credit")
    since = "2026-05-27T18:15:10Z"
    assert turn["end_timestamp"] > since  # the turn's end is inside the window, the prompt (18:15:03) is not
    p = asz_in_process("usage", "daily", "--json", "--tz", "UTC", "--since", since, "--root", str(kiro_root))
    rows = [r for r in json.loads(p.stdout) if r["calls"] or r["credits"]]
    assert [(r["date"], r["calls"], r["credits"]) for r in rows] == [("2026-05-27", 7, pytest.approx(metered, abs=1e-6))]
    assert "8e247382" not in p.stderr and all("no_time" not in r for r in rows)
    blocks = {r["block"]: r for r in json.loads(asz_in_process("usage", "blocks", "--json", "--tz", "UTC", "--root",
                                                                 str(kiro_root)).stdout)}
    assert "(no time)" not in blocks
    at_end = blocks["2026-05-27T18:00+00:00"]
    assert at_end["calls_by_model"] == {"auto": 7} and at_end["credits_by_model"] == {"auto": pytest.approx(metered, abs=1e-6)}
