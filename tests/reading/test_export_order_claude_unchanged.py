"""The exports read a Claude Code conversation in file order, as before the LangGraph fix (recheck 28 N1): only an
adapter that lands its records in arrival order (LangSmith) has its streams read in the asz.view document's order
(asz_core.reading.doc_order). The document's order is not Claude Code's file order: applied to the corpus, it moves a
compaction summary, a command caveat and an assistant's text of four conversations (8463c716, a7da6a22, 5c0375b4,
326189cf), so a Claude Code export must never take it.

Real input: the Claude Code corpus collected and parsed by the real commands. Every conversation is exported as
text, prose and audit twice, by the command as it is and with the document's order switched off for every dialect;
the bytes must be the same, and the document's order, switched on for every dialect, must differ from them (so the
comparison can fail).
"""

from __future__ import annotations

import json

import pytest
from reading_helpers import asz

from asz_core.reading import prose

FORMATS = (("--format", "text"), ("--format", "prose"), ("--audit",))


def _exports(root) -> dict:
    ids = [r["id"] for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)]
    assert len(ids) == 11  # the corpus's Claude Code conversations
    return {(cid, form): asz("export", cid, "--root", str(root), *form).stdout for cid in ids for form in FORMATS}


@pytest.mark.slow
def test_claude_code_exports_keep_file_order(corpus_root, monkeypatch):
    now = _exports(corpus_root)
    monkeypatch.setattr(prose, "arrival_ordered", lambda dialect, seen: False)
    assert _exports(corpus_root) == now
    monkeypatch.setattr(prose, "arrival_ordered", lambda dialect, seen: True)
    moved = {cid for (cid, form), out in _exports(corpus_root).items() if out != now[(cid, form)]}
    assert {m[:8] for m in moved} == {"8463c716", "a7da6a22", "5c0375b4", "326189cf"}
