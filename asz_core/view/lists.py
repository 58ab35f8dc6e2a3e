"""The document's lists beside its talks: loose nodes, streams, segments, relations and undescribed bytes (seed 004)."""

from __future__ import annotations

from ..flow.model import Node, Relation
from ..sessiondata.model import is_blank_part, no_object_said
from .usage_undescribed import OBJECTLESS_COUNTED
from .kinds import STRUCTURAL, WITHHOLDABLE_SET
from .nodes import NodeView
from .time_order import in_time_order
from .titles import CHILD_LABEL_FIRST, child_label

__all__ = ["ListView"]

#: The kinds :meth:`ListView.loose` never lists (structural kinds but a run), and the containers whose children it does.
_NOT_LOOSE = frozenset(STRUCTURAL) - {"run"}
_CONTAINERS = frozenset(("epoch", "stream", "session", "segment", "conversation"))


class ListView(NodeView):
    """The talks and the lists of the document."""

    def talks(self) -> list[dict]:
        talks = in_time_order(self, self.of_kind("talk"))
        self._talk_dicts = {t.id: self.node(t) for t in talks}
        return list(self._talk_dicts.values())

    def loose(self) -> list[dict]:
        """The nodes drawn under no talk (a run or step whose parent is a container, or none), in file order."""
        out = []
        get = self.nodes.get
        for n in self.nodes.values():  # every node: sets, not tuples, and the look-up bound once
            if n.kind in _NOT_LOOSE:
                continue
            parent = get(n.parent)
            if parent is not None and parent.kind not in _CONTAINERS:
                continue  # rendered under its parent
            if self._talk(n):  # under a talk: drawn there (looked up only for the few nodes a container holds)
                continue
            out.append(n)
        out.sort(key=lambda n: self.rank[n.id])
        return [self.node(n) for n in out]

    def streams(self) -> list[dict]:
        out = []
        streams = self.of_kind("stream")
        talks_by_stream: dict[str, list[Node]] = {}
        for t in self.of_kind("talk"):
            talks_by_stream.setdefault(t.stream, []).append(t)
        # A stream's records: its transcript's records once each (a record an interrupted pass landed again, at
        # the same ord, counts once, as assembly takes it once), and every version of its sidecar.
        records: dict[str, int] = {}
        ords: dict[str, set] = {}
        for seq, h in self.sess.headers.items():
            if h is None:
                continue
            name = h.stream or "main"
            if h.kind == "transcript":
                ords.setdefault(name, set()).update(self.sess.ords.get(seq, ()))
            elif h.kind == "agent_meta":
                records[name] = records.get(name, 0) + len(self.sess.records.get(seq, []))
        for name, seen in ords.items():
            records[name] = records.get(name, 0) + len(seen)
        for s in in_time_order(self, streams, main_first=True):
            name = s.id.split("/", 1)[1] if "/" in s.id else s.id
            talks = in_time_order(self, talks_by_stream.get(name, []))
            opened = []
            for r in self.relations_to.get(("starts", s.id), ()):
                src = self.nodes.get(r.from_)
                opened.append({"step": r.from_, "stream": src.stream if src else "", "talk": self._talk(src), "quality": r.quality})
            parent = s.attrs.get("parent", "")
            if not parent and opened:
                parent = opened[0]["stream"]
            label, named_by = s.attrs.get("label", ""), s.attrs.get("named_by", "")
            if label and self.sess.removed_at and label not in self._labels_shown():
                label, named_by = "", ""  # read from a skeleton alone: kept for the structure, never shown (trial 32b F1)
            if not label and s.attrs.get("role") == "child":
                label, named_by = self._child_label(name, opened, talks[0] if talks else None)
            out.append({
                "id": s.id, "name": name, "role": s.attrs.get("role", ""), "label": label, "parent": parent,
                "records": records.get(name, 0), "steps": sum(self._talk_steps(t) for t in talks),
                "talk": talks[0].id if talks else "", "named_by": named_by, "opened_by": opened,
            })
        return out

    def _labels_shown(self) -> set[str]:
        """The labels of the session's records in landed files that are not skeletons: a stream's label the round
        read from a skeleton's record alone is not shown (retention keeps labels in the skeletons, the session's index
        and the rounds for the structure, docs/push.md, Retention and skeletons). Read once a build."""
        if not hasattr(self, "_shown"):
            sess = self.sess
            self._shown = {r["label"] for seq, recs in sess.records.items() if seq not in sess.removed_at
                           for r in recs if isinstance(r, dict) and isinstance(r.get("label"), str) and r["label"]}
        return self._shown

    def _child_label(self, name: str, opened: list[dict], talk: Node | None = None) -> tuple[str, str]:
        """``(label, named_by)`` of a child stream whose records carry no label, as its adapter reads the call that
        started it (:func:`~asz_core.view.titles.child_label`): the landed ``call`` part of its one ``exact_unique``
        opener (None when there is none, or its record is withheld); ``named_by`` is that step's id, or ``stream``
        when no call was read (the adapter read the stream's name). With no call and no such name, the adapter reads
        the child's own prompt, the text of the record that opens its first ``talk`` (:meth:`_opening_text`: Claude
        Code's automatic ``Warmup``, trial 17b F15), ``named_by`` ``prompt``. ``("", "")`` when the adapter gives
        nothing."""
        exact = [o for o in opened if o["quality"] == "exact_unique"]
        call, dialect, step = None, "", ""
        if len(exact) == 1:
            n = self.nodes.get(exact[0]["step"])
            ref = self._first_ref(n) if n is not None else None
            rec = self.sess.record(ref) if ref is not None else None
            parts = rec.get("parts") if rec is not None and not self._withheld(rec) else None
            if isinstance(parts, list) and ref.block is not None and 0 <= ref.block < len(parts):
                part = parts[ref.block]
                if isinstance(part, dict) and part.get("k") == "call":
                    call, step = part, exact[0]["step"]
            header = self.sess.headers.get(ref.seq) if ref is not None else None
            dialect = header.dialect if header is not None else ""
        label = child_label(dialect or self.sess.dialect(), name, call)
        if label or call is not None:
            return (label, step or "stream") if label else ("", "")
        prompt = self._opening_text(talk)
        label = child_label(dialect or self.sess.dialect(), name, None, prompt) if prompt else ""
        return (label, "prompt") if label else ("", "")

    def _opening_text(self, talk: Node | None) -> str:
        """The text parts of the record that opens ``talk``, joined: of the record it starts at (its ref) and its
        steps' first records, in file order, the first a person or caller wrote (``from`` ``external``) or the runtime
        wrote and did not flag ``injected`` nor with a name a reader may withhold (seed 004: such an injection names
        no talk), when no reply (``from`` ``agent``) comes before it; '' when none does, or it is withheld. A child
        file whose first record is a reply is named by no line of it (fix46c: its stream was labelled by that
        reply); while :data:`~asz_core.view.titles.CHILD_LABEL_FIRST` (a copy of render 30 or before made again),
        the record it starts at, whatever wrote it."""
        if talk is None:
            return ""
        if CHILD_LABEL_FIRST.get():
            ref = self._first_ref(talk)
            rec = self.sess.record(ref) if ref is not None else None
            return "" if rec is None or self._withheld(rec) else self._texts(rec)
        for ref in [self._first_ref(talk), *(self._first_ref(n) for n in self._steps_in_order(talk.id))]:
            rec = self.sess.record(ref) if ref is not None else None
            if rec is None:
                continue
            said = rec.get("from")
            if said == "agent":
                return ""
            flags = rec.get("flags") or ()
            if said == "external" or (said == "runtime" and "injected" not in flags and WITHHOLDABLE_SET.isdisjoint(flags)):
                return "" if self._withheld(rec) else self._texts(rec)
        return ""

    @staticmethod
    def _texts(rec: dict) -> str:
        """The text parts of landed record ``rec``, joined."""
        return "".join(p.get("text") or "" for p in rec.get("parts") or () if isinstance(p, dict) and p.get("k") == "text")

    def _talk_steps(self, t: Node) -> int:
        tmp: dict = {}
        self._talk_keys(t, tmp)
        return tmp.get("steps", 0)

    def segments(self) -> list[dict]:
        out = []
        for s in in_time_order(self, self.of_kind("segment")):
            members = [self.nodes[r.from_] for r in self.relations_to.get(("in_segment", s.id), ()) if r.from_ in self.nodes]
            froms, tos = [], []
            for t in members:
                tmp: dict = {}
                self._talk_keys(t, tmp)
                if "from" in tmp:
                    froms.append(tmp["from"])
                    tos.append(tmp["to"])
            d = {"id": s.id, "state": s.attrs.get("state", ""), "committable": bool(s.attrs.get("committable", False)), "talks": len(members)}
            if froms:
                d["from"] = min(froms)
                d["to"] = max(tos)
            out.append(d)
        return out

    def relation_dict(self, r: Relation) -> dict:
        return {"id": r.id, "type": r.type, "from": r.from_, "to": r.to, "quality": r.quality, "via": r.via, "evidence": [e.as_dict() for e in r.evidence]}

    def undescribed(self) -> list[dict]:
        """Every ``unknown`` part of the landed files (seed 000: bytes a dialect could not describe).

        One entry each, in seq/row/block order: ``ref``, ``stream``, ``reason``
        (the part's text), ``bytes``, ``blank`` (true) when the line holds nothing (empty, blanks only, or
        ``null``: it cannot hold a call, so no reader counts it among the records that could; trial 41b F6),
        ``no_object`` (what it is: ``a JSON string``, ``a JSON number``, ``true or false``, ``a JSON array holding no
        object``) when the line is JSON holding no object, which cannot hold one either (from render 49; trial 49b F5),
        and ``node`` when a node of the fold cites that record. Listed so a reader sees them even where no step is drawn.
        Added in 1.x (a 1.x only adds keys).
        """
        out = []
        for seq, row, block, p in self.sess.listed_parts():
            if p["k"] != "unknown":
                continue
            h = self.sess.headers.get(seq)
            out.append({"ref": {"seq": seq, "row": row, "block": block}, "stream": (h.stream if h else "") or (h.batch if h else ""),
                        "reason": p.get("text", ""), "bytes": p.get("bytes", 0)})
            if is_blank_part(p):  # an empty, blank or null line: it holds nothing, so no call (trial 41b F6)
                out[-1]["blank"] = True
            elif (said := no_object_said(p)) and not OBJECTLESS_COUNTED.get():  # a string, a number: no call (49b F5)
                out[-1]["no_object"] = said
        if out:
            cited: dict[tuple[int, int], str] = {}
            for n in self.nodes.values():
                for r in ([n.ref] if n.ref else []) + list(n.refs):
                    cited.setdefault((r.seq, r.row), n.id)
            for e in out:
                node = cited.get((e["ref"]["seq"], e["ref"]["row"]))
                if node is not None:
                    e["node"] = node
        return out
