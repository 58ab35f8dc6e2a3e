"""Claude Code keeps sessions in more than one ``projects`` folder (``~/.claude/projects``,
``${XDG_CONFIG_HOME:-~/.config}/claude/projects``, each folder of a comma-separated ``CLAUDE_CONFIG_DIR``); with no
``--source`` asz reads every one that holds sessions into the one storage root (trial 16 F7 named them in a note; now
they are read, docs/storage-root.md, Several source folders). A ``--source`` one level off (a project folder, the
configuration folder) names the folder it meant (F8). Real files: the corpus's project folders copied under a temporary
HOME; HOME, XDG_CONFIG_HOME and CLAUDE_CONFIG_DIR are set for each call, so the machine's own ~/.claude is never read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core.storage.cursor import read_cursor
from cli_helpers import asz_in_process

A = ClaudeCodeLocal()
LOG_SAMPLE = "-Users-alex-workspace-claude-code-log-sample"  # three sessions, no subagents
SPOTTER = "-home-user-spotter"  # two sessions, one with subagents
NOTE = "not collected"  # the words of the note that named an unread folder (gone: the folder is read)


def _project(corpus_dir: Path, name: str, projects: Path) -> Path:
    shutil.copytree(corpus_dir / "claude-code" / "projects" / name, projects / name)
    return projects


def _sessions(projects: Path) -> set[str]:
    """Sessions of a projects folder, from the files: each project folder's top-level ``<id>.jsonl``."""
    return {f.stem for f in projects.glob("*/*.jsonl")}


def _collect(cwd: Path, env: dict, *args: str):
    return asz_in_process("collect", "--once", "--no-parse", "--root", str(cwd / "root"), *args, cwd=cwd,
                          env={"CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None, "KIRO_HOME": str(cwd / "no-kiro"),
                               **env})


def _summary(stdout: str) -> dict[str, str]:
    return dict(f.split("=", 1) for f in stdout.split() if "=" in f)


def _mains(root: Path) -> dict[str, tuple[str, int]]:
    """Each landed session's main cursor: (its ``source``, its ``ord``: the lines landed)."""
    out = {}
    for cp in root.glob("*/streams/main/transcript.cursor"):
        cur = read_cursor(cp)
        out[cp.parent.parent.parent.name] = (cur.source, cur.ord)
    return out


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def _landed_whole(root: Path, folders: dict[Path, bool]) -> None:
    """Every session of ``folders`` (each: whether it is the root's own, its ``src`` relative) landed whole from its
    own file: the main cursor names it (relative to the root's own folder, else by absolute path) and counts its lines."""
    mains = _mains(root)
    want = {}
    for folder, own in folders.items():
        for f in folder.glob("*/*.jsonl"):
            rel = f.relative_to(folder).as_posix()
            want[f.stem] = (rel if own else f"{os.path.abspath(folder)}/{rel}", _lines(f))
    assert mains == want


def test_xdg_and_home_folders_are_both_read_into_one_root(corpus_dir, tmp_path):
    """Repro (a): XDG_CONFIG_HOME/claude holds sessions and so does ~/.claude: both land in the one root, the XDG
    folder (the one asz prefers) the root's own; no note; verify proves the root whole; a second pass lands nothing
    and finds nothing gone (no folder's cursors are judged against the other folder)."""
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    via_xdg = _project(corpus_dir, SPOTTER, xdg / "claude" / "projects")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)}
    p = _collect(tmp_path, env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == str(len(_sessions(via_xdg) | _sessions(dot))) == "5"
    assert NOTE not in p.stderr, p.stderr
    _landed_whole(tmp_path / "root", {via_xdg: True, dot: False})
    again = _collect(tmp_path, env)
    assert again.returncode == 0 and _summary(again.stdout)["landed"] == "0" and _summary(again.stdout)["gone"] == "0"
    v = asz_in_process("verify", "--root", str(tmp_path / "root"))
    assert v.returncode == 0, v.stdout + v.stderr


def test_xdg_unset_both_folders_are_read(corpus_dir, tmp_path):
    """Repro (b): XDG_CONFIG_HOME unset, history split over ~/.config/claude/projects and ~/.claude/projects: both read,
    ~/.claude/projects the root's own. The second folder removed: its sources are gone (counted once), the rest stays."""
    home = tmp_path / "home"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    config = _project(corpus_dir, SPOTTER, home / ".config" / "claude" / "projects")
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0 and NOTE not in p.stderr, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == "5"
    _landed_whole(tmp_path / "root", {dot: True, config: False})
    main_sources = len(_sessions(config))
    shutil.rmtree(home / ".config" / "claude")
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0, p.stdout + p.stderr
    gone = int(_summary(p.stdout)["gone"])
    assert gone >= main_sources  # the main transcripts at least (subagents and sidecars too)
    assert sum(1 for s, _ in _mains(tmp_path / "root").values() if s.startswith("/")) == main_sources


def test_comma_separated_claude_config_dir(corpus_dir, tmp_path):
    """CLAUDE_CONFIG_DIR naming several folders (ccusage reads each): every one holding sessions is read, the first
    the root's own; an entry without a session adds nothing. Set, it names the folders alone, as Claude Code and
    ccusage read it: sessions in ~/.claude/projects are not read (README, docs/adapters/claude-code.md)."""
    one, two, empty = tmp_path / "c1", tmp_path / "c2", tmp_path / "c3"
    _project(corpus_dir, LOG_SAMPLE, one / "projects")
    _project(corpus_dir, SPOTTER, two / "projects")
    _project(corpus_dir, "-src-deep-manifest", tmp_path / "home" / ".claude" / "projects")  # not read: one session
    (empty / "projects" / "-p").mkdir(parents=True)  # a project folder without a session
    p = _collect(tmp_path, {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": f"{one}, {two},{empty}"})
    assert p.returncode == 0 and NOTE not in p.stderr, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == "5"
    _landed_whole(tmp_path / "root", {one / "projects": True, two / "projects": False})


def test_a_link_to_the_folder_read_is_read_once(corpus_dir, tmp_path):
    """An empty second folder adds nothing; a second name (symbolic link) for the folder read is not read twice."""
    home = tmp_path / "home"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    (home / ".config" / "claude" / "projects" / "-p").mkdir(parents=True)
    (home / ".config" / "claude" / "projects" / "-p" / "notes.txt").write_text("x", encoding="utf-8")
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0 and _summary(p.stdout)["sessions"] == "3", p.stdout + p.stderr
    shutil.rmtree(home / ".config" / "claude")
    os.symlink(home / ".claude", home / ".config" / "claude")  # the same folder under both names
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0 and _summary(p.stdout)["skipped"] == "0", p.stdout + p.stderr
    assert _summary(p.stdout)["landed"] == "0"
    _landed_whole(tmp_path / "root", {dot: True})


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
    assert A.default_source_roots(env) == [home / ".claude" / "projects", home / ".config" / "claude" / "projects"]
    (xdg / "claude").mkdir(parents=True)  # XDG_CONFIG_HOME/claude is a directory: it is preferred, ~/.config is not asked
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)}
    assert A.default_source_root(env) == home / ".claude" / "projects"  # xdg/claude/projects does not exist yet
    (xdg / "claude" / "projects").mkdir()
    assert A.default_source_root(env) == xdg / "claude" / "projects"
    assert A.unread_default_sources(env) == []  # ~/.claude/projects holds no session
    assert A.default_source_roots(env) == [xdg / "claude" / "projects"]
    assert A.default_source_root({"HOME": str(home), "CLAUDE_CONFIG_DIR": " , "}) == home / ".claude" / "projects"


@pytest.mark.parametrize("given", ["project", "config", "kiro"])
def test_a_source_one_level_off_is_an_error_naming_the_folder_it_meant(corpus_dir, tmp_path, given):
    """F8 (trial 16), F1/F2 (trial 38a): a project folder (one with subagents), the configuration folder ~/.claude or
    the Kiro folder ~/.kiro given as --source finds no session: one error: line names the folder (or adapter) meant and
    --once exits 1 (a cron job no longer lands nothing for ever with exit 0); the project folder's session folders are
    skipped whole, with no note per subagents folder
    (the configuration folder's projects folder still gets one note per project folder in it). The folder meant then lands every session the files hold."""
    home = tmp_path / "home"
    projects = _project(corpus_dir, SPOTTER, home / ".claude" / "projects")
    shutil.copytree(corpus_dir / "kiro" / "home" / ".kiro", home / ".kiro")
    source = {"project": projects / SPOTTER, "config": home / ".claude", "kiro": home / ".kiro"}[given]
    env = {"HOME": str(home), "KIRO_HOME": None}
    p = _collect(tmp_path, env, "--source", str(source))
    assert p.returncode == 1, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == "0" and _summary(p.stdout)["errors"] == "1"
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(f"error: no session found under {source} ("), p.stderr
    meant = {"project": f"; did you mean --source {projects} (the folder above: asz collects every project; asz ls "
                        "--project NAME then lists one)?",
             "config": f"; did you mean --source {projects}?",
             "kiro": f"; did you mean --adapter kiro --source {source}?"}[given]
    assert errors[0].endswith(meant), p.stderr
    if given == "project":  # was one note per subagents folder (trial 38a F2)
        assert "subagents" not in p.stderr and "is not a session id" not in p.stderr, p.stderr
    assert A.suggest_source(projects) is None and A.suggest_source(projects.parent.parent) is None
    right = ("--source", str(projects)) if given != "kiro" else ("--adapter", "kiro", "--source", str(source))
    p = _collect(tmp_path, env, *right)
    want = len(_sessions(projects)) if given != "kiro" else len(list((source / "sessions").rglob("*.jsonl")))
    assert p.returncode == 0 and "error:" not in p.stderr, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == str(want) == "2"  # kiro: one CLI 2.x session, one newer sess_ folder


def test_an_empty_default_folder_is_no_error(tmp_path):
    """A new machine: no --source, Claude Code's projects folder there but empty: a note, exit 0 (trial 38a F1 keeps
    the error to a folder the user named)."""
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0 and "error:" not in p.stderr, p.stdout + p.stderr
    assert f"note: no session found under {home / '.claude' / 'projects'}" in p.stderr


def test_the_folder_asz_prefers_appearing_later_moves_no_session(corpus_dir, tmp_path):
    """Only ~/.config/claude/projects at first (the root's own); then ~/.claude/projects appears (Claude Code prefers
    it, so it becomes the root's own): the first folder's sources are followed to their absolute names (one note
    each, the moved-source rule), nothing lands twice and nothing is gone; the new folder's session lands whole."""
    home = tmp_path / "home"
    config = _project(corpus_dir, SPOTTER, home / ".config" / "claude" / "projects")
    p = _collect(tmp_path, {"HOME": str(home)})
    assert p.returncode == 0 and _summary(p.stdout)["sessions"] == "2", p.stdout + p.stderr
    dot = _project(corpus_dir, "-home-user-sample-project", home / ".claude" / "projects")
    p = _collect(tmp_path, {"HOME": str(home)})
    s = _summary(p.stdout)
    assert p.returncode == 0 and (s["sessions"], s["landed"], s["gone"], s["conflicts"]) == ("3", "1", "0", "0"), p.stdout + p.stderr
    assert p.stderr.count("its cursor follows it") == len(list(config.rglob("*.jsonl"))), p.stderr
    _landed_whole(tmp_path / "root", {dot: True, config: False})


def test_the_servers_collectors_read_every_folder(corpus_dir, tmp_path, monkeypatch):
    """asz server's background collect (server_pass.make_collectors, as the server resolves its options) reads both
    folders into its root, as asz collect does."""
    from asz_core.cli.server_pass import PassSpec, make_collectors
    from asz_core.collect.collector import run_passes

    home = tmp_path / "home"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    config = _project(corpus_dir, SPOTTER, home / ".config" / "claude" / "projects")
    for name, value in (("HOME", str(home)), ("KIRO_HOME", str(tmp_path / "no-kiro"))):
        monkeypatch.setenv(name, value)
    for name in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    cols = make_collectors(PassSpec(str(tmp_path / "root"), None, "claude-code-local", (), "", 1))
    assert [c.source_roots for c in cols] == [[dot, config]]
    c = run_passes(cols)
    assert (c.sessions, c.errors, c.conflicts) == (5, 0, 0)
    _landed_whole(tmp_path / "root", {dot: True, config: False})


def test_the_first_folder_removed_the_other_takes_its_place(corpus_dir, tmp_path):
    """~/.claude/projects (the root's own) and ~/.config/claude/projects collected; then ~/.claude/projects removed:
    ~/.config/claude/projects is now the only folder, its sources named relative to it, and each cursor that named
    one by absolute path follows the same file to its new name (one note each): no conflict, nothing lands again,
    only the removed folder's sources are gone; verify proves the root whole."""
    home = tmp_path / "home"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    config = _project(corpus_dir, SPOTTER, home / ".config" / "claude" / "projects")
    assert _collect(tmp_path, {"HOME": str(home)}).returncode == 0
    removed = len(list(dot.rglob("*.jsonl")))
    shutil.rmtree(dot)
    p = _collect(tmp_path, {"HOME": str(home)})
    s = _summary(p.stdout)
    assert p.returncode == 0 and (s["landed"], s["conflicts"], s["gone"]) == ("0", "0", str(removed)), p.stdout + p.stderr
    assert p.stderr.count("under another name") == len(list(config.rglob("*.jsonl"))), p.stderr
    mains = _mains(tmp_path / "root")
    for f in config.glob("*/*.jsonl"):
        assert mains[f.stem] == (f.relative_to(config).as_posix(), _lines(f))
    again = _collect(tmp_path, {"HOME": str(home)})
    assert again.returncode == 0 and "under another name" not in again.stderr and _summary(again.stdout)["gone"] == "0"
    v = asz_in_process("verify", "--root", str(tmp_path / "root"))
    assert v.returncode == 0, v.stdout + v.stderr
