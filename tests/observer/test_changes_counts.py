"""Workspace change counts of ``asz ls --json`` against a count made straight from the corpus .jsonl (trial 3, F17).

The count here never calls asz: per session, every tool result whose ``toolUseResult`` names the file an Edit,
MultiEdit, Write or NotebookEdit wrote is one change; its lines added and removed are the ``+`` and ``-`` lines of
the runtime's ``structuredPatch`` (a file created with no patch: every line of its content is added). A result that
returned (no ``is_error``) with no ``toolUseResult`` object (a subagent's: its transcript carries none) is not
derived: ``changes_not_derived`` counts it, so a reader is never told 0 for edits asz cannot describe.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

EDITORS = ("Edit", "MultiEdit", "Write", "NotebookEdit")


def source_counts(projects: Path) -> tuple[dict[str, list[int]], Counter]:
    """``{session: [changes, added, removed, not derived]}`` and the changes per tool name, from the source transcripts
    alone."""
    out: dict[str, list[int]] = {}
    per_tool: Counter = Counter()
    for f in sorted(projects.rglob("*.jsonl")):
        uses: dict[str, str] = {}
        for raw in f.read_bytes().split(b"\n"):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            msg = line.get("message") if isinstance(line, dict) else None
            content = msg.get("content") if isinstance(msg, dict) else None
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use" and block.get("name") in EDITORS:
                    uses[block["id"]] = block["name"]
                tur = line.get("toolUseResult")
                if block.get("type") != "tool_result" or block.get("tool_use_id") not in uses:
                    continue
                row = out.setdefault(line["sessionId"], [0, 0, 0, 0])
                if not isinstance(tur, dict):
                    row[3] += 0 if block.get("is_error") else 1
                    continue
                patch = tur.get("structuredPatch") or []
                lines = [ln for h in patch for ln in h["lines"]]
                if patch:
                    add, rem = sum(ln.startswith("+") for ln in lines), sum(ln.startswith("-") for ln in lines)
                else:
                    add, rem = len(tur["content"].splitlines()), 0
                row[0], row[1], row[2] = row[0] + 1, row[1] + add, row[2] + rem
                per_tool[uses[block["tool_use_id"]]] += 1
    return out, per_tool


def test_ls_counts_every_edit_multiedit_and_write(corpus_dir: Path, corpus_collected: Path) -> None:
    """Every session's changes, lines and edits not derived in ``asz ls --json`` equal the source count, MultiEdit
    results included."""
    expected, per_tool = source_counts(corpus_dir / "claude-code" / "projects")
    assert per_tool["MultiEdit"] == 5 and sum(per_tool.values()) == 92  # the corpus's successful editing results
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "ls", "--json", "--root", str(corpus_collected)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = {r["id"]: r for r in json.loads(p.stdout)}
    keys = ("changes", "lines_added", "lines_removed", "changes_not_derived")
    got = {sid: [rows[sid][k] for k in keys] for sid in expected}
    assert got == expected
    assert sum(v[3] for v in expected.values()) == 14  # one session's subagents: 14 edits and writes, no toolUseResult
    # a session with no editing result says 0, not unknown
    assert all(r["changes"] == 0 and r["changes_not_derived"] == 0 for sid, r in rows.items() if sid not in expected)


def _asz(root: Path, *args: str) -> str:
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args, "--root", str(root)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_ls_text_and_the_document_show_the_edits_not_derived(corpus_dir: Path, corpus_collected: Path) -> None:
    """``asz ls`` shows each conversation's changes with ``(+N)`` for those not derived and a line saying what N is;
    the document's summary carries ``changes_not_derived`` (only when above 0), which the page's chip and Changes tab
    show: all equal to the source count."""
    expected, _ = source_counts(corpus_dir / "claude-code" / "projects")
    out = _asz(corpus_collected, "ls")
    lines = out.splitlines()
    cell = re.compile(r"  +([\d,]+(?: \(\+[\d,]+\))?) +\S+ +\S+ +\S+ +\S+(?: !)?$")  # CHANGES, then TOKENS, COST, RUNTIME, STATE
    for sid, (changes, _, _, nd) in expected.items():
        [row] = [ln for ln in lines if ln.startswith(sid[:8])]
        assert cell.search(row).group(1) == (f"{changes:,} (+{nd:,})" if nd else f"{changes:,}"), row
    total = sum(v[3] for v in expected.values())
    with_nd = sum(1 for v in expected.values() if v[3])
    assert (f"(+N) in CHANGES: {total:,} editing tool call(s) in {with_nd} conversation(s) returned with no changes record, "
            "so what they changed is not derived and not in the count (a Claude Code subagent's edits, Kiro's file writes)") in lines
    from asz_core.view import build_view

    for sid, (changes, _, _, nd) in expected.items():
        s = build_view(corpus_collected, sid)["summary"]
        assert s["changes"] == changes and s.get("changes_not_derived") == (nd or None), sid
