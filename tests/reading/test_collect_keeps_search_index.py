"""``asz collect --once`` keeps the search index after its list rows, so the first ``asz search`` answers without
indexing (trial 49d F2: 25-27 s of indexing before the first answer over a 200 MB history).

Real input: the corpus's Claude Code projects collected by the real ``asz collect --once``, and a copy of that root
whose index files are deleted, so its first ``asz search`` builds the index as it did before: every answer (hits,
secrets) is byte for byte the same from either index (each root's own path, which a hit's suggested command names,
read as ROOT), and so is every row of the index's tables.
The conversations counted are the sources' main transcripts, read from the source folder. A collect killed
(SIGKILL) while it indexes loses nothing: the next search indexes what was not committed and answers the same.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from reading_helpers import asz, main_transcripts

from asz_core.reading.search import INDEX_PATH

#: Queries whose answers are compared: common words, a prefix, OR, a word left out, a phrase.
QUERIES = ("the", "hello", "error", "test*", "README OR Makefile", "git -commit", '"tool result"')
#: The tables whose rows are compared (gap, seen and landed hold each landed file's stat: its inode differs in a copy).
TABLES = {"conv": "id", "hit": "rowid", "fts": "rowid", "secret": "hit, n"}


def _rows(root: Path) -> dict[str, list]:
    con = sqlite3.connect(root / INDEX_PATH)
    try:
        return {t: con.execute(f"SELECT {'rowid, text' if t == 'fts' else '*'} FROM {t} ORDER BY {k}").fetchall()
                for t, k in TABLES.items()}
    finally:
        con.close()


def _answer(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``asz ARGS --root ROOT``, its root's path read as ``ROOT`` in what it prints."""
    p = asz(*args, "--root", str(root))
    p.stdout, p.stderr = p.stdout.replace(str(root), "ROOT"), p.stderr.replace(str(root), "ROOT")
    return p


def _without_index(kept: Path, dest: Path) -> Path:
    shutil.copytree(kept, dest, symlinks=True)
    for p in (dest / "_index").glob("search-*"):
        p.unlink()
    return dest


@pytest.mark.slow
def test_the_first_search_after_collect_once_indexes_nothing_and_answers_as_a_built_index(corpus_source, tmp_path):
    sessions = main_transcripts(corpus_source)
    kept = tmp_path / "kept" / "root"
    p = _collect(corpus_source, kept)
    assert p.wait(timeout=600) == 0, p.stderr.read()
    assert (kept / INDEX_PATH).is_file()  # kept by collect --once
    built = _without_index(kept, tmp_path / "built")
    a, b = (_answer(r, "search", QUERIES[0], "--limit", "100") for r in (kept, built))  # plain: says what it indexed
    assert "indexed " not in a.stderr, a.stderr  # nothing left to index
    assert f"indexed {len(sessions)} conversation(s)" in b.stderr  # the first search built it whole
    timed = re.compile(r" in \d+ ms$", re.M)  # the count line's own time
    assert timed.sub("", a.stdout) == timed.sub("", b.stdout) and a.stdout.count("\u00ab") >= 20  # real hits
    for q in QUERIES:
        a, b = (_answer(r, "search", q, "--json", "--limit", "100") for r in (kept, built))
        assert a.returncode == b.returncode == 0, a.stderr + b.stderr
        assert a.stdout == b.stdout, q
    assert {r[0] for r in _rows(kept)["conv"]} == set(sessions)  # one conversation per main transcript
    assert _rows(kept) == _rows(built)  # every row, in the same order (rowids too)
    s1, s2 = (_answer(r, "secrets", "--json") for r in (kept, built))
    assert (s1.returncode, s1.stdout) == (s2.returncode, s2.stdout)


def _collect(src: Path, root: Path) -> subprocess.Popen:
    """The real ``asz collect --once`` of ``src`` into ``root``, its progress piped one line a conversation."""
    root.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(root.parent / "claude-home"), "ASZ_PROGRESS_AFTER": "0",
           "ASZ_PROGRESS_EVERY": "0"}
    return subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(src),
                             "--root", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
def test_a_collect_killed_while_it_indexes_loses_nothing(corpus_source, tmp_path):
    root = tmp_path / "killed" / "root"
    p = _collect(corpus_source, root)
    said = []
    for line in p.stderr:  # the index stage's progress, one line a conversation (piped, ASZ_PROGRESS_EVERY=0)
        said.append(line)
        if line.startswith("index: 3 of "):
            p.send_signal(signal.SIGKILL)
            break
    p.wait(timeout=600)
    assert p.returncode == -signal.SIGKILL, "".join(said)
    topped = _answer(root, "search", QUERIES[0])  # indexes what the kill left out
    assert topped.returncode == 0 and "indexed " in topped.stderr, topped.stderr
    answers = [_answer(root, "search", q, "--json", "--limit", "100") for q in QUERIES[:3]]
    built = _without_index(root, tmp_path / "built")
    for q, a in zip(QUERIES[:3], answers):
        b = _answer(built, "search", q, "--json", "--limit", "100")
        assert a.returncode == b.returncode == 0, a.stderr + b.stderr
        assert a.stdout == b.stdout, q
    assert _rows(root) == _rows(built)
