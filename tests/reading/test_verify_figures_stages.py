"""``asz verify --figures`` tells its progress through the tool calls it reads again, not only the figures, and its
line says the total plain ``asz verify`` counts (trial 49d F4: no line for 36 s after ``figures: 197 of 275``, and
``checked 551 … and the cached tool calls of 275`` against plain verify's ``826 cached figure entries``).

Real input: the Claude Code corpus collected by the real ``asz collect --once`` into this test's own root, whose pass
keeps each conversation's list row, usage summary and tool calls; the entries are counted straight from the store
with sqlite3 and the conversations from ``_conversations/``.
"""

from __future__ import annotations

import re
import sqlite3

from reading_helpers import asz


def test_figures_tell_the_tool_calls_stage_and_the_total_plain_verify_counts(corpus_projects, tmp_path, monkeypatch):
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(corpus_projects), "--root", str(root))
    n = sum(1 for p in (root / "_conversations").iterdir() if p.is_dir())
    with sqlite3.connect(root / "_index" / "summaries.sqlite") as con:
        rows, summaries, tools = (con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("rows", "summaries", "tools"))
    assert n == 11 and (rows, summaries, tools) == (n, n, n)
    plain = asz("verify", "--root", str(root)).stdout
    assert f"{rows + summaries + tools} cached figure entries (_index/summaries.sqlite) not counted again" in plain
    monkeypatch.setenv("ASZ_PROGRESS_AFTER", "0")
    monkeypatch.setenv("ASZ_PROGRESS_EVERY", "0")  # a line at every step
    p = asz("verify", "--figures", "--root", str(root))
    assert (f"checked {rows + summaries + tools} cached figure entries of {n} conversation(s) against the evidence "
            f"({rows + summaries} list row(s) and usage summaries, and the cached tool calls of {tools} conversation(s) "
            "(asz usage tools))") in p.stdout
    said = p.stderr.splitlines()
    stages = [m.group(1, 2, 3) for m in (re.match(r"(figures|tool calls): (\d+) of (\d+) conversation", s) for s in said) if m]
    assert ("figures", str(n), str(n)) in stages and ("tool calls", str(tools), str(tools)) in stages, said
    assert [s[0] for s in stages].index("tool calls") > [s[0] for s in stages].index("figures")
