"""What ``asz usage`` adds when ``--project`` matches nothing (trial 48a F6): asz names a project by its conversations'
working directory (``cwd``), where ccusage names it by the folder under ``~/.claude/projects`` that Claude Code made from
the directory a session started in (``-home-user-spotter``: each character that is not a letter or a digit made ``-``).
A folder's name does not say which working directories its sessions had (a worktree, a ``cd`` in a session: trial 38b's
folder ``-home-user-spotter`` was two asz projects), so it is not taken as a project; the error says how asz names
projects and the nearest ones the root holds (docs/ccusage.md, Projects)."""

from __future__ import annotations

from difflib import get_close_matches
from typing import Iterable

__all__ = ["folder_namers", "folder_forms", "projects_near", "project_hint", "NEAR_NAMED"]

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


def project_hint(projects: Iterable[str], given: str) -> str:
    """The words the error adds for a ``--project`` ``given`` that matches none of ``projects`` (every project the
    root's calls name, before any filter): how asz names projects and the nearest (:func:`projects_near`); '' when
    ``given`` is a part of one of them (another filter, or the window, left its calls out)."""
    from ..view.match import contains

    projects = list(projects)
    if any(contains(p, given) for p in projects):
        return ""
    near = projects_near(projects, given)
    return ("asz names a project by its conversations' working directory, not by the ~/.claude/projects folder "
            "ccusage names it by" + (f"; nearest: {', '.join(near)}" if near else "") + "; docs/ccusage.md, Projects")
