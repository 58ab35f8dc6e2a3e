"""``asz collect --once`` says the time its user waited, not only the pass line's (trial 30d F5).

The pass line's seconds cover landing, provider bodies and parse; the list rows kept after it and the push after them
were in no figure, so at 300 MB the line said 51.6 s where the command took 67.8 s. Now a closing line on stderr says
the whole time from the process's start and each part: ``[HH:MM:SS] took 4.6s in all: start-up 1.3s, the pass 2.3s
(its line above), after it 1.0s (the list rows of 11 conversation(s) 1.0s, the search index of 11 conversation(s)
0.4s, the push 0.1s)``: on a terminal, and
piped when the time outside the pass line reaches ``ASZ_PROGRESS_AFTER`` (tests/conftest.py sets 3600; 0 here).

A real ``asz collect --once`` of a copy of the corpus's Claude Code projects, pushing to a real receiver on loopback,
timed from outside (the wait a user has).
"""

from __future__ import annotations

import re
import subprocess
import time

from collect_helpers import ASZ, env, projects_copy

from asz_core.export.receive import Receiver

TOOK = re.compile(r"^\[\d\d:\d\d:\d\d\] took (\d+\.\d)s in all: start-up (\d+\.\d)s, the pass (\d+\.\d)s \(its line "
                  r"above\), after it (\d+\.\d)s \(the list rows of (\d+) conversation\(s\) (\d+\.\d)s, the search "
                  r"index of (\d+) conversation\(s\) (\d+\.\d)s, the push (\d+\.\d)s\)$")


def _collect(src, root, cfg, after: str) -> tuple[subprocess.CompletedProcess, float]:
    """``asz collect --once`` as a child with ``ASZ_PROGRESS_AFTER=after``, and the seconds it took as seen from here."""
    began = time.monotonic()
    p = subprocess.run([*ASZ, "collect", "--once", "--source", str(src), "--root", str(root), "--config", str(cfg)],
                       capture_output=True, text=True, env=env({"ASZ_PROGRESS_AFTER": after}), timeout=600)
    return p, time.monotonic() - began


def test_the_time_waited_is_said_after_the_list_rows_and_the_push(corpus_dir, tmp_path):
    src = projects_copy(corpus_dir, tmp_path / "src")
    conversations = len([p for p in src.glob("*/*.jsonl") if not p.name.startswith("agent-")])  # from the sources
    r = Receiver(tmp_path / "team", "127.0.0.1:0").start().serve_in_thread()
    try:
        cfg = tmp_path / "asz.yaml"
        cfg.write_text(f"export:\n  otlp: {{endpoint: 'grpc://{r.address}'}}\n")
        p, waited = _collect(src, tmp_path / "root", cfg, "0")
        quiet, _ = _collect(src, tmp_path / "root", cfg, "3600")  # nothing new: a short pass
    finally:
        r.stop()
    assert p.returncode == 0, p.stdout + p.stderr
    pass_line = next(ln for ln in p.stdout.splitlines() if " sessions=" in ln)
    pass_s = float(re.search(r"\((\d+\.\d+)s\)$", pass_line).group(1))
    (took,) = [m for m in map(TOOK.match, p.stderr.splitlines()) if m]
    total, start_up, pass_said, after, rows_n, rows_s, index_n, index_s, push_s = (float(x) for x in took.groups())
    assert took.group(3) == f"{pass_s:.1f}"  # the pass line's own figure
    assert int(rows_n) == conversations == 11  # every conversation's rows were kept after the line
    assert int(index_n) == conversations  # and indexed after them (trial 49d F2)
    assert abs(start_up + pass_said + after - total) <= 0.15  # the parts add up (each rounded to 0.1 s)
    assert after >= rows_s + index_s - 0.1 and after + 0.2 >= rows_s + index_s + push_s  # each rounded to 0.1 s
    # the figure is the wait: more than the pass line says by what came after it, and no more than the process lived
    assert total >= pass_s + rows_s + index_s - 0.15 and total <= waited + 0.05, (total, pass_s, rows_s, waited)
    assert waited - total < 3.0, (waited, total)  # what is left: the process's exit after its last line (0.4 s here)
    # piped, with the time outside the pass line short of ASZ_PROGRESS_AFTER: the pass line alone
    assert quiet.returncode == 0 and " took " not in quiet.stderr, quiet.stderr
