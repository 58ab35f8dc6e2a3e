"""The sessions of a root landed in a dialect no installed adapter speaks: what ``asz ls``, ``asz usage`` and ``asz
conversation`` say of them (trial 49c F3: with the adapter uninstalled they said nothing of it, ``asz conversation``
dropped its ``landed by`` line, and ``asz usage tools`` said ``its adapter's rule (it names no word)`` of an adapter
that does name one, only not installed). ``asz verify --deep`` says the same of the files it cannot check.

Cheap where every adapter is installed: the root's ``_sessions.list`` names each session's adapter, and an adapter
whose name an ``asz`` entry point declares (read from the ``entry_points.txt`` files, nothing imported:
:func:`~asz_core.plugins.packages.declared`; an installed adapter's entry point carries its name, docs/adapters.md)
is taken as installed. Only the sessions of another adapter are read (their first landed file's dialect,
:func:`~asz_core.view.titles.dialect_of`) and their dialect asked of the loaded plugins
(:func:`~asz_core.plugins.manager.adapter_for_dialect`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

__all__ = ["UNSPOKEN_SAID", "NOT_INSTALLED", "unspoken_sessions", "unspoken_line", "not_installed"]

#: What a reader says of the sessions of each dialect no installed adapter speaks (one line for them all).
UNSPOKEN_SAID = ("note: {counts}, {which} no installed adapter speaks (asz adapters list): where its adapter would "
                 "answer (its tool names, the word for a failed call, titles) asz's defaults read them; with the "
                 "adapter installed again, asz parse or the next asz collect "
                 "assembles them by it")

#: What stands for an adapter's answer when no installed adapter speaks the dialect (``asz usage tools``'s failed rule,
#: ``asz conversation``'s ``landed by`` line).
NOT_INSTALLED = "no installed adapter speaks it (asz adapters list)"


def not_installed(dialect: str) -> bool:
    """Whether no installed adapter speaks ``dialect`` (``ASZ_DISABLE_ADAPTERS`` heeded); False for ''."""
    if not dialect:
        return False
    from ..plugins.manager import adapter_for_dialect

    return adapter_for_dialect(dialect) is None


def unspoken_sessions(root: str | os.PathLike, sessions: Iterable[str] | None = None) -> dict[str, list[str]]:
    """``{dialect: [session, …]}`` of the sessions of ``root`` (``sessions`` when given, else every session folder)
    whose first landed file is of a dialect no installed adapter speaks, by the root's ``_sessions.list`` (a session
    it does not name is not looked at); {} when there is no list. Never raises."""
    from ..plugins.manager import blocked_names
    from ..plugins.packages import declared
    from ..storage.layout import session_dirs
    from ..storage.session_list import read_list
    from ..view.titles import dialect_of

    try:
        listed = read_list(root)
    except OSError:
        return {}
    if listed is None:
        return {}
    names = set(sessions) if sessions is not None else {d.name for d in session_dirs(Path(root))}
    installed = {name for name, _ in declared("asz")} - blocked_names()
    out: dict[str, list[str]] = {}
    for s in sorted(names):
        entry = listed.sessions.get(s)
        if entry is None or entry.adapter.rpartition("/")[0] in installed:
            continue
        dialect = dialect_of(root, s)
        if not_installed(dialect):
            out.setdefault(dialect, []).append(s)
    return out


def unspoken_line(root: str | os.PathLike, sessions: Iterable[str] | None = None) -> str:
    """:data:`UNSPOKEN_SAID` for :func:`unspoken_sessions`: ``note: 30 session(s) of heron/1, a dialect no installed
    adapter speaks …``; '' when there is none."""
    got = unspoken_sessions(root, sessions)
    if not got:
        return ""
    counts = " and ".join(f"{len(v):,} session(s) of {d}" for d, v in sorted(got.items()))
    return UNSPOKEN_SAID.format(counts=counts, which="a dialect" if len(got) == 1 else "dialects")
