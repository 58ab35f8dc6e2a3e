"""A Ctrl-C that a command caught after it left code run from a string does not change its decided exit status under
``python -m`` (session 38: ``asz_core.cli.entry._forget_caught_interrupt``).

CPython notes a KeyboardInterrupt leaving an ``exec``/``eval`` of a string (how ``dataclasses`` and ``namedtuple``
build their methods while a module imports) even when it is caught, and ``python -m`` then kills itself with SIGINT as
it ends (returncode -2). A watching ``asz collect`` stopped while its list rows' modules loaded exited so about once in
400 runs under load (test_watch_signals). Here the child is a real ``python -m`` of a module that runs a command
through :func:`asz_core.cli.entry.run_command`; the command sends itself a real SIGINT inside an ``exec`` of a
string, catches the KeyboardInterrupt as asz's commands catch a Ctrl-C after their last line, and exits with its own
status: every run, no timing.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from collect_helpers import env

MODULE = """import os, signal, sys
from asz_core.cli.entry import run_command

def command():
    try:
        exec("os.kill(os.getpid(), signal.SIGINT)\\nfor _ in range(100000): pass", {"os": os, "signal": signal})
    except KeyboardInterrupt:
        print("caught", file=sys.stderr)
    sys.exit(int(sys.argv[1]))

if __name__ == "__main__":
    run_command(command)
"""


@pytest.mark.parametrize("status", [0, 1])
def test_a_caught_ctrl_c_in_code_run_from_a_string_keeps_the_exit_status(tmp_path, status):
    (tmp_path / "tripped_cmd.py").write_text(MODULE)
    e = env()
    e["PYTHONPATH"] = str(tmp_path) + ":" + e["PYTHONPATH"]
    p = subprocess.run([sys.executable, "-m", "tripped_cmd", str(status)], env=e, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert p.stderr == "caught\n", p.stderr
    assert p.returncode == status, (p.returncode, p.stderr)
