"""Retention takes the removed text out of the derived files under ``_index/`` too (issue 21; seed 000, Skeletons).

A skeleton keeps a conversation's structure and none of its content: after ``asz prune`` no search finds the
removed text and no byte of it is left in ``_index/search.sqlite`` or ``_index/summaries.sqlite``; a prune stopped
before that step is finished by the next search or prune.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import shutil

import orjson
import pytest

from asz_core.export.settings import RetentionConfig
from asz_core.reading.search import INDEX_PATH, update_index, search
from asz_core.retention.prune import REMOVAL_STATE, prune
from asz_core.sessiondata.skeleton import write_skeleton
from asz_core.storage.layout import landed_files, session_dirs

from export_helpers import asz

NOW = RetentionConfig(after=0.0, require_accepted=False)


def _kept_text(root: Path) -> bytes:
    """Everything retention keeps (skeletons, rounds), lowercased: text found there may stay in derived files."""
    out = []
    for p in root.rglob("*"):
        if p.suffix == ".sk":
            out.append(gzip.decompress(p.read_bytes()))
        elif p.suffix == ".sf":
            out.append(p.read_bytes())
    return b"\n".join(out).lower()


def _index_bytes(root: Path, name: str) -> bytes:
    """The bytes of ``_index/<name>`` and its write-ahead log, lowercased."""
    return b"".join(p.read_bytes() for p in (root / "_index").glob(name + "*") if p.is_file()).lower()


def _removed_word(root: Path) -> tuple[str, str]:
    """A word of a prompt in the corpus that no runtime title or other kept structure holds, and its conversation."""
    update_index(root)
    kept = None
    for h in search(root, "the", kinds=["prompt"], limit=200):
        for w in sorted(set(re.findall(r"[A-Za-z]{9,}", h["snippet"])), key=lambda w: (-len(w), w)):
            if kept is None:
                kept = _kept_structure(root)
            if w.lower().encode() not in kept and w.lower().encode() in _index_bytes(root, INDEX_PATH.name):
                return w, h["conversation"]
    pytest.fail("no prompt word to follow in the corpus")


def _kept_structure(root: Path) -> bytes:
    """What a skeleton of each landed file would keep, approximated from above: labels, names and round files."""
    out = [p.read_bytes() for p in root.rglob("*.sf")]
    for _, p in (x for s in session_dirs(root) for x in landed_files(s)):
        for line in p.read_bytes().split(b"\n")[1:-2]:
            rec = orjson.loads(line) if line else {}
            out.append(orjson.dumps({k: rec.get(k) for k in ("label", "model", "tool")}))
            out.extend(orjson.dumps([q.get("name"), q.get("server")]) for q in rec.get("parts", ()) if isinstance(q, dict))
    return b"\n".join(out).lower()


@pytest.mark.slow
def test_prune_leaves_no_removed_text_in_the_search_index_or_the_summaries(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "data")
    word, cid = _removed_word(root)
    p = asz("ls", "--root", str(root), "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    title = next(r["title"] for r in orjson.loads(p.stdout) if r["id"] == cid)
    assert title and title.lower().encode() in _index_bytes(root, "summaries.sqlite")
    assert search(root, word)
    rows_before = {r["id"]: r for r in orjson.loads(p.stdout)}
    p = asz("usage", "project", "--json", "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    usage_before = {r["project"]: r for r in orjson.loads(p.stdout)}

    other = root / "_index" / "search.sqlite"  # an older asz's search index beside this one's holds the text too
    shutil.copy(root / INDEX_PATH, other)
    assert word.lower().encode() in _index_bytes(root, other.name)

    cfg = tmp_path / "asz.yaml"
    cfg.write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    p = asz("prune", "--root", str(root), "--config", str(cfg), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert not list(root.rglob("*.sd")) and not list(root.glob(f"*/{REMOVAL_STATE}"))
    assert not other.exists()  # deleted whole: that version builds it again from what is left

    assert search(root, word) == []  # at once, before any other update
    p = asz("search", word, "--root", str(root), "--json", cwd=tmp_path)
    assert p.returncode == 0 and orjson.loads(p.stdout) == [], p.stdout + p.stderr
    assert word.lower().encode() not in _index_bytes(root, INDEX_PATH.name)
    if title.lower().encode() not in _kept_text(root):  # a runtime's own title is structure: it may stay
        assert title.lower().encode() not in _index_bytes(root, "summaries.sqlite")
        p = asz("ls", "--root", str(root), "--json", cwd=tmp_path)
        assert p.returncode == 0 and title.lower().encode() not in _index_bytes(root, "summaries.sqlite")
    _lists_say_removed(root, tmp_path, rows_before, usage_before)


def _lists_say_removed(root: Path, tmp: Path, rows_before: dict, usage_before: dict) -> None:
    """After the whole root was pruned: asz ls says where retention took a title or project, asz usage project
    counts those conversations under ``(removed by retention)``, and the usage itself is unchanged."""
    p = asz("ls", "--root", str(root), "--json", cwd=tmp)
    rows = {r["id"]: r for r in orjson.loads(p.stdout)}
    assert rows.keys() == rows_before.keys() and all(r["removed_files"] > 0 for r in rows.values())
    lost = [c for c, r in rows.items() if rows_before[c]["project"] and not r["project"]]
    assert lost  # the cwd that named a project is not in the skeletons (seed 000, Skeletons)
    table = asz("ls", "--root", str(root), cwd=tmp).stdout.splitlines()
    for c in lost:
        line = next(x for x in table if x.startswith(c[:8]))
        assert "(removed)" in line and "(no prompt)" not in line
        if rows[c]["title"] in ("", "(no prompt)"):
            assert "(removed by retention)" in line
    p = asz("usage", "project", "--json", "--root", str(root), cwd=tmp)
    after = {r["project"]: r for r in orjson.loads(p.stdout)}
    gone = {k: v for k, v in usage_before.items() if k not in after}
    assert after["(removed by retention)"]["conversations"] == sum(v["conversations"] for v in gone.values())
    assert after.get("(no project)", {}).get("conversations") == usage_before.get("(no project)", {}).get("conversations")
    assert sum(r["calls"] for r in after.values()) == sum(r["calls"] for r in usage_before.values())


@pytest.mark.slow
def test_a_removal_stopped_before_the_index_step_is_finished_by_the_next_search_and_prune(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "data")
    word, cid = _removed_word(root)
    session = next(s for s in session_dirs(root) if s.name == cid)
    # the prune's steps up to its crash: removal.state, then every landed file turned into its skeleton
    (session / REMOVAL_STATE).write_text("generation 1\nat 2026-10-13T10:00:00Z\n")
    for _, p in landed_files(session):
        write_skeleton(p, at="2026-10-13T10:00:00Z", generation=1, receiver="unconfirmed", owner="x")
        p.chmod(0o644)
        p.unlink()
    assert word.lower().encode() not in _kept_text(root)
    p = asz("search", word, "--root", str(root), "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert all(h["conversation"] != cid for h in orjson.loads(p.stdout))
    hits = orjson.loads(p.stdout)
    if not hits:
        assert word.lower().encode() not in _index_bytes(root, INDEX_PATH.name)
    # the next prune finishes the removal whatever its configuration says now
    rep = prune(root, RetentionConfig(after=None))
    assert session.name in rep.removed and not (session / REMOVAL_STATE).exists()
    assert all(p.suffix == ".sk" for _, p in landed_files(session, skeletons=True))


@pytest.mark.slow
def test_an_index_from_before_prune_cleaned_it_is_rebuilt_without_the_removed_text(corpus_copy, tmp_path):
    """A root pruned by an asz whose prune left the search index as it was: the index's version changed, so the next
    update rebuilds it, wiped, from what is left."""
    import sqlite3

    root = corpus_copy(tmp_path / "data")
    word, cid = _removed_word(root)
    session = next(s for s in session_dirs(root) if s.name == cid)
    for _, p in landed_files(session):  # what that prune did: skeletons, and removal.state gone
        write_skeleton(p, at="2026-10-13T10:00:00Z", generation=1, receiver="unconfirmed", owner="x")
        p.chmod(0o644)
        p.unlink()
    con = sqlite3.connect(root / INDEX_PATH)
    con.execute("UPDATE meta SET value='5' WHERE key='version'")
    con.commit()
    con.close()
    assert word.lower().encode() in _index_bytes(root, INDEX_PATH.name)
    update_index(root)
    assert all(h["conversation"] != cid for h in search(root, word))
    if not search(root, word):
        assert word.lower().encode() not in _index_bytes(root, INDEX_PATH.name)
