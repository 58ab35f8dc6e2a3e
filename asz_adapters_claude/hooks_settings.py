"""Adding the MCP observer's hooks to Claude Code's ``settings.json`` and taking them out again (origin-digest §5.2).

``asz hooks install`` adds, under ``hooks``, one matcher group per event::

    "PostToolUse":        [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "asz hook", "timeout": 10}]}]
    "PostToolUseFailure": [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "asz hook", "timeout": 10}]}]

By default the command is :func:`direct_command` (``--bare`` writes
``asz hook`` instead): this interpreter, by absolute path, run with ``-S`` on
the observer's own file, ``"/path/to/python" -S
"/path/to/asz_adapters_claude/hook.py"``. It does what ``asz hook`` does
without the console script and without the interpreter's site initialisation
(``.pth`` files, editable-install finders), which is most of the start-up time
(``bench/hook.py``), and it does not depend on the ``PATH`` Claude Code's
hooks see (Claude Code does not show a PostToolUse hook that cannot start, so
a bare ``asz hook`` missing from that ``PATH`` loses every record without a
word); it has to be installed again when this interpreter moves.
:func:`bare_command_warning` says when the bare command would not start this
asz.

It is idempotent (an event that already runs the command for that matcher is
left alone; one that runs the other form of the observer's command is switched
to this one), copies the file aside before it changes it (mode at most 0600),
writes only the part of its text that changed (:mod:`.settings_text`) and
writes the new file atomically; a settings file that is a symbolic link is
written through (its target replaced in place, the link kept, as Claude Code
does), a dangling one refused. ``asz hooks uninstall`` removes every hook entry whose
command is one of the observer's commands, then only the groups, event lists
and the ``hooks`` object that this removal left empty, so everything else in
the file stays as it was. Standard library only.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import secrets
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from .hook import claude_config_dir

__all__ = [
    "COMMAND",
    "direct_command",
    "bare_command_warning",
    "is_observer_command",
    "MATCHER",
    "EVENTS",
    "TIMEOUT_S",
    "SCOPES",
    "SettingsError",
    "Change",
    "settings_path",
    "add_hooks",
    "remove_hooks",
    "install",
    "uninstall",
    "read_settings",
    "edit_settings",
]

#: The command Claude Code runs by default; uninstall matches hook entries on exactly this string or a :func:`direct_command`.
COMMAND = "asz hook"
# A direct command: an interpreter run with -S on a file asz_adapters_claude/hook.py (quoted or not).
_DIRECT = re.compile(r"""^(?:"[^"]+"|'[^']+'|\S+) -S (?:"[^"]*[/\\]asz_adapters_claude[/\\]hook\.py"|'[^']*[/\\]asz_adapters_claude[/\\]hook\.py'|\S*[/\\]asz_adapters_claude[/\\]hook\.py)$""")
MATCHER = "mcp__.*"
EVENTS = ("PostToolUse", "PostToolUseFailure")
#: Seconds Claude Code waits for the hook before it gives up on it.
TIMEOUT_S = 10
#: ``user``: ``$CLAUDE_CONFIG_DIR/settings.json`` or ``~/.claude/settings.json``; ``project``:
#: ``.claude/settings.json`` in the working directory; ``local``: ``.claude/settings.local.json`` there.
SCOPES = ("user", "project", "local")


class SettingsError(Exception):
    """A settings file that cannot be read or changed safely; the message names the file and the reason."""


class Change:
    """What install or uninstall did (or, with ``dry_run``, would do) to one settings file.

    ``path`` the file; ``changed`` whether its content differs; ``backup`` the
    copy made first ('' when none: no change, dry run, or no file before);
    ``diff`` a unified diff of old and new text; ``actions`` one line per
    event touched, e.g. ``added PostToolUse mcp__.* -> asz hook``; ``target`` the file written through
    ``path`` when it is a symbolic link ('' when it is not).
    """

    def __init__(self, path: Path, changed: bool, actions: list[str], diff: str, backup: str = "", target: str = ""):
        self.path = path
        self.target = target
        self.changed = changed
        self.actions = actions
        self.diff = diff
        self.backup = backup


def settings_path(scope: str, env=None, cwd: Path | None = None) -> Path:
    """The settings file of ``scope`` (one of :data:`SCOPES`). Raises ValueError for another scope."""
    if scope == "user":
        return Path(claude_config_dir(env)) / "settings.json"
    base = Path.cwd() if cwd is None else Path(cwd)
    if scope == "project":
        return base / ".claude" / "settings.json"
    if scope == "local":
        return base / ".claude" / "settings.local.json"
    raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")


def direct_command(python: str | None = None, hook_file: str | None = None) -> str:
    """The command that runs the observer's file directly: ``"<python>" -S "<…/asz_adapters_claude/hook.py>"``.

    ``python`` defaults to this interpreter (``sys.executable``), ``hook_file``
    to the installed :mod:`asz_adapters_claude.hook` module's file; both are
    quoted for the shell Claude Code runs hooks with (POSIX quoting, or
    double quotes on Windows).
    """
    from . import hook

    python = python or sys.executable
    hook_file = hook_file or os.path.abspath(hook.__file__)
    if os.name == "nt":
        return f'"{python}" -S "{hook_file}"'
    return f"{shlex.quote(python)} -S {shlex.quote(hook_file)}"


def bare_command_warning(which: str | None = None, running: str | None = None) -> str:
    """Why the bare command ``asz hook`` may not start this asz, or '' when ``asz`` on ``PATH`` is the running one.

    ``which`` defaults to ``shutil.which("asz")`` (this process's ``PATH``,
    which may well be more than Claude Code's); ``running`` to the ``asz``
    console script being run (``sys.argv[0]`` when it is named ``asz``, else the
    ``asz`` beside this interpreter, else None). Paths are compared after
    resolving symbolic links.
    """
    which = which if which is not None else shutil.which("asz")
    if running is None:
        argv0 = sys.argv[0] if sys.argv else ""
        if os.path.splitext(os.path.basename(argv0))[0] == "asz":
            running = os.path.abspath(argv0)
        else:
            beside = shutil.which("asz", path=os.path.dirname(sys.executable))
            running = os.path.abspath(beside) if beside else None
    if not which:
        return ("no `asz` is on this PATH, so Claude Code will not find `asz hook` either; it does not show a hook "
                "that cannot start, and no MCP record is written")
    if running and os.path.realpath(which) != os.path.realpath(running):
        return (f"`asz` on this PATH is {which}, not the asz running now ({running}); Claude Code's PATH may differ "
                "again, and a hook that cannot start is not shown")
    return ""


def is_observer_command(command: Any) -> bool:
    """True for a command :func:`install` writes: :data:`COMMAND` or a :func:`direct_command` (any interpreter, any path)."""
    return isinstance(command, str) and (command == COMMAND or _DIRECT.match(command) is not None)


def _entry(command: str) -> dict:
    return {"type": "command", "command": command, "timeout": TIMEOUT_S}


def _ours(hook: Any) -> bool:
    return isinstance(hook, dict) and is_observer_command(hook.get("command"))


def add_hooks(settings: dict, command: str = COMMAND) -> list[str]:
    """Add the observer's hooks, running ``command``, to a decoded settings object in place; returns one action line per event changed.

    An event whose list already holds a group with matcher ``mcp__.*`` running
    ``command`` is left alone; one whose group runs the observer's other
    command (:func:`is_observer_command`) has that entry switched to
    ``command``. Raises SettingsError when ``hooks`` or an event's value has a
    shape Claude Code would not accept either.
    """
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f'"hooks" is a {type(hooks).__name__}, not an object')
    actions = []
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SettingsError(f'"hooks.{event}" is a {type(groups).__name__}, not a list')
        mine = [h for g in groups if isinstance(g, dict) and g.get("matcher") == MATCHER and isinstance(g.get("hooks"), list)
                for h in g["hooks"] if _ours(h)]
        if any(h["command"] == command for h in mine):
            continue
        if mine:
            for h in mine:
                actions.append(f"switched {event} {MATCHER} from {h['command']} -> {command}")
                h["command"] = command
            continue
        groups.append({"matcher": MATCHER, "hooks": [_entry(command)]})
        actions.append(f"added {event} {MATCHER} -> {command}")
    return actions


def remove_hooks(settings: dict) -> list[str]:
    """Remove every hook entry running one of the observer's commands (:func:`is_observer_command`) from a decoded settings object in place.

    Only containers this removal empties go with it (a matcher group, an
    event's list, ``hooks`` itself); anything that was empty before stays.
    Returns one action line per entry removed. Never raises.
    """
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    actions = []
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for g in groups:
            inner = g.get("hooks") if isinstance(g, dict) else None
            if not isinstance(inner, list) or not any(_ours(h) for h in inner):
                kept_groups.append(g)
                continue
            kept = [h for h in inner if not _ours(h)]
            gone = [h["command"] for h in inner if _ours(h)]
            actions.append(f"removed {event} {g.get('matcher', '')} -> {gone[0]}" + (f" (x{len(gone)})" if len(gone) > 1 else ""))
            if kept:
                g["hooks"] = kept
                kept_groups.append(g)
        if len(kept_groups) != len(groups):
            if kept_groups:
                hooks[event] = kept_groups
            else:
                del hooks[event]
        else:
            hooks[event] = kept_groups
    if actions and not hooks:
        del settings["hooks"]
    return actions


def _file_of(path: Path) -> Path | None:
    """The file that holds ``path``'s settings: ``path`` itself, or, when ``path`` is a symbolic link (a dotfiles
    setup), the file its chain of links ends at, resolved whole (Claude Code too reads and writes a linked
    settings.json through the link and keeps it); None when there is nothing at ``path``.

    Raises SettingsError naming ``path`` for a link that ends at nothing (dangling, or a loop) and for anything
    that is not a regular file (a directory, a FIFO, ``/dev/null``): nothing is read or written then.
    """
    from asz_core.storage.out_path import NotRegular, written_at

    try:
        return written_at(path)  # the one rule every named output follows (trial 47b F1)
    except NotRegular as exc:
        tail = " (create the file it names, or remove the link)" if exc.what.endswith("which does not exist") else ""
        raise SettingsError(f"{exc}; nothing was changed{tail}") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}; nothing was changed") from None


def read_settings(path: Path) -> tuple[str | None, dict]:
    """A settings file's text (decoded from UTF-8, line ends as they are) and its JSON object: ``(None, {})`` when
    there is no file, ``(text, {})`` when it is blank. A symbolic link is read through (:func:`_file_of`).

    Raises SettingsError naming the file when it cannot be read, is a dangling link or no regular file, is not
    UTF-8, is not JSON or holds anything but an object.
    """
    file = _file_of(path)
    if file is None:
        return None, {}
    try:
        text = file.read_bytes().decode("utf-8")
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 (byte {exc.start}); fix or move it, nothing was changed") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SettingsError(f"{path}: not valid JSON ({exc}); fix or move it, nothing was changed") from None
    except RecursionError:
        raise SettingsError(f"{path}: nested too deeply to read as JSON; fix or move it, nothing was changed") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: holds a JSON {type(data).__name__}, not an object; nothing was changed")
    return text, data


def _private_copy(path: Path, data: bytes, mode: int) -> Path:
    """``data`` (the old file's bytes) written to a new ``NAME.asz-backup-<UTC stamp>[-N]`` beside ``path``, with the
    old file's permission bits less group's and others' (``mode & 0o600``: settings may hold an API key), created so."""
    from asz_core.storage.root import gone_if_raised

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for n in range(1, 1000):
        backup = path.with_name(f"{path.name}.asz-backup-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode & 0o600)
        except FileExistsError:
            continue
        with gone_if_raised(backup), os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), mode & 0o600)  # the umask may have taken more; never less than the owner's bits
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        return backup
    raise SettingsError(f"{path}: too many backups made this second")


def _write_atomic(file: Path, text: str) -> None:
    """``text`` (UTF-8, line ends as given) in place of ``file`` through a temporary beside it and one rename; the
    old file's mode kept, 0600 for a new one."""
    file.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    try:
        mode = file.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    tmp = file.with_name(f"{file.name}.{secrets.token_hex(4)}.{os.getpid()}.tmp")
    from asz_core.storage.out_path import put_in_place
    from asz_core.storage.root import gone_if_raised

    with gone_if_raised(tmp):  # from the open on (mkstemp returned before its try): a stop leaves no file (session 41)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        put_in_place(tmp, file)  # a FIFO or device put there meanwhile is not replaced (trial 47b F1)


def edit_settings(path: Path, edit, dry_run: bool) -> Change:
    """Apply ``edit`` (a function changing the settings dict in place, returning its actions as strings) to the file.

    Writes only the part of the text that changed (:func:`asz_adapters_claude.settings_text.edited_text`: every
    other byte kept, so undoing the edit gives back the file's bytes), backs the old bytes up beside ``path``
    (``NAME.asz-backup-STAMP``, mode at most 0600 and never more than the file's) and writes atomically. A
    symbolic link is written through: its target is replaced in place by a temporary in the target's folder, the
    link stays (``Change.target`` names the file written). With ``dry_run`` only the :class:`Change` (with its
    unified diff) is returned. Raises SettingsError naming the file when it cannot be read, edited or written, or
    is a dangling link (:func:`_file_of`).
    """
    from .settings_text import edited_text

    old_text, data = read_settings(path)
    file = _file_of(path) or path
    try:
        actions = edit(data)
    except SettingsError as exc:  # a shape add_hooks refuses: name the file, like every other refusal
        raise SettingsError(f"{path}: {exc}; nothing was changed") from None
    new_text = edited_text(old_text, data)
    changed = bool(actions)
    diff = ""
    if changed:
        diff = "".join(
            difflib.unified_diff((old_text or "").splitlines(True), new_text.splitlines(True), str(path) + " (before)", str(path) + " (after)")
        )
    backup = ""
    if changed and not dry_run:
        try:
            if old_text is not None:
                backup = str(_private_copy(path, old_text.encode("utf-8"), file.stat().st_mode))
            try:
                _write_atomic(file, new_text)
            except BaseException:
                if backup:  # the file is as it was: no copy of it is left behind either
                    os.unlink(backup)
                raise
        except OSError as exc:
            via = f" (a symbolic link to {file})" if file != path else ""
            raise SettingsError(f"{path}{via}: cannot write: {exc.strerror or exc}; nothing was changed") from None
    return Change(path, changed, actions, diff, backup, str(file) if file != path else "")


def install(path: Path, *, dry_run: bool = False, direct: bool = True) -> Change:
    """Add the observer's hooks to the settings file ``path`` (created when missing).

    The hooks run :func:`direct_command` (absolute paths, no ``PATH``
    lookup), or with ``direct`` False the bare :data:`COMMAND`.

    Idempotent: a second install changes nothing and makes no backup. Before
    a change the old file is copied to ``<name>.asz-backup-<UTC stamp>``
    beside it (mode at most 0600); the new file is written atomically with its
    mode kept, only its ``hooks`` text written again in the file's style (2-space
    JSON for a new file), through a symbolic link to its target
    (:func:`edit_settings`). ``dry_run`` computes the change and its diff and
    writes nothing. Raises SettingsError for an unreadable file, a dangling
    link, one that is not a JSON object, or a ``hooks`` of the wrong shape.
    """
    command = direct_command() if direct else COMMAND
    return edit_settings(Path(path), lambda settings: add_hooks(settings, command), dry_run)


def uninstall(path: Path, *, dry_run: bool = False) -> Change:
    """Remove what :func:`install` added from the settings file ``path`` (matched by :func:`is_observer_command`).

    A missing file, or one without the hooks, is left untouched. Backup,
    atomic write and errors as :func:`install`.
    """
    return edit_settings(Path(path), remove_hooks, dry_run)
