"""Assembly stage 1b (issue 18): links to the root's other sessions.

Runs after stage 1 (canonical records) with the :class:`~asz_core.flow.shared_ids.SessionLinks`
parse found for the session (none: the session alone, as origin-digest §4.4 assembles it):

- a record **repeated** from a session this one continues is drawn there, not here: it leaves
  ``canonical`` (so no step, talk, call or usage of this session counts it) and stays in
  ``by_record`` (a record after it still finds its parent). The relation
  ``rel/continues/conversation_<this>/conversation_<earlier>`` (``exact_unique``) lists every
  repeated record as evidence, in landed order: the document lists them as duplicates of the
  earlier conversation's records;
- the earlier session's chain gets the same relation, its evidence the records the later one repeats;
- a parent no landed record of the session carries but another session's does: a ``continues``
  relation to that session (evidence: the records naming it; a record whose own id is shared is
  said by its ``shared_id`` entry only). A parent found nowhere is no entry of the chain: the
  original's chains hold no such kind (conformance scenario ``lost-records``: five open entries,
  "each an open reference and nothing else"); the document says it
  (:func:`asz_core.view.links.dangling_parents`);
- an id shared with a session neither continues: ``unres/shared_id/<id>``;
- (after stage 3, :func:`stage3_going_on`) a model call all of whose records here a later session repeats while it
  holds the call's later lines (``SessionLinks.going_on``: a copy cut after a streamed message's first line) **goes
  on** there: ``rel/continues/call_<id>/conversation_<later>`` (``exact_unique``), its evidence the call's records
  here. The call stays drawn here; the readers count it in the later session only, from its last line
  (:func:`asz_core.view.links.links_of`; trial 33a F1).

Only records through the watermark count, so the fold of a chain equals one assembly through its
last round with the same links (origin-digest §4.3).
"""

from __future__ import annotations

from typing import Any

from .asm_state import CONTENT_PART_KINDS, State, ref_of
from .model import kind_id, make_id

__all__ = ["stage1_links", "stage3_going_on", "going_on_calls", "going_on_ids", "needs_relink", "conversation_ref", "SHARED_REASON"]

#: The reason of an ``unres/shared_id/<id>`` entry, before the sessions that landed the id too (", "-joined).
SHARED_REASON = "record id also landed in session "


def conversation_ref(session: str) -> str:
    """The node id a relation names another session's conversation by (its session id, Claude Code's mapping)."""
    return f"conversation/{session}"


def stage1_links(st: State) -> None:
    """Repeated records set aside, ``continues`` relations, dangling parents and shared ids (module docstring)."""
    links = getattr(st, "links", None)
    here = conversation_ref(st.conversation)
    repeated_of = links.repeated if links else {}
    st.repeated = []
    if repeated_of:
        kept = []
        for e in st.canonical:
            (st.repeated if e.id and e.id in repeated_of else kept).append(e)
        st.canonical = kept
        for earlier in links.earlier:
            ev = [ref_of(e) for e in st.repeated if repeated_of[e.id] == earlier]
            if ev:
                st.relate("continues", here, conversation_ref(earlier), "exact_unique",
                          f"{len(ev)} records repeat records of session {earlier} with their ids", ev)
        sidecars_drawn_there(st)
    if links:
        for later, ids in sorted(links.later.items()):
            ev = [ref_of(e) for e in st.canonical if e.id in ids]
            if ev:
                st.relate("continues", conversation_ref(later), here, "exact_unique",
                          f"session {later} repeats {len(ev)} records of this one with their ids", ev)
        for rid, others in sorted(links.shared.items()):
            if rid in st.by_record:
                st.open("shared_id", rid, SHARED_REASON + ", ".join(others))
    elsewhere = links.parents_elsewhere if links else {}
    shared = links.shared if links else {}
    by_parent: dict[str, list] = {}
    # stage 1's orphans, unless records just left canonical (by_record is unchanged here)
    orphans = st.orphans if not st.repeated else [e for e in st.canonical if e.parent and e.parent not in st.by_record]
    for e in orphans:
        if e.id not in shared:  # a shared record is said as such
            by_parent.setdefault(e.parent, []).append(e)
    for parent, kids in by_parent.items():
        other = elsewhere.get(parent)
        if other:
            st.relate("continues", here, conversation_ref(other), "exact_unique",
                      f"a record's parent is a record of session {other}", [ref_of(k) for k in kids])
    st.stats["repeated"] = len(st.repeated)


def sidecars_drawn_there(st: State) -> None:
    """A child stream every record with an id of which repeats a session this one continues (a sub-agent of that
    session, drawn there under the call that started it) is no stream here: its records with no id and no content
    (Claude Code's ``agent-*.meta.json`` sidecar, which that session landed too) leave ``canonical`` with the repeats,
    so no stream, talk or ``spawn_of_child`` entry is made of it (trial 46b F4: every copy of ef958aa1 drew six empty
    "Subagent: parent call not found" talks and left six entries open; its parent calls are in the session it
    continues). A stream holding a record of its own stays, with its sidecar."""
    there = {e.stream for e in st.repeated if e.stream and e.stream != "main"}
    there -= {e.stream for e in st.canonical if e.stream in there
              and (e.id or any(p.k in CONTENT_PART_KINDS for p in e.parts))}
    if there:
        st.canonical = [e for e in st.canonical if e.stream not in there]
        st.stats["streams_drawn_there"] = len(there)


def going_on_calls(mine: dict, theirs: dict, same: set[str]) -> set[str]:
    """The call ids of the earlier session ``mine`` (record id -> its first index entry) all of whose records are
    among ``same`` (repeated by the later session ``theirs``, the same shape) while ``theirs`` holds a record of that
    call whose id is not in ``same``: its later lines, the last with the call's final usage, landed there only, so it
    goes on there and is counted there (reader-anchors.md, Token counts; trial 33a F1). Copies of one history
    (``same`` all of both) give none at once."""
    repeated = {mine[i].call for i in same if mine[i].call}
    if not repeated or len(same) == len(theirs):
        return set()
    more = {e.call for i, e in theirs.items() if e.call in repeated and i not in same}
    if not more:
        return set()
    return more - {e.call for i, e in mine.items() if e.call in more and i not in same}


def going_on_ids(links, here: str) -> set[str]:
    """The ids of the relations :func:`stage3_going_on` draws for ``links`` (a
    :class:`~asz_core.flow.shared_ids.SessionLinks`) in conversation ``here`` (``conversation/<id>``), a call drawn
    through the watermark or not (what a chain with nothing new landed holds: :func:`needs_relink`)."""
    return {make_id("rel", "continues", kind_id("call", call), conversation_ref(later)) for call, later in links.going_on.items()}


def stage3_going_on(st: State) -> None:
    """A call that goes on in a later session (module docstring): one ``continues`` relation from its ``llm.call``
    node to that session's conversation, citing the call's records here. Runs after stage 3 (the calls)."""
    links = getattr(st, "links", None)
    going = links.going_on if links else None
    if not going:
        return
    for c in st.calls:
        later = going.get(c.call_id)
        if later is not None:
            st.relate("continues", c.node_id, conversation_ref(later), "exact_unique",
                      f"session {later} repeats this call's {len(c.fragments)} record(s) and holds its later lines, "
                      "the last with its final usage: counted there", [ref_of(e) for e in c.fragments])


def needs_relink(engine: object, fold: Any) -> bool:
    """True when a session with nothing new landed needs its links drawn again: a session sharing ids with it
    grew (``stale``), or the ``continues`` relations and ``shared_id`` entries its links call for are not the
    ones its chain holds. Without links (no table) nothing is redrawn. The links name only sessions a relation
    is drawn for (:class:`SessionLinks`), so N copies of one history, parsed once, want nothing again: a pass
    with nothing new assembles none of them (session 18; before, every copy but the first was assembled again,
    writing no round)."""
    links = getattr(engine, "links", None)
    if links is None or fold.head is None:
        return False
    if links.stale:
        return True
    here = "conversation/" + fold.head.conversation
    want = {make_id("rel", "continues", here, "conversation/" + e) for e in links.earlier}
    want |= {make_id("rel", "continues", "conversation/" + later, here) for later in links.later}
    want |= {make_id("rel", "continues", here, "conversation/" + o) for o in set(links.parents_elsewhere.values())}
    want |= going_on_ids(links, here)
    have = {r.id for r in fold.relations.values() if r.type == "continues"}
    shared = {make_id("unres", "shared_id", i) for i in links.shared}
    open_shared = {u.id for u in fold.unresolved.values() if u.kind == "shared_id" and u.state == "open"}
    return want != have or shared != open_shared
