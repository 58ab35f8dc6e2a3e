"""A landed file written again whole, with a closing line recomputed over its new bytes ("re-sealed"), is not served as
evidence, and ``asz verify`` names it (trial 3: a new user re-sealed a file and search and show served it).

Real input: the Claude Code corpus collected and parsed by the real ``asz collect --once`` (tests/conftest.py), then
one reply of session 55604662's landed transcript changed to a text of the same length and the file's closing line
recomputed, mode 0444 kept: the file verifies by itself, and only its conversation's round chain (the round's input
digest over the whole-file digests it consumed, origin-digest §4.1) says it is not the file that was parsed. The
session index, kept when the file landed, says which file and row (asz_core.flow.recorded).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
from verify_landing import edit_records  # noqa: E402
from asz_core.reading.search import INDEX_PATH  # noqa: E402

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: What the agent replied in line 7 of the corpus's source transcript of SID
#: (../shared/corpus/claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl).
REPLY = b"try running the server"
ALTERED = b"try smashed the server"
#: Another session whose transcript quotes the same reply (a tool result), never changed here.
OTHER = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def reseal(root: Path) -> tuple[Path, int]:
    """Change REPLY in SID's landed transcript and recompute its closing line; ``(file, row)`` of the record changed."""
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    rows = [i for i, line in enumerate(path.read_bytes().splitlines()[1:-1], 1) if REPLY in line]
    assert rows == [7]  # the source's line 7, one record per source line
    edit_records(path, lambda recs: [r.replace(REPLY, ALTERED) for r in recs], fix_closing=True)
    assert path.stat().st_mode & 0o777 == 0o444
    return path, rows[0]


@pytest.fixture(scope="module")
def resealed(corpus_copy) -> tuple[Path, Path, int]:
    """``(root, file, row)``: a corpus root, its search index built, then SID re-sealed."""
    root = corpus_copy()
    asz("search", "server", "--root", str(root))  # the index holds the reply as it was parsed
    path, row = reseal(root)
    return root, path, row


def test_the_resealed_file_verifies_by_itself(resealed):
    root, path, _ = resealed
    p = asz("verify", str(path), check=False)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("deep", [False, True])
def test_verify_names_the_round_and_the_file_and_its_row(resealed, deep):
    root, path, row = resealed
    p = asz("verify", "--root", str(root), *(["--deep"] if deep else []), check=False)
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    (rnd,) = sorted((root / "_conversations" / SID / "rounds").glob("r000001-*.sf"))
    assert f"{rnd}: chain [round 1]: input digest recomputed from the landed files of seq 1–1 does not match the header" in lines
    named = [ln for ln in lines if ln.startswith(f"{path}:{row + 1}: changed since parsed [round 1]: seq 1: not the file the round consumed")]
    assert len(named) == 1, p.stdout
    assert named[0].endswith(f"; record row {row} differs from the one indexed when the file landed")
    assert not any("digest mismatch" in ln for ln in lines)  # its closing line binds it: only the chain can tell


def test_verify_json_carries_the_file(resealed):
    root, path, row = resealed
    p = asz("verify", SID, "--root", str(root), "--json", check=False)
    assert p.returncode == 1
    (mine,) = [q for q in json.loads(p.stdout)["problems"] if q["problem"] == "changed since parsed"]
    assert mine["file"] == str(path) and mine["line"] == row + 1 and mine["field"] == "round 1"


def test_search_holds_back_a_hit_indexed_before_the_change(resealed):
    root, path, _ = resealed
    rel = path.relative_to(root).as_posix()
    p = asz("search", '"try running the server"', "--json", "--root", str(root), check=False)
    assert p.returncode == 1  # hits left out: a problem found (trial 26b F4)
    hits = json.loads(p.stdout)
    assert not [h for h in hits if h["file"] == rel]
    assert [h for h in hits if h["conversation"] == OTHER]  # the untouched session's copy is still served
    assert f"asz search: warning: hits in {rel} left out: the landed file does not verify (it is not the file round 1 consumed as seq 1" in p.stderr


def test_search_holds_back_the_changed_text_once_indexed(resealed):
    root, path, row = resealed
    rel = path.relative_to(root).as_posix()
    p = asz("search", "smashed", "--json", "--reindex", "--root", str(root), check=False)
    assert json.loads(p.stdout) == [] and p.returncode == 1
    warning = [ln for ln in p.stderr.splitlines() if ln.startswith(f"asz search: warning: hits in {rel} left out")]
    assert warning and f"record row {row} differs from the one indexed when the file landed" in warning[0]
    con = sqlite3.connect(root / INDEX_PATH)
    try:  # the derived index holds the row; it is held back when read
        assert con.execute("SELECT count(*) FROM hit WHERE file = ? AND row = ?", (rel, row)).fetchone()[0] > 0
    finally:
        con.close()


def test_show_refuses_the_resealed_file(resealed):
    root, path, _ = resealed
    rel = path.relative_to(root).as_posix()
    p = asz("show", SID, "msg/1/7:0", "--root", str(root), check=False)
    assert p.returncode == 1
    assert "smashed" not in p.stdout and rel + ":7" not in p.stdout
    assert f"asz show: {rel} does not verify, nothing of it is shown: it is not the file round 1 consumed as seq 1" in p.stderr
    ok = asz("show", OTHER, "talk/main", "--root", str(root), check=False)
    assert "does not verify" not in ok.stderr  # another session's records are shown


def test_the_document_says_mismatch_and_holds_back_the_text(resealed):
    root, path, _ = resealed
    p = asz("conversation", SID, "--json", "--root", str(root), check=False)
    assert p.returncode == 1 and "smashed" not in p.stdout
    assert json.loads(p.stdout)["summary"]["state"] == "mismatch"


def test_an_index_built_again_after_the_change_cannot_name_the_file_and_everything_of_the_round_is_held_back(resealed, tmp_path):
    """The session index built again from the changed file reproduces nothing: verify says which round and why no file
    is named; the readers hold back every file of the round's window (the chain says one of them changed)."""
    root0, path0, _ = resealed
    root = tmp_path / "root"
    shutil.copytree(root0, root, symlinks=True)
    path = root / path0.relative_to(root0)
    shutil.rmtree(root / SID / "index")
    asz("parse", SID, "--root", str(root))  # builds the index again from the landed files as they are now
    assert (root / SID / "index" / "entries.jsonl").is_file()
    v = asz("verify", "--root", str(root), check=False)
    assert v.returncode == 1
    told = ("chain [round 1]: which landed file changed cannot be told: the session index's digests do not "
            "reproduce this round's input digest either (the index was built again from the files as they are now); "
            f"if the session's folder was lost and its files landed again from the source (asz collect warned), asz parse {SID} "
            f"--anew --root {root} sets this chain aside")
    assert any(told in ln for ln in v.stdout.splitlines()), v.stdout
    assert "changed since parsed" not in v.stdout
    s = asz("show", SID, "msg/1/7:0", "--root", str(root), check=False)
    assert s.returncode == 1 and "smashed" not in s.stdout
    assert "round 1's input digest over seq 1–1 does not match the landed files" in s.stderr
    q = asz("search", "smashed", "--json", "--reindex", "--root", str(root), check=False)
    assert json.loads(q.stdout) == [] and path.relative_to(root).as_posix() in q.stderr and q.returncode == 1
    d = asz("conversation", SID, "--json", "--root", str(root), check=False)
    assert d.returncode == 1 and "smashed" not in d.stdout
    doc = json.loads(d.stdout)
    assert doc["summary"]["state"] == "mismatch"
    (entry,) = [f for f in doc["files"] if "problem" in f]
    assert entry["file"] == path.relative_to(root).as_posix()
    assert entry["problem"] == ("the round's input digest over seq 1–1 does not match the landed files, and the session index "
                                "cannot tell which of them changed")


def test_prose_export_gives_no_turn_from_the_resealed_file(resealed, tmp_path):
    root, path, _ = resealed
    rel = path.relative_to(root).as_posix()
    out = tmp_path / "x.jsonl"
    p = asz("export", SID, "--format", "prose", "--out", str(out), "--root", str(root), check=False)
    assert p.returncode == 1
    assert b"smashed" not in out.read_bytes() and b"try running the server" not in out.read_bytes()
    assert f"landed file {rel}: it is not the file round 1 consumed as seq 1" in p.stderr


def test_verify_names_the_session_and_its_index_when_the_index_is_gone(corpus_copy):
    """The session index (``<session>/index/entries.jsonl``) is what tells which file of a round changed; with it
    removed, the round is named and so are the session and the missing index file, never the round alone."""
    root = corpus_copy()
    reseal(root)
    shutil.rmtree(root / SID / "index")
    entries = root / SID / "index" / "entries.jsonl"
    (rnd,) = sorted((root / "_conversations" / SID / "rounds").glob("r000001-*.sf"))
    p = asz("verify", SID, "--root", str(root), check=False)
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert f"{rnd}: chain [round 1]: input digest recomputed from the landed files of seq 1–1 does not match the header" in lines
    assert any(ln.startswith(f"{rnd}: chain [round 1]: which landed file changed cannot be told: the index of session {SID}, "
                             f"{entries}, is gone (a round keeps one digest over its window, the session index one per file); ")
               and f"asz parse {SID} --anew --root {root} sets this chain aside" in ln for ln in lines), lines
    p = asz("verify", SID, "--root", str(root), "--json", check=False)
    details = [q["detail"] for q in json.loads(p.stdout)["problems"]]
    assert any(SID in d and str(entries) in d and "is gone" in d for d in details)
