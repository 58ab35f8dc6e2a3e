"""``asz hooks install|uninstall`` on a temporary Claude config dir: backup, idempotency, exact removal (issue 8)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

from asz_adapters_claude import hooks_settings as hs

REPO = Path(__file__).resolve().parents[2]

ORIGINAL = {
    "model": "opus",
    "env": {"FOO": "1"},
    "hooks": {
        "PostToolUse": [
            {"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "my-logger", "timeout": 5}]},
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]},
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "SessionStart": [],
    },
}


def asz(*args: str, cfg: Path, cwd: Path | None = None, child: bool = False) -> subprocess.CompletedProcess:
    """``asz ARGS`` with CLAUDE_CONFIG_DIR pointed at ``cfg`` (never the machine's ~/.claude): in this process
    (tests/cli_helpers.py), or with ``child`` the installed console script, whose own interpreter ``--direct`` names."""
    if not child:
        return asz_in_process(*args, cwd=cwd, env={"CLAUDE_CONFIG_DIR": str(cfg)})
    exe = shutil.which("asz")
    if exe is None:
        pytest.skip("asz is not on PATH (pip install -e .)")
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(cfg))
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def backups(d: Path) -> list[Path]:
    return sorted(d.glob("settings*.asz-backup-*"))


def ours(settings: dict) -> list[tuple[str, str]]:
    return [(ev, g.get("matcher")) for ev, groups in settings.get("hooks", {}).items() for g in groups
            for h in g.get("hooks", []) if hs.is_observer_command(h.get("command"))]


def test_install_twice_then_uninstall_restores_the_file(tmp_path: Path) -> None:
    """Install adds both hooks after a backup; a second install changes nothing; uninstall gives back the original JSON."""
    cfg = tmp_path / "claude"
    cfg.mkdir()
    settings = cfg / "settings.json"
    original_text = json.dumps(ORIGINAL, indent=4) + "\n"
    settings.write_text(original_text)

    p = asz("hooks", "install", cfg=cfg)
    assert p.returncode == 0, p.stderr
    after = json.loads(settings.read_text())
    assert ours(after) == [("PostToolUse", "mcp__.*"), ("PostToolUseFailure", "mcp__.*")]
    assert after["hooks"]["PostToolUse"][:2] == ORIGINAL["hooks"]["PostToolUse"]  # others' hooks untouched
    assert {k: v for k, v in after.items() if k != "hooks"} == {"model": "opus", "env": {"FOO": "1"}}
    (b,) = backups(cfg)
    assert b.read_text() == original_text
    assert settings.read_text().startswith('{\n    "model"')  # the file's own indentation is kept

    once = settings.read_text()
    p = asz("hooks", "install", cfg=cfg)
    assert p.returncode == 0 and "unchanged" in p.stdout
    assert settings.read_text() == once and len(backups(cfg)) == 1

    p = asz("hooks", "uninstall", cfg=cfg)
    assert p.returncode == 0, p.stderr
    assert json.loads(settings.read_text()) == ORIGINAL
    assert settings.read_text() == original_text
    assert len(backups(cfg)) == 2

    p = asz("hooks", "uninstall", cfg=cfg)
    assert p.returncode == 0 and "unchanged" in p.stdout and len(backups(cfg)) == 2


@pytest.mark.parametrize("seps, end", [((",", ":"), ""), ((",", ":"), "\n"), ((", ", ": "), "\n")])
def test_a_compact_one_line_file_stays_on_one_line(tmp_path: Path, seps: tuple[str, str], end: str) -> None:
    """A settings file written on one line (``json.dumps`` compact, or with its default spaces; with or without a final
    newline) stays on one line with its separators after install, and uninstall gives back its bytes."""
    cfg = tmp_path / "claude"
    cfg.mkdir()
    settings = cfg / "settings.json"
    original_text = json.dumps(ORIGINAL, separators=seps) + end
    settings.write_text(original_text)
    assert asz("hooks", "install", cfg=cfg).returncode == 0
    after = settings.read_text()
    assert after.count("\n") == end.count("\n") and ours(json.loads(after)) == [("PostToolUse", "mcp__.*"), ("PostToolUseFailure", "mcp__.*")]
    assert after == json.dumps(json.loads(after), separators=seps) + end
    assert asz("hooks", "uninstall", cfg=cfg).returncode == 0
    assert settings.read_text() == original_text


def test_fresh_install_and_project_scope(tmp_path: Path) -> None:
    """No settings file yet: install creates it (no backup); --scope project edits .claude/settings.json in cwd."""
    cfg = tmp_path / "claude"
    p = asz("hooks", "install", cfg=cfg)
    assert p.returncode == 0, p.stderr
    assert ours(json.loads((cfg / "settings.json").read_text())) == [("PostToolUse", "mcp__.*"), ("PostToolUseFailure", "mcp__.*")]
    assert backups(cfg) == []
    # install says where the records go and how they are collected (F9; plain collect takes them: trial 34a F6)
    assert (f"the hook writes its records under {cfg / 'plugins' / 'data' / 'file-changes-skywalking-ai-sessionizer'}"
            "/output; plain asz collect collects them once there are some (as every adapter with records at its default "
            "folder), but an asz.yaml that lists adapters must list changes too") in p.stdout
    assert asz("hooks", "uninstall", cfg=cfg).returncode == 0
    assert json.loads((cfg / "settings.json").read_text()) == {}

    proj = tmp_path / "proj"
    proj.mkdir()
    p = asz("hooks", "install", "--scope", "project", cfg=cfg, cwd=proj)
    assert p.returncode == 0, p.stderr
    assert len(ours(json.loads((proj / ".claude" / "settings.json").read_text()))) == 2


def test_dry_run_writes_nothing_and_bad_files_are_refused(tmp_path: Path) -> None:
    """--dry-run prints the diff only; a settings file that is not a JSON object is left alone with exit 1; a bad scope exits 2."""
    cfg = tmp_path / "claude"
    cfg.mkdir()
    settings = cfg / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    p = asz("hooks", "install", "--dry-run", cfg=cfg)
    assert p.returncode == 0 and '\n+{"model": "opus", "hooks": {"PostToolUse": [' in p.stdout and "dry run" in p.stdout
    assert settings.read_text() == '{"model": "opus"}\n' and backups(cfg) == []
    settings.write_text("{oops")
    p = asz("hooks", "install", cfg=cfg)
    assert p.returncode == 1 and "not valid JSON" in p.stderr and settings.read_text() == "{oops"
    assert asz("hooks", "install", "--scope", "galaxy", cfg=cfg).returncode == 2


@pytest.mark.parametrize(
    "text, why",
    [
        ('{"hooks": []}\n', '"hooks" is a list, not an object'),
        ('{"hooks": {"PostToolUse": {}}}\n', '"hooks.PostToolUse" is a dict, not a list'),
    ],
)
def test_a_hooks_value_of_the_wrong_shape_names_the_settings_file(tmp_path: Path, text: str, why: str) -> None:
    """The refusal names the file like the other settings errors (exit 1) and leaves it as it was."""
    cfg = tmp_path / "claude"
    cfg.mkdir()
    settings = cfg / "settings.json"
    settings.write_text(text)
    p = asz("hooks", "install", cfg=cfg)
    assert p.returncode == 1
    assert p.stderr == f"asz hooks install: {settings}: {why}; nothing was changed\n"
    assert settings.read_text() == text and backups(cfg) == []


def test_uninstall_removes_only_what_install_added() -> None:
    """A group shared with another command keeps that command; containers empty before stay."""
    s = json.loads(json.dumps(ORIGINAL))
    s["hooks"]["PostToolUse"][0]["hooks"].append({"type": "command", "command": hs.COMMAND})
    before_install = json.loads(json.dumps(s))
    assert hs.add_hooks(s) == ["added PostToolUseFailure mcp__.* -> asz hook"]  # PostToolUse already runs it
    hs.remove_hooks(s)
    want = json.loads(json.dumps(before_install))
    want["hooks"]["PostToolUse"][0]["hooks"].pop()
    assert s == want
    assert s["hooks"]["SessionStart"] == []


def test_the_plugin_folder_declares_the_same_hooks() -> None:
    """claude-plugin/hooks/hooks.json runs the command install writes, on the same events and matcher."""
    manifest = json.loads((REPO / "claude-plugin" / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] and manifest["description"]
    hooks = json.loads((REPO / "claude-plugin" / "hooks" / "hooks.json").read_text())["hooks"]
    fresh: dict = {}
    hs.add_hooks(fresh)
    assert hooks == fresh["hooks"]


def _commands(settings: dict) -> list[tuple[str, str]]:
    return [(ev, h.get("command")) for ev, groups in settings.get("hooks", {}).items() for g in groups
            for h in g.get("hooks", []) if hs.is_observer_command(h.get("command"))]


def test_default_install_runs_the_observer_without_asz_on_path_and_switches_back(tmp_path: Path) -> None:
    """The default writes ``"<python>" -S "<…/hook.py>"`` (absolute paths; trial 3, F13): that exact string, run by a
    shell whose PATH has no asz (as Claude Code may run it), lands the record ``asz hook`` lands."""
    cfg = tmp_path / "claude"
    cfg.mkdir()
    settings = cfg / "settings.json"
    settings.write_text(json.dumps(ORIGINAL, indent=2) + "\n")
    p = asz("hooks", "install", cfg=cfg, child=True)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    cmds = _commands(json.loads(settings.read_text()))
    direct = cmds[0][1]
    python = direct.split(" -S ")[0]
    assert cmds == [("PostToolUse", direct), ("PostToolUseFailure", direct)]
    assert direct == hs.direct_command(python=python)  # the asz console script's own interpreter, the installed hook file
    assert os.path.isabs(python) and os.access(python, os.X_OK)

    payload = json.dumps({
        "session_id": "86cb6fec-8454-476f-9cf1-4d625d1869b7", "cwd": "/work/echo", "hook_event_name": "PostToolUse",
        "tool_name": "mcp__probe__echo", "tool_input": {"text": "hello"}, "tool_response": [{"type": "text", "text": "echo: hello"}],
        "tool_use_id": "toolu_probe_1_0", "duration_ms": 2, "mcp_server": {"name": "probe", "source": "dynamic"},
    })
    outs = []
    for i, (command, path) in enumerate(((direct, "/usr/bin:/bin"), ("asz hook", os.environ["PATH"]))):
        data = tmp_path / f"data{i}"
        env = {"PATH": path, "ASZ_HOOK_DATA": str(data), "HOME": str(tmp_path)}
        run = subprocess.run(["/bin/sh", "-c", command], input=payload, capture_output=True, text=True, env=env, timeout=60)
        assert run.returncode == 0 and run.stdout == "", run.stderr
        [out] = (data / "output" / "86cb6fec-8454-476f-9cf1-4d625d1869b7").glob("*.execution.jsonl")
        rec = json.loads(out.read_text())
        rec.pop("time")
        outs.append(rec)
    assert outs[0] == outs[1] and outs[0]["tool"] == "toolu_probe_1_0" and outs[0]["server"] == {"name": "probe", "source": "dynamic"}

    again = asz("hooks", "install", "--direct", cfg=cfg, child=True)  # --direct is the default, kept for scripts
    assert "nothing to install" in again.stdout
    back = asz("hooks", "install", "--bare", cfg=cfg, child=True)  # the bare form replaces the direct one, never beside it
    assert back.returncode == 0 and "switched PostToolUse" in back.stdout
    assert _commands(json.loads(settings.read_text())) == [("PostToolUse", hs.COMMAND), ("PostToolUseFailure", hs.COMMAND)]
    assert asz("hooks", "install", "--bare", "--direct", cfg=cfg, child=True).returncode == 2
    asz("hooks", "install", cfg=cfg, child=True)
    gone = asz("hooks", "uninstall", cfg=cfg, child=True)
    assert gone.returncode == 0 and gone.stdout.count("removed ") == 2
    assert json.loads(settings.read_text()) == ORIGINAL


def test_bare_install_warns_when_asz_is_not_on_path(tmp_path: Path) -> None:
    """``--bare`` writes ``asz hook``; with no asz on PATH it says on stderr that Claude Code will not find it either."""
    exe = shutil.which("asz")
    if exe is None:
        pytest.skip("asz is not on PATH (pip install -e .)")
    cfg = tmp_path / "claude"
    for path, warned in (("/usr/bin:/bin", True), (os.path.dirname(exe) + ":/usr/bin:/bin", False)):
        env = {"PATH": path, "CLAUDE_CONFIG_DIR": str(cfg), "HOME": str(tmp_path)}
        p = subprocess.run([exe, "hooks", "install", "--bare"], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        assert ("no `asz` is on this PATH" in p.stderr) is warned, p.stderr
        assert _commands(json.loads((cfg / "settings.json").read_text()))[0][1] == "asz hook"
    assert "is /usr/local/bin/asz, not the asz running now (/x/bin/asz)" in hs.bare_command_warning("/usr/local/bin/asz", "/x/bin/asz")
    assert hs.bare_command_warning(exe, exe) == ""


def test_what_counts_as_the_observers_command() -> None:
    assert hs.is_observer_command("asz hook")
    assert hs.is_observer_command("/usr/bin/python3 -S /opt/venv/lib/python3.11/site-packages/asz_adapters_claude/hook.py")
    assert hs.is_observer_command('"C:\\Program Files\\Python311\\python.exe" -S "C:\\venv\\Lib\\site-packages\\asz_adapters_claude\\hook.py"')
    assert hs.is_observer_command("'/a b/python' -S '/c d/asz_adapters_claude/hook.py'")
    assert not hs.is_observer_command("asz hook --data /x")  # a user's own variation is theirs to keep
    assert not hs.is_observer_command("python /x/asz_adapters_claude/hook.py")
    assert not hs.is_observer_command("python -S /x/other/hook.py")
    assert not hs.is_observer_command(None)
