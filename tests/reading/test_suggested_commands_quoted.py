"""Every command asz suggests quotes its paths for the shell (trial 33a F2): pasted into a real shell, it works in a
storage root whose path holds a space.

Before, ``asz ls`` said ``asz parse --root root with spaces builds them`` and the pasted line failed with ``Got
unexpected extra argument(s)``. Real input: the bundled example transcript (examples/claude-code/projects), collected
from ``$CLAUDE_CONFIG_DIR/projects`` (the default source) into ``./root with spaces``; each suggested command is cut
from what asz printed and run by ``bash -c`` in the same folder, ``asz`` being this checkout's command.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

from cli_helpers import asz_in_process, pasted

REPO = Path(__file__).resolve().parents[2]
SID = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"
ROOT = "root with spaces"


def _cut(text: str, pattern: str) -> str:
    """The command ``pattern`` (a regex with one group) finds in ``text``; the test fails when there is none."""
    m = re.search(pattern, text)
    assert m is not None, (pattern, text)
    return m.group(1)


def test_pasted_suggestions_work_in_a_root_with_a_space(tmp_path):
    work = tmp_path / "sp dir"
    home = tmp_path / "claude home"
    src = home / "projects"
    shutil.copytree(REPO / "examples" / "claude-code" / "projects", src)
    env = {"CLAUDE_CONFIG_DIR": str(home), "XDG_CONFIG_HOME": None}
    work.mkdir()

    # landed, not parsed: the readers name the parse that builds the chains
    p = asz_in_process("collect", "--once", "--no-parse", "--root", ROOT, cwd=work, env=env)
    assert p.returncode == 0, p.stderr
    said = asz_in_process("ls", "--root", ROOT, cwd=work, env=env)
    parse = _cut(said.stdout + said.stderr, r"; (asz parse --root .+?) builds them")
    assert parse == "asz parse --root 'root with spaces'"
    assert pasted(parse, work, home).returncode == 0
    rows = json.loads(asz_in_process("ls", "--json", "--root", ROOT, cwd=work, env=env).stdout)
    assert [r["id"] for r in rows] == [SID]

    # a source rewritten after it landed: the conflict's next step, with the root it was found in
    f = src / "-home-dev-hello-app" / f"{SID}.jsonl"
    kept = f.read_bytes()
    f.write_bytes(kept.replace(b"e", b"E", 1))
    p = asz_in_process("collect", "--once", "--root", ROOT, cwd=work, env=env)
    reset = _cut(p.stderr, r"; (asz sources --reset-conflict .+?) reads it again")
    assert reset == f"asz sources --reset-conflict {SID} --root 'root with spaces'"
    f.write_bytes(kept)  # its bytes are back
    r = pasted(reset, work, home)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(asz_in_process("ls", "--json", "--root", ROOT, cwd=work, env=env).stdout)[0]["conflicts"] == []

    # a landed file lost: asz verify names the --reland command (DIR: the source folder, a placeholder it says)
    [lost] = sorted((work / ROOT / SID / "streams" / "main").glob("transcript-*.sd"))[:1]
    os.chmod(lost, 0o644)
    lost.unlink()
    v = asz_in_process("verify", "--root", ROOT, cwd=work, env=env)
    assert v.returncode == 1
    reland = _cut(v.stdout + v.stderr, r"(asz sources --reland \S+ --root .+? --source DIR)")
    assert reland == f"asz sources --reland {SID} --root 'root with spaces' --source DIR"
    r = pasted(reland.replace("DIR", shlex.quote(str(src))), work, home)
    assert r.returncode == 0, r.stdout + r.stderr
    assert asz_in_process("verify", "--root", ROOT, cwd=work, env=env).returncode == 0
