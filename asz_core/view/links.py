"""Links between sessions the document says, never hides (issue 18): resumed sessions, read from the chain.

Parse works them out (:mod:`asz_core.flow.shared_ids`, :mod:`asz_core.flow.asm_links`) and the
rounds carry them, so every reader of a chain sees the same links, the list's counts included:

- a ``continues`` relation ``{"from": "conversation/<later>", "to": "conversation/<earlier>"}``
  in both sessions' chains; in the later one, its evidence is every record repeated from the
  earlier session (no node draws them here: the document lists each in ``not_drawn`` as a
  ``duplicate`` whose ``of`` names the earlier conversation and the record id), plus, when a record's
  parent is a record of the earlier session, the records naming it (drawn: their nodes cite them);
- a ``continues`` relation ``{"from": "call/<id>", "to": "conversation/<later>"}``: a model call drawn here
  all of whose records the later session repeats while it holds the call's later lines, the last with its
  final usage (a copy cut after a streamed message's first line): counted there only (``going_on``; trial
  33a F1);
- an id shared by two sessions neither continues (or naming different records in each) is the
  chain's ``unresolved`` entry ``unres/shared_id/<id>``;
- a parent no landed record carries, in this session or (by a ``continues`` relation) another, is an
  ``unresolved`` entry ``unres/parent/<id>`` of the document only (:func:`dangling_parents`): the
  chain holds none, as the original's do (conformance scenario ``lost-records``).

:func:`links_of` reads the links from a fold; nothing here opens another session.
"""

from __future__ import annotations

from operator import methodcaller

from typing import Callable, Iterable

from ..flow.asm_links import SHARED_REASON
from ..flow.fold import Fold
from ..flow.model import Node, make_id
from .conflict_fields import OLD_WORDS
from ..storage.twice_list import counted_there

__all__ = ["Links", "links_of", "dangling_parents", "shares_of", "conflict_lines", "CONFLICT_ACROSS", "calls_there", "there_split", "PREFIX", "CALL_PREFIX"]

_GET_ID = methodcaller("get", "id")
_GET_PARENT = methodcaller("get", "parent")
#: How a relation names a conversation.
PREFIX = "conversation/"
#: How a relation names a model call (an ``llm.call`` node).
CALL_PREFIX = "call/"


class Links:
    """What a chain says about other sessions: ``earlier`` (sessions this one continues, sorted),
    ``later`` (sessions continuing this one, sorted) and ``evidence`` ((seq, row) of each record cited by
    a ``continues`` relation to an earlier session → that session) and ``going_on`` (``llm.call`` node id → the later
    session that holds the call's last line and counts it)."""

    def __init__(self) -> None:
        self.going_on: dict[str, str] = {}
        self.earlier: list[str] = []
        self.later: list[str] = []
        self.evidence: dict[tuple[int, int], str] = {}


def links_of(fold: Fold) -> Links:
    """The :class:`Links` of a fold's ``continues`` relations (its head names the conversation)."""
    links = Links()
    here = PREFIX + (fold.head.conversation if fold.head is not None else "")
    for r in sorted(fold.relations.values(), key=lambda r: r.id):
        if r.type != "continues" or not r.to.startswith(PREFIX):
            continue
        if r.from_.startswith(CALL_PREFIX):  # a call that goes on in a later session, counted there (trial 33a F1)
            links.going_on[r.from_] = r.to[len(PREFIX):]
            continue
        if not r.from_.startswith(PREFIX):
            continue
        if r.from_ == here:
            other = r.to[len(PREFIX):]
            links.earlier.append(other)
            for ref in r.evidence:
                links.evidence.setdefault((ref.seq, ref.row), other)
        elif r.to == here:
            links.later.append(r.from_[len(PREFIX):])
    links.earlier.sort()
    links.later.sort()
    return links


def dangling_parents(records: dict[int, list[dict]], links: Links, gathered: tuple[dict[int, list], dict[int, list]] | None = None) -> list[dict]:
    """Open ``unres/parent/<id>`` entries (document ``unresolved`` dicts) for each parent that no record of
    ``records`` (seq → rows; the session's stream and run records) carries, unless the record naming it is
    evidence of a ``continues`` relation (its parent is in the session this one continues), sorted by id.
    ``gathered``: ``(ids, parents)``, seq → each record's ``id`` and ``parent`` field (None where it has none) in
    row order, when the caller read them already (:class:`~asz_core.view.session_records.LandedSession`)."""
    ids: set = set()  # every record's id (None and '' too: a parent asked about is never empty), gathered in C
    parents: set = set()
    if gathered is not None:
        for seq in records:
            ids.update(gathered[0][seq])
            parents.update(gathered[1][seq])
    else:
        for recs in records.values():
            ids.update(map(_GET_ID, recs))
            parents.update(map(_GET_PARENT, recs))
    if not any(parents - ids):  # every parent named is carried (most sessions): no record needs looking at
        return []
    out: dict[str, dict] = {}
    for seq in sorted(records):
        for row, rec in enumerate(records[seq], 1):
            parent = rec.get("parent")
            if not parent or parent in ids or parent in out or (seq, row) in links.evidence:
                continue
            out[parent] = {"id": make_id("unres", "parent", parent), "kind": "parent", "ref": parent,
                           "reason": f"record {rec.get('id') or f'{seq}/{row}'} names a parent that no landed record carries",
                           "state": "open"}
    return [out[k] for k in sorted(out, key=lambda p: out[p]["id"])]


def shares_of(fold: Fold, ids: dict[int, list], calls: Iterable[Node], links: Links | None = None) -> dict | None:
    """What the fold's open ``unres/shared_id/<id>`` entries share, for a list row's ``shares`` (session 23):
    ``{"with": [the other conversations' ids, sorted], "ids": how many record ids, "calls": how many of ``calls`` (the
    conversation's ``llm.call`` nodes) cite a record with such an id}``, None when it shares none. ``ids``: seq -> each
    landed record's id in row order. Neither conversation continues the other, so each draws and counts those records
    and their calls (a sum over both rows counts them twice; ``asz usage``'s totals count each provider call once:
    :func:`~asz_core.view.usage_report.once`). With ``links``, ``"differ"``: how many of those ids a session this one
    continues, or one continuing it, holds with another payload (:func:`conflict_lines`; only when there are some)."""
    shared = _shared_entries(fold)
    if not shared:
        return None
    n = 0
    for node in calls:
        for r in node.refs or ([node.ref] if node.ref else []):
            row_ids = ids.get(r.seq)
            if row_ids is not None and 0 < r.row <= len(row_ids) and row_ids[r.row - 1] in shared:
                n += 1
                break
    related = set(links.earlier) | set(links.later) if links is not None else set()
    out = {"with": sorted({o for others in shared.values() for o in others}), "ids": len(shared), "calls": n}
    if differ := sum(1 for others in shared.values() if related.intersection(others)):
        out["differ"] = differ
    return out


#: How a ``summary.problems`` line for a record id another copy of the session holds with another payload starts.
CONFLICT_ACROSS = "conflict: record id "


def _shared_entries(fold: Fold) -> dict[str, list[str]]:
    """Record id → the other sessions its open ``unres/shared_id/<id>`` entry names (the reason's list)."""
    return {u.ref: u.reason[len(SHARED_REASON):].split(", ") for u in fold.unresolved.values()
            if u.kind == "shared_id" and u.state == "open" and u.reason.startswith(SHARED_REASON)}


def conflict_lines(fold: Fold, links: Links, records: dict[int, list[dict]],
                   apart: Callable[[str, list[str]], str] | None = None) -> list[str]:
    """The ``summary.problems`` lines of the records this conversation holds under an id that a session it continues,
    or one continuing it, holds too with another payload (an open ``unres/shared_id/<id>`` entry naming a session a
    ``continues`` relation links: the same record would be repeated, drawn there; trial 40a F1: a copy with one
    ``tool_result`` changed to failed): ``conflict: record id ID landed at S/R here (its result failed here) and in
    session(s) A, B WHAT; each session draws its own``, in landed order, WHAT ``apart(id, sessions)``: the fields
    that differ (:func:`~asz_core.view.conflict_fields.across_said`, ``read under another model call (its call: X
    here, Y in A)``; trial 48c F4), or without it ``with a different payload``. ``records``: seq → rows (the landed
    session's). [] when none (nearly always: no shared id)."""
    related = set(links.earlier) | set(links.later)
    shared = {i: others for i, others in _shared_entries(fold).items() if related.intersection(others)} if related else {}
    out = []
    for seq in sorted(records) if shared else ():
        for row, rec in enumerate(records[seq], 1):
            others = shared.pop(rec.get("id") or "", None)
            if others is None:
                continue
            failed = [p for p in rec.get("parts") or () if isinstance(p, dict) and p.get("k") == "result" and p.get("failed")]
            out.append(f"{CONFLICT_ACROSS}{rec['id']} landed at {seq}/{row} here" + (" (its result failed here)" if failed else "")
                       + f" and in session(s) {', '.join(others)} {apart(rec['id'], others) if apart else OLD_WORDS}; each session draws its own")
    return out


def calls_there(sess, nodes: dict[str, Node], calls: Iterable[str], links: Links | None = None) -> dict[str, str]:
    """llm.call node id (of ``calls``, among ``nodes``) -> the session that counts it, not this one: the one decision of
    every reader's figures (``asz ls``, ``asz usage``, ``asz conversation``, the page, ``/api/usage``, the exports).

    - A call that goes on in a later session (``links.going_on``, from the chain: all its records here are repeated
      there and the later lines, the last with its final usage, landed there only) is counted in that session, once,
      from its last line (reader-anchors.md, Token counts; trial 33a F1). Its node stays drawn here.
    - A call every record of which a
    receiving root's ``_received/twice.list`` names as repeated from an earlier session
    (:func:`~asz_core.storage.twice_list.counted_there`; ``sess``: the
    :class:`~asz_core.view.session_records.LandedSession`, whose ``ids`` give each record's id). Such a session's
    rounds were assembled on a host that did not hold the earlier one, so they draw the calls it repeats; the figures
    count them there only, as one root holding both does (trial 28a F1). The nodes stay drawn: the rounds are the
    host's evidence (one stat of the list's file).

    ``{}`` when neither applies (nearly always)."""
    out: dict[str, str] = {}
    if links is not None and links.going_on:
        out = {nid: links.going_on[nid] for nid in calls if nid in links.going_on}
    repeated = counted_there(sess.root, sess.session)
    if not repeated:
        return out
    ids = sess.ids
    for nid in calls:
        n = nodes[nid]
        got = []
        for r in n.refs or ([n.ref] if n.ref else []):
            row_ids = ids.get(r.seq) or ()
            got.append(row_ids[r.row - 1] if 0 < r.row <= len(row_ids) else None)
        if got and all(i in repeated for i in got):
            out[nid] = repeated[got[0]]
    return out


def there_split(there: dict[str, str], links: Links) -> tuple[dict[str, str], dict[str, str]]:
    """``(earlier, later)`` of :func:`calls_there`'s answer ``there``: the calls counted in an earlier session (a
    receiving root's, trial 28a F1) and those that go on in a later session (``links.going_on``, trial 33a F1)."""
    going = links.going_on
    if not going:
        return there, {}
    return {k: s for k, s in there.items() if k not in going}, {k: s for k, s in there.items() if k in going}
