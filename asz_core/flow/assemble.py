"""The assembly pipeline: a session's index → Session Flow entities (origin-digest §4.4, §4.1, §4.5).

:func:`assemble` is a pure function of the landed records with ``seq <=
through_seq``: it reads the index (identifiers and roles), never a payload,
and the same index always gives the same entities. Eight stages, each using
the one before:

1. dedupe by record id across the session — the first landed copy wins; a
   record without an id is never a duplicate; then (issue 18) set aside the
   records repeated from a session this one continues and say dangling
   parents and ids shared with other sessions;
2. partition streams by the landed file's header stream;
3. group provider calls by the record ``call`` in line order (usage from the
   last fragment, never summed; ``finished`` says the usage is real); a call
   a later session repeats and goes on with is related to it (issue 18, trial 33a F1);
4. join tool requests (``call`` parts) and results (``result`` parts' ``of``)
   by exact id across all streams — one ``tool`` step with two refs;
5. join child streams to the calls that started them (the parent's result
   naming ``child``, sidecars, run journals through ``batch``, notifications);
6. cut epochs only at explicit resets (``context_reset``);
7. build talks and runs: a talk starts on external input or on a cycle that
   states no trigger; membership by walking parents backward (≤ 64 hops);
   a child stream is exactly one talk;
8. propose segments on the main stream by the 10-minute idle policy.

The stages are plain functions over one :class:`~asz_core.flow.asm_state.State`:
stages 1-4 in ``asm_streams``, 5-6 in ``asm_joins``, 7-8 in ``asm_talks``, the
steps, relations and counts in ``asm_steps``.

What cannot be joined becomes an :class:`~asz_core.flow.model.Unresolved`
entry with its reason; nothing is dropped and nothing is inferred beyond
these rules. Entities carry ``revision`` 0 (the round writer sets it).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..sessiondata.vocabulary import STRUCTURAL_KINDS
from .asm_joins import stage5_spawns, stage6_epochs
from .asm_links import stage1_links, stage3_going_on
from .asm_state import ANCESTOR_HOPS, GATES, STEP_KINDS, USAGE_RULE, State
from .asm_steps import emit_steps, fill_counts, result
from .asm_streams import stage1_canonical, stage2_streams, stage3_calls, stage4_tools
from .asm_talks import stage7_talks, stage8_segments
from .index import Index, load_index
from .model import IDLE_GAP_NS, Assembly
from .shared_ids import SessionLinks

__all__ = [
    "assemble",
    "time_window",
    "STEP_KINDS",
    "STRUCTURAL_KINDS",
    "ANCESTOR_HOPS",
    "USAGE_RULE",
    "GATES",
]


def assemble(
    index_or_session_dir: Index | str | os.PathLike,
    through_seq: int,
    *,
    conversation: str | None = None,
    idle_gap_ns: int = IDLE_GAP_NS,
    links: SessionLinks | None = None,
    memo: dict | None = None,
) -> Assembly:
    """Assemble one session's landed records with ``seq <= through_seq`` into Session Flow (§4.4).

    ``index_or_session_dir`` is a loaded :class:`~asz_core.flow.index.Index`
    or a session directory (its index is loaded, rebuilt when missing).
    ``conversation`` defaults to the session id (Claude Code's mapping).
    ``idle_gap_ns`` is the segment idle gap in nanoseconds (policy ``v1``:
    10 minutes; changing it changes the policy). ``links`` are what the
    root's other sessions say about this one (:func:`~asz_core.flow.shared_ids.session_links`,
    issue 18: records repeated from a session it continues are drawn there;
    ``continues`` relations; dangling parents and shared ids as unresolved
    entries, :mod:`~asz_core.flow.asm_links`); None assembles the session alone.
    ``memo``, a dict the caller keeps between assemblies of the same index
    (parse's candidate windows), lets a step node made of the same inputs be
    the same object as in an earlier assembly (never changed after it is made),
    so what is derived from it (its encoded body) is reused; the entities are
    the same either way.

    Returns an :class:`~asz_core.flow.model.Assembly`: ``nodes``,
    ``relations`` and ``unresolved`` keyed and sorted by id, every entity at
    revision 0; ``counts`` with the round header's summary fields (title,
    talks, steps, streams, segments, unresolved open count, changes,
    lines_added, lines_removed, llm_calls, subagents, bash_runs,
    session_from_time, session_through_time — RFC 3339 UTC) plus ``kinds``
    (node count per kind); ``stats`` with what assembly saw (entries,
    duplicates, duplicate_conflicts, dangling_parents, tool and spawn join
    counts). For a round's own ``from_time``/``through_time`` use
    :func:`time_window`.
    """
    if isinstance(index_or_session_dir, Index):
        ix = index_or_session_dir
    else:
        ix = load_index(Path(index_or_session_dir))
    st = State(ix, int(through_seq), conversation or "", idle_gap_ns)
    st.links = links
    st.memo = memo
    for stage in (stage1_canonical, stage1_links, stage2_streams, stage3_calls, stage3_going_on, stage4_tools, stage5_spawns, stage6_epochs,
                  stage7_talks, stage8_segments, emit_steps, fill_counts):
        stage(st)
    out = result(st)
    for s in st.streams:  # a stream and its talks and epochs name each other: let go of the state without the collector
        s.talks, s.epochs = [], []
    return out


def time_window(index: Index, from_seq: int, through_seq: int) -> tuple[str, str] | None:
    """RFC 3339 UTC (earliest, latest) record time of the landed files ``from_seq..through_seq``.

    A round header's ``from_time``/``through_time`` (§4.1); None when no record
    in the window carries a time (the header then omits both).
    """
    return index.time_range(from_seq, through_seq)
