"""Whether the observer's hooks in Claude Code's settings would run THIS asz: ``asz hooks status`` and the collect note.

``asz hooks install`` writes this interpreter and this install's ``asz_adapters_claude/hook.py`` by absolute path
(:func:`~asz_adapters_claude.hooks_settings.direct_command`). When that virtual environment is removed, or asz is
installed elsewhere, the entry points at an interpreter or a file that is gone, and Claude Code silently stops running
it: it shows no PostToolUse hook that cannot start, so every MCP execution record is lost without a word
(docs/claude-code-hooks.md, Is the hook still this asz's). This module judges each observer entry
(:func:`~asz_adapters_claude.hooks_settings.is_observer_command`) of a settings file:

* ``this_asz``: the interpreter exists and is executable, and the file is this install's ``hook.py`` (the same path
  once symbolic links are resolved); for the bare ``asz hook``, the ``asz`` on this ``PATH`` is the one running
  (:func:`~asz_adapters_claude.hooks_settings.bare_command_warning` says nothing);
* ``another_install``: both exist, and the file is another install's (``install`` names the folder holding its
  ``asz_adapters_claude``); for the bare form, the ``asz`` on this ``PATH`` is another;
* ``missing``: the interpreter or the file does not exist (or the interpreter is not executable); for the bare form,
  no ``asz`` is on this ``PATH``.

Standard library only, as :mod:`asz_adapters_claude.hooks_settings`.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from . import hooks_settings as hs

__all__ = ["STATES", "observer_entries", "judge", "file_status", "status", "status_lines", "wont_run_note", "source_notes"]

#: An entry's ``state``, in the order the summary counts them.
STATES = ("this_asz", "another_install", "missing")
#: What a hook that cannot start costs, said with every entry that would not run.
UNSEEN = "Claude Code does not show a hook that cannot start, so no MCP execution record is written"


def observer_entries(settings: dict) -> list[tuple[str, str, str]]:
    """``(event, matcher, command)`` of every hook entry of a decoded settings object whose command is the observer's
    (:func:`~asz_adapters_claude.hooks_settings.is_observer_command`), in the file's order, any event and matcher. A
    ``hooks`` of another shape holds none (``asz hooks install`` refuses it). Never raises."""
    hooks = settings.get("hooks")
    out = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for g in groups if isinstance(groups, list) else ():
            inner = g.get("hooks") if isinstance(g, dict) else None
            for h in inner if isinstance(inner, list) else ():
                if isinstance(h, dict) and hs.is_observer_command(h.get("command")):
                    out.append((event, str(g.get("matcher", "")), h["command"]))
    return out


def _split(command: str) -> tuple[str, str]:
    """The interpreter and the file of a direct command (``"<python>" -S "<…/hook.py>"``, POSIX or Windows quoting)."""
    try:
        words = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        words = command.split(" -S ")
    words = [w.strip('"') for w in words if w != "-S"]
    return (words[0], words[-1]) if len(words) >= 2 else (command, "")


def _install_of(hook_file: str) -> str:
    """The folder holding the ``asz_adapters_claude`` package of ``hook_file`` (its site-packages, or a checkout)."""
    return str(Path(os.path.realpath(hook_file)).parent.parent)


def _judge_bare(which: str | None, running: str | None) -> dict:
    why = hs.bare_command_warning(which or "", running)
    if not which:
        return {"form": "bare", "state": "missing", "why": why}
    if why:
        return {"form": "bare", "state": "another_install", "install": which, "why": why}
    return {"form": "bare", "state": "this_asz", "install": which,
            "why": f"`asz` on this PATH is {which}, the asz running now (Claude Code's PATH may differ)"}


def judge(command: str, this_file: str | None = None, which: str | None = None, running: str | None = None) -> dict:
    """Whether the observer command ``command`` would run this asz: ``{"form": "direct"|"bare", "state", "why"}`` and,
    for the direct form, ``python`` and ``hook_file`` as written, and ``install`` (the other install's folder, or the
    bare form's ``asz``) where there is one. ``state`` is one of :data:`STATES`.

    ``this_file`` is this install's ``hook.py`` (default: :mod:`asz_adapters_claude.hook`'s file); ``which`` and
    ``running`` are passed to :func:`~asz_adapters_claude.hooks_settings.bare_command_warning` for the bare form
    (``which`` None: this ``PATH``'s ``asz``). Paths are compared after resolving symbolic links. Never raises."""
    if command == hs.COMMAND:
        import shutil

        return _judge_bare(shutil.which("asz") if which is None else which, running)
    if this_file is None:
        from . import hook

        this_file = hook.__file__
    python, hook_file = _split(command)
    out: dict[str, Any] = {"form": "direct", "python": python, "hook_file": hook_file}
    gone = []
    if not os.path.isfile(python):
        gone.append(f"its interpreter {python} does not exist")
    elif not os.access(python, os.X_OK):
        gone.append(f"its interpreter {python} is not executable")
    if not os.path.isfile(hook_file):
        gone.append(f"its observer file {hook_file} does not exist")
    if gone:
        return {**out, "state": "missing", "why": " and ".join(gone)}
    if os.path.realpath(hook_file) == os.path.realpath(this_file):
        return {**out, "state": "this_asz", "why": f"its interpreter {python} and observer file {hook_file} are this asz's"}
    install = _install_of(hook_file)
    return {**out, "state": "another_install", "install": install,
            "why": f"it runs the observer file of another install, {install}, not this asz's ({_install_of(this_file)})"}


def _install_fixes(data: dict, command: str) -> bool:
    """Whether ``asz hooks install`` (writing ``command``) would leave every observer entry of ``data`` running
    ``command``: it switches the entry of each event's ``mcp__.*`` group, but leaves one under another matcher, or a
    second one of an event that already runs ``command`` (then uninstall, and install again). Never raises."""
    import copy

    again = copy.deepcopy(data)
    try:
        hs.add_hooks(again, command)
    except hs.SettingsError:
        return False
    return all(c == command for _, _, c in observer_entries(again))


def file_status(scope: str, path: Path, this_file: str | None = None) -> dict:
    """One settings file's part of :func:`status`: ``{"scope", "path", "exists", "entries": [...], "fix"}``, each entry
    ``{"event", "matcher", "command", **judge(command)}``; ``fix`` the command that makes every entry this asz's
    (``asz hooks install --scope S``, or uninstall first where install alone would leave one: :func:`_install_fixes`),
    '' when none is needed; ``"error"`` (the file named, the reason) when it cannot be read or is not a JSON object.
    Never raises."""
    out: dict[str, Any] = {"scope": scope, "path": str(path), "exists": path.is_file(), "entries": [], "fix": ""}
    try:
        _, data = hs.read_settings(path)
    except hs.SettingsError as exc:
        out["error"] = str(exc).replace("; fix or move it, nothing was changed", "").replace("; nothing was changed", "")
        return out
    out["entries"] = [{"event": ev, "matcher": m, "command": c, **judge(c, this_file)} for ev, m, c in observer_entries(data)]
    if any(e["state"] != "this_asz" for e in out["entries"]):
        install = f"asz hooks install --scope {scope}"
        out["fix"] = install if _install_fixes(data, hs.direct_command(hook_file=this_file)) else (
            f"asz hooks uninstall --scope {scope}, then {install}")
    return out


def status(scopes: list[str], env=None, cwd: Path | None = None, this_file: str | None = None) -> dict:
    """``asz hooks status --json``: ``{"asz": {"python", "hook_file", "command"}, "settings": [file_status, …],
    "plugins": plugins_status, "counts": {state: n}, "all_run_this_asz"}`` for the settings file of each scope of
    ``scopes`` (one file once, however many scopes name it: the project scope of the home folder is the user's file)
    and the hooks files of the installed plugins (:func:`~asz_adapters_claude.plugin_hooks.plugins_status`, whatever
    the scope; ``counts`` leaves out the entries of a plugin the settings disable). ``all_run_this_asz`` is
    True when there is at least one observer entry counted and every one is ``this_asz`` and no file was unreadable.
    Raises ValueError for an unknown scope (:func:`~asz_adapters_claude.hooks_settings.settings_path`)."""
    import sys

    from . import hook

    here = os.path.abspath(this_file or hook.__file__)
    files, seen = [], set()
    for scope in scopes:
        path = hs.settings_path(scope, env, cwd)
        if os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        files.append(file_status(scope, path, here))
    from .plugin_hooks import config_dir, plugins_status, runs

    every = [hs.settings_path(s, env, cwd) for s in ("user", "project", "local")]  # enabledPlugins: the last one says
    plugins = plugins_status(config_dir(env), every, here)
    entries = [e for f in files for e in f["entries"]] + [e for p in plugins["plugins"] if runs(p) for e in p["entries"]]
    counts = {s: sum(e["state"] == s for e in entries) for s in STATES}
    unread = any("error" in f for f in files) or "error" in plugins or any("error" in p for p in plugins["plugins"])
    return {"asz": {"python": sys.executable, "hook_file": here, "command": hs.direct_command(hook_file=here)},
            "settings": files, "plugins": plugins, "counts": counts,
            "all_run_this_asz": bool(entries) and counts["this_asz"] == len(entries) and not unread}


def status_lines(got: dict) -> list[str]:
    """``asz hooks status``'s text, from :func:`status`'s answer: per settings file a line ``PATH (SCOPE):`` and one
    line per entry, ``  EVENT MATCHER: STATE: WHY`` (``no such file``, ``no observer hook`` or its read error in place
    of the entries), the installed plugins' (:func:`~asz_adapters_claude.plugin_hooks.plugin_lines`), then
    ``observer hook entries N: this_asz N, another_install N, missing N`` and, for each file
    with an entry that is not this asz's, its ``fix`` (:func:`file_status`): ``fix: asz hooks install --scope SCOPE: …``."""
    out, fix = [], []
    for f in got["settings"]:
        head = f"{f['path']} ({f['scope']})"
        if "error" in f:
            out.append(f"{head}: {f['error']}")
        elif not f["exists"]:
            out.append(f"{head}: no such file")
        elif not f["entries"]:
            out.append(f"{head}: no observer hook")
        else:
            out.append(f"{head}:")
        for e in f["entries"]:
            cost = f"; {UNSEEN}" if e["state"] == "missing" else ""
            out.append(f"  {e['event']} {e['matcher']}: {e['state']}: {e['why']}{cost}")
        if f.get("fix"):
            fix.append(f["fix"])
    from .plugin_hooks import plugin_lines

    out += plugin_lines(got["plugins"], UNSEEN)
    c = got["counts"]
    out.append(f"observer hook entries {sum(c.values())}: " + ", ".join(f"{s} {c[s]}" for s in STATES))
    if not sum(c.values()):
        out.append("no observer hook is installed here: asz hooks install adds them (or a Claude Code plugin "
                   "declaring them, docs/claude-code-hooks.md)")
    out += [f"fix: {x}: it switches each entry to this asz ({got['asz']['command']})" for x in fix]
    return out


def wont_run_note(settings: Path) -> str:
    """The collect note on a settings file whose observer entries (direct form) would not start, one line; '' when
    none (another install's working file is not one: a second venv may be intended; the bare form depends on Claude
    Code's ``PATH``, which this process cannot see). Never raises."""
    try:
        _, data = hs.read_settings(settings)
    except hs.SettingsError:
        return ""
    bad = [(ev, j) for ev, _, c in observer_entries(data) if c != hs.COMMAND and (j := judge(c))["state"] == "missing"]
    if not bad:
        return ""
    events = ", ".join(dict.fromkeys(ev for ev, _ in bad))
    whys = "; ".join(dict.fromkeys(j["why"] for _, j in bad))
    return (f"the asz observer hook installed here would not run ({events}: {whys}): {UNSEEN}; asz hooks status says "
            "which entries, and asz hooks install switches them to this asz")


def source_notes(source_root: Path, sub: str, env=None) -> list[tuple[str, str]]:
    """An adapter's :class:`~asz_core.plugins.adapter.Discovery` ``notes`` on the observer hook: ``[(settings.json,
    wont_run_note)]`` when ``source_root`` is the folder ``sub`` (``projects``, ``plugins/data``) of the configuration
    folder Claude Code uses (:func:`~asz_adapters_claude.hook.claude_config_dir`: its ``settings.json`` is the user
    scope's), or a folder in it, and an observer entry there would not start; else []. A copy of another machine's
    folder (``--source``) is not judged: its interpreter paths are that machine's. Never raises."""
    from .hook import claude_config_dir

    try:
        cfg = Path(claude_config_dir(env))
        target, here = os.path.realpath(cfg / sub), os.path.realpath(source_root)
        if target not in (here, os.path.dirname(here)) or not (cfg / "settings.json").is_file():
            return []
        said = wont_run_note(cfg / "settings.json")
    except (OSError, ValueError):
        return []
    return [(str(cfg / "settings.json"), said)] if said else []
