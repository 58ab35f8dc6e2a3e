"""Fixtures for the reading commands (conversations, show, search, export): roots built by the real collect and parse."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import canary_lines, collect_and_parse, write_session  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CORPUS_SOURCE = REPO.parent / "shared" / "corpus" / "claude-code" / "projects"


@pytest.fixture(scope="session")
def corpus_source() -> Path:
    """../shared/corpus/claude-code/projects (skips when absent)."""
    if not CORPUS_SOURCE.is_dir():
        pytest.skip(f"the corpus is absent ({CORPUS_SOURCE})")
    return CORPUS_SOURCE


@pytest.fixture(scope="session")
def corpus_root(corpus_source: Path, corpus_copy) -> Path:
    """The Claude Code corpus collected and parsed into a new root (a copy of the run's once-collected root, tests/conftest.py)."""
    return corpus_copy()


@pytest.fixture(scope="session")
def canary_root(tmp_path_factory) -> Path:
    """The canary session (system prompt and tool schemas carry MARKER; a prompt holds script markup) collected and parsed."""
    base = tmp_path_factory.mktemp("reading-canary")
    write_session(base / "projects", canary_lines())
    root = base / "root"
    collect_and_parse(base / "projects", root)
    return root
