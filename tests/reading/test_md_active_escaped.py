"""A Markdown export runs nothing in a viewer: its raw HTML, script and data links and remote images are written
escaped, never removed (render 9; trial 34c F10, which fix35a left as a warning only).

Before, the md export wrote a hostile transcript's ``<script>``, ``<iframe>``, ``<div onmouseover=…>``,
``[x](javascript:…)``, autolinks and ``![](http://tracker)`` as Markdown, and a previewer that renders raw HTML (or
does not refuse ``javascript:``) ran them; only a line at the top said so. Now each block holding such a place has a
backslash before each ``<`` that opens HTML and each ``[`` (``\\<script>``): the viewer shows the characters, and the
text reads as written. Checked with markdown-it-py as a permissive viewer reads Markdown (raw HTML on, every link
scheme kept: markdown-it's own check would refuse ``javascript:``, another viewer's may not): no HTML, no running link
and no remote image survives, in the head, the texts, a table cell or ``index.md``; every payload is still in the
rendered text, and the copy checks (``asz verify --export``), as does one made at render 8.

Real input: the corpus's de3b8b19 with hostile Markdown planted in its first prompt (the title), its first reply, its
cwd and its branch, collected by the real ``asz collect``.
"""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from cli_helpers import asz_in_process
from reading_helpers import checks_as_render, plant_heads, planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
#: Each payload a viewer would run or fetch, on its own line of a prompt (between paragraphs of plain text).
PAYLOADS = (
    "<script>document.title='PWNED-1'</script>",
    "a <img src=x onerror=\"document.title='PWNED-2'\"> inline",
    "[clickme](javascript:document.title='PWNED-3')",
    "[entity](java&#115;cript:alert('PWNED-4'))",
    "<javascript:alert('PWNED-5')>",
    "![pixel](http://127.0.0.1:9/PWNED-6.gif)",
    "[data PWNED-7](data:text/html;base64,PHNjcmlwdD5QV05FRC03PC9zY3JpcHQ+)",
    "<div onmouseover=\"document.title='PWNED-8'\">\n\nhover me\n\n</div>",
    "<details open ontoggle=\"document.title='PWNED-9'\"><summary>x</summary></details>",
    "\\\\<svg/onload=alert('PWNED-10')>",
    "| cell | other |\n| --- | --- |\n| <iframe src=\"http://127.0.0.1:9/PWNED-11\"></iframe> | b |",
    "[ref]\n\n[ref]: javascript:alert('PWNED-12')",
    "<!-- PWNED-13 --><a href=\"javascript:alert(1)\">PWNED-14</a>",
)
#: Text that is no active content: a code span and a fenced block keep their characters as they are.
CODE = "keep `Vec<String>` and\n\n```html\n<script>kept-as-code</script>\n```"


def _plant(lines: list[dict]) -> None:
    msgs = [o for o in lines if isinstance(o.get("message"), dict)]
    prompt = next(o for o in msgs if o["message"].get("role") == "user" and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] = "<b>PWNED-T</b> title\n\n" + "\n\n".join(PAYLOADS) + "\n\n" + CODE
    reply = next(o for o in msgs if o["message"].get("role") == "assistant"
                 and any(isinstance(c, dict) and c.get("type") == "text" for c in o["message"].get("content") or ()))
    text = next(c for c in reply["message"]["content"] if isinstance(c, dict) and c.get("type") == "text")
    text["text"] = "Done: [see](javascript:alert('PWNED-R'))\n\n" + text["text"]
    plant_heads(lines, "/srv/<script>PWNED-C</script>", "[b](javascript:alert('PWNED-B'))")


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("md-active"), TRANSCRIPT, _plant)


def _viewer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    md.validateLink = lambda url: True  # a viewer that keeps javascript: links
    return md


def _live(md: str) -> list[str]:
    """What a permissive viewer would run or fetch in ``md``: raw HTML, links to a javascript:/data:/vbscript:/file:
    URI, images (any: each fetches or embeds)."""
    found = []
    for tok in _viewer().parse(md):
        if tok.type == "html_block":
            found.append(tok.content)
        for c in tok.children or ():
            href = (c.attrGet("href") or c.attrGet("src") or "").lower().replace("%09", "")
            if c.type == "html_inline" or c.type == "image" or (
                    c.type == "link_open" and href.startswith(("javascript", "data", "vbscript", "file"))):
                found.append(f"{c.type} {c.content or href}")
    return found


def _ok(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.mark.parametrize("form", [("md",), ("md", "--brief")])
def test_nothing_active_survives_and_the_text_stays(root, tmp_path, form):
    out = tmp_path / "c.md"
    _ok("export", "de3b8b19", "--root", str(root), "--format", *form, "--out", str(out))
    data = out.read_text(encoding="utf-8")
    assert _live(data) == []  # before: the script, img, div, details, iframe, a, comment; javascript: and data: links
    shown = _viewer().render(data)
    text = shown.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#x27;", "'").replace("&amp;", "&")
    for n in [*range(1, 15), "R", "C", "B", "T"]:  # every payload is still there, as text the viewer shows
        assert f"PWNED-{n}" in text, n
    assert "<script>document.title='PWNED-1'</script>" in text and "[clickme](javascript:document.title='PWNED-3')" in text
    assert "<code>Vec&lt;String&gt;</code>" in shown and "&lt;script&gt;kept-as-code" in shown  # code as it was
    warning = next(x for x in data.split("\n") if x.startswith("- **warning: active content:** "))
    assert "each written escaped" in warning and "runs or fetches nothing" in warning, warning


def test_index_md_cells_run_nothing(root, tmp_path):
    _ok("export", "--since", "2000-01-01", "--root", str(root), "--format", "md", "--out", f"{tmp_path / 'all'}/")
    index = (tmp_path / "all" / "index.md").read_text(encoding="utf-8")
    assert "PWNED-T" in index and "PWNED-C" in index and _live(index) == []
    assert any(t.type == "link_open" for t in _viewer().parseInline(index)[0].children or ()) or "](" in index


def test_the_escaped_copy_and_a_render_8_copy_check(root, tmp_path):
    from asz_core.reading.export_render import drawing

    now = tmp_path / "now.md"
    _ok("export", "de3b8b19", "--root", str(root), "--format", "md", "--out", str(now))
    ok = asz_in_process("verify", "--export", str(now), "--root", str(root))
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    old = tmp_path / "old.md"
    with drawing(8):  # the copy render 8 made: the payloads as the transcript holds them
        _ok("export", "de3b8b19", "--root", str(root), "--format", "md", "--out", str(old))
    assert "<script>document.title='PWNED-1'</script>" in old.read_text() and _live(old.read_text())
    checks_as_render(old, root, 8, 9)
