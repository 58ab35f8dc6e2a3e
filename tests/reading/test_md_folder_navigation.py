"""A conversation's md in a folder export links back to index.md and lists its talks (trial 37a F6 rest; render 13).

The html pages of a folder export had ``← all conversations`` and ``nav.talks``; the md copies had neither, so on
GitHub a 287 KB conversation of 8 talks (ef958aa1) had no way back and no way in. Now, in a folder export only, the
line under the title links ``index.md`` and a list after the head links each talk's heading by the anchor a Markdown
viewer gives it. A single file's md is drawn as before; a folder copy of render 12 still checks against the root.

Real input: the corpus project -experiments-worktrees (ef958aa1, 8 talks per trial 37a) collected and exported with
``--out DIR/``; the talks counted from the copy's own ``## Talk`` headings, the anchors made here from each heading as
markdown-it-py renders it."""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import html
import json
import re

import pytest
from markdown_it import MarkdownIt

from reading_helpers import as_copy, asz, collected_project

PROJECT = "-experiments-worktrees"
SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
BACK = "- [← all conversations (the index)](index.md)"


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory):
    return collected_project(corpus_source, tmp_path_factory.mktemp("md-nav"), PROJECT)


@pytest.fixture(scope="module")
def folder(root, tmp_path_factory):
    out = tmp_path_factory.mktemp("md-nav-out") / "ex"
    asz("export", "--project", "worktrees", "--format", "md", "--result-limit", "0", "--out", f"{out}/", "--root", str(root))
    return out  # every result whole, as render 12 drew it (the cut of render 50 is test_export_result_cut's)


def _anchor(heading: str) -> str:
    """The id GitHub gives a heading: its rendered text, lower-cased, punctuation but ``-`` and ``_`` gone, spaces ``-``."""
    text = html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").renderInline(heading)))
    return "#" + re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def test_the_md_links_back_to_the_index_and_lists_every_talk(folder):
    copy = folder / f"{SID}.md"
    text = copy.read_text(encoding="utf-8")
    lines = text.split("\n")
    assert (folder / "index.md").is_file() and f"({SID}.md)" in (folder / "index.md").read_text()
    assert lines[0].startswith("# ") and BACK in lines[:5]
    headings = [x[3:] for x in lines if x.startswith("## Talk ")]
    assert len(headings) == 8  # trial 37a: ef958aa1 has 8 talks
    at = lines.index("**Talks**")
    listed = [x for x in lines[at + 2:at + 2 + len(headings)]]
    assert lines[at + 2 + len(headings)] == ""  # the list ends where the talks begin
    assert at < lines.index("## " + headings[0])
    for n, (item, heading) in enumerate(zip(listed, headings), 1):
        m = re.fullmatch(r"- \[Talk (\d+)\]\((#[^)]+)\): (.*) · \*([0-9: -]+)\*", item)
        assert m, item
        assert int(m.group(1)) == n and m.group(2) == _anchor(heading)
        assert heading == f"Talk {n}: {m.group(3)}"
    # every link the list holds resolves to a heading of the copy, as a viewer renders it
    ids = {_anchor(x[3:]) for x in lines if x.startswith("## ")}
    assert {re.search(r"\((#[^)]+)\)", x).group(1) for x in listed} <= ids
    body = json.loads((folder / f"{SID}.md.manifest.json").read_bytes())
    assert body["render"] == RENDER and body["made"]["index"] == "index.md"


def test_a_single_files_md_has_neither(root, tmp_path):
    out = tmp_path / "one.md"
    asz("export", SID[:8], "--format", "md", "--out", str(out), "--root", str(root))
    text = out.read_text(encoding="utf-8")
    assert "(index.md)" not in text and "\n**Talks**\n" not in text


def test_the_folder_copy_checks_and_one_of_render_12_still_does(root, folder, tmp_path):
    from asz_core.reading.export_render import drawing

    ok = asz("verify", "--export", str(folder / f"{SID}.md"), "--root", str(root), check=False)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    now = (folder / f"{SID}.md").read_bytes()
    body = json.loads((folder / f"{SID}.md.manifest.json").read_bytes())
    older = tmp_path / "older"
    with drawing(12):  # render 12 drew a folder's md with neither
        asz("export", "--project", "worktrees", "--format", "md", "--out", f"{older}/", "--root", str(root))
    old = (older / f"{SID}.md").read_bytes()
    assert BACK.encode() not in old and b"\n**Talks**\n" not in old and len(old) < len(now)
    old_body = {**body, "render": 12}
    v = asz("verify", "--export", as_copy(tmp_path, "old.md", old, old_body), "--root", str(root), check=False)
    assert v.returncode == 0 and v.stdout.splitlines()[-1] == "the copy checks against the root", v.stdout
    v = asz("verify", "--export", as_copy(tmp_path, "said13.md", old, body), "--root", str(root), check=False)
    assert v.returncode == 1, v.stdout  # the same bytes said to be render 13: the link and the list are missing


def test_a_title_holding_html_keeps_its_link_and_anchor(corpus_source, tmp_path):
    """Trial 45b F3: a talk titled with ``<script>`` was listed ``- \\[Talk 2](#talk-2-…)`` (the escaper took the whole
    line, the link's own ``[`` too: a viewer shows it literally) by an anchor made from the unescaped title, which
    drops ``script``, so it matched no heading. The corpus conversation with its second prompt (source line 117) given
    a ``<script>`` and a ``[x](javascript:…)``: the list line is a link to the heading as the copy writes it."""
    import shutil

    proj = tmp_path / "projects" / PROJECT
    shutil.copytree(corpus_source / PROJECT, proj)
    path = proj / f"{SID}.jsonl"
    lines = path.read_bytes().split(b"\n")
    rec = json.loads(lines[116])
    assert rec["message"]["content"].startswith("Well, the subagents")
    rec["message"]["content"] = "Well, the <script>alert(1)</script> subagents [x](javascript:alert(2)) " + rec["message"]["content"][20:]
    lines[116] = json.dumps(rec).encode()
    path.write_bytes(b"\n".join(lines))
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    asz("export", SID[:8], "--format", "md", "--out", f"{tmp_path / 'ex'}/", "--root", str(root))
    text = (tmp_path / "ex" / f"{SID}.md").read_text(encoding="utf-8").split("\n")
    (heading,) = [x[3:] for x in text if x.startswith("## Talk ") and "script" in x]
    assert "\\<script>" in heading  # the heading written escaped
    (item,) = [x for x in text if x.startswith("- ") and "#talk-" in x and "script" in x]
    assert item.startswith(f"- [Talk {heading.split(':')[0][5:]}]({_anchor(heading)}): "), (item, heading)
    tokens = MarkdownIt("commonmark", {"html": True}).parseInline(item[2:])[0].children
    assert [t.type for t in tokens[:3]] == ["link_open", "text", "link_close"] and tokens[1].content.startswith("Talk ")
    assert not any(t.type == "html_inline" for t in tokens)  # and no raw HTML runs in the list
    ok = asz("verify", "--export", str(tmp_path / "ex" / f"{SID}.md"), "--root", str(root), check=False)
    assert ok.returncode == 0, ok.stdout
