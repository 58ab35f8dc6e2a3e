"""What a build found is kept across sources going and coming back (found25; trial 24b's leftover, issue 22).

A collect pass that finds a session's sources gone (Claude Code's 30-day clean-up) or back lands nothing and rewrites
the cursors beside the landed files. The found records (``_index/found``), the states and the in-memory documents were
keyed by every file of the session's folder, cursors included, so the first ``asz view`` after such a pass built every
conversation again (14.9 s against 3.9 s on a 50 MB copy). They are keyed by the round and landed files (and the torn
tails the cursors record) now, and what the cursors say (a source gone, in conflict) is read at each answer.

Real parts: the Claude Code corpus's sources copied, collected by the real ``asz collect --once``, deleted and put
back; real ``asz view`` processes on loopback; the gone sources counted from the source tree itself.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import attrs
import pytest

from asz_core.view.document import build_view
from asz_core.view.found_store import DIR
from view_server_helpers import Served, asz

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"


def _checked(s: Served, n: int, timeout: float = 120.0) -> tuple[dict, list[dict]]:
    """``(/api/status, rows)`` once the checker found the state of all ``n`` conversations."""
    deadline = time.monotonic() + timeout
    while True:
        st = s.get("/api/status").json()
        if st["checked"] >= n and not st["reading"]:
            rows = s.get("/api/conversations").json()["conversations"]
            if len(rows) == n and all(r.get("state_from") == "checked" for r in rows):
                return st, rows
        assert time.monotonic() < deadline, f"states not found within {timeout:g} s: {st}\n{s.output()}"
        time.sleep(0.2)


def _records(root: Path) -> dict[str, tuple[int, int]]:
    """Each found record's (inode, mtime_ns), by path."""
    return {str(p): (p.stat().st_ino, p.stat().st_mtime_ns) for p in (root / DIR).rglob("*.found")}


def _collect(src: Path, root: Path) -> str:
    r = asz("collect", "--once", "--source", str(src), "--root", str(root))
    return r.stdout + r.stderr


@pytest.mark.slow  # three servers and three collect passes over the corpus: about 30 s on a loaded machine
def test_sources_gone_and_back_build_nothing_again_and_the_page_says_it(tmp_path):
    if not CORPUS.is_dir():
        pytest.skip(f"the corpus is absent ({CORPUS})")
    src, root = tmp_path / "projects", tmp_path / "root"
    shutil.copytree(CORPUS, src)
    sources = sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())
    _collect(src, root)
    n = len([p for p in (root / "_conversations").iterdir() if p.is_dir()])
    assert n >= 11

    first = Served(["view", "--root", str(root)], tmp_path)
    try:
        st, rows = _checked(first, n)
        assert st["checked_built"] == 0  # every record kept by the collect's pass (kept_whole, session 47): read
        assert all(r["sources_gone"] == [] for r in rows)
    finally:
        first.stop()
    kept = _records(root)
    assert len(kept) == n

    for p in sorted(src.iterdir()):
        shutil.rmtree(p)
    said = _collect(src, root)
    assert f"gone={len(sources)} " in said, said  # the pass found every source gone and rewrote its cursor

    gone = Served(["view", "--root", str(root)], tmp_path)
    try:
        st, rows = _checked(gone, n)
        assert (st["checked"], st["checked_built"]) == (n, 0), st  # every state read from its record, none built
        assert sorted(g["file"] for r in rows for g in r["sources_gone"]) == sources
        cid = rows[0]["id"]
        doc = gone.get(f"/api/c/{cid}/view").json()
        assert doc["summary"]["sources_gone"] == rows[0]["sources_gone"]
        assert doc == build_view(root, cid)  # what a build with these cursors gives
    finally:
        gone.stop()
    assert _records(root) == kept  # read, not written again

    shutil.rmtree(src)
    shutil.copytree(CORPUS, src)  # back: the same bytes, new inodes and times
    _collect(src, root)
    back = Served(["view", "--root", str(root)], tmp_path)
    try:
        st, rows = _checked(back, n)
        assert (st["checked"], st["checked_built"]) == (n, 0), st
        assert all(r["sources_gone"] == [] and r["conflicts"] == [] for r in rows)
        assert all(r["state"] == "verified" for r in rows)
        doc = back.get(f"/api/c/{cid}/view").json()
        assert "sources_gone" not in doc["summary"] and doc == build_view(root, cid)
    finally:
        back.stop()
    assert _records(root) == kept


@pytest.mark.slow  # a server over the corpus while its sources go and come back
def test_a_document_kept_in_memory_says_its_sources_gone_without_folding_again(tmp_path):
    if not CORPUS.is_dir():
        pytest.skip(f"the corpus is absent ({CORPUS})")
    src, root = tmp_path / "projects", tmp_path / "root"
    shutil.copytree(CORPUS, src)
    _collect(src, root)
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        rows = s.get("/api/conversations").json()["conversations"]
        cid = min(r["id"] for r in rows)  # the conversation the test was written on (0d3a8e6f): rows come newest first
        before = s.get(f"/api/c/{cid}/view")
        built = s.get("/api/status").json()["documents_built"]
        assert "sources_gone" not in before.json()["summary"]
        away = tmp_path / "away"
        os.rename(src, away)
        src.mkdir()
        _collect(src, root)
        now = s.get(f"/api/c/{cid}/view")
        assert now.headers["etag"] != before.headers["etag"]  # another body: the page's copy is not reused
        summary = now.json()["summary"]
        session = now.json()["sessions"][0]
        want = sorted(p.relative_to(away).as_posix() for p in away.rglob("*") if p.is_file() and session in p.as_posix())
        assert sorted(g["file"] for g in summary["sources_gone"]) == want and want
        assert now.json() == build_view(root, cid)
        shutil.rmtree(src)
        os.rename(away, src)
        _collect(src, root)
        again = s.get(f"/api/c/{cid}/view")
        assert again.body == before.body and again.headers["etag"] == before.headers["etag"]
        assert s.get("/api/status").json()["documents_built"] == built  # neither answer folded the chain again
    finally:
        s.stop()


def test_the_key_holds_what_the_cursors_say_the_summary_keeps_and_nothing_else(canary_root, tmp_path):
    """A cursor rewritten with its source gone (or back) leaves the files' fingerprint as it was; one that records a
    torn tail changes it, since the summary's ``problems`` say the tail (as a fresh build shows)."""
    from asz_core.storage.cursor import read_cursor, write_cursor
    from asz_core.view.state import ViewState, files_fingerprint
    from view_server_helpers import CANARY_SESSION

    root = tmp_path / "root"
    shutil.copytree(canary_root, root)
    session = ViewState(root).session_of(CANARY_SESSION)
    before = files_fingerprint(root, CANARY_SESSION, session)
    cursors = sorted((root / session).rglob("*.cursor"))
    assert cursors
    cur = read_cursor(cursors[0])
    (root / session / ".lock").touch()
    ino = os.stat(cursors[0]).st_ino
    write_cursor(cursors[0], attrs.evolve(cur, state="source_gone", updated_at="2026-12-05T00:00:00.000000000Z"), fsync=False)
    assert os.stat(cursors[0]).st_ino != ino  # written anew, as a pass writes it
    assert files_fingerprint(root, CANARY_SESSION, session) == before
    assert build_view(root, CANARY_SESSION)["summary"]["sources_gone"][0]["file"] == cur.source

    write_cursor(cursors[0], attrs.evolve(cur, torn=17), fsync=False)
    after = files_fingerprint(root, CANARY_SESSION, session)
    assert after != before and after[-1] == ("", "torn", cur.source, 17)
    assert any(p.startswith("torn tail: ") and cur.source in p for p in build_view(root, CANARY_SESSION)["summary"]["problems"])

