"""The ``asz sources --reset-conflict`` command asz prints for a rewritten Kiro file works as printed (trial 34a F1).

A Kiro IDE rewrites its ``messages.jsonl`` (a line put in the middle): the pass finds it a conflict and prints the
command that resolves it. Before, that command (no ``--adapter``) looked under the configured adapters only (Claude
Code) and said ``has no source in conflict``, exit 1, so the session never updated again. Here the printed commands
of ``asz collect``, ``asz ls`` (``stopped:``) and ``asz verify`` are run as printed, through bash, with ``--reread``
(the rewrite is real). Real input: a copy of the corpus Kiro IDE 3.x session, rewritten as trial 34a's
``edit_mid.py`` does (its first assistant line again, a new id, as line 11), in a temporary HOME.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import forked
import pytest

KIRO = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
ASZ = [sys.executable, "-m", "asz_core.cli.main"]
BIN = Path(sys.executable).parent


def _env(home: Path) -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("KIRO_HOME", "USERPROFILE", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")}
    e["HOME"] = str(home)
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"  # `asz` as printed is this checkout's
    return e


def _asz(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``asz ARGS`` as a real child process with HOME the test's, forked from the pre-imported server (tests/forked.py:
    its own pid, environment, working directory and exit status, without the interpreter's 0.4 s start-up)."""
    return forked.run([*ASZ, *args], cwd=cwd, env=_env(home), capture_output=True, text=True, timeout=120)


def _bash(home: Path, cwd: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=_env(home), capture_output=True, text=True, timeout=120)


def _kiro_home(at: Path) -> tuple[Path, Path]:
    """A copy of the corpus Kiro home at ``at/.kiro``; returns (home, the IDE session's messages.jsonl)."""
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    shutil.copytree(KIRO, at / ".kiro")
    for p in (at / ".kiro").rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (msgs,) = (at / ".kiro" / "sessions").glob("*/sess_*/messages.jsonl")
    return at, msgs


def _insert_line_11(msgs: Path) -> str:
    """The IDE's rewrite: the first assistant line again, with a new id and a word put in, as line 11; the word."""
    lines = msgs.read_text(encoding="utf-8").split("\n")
    first = next(ln for ln in lines if json.loads(ln or "{}").get("type") == "assistant" or '"type":"assistant"' in ln)
    rid = json.loads(first)["id"]
    lines.insert(10, first.replace(rid, "inserted-0000-midline").replace('"content":"', '"content":"MIDINSERTED ', 1))
    msgs.write_text("\n".join(lines), encoding="utf-8")
    return "MIDINSERTED"


def _printed(text: str) -> str:
    """The ``asz sources --reset-conflict …`` command a line says, up to the words that follow it."""
    m = re.search(r"(asz sources --reset-conflict .*?) (?:reads it again|resumes it)", text)
    assert m, text
    return m.group(1)


@pytest.mark.parametrize("where", ["default", "source"])
def test_the_printed_reset_command_works_for_a_rewritten_kiro_file(tmp_path, where):
    """``default``: Kiro at HOME, an asz.yaml listing Claude Code only (the configured list leaves Kiro out), the
    collect run with --adapter kiro. ``source``: Kiro copied to another folder collected with --source: every hint
    names it (--adapter kiro --source FOLDER), since a reset under the default folders finds nothing."""
    home, run = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    run.mkdir()
    (run / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n", encoding="utf-8")
    if where == "default":
        _, msgs = _kiro_home(home)
        flags = ["--adapter", "kiro"]
    else:
        other, msgs = _kiro_home(tmp_path / "elsewhere")
        flags = ["--adapter", "kiro", "--source", str(other)]
    landed_lines = msgs.read_bytes().count(b"\n")
    p = _asz(home, run, "collect", "--once", *flags)
    assert p.returncode == 0, p.stdout + p.stderr
    word = _insert_line_11(msgs)
    p = _asz(home, run, "collect", "--once", *flags)
    assert p.returncode == 1, p.stdout + p.stderr
    (said,) = [ln for ln in p.stderr.splitlines() if ln.startswith("conflict:")]
    assert f"conflict: {msgs}: rewritten: the " in said and "; a line inserted at line 11;" in said, said
    hint = _printed(said)
    if where == "source":
        assert f" --adapter kiro --source {other}" in hint, hint
    # asz ls's "stopped:" line and asz verify's warning print the same command
    ls = _asz(home, run, "ls")
    (stopped,) = [ln for ln in ls.stdout.splitlines() if ln.startswith("stopped:")]
    assert _printed(stopped) == hint, stopped
    v = _asz(home, run, "verify")
    assert v.returncode == 0 and _printed(v.stdout) == hint, v.stdout
    r = _bash(home, run, hint + " --reread")  # as printed, the rewrite being real
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(f"reset: .kiro/sessions/") and "read again from its start (rewritten)" in r.stdout, r.stdout
    p = _asz(home, run, "collect", "--once", *flags)
    assert p.returncode == 0 and "conflict" not in p.stderr, p.stdout + p.stderr
    assert "stopped:" not in _asz(home, run, "ls").stdout
    hits = _asz(home, run, "search", word)
    assert hits.returncode == 0 and "1 hit(s)" in hits.stdout + hits.stderr, hits.stdout + hits.stderr
    assert landed_lines == 46  # the corpus file's lines: the reading from line 1 again holds 47


def test_without_adapter_the_reset_finds_the_kiro_conflict_its_cursor_names(tmp_path):
    """No --adapter, no asz.yaml Kiro entry: the conflict is found under the adapter its cursor names,
    and a prefix of the session id works; a source still cut shorter stays a conflict until --reread."""
    home, run = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    run.mkdir()
    (run / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n", encoding="utf-8")
    _, msgs = _kiro_home(home)
    assert _asz(home, run, "collect", "--once", "--adapter", "kiro").returncode == 0
    msgs.write_bytes(msgs.read_bytes()[:5000])  # cut shorter than what landed
    p = _asz(home, run, "collect", "--once", "--adapter", "kiro")
    (said,) = [ln for ln in p.stderr.splitlines() if ln.startswith("conflict:")]
    assert "truncated: the source has 5000 bytes" in said and "the file is shorter: it ends after line " in said, said
    sid = msgs.parent.name
    r = _asz(home, run, "sources", "--reset-conflict", sid[:12])
    assert r.returncode == 1 and r.stdout.startswith("conflict: .kiro/sessions/") and "still truncated" in r.stdout, r.stdout + r.stderr
    r = _asz(home, run, "sources", "--reset-conflict", sid, "--reread")
    assert r.returncode == 0 and r.stdout.startswith("reset: "), r.stdout + r.stderr
