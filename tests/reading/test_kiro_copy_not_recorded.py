"""One rule for a conversation whose runtime records no token counts (trial 23a, F12/F17): a Kiro conversation that
metered credits says ``tokens not recorded`` and ``cost -`` in ``asz conversation``, on the page's header and in
``asz ls``, as ``asz usage`` does, also when no model call is drawn in it; it read ``tokens in 0 … cost $0.00``.

Real input: the Kiro corpus's CLI 2.x session 8e247382 and a copy of it under another id (the same message ids, as
the trial made), collected by the real ``asz collect`` one after the other: one of the two draws none of the calls
they share (docs/view.md, Links across sessions), and their credits with them: its session document's turn names
only records drawn in the other, so it reads ``no model call is recorded`` and CREDITS ``-``, as a copied Kiro IDE
folder does (docs/reading.md: its credits follow its calls; trial 40a F3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from reading_helpers import asz

KIRO = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "kiro" / "home" / ".kiro"
V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"
COPY = "bbbbbbbb-0000-4000-8000-000000000001"


def test_a_kiro_conversation_with_no_call_drawn_says_not_recorded(tmp_path):
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    home = tmp_path / ".kiro"
    shutil.copytree(KIRO, home)
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    cli = home / "sessions" / "cli"
    for ext in ("jsonl", "json"):
        (cli / f"{COPY}.{ext}").write_text((cli / f"{V2}.{ext}").read_text(encoding="utf-8").replace(V2, COPY), encoding="utf-8")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    doc = json.loads((cli / f"{V2}.json").read_text())
    metered = sum(m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"] for m in t["metering_usage"])
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    both = [rows[V2], rows[COPY]]
    assert sorted(r["llm_calls"] for r in both)[0] == 0  # the premise: one of them draws no call
    for r in both:
        s = json.loads(asz("conversation", r["id"], "--json", "--root", str(root)).stdout)["summary"]
        drawn = r["llm_calls"] > 0  # the copy's credits follow its calls, counted in the other (trial 40a F3)
        assert (s.get("credits") == pytest.approx(metered, abs=1e-6) if drawn else s.get("credits") is None) and s["calls_with_usage"] == 0
        assert r["credits"] == (pytest.approx(metered, abs=1e-6) if drawn else None)
        text = asz("conversation", r["id"], "--root", str(root)).stdout.splitlines()
        said = "the runtime recorded no token counts" if drawn else "no model call is recorded in this conversation"
        assert any(x.startswith(f"tokens not recorded: {said}") for x in text), text
        assert "cost - (no tokens to price)" in text and not any(x.startswith(("tokens in ", "cost $")) for x in text)
        assert r["usage_recorded"] is False
    ls = [ln for ln in asz("ls", "--root", str(root)).stdout.splitlines() if ln.startswith(("8e247382  ", "bbbbbbbb  "))]
    assert len(ls) == 2 and all("$0.00" not in ln and "not recorded" in ln for ln in ls), ls
