"""A Ctrl-C while orjson initialises: a ``KeyboardInterrupt`` once orjson is whole, never a SIGSEGV.

Session 13: one ``asz collect --once`` of 32 in tests/collect/test_interrupt_exit.py, sent SIGINT 0.279 s after it
started on a loaded machine, died of SIGSEGV (returncode -11, nothing on stderr). orjson's initialisation imports
Python modules (``uuid``, ``dataclasses``, ``json``, ...) and uses what they give without checking that they came:
a ``KeyboardInterrupt`` raised inside one of those imports crashes the process. asz_core loads orjson with the
signals held back (asz_core/importguard.py). Each child sends itself a real SIGINT at the moment the named module
is looked up during ``import orjson`` (a finder on ``sys.meta_path``), so the signal lands there every run, no timing.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from collect_helpers import env

#: Imports asz_core (or not, with NO_GUARD), then orjson with a real SIGINT sent when TRIP_AT is looked up; prints
#: a JSON line: whether the trip fired, whether KeyboardInterrupt came, and what orjson then gives.
CHILD = """import os, signal, sys
if not os.environ.get("NO_GUARD"):
    import asz_core
class Trip:
    fired = False
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["TRIP_AT"] and not Trip.fired:
            Trip.fired = True
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10000):  # the handler runs at the next bytecode boundary
                pass
        return None
sys.meta_path.insert(0, Trip())
try:
    import orjson
    came = False
except KeyboardInterrupt:
    came = True
import orjson, uuid, dataclasses, datetime
@dataclasses.dataclass
class D:
    a: int
out = orjson.dumps([1, "x", None, uuid.UUID(int=1), datetime.date(2026, 12, 3), D(2)]).decode()
import json
print(json.dumps({"fired": Trip.fired, "came": came, "out": out}))
"""

DUMPED = '[1,"x",null,"00000000-0000-0000-0000-000000000001","2026-12-03",{"a":2}]'


def _orjson_imports() -> list[str]:
    """The modules a fresh Python that imported asz_core imports for ``import orjson`` (each a place a Ctrl-C lands)."""
    code = "import os, signal, sys, asz_core\nbefore = set(sys.modules)\nimport orjson\nprint('\\n'.join(sorted(set(sys.modules) - before)))"
    p = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True, timeout=60, check=True)
    return [m for m in p.stdout.split() if m not in ("orjson", "orjson.orjson")]


def _run(at: str, guard: bool = True) -> subprocess.CompletedProcess:
    extra = {"TRIP_AT": at, "PYTHONFAULTHANDLER": "1"}
    if not guard:
        extra["NO_GUARD"] = "1"
    return subprocess.run([sys.executable, "-c", CHILD], env=env(extra), capture_output=True, text=True, timeout=60)


def _check(at: str) -> None:
    p = _run(at)
    assert p.returncode == 0, (at, p.returncode, p.stderr)
    got = json.loads(p.stdout)
    assert got == {"fired": True, "came": True, "out": DUMPED}, (at, got)


@pytest.mark.parametrize("at", ["uuid", "dataclasses", "inspect"])
def test_a_ctrl_c_inside_orjson_s_own_imports_is_a_keyboard_interrupt_after_it(at):
    assert at in _orjson_imports()  # the premise: orjson's initialisation imports it
    _check(at)


def test_without_the_guard_the_same_ctrl_c_crashes():
    """The premise of the fix, on the orjson installed: skipped once an orjson no longer crashes so."""
    p = _run("uuid", guard=False)
    if p.returncode != -signal.SIGSEGV:
        pytest.skip(f"this orjson survives a Ctrl-C in its imports (returncode {p.returncode})")
    assert "Segmentation fault" in p.stderr


@pytest.mark.slow
def test_a_ctrl_c_at_every_import_of_orjson_s_initialisation():
    mods = _orjson_imports()
    assert mods
    for at in mods:
        _check(at)


def test_a_ctrl_c_that_came_while_held_is_sent_again_to_the_handler_put_back():
    """In this process: the handler noted while held runs once the module is loaded, with the handlers as they were."""
    from asz_core.importguard import held

    seen = []

    def handler(signum, frame):
        seen.append(signum)

    before = signal.signal(signal.SIGINT, handler)
    try:
        got = held(lambda: (signal.raise_signal(signal.SIGINT), signal.raise_signal(signal.SIGINT), list(seen))[2])
        assert got == [] and seen == [signal.SIGINT]  # not during the call; once after it, however often it came
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_held_outside_the_main_thread_loads_as_it_would():
    """Python runs signal handlers in the main thread only, and may not set one elsewhere: nothing is held there."""
    import threading

    from asz_core.importguard import held

    got = []
    t = threading.Thread(target=lambda: got.append(held(lambda: 42)))
    t.start()
    t.join(10)
    assert got == [42]


def test_a_ctrl_c_while_asz_collect_loads_orjson_exits_130(tmp_path):
    """The real ``asz collect --once`` (a script named asz, as pip writes it): ``json.scanner`` is among the modules
    orjson's initialisation imports itself in such a run (the standard library's json is loaded first by orjson
    there); a SIGINT at that moment died of SIGSEGV with nothing said (-11, '', '' as in session 13's failure)."""
    from test_interrupt_start import run_tripped

    p = run_tripped(tmp_path, "json.scanner", {"PYTHONFAULTHANDLER": "1"})
    assert p.returncode == 130, (p.returncode, p.stderr)
    assert p.stdout == "" and p.stderr in ("asz collect: interrupted (Ctrl-C)\n",
                                           "asz collect: interrupted (Ctrl-C) while it was starting\n"), p.stderr
