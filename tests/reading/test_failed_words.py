"""``asz usage tools``' line under its table says what made a call FAILED in the words of each runtime read, as its
adapter gives them (``failed_word``), never Claude Code's ``is_error`` for every runtime (trial 35a F9: a Forge root's
footer named Claude Code's field, where Forge's failures come from its ``fail`` member).

Real input: the Claude Code corpus root (the run's once-collected copy) and the Kiro corpus home collected by the real
``asz collect``; an installed adapter giving no word reads as its rule with no word, a dialect no installed adapter
speaks as that (trial 49c F3)."""

from __future__ import annotations

import sys
from pathlib import Path

from asz_core.cli.usage_tools import failed_words
from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kiro_copies import writable_kiro_home  # noqa: E402

CLAUDE_WORD = "claude-code/1: is_error: true on its tool_result"
KIRO_WORD = ("kiro/1: success: false on its tool result (CLI 3.x, IDE), or a status of error, failed, cancelled, denied, "
             "rejected or timeout (CLI 2.x, 1.x)")


def _footer(root: Path) -> str:
    return asz("usage", "tools", "--root", str(root)).stdout.splitlines()[-1]


def test_a_claude_root_says_is_error(corpus_root):
    line = _footer(corpus_root)
    assert f"(a call failed when its adapter landed its result part failed, from its runtime's word: {CLAUDE_WORD})" in line
    assert "kiro/1" not in line


def test_a_kiro_root_says_kiros_words(corpus_dir, tmp_path):
    home = writable_kiro_home(corpus_dir, tmp_path / "kiro")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(tmp_path / "root"))
    line = _footer(tmp_path / "root")
    assert f"from its runtime's word: {KIRO_WORD})" in line
    assert "is_error" not in line


def test_words_per_dialect_and_for_an_adapter_that_gives_none():
    assert failed_words(["kiro/1", "claude-code/1", ""]) == f"{CLAUDE_WORD}; {KIRO_WORD}"
    assert failed_words(["asz-changes/1"]) == "asz-changes/1: its adapter's rule (it names no word)"  # installed, no word
    # one no installed adapter speaks: its rule is not known here (trial 49c F3: it said the adapter names no word)
    assert failed_words(["forge/1"]) == "forge/1: no installed adapter speaks it (asz adapters list)"
    assert failed_words([]) == ""
