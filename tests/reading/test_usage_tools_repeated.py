"""``asz usage tools`` says how many of the tool calls it counts carry a tool use id another conversation holds too
(trial 48d F4: over 25 copies of the corpus it read 15,715 calls, Bash 5,225, for 209 distinct tool use ids, and said
nothing, where ``asz usage`` says it counts the model calls that asked for them once). The calls stay counted in each
conversation holding them (docs/view.md, One provider call, one count, "Tool calls": a tool use id alone repeats in
sessions that are not copies, Kiro IDE's anonymised ones; trial 34a F2 counted an id once over the root and 4,510
calls read 25); the note and ``--json``'s ``repeated_ids`` say how many.

Real input, collected by the real ``asz collect``: the corpus's 326189cf (A) and a copy B of every line under a new
session id and new record uuids, keeping the content, so each ``tool_use`` id is in both. Counts are made here from
A's file: the distinct ``tool_use`` ids of its assistant lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from same_calls_roots import A, B, COPIED_DIR, copied  # noqa: E402


def _tool_ids(lines: list[str]) -> dict[str, str]:
    """``{tool use id: tool name}`` of the ``tool_use`` blocks of the assistant lines."""
    out = {}
    for ln in lines:
        d = json.loads(ln)
        m = d.get("message") or {}
        if d.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("content"), list):
            out.update({b["id"]: b["name"] for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"})
    return out


@pytest.fixture(scope="module")
def copied_root(corpus_source, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("tools-repeated")
    lines = (corpus_source / COPIED_DIR / f"{A}.jsonl").read_text(encoding="utf-8").splitlines()
    (base / "projects" / COPIED_DIR).mkdir(parents=True)
    (base / "projects" / COPIED_DIR / f"{A}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (base / "projects" / COPIED_DIR / f"{B}.jsonl").write_text("\n".join(copied(lines, B)) + "\n", encoding="utf-8")
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    ids = _tool_ids(lines)
    assert len(ids) == 14 and _tool_ids(copied(lines, B)) == ids  # the premise: the copy holds A's 14 tool use ids
    return root, ids


def test_the_copys_tool_calls_are_counted_in_each_and_said(copied_root):
    root, ids = copied_root
    doc = json.loads(asz("usage", "tools", "--json", "--root", str(root)).stdout)
    assert doc["total"]["calls"] == 2 * len(ids)  # counted in each conversation holding them, as before
    bash = sum(1 for n in ids.values() if n == "Bash")
    assert {r["tool"]: r["calls"] for r in doc["tools"]}["Bash"] == 2 * bash
    assert doc["repeated_ids"] == {"calls": len(ids), "ids": len(ids)}
    table = asz("usage", "tools", "--root", str(root)).stdout
    assert (f"{len(ids):,} of the {2 * len(ids):,} tool call(s) carry a tool use id a conversation counted before "
            f"holds too ({len(ids):,} id(s)): a copied or forked session's calls, counted in each conversation") in table


def test_one_conversation_repeats_nothing(copied_root):
    root, ids = copied_root
    doc = json.loads(asz("usage", "tools", "--json", "--conversation", A, "--root", str(root)).stdout)
    assert doc["total"]["calls"] == len(ids) and doc["repeated_ids"] == {"calls": 0, "ids": 0}
    assert "carry a tool use id" not in asz("usage", "tools", "--conversation", A, "--root", str(root)).stdout
