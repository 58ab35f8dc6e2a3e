"""A link the model wrote to its project's files is drawn in an html copy as its text, its target shown, never as a
link; an absolute web link stays a link (render 37, trial 47b F4: 42 links such as ``[README.md](README.md)`` stayed
live in a folder export of 178 copies, and one named ``index.html`` would have opened the folder's index).

Real input: the Claude Code corpus collected by the real ``asz collect --once``, exported as an html folder. The
links are counted here from the source JSONL: each Markdown link ``[TEXT](TARGET)`` in an assistant record's text parts
(cb2e607c's ``[README.md](README.md)`` twice and ``[pyproject.toml](pyproject.toml)``, ef958aa1's sub-agent's four
``https://`` links). A copy drawn as render 36 still checks.
"""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import json
import re
from pathlib import Path

import pytest

from corpus_words import records
from reading_helpers import asz, checks_as_render

pytestmark = pytest.mark.slow

#: A Markdown inline link whose target holds no space or parenthesis, as the model wrote it.
LINK = re.compile(r"\[([^\]\n]+)\]\(([^()\s]+)\)")
HREF = re.compile(r'href="([^"]*)"')
LIVE = ("http://", "https://", "mailto:")


def _source_links(projects: Path) -> list[tuple[str, str, str]]:
    """``(file stem, text, target)`` of every Markdown link in the assistant records' text parts of the corpus."""
    got = []
    for path, rec in records(projects):
        content = (rec.get("message") or {}).get("content") if isinstance(rec, dict) and rec.get("type") == "assistant" else None
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "text":
                got += [(path.stem, m.group(1), m.group(2)) for m in LINK.finditer(part["text"])]
    return got


@pytest.fixture(scope="module")
def folder(corpus_copy, tmp_path_factory) -> tuple[Path, Path]:
    root = corpus_copy()
    out = tmp_path_factory.mktemp("html-links") / "out"
    asz("export", "--since", "2020-01-01", "--format", "html", "--out", f"{out}/", "--root", str(root))
    return root, out


def test_relative_links_are_text_and_web_links_stay(folder, corpus_projects):
    root, out = folder
    links = _source_links(corpus_projects)
    relative = {t for _, _, t in links if not t.startswith(LIVE)}
    web = [t for _, _, t in links if t.startswith(LIVE)]
    assert relative == {"README.md", "pyproject.toml"} and len(web) == 4  # the corpus as it is (counted above)
    manifest = json.loads((out / "export.manifest.json").read_bytes())
    ours = {f["file"] for f in manifest["files"]} | {manifest["index"]["file"]}
    pages = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.html")}
    hrefs = [h for page in pages.values() for h in HREF.findall(page)]
    assert not relative & set(hrefs)  # no model link to a file of its project is live
    assert all(h.startswith(("#", *LIVE)) or h in ours for h in hrefs), sorted(set(hrefs) - ours)[:5]
    for target in web:  # each web link the model wrote stays a link
        assert f'href="{target}"' in "".join(pages.values()), target
    page = pages["cb2e607c-c758-415a-8b45-c49e4631906a.html"]
    assert "Perfect! I've updated the README.md with" in page  # the text as the model wrote it, no link
    assert "Changes Made to pyproject.toml</h" in page
    assert json.loads((out / "cb2e607c-c758-415a-8b45-c49e4631906a.html.manifest.json").read_bytes())["render"] == RENDER
    ok = asz("verify", "--export", str(out), "--root", str(root))
    assert ok.stdout.splitlines()[-1] == "the folder checks against the root"


def test_a_text_names_its_target_when_it_is_not_the_target():
    from asz_core.reading.export import _md

    drawn = _md().render("See [the config](pyproject.toml), [top](#talk-1), [i](index.html), [w](https://x.org/a), "
                         "[README.md](README.md) and ![d](docs/a.png).")
    assert drawn == ('<p>See the config (<code>pyproject.toml</code>), top (<code>#talk-1</code>), i (<code>index.html'
                     '</code>), <a href="https://x.org/a">w</a>, README.md and [image: d] (<code>docs/a.png</code>).</p>\n')


def test_a_render_36_copy_still_checks(folder, tmp_path):
    from asz_core.reading.export_render import drawing

    root, _ = folder
    old = tmp_path / "old.html"
    with drawing(36):  # render 36 drew the model's links live
        asz("export", "cb2e607c", "--format", "html", "--out", str(old), "--root", str(root))
    assert 'href="README.md"' in old.read_text(encoding="utf-8")
    checks_as_render(old, root, 36, 37)
