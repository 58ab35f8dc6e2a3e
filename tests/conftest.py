"""Shared test fixtures: where ../shared is, and a guard that tests never read the real ~/.claude."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO.parent / "shared").resolve()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ../shared folder beside the repo; skips the test when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}); corpus and conformance tests need it")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    """../shared/corpus; skips when absent."""
    d = shared_dir / "corpus"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    return d


@pytest.fixture(autouse=True)
def _no_real_claude_home(monkeypatch, tmp_path_factory):
    """Point CLAUDE_CONFIG_DIR and HOME-derived roots away from the machine's own ~/.claude and ~/.kiro."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude-home")))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
