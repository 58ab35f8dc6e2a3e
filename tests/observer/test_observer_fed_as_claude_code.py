"""Every corpus hook payload fed as Claude Code feeds it, to what ``asz hooks install`` configured, then landed by
``asz collect`` and read back (trial 25a, F1).

Claude Code runs, for each event, every command of the settings' groups under that event name whose matcher matches
the tool's name (a regex, matched whole), with the event as JSON on standard input, through a shell. This test does
that with the real settings file ``asz hooks install`` wrote into a temporary config dir, so the hook command is the
one a user gets. Counts come from the corpus files: the MCP ``PostToolUse``/``PostToolUseFailure`` events, the ones
that can be recorded (a session and a ``tool_use_id``), one record each.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

#: How each probe failed, as the payload's own ``probe_case`` names it; and the words every reader says for it.
FAILED = {"fail": "unclassified: an error text no declared rule knows, from the server or the runtime",
          "crash": "transport: the connection to the server closed",
          "slow": "timeout: the runtime stopped waiting for the server"}


def test_corpus_payloads_fed_as_claude_code_are_recorded_and_told_apart(tmp_path: Path, corpus_dir: Path) -> None:
    if shutil.which("asz") is None:
        pytest.skip("asz is not on PATH (pip install -e .)")
    cfg, data, root = tmp_path / "claude", tmp_path / "data", tmp_path / "root"
    cfg.mkdir()
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(cfg), ASZ_HOOK_DATA=str(data), HOME=str(tmp_path))
    p = subprocess.run(["asz", "hooks", "install"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    settings = json.loads((cfg / "settings.json").read_text())

    events = [json.loads(line) for f in sorted((corpus_dir / "hooks").glob("*.jsonl")) if "received_at" not in f.name
              for line in f.read_text().splitlines() if line.strip()]
    ran = 0
    for ev in events:
        for group in settings["hooks"].get(ev.get("hook_event_name"), []):
            if re.fullmatch(group.get("matcher", ".*"), str(ev.get("tool_name") or "")):
                for h in group["hooks"]:
                    run = subprocess.run(h["command"], shell=True, input=json.dumps(ev), capture_output=True, text=True,
                                         env=env, timeout=h.get("timeout", 60))
                    assert run.returncode == 0 and run.stdout == "", run.stderr
                    ran += 1

    mcp = [e for e in events if e.get("hook_event_name") in ("PostToolUse", "PostToolUseFailure")
           and str(e.get("tool_name") or "").startswith("mcp__")]
    recordable = [e for e in mcp if e.get("session_id") and e.get("tool_use_id")]
    assert ran == len(mcp) == 10 and len(recordable) == 9  # one has no tool_use_id (MadameClaude's, an old Claude Code)
    calls = {e["tool_use_id"]: e for e in recordable}
    assert len(calls) == 9 and len({e["session_id"] for e in recordable}) == 8  # a815fa95 holds two calls
    log = (data / "log" / "plugin.log").read_text()
    assert log.count("refused:") == len(mcp) - len(recordable)

    out = asz_in_process("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root), cwd=tmp_path)
    assert out.returncode == 0 and f"records={len(recordable)} " in out.stdout, out.stdout + out.stderr
    failed = [e for e in calls.values() if e["hook_event_name"] == "PostToolUseFailure"]
    assert sorted(e["probe_case"] for e in failed) == sorted(FAILED)
    for e in calls.values():
        text = asz_in_process("conversation", e["session_id"], "--root", str(root), cwd=tmp_path).stdout
        took = f" in {e['duration_ms']:,} ms" if "duration_ms" in e else ""
        if e in failed:
            size = len(json.dumps(e["error"]).encode())
            said = f"failed ({FAILED[e['probe_case']]}; error {size} bytes as JSON, not kept){took}"
            assert e["error"] not in text  # sizes and digests only (seed 000)
        else:
            said = f"returned{took}"
        server = e["mcp_server"]
        assert f"  {e['tool_use_id']} {e['tool_name']}: MCP server {server['name']} ({server['source']}): {said}" in text, text
