"""The other sessions' ids kept between calls of ``session_links`` (trial 17, F18), from a real corpus transcript.

A 15-line corpus transcript (``-home-user-spotter/55604662…``) is copied as
Claude Code ``--resume`` copies do: another ``sessionId`` and file name, the same
uuids and message ids. Parse keeps each session's ids once read, so N such
copies read N indexes rather than N²; what it keeps must follow the other
session's index when that grows, and a parse must write what it wrote before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core.flow.index import load_index
from asz_core.flow.parse import parse_root
from asz_core.flow.shared_ids import add_ids, forget_seen, session_links
from asz_core.testing import collect_once

A = "55604662-cf2a-4331-851a-ec234028f8ca"
B = "0b0b0b0b-0000-4000-8000-00000000000b"  # sorts first
C = "0c0c0c0c-0000-4000-8000-00000000000c"


def _source(corpus_dir: Path) -> list[str]:
    f = corpus_dir / "claude-code/projects/-home-user-spotter" / f"{A}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    return f.read_text(encoding="utf-8").splitlines(keepends=True)


def _links(root: Path, name: str) -> tuple:
    got = session_links(root, name, load_index(root / name))
    return (got.earlier, sorted(got.repeated.items()), sorted((k, sorted(v)) for k, v in got.later.items()),
            sorted(got.shared.items()))


def _three_copies(corpus_dir: Path, tmp_path: Path) -> Path:
    """A root where A, B and C each landed the whole transcript under its own session id (nothing parsed)."""
    lines = _source(corpus_dir)
    proj = tmp_path / "src" / "-home-user-spotter"
    proj.mkdir(parents=True)
    for name in (A, B, C):
        (proj / f"{name}.jsonl").write_text("".join(ln.replace(A, name) for ln in lines), encoding="utf-8")
    root = tmp_path / "root"
    collect_once(root, ClaudeCodeLocal(), tmp_path / "src")
    return root


def test_kept_ids_follow_the_other_sessions_index(corpus_dir, tmp_path):
    lines = _source(corpus_dir)
    proj = tmp_path / "src" / "-home-user-spotter"
    proj.mkdir(parents=True)
    (proj / f"{A}.jsonl").write_text("".join(lines), encoding="utf-8")
    copy = [ln.replace(A, B) for ln in lines]
    (proj / f"{B}.jsonl").write_text("".join(copy[:3]), encoding="utf-8")  # B: A's first 3 lines (2 with a uuid)
    root = tmp_path / "root"
    collect_once(root, ClaudeCodeLocal(), tmp_path / "src")
    add_ids((root, [A, B]))  # both indexes and their ids in the root's table, as parse's prepare does
    forget_seen()
    first = _links(root, A)  # keeps B's ids
    # B has no record of its own: it is the earlier one, and A (opening with B's first record) continues it
    assert first[0] == [B] and len(first[1]) == 2 and not first[2] and not first[3]

    (proj / f"{B}.jsonl").write_text("".join(copy), encoding="utf-8")  # B grows to A's whole history
    collect_once(root, ClaudeCodeLocal(), tmp_path / "src")
    add_ids((root, [B]))
    grown = _links(root, A)  # B's kept ids are those of its old index: read again
    forget_seen()
    assert grown == _links(root, A)
    # now neither has a record of its own: the one whose name sorts first (B) is the earlier, A repeats all of it
    assert grown[0] == [B] and len(grown[1]) == 14 and not grown[3]


def test_copies_parse_to_one_conversation_and_continuations(corpus_dir, tmp_path):
    root = _three_copies(corpus_dir, tmp_path)
    rep = parse_root(root, jobs=1)
    assert len(rep.outcomes) == 3 and not any(o.problem for o in rep.outcomes)
    rels = {}
    for name in (A, B, C):
        sf = sorted((root / "_conversations" / name / "rounds").glob("*.sf"))
        rels[name] = sorted(ln.split('"id":"', 1)[1].split('"', 1)[0] for ln in sf[-1].read_text().splitlines()
                            if ln.startswith('{"t":"relation"') and '"type":"continues"' in ln)
    # B sorts first: A and C repeat its 14 records; it holds both relations, each of them one
    assert rels[B] == sorted([f"rel/continues/conversation_{A}/conversation_{B}", f"rel/continues/conversation_{C}/conversation_{B}"])
    assert rels[A] == [f"rel/continues/conversation_{A}/conversation_{B}"]
    assert rels[C] == [f"rel/continues/conversation_{C}/conversation_{B}"]


def test_copies_parsed_once_want_no_assembly_again(corpus_dir, tmp_path):
    """Session 18: the links of a copy name only the sessions a relation is drawn for, so after one parse no copy
    needs its links drawn again (before, every copy but the first did, and a pass with nothing new assembled each)."""
    from asz_core.flow.chain import Chain
    from asz_core.flow.parse import IndexEngine
    from asz_core.flow.shared_ids import needs_relink

    root = _three_copies(corpus_dir, tmp_path)
    assert not any(o.problem for o in parse_root(root, jobs=1).outcomes)
    forget_seen()
    # B sorts first: A (last by name) repeats B's 14 records and names B alone, not C, though it continues both
    assert _links(root, A)[:3] == ([B], [(i, B) for i, _ in _links(root, A)[1]], [])
    assert _links(root, B)[0] == [] and [k for k, _ in _links(root, B)[2]] == sorted([A, C])
    for name in (A, B, C):
        engine = IndexEngine()
        engine.watermark(root / name)
        assert not needs_relink(engine, Chain(root, name).load()), name
    again = parse_root(root, jobs=1)
    assert [len(o.rounds) for o in again.outcomes] == [0, 0, 0]


def test_clusters_made_from_an_older_tables_partners(corpus_dir, tmp_path):
    """Session 18: the table keeps one cluster row a session instead of every pair sharing ids (N² rows for N copies).
    A table an older parse wrote (``partners`` rows, no clusters, ``user_version`` 0) gets its clusters from those
    rows once, and the links read from it are the ones read before."""
    import sqlite3

    from asz_core.flow.shared_ids import TABLE

    root = _three_copies(corpus_dir, tmp_path)
    assert not any(o.problem for o in parse_root(root, jobs=1).outcomes)
    forget_seen()
    before = {name: _links(root, name) for name in (A, B, C)}
    db = sqlite3.connect(root / TABLE)
    assert db.execute("SELECT count(DISTINCT cluster), count(*) FROM clusters").fetchone() == (1, 3)
    assert db.execute("SELECT count(*) FROM partners").fetchone() == (0,)
    nos = [no for (no,) in db.execute("SELECT no FROM sessions ORDER BY no")]
    with db:  # as an older parse left it: both ways, every pair
        db.execute("DROP TABLE clusters")
        db.executemany("INSERT INTO partners(a, b) VALUES (?, ?)", [(a, b) for a in nos for b in nos if a != b])
        db.execute("PRAGMA user_version=0")
    db.close()
    forget_seen()
    assert {name: _links(root, name) for name in (A, B, C)} == before
    db = sqlite3.connect(root / TABLE)
    assert db.execute("SELECT count(DISTINCT cluster), count(*) FROM clusters").fetchone() == (1, 3)
    assert db.execute("PRAGMA user_version").fetchone() == (1,)
    db.close()
