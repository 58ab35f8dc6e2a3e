"""Ctrl-C just after a session's chain is written, before the parse counted it (trial 15: ``timeout -s INT 5 asz parse``
said ``interrupted after 94 of 202 sessions`` when 95 had their rounds). The session the parse was in is asked
whether its chain is whole (its state covers what landed) and then counted. The SIGINT is a real signal, raised at a
real hook point: right after the third session's parse ended (its pending marker cleared). Real sessions of the
corpus, collected without parsing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import asz_core.flow.parse_workers as parse_mod
from asz_core.flow.parse import ParseInterrupted, parse_root
from cli_helpers import fork_or_skip


def _sessions_with_rounds(root: Path) -> list[str]:
    chains = root / "_conversations"
    return sorted(d.name for d in chains.iterdir() if any((d / "rounds").glob("*.sf"))) if chains.is_dir() else []


def _landed(corpus_dir: Path, root: Path) -> int:
    """The corpus's Claude Code sessions collected into ``root`` without parsing; how many (session directories)."""
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--no-parse", "--source",
                        str(corpus_dir / "claude-code" / "projects"), "--root", str(root)], capture_output=True, text=True,
                       cwd=root.parent, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return sum(1 for d in root.iterdir() if d.is_dir() and not d.name.startswith(("_", ".")))


def _sessions_with_state(root: Path) -> list[str]:
    chains = root / "_conversations"
    return sorted(d.name for d in chains.iterdir() if (d / "conversation.state").is_file()) if chains.is_dir() else []


def test_ctrl_c_after_a_session_is_written_counts_it(corpus_dir, tmp_path, monkeypatch):
    root = tmp_path / "root"
    total = _landed(corpus_dir, root)
    real, ended = parse_mod.clear_pending, []

    def then_ctrl_c(where: Path, session: str) -> None:
        real(where, session)
        ended.append(session)
        if len(ended) == 3:
            signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C, arriving before the parse counts this session

    monkeypatch.setattr(parse_mod, "clear_pending", then_ctrl_c)
    with pytest.raises(ParseInterrupted) as got:
        parse_root(root, jobs=1)
    assert (got.value.finished, got.value.total) == (3, total)
    assert _sessions_with_rounds(root) == sorted(ended[:3])


def test_a_worker_gone_between_its_states_and_their_count_is_counted_from_the_states(corpus_dir, tmp_path,
                                                                                      monkeypatch):
    """``parse_root`` with two workers: Ctrl-C reaches the command while the worker of the first run has written its
    run's states and counted none of them, and that worker is gone before it counts (as one the pool kills after its
    grace while its chain writes a group: sessiondata/durable.py). Every session whose state is on disk is finished and
    counted, whatever run it was in; before session 29 only the first uncounted session of each run was asked, so the
    run's second session, written whole, was said not parsed."""
    import threading

    from asz_core.collect.workers import guided

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("a signal's handler runs in the main thread only")
    fork_or_skip()  # two workers, or the test proves nothing
    root = tmp_path / "root"
    total = _landed(corpus_dir, root)
    first_run = guided(sorted(d.name for d in root.iterdir() if d.is_dir() and not d.name.startswith(("_", "."))), 2)[0]
    assert len(first_run) >= 2  # 11 sessions: runs of 2, 2, 1, ...
    command, real = os.getpid(), parse_mod._ended

    def ended(where: Path, session: str) -> None:
        if os.getpid() != command and session == first_run[0]:  # in its worker, its run's states all written
            os.kill(command, signal.SIGINT)  # the user's Ctrl-C, to the command
            os.kill(os.getpid(), signal.SIGKILL)  # and this worker gone before it counted any of its run
        real(where, session)

    monkeypatch.setattr(parse_mod, "_ended", ended)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C raises KeyboardInterrupt, whatever runs us
    try:
        with pytest.raises(ParseInterrupted) as got:
            parse_root(root, jobs=2)
    finally:
        signal.signal(signal.SIGINT, before)
    written = _sessions_with_state(root)
    assert set(first_run) <= set(written)
    assert (got.value.finished, got.value.total) == (len(written), total)
