"""The summary store asks whether a copy's masking is chosen while another thread is still importing the credential
forms (fix46b: test_resumed_corpus's ``asz view`` answered its first ``/api/conversations`` 500 once in 9 loops beside
two busy loops, ``AttributeError: partially initialized module 'asz_core.view.secret_forms' has no attribute
'chosen_now'``, in ``summary_cache.chosen_now`` under ``SummaryStore.get``, as the server's warm-up imported the
forms; seen in s45b's full run, by fix45j and by review45).

A fresh interpreter holds a real import of ``secret_forms`` halfway: its first automaton's constructor waits on an
event, so the module is in ``sys.modules`` without ``chosen_now``, as a slow import on a loaded machine leaves it.
"""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import json, sys, threading
import asz_core.view.automaton as automaton
from asz_core.view import summary_cache

assert "asz_core.view.secret_forms" not in sys.modules
hold, inside = threading.Event(), threading.Event()
real = automaton.Automaton


class Held(real):  # the forms' first automaton waits: their import stops halfway
    def __init__(self, patterns):
        inside.set()
        hold.wait(120)
        super().__init__(patterns)


automaton.Automaton = Held
t = threading.Thread(target=__import__, args=("asz_core.view.secret_forms",), daemon=True)
t.start()
assert inside.wait(120)
half = not hasattr(sys.modules["asz_core.view.secret_forms"], "chosen_now")
try:
    said = summary_cache.chosen_now()
except AttributeError as exc:
    said = f"AttributeError: {exc}"
hold.set()
t.join(120)
automaton.Automaton = real
from asz_core.view.secret_forms import choosing

with choosing(lambda text, cuts: cuts):
    during = summary_cache.chosen_now()
print(json.dumps([half, said, during, summary_cache.chosen_now()]))
"""


def test_forms_still_importing_have_chosen_no_masking():
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    half, said, during, after = json.loads(p.stdout.splitlines()[-1])
    assert half  # the module was held halfway, chosen_now not defined yet
    assert said is False  # was "AttributeError: partially initialized module ... has no attribute 'chosen_now'"
    assert (during, after) == (True, False)  # a masking chosen once the forms are imported is still seen
