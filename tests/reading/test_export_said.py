"""``asz export`` says what it found (trial 15): prose names why a record could not be checked against its source
line (F6: a transcript that only is elsewhere was said to be "gone, moved or changed"), and filters that match no
conversation are said, exit 1, nothing written (F7: exit 0 and an empty index), as an unknown id is.

Real input: the corpus session de3b8b19 (project -home-user-claude-reliability), collected by ``asz collect --once``.
"""

from __future__ import annotations

import json
import shutil

import pytest
from reading_helpers import asz, collect_as_claude_0_1, source_lines

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"


def _one_text_part(content) -> bool:
    return isinstance(content, str) or (isinstance(content, list) and len(content) == 1
                                        and isinstance(content[0], dict) and content[0].get("type") == "text")


@pytest.fixture(scope="module")
def collected(corpus_source, tmp_path_factory):
    base = tmp_path_factory.mktemp("export-said")
    shutil.copytree(corpus_source / PROJECT, base / "projects" / PROJECT)
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base


def test_prose_says_a_changed_source_line_changed(collected, tmp_path):
    # a root landed by claude-code-local 0.1.0, whose records do not state a list of one text block: prose reads
    # the source line (a later file's record decides alone: test_prose_shape.py)
    root = tmp_path / "root"
    collect_as_claude_0_1(collected / "projects", root)
    src = tmp_path / "projects" / PROJECT
    shutil.copytree(collected / "projects" / PROJECT, src)
    path = src / f"{SID}.jsonl"
    lines = source_lines(path)
    one_part = [d for d in lines if d.get("type") in ("user", "assistant")
                and _one_text_part(d.get("message", {}).get("content"))]
    assert one_part
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"type":"user"', b'"type":"User"'))  # same length: each user line's bytes differ
    changed = sum(1 for d in one_part if d["type"] == "user")
    assert 0 < changed < len(one_part)
    err = asz("export", SID, "--format", "prose", "--root", str(root), "--source", str(tmp_path / "projects")).stderr
    [note] = [ln for ln in err.splitlines() if "could not be checked" in ln]
    assert note.startswith(f"{changed} user/assistant record(s) could not be checked against their source transcripts "
                           f"({changed} whose source line no longer matches what landed (the transcript changed since)), ")
    assert "gone" not in note


def test_filters_matching_nothing_are_said(collected, tmp_path):
    out = tmp_path / "none"
    r = asz("export", "--project", "nomatch", "--root", str(collected / "root"), "--out", str(out), check=False)
    assert r.returncode == 1 and not out.exists()
    assert r.stderr.strip() == (f"asz export: no conversation matched --project nomatch (of 1 in {collected / 'root'}; "
                                "asz ls lists them); nothing written")
    # a filter that matches still writes (the session's working directory, from its first record)
    cwd = next(d["cwd"] for d in source_lines(collected / "projects" / PROJECT / f"{SID}.jsonl") if d.get("cwd"))
    r = asz("export", "--project", cwd, "--root", str(collected / "root"), "--out", str(tmp_path / "some"), "--format", "json")
    assert [row["id"] for row in json.loads((tmp_path / "some" / "index.json").read_text())] == [SID]
