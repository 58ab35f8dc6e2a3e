"""Copies a Windows user makes of a transcript (trial 36c): a copy converted from CRLF to LF after it landed is a
conflict whose one line says that only the line endings differ (F6), and a copy whose last line never got its
newline is named once by the pass that finds it unchanged for the idle window (F5; ``asz sources`` lists it as
UNREAD).

Real input: the corpus session -home-user-claude-reliability/de3b8b19 written with CRLF line ends, as Claude Code on
Windows writes them; expected sizes are the file's own."""

from __future__ import annotations

import os
import time

import pytest

from cli_helpers import asz_in_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"


def _copy(corpus_dir, tmp_path, ends: bytes) -> tuple:
    lines = (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_bytes().split(b"\n")[:-1]
    path = tmp_path / "projects" / PROJECT / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(x + ends for x in lines))
    return path, lines


def _collect(tmp_path):
    return asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root"))


@pytest.mark.parametrize("landed, now, said", [(b"\r\n", b"\n", "CRLF in what landed, LF in the source now"),
                                              (b"\n", b"\r\n", "LF in what landed, CRLF in the source now")])
def test_a_copy_whose_line_endings_were_converted_says_so(corpus_dir, tmp_path, landed, now, said):
    path, lines = _copy(corpus_dir, tmp_path, landed)
    first = _collect(tmp_path)
    assert first.returncode == 0 and f" records={len(lines)} " in first.stdout, first.stdout + first.stderr
    path.write_bytes(b"".join(x + now for x in lines))  # git's autocrlf, dos2unix: the same lines
    p = _collect(tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    conflict = [x for x in p.stderr.splitlines() if x.startswith(f"conflict: {path}: ")]
    assert len(conflict) == 1, p.stderr
    assert (f"; the same lines, only their line endings differ ({said}: converted by git's core.autocrlf, dos2unix "
            "or an editor); copy the file again as it was written, byte for byte") in conflict[0], conflict[0]
    # a line changed besides the endings: not said to be the line endings alone
    path.write_bytes(b"".join(x + landed for x in lines))
    root2 = str(tmp_path / "root2")
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root2).returncode == 0
    path.write_bytes(b"".join(x + now for x in lines[:3]) + b'{"type":"x"}' + now + b"".join(x + now for x in lines[4:]))
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root2)
    conflict = [x for x in p.stderr.splitlines() if x.startswith(f"conflict: {path}: ")]
    assert len(conflict) == 1 and "line endings" not in conflict[0], p.stderr


def test_a_last_line_that_never_gets_its_newline_is_named_once(corpus_dir, tmp_path):
    path, lines = _copy(corpus_dir, tmp_path, b"\r\n")
    data = path.read_bytes()[:-2]  # the copy's last line without its CRLF
    path.write_bytes(data)
    old = time.time() - 11 * 60  # unchanged for longer than the idle window (10 minutes)
    os.utime(path, (old, old))
    p = _collect(tmp_path)
    named = [x for x in p.stderr.splitlines() if str(path) in x]
    assert named == [f"warning: {path}: torn tail: the last line has no newline ({len(lines[-1])} bytes) and the file "
                     "has not changed for 10m0s; it lands when the line is completed; a copy whose runtime had finished "
                     "never gets it: copy the file again once the runtime has written its last line whole, or end the "
                     "line (asz sources lists it as UNREAD)"], p.stderr
    assert f" records={len(lines) - 1} " in p.stdout and "partial=1" in p.stdout, p.stdout
    again = _collect(tmp_path)  # named once: the next pass counts it and says nothing more
    assert str(path) not in again.stderr and "partial=1" in again.stdout, again.stdout + again.stderr
    path.write_bytes(data + b"\r\n")  # the line ended: it lands, whole
    done = _collect(tmp_path)
    assert done.returncode == 0 and " records=1 " in done.stdout and "partial=0" in done.stdout, done.stdout + done.stderr
