"""Where Claude Code keeps its folders, and which of them hold sessions (origin-digest §5.1, §5.2, §5.3).

Claude Code's configuration folder is ``$CLAUDE_CONFIG_DIR`` when set (one path to Claude Code; ccusage, and asz, read
a comma-separated list of them), else ``~/.claude``; ``$XDG_CONFIG_HOME/claude`` (``~/.config/claude`` when the
variable is unset) is where some versions kept it. :func:`config_dirs` is the one list every Claude Code adapter reads
its folders from: the transcripts' ``projects``, the observers' ``plugins/data``, the provider bodies'
``asz/provider-bodies`` (:func:`default_folder`, :func:`unread_folders`). asz reads the default folder first, the
storage root's own, then the others that hold sessions, into the same storage root (``Adapter.default_source_roots``;
docs/storage-root.md, Several source folders); trial 16 F7 found them left out. Every function here takes the
environment as a mapping and never raises.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Mapping

from .hook import config_dir_entries

__all__ = ["candidate_roots", "config_dirs", "default_folder", "preferred_folders", "default_root", "further_dirs", "holds_sessions",
           "suggest_source", "unread_folders", "unread_roots"]


def _home(env: Mapping[str, str]) -> Path:
    return Path(env["HOME"]) if env.get("HOME") else Path.home()


def config_dirs(env: Mapping[str, str]) -> list[Path]:
    """Every configuration folder Claude Code may keep its files in, the one asz prefers first: each entry of a
    comma-separated ``CLAUDE_CONFIG_DIR`` when it names any; else ``$XDG_CONFIG_HOME/claude`` and ``~/.claude``, the
    XDG one first only when it is a directory, ``~/.config`` standing for an unset ``XDG_CONFIG_HOME``. The one list
    every Claude Code adapter reads its folders from (``projects``, the observers' ``plugins/data``). Need not exist."""
    dirs = config_dir_entries(env)
    if dirs:
        return [Path(d) for d in dirs]
    home = _home(env)
    xdg = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    dot, via_xdg = home / ".claude", xdg / "claude"
    return [via_xdg, dot] if env.get("XDG_CONFIG_HOME") and via_xdg.is_dir() else [dot, via_xdg]


def preferred_folders(env: Mapping[str, str], sub: str) -> list[Path]:
    """The folder ``sub`` (``projects``, ``plugins/data``) of every configuration folder, in the order asz would prefer
    them were every one a directory: each ``CLAUDE_CONFIG_DIR`` entry's; else ``$XDG_CONFIG_HOME/claude``'s before
    ``~/.claude``'s when the variable is set, ``~/.claude``'s before ``~/.config/claude``'s when it is not
    (:func:`config_dirs` orders by what exists now). Need not exist. A pass given no folder is given these (an
    adapter's ``default_source_candidates``; docs/storage-root.md, Several source folders)."""
    dirs = config_dir_entries(env)
    if dirs:
        return [Path(d) / sub for d in dirs]
    home = _home(env)
    if env.get("XDG_CONFIG_HOME"):
        return [Path(env["XDG_CONFIG_HOME"]) / "claude" / sub, home / ".claude" / sub]
    return [home / ".claude" / sub, home / ".config" / "claude" / sub]


def further_dirs(first: Path, dirs: list[Path], holds: Callable[[Path], bool]) -> list[Path]:
    """The folders of ``dirs`` apart from ``first`` and from each other (a symbolic link to the same folder counts
    once) for which ``holds(folder)`` is true, in order: an adapter's :meth:`unread_default_sources`."""
    seen = {_real(first)}
    out = []
    for r in dirs:
        real = _real(r)
        if real in seen:
            continue
        seen.add(real)
        if holds(r):
            out.append(r)
    return out


def default_folder(env: Mapping[str, str], sub: str) -> Path:
    """The folder ``sub`` (a relative path: ``projects``, ``plugins/data``, ``asz/provider-bodies``) of the first of
    :func:`config_dirs` where it is a directory, else of the first of them (its absence is told by the pass): the
    folder an adapter reads first, the storage root's own, when no ``--source`` or ``source_root`` names one."""
    subs = [d / sub for d in config_dirs(env)]
    return next((r for r in subs if _is_dir(r)), subs[0])


def unread_folders(env: Mapping[str, str], sub: str, holds: Callable[[Path], bool]) -> list[Path]:
    """The folders ``sub`` of :func:`config_dirs` apart from :func:`default_folder` (and from each other: a symbolic
    link to the same folder counts once) for which ``holds(folder)`` is true (the folder holds what the adapter
    reads), in order: an adapter's :meth:`unread_default_sources`."""
    return further_dirs(default_folder(env, sub), [d / sub for d in config_dirs(env)], holds)


def candidate_roots(env: Mapping[str, str]) -> list[Path]:
    """Every ``projects`` folder Claude Code may keep sessions in, the one asz prefers first.

    ``<dir>/projects`` for each entry of ``CLAUDE_CONFIG_DIR`` (comma-separated) when it names any; else
    ``$XDG_CONFIG_HOME/claude/projects`` and ``~/.claude/projects``, the XDG one first only when
    ``$XDG_CONFIG_HOME/claude`` is a directory (Claude Code keeps ``~/.claude`` even where ``XDG_CONFIG_HOME`` is
    set), ``~/.config`` standing for an unset ``XDG_CONFIG_HOME``. The paths need not exist.
    """
    return [d / "projects" for d in config_dirs(env)]


def default_root(env: Mapping[str, str]) -> Path:
    """The ``projects`` folder asz reads when no ``--source`` or ``source_root`` names one: the first of
    :func:`candidate_roots` that is a directory, else the first of them (its absence is told by the pass)."""
    return default_folder(env, "projects")


def unread_roots(env: Mapping[str, str]) -> list[Path]:
    """The folders of :func:`candidate_roots` apart from :func:`default_root` (and from each other: a symbolic link to
    the same folder counts once) that hold sessions (:func:`holds_sessions`)."""
    return unread_folders(env, "projects", holds_sessions)


def holds_sessions(projects: Path) -> bool:
    """True when a project folder of ``projects`` holds a ``<session>.jsonl`` file (the extension in any case); listings only, stops at the first.
    An unreadable folder holds none that can be read."""
    try:
        with os.scandir(projects) as it:
            folders = [e.path for e in it if _entry_is_dir(e)]
    except OSError:
        return False
    for folder in folders:
        try:
            with os.scandir(folder) as it:
                if any(e.name.lower().endswith(".jsonl") and _entry_is_file(e) for e in it):
                    return True
        except OSError:
            continue
    return False


def suggest_source(source_root: Path) -> Path | None:
    """The ``projects`` folder ``source_root`` is one level off from: its parent when ``source_root`` holds
    ``<session>.jsonl`` files itself (a project folder), its ``projects`` child when it has one that holds sessions
    (a configuration folder such as ``~/.claude``); else None."""
    root = Path(source_root)
    try:
        with os.scandir(root) as it:
            if any(e.name.lower().endswith(".jsonl") and _entry_is_file(e) for e in it):
                return root.parent
    except OSError:
        return None
    child = root / "projects"
    return child if holds_sessions(child) else None


def _is_dir(p: Path) -> bool:
    try:
        return p.is_dir()
    except OSError:
        return False


def _entry_is_dir(e: os.DirEntry) -> bool:
    try:
        return e.is_dir()
    except OSError:
        return False


def _entry_is_file(e: os.DirEntry) -> bool:
    try:
        return e.is_file()
    except OSError:
        return False


def _real(p: Path) -> str:
    try:
        return os.path.realpath(p)
    except (OSError, ValueError):
        return os.path.abspath(p)
