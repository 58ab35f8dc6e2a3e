"""Coverage of the asz.view document: every landed record a reader should see is drawn or said (issue 18).

A record *carries content* when one of its parts is ``text``, ``reasoning``,
``call``, ``result`` or ``media``. Each such record of the document's landed
files is either cited by a step node of the fold (or shown as a talk's
``prompt``: a child's opening prompt, which the child's talk cites by its ``ref``) (its ``ref`` or one of its
``refs`` names the record's seq and row) or listed in the document's
``not_drawn`` list with the reason it has no node of its own:

- ``duplicate``: the same record id landed earlier with the same payload
  (``of`` names the first copy; the node citing the first copy lists it under
  ``copies``);
- ``conflict``: the same record id landed earlier with a payload that differs
  only in text or data (assembly compares calls, usage and the parts' kinds, ids
  and sizes; a record that differs there is kept and drawn by its own node, field
  report 20): the node of the first copy lists it under ``conflicts``, and
  ``summary.problems`` has a line naming the id and both places. A record drawn
  by its own node under an id an earlier record has, with another payload, is
  flagged the same way (its line says both are shown).
- ``undescribed``: the record holds an ``unknown`` part (listed under
  ``undescribed`` too);
- ``unresolved``: a result whose request never landed (``unresolved`` names
  the open entry ``unres/tool_use/<id>``; ``text`` shows the result, and one whose text is not all in the root
  says ``result_state``, ``result_bytes`` and ``result_sha256`` as a tool step does);
- ``superseded``: an earlier version of a one-document source holding
  content (``agent_meta``, such as a Kiro IDE session JSON or execution log),
  which a later landed version of the same stream replaces whole (``of``
  names that version; assembly draws the last version only);
- ``duplicate`` with ``of`` ``{"conversation": <earlier session>, "id": <record id>}``: a record a
  resumed session repeats from the session it continues (the evidence of the ``continues``
  relation), drawn and counted in that conversation only.

``summary.coverage`` is ``{"cited": N, "records": M, "by_node": A, "listed": B}``:
``M`` records carry content, ``A`` of them are cited by a node, ``B`` more are
listed in ``not_drawn``, and ``N = A + B``. A record counted in neither is
named in a ``summary.problems`` line (``not drawn: …``) so a gap is never silent.
"""

from __future__ import annotations

from typing import Iterable

from ..flow.model import Node, Ref
from ..sessiondata.numberprobe import bytescan
from .conflict_fields import apart_said, record_fields
from .kinds import CONTENT_KINDS, CUT_STATES, taken_keys

#: The states of a result part whose text is not all in the root (seed 000: made smaller to land, or removed by
#: retention), which its ``not_drawn`` entry says (:func:`_orphan_result`).
LOST_STATES = CUT_STATES | {"removed"}

__all__ = ["CONTENT_KINDS", "Coverage", "measure", "cited_by", "carries_text", "superseded_documents"]

#: Node kinds that only contain other nodes: their ``ref`` points at a record, it does not draw it.
_CONTAINERS = frozenset(("conversation", "segment", "session", "stream", "epoch", "talk", "run"))
_ITERABLE_AGAIN = (list, tuple, type({}.values()))
#: How many uncited positions a problems line names before it says "…".
_NAMED = 10


class Coverage:
    """The result of :func:`measure`: ``summary`` (the ``summary.coverage`` dict), ``not_drawn``
    (the document's list), ``copies`` and ``conflicts`` (node id → refs of the later copies),
    ``problems`` (lines for ``summary.problems``)."""

    def __init__(self) -> None:
        self.summary: dict[str, int] = {}
        self.not_drawn: list[dict] = []
        self.copies: dict[str, list[dict]] = {}
        self.conflicts: dict[str, list[dict]] = {}
        self.problems: list[str] = []


def _carries_content(rec: dict) -> bool:
    return any(p.get("k") in CONTENT_KINDS for p in rec.get("parts", ()))


def carries_text(rec: dict | None) -> bool:
    """True when the record has a ``text`` part with text (or whose text a skeleton removed, seed 000)."""
    return rec is not None and any(p.get("k") == "text" and (p.get("text") or p.get("state") == "removed")
                                   for p in rec.get("parts", ()))


def superseded_documents(records: dict[int, list[dict]], streams: dict[int, tuple[str, str]]) -> dict[tuple[int, int], tuple[int, int]]:
    """(seq, row) of each earlier version of a document holding content → (seq, row) of the last version.

    ``streams`` maps a landed file's seq to its header (kind, stream). Only ``agent_meta`` files
    count, as in assembly's stage 1 (:func:`asz_core.flow.asm_streams.latest_documents`).
    """
    versions: dict[str, list[tuple[int, int]]] = {}
    for seq in sorted(records):
        kind, stream = streams.get(seq, ("", ""))
        if kind != "agent_meta" or not stream:
            continue
        for row, rec in enumerate(records[seq], 1):
            if _carries_content(rec):
                versions.setdefault(stream, []).append((seq, row))
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for found in versions.values():
        for pos in found[:-1]:
            out[pos] = found[-1]
    return out


def cited_by(nodes: Iterable[Node], compiled: bool = True) -> dict[tuple[int, int], str]:
    """(seq, row) → the first step node (by id) citing that record (the least id: no sort of every node needed).

    The dict is for looking up; its order is not the ids' (nothing iterates it). In one compiled loop
    (``bytescan.cited_by``, issue 22) where the module was built; ``compiled=False`` runs the Python."""
    if compiled and bytescan is not None and type(nodes) in _ITERABLE_AGAIN:  # the Python may read them after it
        got = bytescan.cited_by(nodes, _CONTAINERS, Node, Ref)
        if got is not None:
            return got
    cited: dict[tuple[int, int], str] = {}
    get = cited.get
    for n in nodes:
        if n.kind in _CONTAINERS:
            continue
        nid = n.id
        ref = n.ref
        if ref is not None:
            pos = (ref.seq, ref.row)
            cur = get(pos)
            if cur is None or nid < cur:
                cited[pos] = nid
        for r in n.refs:
            pos = (r.seq, r.row)
            cur = get(pos)
            if cur is None or nid < cur:
                cited[pos] = nid
    return cited


def measure(records: dict[int, list[dict]], nodes: Iterable[Node], unknown: Iterable[tuple[int, int]],
            shown: dict[tuple[int, int], str] | None = None, unresolved: Iterable[str] = (),
            superseded: dict[tuple[int, int], tuple[int, int]] | None = None,
            repeated: dict[tuple[int, int], str] | None = None,
            cited: dict[tuple[int, int], str] | None = None, content: set[tuple[int, int]] | None = None,
            ids: dict[int, list] | None = None) -> Coverage:
    """Coverage of ``records`` (seq → landed records in row order) by ``nodes`` (the fold's nodes).

    ``unknown`` are the (seq, row) of records holding an ``unknown`` part
    (the document's ``undescribed`` list). ``shown`` maps more drawn records to
    the node showing them: a talk's ``prompt`` (the first record of a child
    stream, which the talk cites by its ``ref``). ``unresolved`` are the
    ids of the fold's unresolved entries. ``superseded`` maps an earlier version of a document to
    its last version (:func:`superseded_documents`). ``repeated`` maps the records a ``continues`` relation
    cites to the earlier session (:class:`~asz_core.view.links.Links` ``evidence``). Duplicates are found by record id across the session in landed
    order: the first copy is the record assembly keeps; a later copy with the
    same parts (its payload) is a duplicate, one with other parts a conflict.
    ``cited`` is :func:`cited_by` of ``nodes`` when the caller has it already (it is not changed);
    ``content`` the (seq, row) of the records carrying content when the caller has them already; ``ids`` each
    record's ``id`` field by seq, in row order, when the caller has them already (then, when no id is there twice, only
    the records with content no node cites are looked at).
    """
    cov = Coverage()
    cited = dict(cited) if cited is not None else cited_by(nodes)
    for pos, node in (shown or {}).items():
        cited.setdefault(pos, node)
    unknown = set(unknown)
    open_ids = set(unresolved)
    first: dict[str, tuple[int, int, dict]] = {}
    total = by_node = listed = 0
    missing: list[str] = []
    if content is None:
        content = {(seq, row) for seq, recs in records.items() for row, rec in enumerate(recs, 1) if _carries_content(rec)}
    # No record id landed twice (most sessions): no record has an earlier copy, so only the uncited records are looked at.
    once = ids is not None and _each_id_once(records, ids)
    if once:
        uncited = sorted(content.difference(cited))  # the set's own hashes: no (seq, row) hashed again
        total, by_node = len(content), len(content) - len(uncited)
        walk: Iterable[tuple[int, int, dict]] = ((seq, row, records[seq][row - 1]) for seq, row in uncited)
    else:
        walk = ((seq, row, rec) for seq in sorted(records) for row, rec in enumerate(records[seq], 1))
    for seq, row, rec in walk:
        rid = rec.get("id") or ""
        earlier = first.get(rid) if rid else None
        if rid and earlier is None:
            first[rid] = (seq, row, rec)
        if not once:
            pos = (seq, row)
            if pos not in content:
                continue
            total += 1
            if pos in cited:
                by_node += 1
                if earlier is not None and not same_payload(earlier[2], rec):  # both kept by assembly (field report 20)
                    _conflict(cov, rid, earlier, (seq, row, rec), cited, "both are shown")
                continue
        later = (superseded or {}).get((seq, row))
        entry = ({"ref": {"seq": seq, "row": row}, "id": rid, "why": "superseded", "of": {"seq": later[0], "row": later[1]}}
                 if later is not None else None) \
            or _listed(seq, row, rid, rec, earlier, unknown, cited, cov) or _orphan_result(seq, row, rid, rec, open_ids) \
            or _repeated(seq, row, rid, repeated)
        if entry is None:
            missing.append(f"{seq}/{row}" + (f" ({rid})" if rid else ""))
            continue
        listed += 1
        cov.not_drawn.append(entry)
    cov.summary = {"cited": by_node + listed, "records": total, "by_node": by_node, "listed": listed}
    if missing:
        named = ", ".join(missing[:_NAMED]) + (", …" if len(missing) > _NAMED else "")
        cov.problems.append(f"not drawn: {len(missing)} landed records with content are in no node and no list: {named}")
    return cov


def _each_id_once(records: dict[int, list[dict]], ids: dict[int, list]) -> bool:
    """True when no record id (``ids``: seq → each record's id) is there twice among the files of ``records``."""
    named = [i for seq in records for i in ids[seq] if i]
    return len(named) == len(set(named))


def _listed(seq: int, row: int, rid: str, rec: dict, earlier: tuple[int, int, dict] | None,
            unknown: set[tuple[int, int]], cited: dict[tuple[int, int], str], cov: Coverage) -> dict | None:
    """The ``not_drawn`` entry of a record no node cites, or None when no rule says why."""
    here = {"seq": seq, "row": row}
    if earlier is not None:
        eseq, erow, erec = earlier
        of = {"seq": eseq, "row": erow}
        node = cited.get((eseq, erow), "")
        same = same_payload(erec, rec)
        entry = {"ref": here, "id": rid, "why": "duplicate" if same else "conflict", "of": of}
        if node:
            entry["node"] = node
            if same:
                cov.copies.setdefault(node, []).append(here)
        if not same:  # parts that differ only where the index does not look (their text): listed, not drawn
            _conflict(cov, rid, earlier, (seq, row, rec), cited, "the later one is listed in not_drawn, under the first one's node")
        return entry
    if (seq, row) in unknown:
        return {"ref": here, "id": rid, "why": "undescribed"}
    return None


def same_payload(a: dict, b: dict) -> bool:
    """Two records under one id are one record (a repeat): the same call, usage and parts (what assembly compares,
    :func:`~asz_core.flow.index.payload_of`, and their text and data too)."""
    return a.get("parts") == b.get("parts") and a.get("call") == b.get("call") and a.get("usage") == b.get("usage")


def _conflict(cov: Coverage, rid: str, earlier: tuple[int, int, dict], later: tuple[int, int, dict],
              cited: dict[tuple[int, int], str], shown: str) -> None:
    """Flag a record landed under the id of an earlier one with another payload: a problem line naming both places,
    the fields that differ (:func:`~asz_core.view.conflict_fields.apart_said`; trial 48c F4) and how they are shown,
    and the later one under ``conflicts`` on the earlier one's node."""
    (eseq, erow, erec), (seq, row, rec) = earlier, later
    node = cited.get((eseq, erow), "")
    if node:
        cov.conflicts.setdefault(node, []).append({"seq": seq, "row": row})
    apart = apart_said(record_fields(erec, rec), f"at {eseq}/{erow}", f"at {seq}/{row}")
    cov.problems.append(f"conflict: record id {rid} landed at {eseq}/{erow} and again at {seq}/{row} {apart}; {shown}")


def _repeated(seq: int, row: int, rid: str, repeated: dict[tuple[int, int], str] | None) -> dict | None:
    """The ``not_drawn`` entry of a record repeated from an earlier session (drawn there), else None."""
    other = (repeated or {}).get((seq, row))
    if other is None or not rid:
        return None
    return {"ref": {"seq": seq, "row": row}, "id": rid, "why": "duplicate", "of": {"conversation": other, "id": rid}}


def _orphan_result(seq: int, row: int, rid: str, rec: dict, open_ids: set[str]) -> dict | None:
    """The ``not_drawn`` entry of a result whose request never landed (an open ``tool_use`` entry), else None. A
    result made smaller to land, or whose text retention took, says so as a tool step's result does (trial 47c F1: a
    3 MB one was drawn ``(no text)``, with no size and no sha256): ``result_state`` (too_large, truncated, removed),
    ``result_bytes`` (the original's size) and, for one made smaller, ``result_sha256`` of what was taken out (and the
    keys of :func:`~asz_core.view.kinds.taken_keys` for one that kept its text whole), after ``text``."""
    for block, p in enumerate(rec.get("parts", ())):
        if p.get("k") == "result" and p.get("of") and f"unres/tool_use/{p['of'].replace('/', '_')}" in open_ids:
            entry = {"ref": {"seq": seq, "row": row}, "id": rid, "why": "unresolved",
                     "unresolved": f"unres/tool_use/{p['of'].replace('/', '_')}"}
            if p.get("text"):
                from .document import clip_text  # the document imports this module

                entry["text"] = clip_text(p["text"])
            if p.get("state") in LOST_STATES:
                entry["result_state"], entry["result_bytes"] = p["state"], p.get("bytes", 0)
                if p.get("sha256") and p["state"] in CUT_STATES:  # what was taken out, to match a copy against
                    taken_keys(rec, block, p, entry)
            return entry
    return None
