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

__all__ = ["IdError", "AmbiguousId", "UnknownId", "resolve", "conversation_id", "session_id", "MATCHES_SHOWN"]

def conversation_id(root: str | os.PathLike, given: str) -> str:
    """The conversation under ``root`` that ``given`` (a whole id or a unique prefix) names. Raises :class:`IdError`."""
    return resolve(list_conversations(root), given, "conversation")


def session_id(root: str | os.PathLike, given: str) -> str:
    """The session directory under ``root`` that ``given`` names (whole or unique prefix). Raises :class:`IdError`."""
    return resolve([p.name for p in session_dirs(Path(root))], given, "session")
