"""``asz hooks status`` and the collect note on an observer hook that points at another install or at nothing (a removed
venv): real settings files under a temporary HOME and CLAUDE_CONFIG_DIR, a real interpreter (this one) and one that
does not exist, a copy of ``hook.py`` in another folder standing for another install, the real commands run."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from cli_helpers import asz_in_process

from asz_adapters_claude import hook, hooks_settings as hs

SAMPLES = Path(__file__).resolve().parent / "samples"  # asz hook's real records (tests/observer/test_observer_note.py)
THIS_HOOK = os.path.abspath(hook.__file__)


def _status(cfg: Path, cwd: Path, *args: str, path: str | None = None):
    env = {"CLAUDE_CONFIG_DIR": str(cfg), "HOME": str(cwd)}
    if path is not None:
        env["PATH"] = path
    return asz_in_process("hooks", "status", *args, cwd=cwd, env=env)


def _other_install(tmp_path: Path) -> Path:
    """This hook.py copied into another folder's ``asz_adapters_claude``: a second install whose file works."""
    other = tmp_path / "other-venv" / "site-packages" / "asz_adapters_claude" / "hook.py"
    other.parent.mkdir(parents=True)
    shutil.copy(THIS_HOOK, other)
    return other


def _entries(settings: Path) -> list[tuple[str, str, str]]:
    """(event, matcher, command) of the observer entries, read straight from the file."""
    data = json.loads(settings.read_text())
    return [(ev, g.get("matcher"), h["command"]) for ev, groups in data["hooks"].items() for g in groups
            for h in g["hooks"] if hs.is_observer_command(h.get("command"))]


def _point(settings: Path, commands: dict[str, str], extra: dict | None = None) -> None:
    """Set each event's observer entry to ``commands[event]`` (what an older install wrote), and add ``extra`` groups."""
    data = json.loads(settings.read_text())
    for event, command in commands.items():
        [entry] = [h for g in data["hooks"][event] for h in g["hooks"] if hs.is_observer_command(h["command"])]
        entry["command"] = command
    for event, group in (extra or {}).items():
        data["hooks"][event].append(group)
    settings.write_text(json.dumps(data, indent=2) + "\n")


def test_status_names_each_entry_and_install_again_fixes_it(tmp_path: Path) -> None:
    cfg, work = tmp_path / "claude", tmp_path / "work"
    work.mkdir()
    gone_python = tmp_path / "removed-venv" / "bin" / "python3"  # the venv the hook was installed from, removed
    other = _other_install(tmp_path)
    p = _status(cfg, work)  # nothing installed: not "all run this asz"
    assert p.returncode == 1 and "observer hook entries 0:" in p.stdout and "no observer hook is installed" in p.stdout, p.stdout

    assert asz_in_process("hooks", "install", cwd=work, env={"CLAUDE_CONFIG_DIR": str(cfg)}).returncode == 0
    settings = cfg / "settings.json"
    mine = hs.direct_command()
    assert [c for _, _, c in _entries(settings)] == [mine, mine]
    p = _status(cfg, work, "--scope", "user")
    assert p.returncode == 0 and "observer hook entries 2: this_asz 2, another_install 0, missing 0" in p.stdout, p.stdout

    # the interpreter gone; another install's working file; a stale entry under its own matcher (install leaves it)
    stale = hs.direct_command(python=str(gone_python), hook_file=str(other))
    _point(settings, {"PostToolUse": hs.direct_command(python=str(gone_python)),
                      "PostToolUseFailure": hs.direct_command(python=sys.executable, hook_file=str(other))},
           {"PostToolUse": {"matcher": "mcp__probe__.*", "hooks": [{"type": "command", "command": stale}]}})
    p = _status(cfg, work, "--scope", "user", "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    got = json.loads(p.stdout)
    [user] = got["settings"]
    assert user["path"] == str(settings) and [(e["event"], e["matcher"], e["command"]) for e in user["entries"]] == _entries(settings)
    states = [(e["state"], e.get("install")) for e in user["entries"]]
    assert states == [("missing", None), ("missing", None), ("another_install", os.path.realpath(other.parent.parent))], states
    assert got["counts"] == {"this_asz": 0, "another_install": 1, "missing": 2} and got["all_run_this_asz"] is False
    assert [e["why"] for e in user["entries"][:2]] == [f"its interpreter {gone_python} does not exist"] * 2
    assert user["fix"] == "asz hooks uninstall --scope user, then asz hooks install --scope user"  # the stale group stays
    assert got["asz"]["command"] == mine and got["asz"]["hook_file"] == THIS_HOOK

    text = _status(cfg, work, "--scope", "user").stdout
    assert f"  PostToolUse mcp__.*: missing: its interpreter {gone_python} does not exist; Claude Code does not show" in text
    assert (f"  PostToolUseFailure mcp__.*: another_install: it runs the observer file of another install, "
            f"{os.path.realpath(other.parent.parent)}, not this asz's") in text
    assert f"fix: asz hooks uninstall --scope user, then asz hooks install --scope user: it switches each entry to this asz ({mine})" in text

    assert asz_in_process("hooks", "install", cwd=work, env={"CLAUDE_CONFIG_DIR": str(cfg)}).returncode == 0
    assert _status(cfg, work, "--scope", "user").returncode == 1  # install alone switched two, left the stale group
    for verb in ("uninstall", "install"):  # what the fix line says
        assert asz_in_process("hooks", verb, cwd=work, env={"CLAUDE_CONFIG_DIR": str(cfg)}).returncode == 0
    p = _status(cfg, work, "--scope", "user", "--json")
    assert p.returncode == 0 and [e["state"] for e in json.loads(p.stdout)["settings"][0]["entries"]] == ["this_asz"] * 2

    # every scope (the default): a project file's bare `asz hook` with no asz on this PATH is missing; one for install
    assert asz_in_process("hooks", "install", "--bare", "--scope", "project", cwd=work,
                          env={"CLAUDE_CONFIG_DIR": str(cfg)}).returncode == 0
    p = _status(cfg, work, "--json", path="/usr/bin:/bin")
    got = json.loads(p.stdout)
    assert p.returncode == 1 and [f["scope"] for f in got["settings"]] == ["user", "project", "local"]
    project = got["settings"][1]
    assert [(e["form"], e["state"]) for e in project["entries"]] == [("bare", "missing")] * 2 and not got["settings"][2]["exists"]
    assert "no `asz` is on this PATH" in project["entries"][0]["why"] and project["fix"] == "asz hooks install --scope project"
    assert _status(cfg, work, "--scope", "nowhere").returncode == 2


def _collect(home: Path, cwd: Path, *args: str):
    return asz_in_process(*args, "--root", str(cwd / "root"), cwd=cwd,
                          env={"HOME": str(home), "KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None})


def test_collect_and_sources_say_once_when_the_installed_hook_would_not_start(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    claude = home / ".claude"
    (claude / "projects").mkdir(parents=True)
    shutil.copytree(SAMPLES, claude / "plugins" / "data")  # records: the changes adapter reads this folder too
    assert asz_in_process("hooks", "install", cwd=work, env={"CLAUDE_CONFIG_DIR": str(claude)}).returncode == 0
    gone_python = tmp_path / "removed-venv" / "bin" / "python3"
    settings = claude / "settings.json"
    _point(settings, {ev: hs.direct_command(python=str(gone_python)) for ev in hs.EVENTS})
    note = (f"note: {settings}: the asz observer hook installed here would not run (PostToolUse, PostToolUseFailure: its "
            f"interpreter {gone_python} does not exist): Claude Code does not show a hook that cannot start, so no MCP "
            "execution record is written; asz hooks status says which entries, and asz hooks install switches them to this asz")

    p = _collect(home, work, "collect", "--once")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr.splitlines().count(note) == 1, p.stderr  # two adapters read the folder: one line
    assert p.stderr.count("would not run") == 1
    s = _collect(home, work, "sources")
    assert s.returncode == 0 and s.stdout.splitlines().count(note) == 1, s.stdout
    got = json.loads(_collect(home, work, "sources", "--json").stdout)
    assert {a["adapter"]: a["notes"] for a in got["adapters"]} == {
        name: [{"path": str(settings), "message": note.split(f"{settings}: ", 1)[1]}] for name in ("claude-code-local", "changes")}

    # another install's working file is not an error here (a second venv may be meant): only hooks status says it
    other = _other_install(tmp_path)
    _point(settings, {ev: hs.direct_command(python=sys.executable, hook_file=str(other)) for ev in hs.EVENTS})
    p = _collect(home, work, "collect", "--once")
    assert p.returncode == 0 and "would not run" not in p.stderr and "hooks status" not in p.stderr, p.stderr
    st = asz_in_process("hooks", "status", "--scope", "user", cwd=work, env={"CLAUDE_CONFIG_DIR": str(claude)})
    assert st.returncode == 1 and st.stdout.count(": another_install: ") == 2, st.stdout


def test_status_shows_no_terminal_control_a_settings_file_holds(tmp_path: Path) -> None:
    """A project's ``.claude/settings.json`` comes with a cloned repository: an event, matcher or interpreter path in it
    holding ESC sequences (a CSI that clears the screen, an OSC that sets the window title) is printed escaped,
    ``\\x1b``, as ``asz sources`` prints what it reads, never steering the terminal (it was printed raw)."""
    work = tmp_path / "work"
    (work / ".claude").mkdir(parents=True)
    command = '"/gone\x1b]0;x\x07/python3" -S "/gone/asz_adapters_claude/hook.py"'
    assert hs.is_observer_command(command)
    (work / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PostToolUse\x1b[2J": [
        {"matcher": "mcp\x1b]0;owned\x07", "hooks": [{"type": "command", "command": command}]}]}}))
    p = _status(tmp_path / "claude", work, "--scope", "project")
    assert p.returncode == 1 and not [c for c in p.stdout if ord(c) < 32 and c != "\n"], repr(p.stdout)
    assert ("  PostToolUse\\x1b[2J mcp\\x1b]0;owned\\x07: missing: its interpreter /gone\\x1b]0;x\\x07/python3 does not "
            "exist and its observer file /gone/asz_adapters_claude/hook.py does not exist") in p.stdout, p.stdout


PLUGIN_HOOKS = Path(__file__).resolve().parents[2] / "claude-plugin" / "hooks" / "hooks.json"  # asz's own plugin


def test_status_reads_the_hooks_installed_plugins_declare(tmp_path: Path) -> None:
    """close41: ``asz hooks status`` read the settings files alone. Claude Code lists its installed plugins in
    ``plugins/installed_plugins.json`` (version 2: a list of installs per ``NAME@MARKETPLACE``), each plugin's hooks in
    ``hooks/hooks.json`` under its ``installPath``; the settings' ``enabledPlugins`` turns one off. Here asz's own
    plugin (this repository's ``claude-plugin``, copied) enabled, the same disabled, and one with no hooks file: the
    enabled one's entries are judged and counted, the disabled one's listed and not counted, and what is not read is
    said. PATH holds no ``asz``, so the bare ``asz hook`` is ``missing``."""
    cfg, work, empty = tmp_path / "claude", tmp_path / "work", tmp_path / "empty-path"
    work.mkdir()
    empty.mkdir()
    installs = {}
    for name in ("asz@local", "asz-off@local", "nohooks@local"):
        folder = cfg / "plugins" / "cache" / "local" / name.split("@")[0] / "0.1.0"
        (folder / "hooks").mkdir(parents=True)
        if name != "nohooks@local":
            shutil.copy(PLUGIN_HOOKS, folder / "hooks" / "hooks.json")
        installs[name] = [{"scope": "user", "installPath": str(folder), "version": "0.1.0"}]
    (cfg / "plugins" / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": installs}))
    (cfg / "settings.json").write_text(json.dumps({"enabledPlugins": {"asz@local": True, "asz-off@local": False}}))
    declared = _entries(PLUGIN_HOOKS)  # (event, matcher, command) read straight from the plugin's file
    assert [c for _, _, c in declared] == ["asz hook", "asz hook"]
    p = _status(cfg, work, "--json", path=str(empty))
    assert p.returncode == 1, p.stdout + p.stderr
    got = json.loads(p.stdout)
    plugins = {x["plugin"]: x for x in got["plugins"]["plugins"]}
    assert list(plugins) == list(installs) and got["plugins"]["file"] == str(cfg / "plugins" / "installed_plugins.json")
    assert [(p_["enabled"], p_["exists"]) for p_ in plugins.values()] == [(True, True), (False, True), (None, False)]
    for name in ("asz@local", "asz-off@local"):
        entries = plugins[name]["entries"]
        assert [(e["event"], e["matcher"], e["command"]) for e in entries] == declared
        assert {(e["form"], e["state"]) for e in entries} == {("bare", "missing")}
    assert plugins["nohooks@local"]["entries"] == []
    assert got["counts"] == {"this_asz": 0, "another_install": 0, "missing": len(declared)}  # the disabled one not counted
    assert got["plugins"]["not_read"].startswith("not read: hooks a plugin's .claude-plugin/plugin.json declares itself")
    text = _status(cfg, work, path=str(empty)).stdout.splitlines()
    at = text.index(f"{cfg / 'plugins' / 'installed_plugins.json'} (plugins): 3 installed plugin(s)")
    hooks_of = {n: Path(i[0]["installPath"]) / "hooks" / "hooks.json" for n, i in installs.items()}
    assert text[at + 1] == f"  asz@local (user) {hooks_of['asz@local']}:"
    assert text[at + 2].startswith(f"    {declared[0][0]} {declared[0][1]}: missing: ") and "no MCP execution record" in text[at + 2]
    assert text[at + 4] == f"  asz-off@local (user) {hooks_of['asz-off@local']}: disabled in settings (enabledPlugins): not run"
    assert text[at + 7] == f"  nohooks@local (user) {hooks_of['nohooks@local']}: no such file"
    assert text[at + 8] == f"  {got['plugins']['not_read']}"
    assert f"observer hook entries {len(declared)}: this_asz 0, another_install 0, missing {len(declared)}" in text
