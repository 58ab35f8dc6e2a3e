"""A person's words and what the runtime put in them show as written in the html export (trial 36c F1): Markdown
took one backslash of ``\\\\wsl.localhost`` and every backslash before ``_ * [ #``, so a Windows path in a prompt or
an ``<ide_selection>`` read wrong in the evidence. Now they are escaped text with their line breaks kept (render 8);
the agent's replies stay Markdown. The md export's head lines, talk headings and index cells double their
backslashes so a Markdown viewer shows the path as written; its texts stay as written. ``asz verify --export`` still
proves both copies, and a copy of render 7 (Markdown) still checks.

Real input: the corpus's cb2e607c made Windows-shaped by the test (tests/windows_shaped.py): its project the UNC path
of a WSL folder, CRLF line ends, one prompt typed with Windows paths appended. Expected texts are the copy's own."""

from __future__ import annotations

import html
import json
import re

import pytest

from reading_helpers import asz
from windows_shaped import SELECTED, SESSION, TYPED, UNC, wsl_copy


@pytest.fixture(scope="module")
def root(corpus_projects, tmp_path_factory):
    base = tmp_path_factory.mktemp("said")
    wsl_copy(corpus_projects, base / "projects")
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def _said(page: str) -> list[str]:
    """The texts of the page's ``<div class="said">`` blocks, unescaped."""
    return [html.unescape(m) for m in re.findall(r'<div class="said">(.*?)</div>', page, re.S)]


def test_html_draws_a_persons_words_as_written(root, tmp_path):
    out = tmp_path / "c.html"
    asz("export", SESSION[:8], "--format", "html", "--out", str(out), "--root", str(root))
    page = out.read_bytes().decode("utf-8")  # its CRs as written
    said = _said(page)
    assert TYPED in said  # the whole prompt, every backslash, its CRLF and the backticks as typed
    assert any(s.startswith("<ide_selection>" + SELECTED) for s in said)  # injected by the IDE: as written
    opened = [s for s in said if s.startswith("<ide_opened_file>")]
    assert opened and all(UNC + "\\" in s for s in opened)
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert not re.search(r"(?<!\\)\\wsl\.localhost", text)  # never one backslash before it (5 places per page before)
    # the agent's reply is still Markdown: its code spans drawn as code
    assert '<div class="step assistant"' in page and "<code>uv</code>" in page


def test_md_heads_show_a_windows_path_as_written(root, tmp_path):
    from markdown_it import MarkdownIt

    out = tmp_path / "c.md"
    asz("export", SESSION[:8], "--format", "md", "--out", str(out), "--root", str(root))
    md = out.read_bytes().decode("utf-8")
    head = next(x for x in md.splitlines() if x.startswith("- project "))
    shown = re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").render(head)).strip()
    assert html.unescape(shown).startswith(f"project {UNC} on branch")  # a viewer shows it as written
    # Talk 6 (the interrupt notice before it is the runtime's, in the talk it interrupted: trial 43c F1)
    talk = next(x for x in md.splitlines() if x.startswith("## Talk 6: "))
    shown = html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").render(talk))).strip()
    assert shown.startswith("Talk 6: " + TYPED.split("`")[0][:60])  # the heading's cut label, as typed
    assert TYPED in md  # the text itself as written (evidence), its CRLF too
    ok = asz("verify", "--export", str(out), "--root", str(root), check=False)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout


def test_md_index_cells_show_the_path_as_written(root, tmp_path):
    from markdown_it import MarkdownIt

    out = tmp_path / "folder"
    asz("export", "--project", "wsl.localhost", "--format", "md", "--out", str(out), "--root", str(root))
    index = (out / "index.md").read_text(encoding="utf-8")
    cells = html.unescape(MarkdownIt("commonmark").enable("table").render(index))
    assert f"<td>{UNC}</td>" in cells


@pytest.mark.parametrize("form", ["html", "md"])
def test_a_render_7_copy_still_checks(root, tmp_path, form):
    """Render 7 drew a prompt as Markdown and the head's backslashes single: such a copy is made again as it was
    drawn and checks; the same bytes said to be render 8 do not, and neither does the render-8 copy said to be 7."""
    from asz_core.reading.export_manifest import line_digests
    from asz_core.reading.export_render import RENDER, drawing

    old, now = tmp_path / f"old.{form}", tmp_path / f"now.{form}"
    with drawing(7):
        asz("export", SESSION[:8], "--format", form, "--out", str(old), "--root", str(root))
    asz("export", SESSION[:8], "--format", form, "--out", str(now), "--root", str(root))
    assert old.read_bytes() != now.read_bytes()
    for copy, render, code in ((old, 7, 0), (old, 8, 1), (now, 7, 1), (now, RENDER, 0)):  # now: this asz's own render
        body = json.loads(copy.with_name(copy.name + ".manifest.json").read_bytes())
        data = copy.read_bytes()
        body["render"] = render
        body["export"] = {**body["export"], "sha256": __import__("hashlib").sha256(data).hexdigest(),
                          "lines": line_digests(data)}
        copy.with_name(copy.name + ".manifest.json").write_text(json.dumps(body))
        res = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        assert res.returncode == code, (copy.name, render, res.stdout)
