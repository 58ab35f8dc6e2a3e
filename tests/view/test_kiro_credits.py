"""Kiro meters credits, not tokens (docs/adapters/kiro.md, Usage and credits): the credits a Kiro CLI 2.x session
recorded (``session_state.conversation_metadata.user_turn_metadatas[].metering_usage[]``, unit ``credit``) are the
document's ``summary.credits`` and a ``credits`` line of ``asz conversation`` and the exports, never tokens, never
USD (trial 15, F14). Counted here straight from the corpus session file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
CLI_DOC = KIRO / "sessions" / "cli" / "8e247382-c779-440f-b1db-ed9bad1afaee.json"
CLI_ID = "8e247382-c779-440f-b1db-ed9bad1afaee"


def _source_credits() -> float:
    d = json.loads(CLI_DOC.read_text(encoding="utf-8"))
    return sum(m["value"] for t in d["session_state"]["conversation_metadata"]["user_turn_metadatas"]
               for m in t.get("metering_usage") or () if m.get("unit") == "credit")



def test_the_summary_carries_the_recorded_credits(kiro_root):
    want = _source_credits()
    assert round(want, 3) == 0.711
    doc = json.loads(asz_in_process("conversation", CLI_ID, "--json", "--root", str(kiro_root)).stdout)
    s = doc["summary"]
    assert s["credits"] == round(want, 6)
    assert s["cost"]["usd"] == 0 and not any(s["usage"].values())  # never mixed into tokens or USD
    others = [c for c in json.loads(asz_in_process("ls", "--json", "--root", str(kiro_root)).stdout) if c["id"] != CLI_ID]
    for row in others:  # the 3.x session records no credits: no key
        assert "credits" not in json.loads(asz_in_process("conversation", row["id"], "--json", "--root", str(kiro_root)).stdout)["summary"]


def test_conversation_and_export_say_the_credits(kiro_root):
    line = f"credits {_source_credits():.3f} (what the runtime metered, in its own unit: not tokens, not USD)"
    out = asz_in_process("conversation", CLI_ID[:8], "--root", str(kiro_root)).stdout.splitlines()
    assert line in out and "cost - (no tokens to price)" in out
    md = asz_in_process("export", CLI_ID[:8], "--root", str(kiro_root), "--format", "md").stdout
    assert f"- {line}" in md


def test_ls_rows_carry_them_and_the_table_says_them(kiro_root):
    want = _source_credits()
    rows = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(kiro_root)).stdout)}
    assert rows[CLI_ID]["credits"] == round(want, 6)
    assert all(r["credits"] is None for cid, r in rows.items() if cid != CLI_ID)
    out = asz_in_process("ls", "--root", str(kiro_root)).stdout.splitlines()
    assert (f"credits (what the runtime metered, in its own unit: not tokens, not USD): {CLI_ID[:8]} {want:.3f}") in out
