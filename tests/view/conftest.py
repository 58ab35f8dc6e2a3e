"""Fixtures for the asz.view document tests: the Claude Code corpus collected into a storage root once."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def corpus(tmp_path_factory, corpus_dir):
    """(the corpus's Claude Code projects directory, a storage root the real ``asz collect --once`` filled from it)."""
    projects = corpus_dir / "claude-code/projects"
    root = tmp_path_factory.mktemp("view-corpus") / "root"
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(projects), "--root", str(root)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return projects, root
