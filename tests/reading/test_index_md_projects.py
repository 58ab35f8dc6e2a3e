"""index.md is grouped by project as index.html is (trial 37a F6: on GitHub the md folder export was one flat table
with only a grand total): a list of the projects, each linking its section by the anchor GitHub gives its heading,
each section a ``##`` heading, its totals (``asz usage project``'s figures, the dates it was active between, its
spans summed: F8) and its table; the whole export's total ends the page.

Real input: the corpus collected (tests/conftest.py). Expected figures from ``asz usage project --json`` and ``asz ls
--json``; the headings read back with markdown-it-py (a CommonMark reader) and slugged by GitHub's rule written here
(lower case; every character but a word character, ``-`` and a space removed; a space as ``-``)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from markdown_it import MarkdownIt

from reading_helpers import asz, asz_json

from asz_core.sessiondata.times import format_duration


def _slug(text: str) -> str:
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def test_index_md_has_a_section_per_project_linked_by_github_anchors(corpus_root, tmp_path):
    out = tmp_path / "md"
    asz("export", "--since", "2000-01-01", "--tz", "UTC", "--out", str(out), "--root", str(corpus_root))
    text = (out / "index.md").read_text(encoding="utf-8")
    rows = asz_json("ls", "--json", "--root", str(corpus_root))
    usage = {u["project"]: u for u in asz_json("usage", "project", "--json", "--root", str(corpus_root))}
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert len(headings) == len(usage) == 9
    anchors = re.findall(r"^- \[[^\n]*?\]\(#([^)]+)\): ", text, re.M)
    assert anchors == [_slug(h) for h in headings]  # each list entry links its section, in order
    sections = text.split("\n## ")[1:]
    for heading, section in zip(headings, sections):
        project = next(p for p in usage if p.endswith(heading.lstrip("-")) or p == heading)
        mine = [r for r in rows if r["project"] == project]
        u = usage[project]
        total = sum(u["usage"][k] for k in ("in", "out", "cache_read", "cache_write"))
        spans = format_duration(sum(r["to"] - r["from"] for r in mine) // 1000)
        want = (f"{u['conversations']} conversation(s): {total:,} tokens, ${u['cost']['usd']:,.2f} · active "
                f"{_when(min(r['from'] for r in mine))} to {_when(max(r['to'] for r in mine))} · spans summed {spans}")
        assert section.split("\n\n")[1] == want, heading
        ids = re.findall(r"\[([0-9a-f-]{36})\.md\]", section)
        assert sorted(ids) == sorted(r["id"] for r in mine), heading
    assert text.rstrip("\n").splitlines()[-1].startswith("11 conversation(s): ")
