"""Kiro's edits drawn as Claude Code's ``Edit`` is in ``asz export``'s md and html (render 22; docs/reading.md, "Tool
inputs"; ``asz_core.view.tool_drawn.edit_diff``): Kiro IDE's ``originalContent``/``modifiedContent`` and Kiro CLI's
``old_str``/``new_str`` as a unified diff headed by the file's path, where render 21 drew the two texts side by side.

Real input: the Kiro corpus (its 4 Kiro IDE ``create`` calls), copied with one Kiro CLI ``write`` made a
``str_replace`` (the corpus holds none), its new text holding ``<script>``. Expected texts are read from the source
lines, never from asz.
"""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from reading_helpers import as_copy, asz
from doc_walk import dicts_in

#: The text pairs an edit holds (asz_core.view.placing.PAIRS' Kiro pairs, written out here).
KIRO_PAIRS = (("old_str", "new_str"), ("originalContent", "modifiedContent"))
OLD, NEW = 'echo "hello fixture"\n', 'echo "hello fixture"\necho "<script>window.__pwned=1</script>"\n'


def _edits(home: Path) -> list[tuple[str, str, str]]:
    """``(path, old, new)`` of every object of the Kiro files under ``home`` holding a Kiro text pair, each once."""
    out: list[tuple[str, str, str]] = []
    for p in sorted(home.rglob("*.jsonl")):
        for line in p.read_text(encoding="utf-8").splitlines():
            for x in dicts_in(json.loads(line) if line.strip() else None):
                for a, b in KIRO_PAIRS:
                    if isinstance(x.get(a), str) and isinstance(x.get(b), str):
                        got = (x.get("file") or x.get("path"), x[a], x[b])
                        out.extend([got] if got not in out else [])
    return out


@pytest.fixture(scope="module")
def kiro(corpus_dir, tmp_path_factory):
    src = corpus_dir / "kiro" / "home" / ".kiro"
    if not src.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({src})")
    base = tmp_path_factory.mktemp("kiro-edits")
    home = base / ".kiro"
    shutil.copytree(src, home)
    [cli] = (home / "sessions" / "cli").glob("*.jsonl")
    lines = cli.read_text(encoding="utf-8").splitlines()
    at = next(i for i, x in enumerate(lines) if "greet.sh" in x and '"name":"write"' in x)
    d = json.loads(lines[at])
    use = next(c["data"] for c in d["data"]["content"] if c["kind"] == "toolUse")
    use["input"] = {"command": "str_replace", "path": use["input"]["path"], "old_str": OLD, "new_str": NEW}
    lines[at] = json.dumps(d, separators=(",", ":"))
    cli.write_text("\n".join(lines) + "\n", encoding="utf-8")
    root = base / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    ids = [c["id"] for c in json.loads(asz("ls", "--root", str(root), "--json").stdout)]
    return home, root, ids


def test_every_kiro_edit_is_a_diff_in_md_and_html(kiro):
    home, root, ids = kiro
    edits = _edits(home)
    assert len(edits) == 5 and sum(old == "" for _, old, _ in edits) == 4 and (OLD, NEW) in [e[1:] for e in edits]
    md = "".join(asz("export", c, "--root", str(root), "--format", "md").stdout for c in ids)
    page = "".join(asz("export", c, "--root", str(root), "--format", "html").stdout for c in ids)
    bodies = [b.split("\n") for _, b in re.findall(r"^(`{3,})diff\n(--- .*?)\n\1$", md, re.S | re.M)]
    assert len(bodies) == len(edits) == page.count('<pre class="diff">')
    got = {(b[0][4:], tuple(x[1:] for x in b[3:] if x[:1] in " -"), tuple(x[1:] for x in b[3:] if x[:1] in " +")) for b in bodies}
    assert got == {(p, tuple(o.splitlines()), tuple(n.splitlines())) for p, o, n in edits}
    for key in (k for pair in KIRO_PAIRS for k in pair):  # the texts are the diff's, not fields beside it
        assert f"{key}:" not in md and f">{key}<" not in page
    assert "<script>window" not in page and '<span class="add">+echo &quot;&lt;script&gt;' in page
    assert 'str_replace' in md and html.unescape(page).count("@@ -1 +1,2 @@") == 1


def test_a_kiro_copy_drawn_before_render_22_still_checks(kiro, tmp_path):
    """Render 21 drew Kiro's texts side by side: its copy (manifest render 21) checks, made again as render 21 drew
    it, and not as render 22; today's copy (render 22 on) draws the diff and checks."""
    from asz_core.reading.export_render import drawing

    _, root, ids = kiro
    [ide] = [c for c in ids if c.startswith("sess_")]
    for fmt in ("md", "html"):
        with drawing(21):
            asz("export", ide, "--format", fmt, "--out", str(tmp_path / f"old.{fmt}"), "--root", str(root))
        body = json.loads((tmp_path / f"old.{fmt}.manifest.json").read_bytes())
        old = (tmp_path / f"old.{fmt}").read_bytes()
        assert b"modifiedContent" in old and b"```diff" not in old and b"<pre class=\"diff\">" not in old
        for render, rc in ((21, 0), (22, 1)):
            ok = asz("verify", "--export", as_copy(tmp_path, f"r{render}.{fmt}", old, {**body, "render": render}),
                     "--root", str(root), check=False)
            assert ok.returncode == rc, (fmt, render, ok.stdout + ok.stderr)
        asz("export", ide, "--format", fmt, "--out", str(tmp_path / f"now.{fmt}"), "--root", str(root))
        assert json.loads((tmp_path / f"now.{fmt}.manifest.json").read_bytes())["render"] == RENDER
        assert b"modifiedContent" not in (tmp_path / f"now.{fmt}").read_bytes()
        assert asz("verify", "--export", str(tmp_path / f"now.{fmt}"), "--root", str(root), check=False).returncode == 0
