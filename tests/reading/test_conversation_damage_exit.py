"""``asz conversation ID --json``/``--yaml`` on damaged evidence prints the whole document, names the damage on stderr
(file, line and field, in asz verify's words) and exits 1, as the summary form, asz verify, usage, export and search
exit on it (fix29c: it exited 0; README, Exit codes; docs/reading.md, Exit status).

Real input: a copy of the corpus root collected by the real ``asz collect --once``, one byte string of one landed
transcript changed in place (the file made writable, edited, made read-only again, as a person with write access
would); and a corpus transcript collected in two passes (two rounds) whose second round file is edited the same way.
The expected lines and line numbers are counted from the damaged files themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
import yaml
from reading_helpers import asz
from test_missing_newest_round import SID as TWO_ROUNDS_SID, two_rounds  # noqa: F401 (a fixture: two rounds of a corpus session)

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
OTHER = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
TYPED = b"Write a shell script called hello.sh"
ALTERED = b"Write a shell script called HACKED"


def _edit(path: Path, old: bytes, new: bytes) -> bytes:
    """Replace ``old`` (found once) by ``new`` in the read-only ``path``, keeping it read-only; the new bytes."""
    data = path.read_bytes()
    assert data.count(old) == 1
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data := data.replace(old, new))
    os.chmod(path, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    return data


@pytest.fixture(scope="module")
def damaged(corpus_copy) -> tuple[Path, Path, bytes]:
    """``(root, damaged landed file, its bytes)``: a corpus root whose SID main transcript was changed in place."""
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    return root, path, _edit(path, TYPED, ALTERED)


def _load(fmt: str, text: str) -> dict:
    return json.loads(text) if fmt == "--json" else yaml.safe_load(text)


@pytest.mark.parametrize("fmt", ["--json", "--yaml"])
def test_a_landed_file_that_fails_its_digest_exits_1_naming_file_line_and_field(damaged, fmt):
    root, path, data = damaged
    lines = data.splitlines()
    closing = len(lines)  # the closing line binds the file's bytes: the last line
    changed = next(i for i, ln in enumerate(lines, 1) if ALTERED in ln)
    p = asz("conversation", SID, fmt, "--root", str(root), check=False)
    assert p.returncode == 1, p.stderr
    doc = _load(fmt, p.stdout)  # the whole document all the same, what does not verify held back
    assert doc["conversation"] == SID and doc["summary"]["state"] == "mismatch" and doc["talks"]
    assert "HACKED" not in p.stdout
    damage = [ln for ln in p.stderr.splitlines() if ln.startswith("asz conversation: damage: ")]
    assert f"asz conversation: damage: {path}:{closing}: digest mismatch [digest]: the file's bytes are not the ones its " \
           "closing line binds" in damage, p.stderr
    assert any(ln.startswith(f"asz conversation: damage: {path}:{changed}: damaged record: record row {changed - 1} differs "
                             "from the one indexed when the file landed") for ln in damage), p.stderr
    (rnd,) = (root / "_conversations" / SID / "rounds").glob("r000001-*.sf")
    assert f"asz conversation: damage: {rnd}: chain [round 1]: input digest recomputed from the landed files of seq 1–1 " \
           "does not match the header" in damage
    rel = path.relative_to(root).as_posix()  # the document's problem, said before the damage as it always was
    assert (f"asz conversation: warning: {SID} does not verify (mismatch): landed file {rel} does not read: digest mismatch: "
            f"the file's bytes are not the ones its closing line binds (line {closing})") in p.stderr.splitlines()


def test_the_summary_names_the_same_damage(damaged):
    root, path, data = damaged
    p = asz("conversation", SID, "--root", str(root), check=False)
    assert p.returncode == 1
    assert f"asz conversation: damage: {path}:{len(data.splitlines())}: digest mismatch [digest]: " in p.stderr


def test_a_conversation_that_verifies_in_the_same_root_exits_0_with_nothing_on_stderr(damaged):
    root, _, _ = damaged
    p = asz("conversation", OTHER, "--json", "--root", str(root), check=False)
    assert p.returncode == 0 and p.stderr == ""
    assert json.loads(p.stdout)["summary"]["state"] == "verified"


@pytest.mark.parametrize("fmt", ["--json", "--yaml"])
def test_a_round_that_fails_its_digest_exits_1_naming_the_round_file_its_line_and_field(two_rounds, tmp_path, fmt):  # noqa: F811
    """Round 2's file edited in place: its commit line no longer binds its bytes. The fold stops at round 1, which is
    printed whole; stderr names round 2's file, its commit line's number and the field."""
    root = tmp_path / "root"
    shutil.copytree(two_rounds, root, symlinks=True)
    sid = TWO_ROUNDS_SID
    (rnd,) = (root / "_conversations" / sid / "rounds").glob("r000002-*.sf")
    data = rnd.read_bytes()
    stream_line = next(ln for ln in data.splitlines() if b'"id":"stream/main"' in ln)
    records = json.loads(stream_line)["attrs"]["records"]
    data = _edit(rnd, stream_line, stream_line.replace(b'"records":%d' % records, b'"records":%d' % (records + 1)))
    commit = len(data.splitlines())
    assert json.loads(data.splitlines()[-1])["t"] == "commit"
    p = asz("conversation", sid, fmt, "--root", str(root), check=False)
    assert p.returncode == 1, p.stderr
    doc = _load(fmt, p.stdout)
    assert doc["summary"]["state"] == "mismatch" and doc["talks"] and doc["head"]["round"] == 1
    assert [(r["round"], r["verified"]) for r in doc["rounds"]] == [(1, True), (2, False)]
    damage = [ln for ln in p.stderr.splitlines() if ln.startswith("asz conversation: damage: ")]
    assert len(damage) == 1, p.stderr
    assert damage[0].startswith(f"asz conversation: damage: {rnd}: chain [round 2]: commit: digest ")
    assert "does not match the bytes before it (their SHA-256 is " in damage[0] and f"(line {commit})" in damage[0]
    untouched = asz("conversation", sid, fmt, "--root", str(two_rounds), check=False)
    assert untouched.returncode == 0 and untouched.stderr == ""
