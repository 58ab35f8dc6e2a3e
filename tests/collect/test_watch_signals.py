"""``asz collect`` watching stops on SIGINT however it was started (session 12's trial: started with SIGINT ignored,
as a shell starts a background job, it never stopped on ``kill -INT``, while ``asz view`` and ``asz receive`` did).

The handler is in place before the ``collecting … into …`` line (asz_core/cli/stopping.py): each run sends SIGINT the
moment a line is read, once while the first pass may still run and once while it waits for the next pass. Both end
as a Ctrl-C in a terminal does: ``stopped: landed N file(s) …`` on stderr, exit 0 (docs/cli.md, collect)."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

import pytest

from collect_helpers import ASZ, append, env, line, mini_args

STOPPED = re.compile(r"^stopped: landed (\d+) file\(s\) in (\d+) session\(s\) and wrote (\d+) round\(s\) this pass", re.M)


def _watch_then_sigint(tmp_path: Path, name: str, after: str) -> tuple[int | None, str, str, Path]:
    """Start a watching ``asz collect`` with SIGINT ignored and send SIGINT once the line ``after`` (``stderr``: its
    ``collecting`` line; ``stdout``: its first pass line) is read; exit status (None when it had not stopped 60 s
    later), stdout, stderr and the storage root."""
    src, root = tmp_path / name / "src", tmp_path / name / "data"
    append(src / "s1" / "main.jsonl", line(0), line(1))
    p = subprocess.Popen([*ASZ, "collect", *mini_args(src, root, "--interval", "1h", "--jobs", "1")], env=env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as a shell's background job
    first = (p.stderr if after == "stderr" else p.stdout).readline()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, first + out, err, root
    return p.returncode, (first if after == "stdout" else "") + out, (first if after == "stderr" else "") + err, root


@pytest.mark.parametrize("after", ["stderr", "stdout"])
def test_watch_started_with_sigint_ignored_stops_on_sigint_with_exit_0(tmp_path, after):
    code, out, err, root = _watch_then_sigint(tmp_path, after, after)
    assert err.startswith("collecting mini-jsonl from "), err
    assert code == 0, err
    said = STOPPED.search(err)
    assert said, err
    files = sorted(root.glob("*/streams/*/*.sd"))  # the root started empty: every landed file is this pass's
    assert int(said.group(1)) == len(files) and int(said.group(2)) == len({f.parts[-4] for f in files}), (err, files)
    if after == "stdout":  # stopped while waiting for the next pass: the first one landed both lines of s1
        assert "sessions=1 " in out and len(files) == 1, (out, files)
