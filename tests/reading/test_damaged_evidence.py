"""A landed file whose closing line no longer binds its bytes is never read as evidence (trial finding 2; seed 004:
verification is content, not an error; seed 000: Closing line).

Real input: the Claude Code corpus collected and parsed (and its search index built) by the real commands, then
one byte string of one landed transcript changed in place, as a person with write access would (the file is made
writable, edited and made read-only again). The document still builds and says the problem; the text of that file
is held back (state ``unavailable``), ``asz export`` writes the export, warns on stderr naming the file and exits 1,
and ``asz search`` leaves out the hits its index took from the file before it was changed.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from reading_helpers import asz, asz_json
from asz_core.reading.search import INDEX_PATH

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
#: What the person typed in the corpus's source transcript of SID (../shared/corpus/claude-code/projects/-home-user-claude-reliability).
TYPED = b"Write a shell script called hello.sh"
ALTERED = b"Write a shell script called HACKED"


def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.get("children", ()))


@pytest.fixture(scope="module")
def damaged(corpus_copy) -> tuple[Path, Path]:
    """``(root, damaged file)``: a corpus root indexed for search, then SID's main transcript changed in place."""
    root = corpus_copy()
    asz("search", "hello", "--root", str(root))  # the index holds the typed text before the file is changed
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    data = path.read_bytes()
    assert data.count(TYPED) == 1
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(TYPED, ALTERED))
    os.chmod(path, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    return root, path


def test_verify_names_the_damaged_file(damaged):
    root, path = damaged
    p = asz("verify", "--root", str(root), check=False)
    assert p.returncode == 1
    assert any(path.name in ln and "digest mismatch" in ln for ln in (p.stdout + p.stderr).splitlines()), p.stdout + p.stderr


def test_the_document_holds_back_the_text_of_a_file_that_does_not_verify(damaged):
    root, path = damaged
    p = asz("conversation", SID, "--json", "--root", str(root), check=False)
    assert p.returncode == 1  # a viewer gets a document, never an error instead of one; the damage exits 1 (fix29c)
    assert "HACKED" not in p.stdout and "hello.sh" not in p.stdout.split('"undescribed"')[0].split('"talks"')[1]
    doc = json.loads(p.stdout)
    rel = path.relative_to(root).as_posix()
    assert doc["summary"]["state"] == "mismatch"
    assert any(rel in x and "digest mismatch" in x for x in doc["summary"]["problems"])
    (entry,) = [f for f in doc["files"] if f["file"] == rel]
    assert entry["problem"].startswith("digest mismatch: the file's bytes are not the ones its closing line binds")
    assert [f for f in doc["files"] if "problem" in f] == [entry]  # every other file verifies
    seq = entry["seq"]
    from_file = [n for n in walk(doc["talks"]) if (n.get("ref") or {}).get("seq") == seq and "state" in n]
    assert from_file and all(n["state"] == "unavailable" and "text" not in n for n in from_file)
    person = [n for n in from_file if n["kind"] == "message.external"]
    assert person and all(isinstance(n.get("bytes"), int) and n["bytes"] > 0 for n in person)  # its size is still said
    assert all("label" not in t and "reply" not in t for t in doc["talks"] if (t.get("ref") or {}).get("seq") == seq)


def test_a_conversation_that_verifies_carries_no_problem_key(damaged):
    root, _ = damaged
    other = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    doc = asz_json("conversation", other, "--json", "--root", str(root))
    assert doc["summary"]["state"] == "verified"
    assert not any("problem" in f for f in doc["files"])


@pytest.mark.parametrize("fmt", ["md", "html", "json", "prose"])
def test_export_writes_warns_naming_the_file_and_exits_1(damaged, tmp_path, fmt):
    root, path = damaged
    rel = path.relative_to(root).as_posix()
    out = tmp_path / f"x.{fmt}"
    p = asz("export", SID, "--format", fmt, "--out", str(out), "--root", str(root), check=False)
    assert p.returncode == 1, p.stderr
    body = out.read_text(encoding="utf-8")
    assert "HACKED" not in body
    warnings = [ln for ln in p.stderr.splitlines() if ln.startswith(f"asz export: warning: {SID} does not verify: ")]
    assert any(rel in ln and "digest mismatch" in ln for ln in warnings), p.stderr
    if fmt == "md":
        assert f"[not shown: landed file {rel} does not verify: digest mismatch" in body
        assert f"- **mismatch:** landed file {rel} does not read: digest mismatch" in body
    if fmt == "html":
        assert "This conversation does not verify (mismatch)" in body and f"[not shown: landed file {rel} does not verify" in body


def test_export_of_a_conversation_that_verifies_exits_0_with_nothing_on_stderr(damaged):
    root, _ = damaged
    p = asz("export", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "--root", str(root))
    assert p.returncode == 0 and "warning" not in p.stderr and "not shown" not in p.stdout


def test_search_leaves_out_hits_indexed_from_a_file_changed_since(damaged):
    root, path = damaged
    rel = path.relative_to(root).as_posix()
    p = asz("search", '"Write a shell script called"', "--json", "--root", str(root), check=False)
    assert p.returncode == 1  # problems found, as asz verify, usage and export exit on it (trial 26b F4: exit 0)
    hits = json.loads(p.stdout)
    assert not [h for h in hits if h["file"] == rel]
    assert f"asz search: warning: hits in {rel} left out: the landed file does not verify" in p.stderr
    # the index still holds the row: the hit is left out when read, not lost from the derived data
    import sqlite3

    con = sqlite3.connect(root / INDEX_PATH)
    try:
        assert con.execute("SELECT count(*) FROM hit WHERE file = ?", (rel,)).fetchone()[0] > 0
    finally:
        con.close()


def test_a_file_written_again_whole_with_a_new_closing_line_is_held_back_too(corpus_copy, tmp_path):
    """The closing line recomputed over the changed bytes: the file reads, but the round's input digest no longer
    matches, and the session index (kept when the file landed) points at the file and row that changed."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
    from verify_landing import edit_records

    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    rows = [i for i, line in enumerate(path.read_bytes().splitlines()[1:-1], 1) if TYPED in line]
    assert len(rows) == 1
    edit_records(path, lambda recs: [r.replace(TYPED, ALTERED) for r in recs], fix_closing=True)
    rel = path.relative_to(root).as_posix()
    p = asz("conversation", SID, "--json", "--root", str(root), check=False)
    assert p.returncode == 1 and "HACKED" not in p.stdout
    doc = json.loads(p.stdout)
    (entry,) = [f for f in doc["files"] if "problem" in f]
    assert entry["file"] == rel
    assert entry["problem"] == f"record row {rows[0]} differs from the one indexed when the file landed (line {rows[0] + 1})"
    assert doc["summary"]["state"] == "mismatch" and doc["rounds"][0]["verified"] is False
    assert any(x.startswith(f"landed file {rel} differs from the file indexed when it landed") for x in doc["summary"]["problems"])
    person = [n for n in walk(doc["talks"]) if n["kind"] == "message.external" and n["ref"]["seq"] == entry["seq"]]
    assert person and all(n["state"] == "unavailable" and "text" not in n for n in person)
    out = tmp_path / "x.md"
    e = asz("export", SID, "--out", str(out), "--root", str(root), check=False)
    assert e.returncode == 1 and "HACKED" not in out.read_text(encoding="utf-8")
    assert f"[not shown: landed file {rel} does not verify: record row {rows[0]} differs" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("form", [(), ("--json",), ("--json", "--held-back"), ("--conversations",),
                                  ("--conversations", "--json")])
def test_search_exits_1_when_it_leaves_out_hits_of_damaged_evidence(damaged, form):
    """Trial 26b F4: asz search left the damaged file's hits out, warned, and exited 0 while verify, usage and export
    exit 1 on the same damage (README: exit 1, problems found). Every form prints its answer, then exits 1; a query
    none of whose hits lie in the damaged file found no problem, exit 0."""
    root, path = damaged
    rel = path.relative_to(root).as_posix()
    p = asz("search", *form, "shell script hello", "--root", str(root), check=False)
    assert p.returncode == 1, (form, p.stdout, p.stderr)
    assert f"asz search: warning: hits in {rel} left out: the landed file does not verify" in p.stderr
    if "--json" in form:
        json.loads(p.stdout)  # the answer is printed whole all the same
    else:
        assert f"! hits in {rel} left out" in p.stdout
    clean = asz("search", *form, "phoenix", "--root", str(root), check=False)  # the spotter session's words only
    assert clean.returncode == 0 and "left out" not in clean.stderr, clean.stderr
