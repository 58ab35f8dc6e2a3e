"""``asz verify --export COPY --root ROOT`` of an honest copy made while its session's unfinished last line was a
write in progress (under the 10-minute window, :func:`~asz_core.storage.torn.is_torn`), checked after the line aged
into a torn tail (trial 45b F1: ``1 line(s) of the landed text are missing from the copy here``, exit 1, though only
the problem box the document now says was new). A problem that appeared or went since the copy is said as such, the
rest of the copy is still held to the landed text byte for byte, and a real change of the copy is still a problem.

Real input: the corpus session de3b8b19 with its last byte (the newline) cut, collected by the real ``asz collect
--once`` while the file is fresh, exported, its mtime then set an hour back and collected again (the cursor records
the torn tail; no file lands)."""

from __future__ import annotations

import json
import os
import hashlib
import shutil

import pytest
from reading_helpers import asz

from asz_core.reading.export_manifest import line_digests
from asz_core.storage.layout import landed_files, session_dirs

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"
#: Every form a copy says its problems in (export_problems.problem_parts): md/html boxes, json's summary.problems
#: (--whole too), the --audit header's problems key, the text header's problems: line (trial 45b F1: json, audit and
#: text exit 1 before).
FORMS = {"c.md": ["--format", "md"], "c.html": ["--format", "html"], "c.json": ["--format", "json"],
         "c.w.json": ["--format", "json", "--whole"], "c.jsonl": ["--audit"], "c.txt": ["--format", "text"]}

#: What each form says where the conversation has no problem (the part the check holds apart).
NONE = {".md": b"\n- conversation: `", ".html": b'<span class="id">', ".json": b',"problems":[],',
        ".jsonl": b',"problems":[],', ".txt": b"\nproblems: none\n"}


def _export(root, base, prefix):
    copies = {}
    for name, args in FORMS.items():
        copies[name] = base / (prefix + name)
        asz("export", SID, *args, "--root", str(root), "--out", str(copies[name]))
    return copies


def _tampered(copy, old: bytes, new: bytes):
    """``copy`` with its first ``old`` made ``new`` and its manifest's digests written again (only the root can tell)."""
    data = copy.read_bytes().replace(old, new, 1)
    bad = copy.with_name("bad-" + copy.name)
    bad.write_bytes(data)
    body = json.loads(copy.with_name(copy.name + ".manifest.json").read_text())
    body["export"] = {**body["export"], "file": bad.name, "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest(), "lines": line_digests(data)}
    bad.with_name(bad.name + ".manifest.json").write_text(json.dumps(body))
    return bad, data[:data.index(new)].count(b"\n") + 1


def _verify(copy, root, code=0):
    p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
    assert p.returncode == code, (copy.name, p.stdout)
    return p.stdout


@pytest.mark.slow
def test_a_problem_gained_or_gone_since_the_copy_is_said_not_missing_text(corpus_dir, tmp_path):
    proj = tmp_path / "projects" / PROJECT
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, proj)
    path = proj / f"{SID}.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[:-1])  # the last record whole but for its newline, written just now: a write in progress
    size = len(data[:-1].rsplit(b"\n", 1)[1])
    torn = f"torn tail: {PROJECT}/{SID}.jsonl: the last line has no newline ({size} bytes)"
    root = tmp_path / "root"
    collect = ("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    asz(*collect)
    fresh = _export(root, tmp_path, "")
    (sdir,) = session_dirs(root)
    before = sorted(ln.seq for ln, _ in landed_files(sdir))
    os.utime(path, (1_700_000_000, 1_700_000_000))  # unchanged for longer than 10 minutes: now a torn tail
    asz(*collect)
    assert sorted(ln.seq for ln, _ in landed_files(sdir)) == before  # nothing landed: only the cursor's torn key
    for copy in fresh.values():
        assert b"torn tail" not in copy.read_bytes()
        assert NONE[copy.suffix] in copy.read_bytes()  # the part that differs now (json's key, text's header line)
        out = _verify(copy, root)
        (said,) = [x for x in out.splitlines() if "since the copy" in x]
        assert said.startswith(f"ok: {SID}: the conversation gained a problem since the copy was made: {torn}"), said
        assert "missing" not in out and out.splitlines()[-1] == "the copy checks against the root"
        # a word of the first prompt, as the source holds it, changed in the copy: still named, exit 1
        bad, line = _tampered(copy, b"hello.sh", b"hellO.sh")
        out = _verify(bad, root, 1)
        assert f"bad-{copy.name}: line {line} column " in out and "the copy's text is not the landed text" in out
    aged = _export(root, tmp_path, "aged-")  # made while the tail is torn: its box says so
    with path.open("ab") as f:
        f.write(b"\n")  # the line completed: it lands, and no report says the torn tail any more
    asz(*collect)
    assert sorted(ln.seq for ln, _ in landed_files(sdir)) != before
    for copy in aged.values():
        assert torn.encode() in copy.read_bytes()
        out = _verify(copy, root)
        assert f"ok: {SID}: a problem the copy says went since it was made: {torn}" in out, out
        assert "the root moved on since the export" in out and "missing" not in out
