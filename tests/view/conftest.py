"""Fixtures for the asz.view document tests: the Claude Code corpus collected into a storage root once."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def corpus(corpus_dir, corpus_copy):
    """(the corpus's Claude Code projects directory, a storage root the real ``asz collect --once`` filled from it:
    a copy of the run's once-collected corpus root, tests/conftest.py)."""
    return corpus_dir / "claude-code/projects", corpus_copy()
