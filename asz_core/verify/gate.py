"""Checks that decide whether a command goes on: a folder that is no storage root, a session that does not verify.

:func:`refuse_empty_root` is what ``asz verify`` (and :func:`~asz_core.verify.walk.verify_root`) asks
first of its ``--root``; :func:`unverified` is what ``asz push`` and ``asz prune`` ask of a session before
they send or remove it (docs/push.md, docs/retention.md).
"""

from __future__ import annotations

import os
from ..termsafe import shell_word

__all__ = ["refuse_empty_root", "unverified"]


def unverified(root: str | os.PathLike, session: str, *, chains=None) -> str:
    """What ``asz verify --root ROOT SESSION`` finds wrong with one session, in one line; ``""`` when it verifies.

    The same checks as :func:`~asz_core.verify.walk.verify` limited to ``session`` (its directory
    name): landed files, cursors, its conversations' round chains, provider
    bodies; checked in this process (``jobs=1``). The line is ``N problem(s),
    the first: <problem as asz verify prints it>``. Used by ``asz push`` (a
    session that does not verify is held back, docs/push.md) and ``asz prune``
    (it is kept). ``chains``: the root's :class:`~asz_core.flow.chain.SessionChains`, read once by a caller
    asking of many sessions (one session's check then opens its own chains only, not every chain's round 1).
    Raises FileNotFoundError when the session does not exist.
    """
    from .walk import verify  # walk imports this module
    problems = verify(root, session, jobs=1, chains=chains).problems
    return f"{len(problems)} problem(s), the first: {problems[0]}" if problems else ""


def refuse_empty_root(root: str) -> None:
    """Raise FileNotFoundError (``no landed data in ROOT: nothing to verify (…)``) when the folder ``root`` holds
    nothing but hidden entries: no session directory, no ``_collect/`` (which every ``asz collect`` into it leaves,
    even one that found nothing), no ``_conversations/``, no root file. Such a folder is no storage root (a mistyped
    ``--root``), and a verdict on it would say nothing (docs/verify.md); ``asz verify`` says the message after
    ``asz verify: `` and exits 2. A folder that cannot be listed is left to the walk."""
    try:
        empty = not any(not e.name.startswith(".") for e in os.scandir(root))
    except OSError:
        return
    if empty:
        raise FileNotFoundError(f"no landed data in {root}: nothing to verify (not a storage root: nothing was ever "
                                f"collected into it; asz collect --root {shell_word(root)} makes it one)")
