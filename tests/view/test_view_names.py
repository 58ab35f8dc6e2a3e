"""Titles, projects, branches and runtimes in the document's summary (issue 17), against the transcripts."""

from __future__ import annotations

import json
import subprocess
import sys

from asz_core.view import build_view, list_conversations
from asz_core.view.summary import NO_PROMPT

from test_view_usage import sessions_of
from cli_helpers import asz_in_process


def _first(path, key):
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get(key), str) and obj[key]:
            return obj[key]
    return ""


def _first_typed(path):
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d.get("type") == "user" and isinstance(d["message"]["content"], str) and not d.get("isMeta"):
            return " ".join(d["message"]["content"].split())
    return ""


def test_every_corpus_conversation_has_a_title_and_the_cwd_its_transcript_records(corpus):
    projects, root = corpus
    files = sessions_of(projects)
    titled = placed = 0
    for conv in list_conversations(root):
        s = build_view(root, conv)["summary"]
        main = files[conv][0]
        assert s["title"] and s["title"] not in ("(untitled)", NO_PROMPT), conv
        titled += 1
        assert s["project"] == _first(main, "cwd"), conv
        placed += 1
        assert s["git_branch"] == _first(main, "gitBranch"), conv
        assert s["runtime"] == {"name": "claude-code", "version": _first(main, "version")}, conv
    assert (titled, placed) == (11, 11)


def test_an_older_summary_record_for_another_sessions_message_names_nothing(corpus):
    """a7da6a22 writes no ai-title; its two ``summary`` records name (``leafUuid``) messages its transcript does not
    hold, so its first prompt naming work names it (test_view_summary_titles, test_command_titles). 0d3a8e6f has none: its first prompt does."""
    projects, root = corpus
    title = build_view(root, "a7da6a22-facc-4fcd-8bab-f83c87862004")["summary"]["title"]
    assert title not in ("Claude Code CLI Tool Development Summary", "Claude Code warmup for deep-manifest project")
    typed = _first_typed(next(projects.glob("*/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl")))
    assert typed.startswith("<command-name>/context</command-name>")  # a command typed locally: it names no work,
    assert title.startswith("It's been a while - I see that I have pending changes")  # the first prompt that does titles it
    s = build_view(root, "0d3a8e6f-290f-4105-a327-a2496e5e2a83")["summary"]
    assert s["title"].startswith("Hey Claude, I'd like your help with refactoring")


def test_a_conversation_without_any_prompt_says_so(tmp_path):
    sid = "7a1b2c3d-0000-4000-8000-00000000abcd"
    src = tmp_path / "projects" / "-home-dev-quiet"
    src.mkdir(parents=True)
    line = {"type": "system", "subtype": "informational", "content": "started", "uuid": "s-1", "parentUuid": None,
            "timestamp": "2026-04-18T13:18:42.368Z", "sessionId": sid, "cwd": "/home/dev/quiet", "version": "2.1.114",
            "gitBranch": "", "isSidechain": False, "userType": "external", "level": "info"}
    (src / f"{sid}.jsonl").write_text(json.dumps(line) + "\n")
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    s = build_view(root, sid)["summary"]
    assert s["title"] == NO_PROMPT
    assert s["project"] == "/home/dev/quiet" and s["git_branch"] == ""
    assert s["usage"] == {"in": 0, "out": 0, "cache_read": 0, "cache_write": 0} and s["cost"] == {"usd": 0.0, "usd_exact": "0", "unpriced": [], "priced": False}  # nothing of it priced: no dollar figure (trial 28a F6)


def test_a_command_typed_in_bash_mode_titles_its_conversation_as_claude_code_shows_it(corpus):
    """326189cf's summary records all name messages of other sessions and its first typed prompt is a command
    run in bash mode, recorded as ``<bash-input>uv run ty check</bash-input>``: its title is ``! uv run ty check``,
    in the document and in the list alike."""
    projects, root = corpus
    sid = "326189cf-5676-4237-8cde-1ce80aae4a9f"
    path = next(projects.glob(f"*/{sid}.jsonl"))
    typed = _first_typed(path)
    assert typed.startswith("<bash-input>") and typed.endswith("</bash-input>")
    command = typed[len("<bash-input>"):-len("</bash-input>")].strip()
    assert command == "uv run ty check"
    assert build_view(root, sid)["summary"]["title"] == f"! {command}"
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    assert {r["id"]: r["title"] for r in json.loads(p.stdout)}[sid] == f"! {command}"
