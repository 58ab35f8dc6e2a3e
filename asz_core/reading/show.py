"""``asz show``: the landed records behind any id the asz.view document prints (issue 20; seed 004).

An id is looked up in this order:

1. a node id of the conversation's fold (``talk/…``, ``call/msg_…``,
   ``tool/toolu_…``, ``run/…``, ``stream/…``, any kind): the records its
   ``ref`` and ``refs`` cite, or, for a node citing none (a talk, a run), the
   records every node under it cites;
2. otherwise a record id, a tool-use id (of a call or result part, or a
   record's ``tool``) or a provider call id (a record's ``call``, ``msg_…``),
   matched against every landed record; ``call/X`` and ``tool/X`` that are
   not nodes are matched as ``X``.

Each hit is ``(file, row, record)`` with ``row`` 1 for the line after the
header. A landed file whose closing digest or count does not match gives no
record and is listed in ``damaged``, and so does one whose closing line binds
it but that is not the file the conversation's round chain consumed for its
seq (written again whole since it was parsed:
:func:`~asz_core.reading.landed_check.chain_problem`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from ..flow.chain import Chain, ChainError
from ..flow.fold import FoldError, fold_rounds
from ..flow.model import Node, Ref
from ..flow.round import RoundError
from ..sessiondata import SDError, SDReader
from ..sessiondata.model import Record
from ..storage.layout import landed_files
from .landed_check import chain_problem

__all__ = ["Hit", "Found", "find_records", "node_refs"]


class Hit(NamedTuple):
    """One landed record: its file (a path), row (from 1) and record."""

    path: Path
    row: int
    record: Record


class Found(NamedTuple):
    """What :func:`find_records` found: ``hits`` in file and row order, ``damaged`` files (path, why), and ``node`` when a node id matched."""

    hits: list[Hit]
    damaged: list[tuple[Path, str]]
    node: str


def _fold_nodes(root: Path, conversation: str) -> dict[str, Node]:
    chain = Chain(root, conversation)
    if not chain.exists():
        return {}
    try:
        return fold_rounds(chain.iter_rounds()).nodes
    except (ChainError, FoldError, RoundError, OSError):
        return {}


def node_refs(nodes: dict[str, Node], node_id: str) -> list[tuple[int, int]]:
    """``(seq, row)`` of the records node ``node_id`` cites (its own, else those of every node under it), sorted, once each."""
    n = nodes.get(node_id)
    if n is None:
        return []
    own = [r for r in ([n.ref] if n.ref else []) + list(n.refs) if isinstance(r, Ref)]
    if not own:
        children: dict[str, list[Node]] = {}
        for m in nodes.values():
            children.setdefault(m.parent, []).append(m)
        stack = list(children.get(node_id, []))
        seen = {node_id}
        while stack:
            m = stack.pop()
            if m.id in seen:
                continue
            seen.add(m.id)
            own += [r for r in ([m.ref] if m.ref else []) + list(m.refs) if isinstance(r, Ref)]
            stack.extend(children.get(m.id, []))
    return sorted({(r.seq, r.row) for r in own})


def _matches(rec: Record, ident: str) -> bool:
    return bool(ident) and (rec.id == ident or rec.tool == ident or rec.call == ident
            or any(p.id == ident or p.of == ident for p in rec.parts))


def find_records(root: str | os.PathLike, session: str, ident: str, conversation: str | None = None) -> Found:
    """The landed records of ``session`` behind ``ident`` (module docstring); ``conversation`` defaults to the session id."""
    root = Path(root)
    nodes = _fold_nodes(root, conversation or session)
    wanted: set[tuple[int, int]] | None = None
    node = ""
    if ident in nodes:
        node = ident
        wanted = set(node_refs(nodes, ident))
    bare = ident.split("/", 1)[1] if "/" in ident and ident.split("/", 1)[0] in ("call", "tool") else ident
    hits: list[Hit] = []
    damaged: list[tuple[Path, str]] = []
    for ln, path in landed_files(root / session):
        if wanted is not None and not any(seq == ln.seq for seq, _ in wanted):
            continue
        found = []
        reader = SDReader(path)
        try:
            for row, rec in reader:  # the file's digest is checked at its end, before anything is shown
                if (wanted is not None and (ln.seq, row) in wanted) or (wanted is None and (_matches(rec, ident) or _matches(rec, bare))):
                    found.append(Hit(path, row, rec))
        except (SDError, OSError) as exc:
            why = f"line {exc.line}: {exc.message}" if isinstance(exc, SDError) else f"{exc.strerror or exc}"
            damaged.append((path, why))
            continue
        # bound by its closing line, but not the file the round chain consumed (written again whole): no evidence
        why = chain_problem(root, conversation or session, path, reader.digest) if found else ""
        if why:
            damaged.append((path, why))
            continue
        hits.extend(found)
    return Found(hits, damaged, node)
