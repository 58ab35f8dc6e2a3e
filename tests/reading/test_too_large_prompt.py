"""A typed prompt too large to land (trial 24b F1): every reader says what happened where it looks.

Real input, as the trial's tools/mkbreak.py made it: the corpus's hello session (de3b8b19) copied with its typed
prompt grown past the default max_delta_bytes (2 MiB) by a pasted log ending in a word found nowhere else, landed by
the real collect with the default budget. The record lands alone with its text taken out (seed 000, Too large to
land); the conversation's title was ``(no prompt)``, the word was searched for 0 hits with nothing said, and the
export's marker gave the size only. Every figure below is counted from the source line, never from asz's output.
"""

from __future__ import annotations

import hashlib
import html
import json
import shutil

import pytest

from reading_helpers import asz
from view_server_helpers import collect_and_parse

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"
pytestmark = pytest.mark.slow  # each test collects a 2.3 MB line and runs several readers: about 17 s
#: The pasted log: 2,295,000 bytes of words and one word at its end, past the 2,097,152 bytes a file may take.
PASTED = "Please review this log: " + "lorem ipsum dolor sit amet " * 85_000 + " zebracorn_needle_end"


def _grown(corpus_source, tmp_path):
    """The project copied with the session's typed prompt (its only string content starting ``Write``) made
    :data:`PASTED`; the prompt's line number (from 1)."""
    src = tmp_path / "projects" / PROJECT
    shutil.copytree(corpus_source / PROJECT, src)
    lines = (src / f"{SID}.jsonl").read_text(encoding="utf-8").splitlines()
    grown = []
    for i, line in enumerate(lines):
        d = json.loads(line)
        content = (d.get("message") or {}).get("content")
        if d.get("type") == "user" and isinstance(content, str) and content.startswith("Write"):
            d["message"]["content"] = PASTED
            lines[i] = json.dumps(d, ensure_ascii=False)
            grown.append(i + 1)
    assert len(grown) == 1
    (src / f"{SID}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return grown[0]


def test_every_reader_says_the_prompt_was_too_large_to_land(corpus_source, tmp_path):
    _grown(corpus_source, tmp_path)
    root = tmp_path / "root"
    collect_and_parse(tmp_path / "projects", root)
    size, sha = len(PASTED.encode()), hashlib.sha256(PASTED.encode()).hexdigest()
    title = f"(prompt too large to land: {size / 1e6:.1f} MB)"  # 2.3 MB, never (no prompt)

    rows = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    assert [r["title"] for r in rows] == [title]
    assert f"{SID[:8]}  {title}" in asz("ls", "--root", str(root)).stdout

    doc = json.loads(asz("conversation", SID[:8], "--json", "--root", str(root)).stdout)
    assert doc["summary"]["title"] == title and doc["talks"][0]["label"] == title
    [prompt] = [n for n in _walk(doc["talks"]) if n.get("kind") == "message.external" and n.get("state") == "too_large"]
    assert (prompt["bytes"], prompt["sha256"]) == (size, sha)
    text = asz("conversation", SID[:8], "--root", str(root)).stdout.splitlines()
    at = text.index(f"landed without its text: 1 part too large to land ({size:,} bytes as written)")
    assert text[at + 1] == f"  {prompt['id']} (message.external): text too large to land: {size:,} bytes, sha256 {sha}"
    assert SID in asz("show", SID[:8], prompt["id"], "--root", str(root)).stdout  # the id it names is one asz show takes

    # the word at the end of the prompt is not in the root: the search says so, with the part's size and sha256
    found = asz("search", "zebracorn_needle_end", "--root", str(root))
    assert found.stdout.startswith("0 hit(s)")
    said = f"too large to land: row 1 part 1 (text, {size:,} bytes, sha256 {sha}): its text is not in the root, so it was never searched"
    # one line, never a file's line that reads as a problem of the query's hits (trial 40c F5)
    once = (f"! 1 part(s) too large to land in 1 conversation(s) ({SID[:8]}) were not searched: their text is not in "
            "the root; asz search WORDS --json --held-back lists each (file, row, size, sha256)")
    assert [ln for ln in found.stdout.splitlines() if ln.startswith("! ")] == [once]
    assert "too large" not in found.stderr  # said once, under the hits: no damage (trial 37b F6: it was said twice)
    # a query with hits in that conversation says it of them (trial 42b F3: not of conversations none of its hits is in)
    assert once.replace("conversation(s) (", "conversation(s) of these hits (").replace(" searched:", " searched, so a further hit "
        "they may hold is not shown (the hits above are all found):") in asz("search", "hello", "--root", str(root)).stdout
    held = json.loads(asz("search", "hello", "--json", "--held-back", "--root", str(root)).stdout)["held_back"]
    assert [(g["file"], g["problem"]) for g in held["not_searched"]] == [(_file_of(root, sha), said)]  # its size, sha256

    marker = f"[too large to land: {size:,} bytes, sha256 {sha}]"
    md = asz("export", SID[:8], "--root", str(root), "--format", "md").stdout
    assert md.startswith(f"# {title}\n") and marker in md
    page = asz("export", SID[:8], "--root", str(root), "--format", "html").stdout
    assert html.escape(marker) in page and html.escape(title) in page
    prose = [json.loads(x) for x in asz("export", SID[:8], "--root", str(root), "--format", "prose").stdout.splitlines() if x]
    assert [t["text"] for t in prose if t["role"] == "user"][0] == marker


def test_the_warning_says_what_is_kept_and_that_the_record_stays_cut(corpus_source, tmp_path):
    line = _grown(corpus_source, tmp_path)
    root = tmp_path / "root"
    src = tmp_path / "projects" / PROJECT / f"{SID}.jsonl"
    data = src.read_bytes()
    start = sum(len(x) + 1 for x in data.split(b"\n")[:line - 1])  # the prompt's line, as the source holds it
    end = data.index(b"\n", start)
    size, sha = len(PASTED.encode()), hashlib.sha256(PASTED.encode()).hexdigest()
    p = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    [warning] = [ln for ln in p.stderr.splitlines() if ln.startswith("warning: ")]
    assert warning.startswith(f"warning: {src}: line {line} is ")
    assert f"not kept: part 1 text ({size:,} bytes, sha256 {sha})" in warning
    assert f"the whole of it is in line {line} (bytes {start:,} to {end:,}) of this source file only while that file exists" in warning
    assert "this record stays cut in this root" in warning
    # what it says: collecting again with a budget that would hold the line lands nothing, and the title stays said
    again = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root),
                "--max-delta-bytes", str(size * 2))
    assert "landed=0" in again.stdout + again.stderr
    rows = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    assert rows[0]["title"] == f"(prompt too large to land: {size / 1e6:.1f} MB)"


def _walk(nodes):
    for n in nodes:
        yield n
        yield from _walk(n.get("children") or ())


def _file_of(root, sha):
    """The landed file (relative to ``root``) whose record keeps a part with ``sha``, found by reading the files."""
    [hit] = [p.relative_to(root).as_posix() for p in root.rglob("*.sd") if sha.encode() in p.read_bytes()]
    return hit
