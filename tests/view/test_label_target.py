"""Which record a label was written for is the adapter's to say (``Adapter.label_target``), never the core's.

Claude Code writes an older ``summary`` record, on resuming, into the transcript resumed in, naming in ``leafUuid``
the message whose conversation it names. The key is Claude Code's vocabulary: the Claude adapter reads it from the
record's one data part; the readers ask the adapter of the landed file's dialect, and with no adapter installed for
it take the label as naming the conversation it is in (no guessing).
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from asz_core.plugins import Adapter, get_plugin_manager
from asz_core.plugins.manager import adapter_for_dialect
from asz_core.plugins.packages import adapter_sources
from asz_core.view import build_view
from asz_core.view.session_records import LandedSession

A7 = "a7da6a22-facc-4fcd-8bab-f83c87862004"


def _source_labels(projects: Path) -> list[tuple[str, str]]:
    """(label, leafUuid or '') of each ``summary`` and ``ai-title`` line of a7da6a22's transcript, in order."""
    out = []
    for line in next(projects.glob(f"*/{A7}.jsonl")).read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d.get("type") == "summary":
            out.append((d["summary"], d.get("leafUuid", "")))
        elif d.get("type") == "ai-title":
            out.append((d["aiTitle"], ""))
    return out


def _landed_labels(root: Path) -> list[dict]:
    sess = LandedSession(root, A7, 1 << 62)
    return [rec for seq in sorted(sess.records) if sess.headers[seq].kind == "transcript"
            for rec in sess.records[seq] if rec.get("label") and not rec.get("id")]


def test_the_claude_adapter_names_the_message_each_summary_record_was_written_for(corpus):
    projects, root = corpus
    expected = _source_labels(projects)
    assert len(expected) == 2 and all(leaf for _, leaf in expected)  # two summary records, each naming a message
    claude = get_plugin_manager().get("claude-code-local")
    landed = _landed_labels(root)
    assert [(r["label"], claude.label_target("claude-code/1", r)) for r in landed] == expected
    # an adapter that says nothing of labels (the default) names no record, whatever the record holds
    kiro = get_plugin_manager().get("kiro")
    assert type(kiro).label_target is Adapter.label_target
    assert [kiro.label_target("kiro/1", r) for r in landed] == ["", ""]


def test_with_no_adapter_for_the_dialect_a_label_names_the_conversation_it_is_in(corpus, monkeypatch):
    projects, root = corpus
    # both summaries name another session's message: the first prompt naming work titles it (/context and /model,
    # commands typed locally, do not: tests/view/test_command_titles.py)
    assert build_view(root, A7)["summary"]["title"].startswith("It's been a while - I see that I have pending changes")
    monkeypatch.setenv("ASZ_DISABLE_ADAPTERS", "claude-code-local")
    assert adapter_for_dialect("claude-code/1") is None
    # no guessing at a runtime's key: the header's title (the last label) stands
    assert build_view(root, A7)["summary"]["title"] == _source_labels(projects)[-1][0]


def test_the_summary_cache_fingerprint_covers_the_adapter_code_that_reads_labels():
    claude = type(get_plugin_manager().get("claude-code-local"))
    from asz_adapters_claude import prompts, transcript

    files = set(adapter_sources())
    assert inspect.getsourcefile(claude.label_target) in files
    assert inspect.getsourcefile(transcript.label_target) in files
    assert inspect.getsourcefile(claude.prompt_title) in files and inspect.getsourcefile(prompts.prompt_title) in files
    assert not any(Path(f).parent.name == "asz_core" for f in files)
