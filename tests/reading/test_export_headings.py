"""``asz export --format md|html``: a reply's own headings nest under the export's talk headings. The export heads
the conversation with ``#`` and each talk with ``##``; a reply written as ``## Key Findings`` stood beside ``## Talk 3:
…`` in the document's outline. Now each text's headings move down together, the shallowest to ``###``, their own
nesting kept. Expected values are read from the corpus's source files: the Explore subagent of 8463c716
(``subagents/agent-a7be2f0.jsonl``) ends with a report headed ``## Key Findings`` and ``### 1. …``."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt

from reading_helpers import asz, source_lines

SPOTTER = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
AGENT_SRC = "-home-user-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl"


def _report(corpus_source: Path) -> str:
    """The subagent's last assistant text (its report)."""
    texts = [b["text"] for d in source_lines(corpus_source / AGENT_SRC) if d.get("type") == "assistant"
             for b in d["message"]["content"] if b.get("type") == "text" and b["text"].strip()]
    return texts[-1]


def _headings(md: str) -> list[tuple[int, str]]:
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    return [(int(t.tag[1]), tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]


def test_a_replys_headings_nest_under_its_talk_heading(corpus_root, corpus_source):
    report = _report(corpus_source)
    own = [(len(m.group(1)), m.group(2)) for m in re.finditer(r"^(#{1,6}) (.+)$", report, re.M)]
    assert own[:2] == [(2, "Key Findings"), (3, "1. How `Spotter.Services.Tmux.list_panes/0` Works & Error Handling")]
    md = asz("export", SPOTTER, "--root", str(corpus_root)).stdout
    heads = _headings(md)
    assert heads[0][0] == 1 and [h for h in heads if h[0] == 2] == [h for h in heads if h[1].startswith("Talk ")]
    assert [h for h in heads if h[1].startswith("Talk ")] == [
        (2, "Talk 1: Work on bead spotter-fum. Run bd show spotter-fum to see the issue details and…"),
        (2, "Talk 2: Subagent: compaction"), (2, "Talk 3: Subagent: Explore Tmux module and test setup")]
    talk3 = [h for h in heads[heads.index((2, "Talk 3: Subagent: Explore Tmux module and test setup")):]]
    assert talk3[1:1 + len(own)] == [(level + 1, text) for level, text in own]  # one level down each, nesting kept
    assert (2, "Key Findings") not in heads and heads.count((3, "Key Findings")) == 1  # the Task's result keeps it fenced


def test_html_nests_them_too(corpus_root, corpus_source, tmp_path):
    out = tmp_path / "s.html"
    asz("export", SPOTTER, "--format", "html", "--out", str(out), "--root", str(corpus_root))
    page = out.read_text()
    assert page.count("<h3>Key Findings</h3>") == 1 and "<h2>Key Findings</h2>" not in page
    assert "<h4>1. How <code>Spotter.Services.Tmux.list_panes/0</code> Works &amp; Error Handling</h4>" in page


def test_a_heading_in_a_code_block_or_already_deep_stays():
    from asz_core.reading.export_blocks import nested

    assert nested("```\n## not a heading\n```") == "```\n## not a heading\n```"
    assert nested("### Plan\n#### Step") == "### Plan\n#### Step"
    assert nested("# One\n##### Five") == "### One\n###### Five"  # none deeper than six
    assert nested("Title\n=====\n\n> ## quoted") == "### Title\n\n> #### quoted"  # setext read as its level
