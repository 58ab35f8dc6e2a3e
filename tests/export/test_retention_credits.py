"""Retention keeps Kiro's metered credits and the model they were metered under (trial 29a F2: after ``asz prune``
``asz usage`` had no credits line, ``total.credits`` was null, the 7 calls read ``(no model)`` and the conversation
said ``models not recorded by the runtime``; docs/push.md says a skeleton keeps usage and models).

Real input: the Kiro corpus (a 2.x CLI session, 8e247382, and a 3.x IDE-layout session), collected by the real
``asz collect --adapter kiro``, pruned by ``asz prune`` (retention ``after: 0``). The credits expected are counted
from the source files: every ``{"unit": "credit", "value"|"usage": N}`` the 2.x document's ``metering_usage`` and
the 3.x ``usage_summary`` lines' ``payload`` lists; the model is the 2.x document's ``model_info.model_id``."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from export_helpers import asz

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"


def _source_credits() -> float:
    """Every credit figure of the two sessions' sources, summed (counted here, not by asz)."""
    total = 0.0
    doc = json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text())
    for turn in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]:
        total += sum(m["value"] for m in turn.get("metering_usage") or () if m.get("unit") == "credit")
    for f in KIRO.glob("sessions/*/sess_*/messages.jsonl"):
        for line in f.read_text().splitlines():
            d = (json.loads(line) if line.strip() else {}).get("payload") or {}
            if d.get("type") == "usage_summary":
                total += sum(s["usage"] for s in d.get("promptTurnSummaries") or () if s.get("unit") == "credit")
    return total


def _model() -> str:
    doc = json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text())
    return doc["session_state"]["rts_model_state"]["model_info"]["model_id"]


def test_kiro_credits_and_model_survive_retention(tmp_path):
    if not KIRO.is_dir():
        import pytest

        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    shutil.copytree(KIRO, tmp_path / "home" / ".kiro")
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(tmp_path / "home" / ".kiro"), "--root", str(root))
    before = json.loads(asz("usage", "--root", str(root), "--json").stdout)
    credits = _source_credits()
    assert credits > 0 and abs(sum(r["credits"] or 0 for r in before) - credits) < 2e-6  # each rounded to 6 decimals
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    skeletons = sorted(root.glob("*/streams/*/*.sk"))
    assert skeletons and not list(root.glob("*/streams/*/*.sd"))
    after = json.loads(asz("usage", "--root", str(root), "--json").stdout)
    assert after == before  # every row: credits, credits_by_model, calls_by_model, tokens
    assert abs(sum(r["credits"] or 0 for r in after) - credits) < 2e-6
    model = _model()
    assert any(model in (r.get("calls_by_model") or {}) for r in after)
    text = asz("usage", "--root", str(root)).stdout
    assert f"total {credits:.3f}" in text
    conv = asz("conversation", V2[:8], "--root", str(root)).stdout
    assert f"models {model}" in conv and "not recorded by the runtime" not in conv
    # what the skeletons keep of the session document is figures, times and ids, no text: its title went
    title = json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text()).get("title") or ""
    prompt = "Do these six steps"
    for sk in skeletons:
        data = gzip.decompress(sk.read_bytes()).decode()
        assert prompt not in data.replace(title, "") if title else prompt not in data
