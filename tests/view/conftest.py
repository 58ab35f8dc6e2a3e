"""Fixtures for the asz.view document tests: the Claude Code corpus, and the Kiro corpus, each collected into a storage
root once."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"


@pytest.fixture(scope="session")
def corpus(corpus_dir, corpus_copy):
    """(the corpus's Claude Code projects directory, a storage root the real ``asz collect --once`` filled from it:
    a copy of the run's once-collected corpus root, tests/conftest.py)."""
    return corpus_dir / "claude-code/projects", corpus_copy()


@pytest.fixture(scope="session")
def kiro_root(tmp_path_factory) -> Path:
    """A storage root the real ``asz collect --once --adapter kiro`` filled from the Kiro corpus (``KIRO``); skips
    with the reason when the corpus is absent."""
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    root = tmp_path_factory.mktemp("kiro") / "root"
    made = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(KIRO), "--root", str(root))
    assert made.returncode == 0, made.stdout + made.stderr
    return root
