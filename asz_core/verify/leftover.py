"""Temporary files writers left in a root's session directories (``.<name>.<pid>.tmp``: a writer killed, or refused
by a full disk; trial 26a F5): never landed, not checked; ``asz verify`` counts them in one note, and the next
``asz collect`` that takes their session's lock removes them (:func:`asz_core.storage.root.remove_session_temporaries`).
Those a parse left in conversation chains (``_conversations/<id>/rounds/``) and session indexes (``<session>/index/``)
are counted in a note of their own (recheck 26 N2, fixd2): the next parse of their conversation removes them, and a
pass with room after a full one those no live process owns (:func:`asz_core.storage.root.sweep_unowned_temporaries`).
A receiving root (``_received/``) is neither collected into nor parsed: there the notes say that the next ``asz
receive`` removes those no live process owns (:func:`asz_core.export.land.clear_dead_temporaries`; trial 39a F3).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.senders import RECEIVED

__all__ = ["LEFTOVER_SAID", "RECEIVING_SAID", "leftover_temporaries", "PARSE_LEFTOVER_SAID", "parse_temporaries", "leftover_notes"]

#: The note of temporary files writers left in session directories: never landed, not checked.
LEFTOVER_SAID = ("{n} temporary file(s) a writer left (.<name>.<pid>.tmp, e.g. {first}: a writer killed, or refused by a "
                 "full disk): they never landed and are not checked; the next asz collect that takes their session's "
                 "lock removes them")


#: The note of temporary files a parse left in conversation chains and session indexes: no part of either, not checked.
PARSE_LEFTOVER_SAID = ("{n} temporary file(s) a parse left in conversation chains and session indexes (.<name>.<pid>.tmp, "
                       "e.g. {first}: a parse killed, or refused by a full disk): they are no part of a chain or an "
                       "index and are not checked; the next parse of their conversation removes them, and the next "
                       "pass with room after a full file system those no live process owns")


#: What removes the temporaries of a receiving root (``_received/``), in place of a collect's or a parse's words.
RECEIVING_SAID = "the next asz receive on this root removes those no live process owns"


def _receiving(note: str, receiving: bool) -> str:
    """``note`` (:data:`LEFTOVER_SAID`, :data:`PARSE_LEFTOVER_SAID`) with its last clause, who removes the
    temporaries, :data:`RECEIVING_SAID` on a receiving root (trial 39a F3: it said the next parse would, and a
    receiving root is never parsed)."""
    if not receiving:
        return note
    return note[:note.index("; the next ")] + "; " + RECEIVING_SAID


def parse_temporaries(root: Path, session: Path | None = None) -> list[Path]:
    """The ``.<name>.<pid>.tmp`` files in ``root``'s conversation chains and session indexes
    (:func:`~asz_core.storage.root.unowned_temporaries_places`), or with ``session`` (a session directory) in its index
    and its conversation's chain of the same name alone, sorted."""
    from ..storage.layout import CONVERSATIONS
    from ..storage.root import unowned_temporaries_places

    places = (unowned_temporaries_places(root) if session is None
              else [root / CONVERSATIONS / session.name / "rounds", session / "index"])
    return sorted(_temporaries_in(places))


def _temporaries_in(places: list[Path]) -> list[Path]:
    """The ``.<name>.<pid>.tmp`` entries of each folder of ``places`` (one that does not list: none)."""
    found = []
    for d in places:
        try:
            found += [Path(e.path) for e in os.scandir(d) if e.name.startswith(".") and e.name.endswith(".tmp")]
        except OSError:
            pass
    return found


def leftover_temporaries(sessions: list[Path]) -> list[Path]:
    """The ``.<name>.<pid>.tmp`` files in ``sessions`` (session directories), their ``streams/*``, ``runs/*`` and
    ``provider_body/`` (where :func:`~asz_core.storage.root.remove_session_temporaries` looks), sorted. Walked as
    strings, a Path made only for a file found (issue 22: asz verify lists every session)."""
    found = []
    for sdir in sessions:
        base = os.fspath(sdir)
        dirs = [base, os.path.join(base, "provider_body")]
        for sub in ("streams", "runs"):
            try:
                with os.scandir(os.path.join(base, sub)) as entries:
                    dirs += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
            except OSError:
                pass
        for d in dirs:
            try:
                with os.scandir(d) as entries:
                    found += [e.path for e in entries if e.name.startswith(".") and e.name.endswith(".tmp")]
            except OSError:
                pass
    return sorted(map(Path, found))


def leftover_notes(root: Path, sessions: list[Path], one: bool, told=None, rounds: dict | None = None) -> list[str]:
    """The notes of ``asz verify``'s landed section for the temporaries writers left: :data:`LEFTOVER_SAID` for those
    in ``sessions`` (:func:`leftover_temporaries`), :data:`PARSE_LEFTOVER_SAID` for those in chains and session indexes
    (:func:`parse_temporaries`: of the one session ``sessions`` holds when ``one``, else of the whole root); [] when
    none. ``told`` (a :class:`~asz_core.verify.walk_told.Told`), when given, holds the temporaries the walk's listing
    of the sessions found, and names those whose folders are looked at here again (issue 22, session 32); ``rounds``
    (:attr:`~asz_core.flow.verify_chain.Seen.rounds`), the temporaries the chain checks' listings of chains'
    ``rounds/`` found, by chain: those are not listed again (session 40)."""
    notes = []
    receiving = (Path(root) / RECEIVED).is_dir()  # never parsed, nor collected into: asz receive clears them (39a F3)
    if told is None:
        left = leftover_temporaries(sessions)
    else:
        again = set(told.unseen)
        left = sorted([*map(Path, told.temporaries), *leftover_temporaries([s for s in sessions if s.name in again])])
    if left:
        notes.append(_receiving(LEFTOVER_SAID, receiving).format(n=len(left), first=os.path.relpath(left[0], root)))
    if told is not None and not one:
        left = _parse_temporaries_told(Path(root), sessions, told, rounds or {})
    else:
        left = parse_temporaries(Path(root), sessions[0] if one and sessions else None)
    if left:
        notes.append(_receiving(PARSE_LEFTOVER_SAID, receiving).format(n=len(left), first=os.path.relpath(left[0], root)))
    return notes


def _parse_temporaries_told(root: Path, sessions: list[Path], told, rounds: dict) -> list[Path]:
    """:func:`parse_temporaries` of the whole root whose ``sessions`` the walk listed: the session indexes ``told``
    holds the temporaries of are not listed again, nor the chains' ``rounds/`` ``rounds`` holds a listing of (by the
    chain directory's name: :class:`~asz_core.flow.chain.RoundsListed`); the other chains' ``rounds/`` and the other
    sessions' ``index/`` are looked at here. Sorted."""
    from ..storage.root import chain_rounds_places

    again = set(told.index_unseen)
    found, places = [*map(Path, told.index_temporaries)], []
    for place in chain_rounds_places(root):
        listed = rounds.get(place.parent.name)
        if listed is None:
            places.append(place)
        else:
            found += [place / name for name in listed.temporaries]
    places += [s / "index" for s in sessions if s.name in again]
    return sorted([*found, *_temporaries_in(places)])
