"""Claude Code keeps sessions in more than one ``projects`` folder (``~/.claude/projects``,
``${XDG_CONFIG_HOME:-~/.config}/claude/projects``, each folder of a comma-separated ``CLAUDE_CONFIG_DIR``); asz reads one
and names every other one that holds sessions in a ``note:`` with the ``--source`` that reads it, never leaving them
out silently (trial 16 F7). A ``--source`` one level off (a project folder, the configuration folder) names the
folder it meant (F8). Real files: the corpus's project folders copied under a temporary HOME; HOME, XDG_CONFIG_HOME and
CLAUDE_CONFIG_DIR are set for each call, so the machine's own ~/.claude is never read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from cli_helpers import asz_in_process

A = ClaudeCodeLocal()
LOG_SAMPLE = "-Users-alex-workspace-claude-code-log-sample"  # three sessions, no subagents
SPOTTER = "-home-user-spotter"  # two sessions, one with subagents
NOTE = "note: claude-code-local sessions are also in"


def _project(corpus_dir: Path, name: str, projects: Path) -> Path:
    shutil.copytree(corpus_dir / "claude-code" / "projects" / name, projects / name)
    return projects


def _sessions(projects: Path) -> int:
    """Sessions of a projects folder, counted from the files: each project folder's top-level ``<id>.jsonl``."""
    return len({f.stem for f in projects.glob("*/*.jsonl")})


def _collect(cwd: Path, env: dict, *args: str):
    return asz_in_process("collect", "--once", "--no-parse", "--root", str(cwd / "root"), *args, cwd=cwd,
                          env={"CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None, "KIRO_HOME": str(cwd / "no-kiro"),
                               **env})


def _summary(stdout: str) -> dict[str, str]:
    return dict(f.split("=", 1) for f in stdout.split() if "=" in f)


def test_xdg_folder_read_and_the_home_folder_named(corpus_dir, tmp_path):
    """Repro (a): XDG_CONFIG_HOME/claude holds sessions and so does ~/.claude: the XDG folder is read, the other named."""
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    via_xdg = _project(corpus_dir, SPOTTER, xdg / "claude" / "projects")
    p = _collect(tmp_path, {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)})
    assert p.returncode == 0, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == str(_sessions(via_xdg)) == "2"
    assert p.stderr.count(NOTE) == 1, p.stderr
    assert f"{NOTE} {dot}, not collected: asz collect reads one source folder per adapter, {via_xdg}." in p.stderr
    assert f"asz collect --adapter claude-code-local --source {dot} --root DIR" in p.stderr
    # the way the note names reads them: every session of the other folder, into a storage root of its own
    q = asz_in_process("collect", "--once", "--no-parse", "--adapter", "claude-code-local", "--source", str(dot),
                       "--root", str(tmp_path / "other"), cwd=tmp_path, env={"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)})
    assert q.returncode == 0 and NOTE not in q.stderr, q.stdout + q.stderr  # --source: the user chose the folder
    assert _summary(q.stdout)["sessions"] == str(_sessions(dot)) == "3"


def test_xdg_unset_the_config_folder_is_named(corpus_dir, tmp_path):
    """Repro (b): XDG_CONFIG_HOME unset, history split over ~/.config/claude/projects and ~/.claude/projects."""
    home = tmp_path / "home"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    config = _project(corpus_dir, SPOTTER, home / ".config" / "claude" / "projects")
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == str(_sessions(dot))
    assert p.stderr.count(NOTE) == 1 and f"{NOTE} {config}, not collected" in p.stderr, p.stderr
    assert f"--source {config} --root DIR" in p.stderr
    # only one folder exists: it is read, whichever it is, and nothing is said
    shutil.rmtree(home / ".claude")
    p = _collect(tmp_path, {"HOME": str(home)}, "--root", str(tmp_path / "root2"))
    assert p.returncode == 0 and NOTE not in p.stderr, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == str(_sessions(config))


def test_comma_separated_claude_config_dir(corpus_dir, tmp_path):
    """CLAUDE_CONFIG_DIR naming several folders (ccusage reads each): the first is read, the others with sessions named."""
    one, two, empty = tmp_path / "c1", tmp_path / "c2", tmp_path / "c3"
    _project(corpus_dir, LOG_SAMPLE, one / "projects")
    _project(corpus_dir, SPOTTER, two / "projects")
    (empty / "projects" / "-p").mkdir(parents=True)  # a project folder without a session: nothing to say
    p = _collect(tmp_path, {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": f"{one}, {two},{empty}"})
    assert p.returncode == 0, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == str(_sessions(one / "projects"))
    assert p.stderr.count(NOTE) == 1 and f"{NOTE} {two / 'projects'}, not collected" in p.stderr, p.stderr


def test_no_note_when_nothing_is_left_out(corpus_dir, tmp_path):
    """No second folder, an empty one, a link to the folder read, or a source the user named: no note."""
    home = tmp_path / "home"
    _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    (home / ".config" / "claude" / "projects" / "-p").mkdir(parents=True)
    (home / ".config" / "claude" / "projects" / "-p" / "notes.txt").write_text("x", encoding="utf-8")
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0 and NOTE not in p.stderr, p.stdout + p.stderr
    shutil.rmtree(home / ".config" / "claude")
    os.symlink(home / ".claude", home / ".config" / "claude")  # the same folder under both names
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0 and NOTE not in p.stderr, p.stdout + p.stderr


def test_roots_from_the_environment(tmp_path):
    """The candidates, the one read and the ones named, from real folders (no CLI)."""
    home, xdg = tmp_path / "h", tmp_path / "x"
    env = {"HOME": str(home)}
    assert A.default_source_root(env) == home / ".claude" / "projects"  # nothing exists: the preferred one
    assert A.unread_default_sources(env) == []
    (home / ".config" / "claude" / "projects" / "-p").mkdir(parents=True)
    (home / ".config" / "claude" / "projects" / "-p" / "s.jsonl").write_bytes(b"{}\n")
    assert A.default_source_root(env) == home / ".config" / "claude" / "projects"  # the only one there
    (home / ".claude" / "projects").mkdir(parents=True)
    assert A.default_source_root(env) == home / ".claude" / "projects"
    assert A.unread_default_sources(env) == [home / ".config" / "claude" / "projects"]
    (xdg / "claude").mkdir(parents=True)  # XDG_CONFIG_HOME/claude is a directory: it is preferred, ~/.config is not asked
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)}
    assert A.default_source_root(env) == home / ".claude" / "projects"  # xdg/claude/projects does not exist yet
    (xdg / "claude" / "projects").mkdir()
    assert A.default_source_root(env) == xdg / "claude" / "projects"
    assert A.unread_default_sources(env) == []  # ~/.claude/projects holds no session
    assert A.default_source_root({"HOME": str(home), "CLAUDE_CONFIG_DIR": " , "}) == home / ".claude" / "projects"


@pytest.mark.parametrize("given", ["project", "config"])
def test_a_source_one_level_off_names_the_folder_it_meant(corpus_dir, tmp_path, given):
    """F8: a project folder or the configuration folder as --source finds no session (exit 0: the --once contract
    exits 1 only for pending, refused or failed) and the note names the projects folder."""
    projects = _project(corpus_dir, LOG_SAMPLE, tmp_path / "home" / ".claude" / "projects")
    source = projects / LOG_SAMPLE if given == "project" else projects.parent
    p = _collect(tmp_path, {}, "--source", str(source))
    assert p.returncode == 0, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == "0"
    assert f"note: no session found under {source} (" in p.stderr
    assert p.stderr.rstrip().endswith(f"; did you mean --source {projects}?"), p.stderr
    assert A.suggest_source(projects) is None and A.suggest_source(projects.parent.parent) is None
