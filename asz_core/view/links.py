"""Links between sessions and records the document says, never hides (issue 18): resumed sessions, shared ids, dangling parents.

All three are read from the landed records' ids (a session's index, never a
payload) when a document is built; rounds stay a pure function of one session.

- **continues**: two sessions share record ids. The one whose own records (ids
  the other does not hold) start later *continues* the other: a resumed
  session file that repeats the earlier session's records with their ids and
  then goes on. A session with no record of its own is the earlier one. The
  document of either gets a relation ``{"type": "continues", "from":
  "conversation/<later>", "to": "conversation/<earlier>" (a conversation is named by its session's id), "quality":
  "exact_unique", "via": "<N> record ids repeated", "evidence": [<first
  repeated record in the later session>]}``; the later one's records repeated
  from the earlier one are counted there and not again (usage, ``repeated``).
  A continuation opens by repeating: the later session's first record with an
  id is one the earlier holds.
- **shared_id**: a record id also landed in another session when neither opens
  by repeating the other: an ``unresolved`` entry ``unres/shared_id/<id>``.
- **parent**: a record whose ``parent`` names an id no landed record of the
  session (or of a session it continues) carries: ``unres/parent/<id>``.

The session's own ids are read from the records the document holds; other
sessions' from their indexes, read with :func:`~asz_core.flow.index.load_index`
(``rebuild=False``: nothing is written; an index of an older schema reads as
empty until the next parse rebuilds it) and kept per process while their
``index.state`` is unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..flow.index import INDEX_DIR, SET_ASIDE_KINDS, load_index
from ..flow.model import Ref, make_id
from ..sessiondata.times import parse_instant

__all__ = ["Links", "find_links", "own_ids"]

_CACHE: dict[str, tuple[tuple[int, int], dict[str, tuple[int, int, int | None]]]] = {}


class Links:
    """What :func:`find_links` found for one session: ``relations`` (document relation dicts),
    ``unresolved`` (document unresolved dicts), ``repeated`` (positions (seq, row) of this session's
    records repeated from a session it continues) and ``earlier`` (that session's id, or '')."""

    def __init__(self) -> None:
        self.relations: list[dict] = []
        self.unresolved: list[dict] = []
        self.repeated: set[tuple[int, int]] = set()
        self.earlier = ""


def _ids(session_dir: Path) -> dict[str, tuple[int, int, int | None]]:
    """Record id → (seq, row, time ns) of a session's first landed copy, from its index (cached by index.state)."""
    state = session_dir / INDEX_DIR / "index.state"
    try:
        st = state.stat()
    except OSError:
        return {}
    key = (st.st_mtime_ns, st.st_size)
    hit = _CACHE.get(str(session_dir))
    if hit is not None and hit[0] == key:
        return hit[1]
    out: dict[str, tuple[int, int, int | None]] = {}
    try:
        ix = load_index(session_dir, rebuild=False)
    except (OSError, ValueError, RuntimeError):
        return {}
    for e in ix.entries:
        if e.id and e.kind not in SET_ASIDE_KINDS:
            out.setdefault(e.id, (e.seq, e.row, e.ts))
    _CACHE[str(session_dir)] = (key, out)
    return out


def _first_own(ids: dict[str, tuple[int, int, int | None]], shared: set[str]) -> int:
    """The earliest time of a record whose id the other session does not hold: -1 when there is none (the
    earlier session), 0 when none of them carries a time."""
    own = [t for i, (_, _, t) in ids.items() if i not in shared]
    if not own:
        return -1
    times = [t for t in own if t is not None]
    return min(times) if times else 0


def own_ids(records: dict[int, list[dict]]) -> dict[str, tuple[int, int, int | None]]:
    """Record id → (seq, row, time ns) of the first landed copy, from a document's records (seq → rows)."""
    out: dict[str, tuple[int, int, int | None]] = {}
    for seq in sorted(records):
        for row, rec in enumerate(records[seq], 1):
            rid = rec.get("id")
            if rid and rid not in out:
                out[rid] = (seq, row, parse_instant(rec.get("time")))
    return out


def find_links(root: str | os.PathLike, session: str, records: dict[int, list[dict]]) -> Links:
    """The links of ``session`` under storage ``root`` (see the module docstring).

    ``records`` are the session's landed records the document reads (seq →
    rows): its own ids and parents come from them, never from an index that
    may be stale; the other sessions' ids come from their indexes.
    """
    root = Path(root)
    links = Links()
    mine = own_ids(records)
    parents = [(r.get("id", ""), r.get("parent", "")) for seq in sorted(records) for r in records[seq]]
    known = set(mine)
    others = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")) and p.name != session) if mine else []
    for other in others:
        theirs = _ids(root / other)
        shared = {i for i in mine if i in theirs}
        if not shared:
            continue
        known |= set(theirs)
        mine_own, their_own = _first_own(mine, shared), _first_own(theirs, shared)
        later, earlier = (session, other) if (mine_own, session) > (their_own, other) else (other, session)
        later_ids = mine if later == session else theirs
        opening = min(later_ids.values(), key=lambda x: (x[0], x[1]))
        first = min((later_ids[i] for i in shared), key=lambda x: (x[0], x[1]))
        if first != opening:
            # not a session that opens by repeating another: each shared id is said, not explained away
            for i in sorted(shared):
                links.unresolved.append({"id": make_id("unres", "shared_id", i), "kind": "shared_id", "ref": i,
                                         "reason": f"record id also landed in session {other}", "state": "open"})
            continue
        links.relations.append({
            "id": make_id("rel", "continues", f"conversation/{later}", f"conversation/{earlier}"), "type": "continues",
            "from": f"conversation/{later}", "to": f"conversation/{earlier}", "quality": "exact_unique",
            "via": f"{len(shared)} record ids of the earlier session repeated at the start of the later one",
            "evidence": [Ref(first[0], first[1]).as_dict()] if later == session else [],
        })
        if later == session:
            links.earlier = earlier
            links.repeated |= {(mine[i][0], mine[i][1]) for i in shared}
    seen: set[str] = set()
    for rid, parent in parents:
        if parent and parent not in known and parent not in seen:
            seen.add(parent)
            links.unresolved.append({"id": make_id("unres", "parent", parent), "kind": "parent", "ref": parent,
                                     "reason": f"record {rid} names a parent that no landed record carries", "state": "open"})
    return links
