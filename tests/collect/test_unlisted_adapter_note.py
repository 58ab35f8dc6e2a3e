"""Plain ``asz collect`` (the default adapter list, claude-code-local: origin-digest §8.2) collects beside it every
installed adapter with sessions at its default source, and says so: Kiro's, under a HOME holding ``.kiro`` (the Kiro
corpus, linked into a temporary HOME: the machine's own ~/.kiro is never read; trial 34a F6)."""

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


def _corpus_sessions() -> set[str]:
    """Every session of the Kiro corpus (its CLI 2.x files and IDE 3.x folders), from the files."""
    return {f.stem for f in KIRO.glob("sessions/cli/*.jsonl")} | {d.name for d in KIRO.glob("sessions/*/sess_*")}


def test_plain_collect_collects_kiro_sessions_beside_the_default_list_and_says_so(home, tmp_path):
    """Trial 34a F6: the Kiro sessions at the default folder are collected by a plain pass, with one note saying so
    and how to choose; before, the note said ``not collected`` and a Kiro-only user's pass landed nothing."""
    p = _collect(home, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr.count(NOTE) == 1, p.stderr
    assert (f"{NOTE} {home / '.kiro'}: collected beside the default adapter list (claude-code-local)" in p.stderr
            and "asz collect --adapter NAME, or list the adapters in asz.yaml" in p.stderr), p.stderr
    assert "not collected" not in p.stderr
    sessions = _corpus_sessions()
    assert f"sessions={len(sessions)} " in p.stdout, p.stdout
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(tmp_path / "root")).stdout)
    assert {r["id"] for r in rows} == sessions
    p = _collect(home, tmp_path)  # a second plain pass: nothing new
    assert p.returncode == 0 and " landed=0 " in p.stdout, p.stdout + p.stderr


def test_a_kiro_only_home_collects_with_no_flag_and_fails_only_with_no_source_at_all(tmp_path):
    """Trial 34a F6: HOME holds the Kiro corpus and no Claude Code folder. Plain ``asz collect --once`` lands every
    corpus session (exit 0) and says Claude Code's folder is absent in a note; ``asz sources`` lists them (exit 0).
    With neither folder, the pass still fails naming Claude Code's folder (exit 1: nothing to collect)."""
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    h = tmp_path / "home"
    h.mkdir()
    os.symlink(KIRO, h / ".kiro")
    p = _collect(h, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"note: {h / '.claude' / 'projects'}: no such source root for adapter claude-code-local" in p.stderr, p.stderr
    assert "error:" not in p.stderr, p.stderr
    sessions = _corpus_sessions()
    assert f"sessions={len(sessions)} " in p.stdout and " errors=0 " in p.stdout, p.stdout
    env = {"HOME": str(h), "KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None}
    s = asz_in_process("sources", "--json", "--root", str(tmp_path / "root"), cwd=tmp_path, env=env)
    assert s.returncode == 0, s.stdout + s.stderr
    got = {a["adapter"]: {x["session"] for x in a["sessions"]} for a in json.loads(s.stdout)["adapters"]}
    assert got == {"claude-code-local": set(), "kiro": sessions}
    (h / ".kiro").unlink()
    p = _collect(h, tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"error: {h / '.claude' / 'projects'}: no such source root for adapter claude-code-local" in p.stderr


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


def test_an_adapter_that_does_not_say_is_collected_when_its_default_folder_holds_something(tmp_path):
    """Trial 39b F5: an installed adapter written before ``has_default_sessions`` (the mini adapter, loaded with
    ``--adapter-file``: no override) on a HOME with no ``~/.claude``. Its default folder holding a session: plain
    ``asz collect --once`` lands it beside the default list (exit 0) and Claude Code's missing folder is a note. Its
    folder empty: nothing else is collected, so the missing folder stays the error (exit 1). The two adapters whose
    default folder is no runtime's sessions (the storage root's inbox, provider bodies) never say yes by default."""
    from asz_core.plugins import get_plugin_manager

    h, src = tmp_path / "home", tmp_path / "src"
    h.mkdir()
    (src / "s1").mkdir(parents=True)
    (src / "s1" / "main.jsonl").write_bytes(b'{"a": 1}\n{"b": 2}\n{"c": 3}\n')
    lines = len((src / "s1" / "main.jsonl").read_bytes().splitlines())
    mini = Path(__file__).with_name("mini_adapter.py")
    env = {"HOME": str(h), "MINI_SOURCE_ROOT": str(src), "KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None}

    def plain():
        return asz_in_process("collect", "--once", "--adapter-file", str(mini), "--root", str(tmp_path / "root"),
                              cwd=tmp_path, env=env)

    p = plain()
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"sessions=1 sources=1 landed=1 records={lines} " in p.stdout and " errors=0 " in p.stdout, p.stdout
    assert f"note: mini-jsonl sessions are in {src}: collected beside the default adapter list" in p.stderr, p.stderr
    assert f"note: {h / '.claude' / 'projects'}: no such source root for adapter claude-code-local: none of its " \
        "default folders exists" in p.stderr and "error:" not in p.stderr, p.stderr
    (src / "s1" / "main.jsonl").unlink()
    (src / "s1").rmdir()
    p = plain()
    assert p.returncode == 1 and "mini-jsonl" not in p.stderr, p.stdout + p.stderr
    assert f"error: {h / '.claude' / 'projects'}: no such source root for adapter claude-code-local" in p.stderr
    adapters = get_plugin_manager().adapters()
    (h / ".claude" / "asz" / "provider-bodies").mkdir(parents=True)
    (h / ".claude" / "asz" / "provider-bodies" / "b.json").write_bytes(b"{}")
    assert not adapters["claude-code-provider"].has_default_sessions({"HOME": str(h)})
    assert not adapters["langsmith-ingest"].has_default_sessions({"ASZ_LANGSMITH_ROOT": str(h)})
