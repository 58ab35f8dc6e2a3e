"""An md copy's escaped blocks show the typed text, code spans too, and count only what can act (render 10; fix37b).

Render 9 (fix36c) wrote a backslash before each ``<`` and ``[`` of a block holding raw HTML, inside its code spans
too: a typed ```a<b``` came out ```a\\<b```, and a Markdown viewer shows a code span's backslash. It also counted
every tag as active content, so a prompt's placeholder (``<number>``) or a runtime's markup tag
(``<command-name>``) put the warning line on ordinary conversations. Render 10 leaves code spans as they are and
counts only raw HTML that can act (a script, an image, an element with an attribute), escaping the rest all the same
so a viewer shows it.

The measure: a person's text rendered by markdown-it-py as a permissive viewer reads the md copy (raw HTML on,
every link scheme kept) shows what a viewer that renders no raw HTML shows of the typed text (markdown-it-py with
``html`` off): plain text, code spans and fences alike, over every typed prompt of the corpus's Claude Code
transcripts and hostile variants (none of which holds a link, which an escaped block writes as its characters).
Render 9 fails that on 90 of the 173 (each block holding a tag and a code span: a backslash in the code span).
"""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import html
import json
import re

import orjson
import pytest
from markdown_it import MarkdownIt

from cli_helpers import asz_in_process
from reading_helpers import checks_as_render, planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
#: Hostile texts: raw HTML beside code spans and fences that hold the same characters, placeholders that are no tags.
HOSTILE = (
    "keep `a<b` and <script>x</script>",
    "`Vec<String>` <img src=x onerror=alert(1)>",
    "see <number> or <3> or < 5 and `<div>`",
    "<div>\n`a<b>` and\n</div>",
    "``a`<b`` <iframe src=//x>",
    "```\n<script>\n```\n<b onclick=x>t</b>",
    "| a | `<i>` |\n| - | - |\n| <svg onload=x> | `[x](y)` |",
    "<script>\n\n`x<y` here\n\n</script>",
    "\\`<i>x</i>` and `` a`<b `` and `[a](javascript:b)`",
)
#: Appended to each corpus prompt for a variant: a code span and a script in one block.
TAIL = "\n\n`a<b>` <script>s</script>"


def _viewer(raw: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": raw}).enable("table")
    md.validateLink = lambda url: True  # a viewer that keeps every link, javascript: too
    return md


def _shown(md: str, raw: bool = True) -> str:
    """The text a viewer shows of ``md``: its rendering with every tag taken out and every entity read."""
    return html.unescape(re.sub(r"<[^>]+>", "", _viewer(raw).render(md)))


def _prompts(corpus_dir) -> list[str]:
    """Every typed text of a user line of the corpus's Claude Code transcripts, in file order."""
    out = []
    for f in sorted((corpus_dir / "claude-code").rglob("*.jsonl")):
        for line in f.read_bytes().splitlines():
            try:
                d = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            c = (d.get("message") or {}).get("content") if d.get("type") == "user" else None
            out += [c] if isinstance(c, str) else [x["text"] for x in c or () if isinstance(x, dict)
                                                    and x.get("type") == "text" and x.get("text")]
    return out


def test_escaped_blocks_show_the_typed_text(corpus_dir):
    from asz_core.reading.export_render import drawing
    from asz_core.reading.md_active import neutralised

    prompts = _prompts(corpus_dir)
    assert len(prompts) >= 80  # 82 typed texts in the corpus today
    texts = [*prompts, *HOSTILE, *(p + TAIL for p in prompts)]
    differ = [t for t in texts if _shown(neutralised(t)[0]) != _shown(t, raw=False)]
    assert differ == []
    for t in texts:  # and nothing a viewer runs is left (no raw HTML at all)
        assert not any(tok.type == "html_block" or any(c.type == "html_inline" for c in tok.children or ())
                       for tok in _viewer(True).parse(neutralised(t)[0])), t
    with drawing(9):  # render 9 showed a code span's backslash
        assert sum(_shown(neutralised(t)[0]) != _shown(t, raw=False) for t in texts) >= 90  # of 173 (the blocks with a tag and a code span)


def test_only_what_can_act_is_counted(corpus_dir):
    from asz_core.reading.md_active import neutralised

    assert neutralised("see <number> or <3> or < 5")[1] == {}
    assert neutralised("see <number> or <3> or < 5")[0] == "see \\<number> or <3> or < 5"
    assert neutralised("<command-name>/model</command-name>")[1] == {}
    assert neutralised("a <b>bold</b> and <summary>s</summary>")[1] == {}
    assert neutralised("<x onclick=alert(1)>t</x> <script>s</script> <a href=y>l</a>")[1] == {"raw HTML": 3}
    assert neutralised("<div>\n<number>\n</div>")[1] == {}
    assert neutralised("<div>\n<img src=x>\n</div>")[1] == {"raw HTML": 1}
    with_tags = [t for t in _prompts(corpus_dir) if re.search(r"<[a-z][a-z-]*>", t)]
    assert len(with_tags) >= 10 and all(neutralised(t)[1] == {} for t in with_tags)  # placeholders, runtime markup


def _plant(lines: list[dict]) -> None:
    msgs = [o for o in lines if isinstance(o.get("message"), dict)]
    prompt = next(o for o in msgs if o["message"].get("role") == "user" and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] = "Fix `a<b` in <number> files\n\n" + "\n\n".join(HOSTILE)


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("md-code-spans"), TRANSCRIPT, _plant)


def test_the_export_shows_code_as_typed_and_old_copies_check(root, tmp_path):
    from asz_core.reading.export_render import drawing

    out = tmp_path / "now.md"
    p = asz_in_process("export", "de3b8b19", "--root", str(root), "--format", "md", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    data = out.read_text(encoding="utf-8")
    rendered = _viewer(True).render(data)
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", rendered)]
    for typed in ("a<b", "Vec<String>", "<div>", "a<b>", "a`<b", "<i>", "[x](y)", "x<y", "[a](javascript:b)"):
        assert typed in codes, typed  # render 9: a\<b, Vec\<String>, \<div>, …
    assert not any("\\<" in c or "\\[" in c for c in codes)
    shown = _shown(data)
    assert "Fix a<b in <number> files" in shown and "<script>x</script>" in shown and "<svg onload=x>" in shown
    warning = next(x for x in data.split("\n") if x.startswith("- **warning: active content:** "))
    # the prompt's script, img, iframe, b onclick, svg and script block, and the script of its first words again in the
    # title and the talk heading: no placeholder, no <b>/<i>/<div> with no attribute, nothing inside code
    assert warning.startswith("- **warning: active content:** this file's texts hold raw HTML 8, each written escaped")
    body = json.loads((tmp_path / "now.md.manifest.json").read_bytes())
    assert body["render"] == RENDER
    ok = asz_in_process("verify", "--export", str(out), "--root", str(root))
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    old = tmp_path / "old.md"
    with drawing(9):  # the copy render 9 made: the backslashes in the code spans, every tag counted
        assert asz_in_process("export", "de3b8b19", "--root", str(root), "--format", "md", "--out", str(old)).returncode == 0
    assert "`a\\<b`" in old.read_text(encoding="utf-8")
    checks_as_render(old, root, 9, 10)


def test_index_md_shows_a_title_s_code_as_typed(root, tmp_path):
    """index.md's title cell (the first prompt's start) keeps its code span as typed too, and runs nothing."""
    p = asz_in_process("export", "--since", "2000-01-01", "--root", str(root), "--format", "md", "--out", f"{tmp_path / 'all'}/")
    assert p.returncode == 0, p.stdout + p.stderr
    index = (tmp_path / "all" / "index.md").read_text(encoding="utf-8")
    rendered = _viewer(True).render(index)
    assert "<td>Fix <code>a&lt;b</code> in &lt;number&gt; files" in rendered, rendered
    assert not any(tok.type == "html_block" or any(c.type == "html_inline" for c in tok.children or ())
                   for tok in _viewer(True).parse(index))
