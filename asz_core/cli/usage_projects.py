"""What ``asz usage`` adds when ``--project`` matches nothing (trial 48a F6): asz names a project by its conversations'
working directory (``cwd``), where ccusage names it by the folder under ``~/.claude/projects`` that Claude Code made from
the directory a session started in (``-home-user-spotter``: each character that is not a letter or a digit made ``-``).
A folder's name does not say which working directories its sessions had (a worktree, a ``cd`` in a session: trial 38b's
folder ``-home-user-spotter`` was two asz projects), so it is not taken as a project; the error says how asz names
projects and the nearest ones the root holds (docs/ccusage.md, Projects)."""

from __future__ import annotations

import re
from difflib import get_close_matches
from typing import Iterable

__all__ = ["folder_form", "projects_near", "project_hint", "NEAR_NAMED"]

#: How many projects the hint names, nearest first.
NEAR_NAMED = 3


def folder_form(project: str) -> str:
    """``project`` (a working directory) as Claude Code names its folder under ``~/.claude/projects``: each character
    that is not an ASCII letter or digit made ``-`` (``/home/user/spotter`` -> ``-home-user-spotter``)."""
    return re.sub(r"[^A-Za-z0-9]", "-", project)


def projects_near(projects: Iterable[str], given: str) -> list[str]:
    """Up to :data:`NEAR_NAMED` of ``projects`` nearest ``given``, nearest first: those whose folder form
    (:func:`folder_form`) is ``given`` (case-insensitive), then those whose folder form contains it, then the closest
    by spelling (:func:`difflib.get_close_matches` over the paths and their folder forms, ratio 0.6 or more); each
    group by name."""
    names = sorted({p for p in projects if isinstance(p, str) and p})
    want = given.casefold()
    same = [p for p in names if folder_form(p).casefold() == want]
    within = [p for p in names if want in folder_form(p).casefold() and p not in same]
    forms = {**{p.casefold(): p for p in names}, **{folder_form(p).casefold(): p for p in names}}
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
