"""A landed file whose exact bytes are put back is searched again whole, with no ``--reindex`` (trial 30a F1 HIGH: after
``sed -i`` damaged it (a new inode: its conversation was indexed again, the damaged text with it) and ``cp`` put the
original bytes back (the same inode), every later ``asz search`` held its hits back as "the search index does not hold
what the record holds", called the verifying conversation ``unverified`` under ``--project`` and exited 1).

Real input: trial 30a's two incident sessions (tests/reading/incident_sessions.py) collected by the real ``asz collect
--once``; the word ``psql`` stands in both transcripts' migration call (S2 repeats S1's lines), counted here from the
source lines; the damage changes ``legacy_flag`` in that record to ``legacy_flxg``. The file is put back by ``cp`` and by the documented repair, ``asz sources --reland``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from incident_sessions import S1, tool_inputs, write_incident
from reading_helpers import asz

WORD = "psql"
DAMAGED = "legacy_flag"


def _root(tmp_path: Path) -> tuple[Path, Path, int]:
    lines = write_incident(tmp_path / "projects")
    expected = sum(WORD in json.dumps(b["input"]) for sid in lines for b in tool_inputs(lines[sid]))
    assert expected == 2  # the migration's tool_use line: S1's, and S2's copy of it
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    return root, tmp_path / "projects", expected


def _damage(f: Path) -> bytes:
    """``sed -i``: the file written anew (another inode) with one byte changed; the original bytes."""
    orig = f.read_bytes()
    assert orig.count(DAMAGED.encode()) >= 1
    tmp = f.with_name(f.name + ".sed")
    tmp.write_bytes(orig.replace(DAMAGED.encode(), b"legacy_flxg"))
    tmp.replace(f)
    return orig


def _search(root: Path, *more: str):
    return asz("search", WORD, "--root", str(root), "--kind", "tool_input", "--json", *more, check=False)


def _held_then_whole(root: Path, put_back, expected: int) -> None:
    [f] = sorted((root / S1 / "streams" / "main").glob("transcript-*.sd"))
    rel = f.relative_to(root).as_posix()
    assert len(json.loads(_search(root).stdout)) == expected
    orig = _damage(f)
    p = _search(root)
    assert p.returncode == 1 and rel in p.stderr and "does not verify" in p.stderr, p.stderr
    assert [h["conversation"] for h in json.loads(p.stdout)] != [S1]
    put_back(f, orig)
    assert f.read_bytes() == orig
    assert asz("verify", "--root", str(root), check=False).returncode == 0
    for more in ((), ("--project", "/srv/staging")):
        p = _search(root, *more)
        assert p.returncode == 0, p.stderr
        assert "does not hold" not in p.stderr and "unverified" not in p.stderr and "held back" not in p.stderr, p.stderr
        hits = json.loads(p.stdout)
        assert len(hits) == expected and S1 in {h["conversation"] for h in hits} and rel in {h["file"] for h in hits}


def test_bytes_put_back_by_cp_are_searched_again(tmp_path):
    root, _, expected = _root(tmp_path)

    def cp(f: Path, orig: bytes) -> None:
        keep = f.with_name("orig")
        keep.write_bytes(orig)
        f.chmod(0o644)
        shutil.copyfile(keep, f)  # in place: the damaged file's inode, as cp does
        keep.unlink()
        f.chmod(0o444)

    _held_then_whole(root, cp, expected)


def test_bytes_put_back_by_reland_are_searched_again(tmp_path):
    root, projects, expected = _root(tmp_path)

    def reland(f: Path, orig: bytes) -> None:
        p = asz("sources", "--source", str(projects), "--root", str(root), "--reland", S1, check=False)
        assert p.returncode == 0 and "relanded:" in p.stdout, p.stdout + p.stderr

    _held_then_whole(root, reland, expected)
