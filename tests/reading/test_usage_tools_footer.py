"""The text footer of ``asz usage tools`` (docs/reading.md, Tool use)."""

from __future__ import annotations


def test_the_footer_says_failed_in_no_one_runtime_s_word():
    """Trial 35a F9: the footer said a call failed "when its result says is_error", Claude Code's field, under a table
    that may count another runtime's calls (a Forge log's ``fail``). It names the result part's ``failed`` and gives
    Claude Code's word as one example."""
    from asz_core.cli.usage_tools import table_lines
    from asz_core.reading.tool_use import Tally

    footer = table_lines([], [], {"tool": "TOTAL", **Tally().figures()}, 0)[-1]
    assert "(a call failed when its result part says it failed, in its runtime's word: Claude Code's is_error)" in footer
    assert "when its result says is_error" not in footer
