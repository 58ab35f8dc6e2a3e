"""What parse compares and counts (origin-digest §4.1, §4.3): the diff of a fresh assembly against the fold of the
chain, a round header's counts and times, and the checks and table of ``asz parse``.

Split from :mod:`asz_core.flow.parse` (windows, rounds, the chain), which re-exports :func:`diff_assembly`,
:func:`header_counts`, :func:`fold_matches_assembly` and :func:`session_stats`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import attrs
import orjson

from ..sessiondata.times import format_rfc3339, parse_instant
from ..sessiondata.vocabulary import STEP_KINDS as _STEP_KINDS
from .fold import Fold
from .model import Assembly, Node, Relation, Unresolved
from .round import COUNT_KEYS, LATER_COUNT_KEYS, entity_body
from .tool_names import shell_runs

__all__ = ["STEP_KINDS", "diff_assembly", "count_of", "header_counts", "time_str", "file_time_range", "fold_matches_assembly",
           "session_stats", "FIGURE_KEYS", "figures_differ"]

#: Node kinds that count as steps in a header's ``steps`` (origin-digest §4.5).
STEP_KINDS = frozenset(_STEP_KINDS)


def diff_assembly(fold: Fold, asm: Assembly, have_body: Callable[[Any], bytes] = entity_body,
                  want_body: Callable[[Any], bytes] = entity_body,
                  same: Callable[[Any], bool] | None = None) -> tuple[list[Node], list[Relation], list[Unresolved]]:
    """The entities a round must carry to take ``fold`` to ``asm`` (origin-digest §4.3).

    ``have_body`` and ``want_body`` give an entity's :func:`entity_body` for the
    fold's and the assembly's entities (caches; the result is the same);
    ``same(e)``, when given, is True only for an assembly entity whose body is
    known to equal the fold's entity of its id (then the bodies are not compared).
    Returns (nodes, relations, unresolved), unsorted, revisions not yet set:
    new or changed entities (comparison ignores revision), tombstones for
    vanished nodes and relations, and vanished unresolved entries not yet
    resolved written again as ``resolved``.
    """
    out: list[list] = []
    for have, want, cls in ((fold.nodes, asm.nodes, Node), (fold.relations, asm.relations, Relation)):
        if same is None:
            group = [e for e in want.values() if e.id not in have or have_body(have[e.id]) != want_body(e)]
        else:
            group = [e for e in want.values()
                     if e.id not in have or (not same(e) and have_body(have[e.id]) != want_body(e))]
        wanted = {e.id for e in want.values()}
        group += [cls(i, tombstone=True) for i in have if i not in wanted]
        out.append(group)
    wanted = {u.id for u in asm.unresolved.values()}
    unres = [u for u in asm.unresolved.values()
             if u.id not in fold.unresolved or have_body(fold.unresolved[u.id]) != want_body(u)]
    unres += [attrs.evolve(u, state="resolved") for i, u in fold.unresolved.items() if i not in wanted and u.state != "resolved"]
    return out[0], out[1], unres


def count_of(asm: Assembly, key: str, compute: Callable[[], int] | None) -> int | None:
    v = asm.counts.get(key)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    return compute() if compute is not None else None


def header_counts(asm: Assembly) -> dict[str, Any]:
    """The header's summary fields for an assembly: ``asm.counts`` where it has them, else computed from the nodes.

    ``title``; ``talks``, ``steps``, ``streams``, ``segments`` and ``unresolved``
    (open entries) always; ``llm_calls``, ``subagents`` (child streams) and
    ``bash_runs`` (tool/agent.call of a tool named ``Bash``, :data:`~asz_core.flow.tool_names.DEFAULT_ROLES`) computed when absent;
    ``changes``, ``lines_added``, ``lines_removed`` only when ``asm.counts``
    has them (else None: unknown); ``changes_not_derived`` only when above 0.
    """
    nodes = [n for n in asm.nodes.values() if not n.tombstone]

    def kinds(*ks: str) -> Callable[[], int]:
        return lambda: sum(1 for n in nodes if n.kind in ks)

    title = asm.counts.get("title")
    return {
        "title": title if isinstance(title, str) else "",
        "talks": count_of(asm, "talks", kinds("talk")),
        "steps": count_of(asm, "steps", lambda: sum(1 for n in nodes if n.kind in STEP_KINDS)),
        "streams": count_of(asm, "streams", kinds("stream")),
        "segments": count_of(asm, "segments", kinds("segment")),
        "unresolved": count_of(asm, "unresolved", lambda: sum(1 for u in asm.unresolved.values() if u.state == "open")),
        "changes": count_of(asm, "changes", None),
        "lines_added": count_of(asm, "lines_added", None),
        "lines_removed": count_of(asm, "lines_removed", None),
        "changes_not_derived": count_of(asm, "changes_not_derived", None) or None,
        "llm_calls": count_of(asm, "llm_calls", kinds("llm.call")),
        "subagents": count_of(asm, "subagents", lambda: sum(1 for n in nodes if n.kind == "stream" and n.attrs.get("role") == "child")),
        "bash_runs": count_of(asm, "bash_runs", lambda: shell_runs(nodes)),
    }


def time_str(value: Any) -> tuple[str, int | None]:
    """A header time from an assembly count: an RFC 3339 string kept as the UTC form, an int taken as ns."""
    if isinstance(value, str):
        ns = parse_instant(value)
        return (format_rfc3339(ns), ns) if ns is not None else ("", None)
    if isinstance(value, int) and not isinstance(value, bool):
        return format_rfc3339(value), value
    return "", None


def file_time_range(path: Path) -> tuple[int, int] | None:
    """(earliest, latest) record time in ns of a landed file (``.sd`` or gzip ``.sk``); None when no record has a time."""
    from ..sessiondata.reader import open_landed

    lo = hi = None
    try:
        f = open_landed(path)
    except OSError:
        return None
    with f:
        f.readline()  # header
        for line in f:
            if b'"time"' not in line:
                continue
            try:
                d = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            ns = parse_instant(d.get("time")) if isinstance(d, dict) and d.get("t") is None else None
            if ns is None:
                continue
            lo = ns if lo is None or ns < lo else lo
            hi = ns if hi is None or ns > hi else hi
    return None if lo is None else (lo, hi)


# --------------------------------------------------------------------------- checks and table


def fold_matches_assembly(fold: Fold, asm: Assembly) -> list[str]:
    """Differences between a fold and a full assembly (the §4.3 invariant); [] when they agree.

    Nodes and relations must be equal (revision ignored); every unresolved
    entry of the assembly must be in the fold unchanged, and every other one
    in the fold must be ``resolved``.
    """
    problems = []
    for what, have, want in (("node", fold.nodes, asm.nodes), ("relation", fold.relations, asm.relations)):
        want_by_id = {e.id: e for e in want.values()}
        for i in sorted(set(have) | set(want_by_id)):
            if i not in have:
                problems.append(f"{what} {i}: in the assembly, not in the fold")
            elif i not in want_by_id:
                problems.append(f"{what} {i}: in the fold, not in the assembly")
            elif entity_body(have[i]) != entity_body(want_by_id[i]):
                problems.append(f"{what} {i}: differs")
    want_u = {u.id: u for u in asm.unresolved.values()}
    for i in sorted(set(fold.unresolved) | set(want_u)):
        if i in want_u:
            if i not in fold.unresolved:
                problems.append(f"unresolved {i}: in the assembly, not in the fold")
            elif entity_body(fold.unresolved[i]) != entity_body(want_u[i]):
                problems.append(f"unresolved {i}: differs")
        elif fold.unresolved[i].state != "resolved":
            problems.append(f"unresolved {i}: in the fold as {fold.unresolved[i].state}, not in the assembly")
    return problems


def session_stats(fold: Fold) -> dict[str, Any]:
    """The parse table's session columns from a fold: talks, runs, steps, tools and children as (joined, total).

    A tool (``tool``/``agent.call``) is joined when its result joined exactly
    (``result_join: exact_unique``; without ``result_join``, ``result: available``); a child
    stream (role ``child``) is joined when a ``starts`` relation reaches a node
    of that stream or the stream itself.
    """
    nodes = fold.nodes
    head = fold.head
    tools = [n for n in nodes.values() if n.kind in ("tool", "agent.call")]
    tools_joined = sum(
        1 for n in tools
        if n.attrs.get("result_join") == "exact_unique" or ("result_join" not in n.attrs and n.attrs.get("result") == "available")
    )
    children = {n.id: n for n in nodes.values() if n.kind == "stream" and n.attrs.get("role") == "child"}
    names = {n.id: (n.attrs.get("name") or n.stream or n.id.split("/", 1)[-1]) for n in children.values()}
    started: set[str] = set()
    for rel in fold.relations.values():
        if rel.type != "starts":
            continue
        target = nodes.get(rel.to)
        if rel.to in children:
            started.add(rel.to)
        elif target is not None:
            for cid, name in names.items():
                if target.stream == name:
                    started.add(cid)
    return {
        "talks": head.talks if head else 0,
        "runs": sum(1 for n in nodes.values() if n.kind == "run"),
        "steps": head.steps if head else 0,
        "tools": (tools_joined, len(tools)),
        "children": (len(started), len(children)),
    }


#: The head round's header keys a reader shows as a conversation's figures (``asz ls``, the page).
FIGURE_KEYS = ("title", "session_from_time", "session_through_time", *COUNT_KEYS, *LATER_COUNT_KEYS, "changes_not_derived")


def figures_differ(head: Any, header: Any) -> bool:
    """True when round header ``header`` (this asz's assembly) gives a figure of :data:`FIGURE_KEYS` other than the
    chain's ``head`` header (another asz's), which a reader would show otherwise; False when ``head`` is None."""
    return head is not None and any(getattr(head, k, None) != getattr(header, k, None) for k in FIGURE_KEYS)
