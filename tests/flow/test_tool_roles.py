"""A round counts a tool step by the vocabulary of the dialect its call landed in (trial 19 leftovers, 5): each adapter
declares its runtime's tools (``Adapter.tool_roles``), so a tool another runtime happens to name ``write`` or
``shell`` is no Kiro file write or shell run, and a dialect no adapter declares one for counts origin-digest §4's
``Bash`` alone. Real landed files (asm_build writes each with its dialect in the header), real installed adapters."""

from __future__ import annotations

import pytest

from asz_core.flow.assemble import assemble
from asz_core.flow.index import update_index
from asz_core.flow.tool_names import DEFAULT_ROLES, tool_roles
from asz_core.testing.asm_build import Conversation, SessionBuilder


def _counts(tmp_path, dialect: str) -> tuple[int, int]:
    c = Conversation()
    c.input("write a file, run it")
    for tool in ("write", "shell", "Bash", "Write", "create"):
        c.call(f"calling {tool}", tool=tool, result="done")
    c.call("done.")
    b = SessionBuilder(tmp_path / dialect.replace("/", "-"), "sess-1", dialect=dialect)
    c.land(b)
    ix = update_index(b.session_dir)
    counts = assemble(ix, ix.indexed_seq).counts
    return counts["bash_runs"], counts["changes_not_derived"]


@pytest.mark.parametrize("dialect, want", [
    ("kiro/1", (1, 2)),           # shell; write and create (Kiro's), none derived
    ("claude-code/1", (1, 1)),    # Bash; Write
    ("langsmith/1", (1, 0)),      # LangChain declares no vocabulary: Bash alone, by origin-digest §4
    ("mock/1", (1, 0)),           # no adapter speaks it: the same
])
def test_each_dialect_counts_its_own_tools(tmp_path, dialect, want):
    assert _counts(tmp_path, dialect) == want


def test_the_vocabularies_are_the_adapters():
    assert tool_roles("kiro/1") == {"shell": "shell", "run_command": "shell", "execute_bash": "shell",
                                    "execute_pwsh": "shell",  # Kiro IDE (trial 29c, F1)
                                    "write": "file_write", "create": "file_write", "fs_write": "file_write",
                                    "str_replace": "file_write", "delete_file": "file_write"}
    assert tool_roles("claude-code/1") == {"Bash": "shell", "Edit": "file_write", "MultiEdit": "file_write",
                                           "Write": "file_write", "NotebookEdit": "file_write"}
    assert tool_roles("langsmith/1") == tool_roles("") == DEFAULT_ROLES == {"Bash": "shell"}
