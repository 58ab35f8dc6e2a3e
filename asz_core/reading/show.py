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
5. a record's place as the readers print it (:func:`record_place`; trial 47c F3: ``asz ls`` printed ``1/4`` for an
   undescribed record that ``asz show`` could not open): ``S/R`` (seq and row: ``asz ls``'s and ``asz
   conversation``'s problem lines), ``seq S row R block B`` (``asz conversation``'s undescribed parts, the exports'
   Undescribed records), ``(seq S, row R)`` (the exports' Unresolved section, ``record ID (seq S, row R)`` whole),
   ``FILE:ROW`` (what ``asz show`` and ``asz search`` print, the exports' ``in FILE:ROW``; FILE from the root, from
   the session's folder, or the file's name), ``FILE line N`` (the exports' ``time does not read (…, FILE line
   N)``: row N - 1) and ``seq S:R``: that one record (``block``: the part B names);
6. otherwise a record id, a tool-use id (of a call or result part, or a
   record's ``tool``) or a provider call id (a record's ``call``, ``msg_…``),
   matched against every landed record; ``call/X`` and ``tool/X`` that are
   not nodes are matched as ``X``; ``record ID`` as ``ID``.

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

import functools
import os
import re
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

__all__ = ["Hit", "Found", "find_records", "node_refs", "record_place", "shown_bytes", "unknown_lines"]


class Hit(NamedTuple):
    """One landed record: its file (a path), row (from 1) and record."""

    path: Path
    row: int
    record: Record


class Found(NamedTuple):
    """What :func:`find_records` found: ``hits`` in file and row order, ``damaged`` files (path, why), ``node`` when a
    node id matched, and ``block`` when a record's place named one of its parts (``seq 1 row 4 block 0``)."""

    hits: list[Hit]
    damaged: list[tuple[Path, str]]
    node: str
    block: int | None = None


#: The record places the readers print (:func:`record_place`): ``1/4``; ``seq 1 row 4 block 0``, with the exports'
#: ``(main)`` after it and a colon; ``(seq 2, row 1)``, whole as ``record ID (seq 2, row 1)``; ``seq 1:4``.
_PLACES = (re.compile(r"(?P<seq>\d+)/(?P<row>\d+)"),
           re.compile(r"(?:record \S+ )?\(?seq (?P<seq>\d+),? row (?P<row>\d+)(?:,? block (?P<block>\d+))?\)?(?: \(\S+\))?:?"),
           re.compile(r"seq (?P<seq>\d+):(?P<row>\d+)"))
#: ``FILE:ROW``: a landed file (``….sd``) and a row of it; ``FILE line N``: its line N (the header is line 1, so row
#: N - 1), as the exports' ``time does not read ('yesterday', S/…/x.sd line 3)`` and ``asz usage``'s notes print it.
_FILE_ROW = re.compile(r"(?P<file>.+\.sd)(?::(?P<row>\d+)| line (?P<line>\d+))")


def record_place(session_dir: Path, ident: str) -> tuple[int, int, int | None] | None:
    """``(seq, row, block)`` of the record place ``ident`` names (module docstring, 5; ``block`` None when it names
    none), FILE:ROW's file found among the landed files of ``session_dir``; None for any other id, or a file that is
    not one of them."""
    text = " ".join(ident.split())
    for pattern in _PLACES:
        m = pattern.fullmatch(text)
        if m:
            block = m.groupdict().get("block")
            return int(m["seq"]), int(m["row"]), int(block) if block is not None else None
    m = _FILE_ROW.fullmatch(ident.strip())
    if m is None or not session_dir.is_dir():
        return None
    want = m["file"].replace("\\", "/").strip("/")
    row = int(m["row"]) if m["row"] is not None else int(m["line"]) - 1
    for ln, path in landed_files(session_dir):
        rel = path.relative_to(session_dir).as_posix()
        if f"/{session_dir.name}/{rel}".endswith(f"/{want}"):  # from the root, the session's folder, or its name
            return ln.seq, row, None
    return None


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
    place = None
    if ident in nodes:
        node = ident
        wanted = set(node_refs(nodes, ident))
    else:
        wanted = _entry_refs(fold, ident)
    if wanted is None and (place := record_place(root / session, ident)) is not None:
        wanted = {place[:2]}
    ident = ident[len("record "):] if wanted is None and ident.startswith("record ") else ident  # the exports' words
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
    return Found(hits, damaged, node, place[2] if place is not None else None)


def shown_bytes(raw: bytes) -> str:
    """``raw`` (an unknown part's bytes) as one line a terminal shows as it is and from which every byte can be read
    back: UTF-8 as its characters; each byte that is not UTF-8 as ``\\xNN`` (a Latin-1 ``é`` reads ``caf\\xe9``);
    a backslash as ``\\\\``, a newline ``\\n``, a tab ``\\t``, another control ``\\xNN`` (its byte: below 0x80,
    so never a byte that is not UTF-8) and a character that could steer a terminal or draws as nothing (C1, the
    bidi overrides, U+2028, U+200B: :data:`~asz_core.termsafe.ESCAPED_IN_DATA`, :data:`~asz_core.termsafe.HIDDEN`)
    ``\\uNNNN`` (``\\UNNNNNNNN`` above U+FFFF), the UTF-8 of that character."""
    return _escaped(raw.decode("utf-8", "surrogateescape"))


def _escaped(text: str) -> str:
    """:func:`shown_bytes` of ``text`` (bytes as ``surrogateescape`` decodes them): :func:`_bytes_shown`'s table by
    :func:`~asz_core.termsafe.translated`, one scan of the text."""
    from ..termsafe import translated

    return translated(text, _bytes_shown())


@functools.cache
def _bytes_shown() -> dict[int, str]:
    """:func:`shown_bytes`' table, made on first use (:data:`~asz_core.termsafe.HIDDEN` holds the tag plane) and whole
    before any reader gets it: each character it writes as an escape, with that escape; each later rule over the one
    before it, as :func:`shown_bytes` says them."""
    from ..termsafe import ESCAPED_IN_DATA, HIDDEN

    table = {c: f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}" for c in (*ESCAPED_IN_DATA, *HIDDEN)}
    table.update({c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)})
    table.update({0x5C: "\\\\", 0x0A: "\\n", 0x09: "\\t"})
    table.update({c: f"\\x{c - 0xDC00:02x}" for c in range(0xDC80, 0xDD00)})  # a byte not UTF-8 (surrogateescape)
    return table


def unknown_lines(rec: Record, block: int | None = None, shown=lambda text: text) -> list[str]:
    """What ``asz show`` prints under a record of each of its unknown parts (the one ``block`` names, when given):
    ``unknown part 0 (the record is not valid JSON): 146 bytes as kept, from the record's base64 (not all UTF-8);
    each byte that is not UTF-8 shown \\xNN, a backslash \\\\ (asz show --help)``, then, indented two spaces,
    the bytes (:func:`shown_bytes`, each run of UTF-8 text first through ``shown``: the caller's masking) (trial 47c F3: the bytes were reachable only by opening the .sd file)."""
    out = []
    for i, p in enumerate(rec.parts):
        if p.k != "unknown" or block is not None and i != block:
            continue
        why = p.text or "no reason given"
        try:
            raw = p.raw()
        except (ValueError, TypeError) as exc:  # no string (withheld, a skeleton's) or an encoding no seed names
            out.append(f"unknown part {i} ({why}): its bytes are not shown: {exc}")
            continue
        kept = "from the record's base64 (not all UTF-8)" if p.encoding == "base64" else "the record's string (UTF-8)"
        out += [f"unknown part {i} ({why}): {len(raw):,} bytes as kept, {kept}; each byte that is not UTF-8 shown "
                "\\xNN, a backslash \\\\ (asz show --help)",
                "  " + _escaped("".join(x if _NOT_UTF8.fullmatch(x) else shown(x) for x in _NOT_UTF8.split(
                    raw.decode("utf-8", "surrogateescape")) if x))]
    return out


def taken_lines(rec: Record, block: int | None = None) -> list[str]:
    """What ``asz show`` prints under a record of each of its parts (the one ``block`` names, when given) that lost the
    runtime's structured copy to land (:func:`~asz_core.view.kinds.copy_taken`), each size beside its own object's
    digest, as every reader says it (:func:`~asz_core.view.kinds.taken_said`; trial 47d F7: the record's ``bytes`` is
    the text's, its ``sha256`` the copy's): ``part 0 (result): result too large to land: text 3,228,902 bytes (its
    sha256 not recorded); the runtime's structured copy 3,273,970 bytes, sha256 8f59…``."""
    from ..view.kinds import taken_keys

    out = []
    for i, p in enumerate(rec.parts):
        if p.state not in ("too_large", "truncated") or block is not None and i != block:
            continue
        d = {"result_state": p.state, "result_bytes": p.bytes}
        taken_keys({"dropped": rec.dropped}, i, {"k": p.k, "state": p.state, "text": p.text, "data": p.data,
                                                "sha256": p.sha256}, d)
        if d.get("result_taken_said"):
            out.append(f"part {i} ({p.k}): {d['result_taken_said']}")
    return out


#: A run of bytes that are not UTF-8, as ``surrogateescape`` decodes them (kept apart from the text that is masked).
_NOT_UTF8 = re.compile("([\udc80-\udcff]+)")
