"""A title taken from a prompt reads like the prompt the person typed, and the runtime's markup is its adapter's to read.

Claude Code records a command typed in bash mode (``!`` before it) as ``<bash-input>X</bash-input>``, a slash command
as ``<command-message>``/``<command-name>``/``<command-args>``, and wraps IDE context and reminders around what was
typed. Readers that show such prompts (claude-code-log's previews, reader-anchors.md) replace the leading markup by
the command and keep the text that follows. Which markup a prompt carries is the adapter's knowledge
(``Adapter.prompt_title``): the core holds none of it, and an adapter that says nothing keeps the prompt as written.
"""

from __future__ import annotations

import re
from pathlib import Path

import asz_core
from asz_core.plugins import Adapter, get_plugin_manager
from asz_core.view.summary import short_title

from claude_lines import assert_titled, collect_claude

CLAUDE = "claude-code/1"
E = "eeeeeeee-0000-4000-8000-000000000005"  # an empty bash-mode command
F = "ffffffff-0000-4000-8000-000000000006"  # a bash-mode command with text after it


def _user(sid, uid, parent, text, ts):
    """A typed prompt as the corpus's 326189cf records ``<bash-input>uv run ty check</bash-input>`` (Claude Code 1.0.51)."""
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/app", "sessionId": sid,
            "version": "1.0.51", "type": "user", "message": {"role": "user", "content": text}, "uuid": uid, "timestamp": ts}


def _agent(sid, uid, parent, ts):
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/app", "sessionId": sid,
            "version": "1.0.51", "type": "assistant", "requestId": f"req_{uid}", "uuid": uid, "timestamp": ts,
            "message": {"id": f"msg_{uid}", "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": "ok"}],
                        "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}}}


SESSIONS = {
    E: [_user(E, "e-1", None, "<bash-input></bash-input>", "2026-01-03T10:00:00Z"), _agent(E, "e-2", "e-1", "2026-01-03T10:00:05Z")],
    F: [_user(F, "f-1", None, "<bash-input>git status</bash-input>\nwhy is main behind origin?", "2026-01-04T10:00:00Z"),
        _agent(F, "f-2", "f-1", "2026-01-04T10:00:05Z")],
}
WANT = {E: "!", F: "! git status why is main behind origin?"}


def test_a_bash_mode_prompt_reads_as_typed_in_the_document_the_list_and_search(tmp_path):
    root = collect_claude(tmp_path, SESSIONS)
    assert_titled(root, WANT, "origin")


def test_claude_markup_is_read_by_the_claude_adapter():
    assert short_title("<bash-input>uv run ty check</bash-input>", CLAUDE) == "! uv run ty check"
    assert short_title("<bash-input></bash-input>", CLAUDE) == "!"
    assert short_title("<bash-input></bash-input>\nthen this", CLAUDE) == "then this"
    assert short_title("<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>", CLAUDE) == "/init"
    assert short_title("<system-reminder>x</system-reminder>\nFix the bug", CLAUDE) == "Fix the bug"
    only = "<ide_selection>The user selected line 3 of a.py</ide_selection>"
    assert short_title(only, CLAUDE) == only  # nothing typed: the prompt as written


def test_an_adapter_that_says_nothing_of_markup_keeps_the_prompt_as_written():
    pm = get_plugin_manager()
    for name, dialect in (("kiro", "kiro/1"), ("langsmith-ingest", "langsmith/1")):
        adapter = pm.get(name)
        assert type(adapter).prompt_title is Adapter.prompt_title
        assert adapter.prompt_title(dialect, "<bash-input>ls</bash-input>") == "<bash-input>ls</bash-input>"
    assert type(pm.get("claude-code-local")).prompt_title is not Adapter.prompt_title
    # no adapter for the dialect: whitespace made one space, nothing read as markup
    assert short_title("<bash-input>ls</bash-input>\n  more", "") == "<bash-input>ls</bash-input> more"


def test_the_core_holds_no_claude_markup():
    core = Path(asz_core.__file__).parent
    markup = re.compile(r"<(/?)(command-name|command-message|command-args|bash-input|bash-stdout|bash-stderr|ide_selection|"
                        r"ide_opened_file|system-reminder)>")
    found = [f"{p.relative_to(core)}:{i}" for p in sorted(core.rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if markup.search(line)]
    assert found == []


def test_claude_markup_is_read_in_blocks_by_the_claude_adapter():
    """``Adapter.prompt_blocks`` through the core's one call (docs/view.md, "Commands and their output"), on the shapes
    the corpus holds (a7da6a22's ``/model`` and its output, 5c0375b4's command with arguments, 326189cf's bash mode)
    and the edges: prose around a command, a text the document clipped inside an output, an empty output, text with
    no such markup and a dialect no adapter speaks, which keep the text as written."""
    from asz_core.view.titles import prompt_blocks

    model = "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>"
    assert prompt_blocks(model, CLAUDE) == [("command", "/model")]
    said = "<local-command-stdout>Set model to \x1b[1mopus (claude-opus-4-5-20251101)\x1b[22m</local-command-stdout>"
    assert prompt_blocks(said, CLAUDE) == [("stdout", "Set model to \x1b[1mopus (claude-opus-4-5-20251101)\x1b[22m")]
    orch = "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>@CLAUDE.md go</command-args>"
    assert prompt_blocks(orch, CLAUDE) == [("command", "/orchestrator @CLAUDE.md go")]
    assert prompt_blocks("<command-name>clear</command-name>", CLAUDE) == [("command", "/clear")]
    assert prompt_blocks("<bash-input>uv run ty check</bash-input>", CLAUDE) == [("command", "! uv run ty check")]
    assert prompt_blocks("<bash-stdout>a\n</bash-stdout><bash-stderr>WARN b\n</bash-stderr>", CLAUDE) == [("stdout", "a"), ("stderr", "WARN b")]
    assert prompt_blocks("<bash-stdout></bash-stdout><bash-stderr></bash-stderr>", CLAUDE) == [("stdout", "")]
    assert prompt_blocks("<bash-input>ls</bash-input>\nwhy so many?", CLAUDE) == [("command", "! ls"), ("text", "why so many?")]
    assert prompt_blocks("<local-command-stdout>\n Context Usage\n⛁ ⛀", CLAUDE) == [("stdout", " Context Usage\n⛁ ⛀")]  # clipped
    for plain_text in ("Fix the bug", "a <b>bold</b> claim", ""):
        assert prompt_blocks(plain_text, CLAUDE) == [("text", plain_text)]
    assert prompt_blocks(model, "no-such-dialect/1") == [("text", model)]
