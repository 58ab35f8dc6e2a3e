"""Ids typed by a person: a whole id or a unique prefix of one (issue 20).

A given id that is one of the candidates is taken as it is; otherwise it must
be the prefix of exactly one candidate. None matching and several matching
are different errors so a command can exit 1 (nothing there) or 2 (usage:
the prefix needs more characters) and list the matches.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ..storage.ids import MATCHES_SHOWN, AmbiguousId, IdError, UnknownId, resolve
from ..storage.layout import session_dirs
from ..view.document import list_conversations

__all__ = ["IdError", "AmbiguousId", "UnknownId", "resolve", "conversation_id", "session_id", "MATCHES_SHOWN",
           "SHOWN_AT_LEAST", "unique_prefixes", "shown_conversation_ids"]

#: The fewest characters of an id a list shows (a Claude Code session UUID's first group).
SHOWN_AT_LEAST = 8


def unique_prefixes(ids: Iterable[str], among: Iterable[str], least: int = SHOWN_AT_LEAST) -> dict[str, str]:
    """``{id: prefix}``: for each of ``ids``, its shortest prefix of at least ``least`` characters (the whole id when
    shorter) that is the prefix of no other id of ``among`` (the ids a command resolves a prefix against: every
    conversation of the root), so :func:`resolve` gives the id back for it (trial 15, F18: two LangSmith ids both
    shown as ``ls-trace``). Found from each id's neighbours in sorted order; an id that is a prefix of another is
    shown whole (a whole id is taken as it is)."""
    pool = sorted(set(among) | set(ids))
    at = {c: i for i, c in enumerate(pool)}
    out = {}
    for c in ids:
        i, need = at[c], least
        for j in (i - 1, i + 1):
            if 0 <= j < len(pool):
                o, n = pool[j], 0
                while n < len(c) and n < len(o) and c[n] == o[n]:
                    n += 1
                need = max(need, n + 1)
        out[c] = c[:need]
    return out


def shown_conversation_ids(root: str | os.PathLike, ids: Iterable[str]) -> dict[str, str]:
    """``{id: prefix}``: the short id a reader prints for each conversation of ``ids`` so that it can be given back
    (:func:`unique_prefixes` among every conversation of ``root``; trial 20, F10: ``asz search`` printed ``ls-trial``,
    the start of every LangSmith conversation of project ``trial20``)."""
    ids = list(ids)
    return unique_prefixes(ids, list_conversations(root)) if ids else {}


def conversation_id(root: str | os.PathLike, given: str) -> str:
    """The conversation under ``root`` that ``given`` (a whole id or a unique prefix) names. Raises :class:`IdError`."""
    return resolve(list_conversations(root), given, "conversation")


def session_id(root: str | os.PathLike, given: str) -> str:
    """The session directory under ``root`` that ``given`` names (whole or unique prefix). Raises :class:`IdError`."""
    return resolve([p.name for p in session_dirs(Path(root))], given, "session")
