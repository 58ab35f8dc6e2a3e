"""A process exits whole while daemon threads look for credentials (asz_core/view/automaton.py).

``ahocorasick_rs`` searches with the GIL let go; a daemon thread in its Rust code as Python finalizes was ended by
``pthread_exit``, whose unwinding cannot pass Rust frames, and glibc aborted the process (exit -6 or 134: session 44's
``asz view`` stopped right after ``listening:`` while its warm-up thread imported ``secret_forms``). Here four daemon
threads call :func:`~asz_core.view.secret_forms.find` in a loop as the main thread returns (once each did 10 times):
before the gate 23 of 30 such processes aborted (fix45b, on 2 busy cores), so five clean exits in a row come by
chance once in 1,500 without it."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import threading, time
from asz_core.view.secret_forms import find
counts = [0] * 4
def loop(i):
    while True:
        find("export API_TOKEN in the shell, then the password was changed")
        counts[i] += 1
for i in range(4):
    threading.Thread(target=loop, args=(i,), daemon=True).start()
end = time.monotonic() + 30
while min(counts) < 10 and time.monotonic() < end:
    time.sleep(0.01)
print(min(counts))
"""

RUNS = 5


def test_a_process_exits_whole_while_its_daemon_threads_look_for_credentials():
    runs = [subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT], capture_output=True, text=True, timeout=60)
            for _ in range(RUNS)]
    said = "\n".join(f"run {i}: exit {r.returncode}\nstdout: {r.stdout}stderr: {r.stderr}" for i, r in enumerate(runs))
    assert [r.returncode for r in runs] == [0] * RUNS, said
    assert all(int(r.stdout) >= 10 for r in runs), said  # every thread was searching as the process exited
