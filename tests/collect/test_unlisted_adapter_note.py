"""Plain ``asz collect`` (the default adapter list, claude-code-local only: origin-digest §8.2) says when an installed
adapter it leaves out has sessions at its default source: Kiro's, under a HOME holding ``.kiro`` (the Kiro corpus,
collected with the real CLI, linked into a temporary HOME: the machine's own ~/.kiro is never read)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
NOTE = "note: kiro sessions are in"


@pytest.fixture
def home(tmp_path) -> Path:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    h = tmp_path / "home"
    (h / ".claude" / "projects").mkdir(parents=True)  # Claude Code's default source, empty: the pass itself is clean
    os.symlink(KIRO, h / ".kiro")
    return h


def _collect(home: Path, cwd: Path, *args: str):
    return asz_in_process("collect", "--once", "--root", str(cwd / "root"), *args, cwd=cwd,
                          env={"HOME": str(home), "KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None})


def test_plain_collect_names_kiro_sessions_it_does_not_collect_and_how(home, tmp_path):
    p = _collect(home, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr.count(NOTE) == 1, p.stderr
    assert f"{NOTE} {home / '.kiro'}, not collected" in p.stderr and "asz collect --adapter kiro" in p.stderr
    assert "  adapters:\n    - name: claude-code-local\n    - name: kiro" in p.stderr
    # the way the note names collects them: every session of the corpus (its CLI 2.x files and IDE 3.x folders)
    sessions = {f.stem for f in KIRO.glob("sessions/cli/*.jsonl")} | {d.name for d in KIRO.glob("sessions/*/sess_*")}
    p = _collect(home, tmp_path, "--adapter", "kiro")
    assert p.returncode == 0 and NOTE not in p.stderr, p.stdout + p.stderr
    assert f"sessions={len(sessions)} " in p.stdout, p.stdout
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(tmp_path / "root")).stdout)
    assert {r["id"] for r in rows} == sessions
    # then a plain pass: the note no longer says "not collected" of sessions in the root (trial 33a F6)
    p = _collect(home, tmp_path)
    assert p.returncode == 0 and p.stderr.count(NOTE) == 1, p.stdout + p.stderr
    assert "not collected" not in p.stderr
    assert (f"{NOTE} {home / '.kiro'} (") in p.stderr and (f"; this pass does not read them ({len(sessions)} kiro "
            "session(s) already in the storage root, from an earlier asz collect --adapter kiro): the default adapter "
            "list is claude-code-local only. Include them with asz collect --adapter kiro, or list the adapters in "
            "asz.yaml:") in p.stderr, p.stderr


@pytest.mark.parametrize("how", ["config", "adapter", "no-kiro"])
def test_no_note_when_the_user_chose_or_there_is_nothing(home, tmp_path, how):
    args: tuple[str, ...] = ()
    if how == "config":  # a configuration that lists adapters is the user's choice
        (tmp_path / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n", encoding="utf-8")
    elif how == "adapter":
        args = ("--adapter", "claude-code-local")
    else:
        (home / ".kiro").unlink()
    p = _collect(home, tmp_path, *args)
    assert p.returncode == 0, p.stdout + p.stderr
    assert NOTE not in p.stderr, p.stderr


def test_the_check_is_of_known_paths_only(tmp_path):
    """A HOME's own ``sessions`` folder or a bare ``data.sqlite3`` is no Kiro store; ``.kiro/sessions`` and a CLI 1.x
    database at its path are; KIRO_HOME, when set, is the Kiro home itself."""
    from asz_adapters_kiro.plugin import KiroAdapter

    a, h = KiroAdapter(), tmp_path
    (h / "sessions").mkdir()
    (h / "data.sqlite3").write_bytes(b"")
    assert not a.has_default_sessions({"HOME": str(h)})
    assert a.has_default_sessions({"KIRO_HOME": str(h)})
    (h / ".local" / "share" / "kiro-cli").mkdir(parents=True)
    (h / ".local" / "share" / "kiro-cli" / "data.sqlite3").write_bytes(b"")
    assert a.has_default_sessions({"HOME": str(h)})
