"""An adapter installed: the next ``asz collect`` assembles every chain again, and says so (trial 46b F7).

Installing the plugin template and collecting its 2 sessions printed ``parse: 93 session(s), 5 s`` and nothing about
why. The chain's assembly mark (``asz_core.flow.chain.assembly_mark``) hashes every installed adapter package's code,
since an adapter's answers for its dialects (its tool vocabulary, ``read_today``) shape the assembly, and which
sessions an adapter installed, removed or changed touches is known only by assembling them. So the parse still
assembles them, once per asz and landing, and a round is written only where the drawing differs; now ``asz collect``
says how many it assembled with nothing new landed, and how many of them it drew differently.

Real parts: two Claude Code corpus sessions (../shared/corpus, copied into a temporary source folder), the real
``asz collect --once``, and the template adapter made installed as a distribution is (a ``.dist-info`` folder with its
``entry_points.txt`` on ``PYTHONPATH``, which is what the mark and the plugin manager read).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TEMPLATE = Path(__file__).resolve().parents[2] / "plugin-template"
SESSIONS = ("-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl",
            "-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl")


def _asz(env: dict, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "asz_core.cli.entry", *args], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _installed(site: Path) -> Path:
    """The template's package declared as an installed distribution under ``site`` (its code read from TEMPLATE)."""
    info = site / "asz_adapter_example-0.2.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: asz-adapter-example\nVersion: 0.2.0\n")
    (info / "entry_points.txt").write_text("[asz]\nexample-codex = asz_adapter_example.plugin\n")
    return site


def test_installing_an_adapter_says_why_every_session_is_assembled_again(corpus_projects, tmp_path):
    from asz_core.plugins.packages import declared

    if not (TEMPLATE / "asz_adapter_example").is_dir():
        pytest.skip("plugin-template is not beside the tests")
    if any(name == "example-codex" for name, _ in declared("asz")):
        pytest.skip("the template adapter is installed here already: installing it changes nothing")
    projects = tmp_path / "projects"
    for rel in SESSIONS:
        (projects / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus_projects / rel, projects / rel)
    root = tmp_path / "root"
    env = dict(os.environ, HOME=str(tmp_path), CLAUDE_CONFIG_DIR=str(tmp_path / "claude-home"))
    _asz(env, "collect", "--once", "--source", str(projects), "--root", str(root))
    again = _asz(env, "collect", "--once", "--source", str(projects), "--root", str(root))
    assert "assembled" not in again.stderr and again.stdout.rstrip().endswith("s)") and " rounds=0 " in again.stdout

    site = _installed(tmp_path / "site")
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(TEMPLATE), env.get("PYTHONPATH", "")])
    codex = _asz(env, "collect", "--once", "--adapter", "example-codex", "--source", str(TEMPLATE / "samples"),
                 "--root", str(root))
    # the two Claude Code sessions, in which nothing landed, are assembled again: said, with none drawn differently
    assert ("note: parse assembled 2 session(s) again in which nothing new landed: another asz assembled them last "
            "(another version or flow code, or other adapter packages installed:") in codex.stderr
    assert "; 0 of them drawn differently, with a new round each; said once per asz and landing\n" in codex.stderr
    assert " sessions=2 " in codex.stdout and " rounds=2 " in codex.stdout  # the template's 2 sessions, a round each
    # once per asz and landing: the next pass with this adapter set assembles nothing again and says nothing
    quiet = _asz(env, "collect", "--once", "--adapter", "example-codex", "--source", str(TEMPLATE / "samples"),
                 "--root", str(root))
    assert "assembled" not in quiet.stderr and " rounds=0 " in quiet.stdout
