"""A conflict's next step names the ``--source`` the pass read (trial 33a, fix33d "Left"; done by 507fd67d for trial 34a
F1, the folder kept in the cursor): for Claude Code's adapter and a folder whose name holds a space, pasted into a real shell,
``asz sources --reset-conflict`` finds the source in conflict and resets it.

Before, a pass given ``--source DIR`` said ``asz sources --reset-conflict S --root R``; pasted, that command read the
adapter's default folders and answered ``session S has no source in conflict`` (exit 1), the conflict staying.
Real input: the bundled example transcript (examples/claude-code/projects) in a source folder whose name holds a
space, collected with ``--source``; the default folder (``$CLAUDE_CONFIG_DIR/projects``) holds nothing. The command is
cut from what asz printed and run by ``bash -c`` in the same folder, ``asz`` being this checkout's command.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

from cli_helpers import asz_in_process, pasted

REPO = Path(__file__).resolve().parents[2]
SID = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"


def test_the_reset_step_of_a_pass_given_a_source_works_pasted(tmp_path):
    home = tmp_path / "claude home"
    (home / "projects").mkdir(parents=True)  # the default folder: empty
    src = tmp_path / "my src"
    shutil.copytree(REPO / "examples" / "claude-code" / "projects", src)
    env = {"CLAUDE_CONFIG_DIR": str(home), "XDG_CONFIG_HOME": None}
    p = asz_in_process("collect", "--once", "--source", "my src", "--root", "data", cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr

    f = src / "-home-dev-hello-app" / f"{SID}.jsonl"
    kept = f.read_bytes()
    f.write_bytes(kept.replace(b"e", b"E", 1))  # rewritten in place after it landed
    p = asz_in_process("collect", "--once", "--source", "my src", "--root", "data", cwd=tmp_path, env=env)
    m = re.search(r"; (asz sources --reset-conflict .+?) reads it again", p.stderr)
    assert m is not None, p.stderr
    reset = m.group(1)
    assert reset == f"asz sources --reset-conflict {SID} --root data --adapter claude-code-local --source {shlex.quote(str(src))}"
    assert json.loads(asz_in_process("ls", "--json", "--root", "data", cwd=tmp_path, env=env).stdout)[0]["conflicts"]

    f.write_bytes(kept)  # its bytes are back
    r = pasted(reset, tmp_path, home)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(f"reset: -home-dev-hello-app/{SID}.jsonl: "), r.stdout
    # what it found, said of all the bytes that landed (trial 50d F2: "the 1048576 bytes before offset 1196306 are the
    # ones that landed" read as if 1 MiB alone had landed)
    assert f": the source holds the {len(kept):,} bytes that landed (they hash as the landed ones did); the next pass " \
           "reads what follows them" in r.stdout, r.stdout
    assert json.loads(asz_in_process("ls", "--json", "--root", "data", cwd=tmp_path, env=env).stdout)[0]["conflicts"] == []


def test_a_reset_of_a_source_above_the_tail_window_says_all_its_bytes_landed():
    from asz_core.collect.reset import held_again
    from asz_core.storage.cursor import TAIL_WINDOW

    assert held_again(1_196_306) == (f"the source holds the 1,196,306 bytes that landed (its last {TAIL_WINDOW:,} bytes, "
                                     "the ones checked, hash as the landed ones did); the next pass reads what follows them")
