"""A stop that comes while Python runs a finalizer stops the command, with no traceback.

Session 31's intermittent ``test_every_ctrl_c_of_a_collect_once_ends_in_an_allowed_way``: one SIGINT gave the pass
line, a ``KeyboardInterrupt`` traceback ending in ``stop_signal`` and exit 0. Python runs an object's ``__del__``, a
weakref callback or a freed generator's clean-up where no exception can go on: a stop raised there was printed as
``Exception ignored in: …`` and lost, and the command ran to its end. In this process one is ``ZipFile.__del__``:
``importlib.metadata`` looks at ``python311.zip`` on ``sys.path`` as the plugins load (its ``KeyboardInterrupt: ``
with a colon is how Python prints an exception it ignored). Now the stop is sent again once that code has returned
(asz_core/cli/stopping.py ``stop_again``) and the command stops as on any Ctrl-C.

Each child runs the console script's entry with a trace function of this test: at the first call of the function
named on its command line it frees an object whose ``__del__`` sends the signal to its own process, so the handler
runs inside that ``__del__`` (the point is chosen, no sleep decides it). ``ZipFile.__del__`` is the real finalizer:
there the trace function sends the signal as it starts.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from collect_helpers import env

#: argv: the function to stop at, the signal, ``real`` (the first ZipFile.__del__) or ``own`` (a __del__ of ours), then
#: asz's arguments. Says ``at:NAME`` on stderr once it acted (a test whose point never came is not a pass).
CHILD = '''import os, sys
from asz_core.cli.entry import main
point, signum, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]

class Freed:
    def __del__(self):
        os.write(2, b"at:" + point.encode() + b"\\n")
        os.kill(os.getpid(), signum)  # its handler runs here, inside __del__, as the call returns

def tracer(frame, event, arg):
    code = frame.f_code
    if event == "call" and code.co_name == point and (how == "own" or code.co_filename.endswith("zipfile.py")):
        sys.settrace(None)
        if how == "own":
            Freed()
        else:
            os.write(2, b"at:" + point.encode() + b"\\n")
            os.kill(os.getpid(), signum)
    return None

sys.argv = ["asz"] + sys.argv[4:]
sys.settrace(tracer)
main()
'''
PASS_LINE = re.compile(r"\[\d\d:\d\d:\d\d\] sessions=11 sources=\d+ landed=\d+ .* rounds=\d+ \(\d+\.\d+s\)")
STOPPED = re.compile(r"stopped: landed \d+ file\(s\) in \d+ session\(s\) and wrote \d+ round\(s\) this pass.*")


def _run(point: str, signum: int, how: str, *args: str, cwd: Path) -> tuple[int, list[str], list[str]]:
    """Run the child (:data:`CHILD`) with ``asz ARGS``; (returncode, stdout lines, stderr lines without its ``at:``
    line). Fails when the point never came."""
    p = subprocess.run([sys.executable, "-c", CHILD, point, str(int(signum)), how, *args], cwd=cwd, capture_output=True,
                       text=True, timeout=300, env=env({"ASZ_PROGRESS_AFTER": "3600", "PYTHONFAULTHANDLER": "1"}))
    err = p.stderr.splitlines()
    if f"at:{point}" not in err:
        if how == "real":
            pytest.skip(f"no {point} of zipfile ran in this environment (sys.path names no missing zip file)")
        raise AssertionError(f"the child never came to {point}: {p.returncode} {p.stdout} {p.stderr}")
    err.remove(f"at:{point}")
    return p.returncode, p.stdout.splitlines(), err


@pytest.mark.slow
@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_in_a_finalizer_while_landing_stops_the_pass(corpus_projects, tmp_path, signum, code):
    """A first collect (8 MB to land, in this process): the stop comes in a __del__ as landing begins."""
    rc, out, err = _run("_one_pass", signum, "own", "collect", "--once", "--jobs", "1", "--source", str(corpus_projects),
                        "--root", str(tmp_path / "data"), cwd=tmp_path)
    assert not any("Traceback" in ln or "Exception ignored" in ln for ln in err), err
    assert (rc, out) == (code, []), (rc, out, err)
    assert len(err) == 1 and STOPPED.fullmatch(err[0]), err


@pytest.mark.slow
def test_a_stop_in_a_finalizer_after_the_pass_line_keeps_its_status(corpus_projects, corpus_copy, tmp_path):
    """A pass with nothing new; the stop comes in a __del__ after its line (as the took line is weighed): exit 0, the
    line alone (before: the same exit 0 under a traceback)."""
    root = corpus_copy(tmp_path / "data")
    rc, out, err = _run("say_took", signal.SIGINT, "own", "collect", "--once", "--source", str(corpus_projects),
                        "--root", str(root), cwd=tmp_path)
    assert rc == 0 and err == [], (rc, out, err)
    assert len(out) == 1 and PASS_LINE.fullmatch(out[0]), out


@pytest.mark.slow
def test_a_stop_in_a_finalizer_stops_a_watching_collector(corpus_projects, tmp_path):
    """Watching (no --once): the stop in a __del__ as the first pass lands ends it, ``stopped: …``, exit 0."""
    rc, out, err = _run("_one_pass", signal.SIGINT, "own", "collect", "--interval", "1h", "--jobs", "1", "--source",
                        str(corpus_projects), "--root", str(tmp_path / "data"), cwd=tmp_path)
    assert rc == 0 and out == [], (rc, out, err)
    assert err[0].startswith("collecting claude-code-local from") and len(err) == 2 and STOPPED.fullmatch(err[1]), err


@pytest.mark.slow
def test_a_stop_in_zipfiles_finalizer_as_the_plugins_load(corpus_projects, corpus_copy, tmp_path):
    """The real finalizer: the first ZipFile.__del__ (importlib.metadata, as the plugins load): one line, exit 130."""
    root = corpus_copy(tmp_path / "data")
    rc, out, err = _run("__del__", signal.SIGINT, "real", "collect", "--once", "--source", str(corpus_projects),
                        "--root", str(root), cwd=tmp_path)
    assert (rc, out) == (130, []), (rc, out, err)
    assert err in (["asz collect: interrupted (Ctrl-C)"], ["asz collect: interrupted (Ctrl-C) while it was starting"]), err


@pytest.mark.slow
def test_a_stop_in_a_finalizer_stops_asz_parse(corpus_projects, corpus_copy, tmp_path):
    """asz parse takes its stops through the same handler: one in a __del__ as it begins stops it (exit 130), with
    no traceback."""
    root = tmp_path / "data"
    subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--no-parse", "--source",
                    str(corpus_projects), "--root", str(root)], cwd=tmp_path, env=env(), check=True, capture_output=True)
    rc, out, err = _run("parse_root", signal.SIGINT, "own", "parse", "--jobs", "1", "--root", str(root), cwd=tmp_path)
    assert not any("Traceback" in ln or "Exception ignored" in ln for ln in err), err
    assert rc == 130, (rc, out, err)
