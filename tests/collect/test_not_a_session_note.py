"""A source file whose name is not a session id is said by collect once, escaped readably (trial 24b F8: only
``skipped=`` counted it and ``asz sources`` named it, its bytes shown as U+FFFD; ``asz sources --json`` failed on
them).

Real input: the corpus's hello session copied whole under its own name and again under ``caf\\xe9-\\xff.jsonl`` (bytes
that are not UTF-8, as the trial named it), in one project folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import forked

PROJECT = "-home-user-claude-reliability"
HELLO = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SHOWN = f"{PROJECT}/caf\\xe9-\\xff.jsonl"
NOTE = (f"warning: {SHOWN}: file name is not a session id; not collected: none of its {{n:,}} line(s) ({{b:,}} bytes) lands "
        "under this name (asz sources lists what is skipped)")


def _asz(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``asz ARGS``, forked from the pre-imported server (tests/forked.py: what is read is its output, not its start-up)."""
    return forked.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, cwd=cwd,
                      timeout=300, env={**os.environ, "CLAUDE_CONFIG_DIR": str(cwd / "claude-home")})


def test_collect_says_it_once_and_asz_sources_names_it_escaped(corpus_dir, tmp_path):
    src = tmp_path / "projects"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, src / PROJECT)
    good = src / PROJECT / f"{HELLO}.jsonl"
    with open(os.fsencode(src / PROJECT) + b"/caf\xe9-\xff.jsonl", "wb") as f:
        f.write(good.read_bytes())
    (src / PROJECT / "notes.jsonl").write_bytes(b"")  # nothing in it left out of the root: a note, not a warning
    root = tmp_path / "root"
    p = _asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    fields = dict(f.split("=", 1) for f in p.stdout.split() if "=" in f)
    assert p.returncode == 0 and (fields["sessions"], fields["skipped"]) == ("1", "2"), p.stdout + p.stderr
    assert fields["records"] == str(good.read_bytes().count(b"\n"))  # the session itself, once
    held = good.read_bytes()  # the copy's lines and bytes, counted in the file
    # trial 45a F1: lines left out of the root are a warning (exit 0 all the same), an empty file a note
    empty = NOTE.replace("warning:", "note:", 1).replace(SHOWN, f"{PROJECT}/notes.jsonl").format(n=0, b=0)
    assert sorted(ln for ln in p.stderr.splitlines() if ln.startswith(("note:", "warning:"))) == [
        empty, NOTE.format(n=held.count(b"\n"), b=len(held))], p.stderr
    assert "\ufffd" not in p.stderr
    s = _asz("sources", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert f"skipped: {SHOWN}: file name is not a session id" in s.stdout.splitlines() and "\ufffd" not in s.stdout
    j = _asz("sources", "--json", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert j.returncode == 0, j.stderr
    (entry,) = [e for a in json.loads(j.stdout)["adapters"] for e in a["skipped_entries"] if e["path"] == SHOWN]
    assert entry == {"path": SHOWN, "reason": "file name is not a session id"}


def test_a_landed_transcript_replaced_by_a_link_out_of_the_source_root_is_a_warning(corpus_dir, tmp_path):
    """Trial 41b F4: a landed transcript replaced by a symbolic link to a copy outside the source root (a line added
    to the copy) was only ``skipped=1``; its cursor stays and what is written through the link never lands. The pass
    says so, a warning naming the file and why the link is not followed."""
    src = tmp_path / "projects"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, src / PROJECT)
    root = tmp_path / "root"
    assert _asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path).returncode == 0
    good = src / PROJECT / f"{HELLO}.jsonl"
    away = tmp_path / "elsewhere" / "hello.jsonl"
    away.parent.mkdir()
    away.write_bytes(good.read_bytes() + b'{"type":"system","uuid":"after-the-link"}\n')
    good.unlink()
    good.symlink_to(away)
    p = _asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    fields = dict(f.split("=", 1) for f in p.stdout.split() if "=" in f)
    assert p.returncode == 0 and (fields["skipped"], fields["records"]) == ("1", "0"), p.stdout + p.stderr
    assert [ln for ln in p.stderr.splitlines() if ln.startswith("warning:")] == [
        f"warning: {PROJECT}/{HELLO}.jsonl: a symbolic link to {away}, outside the source root: not followed, so nothing "
        "written through it lands (a link is never a way to land a file from elsewhere on the machine); what landed from "
        "this name before is kept, and its cursor stays where it was; put the file itself back in the source root, or "
        "collect the folder it is in with --source"], p.stderr
