"""The observer hooks installed Claude Code plugins declare: ``asz hooks status``'s ``plugins`` part (close41: it read
the settings files alone and said a plugin folder's hooks were not read).

Claude Code lists the plugins it installed in ``<config dir>/plugins/installed_plugins.json``: ``{"version": 2,
"plugins": {"NAME@MARKETPLACE": [{"scope", "installPath", …}, …]}}`` (version 1: one ``{"installPath", …}`` per plugin
instead of the list), each ``installPath`` a folder under ``plugins/cache/``. A plugin declares its hooks in
``hooks/hooks.json`` under that folder, in the settings files' ``{"hooks": {EVENT: [{"matcher", "hooks": […]}]}}``
shape (asz's own plugin, ``claude-plugin/hooks/hooks.json``, runs the bare ``asz hook``). Whether it runs is the
settings files' ``enabledPlugins`` (``{"NAME@MARKETPLACE": true|false}``; user, then project, then local: the last
that names it decides). What this module does not read, and says so (:data:`NOT_READ`): hooks a plugin's
``.claude-plugin/plugin.json`` declares itself (its ``hooks`` key, inline or another file), plugins loaded for one
session (``claude --plugin-dir``) and managed settings.

Standard library only, as :mod:`asz_adapters_claude.hooks_settings`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from . import hooks_settings as hs

__all__ = ["NOT_READ", "installed_plugins", "enabled_in", "plugins_status", "plugin_lines"]

#: What :func:`plugins_status` does not read, said in ``asz hooks status``'s text and JSON (``plugins.not_read``).
NOT_READ = ("not read: hooks a plugin's .claude-plugin/plugin.json declares itself (its hooks key), plugins loaded for "
            "one session (claude --plugin-dir) and managed settings")


def installed_plugins(config_dir: str) -> tuple[Path, list[tuple[str, str, str]], str]:
    """``(file, [(plugin id, scope, install path)], error)`` of ``<config_dir>/plugins/installed_plugins.json``, in the
    file's order (version 1 or 2; an entry with no ``installPath`` string is left out); ``error`` '' when it read (or
    does not exist: no plugins), else why not, naming the file. Never raises."""
    path = Path(config_dir) / "plugins" / "installed_plugins.json"
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return path, [], ""
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: arrays or objects nested too deep to read
        return path, [], f"{path} cannot be read as JSON: {exc}"
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        return path, [], f"{path} holds no plugins object"
    out = []
    for pid, installs in plugins.items():
        for one in installs if isinstance(installs, list) else [installs]:
            if isinstance(one, dict) and isinstance(one.get("installPath"), str):
                out.append((pid, str(one.get("scope") or "user"), one["installPath"]))
    return path, out, ""


def enabled_in(settings_files: list[Path], plugin: str) -> bool | None:
    """Whether the settings files (in the order user, project, local) enable ``plugin``: the last ``enabledPlugins``
    naming it with a boolean decides; None when none does (Claude Code's own default applies). Never raises."""
    said = None
    for path in settings_files:
        try:
            _, data = hs.read_settings(path)
        except hs.SettingsError:
            continue
        got = data.get("enabledPlugins")
        if isinstance(got, dict) and isinstance(got.get(plugin), bool):
            said = got[plugin]
    return said


def plugins_status(config_dir: str, settings_files: list[Path], this_file: str) -> dict:
    """``{"file", "exists", "plugins": [...], "not_read"}`` (``"error"`` too when the list does not read): each installed
    plugin's ``{"plugin", "scope", "install_path", "hooks_file", "exists", "enabled", "entries"}`` (``"error"`` when its
    hooks file does not read), each entry ``{"event", "matcher", "command", **judge(command)}`` as a settings file's
    (:func:`~asz_adapters_claude.hooks_status.file_status`). ``enabled`` as :func:`enabled_in` says. Never raises."""
    from .hooks_status import judge, observer_entries

    path, found, error = installed_plugins(config_dir)
    out: dict[str, Any] = {"file": str(path), "exists": path.is_file(), "plugins": [], "not_read": NOT_READ}
    if error:
        out["error"] = error
    for pid, scope, install in found:
        hooks_file = Path(install) / "hooks" / "hooks.json"
        one: dict[str, Any] = {"plugin": pid, "scope": scope, "install_path": install, "hooks_file": str(hooks_file),
                               "exists": hooks_file.is_file(), "enabled": enabled_in(settings_files, pid), "entries": []}
        try:
            _, data = hs.read_settings(hooks_file)
        except hs.SettingsError as exc:
            one["error"] = str(exc).replace("; fix or move it, nothing was changed", "").replace("; nothing was changed", "")
        else:
            one["entries"] = [{"event": ev, "matcher": m, "command": c, **judge(c, this_file)}
                              for ev, m, c in observer_entries(data)]
        out["plugins"].append(one)
    return out


def runs(plugin: dict) -> bool:
    """Whether Claude Code runs ``plugin``'s hooks as far as the settings say: not when disabled there."""
    return plugin["enabled"] is not False


def plugin_lines(got: dict, unseen: str) -> list[str]:
    """``asz hooks status``'s lines of :func:`plugins_status`'s answer: ``FILE (plugins): N installed plugin(s)`` (or
    ``no such file``, or its error), per plugin ``  ID (SCOPE) HOOKS_FILE:`` then its entries as a settings file's
    (``unseen`` after a missing one), after ``disabled in settings (enabledPlugins): not run`` where the settings
    disable it, or ``no observer hook``, ``no such file`` or its error in their place, then
    :data:`NOT_READ`."""
    head = f"{got['file']} (plugins)"
    out = [f"{head}: {got['error']}" if "error" in got else f"{head}: no such file" if not got["exists"]
           else f"{head}: {len(got['plugins'])} installed plugin(s)"]
    for p in got["plugins"]:
        said = f"  {p['plugin']} ({p['scope']}) {p['hooks_file']}"
        if "error" in p or not p["entries"]:
            out.append(f"{said}: {p['error'] if 'error' in p else 'no observer hook' if p['exists'] else 'no such file'}")
            continue
        out.append(f"{said}:" if runs(p) else f"{said}: disabled in settings (enabledPlugins): not run")
        for e in p["entries"]:
            cost = f"; {unseen}" if e["state"] == "missing" and runs(p) else ""
            out.append(f"    {e['event']} {e['matcher']}: {e['state']}: {e['why']}{cost}")
    out.append(f"  {got['not_read']}")
    return out


def config_dir(env=None) -> str:
    """The configuration folder Claude Code uses (:func:`~asz_adapters_claude.hook.claude_config_dir`)."""
    from .hook import claude_config_dir

    return claude_config_dir(env if env is not None else os.environ)
