"""A tool's ``result`` in the JSON export against the ``tool_result`` the model saw, for every call of the corpus
(trial 31b F4: 361 of 29,211 calls had content ``""`` and a ``result`` that was the runtime's ``toolUseResult`` object
as text, nothing saying where it came from).

Seed 004 ("A call's result"): the result is the part's text, or its data when it has no text. So such a node keeps the
object as ``result`` and says ``result_from: "data"`` (docs/view.md, "Keys this version adds"); a node whose result is
the text has no ``result_from``. Counted straight from the source transcripts: every result equal, none left over."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from reading_helpers import asz


def _source_results(source: Path) -> dict[str, tuple[str, object, object]]:
    """``{tool_use_id: (its text items as the model saw them, joined by a newline, the content as written, the line's
    toolUseResult)}`` from every transcript line."""
    out: dict[str, tuple[str, object, object]] = {}
    for f in sorted(source.rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                x = json.loads(line)
            except ValueError:
                continue
            m = x.get("message") if isinstance(x, dict) else None
            if not isinstance(m, dict) or not isinstance(m.get("content"), list):
                continue
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    raw = c = b.get("content", "")
                    if isinstance(c, list):
                        c = "\n".join(p.get("text", "") for p in c if isinstance(p, dict) and p.get("type") == "text")
                    out.setdefault(b["tool_use_id"], (c or "", raw, x.get("toolUseResult")))
    return out


def _tool_nodes(node, out: list) -> None:
    if isinstance(node, dict):
        if node.get("kind") in ("tool", "agent.call"):
            out.append(node)
        for c in node.get("children") or ():
            _tool_nodes(c, out)


def test_every_result_is_what_the_model_saw_or_says_it_is_the_data(corpus_source, corpus_root, tmp_path):
    src = _source_results(corpus_source)
    out = tmp_path / "exp"
    asz("export", "--since", "2000-01-01", "--format", "json", "--whole", "--out", str(out), "--root", str(corpus_root))
    seen, expected = Counter(), Counter()
    for f in sorted(out.glob("*.json")):
        if f.name == "index.json" or f.name.endswith(".manifest.json"):
            continue
        doc = json.loads(f.read_text(encoding="utf-8"))
        nodes: list = []
        for t in [*doc.get("talks", ()), *doc.get("loose", ())]:
            _tool_nodes(t, nodes)
        for n in nodes:
            tid = n["id"].split("/", 1)[1]
            if tid not in src or n.get("result_state") != "available":
                continue
            content, raw, tur = src[tid]
            # what the source says this call's result is, decided from the transcript alone
            expected["text" if content else "data: toolUseResult" if isinstance(tur, (dict, list)) and tur
                     else "data: content not text" if isinstance(raw, list) and raw else "empty"] += 1
            if n.get("result_from") == "data":
                assert content == "", (f.name, n["id"])  # the model was given no text
                data = json.loads(n["result"])
                # the runtime's object as its line holds it, else content that is not text (a tool_reference list)
                assert data == (tur if tur is not None else raw), (f.name, n["id"])
                seen["data: toolUseResult" if tur is not None else "data: content not text"] += 1
            else:
                assert "result_from" not in n
                assert n.get("result", "") == content, (f.name, n["id"], n.get("result", "")[:80], content[:80])
                seen["empty" if content == "" else "text"] += 1
    assert seen == expected  # every call of the corpus with a landed result, class by class
    assert sum(seen.values()) == 628 and seen["data: toolUseResult"] == 15 and seen["empty"] == 3, seen
