"""``asz show``: the landed records behind any id the asz.view document prints (issue 20; seed 004).

An id is looked up in this order:

1. a node id of the conversation's fold (``talk/…``, ``call/msg_…``,
   ``tool/toolu_…``, ``run/…``, ``stream/…``, any kind): the records its
   ``ref`` and ``refs`` cite, or, for a node citing none (a talk, a run), the
   records every node under it cites;
2. a relation id (``rel/<type>/<from>/<to>``): the records its
   ``evidence`` cites, or, with none, those its from and to nodes cite;
3. an unresolved entry id (``unres/<kind>/<ref>``): when ``ref`` is a
   stream of the fold (``unres/spawn_of_child/<stream>``), that stream's
   records; else the records naming ``ref`` as their id, tool-use id,
   provider call id or parent (the document's own ``unres/parent/<id>``
   too; ``<id>@<run>``, a tool-use id several runs repeat, names the records of that run carrying it);
4. a plain stream name (``acompact-f46190``, which the document names as a
   ``stream/…`` node or only as an unresolved entry's ``ref``): every record
   of the landed files of that stream;
5. otherwise a record id, a tool-use id (of a call or result part, or a
   record's ``tool``) or a provider call id (a record's ``call``, ``msg_…``),
   matched against every landed record; ``call/X`` and ``tool/X`` that are
   not nodes are matched as ``X``.

Every id ``asz conversation --json`` prints under an ``id`` key is one of
these (tests/reading/test_show_every_id.py).

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
from ..flow.fold import Fold, FoldError, fold_rounds
from ..flow.model import Node, Ref
from ..flow.round import RoundError
from ..sessiondata import SDError, SDReader
from ..sessiondata.model import Record
from ..storage.layout import kind_dir_parts, landed_files
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


def _fold(root: Path, conversation: str) -> Fold | None:
    chain = Chain(root, conversation)
    if not chain.exists():
        return None
    try:
        return fold_rounds(chain.iter_rounds())
    except (ChainError, FoldError, RoundError, OSError):
        return None


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


def _entry_refs(fold: Fold | None, ident: str) -> set[tuple[int, int]] | None:
    """``(seq, row)`` of the records behind a relation or an unresolved entry of the fold (module docstring, 3 and
    4); None when ``ident`` is neither (or names an entry whose ``ref`` is no stream of the fold)."""
    if fold is None:
        return None
    rel = fold.relations.get(ident)
    if rel is not None:
        if rel.evidence:
            return {(r.seq, r.row) for r in rel.evidence if isinstance(r, Ref)}
        return set(node_refs(fold.nodes, rel.from_)) | set(node_refs(fold.nodes, rel.to))
    u = fold.unresolved.get(ident)
    if u is not None and f"stream/{u.ref}" in fold.nodes:
        return set(node_refs(fold.nodes, f"stream/{u.ref}"))
    return None


def _unresolved_ref(fold: Fold | None, ident: str) -> str:
    """The missing id an unresolved entry names (its ``ref``): of the fold's entry, or of the document's own
    ``unres/parent/<id>`` (a parent no landed record carries, made by the view); '' for any other id."""
    u = fold.unresolved.get(ident) if fold is not None else None
    if u is not None:
        return u.ref
    return ident[len(_PARENT):] if ident.startswith(_PARENT) else ""


#: The document's own unresolved entries: ``unres/parent/<id>`` (:func:`~asz_core.view.links.dangling_parents`).
_PARENT = "unres/parent/"


def _stream_dir(session_dir: Path, ident: str) -> Path | None:
    """The directory of the stream named ``ident`` (a plain name, as ``acompact-f46190``, not an id with a ``/``)
    when the session landed files of it; else None."""
    if not ident or "/" in ident:
        return None
    try:
        d = session_dir.joinpath(*kind_dir_parts("transcript", ident))
    except ValueError:  # no usable stream name
        return None
    return d if d.is_dir() else None


def _matches(rec: Record, ident: str) -> bool:
    return bool(ident) and (rec.id == ident or rec.tool == ident or rec.call == ident
            or any(p.id == ident or p.of == ident for p in rec.parts))


def find_records(root: str | os.PathLike, session: str, ident: str, conversation: str | None = None) -> Found:
    """The landed records of ``session`` behind ``ident`` (module docstring); ``conversation`` defaults to the session id."""
    root = Path(root)
    fold = _fold(root, conversation or session)
    nodes = fold.nodes if fold is not None else {}
    wanted: set[tuple[int, int]] | None = None
    node = ""
    if ident in nodes:
        node = ident
        wanted = set(node_refs(nodes, ident))
    else:
        wanted = _entry_refs(fold, ident)
    missing = _unresolved_ref(fold, ident) if wanted is None else ""
    stream = _stream_dir(root / session, ident) if wanted is None and not missing else None
    bare = ident.split("/", 1)[1] if "/" in ident and ident.split("/", 1)[0] in ("call", "tool") else ident
    # a tool-use id several runs repeat is named within its run, ``<id>@<run>`` (asz_core.flow.asm_state.Tool.ref)
    scoped = tuple(missing.rsplit("@", 1)) if "@" in missing else ()

    def hit(seq: int, row: int, rec: Record) -> bool:
        if wanted is not None:
            return (seq, row) in wanted
        if stream is not None:  # a plain stream name: every record of that stream's files
            return True
        if missing:  # an unresolved entry: the records that name the id it misses (as id, tool, call or parent)
            if scoped and rec.run == scoped[1] and _matches(rec, scoped[0]):
                return True
            return _matches(rec, missing) or rec.parent == missing
        return _matches(rec, ident) or _matches(rec, bare)

    hits: list[Hit] = []
    damaged: list[tuple[Path, str]] = []
    for ln, path in landed_files(root / session):
        if wanted is not None and not any(seq == ln.seq for seq, _ in wanted):
            continue
        if stream is not None and path.parent != stream:
            continue
        found = []
        reader = SDReader(path)
        try:
            for row, rec in reader:  # the file's digest is checked at its end, before anything is shown
                if hit(ln.seq, row, rec):
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
