"""Kiro's source root is the home directory, but it reads only its stores there (``~/.kiro``, the IDE's
``kiro.kiroagent`` folders, the CLI 1.x data folders): a storage root elsewhere under the home (``./data`` of a project
in ``~/myproj``, ``~/asz-data``) is collected into, one inside ``~/.kiro`` is refused for every adapter of the command
(exit 2, nothing written), and the unlisted-adapter note names ``~/.kiro``, not the home (trial 14, finding 1).

Real ``asz`` processes with HOME a temporary folder holding a copy of the Kiro corpus (never the machine's ~/.kiro);
the expected counts are read from the corpus files themselves.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import forked
import pytest

KIRO = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
ASZ = [sys.executable, "-m", "asz_core.cli.main"]


@pytest.fixture
def home(tmp_path) -> Path:
    """A HOME with a copy of the Kiro corpus as ``.kiro``, an empty Claude Code projects folder and a project folder."""
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    h = tmp_path / "home"
    (h / ".claude" / "projects").mkdir(parents=True)
    shutil.copytree(KIRO, h / ".kiro")
    for p in (h / ".kiro").rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (h / "myproj").mkdir()
    return h


def _env(home: Path) -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("KIRO_HOME", "USERPROFILE", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")}
    e["HOME"] = str(home)
    return e


def _asz(home: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``asz ARGS`` as a real child process with HOME the test's, forked from the pre-imported server (tests/forked.py:
    its own pid, environment, working directory and exit status, without the interpreter's 0.4 s start-up)."""
    return forked.run([*ASZ, *args], cwd=cwd, env=_env(home), capture_output=True, text=True, timeout=120)


def _corpus_counts() -> dict[str, str]:
    """sessions, sources, records (lines of the transcripts + one per metadata document) and bytes, from the files."""
    transcripts = [*KIRO.glob("sessions/cli/*.jsonl"), *KIRO.glob("sessions/*/sess_*/messages.jsonl")]
    docs = [*KIRO.glob("sessions/cli/*.json"), *KIRO.glob("sessions/*/sess_*/session.json")]
    sessions = {f.stem for f in KIRO.glob("sessions/cli/*.jsonl")} | {d.name for d in KIRO.glob("sessions/*/sess_*")}
    lines = sum(f.read_bytes().count(b"\n") for f in transcripts)
    counts = {"sessions": len(sessions), "sources": len(transcripts) + len(docs), "records": lines + len(docs),
              "bytes": sum(f.stat().st_size for f in (*transcripts, *docs))}
    return {k: str(v) for k, v in counts.items()}


def _pass(stdout: str) -> dict[str, str]:
    """The key=value fields of the pass line (the last line of stdout)."""
    return dict(f.split("=", 1) for f in stdout.strip().splitlines()[-1].split() if "=" in f)


def _tree(d: Path) -> list[str]:
    return sorted(f"{p.relative_to(d)}:{p.stat().st_size if p.is_file() else 'dir'}" for p in d.rglob("*"))


def test_the_note_names_dot_kiro_and_its_command_collects_into_a_project_under_home(home):
    proj, want = home / "myproj", _corpus_counts()
    p = _asz(home, "collect", "--once", cwd=proj)  # the Kiro sessions collected beside the default list (trial 34a F6)
    assert p.returncode == 0, p.stderr
    assert f"note: kiro sessions are in {home / '.kiro'}: collected beside the default adapter list" in p.stderr, p.stderr
    said = [line for line in p.stderr.splitlines() if not line.startswith("note: created a new storage root at ")]
    assert "asz collect --adapter NAME" in p.stderr and "--root" not in "\n".join(said), p.stderr
    assert f"note: created a new storage root at {proj / 'data'} (no --root given" in p.stderr  # trial 23b F7
    got = _pass(p.stdout)
    assert {k: got[k] for k in want} == want, p.stdout
    assert (proj / "data").is_dir()
    p = _asz(home, "collect", "--once", "--adapter", "kiro", cwd=proj)  # the adapter alone: nothing new
    assert p.returncode == 0 and _pass(p.stdout)["landed"] == "0", p.stdout + p.stderr


def test_the_adapters_of_asz_yaml_collect_together_into_a_root_under_home(home):
    proj, want = home / "myproj", _corpus_counts()
    (proj / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n  - name: kiro\n", encoding="utf-8")
    for root in ("data", str(home / "asz-data")):  # ./data of the project, and ~/asz-data
        p = _asz(home, "collect", "--once", "--root", root, cwd=proj)
        assert p.returncode == 0, p.stderr
        assert "note: kiro" not in p.stderr  # the configuration lists the adapters: the user chose
        got = _pass(p.stdout)
        assert {k: got[k] for k in want} == want, p.stdout


def test_a_root_inside_dot_kiro_is_refused_for_every_adapter_and_says_so(home):
    proj = home / "myproj"
    (proj / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n  - name: kiro\n", encoding="utf-8")
    before = _tree(home)
    p = _asz(home, "collect", "--once", "--root", str(home / ".kiro" / "asz"), cwd=proj)
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert lines[0].startswith(f"asz collect: the storage root {home / '.kiro' / 'asz'} is inside {home / '.kiro'}, "
                               "a folder kiro reads"), p.stderr
    assert lines[1].startswith("asz collect: nothing is written for claude-code-local either"), p.stderr
    assert _tree(home) == before  # nothing written anywhere under the home


def test_plain_collect_with_a_root_inside_dot_kiro_says_the_note_would_be_refused(home):
    p = _asz(home, "collect", "--once", "--root", str(home / ".kiro" / "asz"), cwd=home / "myproj")
    assert p.returncode == 0, p.stderr  # claude-code-local alone reads nothing under ~/.kiro
    assert f"and give --root a folder apart from {home / '.kiro'}: the storage root is inside it" in p.stderr, p.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_prints_the_note_collect_prints(home):
    proj = home / "myproj"
    proc = subprocess.Popen([*ASZ, "server", "--port", str(_free_port()), "--interval", "1h"], cwd=proj, env=_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()  # "reading  : data": the note came before it
        assert first.startswith("reading"), first
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert f"note: kiro sessions are in {home / '.kiro'}: collected beside the default adapter list" in err, err
    assert "asz server --adapter NAME" in err


def test_read_folders_are_the_stores_not_the_home(tmp_path):
    from asz_adapters_kiro.plugin import KiroAdapter

    a, h = KiroAdapter(), tmp_path
    got = a.read_folders(h)
    assert h / ".kiro" in got and h not in got
    assert h / ".config/Kiro/User/globalStorage/kiro.kiroagent" in got and h / ".local/share/kiro-cli" in got
    assert all(h in f.parents for f in got)
    assert a.read_folders(h / ".kiro") == [h / ".kiro"]  # --source ~/.kiro: the whole tree
    (h / "k").mkdir()
    (h / "k" / "sessions").mkdir()
    assert a.read_folders(h / "k") == [h / "k"]  # a Kiro home by another name ($KIRO_HOME)
