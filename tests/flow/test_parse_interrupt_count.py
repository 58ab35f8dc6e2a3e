"""Ctrl-C just after a session's chain is written, before the parse counted it (trial 15: ``timeout -s INT 5 asz parse``
said ``interrupted after 94 of 202 sessions`` when 95 had their rounds). The session the parse was in is asked
whether its chain is whole (its state covers what landed) and then counted. The SIGINT is a real signal, raised at a
real hook point: right after the third session's parse ended (its pending marker cleared). Real sessions of the
corpus, collected without parsing.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

import asz_core.flow.parse as parse_mod
from asz_core.flow.parse import ParseInterrupted, parse_root


def _sessions_with_rounds(root: Path) -> list[str]:
    chains = root / "_conversations"
    return sorted(d.name for d in chains.iterdir() if any((d / "rounds").glob("*.sf"))) if chains.is_dir() else []


def test_ctrl_c_after_a_session_is_written_counts_it(corpus_dir, tmp_path, monkeypatch):
    root = tmp_path / "root"
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--no-parse", "--source",
                        str(corpus_dir / "claude-code" / "projects"), "--root", str(root)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    total = sum(1 for d in root.iterdir() if d.is_dir() and not d.name.startswith(("_", ".")))
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
