"""The conversations a root lists, and those it leaves out because their ``rounds`` folder is a symbolic link: one
scan of ``<root>/_conversations`` for every reader (:mod:`asz_core.view.rows` re-exports these; ``asz verify``'s
notes read them too, so they stand in flow, below both)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..storage.layout import CONVERSATIONS, ROUNDS


def list_conversations(root: str | os.PathLike) -> list[str]:
    """Conversation ids with a rounds directory under ``<root>/_conversations``, sorted (also
    ``asz_core.view.document.list_conversations``); those of sessions ``asz erase`` erased are left out, and those
    whose chain folder or rounds is a symbolic link (nolink.py; the second: :func:`rounds_links`)."""
    return listed_and_links(root)[0]


def rounds_links(root: str | os.PathLike) -> list[str]:
    """The paths of the ``rounds`` folders of chains under ``<root>/_conversations`` that are symbolic links, sorted by
    conversation id: :func:`list_conversations` lists none of them (asz follows no link inside a root), so ``asz ls``,
    ``asz usage`` and the page say each instead (:func:`rounds_links_note`; review48: ``asz ls`` left one out with no
    word). A chain folder that is itself a link, or an erased one, is not among them (``chain_links`` names the first)."""
    return listed_and_links(root)[1]


def listed_and_links(root: str | os.PathLike) -> tuple[list[str], list[str]]:
    """``(ids listed, rounds links)`` of :func:`list_conversations` and :func:`rounds_links`: one ``scandir`` of
    ``_conversations`` and one ``lstat`` a chain folder."""
    d = Path(root) / CONVERSATIONS
    if not d.is_dir() or d.is_symlink():
        return [], []
    return conversations_scan(root)[:2]


def conversations_scan(root: str | os.PathLike) -> tuple[list[str], list[str], int]:
    """:func:`listed_and_links`'s two lists and how many entries of ``_conversations`` are symbolic links (the page
    counts them: ``asz view``'s list note), from one ``scandir``; OSError when ``_conversations`` does not list."""
    from ..storage.erased_list import erased_names

    d = Path(root) / CONVERSATIONS
    if d.is_symlink():
        return [], [], 0
    gone = erased_names(root)
    out, links, entry_links = [], [], 0
    with os.scandir(d) as entries:  # a chain folder or its rounds that is a symbolic link is none (nolink.py)
        for e in entries:
            if e.is_symlink():
                entry_links += 1
            elif e.is_dir(follow_symlinks=False) and e.name not in gone:
                path = os.path.join(e.path, ROUNDS)
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISDIR(mode):
                    out.append(e.name)
                elif stat.S_ISLNK(mode):
                    links.append(path)
    return sorted(out), sorted(links), entry_links


#: How many conversations :func:`rounds_links_note` names with their link and the way back.
LINKS_NAMED = 3


def rounds_links_note(links: list[str], left_out: str = "listed") -> str:
    """The line saying the conversations of :func:`rounds_links` are not ``left_out`` (``listed``, ``counted``): each
    (the first :data:`LINKS_NAMED`) by its id, its link's target and the way back
    (:func:`~asz_core.sessiondata.nolink.link_said`, ``asz verify``'s ``chain`` problem's words); '' when none."""
    from ..sessiondata.nolink import link_said

    if not links:
        return ""
    n = len(links)
    said = "; ".join(f"{os.path.basename(os.path.dirname(p))}: {link_said(p, 'the rounds folder')}" for p in links[:LINKS_NAMED])
    more = f"; and {n - LINKS_NAMED} more (asz verify names each)" if n > LINKS_NAMED else ""
    return (f"{n} conversation(s) not {left_out}: {'its' if n == 1 else 'their'} rounds folder is a symbolic link "
            f"({said}{more})")
