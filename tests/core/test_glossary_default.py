"""``asz glossary`` with no dialect shows ``claude-code/1``, as ``/api/glossary`` does, and names the other installed
dialects on its last line (trial 17, F17: it showed ``asz-changes/1``, the first in sorted order); ``--json`` with no
dialect still gives every installed one."""

from __future__ import annotations

import json

from cli_helpers import asz_in_process

from asz_core.plugins import get_plugin_manager


def test_no_dialect_is_claude_codes_and_the_others_are_named():
    reg = get_plugin_manager()
    dialects = reg.dialects()
    assert reg.default_dialect() == "claude-code/1" and dialects[0] != "claude-code/1"  # sorting alone would not give it
    terms = reg.by_dialect("claude-code/1").glossary("claude-code/1")
    named = sum(1 for t in terms if t.native)
    p = asz_in_process("glossary")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == f"claude-code/1 (adapter claude-code-local): {len(terms)} terms: {named} named, {len(terms) - named} derived"
    assert sum(1 for x in lines if " (adapter " in x and " terms: " in x) == 1  # one glossary, not every one
    others = ", ".join(d for d in dialects if d != "claude-code/1")
    assert lines[-1] == f"other dialects: {others} (asz glossary DIALECT prints one)"
    every = json.loads(asz_in_process("glossary", "--json").stdout)
    assert [g["dialect"] for g in every["glossaries"]] == dialects
