"""Ctrl-C while the ``asz`` console script is still importing asz: one line and exit 130, never a traceback.

Session 13: a SIGINT in the first milliseconds of ``asz collect`` (the console script importing ``asz_core``, before
:func:`asz_core.cli.entry.main` and its :func:`~asz_core.cli.entry.settle` run) printed Python's KeyboardInterrupt
traceback and died by the signal (returncode -2). ``asz_core/__init__.py`` now takes SIGINT over as its first act
when the process is the console script. The child is a script named ``asz`` shaped as the one pip writes; a finder
on ``sys.meta_path`` sends the process a real SIGINT at the moment the named module is imported, so the signal
lands at a chosen point of the start-up, every run, with no timing.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from collect_helpers import env

SCRIPT = """import os, signal, sys
class Trip:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["TRIP_AT"] and not os.path.exists(os.environ["TRIP_FILE"]):
            open(os.environ["TRIP_FILE"], "w").close()
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10000):  # the handler runs at the next bytecode boundary
                pass
        return None
sys.meta_path.insert(0, Trip())
from asz_core.cli.entry import main
if __name__ == '__main__':
    sys.exit(main())
"""


def run_tripped(tmp_path, at: str, extra_env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """``asz collect --once`` over an empty source through :data:`SCRIPT`, tripped at the import of ``at``
    (``extra_env`` added to the child's environment)."""
    script = tmp_path / "bin" / "asz"
    script.parent.mkdir()
    script.write_text(SCRIPT)
    src, root, trip = tmp_path / "src", tmp_path / "data", tmp_path / "tripped"
    src.mkdir()
    p = subprocess.run([sys.executable, str(script), "collect", "--once", "--source", str(src), "--root", str(root)],
                       cwd=tmp_path, env=env({"TRIP_AT": at, "TRIP_FILE": str(trip), **(extra_env or {})}), capture_output=True, text=True,
                       timeout=120, **kw)
    assert trip.exists(), f"{at} was imported before the finder could see it"
    return p


@pytest.mark.parametrize("at", ["typing", "asz_core.cli", "asz_core.cli.entry", "asz_core.cli.main"])
def test_a_ctrl_c_while_asz_is_importing_is_one_line_and_exit_130(tmp_path, at):
    p = run_tripped(tmp_path, at)
    assert (p.returncode, p.stderr, p.stdout) == (130, "asz collect: interrupted (Ctrl-C) while it was starting\n", "")
    assert p.returncode != -signal.SIGINT


def test_a_background_job_started_with_sigint_ignored_keeps_it_ignored(tmp_path):
    """The guard takes SIGINT over only from Python's default handler: ``cmd &`` in a script (SIGINT ignored) stays as
    it was, so the signal changes nothing and the pass ends as it would."""
    p = run_tripped(tmp_path, "asz_core.cli", preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert "interrupted" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert p.returncode in (0, 1) and " sessions=0 " in p.stdout, p.stdout + p.stderr
