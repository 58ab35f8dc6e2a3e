"""Ids typed by a person: a whole id or a unique prefix of one (issue 20).

A given id that is one of the candidates is taken as it is; otherwise it must
be the prefix of exactly one candidate. None matching and several matching
are different errors so a command can exit 1 (nothing there) or 2 (usage:
the prefix needs more characters) and list the matches.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from ..storage.ids import MATCHES_SHOWN, SHOWN_AT_LEAST, AmbiguousId, IdError, UnknownId, resolve, shown_names, unique_prefixes
from ..storage.layout import session_dirs
from ..view.rows import list_conversations

__all__ = ["IdError", "near_ids", "AmbiguousId", "UnknownId", "resolve", "conversation_id", "session_id", "MATCHES_SHOWN",
           "SHOWN_AT_LEAST", "unique_prefixes", "shown_conversation_ids", "conversation_names",
           "session_names", "shown_names"]


def near_ids(known: Iterable[str], given: str) -> list[str]:
    """The ids of ``known`` whose start, as long as ``given``, is nearest to it (:func:`difflib.get_close_matches`,
    ratio 0.75 or more, at most three, nearest first): what a mistyped id or prefix meant, ``15d9bd0f`` for
    ``15d9bd0e-…`` (trial 33a F7). ``[]`` for an empty ``given`` or none near."""
    from difflib import get_close_matches

    by_start: dict[str, list[str]] = {}
    for k in known if given else ():
        by_start.setdefault(k[:len(given)], []).append(k)
    return [k for m in get_close_matches(given, list(by_start), n=3, cutoff=0.75) for k in by_start[m]][:3]


def shown_conversation_ids(root: str | os.PathLike, ids: Iterable[str]) -> dict[str, str]:
    """``{id: prefix}``: the short id a reader prints for each conversation of ``ids`` so that it can be given back
    (:func:`unique_prefixes` among every conversation of ``root``; trial 20, F10: ``asz search`` printed ``ls-trial``,
    the start of every LangSmith conversation of project ``trial20``)."""
    ids = list(ids)
    return unique_prefixes(ids, list_conversations(root)) if ids else {}


def conversation_names(root: str | os.PathLike) -> Callable[[str], str]:
    """:func:`~asz_core.storage.ids.shown_names` among every conversation of ``root``: how a note names a conversation
    so that it can be given back to ``asz conversation`` (and every reader's id)."""
    return shown_names(list_conversations(root))


def session_names(root: str | os.PathLike) -> Callable[[str], str]:
    """:func:`~asz_core.storage.ids.shown_names` among every conversation and every session directory of ``root``: how
    a note names a session (a session's id is its conversation's, or a continuation's own) so that it can be given
    back to a reader or to ``asz verify``/``asz parse``."""
    return shown_names([*list_conversations(root), *(p.name for p in session_dirs(Path(root)))])


def conversation_id(root: str | os.PathLike, given: str) -> str:
    """The conversation under ``root`` that ``given`` (a whole id or a unique prefix) names. Raises :class:`IdError`;
    :class:`UnknownId` names the erasure when ``given`` is the id of one ``asz erase`` erased (:func:`_erased`)."""
    return _erased(root, given, lambda: resolve(list_conversations(root), given, "conversation"))


def session_id(root: str | os.PathLike, given: str) -> str:
    """The session directory under ``root`` that ``given`` names (whole or unique prefix). Raises :class:`IdError`,
    as :func:`conversation_id` does."""
    return _erased(root, given, lambda: resolve([p.name for p in session_dirs(Path(root))], given, "session"))


def _erased(root: str | os.PathLike, given: str, find: Callable[[], str]) -> str:
    """``find()``; its :class:`UnknownId` (``no conversation is or starts with 'ID'``, exit 1) followed by the
    erasure when ``given`` is or starts an id ``root``'s ``_erased.list`` names
    (:func:`~asz_core.storage.erased_list.erased_id_said`): a lawful erasure never reads as a typo (trial 32b, F7)."""
    try:
        return find()
    except UnknownId as exc:
        from ..storage.erased_list import erased_id_said

        said = erased_id_said(root, given)
        if not said:
            raise
        raise UnknownId(f"{exc}{said}", exc.matches) from None
