"""Ids typed by a person: a whole id or a unique prefix of one (issue 20).

A given id that is one of the candidates is taken as it is; otherwise it must
be the prefix of exactly one candidate. None matching and several matching
are different errors so a command can exit 1 (nothing there) or 2 (usage:
the prefix needs more characters) and list the matches. The commands
(:mod:`asz_core.reading.ids`) and the page server (:mod:`asz_core.view.state`)
resolve ids with this one rule.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Callable, Iterable, Sequence

__all__ = ["IdError", "AmbiguousId", "UnknownId", "resolve", "MATCHES_SHOWN", "SHOWN_AT_LEAST", "fixed_head", "shown_names",
           "named", "nearly_whole", "unique_prefixes"]

#: The fewest characters of an id a list or a note shows (a Claude Code session UUID's first group).
SHOWN_AT_LEAST = 8

#: An ambiguous prefix's error lists at most this many matches.
MATCHES_SHOWN = 20


class IdError(LookupError):
    """An id that names no single candidate; ``matches`` are the candidates it could mean (empty when none)."""

    exit_code = 1

    def __init__(self, message: str, matches: list[str]):
        self.matches = matches
        super().__init__(message)


class UnknownId(IdError):
    """No candidate is or starts with the id (exit 1: nothing found)."""


class AmbiguousId(IdError):
    """The id is the prefix of several candidates (exit 2: usage, type more of it)."""

    exit_code = 2


def resolve(candidates: Iterable[str], given: str, what: str) -> str:
    """The candidate ``given`` names: itself when listed, else the one it is a prefix of; a prefix that starts none as
    typed starts those it starts in any case (ids are lowercase hex and UUIDs: ``7D2F`` is ``7d2f…``; trial 39d F3),
    so an id that needs its case (a mixed-case one) is still told apart by typing it so.

    ``what`` names the kind of id in messages ("conversation", "session").
    Raises :class:`UnknownId` (none) or :class:`AmbiguousId` (several; the
    message lists up to :data:`MATCHES_SHOWN` of them, all are in ``matches``).
    """
    listed = list(candidates)
    if given in listed:
        return given
    matches = sorted(c for c in listed if given and c.startswith(given))
    if not matches and given:
        matches = sorted(c for c in listed if c.casefold().startswith(given.casefold()))
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UnknownId(f"no {what} is or starts with {given!r}", [])
    shown = ", ".join(matches[:MATCHES_SHOWN]) + (f" and {len(matches) - MATCHES_SHOWN} more" if len(matches) > MATCHES_SHOWN else "")
    raise AmbiguousId(f"{given!r} is the start of {len(matches)} {what}s: {shown}; type more of it", matches)


_FIXED_HEAD = re.compile(r"[A-Za-z]{2,8}_")


def fixed_head(c: str) -> int:
    """How many leading characters of id ``c`` are a word every id of its runtime starts with, ``WORD_`` (2 to 8
    letters, then ``_``: Kiro IDE's ``sess_``), which tells no two of them apart: :func:`shown_names` counts its
    :data:`SHOWN_AT_LEAST` after it, so ``sess_5e804080-…`` shows ``sess_5e804080``, not ``sess_5e8`` (trial 36b F10).
    0 for any other id (a UUID, ``ls-trace-…``)."""
    m = _FIXED_HEAD.match(c)
    return m.end() if m else 0


def shown_names(among: Iterable[str], least: int = SHOWN_AT_LEAST) -> Callable[[str], str]:
    """A function giving an id its shortest prefix of at least ``least`` characters (past a runtime's fixed head,
    :func:`fixed_head`; the whole id when shorter) that
    is the prefix of no other id of ``among`` (the ids a command resolves a prefix against), so :func:`resolve` gives
    the id back for it: what every list and note prints of an id a person may type back (trial 15, F18; trial 20,
    F10). Found from the id's two neighbours in sorted order; an id that is a prefix of another is shown whole (a whole
    id is taken as it is), and so is one whose prefix would reach into its last group (:func:`nearly_whole`). An id not in ``among`` is measured against it alone."""
    pool = sorted(set(among))

    def shown(c: str) -> str:
        i = bisect_left(pool, c)
        after = i + 1 if i < len(pool) and pool[i] == c else i
        need = least + fixed_head(c)
        for o in pool[i - 1:i] + pool[after:after + 1]:
            n = 0
            while n < len(c) and n < len(o) and c[n] == o[n]:
                n += 1
            need = max(need, n + 1)
        return c if nearly_whole(c, need) else c[:need]

    return shown


def nearly_whole(c: str, need: int) -> bool:
    """True when id ``c``'s first ``need`` characters (fewer than all) reach into its last ``-``-separated group (a
    UUID's twelve hex digits), so that they would read as a whole id: :func:`shown_names` then shows ``c`` whole
    (trial 43c F9: ``f1e1d000-0000-4000-8000-00000000004``, the prefix of ``…000000000040``, read as the whole id of
    ``…000000000004``)."""
    last = c.rfind("-")
    return 0 <= last < need - 1 < len(c) - 1


def named(lists: Sequence[list[dict]], among: Iterable[str]) -> list[list[dict]]:
    """Each of ``lists`` (entries ``{"conversation": id, …}``) with ``name`` added to every entry: :func:`shown_names`
    of its id among ``among``, how ``asz usage`` names it (``/api/usage``'s lists, which the page prints)."""
    shown = shown_names(among)
    return [[{**e, "name": shown(e["conversation"])} for e in entries] for entries in lists]


def unique_prefixes(ids: Iterable[str], among: Iterable[str], least: int = SHOWN_AT_LEAST) -> dict[str, str]:
    """``{id: prefix}``: :func:`shown_names` of each of ``ids`` among ``among`` and ``ids`` together."""
    ids = list(ids)
    shown = shown_names([*among, *ids], least)
    return {c: shown(c) for c in ids}
