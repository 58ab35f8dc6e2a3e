"""The search index is keyed by what it holds, not by the collector's cursors (trial 24b F2).

A collect pass that finds a session's sources gone (or back) rewrites the cursors beside its landed files and lands
nothing: the first ``asz search`` after it indexed every conversation again, and the file grew 43 % (only
``--reindex`` shrank it). Now such a pass changes nothing the index sees; a re-index of every conversation (a root
copied, new inodes) replaces the rows and compacts the file, so it never grows past what a first build wrote.

Real input: the Claude Code corpus's sources copied, collected by the real ``asz collect --once``, then deleted and
put back; counts of a word straight from the source transcripts.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from reading_helpers import asz, asz_process

from asz_core.reading.search import index_path, update_index

#: A word of the corpus's transcripts (104 times in its sources).
WORD = "graph"


def _rows(root: Path) -> int:
    con = sqlite3.connect(index_path(root))
    try:
        return con.execute("SELECT count(*) FROM hit").fetchone()[0]
    finally:
        con.close()


def _hits(root: Path) -> str:
    """The count line of ``asz search WORD --limit 0`` (every hit)."""
    return asz("search", WORD, "--limit", "0", "--root", str(root)).stdout.splitlines()[-1].split(" in ")[0]


@pytest.mark.slow
def test_sources_deleted_and_put_back_index_nothing_again(corpus_source: Path, tmp_path: Path):
    src = tmp_path / "projects"
    shutil.copytree(corpus_source, src)
    root = tmp_path / "root"
    asz_process("collect", "--once", "--source", str(src), "--root", str(root))
    first = update_index(root)
    n = len([p for p in (root / "_conversations").iterdir() if p.is_dir()])
    assert (first.indexed, first.unchanged) == (0, n) and n >= 11  # collect --once kept it (trial 49d F2)
    size, rows, hits = index_path(root).stat().st_size, _rows(root), _hits(root)
    # the word's texts are in the source: at least one source transcript holds it
    assert any(WORD.encode() in p.read_bytes() for p in src.rglob("*.jsonl"))
    assert hits != "0 hit(s)"

    for p in sorted(src.iterdir()):
        shutil.rmtree(p)
    res = asz_process("collect", "--once", "--source", str(src), "--root", str(root))
    assert "gone=" in res.stdout + res.stderr and "gone=0 " not in res.stdout + res.stderr  # the pass saw them go
    gone = update_index(root)
    assert (gone.indexed, gone.unchanged) == (0, n)
    assert index_path(root).stat().st_size == size and _rows(root) == rows and _hits(root) == hits

    shutil.rmtree(src)
    shutil.copytree(corpus_source, src)  # back (new inodes, new times: the same bytes)
    asz_process("collect", "--once", "--source", str(src), "--root", str(root))
    back = update_index(root)
    assert (back.indexed, back.unchanged) == (0, n)
    assert index_path(root).stat().st_size == size and _hits(root) == hits


@pytest.mark.slow
def test_every_conversation_indexed_again_does_not_grow_the_file(corpus_copy, tmp_path: Path):
    root = corpus_copy()
    update_index(root)
    size, rows, hits = index_path(root).stat().st_size, _rows(root), _hits(root)
    for k in range(3):  # each copy has new inodes: every conversation is indexed again, its rows replaced
        copy = tmp_path / f"copy{k}"
        shutil.copytree(root, copy, symlinks=True)
        shutil.rmtree(root)
        root = copy
        again = update_index(root)
        assert again.indexed >= 11 and again.unchanged == 0
        assert _rows(root) == rows and _hits(root) == hits
        assert index_path(root).stat().st_size <= size, k  # compacted: 4.9 MB then 6.2, 7.6, 9.2 MB before
