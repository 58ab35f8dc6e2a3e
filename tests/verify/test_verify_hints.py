"""``asz verify`` says what it does not fail for (trial 3, F10 and F12): a source in conflict (rewritten after it
landed, so collection of its session stopped) is a warning naming the session and the source; a session the root's
id table remembers that has neither landed files nor a chain here is a note worded as a hint.

Real input: a session of the Claude Code corpus (../shared/corpus/claude-code/projects) collected by the real
``asz collect --once``, its source rewritten and collected again; the corpus root collected once
(tests/conftest.py) with one session removed whole.
``asz`` runs in the test's process (:func:`cli_helpers.asz_in_process`): no signal, pipe or exit status of a process
is tested here (session 33: a child process each cost about 0.4 s of CPU).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"
TYPED = b"Write a shell script called hello.sh"  # what the person typed in SID's source transcript


def asz(*args: str) -> subprocess.CompletedProcess:
    return asz_in_process(*args)


@pytest.mark.slow
def test_a_source_in_conflict_is_a_warning_naming_session_and_source(corpus_dir, tmp_path):
    src, root = tmp_path / "src", tmp_path / "root"
    (src / PROJECT).mkdir(parents=True)
    path = src / PROJECT / f"{SID}.jsonl"
    original = (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_bytes()
    path.write_bytes(original)
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 0
    path.write_bytes(original.replace(TYPED, b"EDITED HISTORY", 1) + original.splitlines(keepends=True)[-1])
    c = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert c.returncode == 1 and "conflict:" in c.stderr

    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr  # the landed data is whole: the root's integrity is not in question
    (w,) = [ln for ln in v.stdout.splitlines() if ln.startswith("warning:")]
    edited = next(n for n, ln in enumerate(original.splitlines(), 1) if TYPED in ln)
    assert w.startswith(f"warning: {PROJECT}/{SID}.jsonl: source in conflict: session {SID}, transcript of stream main: "
                        f"rewritten: the {len(original)} bytes before offset {len(original)} changed; line {edited} changed "
                        "(since ")  # the line said, counted in the source (trial 34a F1)
    assert (f"asz sources lists it, asz sources --reset-conflict {SID} --root {root} --adapter claude-code-local "
            f"--source {src} resumes it") in w  # the folder the pass read (trial 34a F1)
    assert v.stdout.splitlines()[-1] == "all landed data is contiguous and matches its digests"
    j = json.loads(asz("verify", "--root", str(root), "--json").stdout)
    assert j["ok"] is True and [x["problem"] for x in j["warnings"]] == ["source in conflict"]
    assert j["warnings"][0]["file"] == f"{PROJECT}/{SID}.jsonl"

    path.write_bytes(original)  # its bytes put back: the reset makes it active, and the warning goes
    r = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SID)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warning:" not in asz("verify", "--root", str(root)).stdout


def test_a_session_removed_whole_from_a_root_without_the_list_is_a_hint_from_the_id_table(corpus_copy):
    """A root with no _sessions.list (collected before the list existed, or the list deleted too): the id table's hint
    stays the one trace, a note (derived data is no evidence: docs/verify.md, Sessions removed whole); a root with the
    list fails instead (tests/verify/test_verify_listed.py), and so does one whose list was deleted (trial 41b F2: its
    _README.txt shows an asz that keeps the list wrote here), the hint beside that problem."""
    root = corpus_copy()
    shutil.rmtree(root / SID)
    shutil.rmtree(root / "_conversations" / SID)
    (root / "_sessions.list").unlink()
    hint = (f"1 session(s) named in _index/ids.sqlite have no landed files and no chain here: {SID} (a hint, not proof: "
            "that table is derived data, which can be deleted or copied apart from the sessions; if they were collected "
            "into this root, their session directories were removed)")
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1 and hint in v.stdout.splitlines() and ": missing list: " in v.stdout, v.stdout + v.stderr
    (root / "_README.txt").unlink()  # as a root from before the list: no _README.txt (2026-12-05) naming it either
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert hint in v.stdout.splitlines() and "missing list" not in v.stdout
    (root / "_index" / "ids.sqlite").unlink()  # derived data deleted too: nothing is left to tell
    assert "named in _index/ids.sqlite" not in asz("verify", "--root", str(root)).stdout
