"""``asz export --brief`` closes a code fence a text leaves open, as the full md does (trial 49b F1; render 46).

A reply cut short by "[Request interrupted by user]" inside a ```` ```python ```` block left the brief copy's fence
open, so in a CommonMark reader (markdown-it-py here, as GitHub and VS Code read it) everything after it, the talk's
left-out line and every later talk, was one code block: 3 ``## Talk`` headings in the source, 1 rendered. Real input:
the corpus's 5c0375b4 (three talks) with an open fence planted at the end of its first reply and of its first prompt,
collected by ``asz collect --once``; the headings are counted in the source lines and in what markdown-it renders."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from markdown_it import MarkdownIt

from reading_helpers import asz, planted_root

SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
TRANSCRIPT = f"claude-code/projects/-home-user-sample-project/{SID}.jsonl"
REPLY_TAIL = "\n\n```python\ndef f():\n    return 1\n"
PROMPT_TAIL = "\n````\nstill open, four ticks"


def _plant(lines: list[dict]) -> None:
    reply = next(b for o in lines if o.get("type") == "assistant" for b in o["message"]["content"] if b.get("type") == "text")
    reply["text"] += REPLY_TAIL
    prompt = next(o for o in lines if o.get("type") == "user" and isinstance(o["message"].get("content"), str)
                  and not o["message"]["content"].startswith("<"))
    prompt["message"]["content"] += PROMPT_TAIL


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    if not (corpus_dir / TRANSCRIPT).is_file():
        pytest.skip(f"the corpus lacks {TRANSCRIPT}")
    return planted_root(corpus_dir, tmp_path_factory.mktemp("brief-fences"), TRANSCRIPT, _plant)


def _rendered(md: str) -> tuple[list[str], list[str]]:
    """``(talk headings in the source lines, talk headings markdown-it renders as h2)``."""
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    h2 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    return re.findall(r"^## (Talk \d+: .*)$", md, re.M), [h for h in h2 if h.startswith("Talk ")]


def test_every_talk_heading_renders_after_an_open_fence(root, corpus_dir):
    talks = [json.loads(x) for x in (corpus_dir / TRANSCRIPT).read_text().splitlines()]
    assert REPLY_TAIL not in json.dumps(talks)  # planted, not the corpus's own
    md = asz("export", SID[:8], "--brief", "--root", str(root)).stdout
    assert REPLY_TAIL.strip("\n") + "\n```" in md and PROMPT_TAIL + "\n````" in md  # the texts as written, then closed
    source, shown = _rendered(md)
    assert len(source) == 3 and shown == source  # 1 of 3 rendered before render 46
    html = MarkdownIt("commonmark").render(md)
    left = re.findall(r"^\*Left out of this talk: (.*)\*$", md, re.M)
    assert len(left) == 3 and html.count("<p><em>Left out of this talk: ") == 3
    assert html.count("<li>Tool <strong>") == md.count("\n- Tool **")  # every call line a list item, none code
    full = asz("export", SID[:8], "--format", "md", "--root", str(root)).stdout
    assert _rendered(full)[1] == _rendered(full)[0]  # the full md closed them already (render 16)


def test_a_render_45_brief_copy_still_checks(root, tmp_path):
    """A brief copy of render 45 (the fence left open) is made again as it was drawn and checks; the render 46 copy
    checks; the render 45 bytes said to be render 46 do not."""
    from asz_core.reading.export_manifest import line_digests
    from asz_core.reading.export_render import RENDER, drawing

    old, now = tmp_path / "old.md", tmp_path / "now.md"
    with drawing(45):
        asz("export", SID[:8], "--brief", "--out", str(old), "--root", str(root))
    asz("export", SID[:8], "--brief", "--out", str(now), "--root", str(root))
    assert old.read_bytes() != now.read_bytes() and len(_rendered(old.read_text())[1]) < 3
    assert RENDER >= 46
    for copy, render, code in ((old, 45, 0), (old, RENDER, 1), (now, RENDER, 0)):
        manifest = copy.with_name(copy.name + ".manifest.json")
        body, data = json.loads(manifest.read_bytes()), copy.read_bytes()
        body["render"] = render
        body["export"] = {**body["export"], "sha256": hashlib.sha256(data).hexdigest(), "lines": line_digests(data)}
        manifest.write_text(json.dumps(body))
        res = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        assert res.returncode == code, (copy.name, render, res.stdout)
