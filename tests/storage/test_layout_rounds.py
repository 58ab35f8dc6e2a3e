"""Where a conversation's rounds live is said once, in storage (asz_core.storage.layout.rounds_dir): flow writes them
there and collect, which may not import flow, reads them there (storage-root.md, Layout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.flow.chain import Chain
from asz_core.storage.layout import conversation_dir, rounds_dir


def test_the_rounds_directory_is_the_documented_path_and_the_chains(tmp_path):
    assert rounds_dir(tmp_path, "abc") == tmp_path / "_conversations" / "abc" / "rounds"  # storage-root.md, Layout
    assert conversation_dir(tmp_path, "a/b") == tmp_path / "_conversations" / "a_b"
    chain = Chain(tmp_path, "a/b")
    assert (chain.dir, chain.rounds_dir) == (conversation_dir(tmp_path, "a/b"), rounds_dir(tmp_path, "a/b"))
    for bad in ("", ".", ".."):
        with pytest.raises(ValueError):
            rounds_dir(tmp_path, bad)


def test_collect_reads_the_layout_not_its_own_path():
    """collect's check for a chain (a folder lost, its chain kept) spells no path of its own."""
    src = (Path(__file__).resolve().parents[2] / "asz_core" / "collect" / "collector.py").read_text(encoding="utf-8")
    assert '"_conversations"' not in src and '"rounds"' not in src
