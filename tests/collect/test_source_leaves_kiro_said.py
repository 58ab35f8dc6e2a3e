"""``asz collect --source A --source B`` collects one adapter's folders; an installed adapter a plain ``asz collect``
collects beside the default list (Kiro, sessions at ``~/.kiro``: trial 34a F6) is left out, and now one ``note:``
says so with the command that collects it (trial 37a F7: a two-host collect left the team's Kiro user out without a
word, and ``asz sources`` then showed both Kiro sessions ``new``, 0 landed).

Real input: the Kiro corpus linked into a temporary HOME and two copies of one Claude Code corpus transcript as two
hosts' folders, collected by the real ``asz collect``; the command the note gives is run as printed and lands every
Kiro session the corpus holds (counted from its files)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
KIRO = SHARED / "kiro" / "home" / ".kiro"
ENV_OFF = {"KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None}
SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def _kiro_sessions() -> set[str]:
    return {f.stem for f in KIRO.glob("sessions/cli/*.jsonl")} | {d.name for d in KIRO.glob("sessions/*/sess_*")}


@pytest.fixture
def hosts(tmp_path):
    src = next(SHARED.glob(f"claude-code/projects/*/{SID}.jsonl"), None)
    if not KIRO.is_dir() or src is None:
        pytest.skip(f"the Kiro corpus or {SID}.jsonl is absent ({SHARED})")
    home = tmp_path / "home"
    home.mkdir()
    os.symlink(KIRO, home / ".kiro")
    for h in ("hostA", "hostB"):
        (tmp_path / h / src.parent.name).mkdir(parents=True)
        shutil.copyfile(src, tmp_path / h / src.parent.name / src.name)
    return home


def _asz(home: Path, cwd: Path, *args: str):
    return asz_in_process(*args, cwd=cwd, env={"HOME": str(home), **ENV_OFF})


def test_a_collect_of_named_folders_says_kiro_is_left_out(hosts, tmp_path):
    p = _asz(hosts, tmp_path, "collect", "--once", "--source", "hostA", "--source", "hostB", "--root", "team")
    assert p.returncode == 0, p.stdout + p.stderr
    notes = [x for x in p.stderr.splitlines() if x.startswith("note: kiro sessions are in")]
    assert notes == [f"note: kiro sessions are in {hosts / '.kiro'}, not collected by this pass: --source reads "
                     "claude-code-local's folders only; collect them with asz collect --adapter kiro --root team "
                     "(--once for one pass)"], p.stderr
    assert " sessions=1 " in p.stdout
    rows = json.loads(_asz(hosts, tmp_path, "ls", "--json", "--root", "team").stdout)
    assert {r["id"] for r in rows} == {SID}
    # the command it gives, run as printed (with --once), lands every Kiro session of the corpus
    cmd = notes[0].split("collect them with asz ", 1)[1].split(" (--once")[0]
    k = _asz(hosts, tmp_path, *shlex.split(cmd), "--once")
    assert k.returncode == 0 and "not collected" not in k.stderr, k.stdout + k.stderr
    rows = json.loads(_asz(hosts, tmp_path, "ls", "--json", "--root", "team").stdout)
    assert {r["id"] for r in rows} == {SID} | _kiro_sessions()


def test_no_note_when_the_machine_has_no_kiro_sessions(hosts, tmp_path):
    os.unlink(hosts / ".kiro")
    p = _asz(hosts, tmp_path, "collect", "--once", "--source", "hostA", "--root", "team")
    assert p.returncode == 0 and "kiro" not in p.stderr, p.stderr
