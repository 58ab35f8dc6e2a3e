"""What ``asz usage`` adds when ``--project`` matches nothing (trial 48a F6): asz names a project by its conversations'
working directory (``cwd``), where ccusage names it by the folder under ``~/.claude/projects`` that Claude Code made from
the directory a session started in (``-home-user-spotter``: each character that is not a letter or a digit made ``-``).
A folder's name does not say which working directories its sessions had (a worktree, a ``cd`` in a session: trial 38b's
folder ``-home-user-spotter`` was two asz projects), so it is not taken as a project; the error says how asz names
projects and, for a folder sessions of the root were read from, the projects of those sessions by calls (trial 50a F8,
50d F3: the nearest by spelling put another folder's project first and left out the one holding most of that folder's
calls), else the nearest ones the root holds (docs/ccusage.md, Projects). ``asz usage`` and ``asz ls`` say it alike."""

from __future__ import annotations

import os
import re
from difflib import get_close_matches
from pathlib import Path
from typing import Iterable, Mapping

__all__ = ["folder_namers", "folder_forms", "projects_near", "project_hint", "folder_sessions", "read_from", "listed_hint", "NEAR_NAMED"]

#: How many projects the hint names, nearest first.
NEAR_NAMED = 3


def folder_namers() -> list:
    """The installed adapters whose runtime names a folder for each project
    (:meth:`~asz_core.plugins.adapter.Adapter.project_folder_named` overridden: Claude Code's), in load order."""
    from ..plugins.adapter import Adapter
    from ..plugins.manager import get_plugin_manager

    return [a for a in get_plugin_manager().adapters().values()
            if getattr(type(a), "project_folder_named", None) is not Adapter.project_folder_named]


def folder_forms(project: str, namers: Iterable) -> list[str]:
    """``project`` (a working directory) as each of ``namers`` (:func:`folder_namers`) names the folder its runtime
    keeps that project's sessions in, casefolded, each once; [] when none does."""
    out: list[str] = []
    for a in namers:
        try:
            got = a.project_folder_named(project)
        except Exception:  # noqa: BLE001 - an adapter's answer is advice: one that raises names no folder
            continue
        if isinstance(got, str) and got and got.casefold() not in out:
            out.append(got.casefold())
    return out


def projects_near(projects: Iterable[str], given: str, namers: Iterable | None = None) -> list[str]:
    """Up to :data:`NEAR_NAMED` of ``projects`` nearest ``given``, nearest first: those one of whose folder forms
    (:func:`folder_forms` of ``namers``, default :func:`folder_namers`) is ``given`` (case-insensitive), then those one
    of whose folder forms contains it, then the closest by spelling (:func:`difflib.get_close_matches` over the paths
    and their folder forms, ratio 0.6 or more); each group by name."""
    names = sorted({p for p in projects if isinstance(p, str) and p})
    want, namers = given.casefold(), folder_namers() if namers is None else list(namers)
    by_name = {p: folder_forms(p, namers) for p in names}
    same = [p for p in names if want in by_name[p]]
    within = [p for p in names if any(want in f for f in by_name[p]) and p not in same]
    forms = {**{p.casefold(): p for p in names}, **{f: p for p in names for f in by_name[p]}}
    close = [forms[m] for m in get_close_matches(want, list(forms), n=len(forms), cutoff=0.6)]
    out: list[str] = []
    for p in same + within + close:
        if p not in out:
            out.append(p)
    return out[:NEAR_NAMED]


def folder_sessions(root: str | os.PathLike, folder: str) -> set[str]:
    """The sessions of ``root`` one of whose sources was read from a folder named ``folder`` (case-insensitive): a
    folder of the path its cursor names (``-home-user-spotter/8463c716-….jsonl``, a sub-agent's
    ``-home-user-spotter/8463c716-…/subagents/agent-….jsonl``), the file's own name left out. Never raises: a cursor
    that does not read names none."""
    from ..storage.cursor import read_cursor
    from ..storage.layout import cursor_paths, session_dirs

    want = folder.strip().strip("/\\").casefold()
    out: set[str] = set()
    if not want:
        return out
    try:
        dirs = session_dirs(Path(root))
    except OSError:
        return out
    for sdir in dirs:
        for cp in cursor_paths(sdir):
            try:
                src = getattr(read_cursor(Path(cp)), "source", "") or ""
            except (OSError, ValueError, KeyError):
                continue
            if want in {p.casefold() for p in re.split(r"[\\/]", src)[:-1]}:
                out.add(sdir.name)
                break
    return out


def read_from(projects: Mapping[str, Mapping[str, int]], sessions: set[str]) -> list[tuple[str, int]]:
    """``[(project, calls)]``: the projects of ``projects`` (project -> {conversation: its model calls}) whose
    conversations are among ``sessions`` (:func:`folder_sessions`), each with the calls of those, most calls first,
    then by name."""
    out = [(p, sum(n for c, n in convs.items() if c in sessions)) for p, convs in projects.items()
           if isinstance(p, str) and p and any(c in sessions for c in convs)]
    return sorted(out, key=lambda x: (-x[1], x[0]))


def project_hint(projects: Mapping[str, Mapping[str, int]], given: str, root: str | os.PathLike) -> str:
    """The words the error adds for a ``--project`` ``given`` that matches none of ``projects`` (every project the
    root's calls name, before any filter: project -> {conversation: its model calls}): how asz names projects, then
    the projects of the sessions read from a folder named ``given`` in ``root``, most calls first (:func:`read_from`,
    the rule of ``asz usage`` and ``asz ls``), else the nearest (:func:`projects_near`); '' when ``given`` is a part of
    one of them (another filter, or the window, left its calls out)."""
    from ..view.match import contains

    if any(contains(p, given) for p in projects):
        return ""
    words = "asz names a project by its conversations' working directory, not by the ~/.claude/projects folder ccusage names it by"
    read = read_from(projects, folder_sessions(root, given))
    if read:
        named = ", ".join(f"{p} ({n:,} call(s))" for p, n in read[:NEAR_NAMED])
        more = f" and {len(read) - NEAR_NAMED} more" if len(read) > NEAR_NAMED else ""
        return f"{words}; the sessions read from that folder are of {named}{more}; docs/ccusage.md, Projects"
    near = projects_near(list(projects), given)
    return words + (f"; nearest: {', '.join(near)}" if near else "") + "; docs/ccusage.md, Projects"


def listed_hint(root: str | os.PathLike, hide, ids: list[str], prices, given: str) -> str:
    """``; `` and :func:`project_hint`'s words for ``asz ls --project GIVEN`` that matched none of ``ids`` (trial 50d F3:
    it said nothing of a ~/.claude/projects folder name, where ``asz usage`` named the nearest): every row's project
    with its model calls (``llm_calls``), by the rule ``asz usage`` says it by; '' when ``given`` is a part of a
    project (another filter left it out)."""
    from ..reading.listing import conversation_rows
    from ..view.row_filters import Filters

    projects: dict[str, dict[str, int]] = {}
    for row in conversation_rows(Path(root), hide, Filters(), ids=ids, prices=prices):
        if isinstance(p := row.get("project"), str) and p:
            projects.setdefault(p, {})[row["id"]] = row.get("llm_calls") if isinstance(row.get("llm_calls"), int) else 0
    hint = project_hint(projects, given, root) if projects else ""
    return f"; {hint}" if hint else ""
