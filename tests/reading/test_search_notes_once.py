"""A search note is read once where stdout and stderr are one file (trial 31b F11): on a terminal, or ``2>&1``, the
``! `` line under the hits says it, and stderr does not say it again; on two files each stream says it (a script
reading stdout alone is told, a log of stderr is told). Real ``asz search`` processes (forked from the pre-imported
server, tests/forked.py) over a root whose one file does not verify (the note names it)."""

from __future__ import annotations

import os
import subprocess
import sys

import forked



def _root(corpus_copy, tmp_path):
    """A copy of the run's once-collected corpus root (``asz collect --once``, tests/conftest.py) with one landed
    record's text damaged; (the root, that file's path in it)."""
    root = corpus_copy(tmp_path / "data")
    # damage one landed record's text (the hits in that file are held back, and a note names it)
    victim = max((f for f in root.glob("*/streams/main/*.sd")), key=lambda f: f.stat().st_size)
    data = victim.read_bytes()
    at = data.index(b'"text":"', len(data) // 2) + 8
    victim.write_bytes(data[:at] + (b"X" if data[at:at + 1] != b"X" else b"Y") + data[at + 1:])
    return root, victim.relative_to(root).as_posix()


def test_a_note_is_printed_once_on_one_stream_and_on_both_when_they_are_two(corpus_copy, tmp_path):
    root, victim = _root(corpus_copy, tmp_path)
    cmd = [sys.executable, "-m", "asz_core.cli.main", "search", "the", "--root", str(root), "--limit", "1"]
    env = {**os.environ, "HOME": str(tmp_path)}
    two = forked.run(cmd, capture_output=True, text=True, env=env)
    assert two.returncode == 1, two.stderr  # hits left out: exit 1 (docs/cli.md, asz search)
    assert any(ln.startswith("! ") and victim in ln for ln in two.stdout.splitlines()), two.stdout
    assert any(ln.startswith("asz search: warning: ") and victim in ln for ln in two.stderr.splitlines()), two.stderr
    one = forked.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert one.returncode == 1
    lines = [ln for ln in one.stdout.splitlines() if victim in ln and "left out" in ln]
    assert len(lines) == 1 and lines[0].startswith("! "), one.stdout
