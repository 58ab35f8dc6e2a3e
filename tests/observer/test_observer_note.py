"""Plain ``asz collect`` says when ``asz hook`` records (the ``changes`` adapter's source, written once ``asz hooks
install`` ran) sit in ``<claude config dir>/plugins/data`` uncollected, and how to collect them (trial 17, F9). The
records are the hook's real samples (tests/observer/samples), copied into a temporary HOME."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_helpers import asz_in_process

from asz_adapters_claude.observer_adapter import ClaudeCodeObserver

SAMPLES = Path(__file__).resolve().parent / "samples"
SESSIONS = {p.name for p in SAMPLES.glob("*/output/*") if p.is_dir()}


def _collect(home: Path, cwd: Path, *args: str):
    return asz_in_process("collect", "--once", "--root", str(cwd / "root"), *args, cwd=cwd,
                          env={"HOME": str(home), "KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None})


def test_plain_collect_names_the_hook_folder_and_how_to_collect_it(tmp_path):
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)  # Claude Code's default source, empty: the pass is clean
    data = home / ".claude" / "plugins" / "data"
    shutil.copytree(SAMPLES, data)
    p = _collect(home, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    # collected beside the default list, as every installed adapter with records at its default folder (trial 34a F6)
    assert p.stderr.count(f"note: changes sessions are in {data}: collected beside the default adapter list") == 1, p.stderr
    assert "asz collect --adapter NAME, or list the adapters in asz.yaml" in p.stderr, p.stderr
    assert f"sessions={len(SESSIONS)} " in p.stdout and len(SESSIONS) == 4, p.stdout
    p = _collect(home, tmp_path, "--adapter", "changes")  # the adapter alone: nothing new, no note
    assert p.returncode == 0 and "note: changes" not in p.stderr, p.stdout + p.stderr
    assert " landed=0 " in p.stdout, p.stdout


def test_no_records_no_note(tmp_path):
    """An empty plugins/data, a data folder whose output/ is empty or holds only other files: nothing to say."""
    a, data = ClaudeCodeObserver(), tmp_path / ".claude" / "plugins" / "data"
    env = {"HOME": str(tmp_path)}
    assert not a.has_default_sessions(env)  # no plugins/data at all
    (data / "asz" / "output" / "86cb6fec-8454-476f-9cf1-4d625d1869b7").mkdir(parents=True)
    (data / "other-plugin").mkdir()
    assert not a.has_default_sessions(env)
    (data / "asz" / "output" / "86cb6fec-8454-476f-9cf1-4d625d1869b7" / "notes.md").write_text("x")
    assert not a.has_default_sessions(env)
    (data / "asz" / "output" / "86cb6fec-8454-476f-9cf1-4d625d1869b7" / "main.execution.jsonl").write_text("{}\n")
    assert a.has_default_sessions(env)
    assert not a.has_default_sessions({"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "elsewhere")})
