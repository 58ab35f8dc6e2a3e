"""An erased session landed again by an asz that knows no ``_erased.list`` (trial 33c, F1; docs/storage-root.md,
Erasure on request, "Going back to an older asz").

An older asz (before ``asz erase``) run on the root after an erasure collects the session's source anew: new files
stamped after the erasure, a chain under the session's id, and no ``_removed/<session>``. The old asz cannot be
changed; this one must not call that an erasure "stopped before it ended", must show, serve and push none of it, and
the same ``asz erase`` removes it again. The re-landing is made the way the older asz makes it: the real ``asz
collect --once`` of the session's source into a root of its own after the erasure (so its files are stamped after
it), whose session directory and chain are then put into the erased root, as an asz with no record of the erasure
leaves them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import forked
import pytest

from view_server_helpers import Served

from asz_core.export.wire import outbox

ASZ = [sys.executable, "-m", "asz_core.cli.main"]
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"  # -home-user-claude-reliability: "Write a shell script called hello.sh"
OTHER_PROJECT = "-home-user-sample-project"
REASON = "request 2026-114"


def asz(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``asz ARGS`` as a real child process, forked from the pre-imported server (tests/forked.py: its own pid,
    environment and exit status, without the interpreter's 0.4 s start-up)."""
    return forked.run([*ASZ, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture()
def relanded(corpus_dir: Path, tmp_path: Path) -> Path:
    projects = corpus_dir / "claude-code" / "projects"
    if not (projects / "-home-user-claude-reliability" / f"{SID}.jsonl").is_file():
        pytest.skip("the Claude Code corpus is absent")
    src = tmp_path / "src"
    for name in ("-home-user-claude-reliability", OTHER_PROJECT):
        shutil.copytree(projects / name, src / name)
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 0
    e = asz("erase", SID, "--root", str(root), "--reason", REASON, "--by", "officer@archive")
    assert e.returncode == 0, e.stderr
    assert not (root / SID).exists() and not (root / "_conversations" / SID).exists()
    # the older asz's pass: the same source landed anew (stamped after the erasure), with its chain
    alone = tmp_path / "alone"
    shutil.copytree(projects / "-home-user-claude-reliability", alone / "-home-user-claude-reliability")
    other = tmp_path / "other"
    c = asz("collect", "--once", "--source", str(alone), "--root", str(other))
    assert c.returncode == 0, c.stderr
    shutil.copytree(other / SID, root / SID, symlinks=True)
    shutil.copytree(other / "_conversations" / SID, root / "_conversations" / SID, symlinks=True)
    return root


def test_verify_says_landed_again_not_stopped_and_erase_again_removes_it(relanded: Path, corpus_dir: Path):
    root = relanded
    v = asz("verify", "--root", str(root))
    out = v.stdout + v.stderr
    assert v.returncode == 0, out
    assert "was stopped before it ended" not in out, out
    (line,) = [ln for ln in out.splitlines() if "landed again after its erasure" in ln]
    assert f"session {SID} landed again after its erasure (1 file(s) by claude-code-local/" in line, line
    assert "by officer@archive (request 2026-114) with asz erase" in line and "_erased.list:2)" in line, line
    assert f"asz erase {SID} --root {root} --reason" in line, line
    # the stamp it names is the re-landed file's, later than the erasure's
    (landed,) = (root / SID).rglob("*.sd")
    stamp = landed.name.split("-")[1]
    erased_at = json.loads((root / "_erased.list").read_text().splitlines()[1])["erased"]
    assert f"the first at {stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:]}" in line
    assert stamp > erased_at.replace("-", "").replace(":", "")
    # no reader shows it, push sends nothing of it
    ls = asz("ls", "--json", "--root", str(root))
    listed = [r["id"] for r in json.loads(ls.stdout)]
    assert ls.returncode == 0 and listed and SID not in listed, listed
    assert not [f.rel for f in outbox(root) if SID in f.rel], "push would send the re-landed session"
    assert [f for f in outbox(root)], "the other session is still pushed"
    s = Served(["view", "--root", str(root)], root.parent, timeout=60)
    try:
        ids = [r["id"] for r in s.get("/api/conversations").json()["conversations"]]
        assert ids and SID not in ids, ids
        r = s.get(f"/api/c/{SID}/view")
        assert r.status == 404 and f"session {SID} was erased on ".encode() in r.body, r.body
    finally:
        s.stop()
    # a collect of the source: the note says what happened and how to end it
    c = asz("collect", "--once", "--source", str(root.parent / "src"), "--root", str(root))
    assert c.returncode == 0, c.stderr
    (note,) = [ln for ln in c.stderr.splitlines() if f"session {SID} was erased on" in ln]
    assert f"; session {SID} landed again after its erasure (1 file(s)" in note, note
    # the same asz erase removes it again; the first record stays, and verify is quiet about it
    e = asz("erase", SID, "--root", str(root), "--reason", REASON)
    assert e.returncode == 0, e.stdout + e.stderr
    assert not (root / SID).exists() and not (root / "_conversations" / SID).exists()
    assert sum(1 for ln in (root / "_erased.list").read_text().splitlines() if SID in ln) == 1
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0 and "landed again" not in v.stdout + v.stderr and "not finished" not in v.stdout, v.stdout


def test_an_erasure_stopped_before_it_moved_the_directory_still_says_stopped(corpus_dir: Path, tmp_path: Path):
    """The other case keeps its words: ``_removed/<session>`` left and the directory of before the erasure."""
    projects = corpus_dir / "claude-code" / "projects"
    if not (projects / "-home-user-claude-reliability").is_dir():
        pytest.skip("the Claude Code corpus is absent")
    src = tmp_path / "src"
    shutil.copytree(projects / "-home-user-claude-reliability", src / "-home-user-claude-reliability")
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 0
    from asz_core.storage.erased_list import record_erasure

    (root / "_removed" / SID).mkdir(parents=True)  # step 1 of asz erase, then a kill: nothing moved yet
    record_erasure(root, {"session": SID, "conversations": [SID], "erased": "2026-12-05T21:03:40.654156009Z",
                          "by": "officer@archive", "reason": REASON, "first_landed": "", "adapter": ""})
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert "landed again" not in v.stdout + v.stderr
    assert f"asz erase of session {SID} was stopped before it ended" in v.stdout + v.stderr
