"""Long work on the command line: a progress bar on a terminal, none when piped; Ctrl-C stops ``asz verify`` (issue 20).

The terminal is a real pseudo-terminal (``os.openpty``): the command's stdout
and stderr are its slave end, as in a shell. Nothing here asserts a time: the
seconds from SIGINT to exit are printed (``-s`` shows them).
"""

from __future__ import annotations

import importlib.util
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reading_helpers import REPO

BAR = "━".encode()  # the bar rich draws
ASZ = [sys.executable, "-m", "asz_core.cli.main"]


class Tty:
    """``asz ARGS`` with stdout and stderr on a new pseudo-terminal; :meth:`read_until` and :meth:`finish` read what it drew."""

    def __init__(self, *args: str):
        master, slave = os.openpty()
        env = dict(os.environ, COLUMNS="100", TERM="xterm")
        self.proc = subprocess.Popen([*ASZ, *args], cwd=REPO, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
        os.close(slave)
        self.master = master
        self.out = b""

    def _read(self, timeout: float) -> bool:
        """Read what is there within ``timeout`` seconds; False at the end of the output."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the slave side is closed, the command ended
            return False
        self.out += data
        return bool(data)

    def read_until(self, done, timeout: float = 120) -> bool:
        """Read until ``done(output)`` holds (True) or the output ends or ``timeout`` passes (False)."""
        deadline = time.monotonic() + timeout
        while not done(self.out):
            if time.monotonic() > deadline or not self._read(0.2):
                return done(self.out)
        return True

    def finish(self, timeout: float = 120) -> int:
        """Read to the end of the output; the exit code."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read(0.2):
            pass
        code = self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        os.close(self.master)
        return code


@pytest.mark.parametrize("cmd", ["parse", "verify"])
def test_a_bar_is_drawn_on_a_terminal(corpus_root, cmd):
    t = Tty(cmd, "--root", str(corpus_root))
    assert t.finish() == 0, t.out.decode(errors="replace")
    text = t.out.decode(errors="replace")
    assert BAR.decode() in text and f"{cmd} " in text
    total = 11 if cmd == "parse" else 22  # 11 sessions; verify counts their 11 conversation chains as well
    assert f"/{total}" in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    assert "checked 11 session(s)" in text if cmd == "verify" else "parsed 11 session(s)" in text


@pytest.mark.parametrize("cmd", ["parse", "verify"])
def test_piped_there_is_no_bar_and_one_summary(corpus_root, cmd):
    p = subprocess.run([*ASZ, cmd, "--root", str(corpus_root)], cwd=REPO, capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    for stream in (p.stdout, p.stderr):
        assert BAR not in stream and b"\x1b[" not in stream
    if cmd == "parse":
        summary = [ln for ln in p.stderr.decode().splitlines() if ln.startswith("parsed ")]
        assert len(summary) == 1 and summary[0].startswith("parsed 11 session(s): 0 round(s) written, 0 problem(s) ("), p.stderr
    else:
        assert b"checked 11 session(s)" in p.stdout and b"all landed data is contiguous" in p.stdout


def _big_root(corpus_root: Path, dest: Path, copies: int) -> int:
    """``corpus_root`` with its sessions landed again ``copies - 1`` times under new ids (bench/verify.py); the session count."""
    spec = importlib.util.spec_from_file_location("bench_verify_for_tests", REPO / "bench" / "verify.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    shutil.copytree(corpus_root, dest)
    for n in range(1, copies):
        bench.replicate(corpus_root, dest, n)
    return len([d for d in dest.iterdir() if d.is_dir() and not d.name.startswith(("_", "."))])


def _progress(out: bytes) -> bool:
    """True once the bar shows a count above zero."""
    return any(int(m.group(1)) > 0 for m in re.finditer(rb"(\d+)/\d+", out))


@pytest.mark.slow
def test_ctrl_c_stops_a_running_verify_and_says_how_far_it_got(corpus_root, tmp_path):
    root = tmp_path / "big"
    sessions = _big_root(corpus_root, root, 30)
    assert sessions == 330
    t = Tty("verify", "--root", str(root))
    assert t.read_until(_progress), t.out.decode(errors="replace")
    assert t.proc.poll() is None, "verify ended before it could be interrupted"
    os.kill(t.proc.pid, signal.SIGINT)
    sent = time.monotonic()
    code = t.finish(timeout=120)
    print(f"verify of {sessions} sessions: exit {code} {time.monotonic() - sent:.2f}s after SIGINT")
    text = t.out.decode(errors="replace")
    assert code == 130, text
    m = re.search(r"asz verify: interrupted after checking (\d+) of 330 session\(s\) and (\d+) of 11 chain\(s\)", text)
    assert m and (int(m.group(1)), int(m.group(2))) != (330, 11), text
    assert "all landed data is contiguous" not in text


@pytest.mark.parametrize("args", [("conversations",), ("export", "--since", "2000-01-01", "--format", "html")],
                         ids=["conversations", "export"])
def test_ctrl_c_says_how_far_it_got_on_its_own_line(corpus_root_x3, tmp_path, args):
    """Ctrl-C while the bar is drawn: the 'interrupted after' line was written on the bar's line (after its last
    draw, then cut or wiped by the bar's closing); it comes once the bar is erased, a line of its own.

    33 conversations (3 copies of the corpus), their rows counted afresh: once the bar shows one done, 32 are left
    (the corpus's 11 rows, ~60 ms, let a loaded machine finish before the SIGINT: exit 0, session 23)."""
    root = corpus_root_x3
    extra = ("--out", str(tmp_path / "out")) if args[0] == "export" else ()
    for kept in (root / "_index").glob("summaries.sqlite*"):  # the rows the collect kept: counted again, so the
        kept.unlink()  # command is still counting when the Ctrl-C comes
    t = Tty(*args, *extra, "--root", str(root))
    assert t.read_until(_progress), t.out.decode(errors="replace")
    os.kill(t.proc.pid, signal.SIGINT)
    code = t.finish(timeout=120)
    assert code == 130, t.out.decode(errors="replace")
    m = re.search(rb"(\n|\x1b\[2K)asz " + args[0].encode() + rb": interrupted after (\d+) of 33 conversations[^\r\n]*\r\n", t.out)
    assert m, t.out[-800:]
    assert BAR not in t.out[m.end():]  # nothing of the bar is drawn after it
    if args[0] == "export":
        done = int(m.group(2))
        assert len([f for f in (tmp_path / "out").iterdir() if f.suffix == ".html"]) == done  # every conversation it counts is written, no index page (each has its manifest beside it)
