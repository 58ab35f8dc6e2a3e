"""The text footer of ``asz usage tools`` (docs/reading.md, Tool use)."""

from __future__ import annotations


def test_the_footer_says_failed_in_each_runtime_s_word():
    """Trial 35a F9: the footer said a call failed "when its result says is_error", Claude Code's field, under a table
    that may count another runtime's calls (a Forge log's ``fail``). It names the result part its adapter landed
    ``failed`` and, per dialect read, that adapter's word (``failed_word``), or that no installed adapter speaks it (trial
    49c F3); none when no dialect is known."""
    from asz_core.cli.usage_tools import table_lines
    from asz_core.reading.tool_use import Tally

    total = {"tool": "TOTAL", **Tally().figures()}
    bare = table_lines([], [], total, 0)[-1]
    assert "(a call failed when its adapter landed its result part failed), HOOK" in bare
    assert "is_error" not in bare
    two = table_lines([], [], total, 2, ["claude-code/1", "forge/1"])[-1]
    assert ("(a call failed when its adapter landed its result part failed, from its runtime's word: claude-code/1: "
            "is_error: true on its tool_result; forge/1: no installed adapter speaks it (asz adapters list)), HOOK") in two
