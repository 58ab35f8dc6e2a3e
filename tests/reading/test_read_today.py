"""A conversation an earlier adapter version landed reads as today's asz reads it (trial 23b, F6; docs/storage-root.md,
"A root several asz versions read").

Before commit 691801f, Claude Code's adapter (``claude-code-local/0.2.0``) landed a bash-mode command's output
(``<bash-stdout>``, the line after its ``<bash-input>``) as a typed prompt: ``external_input``, a Person talk of its own.
Flags are set when a file lands and a landed file is never rewritten (seed 000). The landed record holds the text the
rule reads, so the adapter says how it reads today (``Adapter.read_today``) and the assembly takes that reading; a chain
an earlier parse folded says so in its problems, naming the ``asz parse`` that reads it today. The root here is
collected and parsed by a ``git archive`` of 691801f^ (the code of that version, in a child process) from the corpus's
326189cf, which has one ``!uv run ty check``; every expected count is read from the source transcript."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reading_helpers import asz, source_lines

from cli_helpers import code_at

BEFORE = "691801f^"  # the commit before a bash-mode command's output stopped being a typed prompt
BASH = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")
OUTPUT = ("<bash-stdout>", "<bash-stderr>")
#: What Claude Code writes into a ``user`` line's string content itself (docs/adapters/claude-code.md, "Triggers and
#: external_input"); before 691801f the adapter knew all but the bash-mode output.
RUNTIME_NOW = ("<task-notification>", "<local-command-stdout>", "<local-command-stderr>", *OUTPUT)
RUNTIME_BEFORE = RUNTIME_NOW[:3]


def _typed(lines: list[dict], runtime: tuple) -> list[str]:
    """The string contents a rule without ``origin`` reads as typed prompts (none of ``runtime`` opens them)."""
    return [d["message"]["content"] for d in lines
            if d.get("type") == "user" and not d.get("isMeta") and not d.get("isSidechain") and "toolUseResult" not in d
            and "origin" not in d and isinstance(d["message"].get("content"), str)
            and not d["message"]["content"].lstrip().startswith(runtime)]


@pytest.fixture(scope="module")
def source(corpus_source) -> list[dict]:
    return source_lines(corpus_source / BASH[0] / f"{BASH[1]}.jsonl")


@pytest.fixture(scope="module")
def before_root(corpus_source, tmp_path_factory) -> Path:
    """326189cf collected and parsed by the code of 691801f^ (its collect parses what it lands)."""
    base = tmp_path_factory.mktemp("read-today")
    code = code_at(BEFORE, base)
    (base / "projects" / BASH[0]).mkdir(parents=True)
    shutil.copy(corpus_source / BASH[0] / f"{BASH[1]}.jsonl", base / "projects" / BASH[0])
    env = {**os.environ, "PYTHONPATH": str(code), "CLAUDE_CONFIG_DIR": str(base / "claude-home")}
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "claude-code-local",
                        "--source", str(base / "projects"), "--root", str(base / "root")],
                       capture_output=True, text=True, env=env, cwd=base, timeout=600)
    assert p.returncode == 0 and " errors=0 " in p.stdout and " rounds=1 " in p.stdout, p.stdout + p.stderr
    return base / "root"


@pytest.fixture()
def root(before_root, tmp_path) -> Path:
    r = tmp_path / "root"
    shutil.copytree(before_root, r, symlinks=True)
    return r


def _landed(root: Path) -> list[tuple[dict, dict]]:
    """``(header, record)`` of every record of the session's landed transcript files."""
    out = []
    for sd in sorted((root / BASH[1] / "streams" / "main").glob("*.sd")):
        lines = [json.loads(x) for x in sd.read_bytes().splitlines()]
        out += [(lines[0], rec) for rec in lines[1:] if "ord" in rec]
    return out


def _digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in (root / BASH[1]).rglob("*.sd")}


def _row(root: Path) -> tuple[list[str], str]:
    """The conversation's ``asz ls`` row split on blanks, a STATE's ``!`` kept apart (the last column), and the output."""
    out = asz("ls", "--root", str(root)).stdout
    [row] = [ln for ln in out.splitlines() if ln.startswith(BASH[1][:8])]
    cols = row.split()
    return (cols if cols[-1] == "!" else [*cols, ""]), out


def test_the_archive_landed_the_output_as_a_typed_prompt(before_root, source):
    outputs = [d for d in source if d.get("type") == "user" and isinstance(d["message"].get("content"), str)
               and d["message"]["content"].lstrip().startswith(OUTPUT)]
    assert len(outputs) == 1 and not any("origin" in d for d in source)
    landed = _landed(before_root)
    assert {h["adapter"] for h, _ in landed} == {"claude-code-local/0.2.0"}
    flagged = [r for _, r in landed if r.get("parts") and str(r["parts"][0].get("text", "")).startswith(OUTPUT)]
    assert [r["id"] for r in flagged] == [d["uuid"] for d in outputs]
    assert all("external_input" in r["flags"] and r["trigger"] == "external" for r in flagged)


def test_a_chain_parsed_before_says_so_and_asz_parse_reads_it_today(root, source):
    before, now = _typed(source, RUNTIME_BEFORE), _typed(source, RUNTIME_NOW)
    assert len(before) == len(now) + 1  # the one output: a talk of its own then, its command's step now
    cols, out = _row(root)
    assert cols[-8] == str(len(before)) and cols[-2:] == ["verified", "!"]  # TALKS, STATE
    said = (f"1 record(s) landed by claude-code-local/0.2.0 read by that version's rule in this conversation's rounds "
            f"(today's rule: a bash-mode command's output is no typed prompt); asz parse {BASH[1]} --root {root} reads "
            "them by today's rule")
    assert said in out
    assert f"problem: {said}" in asz("conversation", BASH[1][:8], "--root", str(root)).stdout
    landed = _digests(root)

    p = asz("parse", BASH[1], "--root", str(root))
    assert "1 round(s) written" in p.stderr
    cols, out = _row(root)
    assert cols[-8] == str(len(now)) and cols[-2:] == ["verified", ""] and "problems in" not in out
    doc = json.loads(asz("export", BASH[1][:8], "--root", str(root), "--format", "json").stdout)
    assert [t["label"] for t in doc["talks"]] == now
    assert _digests(root) == landed  # what landed stays as it landed, its flag with it
    assert [r["flags"] for _, r in _landed(root) if r.get("parts") and str(r["parts"][0].get("text", "")).startswith(OUTPUT)] \
        == [["external_input"]]
    assert asz("verify", "--root", str(root), check=False).returncode == 0, "the round written verifies"
    assert "0 round(s) written" in asz("parse", BASH[1], "--root", str(root)).stderr  # once read, nothing more to write


def test_a_chain_built_anew_reads_it_today(root, source):
    asz("parse", BASH[1], "--anew", "--root", str(root))
    doc = json.loads(asz("export", BASH[1][:8], "--root", str(root), "--format", "json").stdout)
    assert [t["label"] for t in doc["talks"]] == _typed(source, RUNTIME_NOW)
    assert "problems in" not in _row(root)[1]


def test_the_adapter_reads_today_only_what_the_record_holds(before_root):
    from asz_adapters_claude.blocks import CONTENT_LIST_WHAT
    from asz_adapters_claude.plugin import ClaudeCodeLocal

    a = ClaudeCodeLocal()
    [rec] = [r for _, r in _landed(before_root) if r.get("parts") and str(r["parts"][0].get("text", "")).startswith(OUTPUT)]
    got = a.read_today("claude-code/1", "claude-code-local/0.2.0", rec)
    assert got == {"flags": [], "trigger": "", "why": "a bash-mode command's output is no typed prompt"}
    assert a.read_today("claude-code/1", "claude-code-local/0.1.0", rec) == got  # no shape stated: Claude Code's string
    assert a.read_today("claude-code/1", "claude-code-local/0.3.0", rec) is None  # landed by today's rule
    assert a.read_today("claude-code/1", "other-adapter/0.1.0", rec) is None
    listed = {**rec, "dropped": [{"what": CONTENT_LIST_WHAT, "why": "x"}]}
    assert a.read_today("claude-code/1", "claude-code-local/0.2.0", listed) is None  # a list of text blocks is typed
    typed = {**rec, "parts": [{"k": "text", "text": "see " + rec["parts"][0]["text"]}]}
    assert a.read_today("claude-code/1", "claude-code-local/0.2.0", typed) is None  # what a person typed stays so


def test_asz_conversation_names_the_earlier_version_and_what_it_did_not_keep(before_root, corpus_root):
    from asz_adapters_claude.plugin import ClaudeCodeLocal

    files = list((before_root / BASH[1]).rglob("*.sd"))
    out = asz("conversation", BASH[1][:8], "--root", str(before_root)).stdout
    now = f"{ClaudeCodeLocal.name}/{ClaudeCodeLocal.version}"
    assert (f"\nlanded by claude-code-local/0.2.0 ({len(files)} of {len(files)} file(s)), an earlier version than the "
            f"installed {now}, which did not keep or read as it does: a call's rate other than standard") in out
    assert "whether a person's prompt was a string" not in out  # 0.2.0 states a list of one text block
    assert f"lands them by {now}" in out
    assert "\nlanded by " not in asz("conversation", BASH[1][:8], "--root", str(corpus_root)).stdout  # landed now
