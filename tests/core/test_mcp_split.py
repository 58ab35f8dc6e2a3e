"""One MCP split of a tool name for every reader (seed 000, Parts; origin-digest §5.1): the Claude adapter's part
``server``/``server_tool``, the view's ``mcp_server``, ``asz usage tools`` and the pushed metrics' ``mcp_tool.name``."""

from __future__ import annotations

import pytest

from asz_core import mcp_split
from asz_core.export.metrics import _mcp_tool
from asz_core.view.tool_tallies import mcp_server

# (name, split) from seed 000's rule: exactly one "__" after "mcp__", overlaps counted, both sides non-empty.
CASES = [
    ("mcp__claude_ai_Claude_Docs__search", ("claude_ai_Claude_Docs", "search")),
    ("mcp__fs.files__read", ("fs.files", "read")),
    ("mcp__odd__name__twice", None),  # the conformance mcp-calls scenario's unsplit name
    ("mcp__foo___bar", None),
    ("mcp__a____b", None),
    ("mcp____b", None),
    ("mcp__a__", None),
    ("mcp__", None),
    ("mcp__ab", None),
    ("Bash", None),
    ("_mcp__a__b", None),
    ("mcp__a_b__c_d", ("a_b", "c_d")),
    ("mcp___a__b", ("_a", "b")),  # pairs are counted after the prefix: "_a__b" holds one "__"
]


@pytest.mark.parametrize(("name", "split"), CASES)
def test_every_reader_splits_the_same(name, split):
    assert mcp_split(name) == split
    assert mcp_server(name) == (split[0] if split else None)
    assert _mcp_tool(name) == (split[1] if split else name)
