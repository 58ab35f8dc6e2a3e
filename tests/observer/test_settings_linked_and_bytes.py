"""Writers of Claude Code's settings on a linked file and its bytes (trial 42a F5): ``asz hooks install|uninstall`` and
``asz provider enable|disable`` write through a symbolic link (the link stays), refuse a dangling one, give back the
file's exact bytes, and keep their backups private. Real files in a temporary HOME, never the machine's ~/.claude."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

from asz_adapters_claude import hooks_settings as hs
from asz_adapters_claude import provider

KEY = "sk-ant-api03-" + "Xy7Qp2Lm9Nc4Vb6Tr8Ws1Ed3Fg5Hj7Kk9Zz0Aa"
# The trial's dotfiles file: a one-line "env" object inside an indented file.
DOTFILE = '{\n  "env": {"ANTHROPIC_API_KEY": "%s"},\n  "model": "opus"\n}\n' % KEY
OTHERS = {"model": "opus", "env": {"FOO": "1"},
          "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}],
                    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}], "SessionStart": []}}
LAYOUTS = {
    "compact": json.dumps(OTHERS, separators=(",", ":")),
    "one line spaced": json.dumps(OTHERS) + "\n",
    "indented 4": json.dumps(OTHERS, indent=4) + "\n",
    "CRLF and tabs": json.dumps(OTHERS, indent="\t").replace("\n", "\r\n") + "\r\n",
    "CRLF inline env": DOTFILE.replace("\n", "\r\n"),
    "key order and odd spacing": '{"z" : 1,\n   "hooks" :{ "Stop":[ ] ,"PreToolUse": [] },\n "a": [1,2,  3], "model":"x"}',
    "escapes kept": '{\n  "t\\u00e9": "\\u00e9\\/x",\n  "n": 1.50\n}',
    "empty object": "{}",
}


def asz(home: Path, *args: str):
    return asz_in_process(*args, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": None})


def observer_events(path: Path) -> list[str]:
    data = json.loads(path.read_bytes())
    return sorted(ev for ev, groups in data.get("hooks", {}).items() for g in groups for h in g["hooks"]
                  if hs.is_observer_command(h.get("command")))


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_linked_settings_file_is_written_through_its_link_and_uninstall_gives_back_its_bytes(tmp_path: Path) -> None:
    """~/.claude/settings.json -> ~/current -> ~/dotfiles/settings.json (a chain, resolved whole, as Claude Code writes
    through a linked settings file): install and uninstall change the dotfile in place and keep both links; the one-line
    "env" is kept byte for byte; the backups beside the link hold the old bytes, 0600 where the file was 0640."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / "dotfiles").mkdir()
    dotfile = home / "dotfiles" / "settings.json"
    dotfile.write_bytes(DOTFILE.encode())
    os.chmod(dotfile, 0o640)
    (home / "current").symlink_to(dotfile)
    link = home / ".claude" / "settings.json"
    link.symlink_to(home / "current")

    p = asz(home, "hooks", "install")
    assert p.returncode == 0, p.stderr
    assert os.readlink(link) == str(home / "current") and os.readlink(home / "current") == str(dotfile)
    assert observer_events(dotfile) == ["PostToolUse", "PostToolUseFailure"]
    installed = dotfile.read_text()
    assert installed.startswith('{\n  "env": {"ANTHROPIC_API_KEY": "%s"},\n  "model": "opus",\n  "hooks": {\n' % KEY)
    assert f"{link}: a symbolic link: wrote the file it names, {dotfile}, in place; the link is kept" in p.stdout
    assert mode(dotfile) == 0o640 and sorted(os.listdir(home / "dotfiles")) == ["settings.json"]  # no temporary left
    (backup,) = (home / ".claude").glob("settings.json.asz-backup-*")
    assert backup.read_bytes() == DOTFILE.encode() and mode(backup) == 0o600 and not backup.is_symlink()

    p = asz(home, "hooks", "uninstall")
    assert p.returncode == 0, p.stderr
    assert dotfile.read_bytes() == DOTFILE.encode() and os.readlink(link) == str(home / "current")
    backups = sorted((home / ".claude").glob("settings.json.asz-backup-*"))
    assert len(backups) == 2 and all(mode(b) == 0o600 for b in backups)
    assert {b.read_text() for b in backups} == {DOTFILE, installed}

    # the other writer of the same file: asz provider enable/disable adds to the one-line env and takes it out again
    bodies = tmp_path / "bodies"
    assert asz(home, "provider", "enable", "--dir", str(bodies)).returncode == 0
    assert '"env": {"ANTHROPIC_API_KEY": "%s", "OTEL_LOG_RAW_API_BODIES": "file:%s"},\n' % (KEY, bodies) in dotfile.read_text()
    assert asz(home, "provider", "disable").returncode == 0
    assert dotfile.read_bytes() == DOTFILE.encode() and link.is_symlink()


def test_a_dangling_or_odd_settings_link_is_refused_and_left_alone(tmp_path: Path) -> None:
    """A link to nothing, a loop, a link to a directory or to a FIFO (read, it would hang): install, uninstall and
    provider enable exit 1 naming the link; nothing is created, the link is as it was, no backup."""
    home = tmp_path / "home"
    claude = home / ".claude"
    claude.mkdir(parents=True)
    link = claude / "settings.json"
    link.symlink_to(home / "dotfiles" / "settings.json")
    for args in (("hooks", "install"), ("hooks", "uninstall"), ("hooks", "install", "--dry-run"), ("provider", "enable")):
        p = asz(home, *args)
        assert p.returncode == 1, (args, p.stdout, p.stderr)
        assert (f"{link}: a symbolic link to {home / 'dotfiles' / 'settings.json'}, which does not exist; nothing was "
                "changed (create the file it names, or remove the link)") in p.stderr, args
    assert os.readlink(link) == str(home / "dotfiles" / "settings.json") and not (home / "dotfiles").exists()
    assert sorted(os.listdir(claude)) == ["settings.json"]

    (home / "d").mkdir()
    os.mkfifo(home / "fifo")
    for target, why in ((link, "a symbolic link that does not end at a file (a loop)"), (home / "d", "a directory"),
                        (home / "fifo", "not a regular file")):
        link.unlink()
        link.symlink_to(target)
        with pytest.raises(hs.SettingsError) as err:
            hs.install(link)
        assert str(err.value).startswith(str(link)) and why in str(err.value)
        assert os.readlink(link) == str(target) and sorted(os.listdir(claude)) == ["settings.json"]
    assert sorted(os.listdir(home)) == [".claude", "d", "fifo"] and os.listdir(home / "d") == []


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_uninstall_and_disable_give_back_each_layouts_bytes(tmp_path: Path, name: str) -> None:
    """Install adds the observer to each layout (compact, spaced, indented, CRLF with tabs, CRLF with an inline object,
    odd key order and spacing, escapes and a 1.50, an empty object) leaving the rest of the text as it was; uninstall
    gives back the exact bytes; so do provider enable then disable. A file that was 0644 keeps 0644, its backup 0600."""
    original = LAYOUTS[name].encode()
    path = tmp_path / "settings.json"
    path.write_bytes(original)
    os.chmod(path, 0o644)
    change = hs.install(path)
    assert change.changed and observer_events(path) == ["PostToolUse", "PostToolUseFailure"]
    installed = path.read_bytes()
    if name != "empty object":  # every line before the hooks' part is as it was
        head = original[: original.index(b'"hooks"')] if b'"hooks"' in original else original.rstrip()[:-1].rstrip()
        assert installed.startswith(head)
    assert installed.count(b"\r\n") == installed.count(b"\n") or b"\r\n" not in original
    assert mode(path) == 0o644 and mode(Path(change.backup)) == 0o600 and Path(change.backup).read_bytes() == original
    assert hs.uninstall(path).changed and path.read_bytes() == original

    assert provider.enable_capture(path, tmp_path / "bodies").changed
    assert json.loads(path.read_bytes())["env"]["OTEL_LOG_RAW_API_BODIES"] == f"file:{tmp_path / 'bodies'}"
    assert provider.disable_capture(path).changed and path.read_bytes() == original


def test_json_nested_too_deep_to_read_is_refused_naming_the_file(tmp_path):
    """A settings file or installed_plugins.json nested 5,000 deep: json.loads raises RecursionError (no ValueError),
    which ended asz hooks install and status in a traceback (review 42); now refused naming the file, nothing changed,
    and the splice falls back to writing the object whole when its own parse nests deeper than it can go."""
    from asz_adapters_claude.plugin_hooks import installed_plugins
    from asz_adapters_claude.settings_text import edited_text

    deep = '{"x": ' + "[" * 5000 + "]" * 5000 + "}\n"
    settings = tmp_path / "settings.json"
    settings.write_text(deep)
    with pytest.raises(hs.SettingsError, match=f"^{settings}: nested too deeply to read as JSON; fix or move it"):
        hs.read_settings(settings)
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "installed_plugins.json").write_text(deep)
    path, plugins, error = installed_plugins(str(tmp_path))
    assert plugins == [] and error.startswith(f"{path} cannot be read as JSON: maximum recursion depth exceeded")
    assert json.loads(edited_text(deep, {"a": 1})) == {"a": 1}
    assert settings.read_text() == deep
