"""A round an older asz wrote is assembled again by this one's next parse (trial 23b, F4; docs/storage-root.md, "A root
several asz versions read").

Parse assembles a session whole and diffs it against the chain's fold: a node the assembly lacks is tombstoned. So an
older asz that draws less (23891c4, before unflagged input got a step of its own, issue 18) writing a round after this
one left this asz's records undrawn: ``not drawn: …`` under ``asz ls``, until this asz landed something new in that
session. Now ``conversation.state`` names the asz whose assembly wrote the chain last (``assembled_by``); a chain
another asz parsed last is not current, so the next ``asz collect`` assembles it again and writes the difference.
The older asz is the real code of 23891c4 (a ``git archive``, in a child process); the conversation is the corpus's
326189cf, its first half collected by this asz, the whole by the older one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reading_helpers import asz, source_lines

from cli_helpers import code_at

OLDER = "23891c4"  # main on 2026-12-01, before a user line no flag names was drawn (issue 18)
BASH = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")


def test_a_round_an_older_asz_wrote_is_assembled_again_by_the_next_collect(corpus_source, tmp_path):
    src = corpus_source / BASH[0] / f"{BASH[1]}.jsonl"
    raw = src.read_bytes().splitlines(keepends=True)
    lines = source_lines(src)
    output = [d["uuid"] for d in lines if d.get("type") == "user" and isinstance(d["message"].get("content"), str)
              and d["message"]["content"].startswith("<bash-stdout>")]
    assert len(output) == 1  # a bash-mode command's output: no flag names it, so it is drawn as injected input
    half = len(raw) // 2
    assert output[0] in b"".join(raw[:half]).decode()
    projects = tmp_path / "projects" / BASH[0]
    projects.mkdir(parents=True)
    (projects / src.name).write_bytes(b"".join(raw[:half]))
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))

    (projects / src.name).write_bytes(b"".join(raw))
    code = code_at(OLDER, tmp_path)
    env = {**os.environ, "PYTHONPATH": str(code), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source",
                        str(tmp_path / "projects"), "--root", str(root)], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=600)
    assert p.returncode == 0 and " rounds=1 " in p.stdout, p.stdout + p.stderr
    said = asz("ls", "--root", str(root)).stdout
    assert f"not drawn: 1 landed records with content are in no node and no list: 1/" in said and output[0] in said

    p = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert " landed=0 " in p.stdout and " rounds=1 " in p.stdout, p.stdout  # nothing new landed: the chain assembled again
    assert "not drawn" not in asz("ls", "--root", str(root)).stdout
    doc = json.loads(asz("export", BASH[1][:8], "--root", str(root), "--format", "json").stdout)
    assert doc["summary"]["coverage"]["records"] == doc["summary"]["coverage"]["cited"]
    assert asz("verify", "--root", str(root), check=False).returncode == 0
    assert " rounds=0 " in asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).stdout
