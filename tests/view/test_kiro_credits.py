"""Kiro meters credits, not tokens (docs/adapters/kiro.md, Usage and credits): the credits a Kiro CLI 2.x session
recorded (``session_state.conversation_metadata.user_turn_metadatas[].metering_usage[]``, unit ``credit``) and those
a ``sess_<id>`` session's ``usage_summary`` lines recorded (``promptTurnSummaries[].usage``, unit ``credit``) are the
document's ``summary.credits``, a ``credits`` line of ``asz conversation`` and the exports, ``asz ls``'s and
``asz usage``'s, never tokens, never USD (trial 15, F14). Counted here straight from the corpus session files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
CLI_DOC = KIRO / "sessions" / "cli" / "8e247382-c779-440f-b1db-ed9bad1afaee.json"
CLI_ID = "8e247382-c779-440f-b1db-ed9bad1afaee"
IDE_LINES = next(KIRO.glob("sessions/*/sess_*/messages.jsonl"), None) if KIRO.is_dir() else None


def _source_credits() -> float:
    d = json.loads(CLI_DOC.read_text(encoding="utf-8"))
    return sum(m["value"] for t in d["session_state"]["conversation_metadata"]["user_turn_metadatas"]
               for m in t.get("metering_usage") or () if m.get("unit") == "credit")


def _ide_credits() -> dict[str, float]:
    """The ``usage_summary`` lines' credits of the sess_ session, per day (UTC) of the line's timestamp."""
    out: dict[str, float] = {}
    for x in IDE_LINES.read_text(encoding="utf-8").splitlines():
        d = json.loads(x) if x.strip() else {}
        p = d.get("payload") or {}
        if p.get("type") == "usage_summary":
            got = sum(t["usage"] for t in p["promptTurnSummaries"] if t.get("unit") == "credit")
            out[d["timestamp"][:10]] = out.get(d["timestamp"][:10], 0.0) + got
    return out


IDE_ID = IDE_LINES.parent.name if IDE_LINES else ""


def test_the_summary_carries_the_recorded_credits(kiro_root):
    want = _source_credits()
    assert round(want, 3) == 0.711
    doc = json.loads(asz_in_process("conversation", CLI_ID, "--json", "--root", str(kiro_root)).stdout)
    s = doc["summary"]
    assert s["credits"] == round(want, 6)
    assert s["cost"]["usd"] == 0 and not any(s["usage"].values())  # never mixed into tokens or USD
    ide = json.loads(asz_in_process("conversation", IDE_ID, "--json", "--root", str(kiro_root)).stdout)["summary"]
    want_ide = sum(_ide_credits().values())
    assert round(want_ide, 3) == 1.342 and ide["credits"] == round(want_ide, 6)  # the usage_summary lines, added
    assert ide["cost"]["usd"] == 0 and not any(ide["usage"].values())


def test_conversation_and_export_say_the_credits(kiro_root):
    line = f"credits {_source_credits():.3f} (what the runtime metered, in its own unit: not tokens, not USD)"
    out = asz_in_process("conversation", CLI_ID[:8], "--root", str(kiro_root)).stdout.splitlines()
    assert line in out and "cost - (no tokens to price)" in out
    md = asz_in_process("export", CLI_ID[:8], "--root", str(kiro_root), "--format", "md").stdout
    assert f"- {line}" in md


def test_ls_rows_carry_them_and_the_table_says_them(kiro_root):
    want = _source_credits()
    rows = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(kiro_root)).stdout)}
    want_ide = sum(_ide_credits().values())
    assert rows[CLI_ID]["credits"] == round(want, 6) and rows[IDE_ID]["credits"] == round(want_ide, 6)
    out = asz_in_process("ls", "--root", str(kiro_root)).stdout.splitlines()
    # trial 34a F5: a CREDITS column after COST, each row's figure in it (right-aligned: it ends where its header
    # ends), and one line under the table with their total, not one naming every conversation's figure
    head = out[0]
    assert re.split(r"\s{2,}", head.strip())[9:11] == ["COST", "CREDITS"], head
    end = head.index("CREDITS") + len("CREDITS")
    cells = {ln[:8]: ln[:end].split()[-1] for ln in out[1:] if ln[:8] in (CLI_ID[:8], IDE_ID[:8])}
    assert cells == {CLI_ID[:8]: f"{want:.3f}", IDE_ID[:8]: f"{want_ide:.3f}"}, out
    assert ("credits (what the runtime metered, in its own unit: not tokens, not USD): the CREDITS column; "
            f"total {want + want_ide:.3f} in 2 conversation(s): the credits their records metered, each metering once") in out


def test_ls_counts_a_copied_sessions_credits_once(corpus_dir, tmp_path):
    """A Kiro CLI session copied under a new id (moved a month on, the same turns and message ids) holds the same
    meterings: both rows show them, and the line under the table sums what the records metered, each metering once,
    as asz usage does (session 39: it summed the CREDITS cells, 2.765 where the corpus files metered 2.053)."""
    from kiro_copies import moved_copy, writable_kiro_home

    home = writable_kiro_home(corpus_dir, tmp_path / "home")
    moved_copy(home)
    root = tmp_path / "root"
    assert asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root)).returncode == 0
    cli, ide = _source_credits(), sum(_ide_credits().values())
    out = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    assert sum(1 for ln in out if ln.rstrip().endswith("verified") and f" {cli:.3f} " in ln) == 2, out  # both rows show them
    assert ("credits (what the runtime metered, in its own unit: not tokens, not USD): the CREDITS column; "
            f"total {cli + ide:.3f} in 3 conversation(s): the credits their records metered, each metering once; "
            f"{cli:.3f} that two of them or more hold (the same metering: a session copied under a new id) counted "
            "once, as asz usage counts it") in out, out
    usage = json.loads(asz_in_process("usage", "monthly", "--json", "--root", str(root)).stdout)
    assert f"{sum(r['credits'] for r in usage):.3f}" == f"{cli + ide:.3f}"  # the same figure asz usage gives


def _days_and_models() -> tuple[dict[str, float], dict[str, float]]:
    """The credits per UTC day and per model the corpus files record: the 2.x document's on the day of its
    ``updated_at`` (the landed record's time) under its ``model_id``; the usage_summary lines' on theirs, no model."""
    doc = json.loads(CLI_DOC.read_text(encoding="utf-8"))
    cli, ide = _source_credits(), _ide_credits()
    days = dict(ide)
    days[doc["updated_at"][:10]] = days.get(doc["updated_at"][:10], 0.0) + cli
    return days, {doc["session_state"]["rts_model_state"]["model_info"]["model_id"]: cli, "(no model)": sum(ide.values())}


def test_usage_counts_the_credits_per_day_model_and_conversation(kiro_root):
    days, models = _days_and_models()
    whole = sum(days.values())
    assert len(days) == 2 and round(whole, 3) == 2.053
    near = lambda d: {k: pytest.approx(v, abs=1e-6) for k, v in d.items()}  # noqa: E731
    rows = json.loads(asz_in_process("usage", "--json", "--tz", "UTC", "--root", str(kiro_root)).stdout)
    assert {r["date"]: r["credits"] for r in rows if r["credits"] is not None} == near(days)
    total = rows[0]["total"]
    assert total["credits"] == pytest.approx(whole, abs=1e-6) and total["credits_by_model"] == near(models)
    assert not any(total["usage"].values()) and total["cost"]["usd"] is None  # kept apart: no token, no USD (null: trial 50c F3)
    by_conv = json.loads(asz_in_process("usage", "session", "--json", "--root", str(kiro_root)).stdout)
    assert {r["conversation"]: r["credits"] for r in by_conv} == near({CLI_ID: _source_credits(), IDE_ID: sum(_ide_credits().values())})
    by_model = json.loads(asz_in_process("usage", "model", "--json", "--root", str(kiro_root)).stdout)
    assert {r["model"]: r["credits"] for r in by_model if r["credits"] is not None} == near(models)
    # the text: a day with credits reads "not recorded" for its tokens and "-" for its cost, never 0 or $0.00
    out = asz_in_process("usage", "--tz", "UTC", "--root", str(kiro_root)).stdout.splitlines()
    for day in days:
        (line,) = [ln for ln in out if ln.startswith(day)]
        assert re.split(r"\s{2,}", line.strip())[3:] == ["-"] * 4 + ["not recorded", "-"], line
    assert ("credits (what the runtime metered, in its own unit: not tokens, not USD): "
            + ", ".join(f"{d} {v:.3f}" for d, v in sorted(days.items())) + f"; total {whole:.3f}") in out


def test_a_window_counts_the_credits_of_its_days(kiro_root):
    days, _ = _days_and_models()
    last = max(days)
    rows = json.loads(asz_in_process("usage", "--json", "--tz", "UTC", "--since", last, "--root", str(kiro_root)).stdout)
    assert {r["date"]: r["credits"] for r in rows if r["credits"] is not None} == {last: pytest.approx(days[last], abs=1e-6)}
    assert rows[0]["total"]["credits"] == pytest.approx(days[last], abs=1e-6)


def test_each_reply_is_placed_at_its_turn_s_recorded_end(kiro_root):
    """kiro22b: the 2.x session document's turn names the 7 replies by ``message_id`` and ended at ``end_timestamp``:
    each ``llm.call`` node keeps ``at`` 0 (no time of its own) and has ``placed_at``, the turn's end, and the credits
    are there too (the running total split on its one turn), all read from the source files."""
    from asz_core.sessiondata.times import parse_instant

    d = json.loads(CLI_DOC.read_text(encoding="utf-8"))
    (turn,) = d["session_state"]["conversation_metadata"]["user_turn_metadatas"]
    end = parse_instant(turn["end_timestamp"]) // 1_000_000
    lines = [json.loads(x) for x in CLI_DOC.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    replies = {x["data"]["message_id"] for x in lines if x["kind"] == "AssistantMessage"}
    assert len(replies) == 7 and replies <= set(turn["message_ids"]) and end == 1779905727451
    doc = json.loads(asz_in_process("conversation", CLI_ID, "--json", "--root", str(kiro_root)).stdout)
    calls, stack = [], list(doc["talks"]) + list(doc.get("loose") or [])
    while stack:
        n = stack.pop()
        stack.extend(n.get("children") or ())
        calls += [n] if n["kind"] == "llm.call" else []
    assert sorted((n["at"], n.get("placed_at")) for n in calls) == [(0, end)] * 7
    assert doc["summary"]["credits_at"] == [{"at": end, "model": "auto", "credits": round(_source_credits(), 6)}]


def test_a_running_total_is_split_on_its_turns():
    """turn_parts: each turn's credits at its recorded end, a turn still running (no end) at the record's time, and a
    part of the total no turn lists at the record's time too; the parts sum to the total."""
    from asz_core.view.turn_places import turn_parts

    turns = [(1000, ("a",), 0.25), (None, ("b",), 0.5), (90_000_000, ("c",), 0.0)]
    got = turn_parts(turns, 1.0, 5000, "auto")
    assert [p[:3] for p in got] == [(1000, "auto", 0.25), (5000, "auto", 0.5), (5000, "auto", 0.25)]
    assert [p[3] for p in got] == ["turn/a", "turn/b", ""]  # a turn by its message ids; the rest by none
    assert [p[:3] for p in turn_parts(turns[:1], 0.25, None, "")] == [(1000, "", 0.25)]


def test_one_build_asks_the_adapter_for_a_record_s_turns_once(kiro_root, monkeypatch):
    """Session 23: the turns of the running total's record (the 2.x session document's, one turn) are read by the
    adapter once in a build, for the calls' places and the credits alike (kiro22b asked twice); the document is the
    same."""
    from asz_adapters_kiro.plugin import KiroAdapter
    from asz_core.view.document import build_view

    before = build_view(kiro_root, CLI_ID)
    asked: list[int] = []
    real = KiroAdapter.turns

    def turns(self, dialect, record):
        asked.append(id(record))
        return real(self, dialect, record)

    monkeypatch.setattr(KiroAdapter, "turns", turns)
    after = build_view(kiro_root, CLI_ID)
    assert asked and len(asked) == len(set(asked))  # each record asked once
    assert after == before and after["summary"]["credits_at"][0]["credits"] == round(_source_credits(), 6)
