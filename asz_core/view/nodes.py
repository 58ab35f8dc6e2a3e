"""One node of the document as seed 004 shows it: envelope, attrs, text, call usage, tool keys and talk keys."""

from __future__ import annotations

from typing import Any

from ..flow.model import Node, Ref
from ..sessiondata.jsonbytes import number_texts
from .kinds import NO_TEXT, NOT_CHILDREN, STEP_KIND_SET, STRUCTURAL_SET, TEXT_LIMIT, TOOL_KINDS, WHITESPACE, WITHHOLDABLE_SET, clip_text, data_text
from .view_base import ViewBase
from .usage import is_long

__all__ = ["NodeView", "talk_label"]

#: A text of at most this many characters is never clipped (:func:`clip_text`: no character takes more than 4 bytes).
_SHORT = TEXT_LIMIT // 4


def request_entries(requests, held: bool) -> list[dict]:
    """An ``llm.call``'s ``requests`` (issue 17: two provider calls under one message id), each with its own usage.

    Per request: ``request``, ``model``, and ``usage`` with ``usage_state`` (``long_context: true`` when its input is
    above 200K tokens), or ``usage_state: unavailable`` when ``held`` (a landed file that does not verify), or no usage
    at all when that call left none."""
    return [{"request": r.request, "usage_state": "unavailable", "model": r.model} if held else
            {"request": r.request, "model": r.model} if r.usage is None else
            {"request": r.request, "usage": dict(r.usage), "usage_state": r.state, "model": r.model}
            | ({"long_context": True} if is_long(r.usage) else {}) for r in requests]


class NodeView(ViewBase):
    """Renders nodes with the text of the records they reference."""

    def node(self, n: Node, depth: int = 0) -> dict:
        """One node as the document shows it: envelope, attrs, text and kind-specific keys, children to depth 12, edges.

        Written for speed (every node of the conversation passes here): the record and the refs are looked up inline.
        """
        kind = n.kind
        nid = n.id
        d: dict[str, Any] = {"id": nid, "kind": kind}
        if n.parent:
            d["parent"] = n.parent
        if n.stream:
            d["stream"] = n.stream
        ms = self._at.get(nid)
        d["at"] = ms if ms is not None else self.at(n)
        ref, refs = n.ref, n.refs
        if ref is not None:
            d["ref"] = {"seq": ref.seq, "row": ref.row} if ref.block is None else {"seq": ref.seq, "row": ref.row, "block": ref.block}
        if refs:
            d["refs"] = [{"seq": r.seq, "row": r.row} if r.block is None else {"seq": r.seq, "row": r.row, "block": r.block} for r in refs]
        attrs = n.attrs
        if attrs:
            if "provider_bodies" in attrs:
                attrs = {k: v for k, v in attrs.items() if k != "provider_bodies"}
            if attrs:
                d["attrs"] = _in_key_order(attrs, self._key_order)
        if kind == "talk":
            self._talk_keys(n, d)
        first = ref if ref is not None else (refs[0] if refs else None)
        rec = None
        if first is not None:
            recs = self.sess.records.get(first.seq)
            if recs is not None and 0 < first.row <= len(recs):
                rec = recs[first.row - 1]
        hide = self.hide
        withheld = bool(hide) and rec is not None and not hide.isdisjoint(rec.get("flags", ()))
        if rec is not None and kind not in NO_TEXT:
            self._content(n, first, rec, withheld, d)
        if kind == "llm.call":
            self._call_keys(n, d)
        elif rec is not None and kind not in STRUCTURAL_SET:
            self._record_keys(n, kind, rec, withheld, d)
        elif kind in TOOL_KINDS:
            self._tool_keys(n, d)
        kids = self.children.get(nid)
        if kids and depth < 12:
            shown = [self.node(c, depth + 1) for c in kids if c.kind not in NOT_CHILDREN]
            if shown:
                d["children"] = shown
        media = self.media
        if media and nid in media:
            d["media"] = [m if not (m["kept"] and self._withheld(self.sess.record(Ref(m["ref"]["seq"], m["ref"]["row"]))))
                          else {**m, "state": "omitted", "kept": False} for m in media[nid]]
        cov = self.coverage
        if cov.copies or cov.conflicts:
            for key, crefs in (("copies", cov.copies.get(nid)), ("conflicts", cov.conflicts.get(nid))):
                if crefs:
                    d[key] = [self._copy(r, key == "conflicts") for r in crefs]
        edges = self.edges.get(nid)
        if edges:
            d["edges"] = edges
        return d

    def _call_keys(self, n: Node, d: dict) -> None:
        """An ``llm.call``'s model, usage (per provider request when two answered), withholdable flags, provider bodies."""
        cu = self.call_usage[n.id]
        if cu.model:
            d["model"] = cu.model
        refs = n.refs or ([n.ref] if n.ref else [])
        unverified = self.sess.unverified
        # a fragment in a landed file that does not verify: its figures are held back as its text is (unavailable)
        held = bool(unverified) and any(r.seq in unverified for r in refs)
        if cu.usage is not None:
            if not held:
                d["usage"] = cu.usage  # made for this call by read_call, referenced by nothing else the document holds
                if not cu.requests and is_long(cu.usage):  # input above 200K: the model's long-context rates, if any
                    d["long_context"] = True
            d["usage_state"] = "unavailable" if held else cu.state
        if cu.incomplete and not held:  # counts its record lists under dropped: the usage is short by them
            d["usage_incomplete"] = list(cu.incomplete)
        if cu.requests:  # two provider calls answered under one message id (issue 17): each with its own usage
            d["requests"] = request_entries(cu.requests, held)
        flags: frozenset[str] | None = None
        records = self.sess.records
        for r in refs:
            recs = records.get(r.seq)
            got = recs[r.row - 1].get("flags") if recs is not None and 0 < r.row <= len(recs) else None
            if got:
                hit = WITHHOLDABLE_SET.intersection(got)  # in C; most flags (finished, …) are not withholdable
                if hit:
                    flags = hit if flags is None else flags | hit
        if flags:
            d["flags"] = sorted(flags)
        if not self.hide:
            pb = n.attrs.get("provider_bodies")
            if isinstance(pb, list) and pb:
                d["provider_bodies"] = pb

    def _record_keys(self, n: Node, kind: str, rec: dict, withheld: bool, d: dict) -> None:
        """A step's record flags and dropped bytes, then its tool keys or its measured duration."""
        if rec.get("flags"):
            d["flags"] = list(rec["flags"])
        if rec.get("dropped"):
            d["dropped"] = [{"what": x["what"], "bytes": x.get("bytes", 0), "why": x.get("why", "")} for x in rec["dropped"]]
        if kind in TOOL_KINDS:
            self._tool_keys(n, d)
        elif kind == "turn.duration" and not withheld:
            for p in rec.get("parts", ()):
                v = p.get("data")
                if isinstance(v, dict) and isinstance(v.get("durationMs"), int):
                    d["duration_ms"] = v["durationMs"]
                    d["duration_measured_by"] = "runtime"
                    break

    def _copy(self, ref: dict, with_text: bool) -> dict:
        """A later copy of a node's record (issue 18): its ref, and for a conflict its own text."""
        out = dict(ref)
        rec = self.sess.record(Ref(ref["seq"], ref["row"]))
        if with_text and rec is not None and not self._withheld(rec):
            texts = [p["text"] for p in rec.get("parts", ()) if p["k"] in ("text", "reasoning", "result") and p.get("text")]
            if texts:
                out["text"] = clip_text("\n".join(texts))
        return out

    def _content(self, n: Node, ref: Ref, rec: dict, withheld: bool, d: dict) -> None:
        parts = rec.get("parts", ())
        block = ref.block
        if (block is not None and not 0 <= block < len(parts)) or not parts:
            return
        p = parts[block] if block is not None else parts[0] if len(parts) == 1 else None  # no list of one made for it
        if p is not None:
            text = p.get("text", "")
            if not text or p["k"] == "unknown":
                data = p.get("data")
                text = data_text(data) if data is not None else ""
                wide = number_texts(data) if data is not None and not withheld and self.sess.wide_numbers else []
                if wide:
                    d["notes"] = [f"number {w[:40]} does not fit 64 bits or a double: kept as its source text" for w in wide]
            if withheld:
                d["state"] = "omitted"
                d["bytes"] = p.get("bytes", 0)
                return
            if text:
                d["text"] = text if len(text) <= _SHORT else clip_text(text)
            d["state"] = p.get("state", "available")
            if p.get("bytes"):
                d["bytes"] = p["bytes"]
            return
        texts = [p["text"] for p in parts if p["k"] in ("text", "reasoning", "result") and p.get("text")]
        if withheld:
            d["state"] = "omitted"
            d["bytes"] = sum(p.get("bytes", 0) for p in parts)
            return
        if texts:
            d["text"] = clip_text("\n".join(texts))
        d["state"] = parts[0].get("state", "available")

    def _tool_keys(self, n: Node, d: dict) -> None:
        attrs = n.attrs
        name = attrs.get("name")
        refs = n.refs
        records = self.sess.records
        req = None  # the part the tool's first ref names (sess.part, inline)
        first = refs[0] if refs else n.ref
        if first is not None and first.block is not None:
            recs = records.get(first.seq)
            if recs is not None and 0 < first.row <= len(recs):
                parts = recs[first.row - 1].get("parts", ())
                if 0 <= first.block < len(parts):
                    req = parts[first.block]
        if not name and req is not None:
            name = req.get("name", "")
        if name:
            d["name"] = name
        failed = req.get("failed") if req is not None else None
        result_set = False
        for r in refs[1:]:
            recs = records.get(r.seq)
            if recs is None or not 0 < r.row <= len(recs):
                continue
            rec = recs[r.row - 1]
            parts = rec.get("parts", ())
            if r.block is not None and 0 <= r.block < len(parts):
                p = parts[r.block]
            else:
                p = next((q for q in parts if q["k"] == "result"), None)
            if p is None:
                continue
            if failed is None and p.get("failed") is not None:
                failed = p["failed"]
            if result_set:
                continue
            if self.hide and self._withheld(rec):
                d["result_state"] = "omitted"
                d["result_bytes"] = p.get("bytes", 0)
                result_set = True
                continue
            text = p.get("text", "")
            if not text:
                data = p.get("data")
                text = data_text(data) if data is not None else ""
            if text:
                d["result"] = text if len(text) <= _SHORT else clip_text(text)
            d["result_state"] = p.get("state", "available")
            d["result_bytes"] = p.get("bytes", 0)
            result_set = bool(text)
            if rec.get("dropped"):
                self._companion_keys(rec, d)
        if failed is not None:
            d["failed"] = failed
            # keep the documented key order: failed comes right after name
            for k in ("result", "result_state", "result_bytes"):
                if k in d:
                    d[k] = d.pop(k)
        if len(refs) >= 2 and attrs.get("result_join") == "exact_unique":
            t0, t1 = self.sess.time(refs[0]), self.sess.time(refs[1])
            if t0 is not None and t1 is not None and t1 >= t0:
                ms = (t1 - t0) // 1_000_000
                if ms:
                    d["request_to_result_ms"] = ms
                d["request_to_result_join"] = "exact_unique"
        if self.step_changes or self.step_executions:
            tool_id = n.id.split("/", 1)[1] if "/" in n.id else ""
            if self.step_changes.get(tool_id):
                d["changes"] = self.step_changes[tool_id]
            if self.step_executions.get(tool_id):
                d["executions"] = self.step_executions[tool_id]

    def _steps_under(self, nid: str) -> list[Node]:
        out: list[Node] = []
        children = self.children
        stack = list(children.get(nid, ()))
        pop, push, keep = stack.pop, stack.extend, out.append
        while stack:
            c = pop()
            if c.kind in STEP_KIND_SET:
                keep(c)
            kids = children.get(c.id)
            if kids:
                push(kids)
        return out

    def _talk_keys(self, n: Node, d: dict) -> None:
        """Add a talk's label, reply, counts, times, child mark and segment to ``d`` (computed once per talk)."""
        if n.id not in self._talk_cache:
            self._talk_cache[n.id] = {}
            self._compute_talk_keys(n, self._talk_cache[n.id])
        d.update(self._talk_cache[n.id])

    def _compute_talk_keys(self, n: Node, d: dict) -> None:
        rank = self.rank
        steps = sorted(self._steps_under(n.id), key=lambda s: rank[s.id])
        label = talk_label(self, steps)
        if label:
            d["label"] = label
        pref = self.prompts.get(n.id)
        prec = self.sess.record(pref)
        if prec is not None:  # issue 18: what a child was asked, drawn on its talk
            d["prompt"] = "" if self._withheld(prec) else clip_text("\n".join(
                p["text"] for p in prec.get("parts", ()) if p["k"] == "text" and p.get("text")))
        for s in reversed(steps):  # the reply is the last one with text
            if s.kind in ("message.assistant", "agent.output"):
                rec = self.sess.record(self._first_ref(s))
                if rec is None or self._withheld(rec):
                    continue
                reply = self._node_text(s)
                if reply:
                    d["reply"] = reply
                    break
        runs = [c for c in self.children.get(n.id, []) if c.kind == "run"]
        d["runs"] = len(runs)
        if steps:
            d["steps"] = len(steps)
        tools = sum(1 for s in steps if s.kind in TOOL_KINDS)
        if tools:
            d["tools"] = tools
        at = self.at
        times = [t for t in map(at, [n, *runs, *steps]) if t]
        if times:
            d["from"] = min(times)
            d["to"] = max(times)
        stream = self.nodes.get(f"stream/{n.stream}")
        if stream is not None and stream.attrs.get("role") in ("child", "auxiliary"):
            d["child"] = True
        seg = next((e["other"] for e in self.edges.get(n.id, []) if e["type"] == "in_segment" and e["dir"] == "out"), None)
        if seg:
            d["segment"] = seg

    def _node_text(self, s: Node) -> str:
        ref = self._first_ref(s)
        rec = self.sess.record(ref)
        if rec is None:
            return ""
        tmp: dict = {}
        self._content(s, ref, rec, False, tmp)
        return tmp.get("text", "")


def _in_key_order(attrs: dict, known: dict[tuple, bool]) -> dict:
    """A copy of ``attrs`` with its keys sorted. A round writes them sorted (``OPT_SORT_KEYS``), so whether a set of
    keys is in order already is found once per set (``known``), and attrs in order are only copied."""
    if len(attrs) < 2:
        return dict(attrs)
    keys = tuple(attrs)
    ordered = known.get(keys)
    if ordered is None:
        ordered = known[keys] = list(keys) == sorted(keys)
    return dict(attrs) if ordered else dict(sorted(attrs.items()))


def talk_label(v: NodeView, steps: list[Node]) -> str:
    """A talk's label: its first typed prompt, else the first of its first three injections that the runtime did
    not flag ``injected`` (the opening prompt of a child written in its parent's file, Claude Code's old
    sidechains). An ``injected`` record (an ``isMeta`` line such as a skill's body, an attachment such as a hook's
    context or the deferred tools list) never labels a talk (trial 4, F15): a child's talk with no label is named by
    its stream's label, what the parent asked it to do."""
    for s in steps:
        if s.kind == "message.external":
            rec = v.sess.record(v._first_ref(s))
            if rec is None or v._withheld(rec):
                return ""
            return v._node_text(s)
    injections = [s for s in steps if s.kind == "context.injection"][:3]
    for s in injections:
        rec = v.sess.record(v._first_ref(s))
        flags = rec.get("flags", ()) if rec is not None else ()
        if rec is None or "injected" in flags or not WITHHOLDABLE_SET.isdisjoint(flags):
            continue
        t = v._node_text(s)
        if t.strip(WHITESPACE):
            return t
    return ""
