"""The ids of a root's sessions as one parse pass reads them, read once (issue 18; trial 17, F18; session 18).

Split from :mod:`asz_core.flow.shared_ids` (the root's id table and the links read from it), which re-exports
:func:`forget_seen` and :data:`SEEN_MAX_IDS`. :func:`their_ids` gives each candidate session's :func:`first_ids`,
loading its index once a pass while the table counts the same entries for it; sessions whose ids read the same
(:func:`_signature`) share one dict, so N copies of one history hold one set of ids. Memory: at most
:data:`SEEN_MAX_IDS` ids held.
"""

from __future__ import annotations

from pathlib import Path

from .index import SET_ASIDE_KINDS, Index, IndexEntry, load_index, payload_key

__all__ = ["SEEN_MAX_IDS", "keyed", "first_ids", "keep_ids", "their_ids", "forget_seen"]


def keyed(e: IndexEntry) -> bool:
    """True for an entry with a record id in the ids' space: a stream's or run's record, not one set aside."""
    return bool(e.id) and e.kind not in SET_ASIDE_KINDS


def first_ids(index: Index) -> dict[str, IndexEntry]:
    """Record id → its first landed entry (landed order), stream and run records only."""
    out: dict[str, IndexEntry] = {}
    for e in index.entries:
        if keyed(e) and e.id not in out:
            out[e.id] = e
    return out


#: Per process, per parse pass (:func:`prepare` empties it): root → (session name, its entries as the root's table
#: counts them when read) → its :func:`first_ids`. Sessions whose ids read the same (:func:`_signature`) share one
#: dict, kept once in :data:`_BY_SIGNATURE`, so N copies of one history hold one set of ids and a session is compared
#: with them once (trial 17, F18; session 18).
_HELD: dict[str, dict[tuple[str, int], dict[str, IndexEntry]]] = {}
_BY_SIGNATURE: dict[tuple, dict[str, IndexEntry]] = {}
_held_ids = 0
#: Ids :data:`_BY_SIGNATURE` holds at most (about 30 MB); past that a session's index is loaded each time it is a candidate.
SEEN_MAX_IDS = 100_000


def _signature(ids: dict[str, IndexEntry]) -> tuple:
    """What :func:`~asz_core.flow.shared_ids.session_links` compares (its pairing) of a session's ids: the id of its first record (landed order) and, per id, the
    record's parent, time, call, kind, stream (:func:`~asz_core.flow.shared_ids._first_own` reads it), payload
    (:func:`~asz_core.flow.index.payload_key`) and content digests (both: :func:`~asz_core.flow.index.same_content`
    reads either). Two sessions with one signature say the same of any third."""
    first = min(ids.values(), key=lambda e: (e.seq, e.row)).id if ids else ""
    return first, frozenset([(i, e.parent, e.ts, e.call, e.kind, e.stream, payload_key(e), e.parts_digest, e.parts_digest_unnamed)
                             for i, e in ids.items()])


def keep_ids(root: Path, session: str, entries: int, ids: dict[str, IndexEntry]) -> dict[str, IndexEntry]:
    """Hold ``ids`` as the ``root``'s ``session``'s while the table counts ``entries`` for it; returns the dict held for
    its signature (``ids`` itself when it is the first, or when :data:`SEEN_MAX_IDS` is reached: then nothing is held)."""
    global _held_ids
    sig = _signature(ids)
    same = _BY_SIGNATURE.get(sig)
    if same is None:
        if _held_ids + len(ids) > SEEN_MAX_IDS:
            return ids
        _BY_SIGNATURE[sig] = same = ids
        _held_ids += len(ids)
    _HELD.setdefault(str(root), {})[(session, entries)] = same
    return same


def their_ids(root: Path, candidates: list[tuple[str, int]]) -> tuple[list[tuple[str, int]], list[dict[str, IndexEntry]]]:
    """The candidates (``(name, entries)``, the table's count of the session's entries) whose ids can be read, and
    for each its :func:`first_ids` of ``load_index(root / name, rebuild=False)``: read once a pass while the table
    counts the same entries for the session (any process that grows a session's index adds its entries to the
    table: :func:`add_session`). A candidate whose index cannot be read (OSError, ValueError, RuntimeError) is left
    out. Every candidate held: one ``dict.get`` each, no Python code per candidate."""
    got = list(map(_HELD.setdefault(str(root), {}).get, candidates))
    if None not in got:
        return candidates, got
    kept: list[tuple[str, int]] = []
    kept_ids: list[dict[str, IndexEntry]] = []
    for c, ids in zip(candidates, got):
        if ids is None:
            try:
                ids = keep_ids(root, c[0], c[1], first_ids(load_index(root / c[0], rebuild=False)))
            except (OSError, ValueError, RuntimeError):
                continue
        kept.append(c)
        kept_ids.append(ids)
    return kept, kept_ids


def forget_seen() -> None:
    """Drop what :func:`their_ids` keeps (parse's :func:`prepare` starts each parse with nothing kept)."""
    global _held_ids
    _HELD.clear()
    _BY_SIGNATURE.clear()
    _held_ids = 0
