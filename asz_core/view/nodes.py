"""One node of the document as seed 004 shows it: envelope, attrs, text, call usage, tool keys and talk keys."""

from __future__ import annotations

from functools import cached_property
from operator import itemgetter
from typing import Any

from ..flow.model import Node, Ref
from ..sessiondata.jsonbytes import number_texts
from ..sessiondata.numberprobe import bytescan
from .kinds import (CUT_STATES, DATA_DUMPS, NO_TEXT, NOT_CHILDREN, SHORT_TEXT, STEP_KIND_SET, STRUCTURAL_SET, TOOL_KINDS, WHITESPACE,
                    WITHHOLDABLE_SET, clip_text, cut_digest, data_text)
from .step_keys import StepKeys
from .usage import LONG_CONTEXT_ABOVE, CallUsage
from .titles import lost_prompt_title
from .tool_runs import tool_run_times
from .usage_relayed import RelayedTool


def relayed_content(n: RelayedTool, rec: dict, withheld: bool, d: dict) -> None:
    """A relayed tool call's text (:class:`~asz_core.view.usage_relayed.RelayedTool`): its copied input as a tool
    step's data is drawn (:func:`~asz_core.view.kinds.data_text`), ``state`` available and its ``bytes``; withheld as
    its copy's record is (its state omitted); ``removed`` and the size its skeleton keeps when retention took it
    (:attr:`~asz_core.view.usage_relayed.RelayedTool.gone`; fix50i)."""
    text = data_text(n.given) if n.given is not None else ""
    if withheld:
        d["state"] = "omitted"
    elif n.gone is not None:  # its copy read from a skeleton: retention took the input, kept its size (fix50i)
        d["state"] = "removed"
        d["bytes"] = n.gone
        return
    else:
        if text:
            d["text"] = text if len(text) <= SHORT_TEXT else clip_text(text)
        d["state"] = "available"
    if text:
        d["bytes"] = len(text.encode("utf-8", "surrogatepass"))

__all__ = ["NodeView", "talk_label"]

_FIRST = itemgetter(0)


class NodeView(StepKeys):
    """Renders nodes with the text of the records they reference."""

    def node(self, n: Node, depth: int = 0) -> dict:
        """One node as the document shows it: envelope, attrs, text and kind-specific keys, children to depth 12, edges
        (:meth:`_node_py`, the definition). In C (``bytescan.draw_node``, issue 22, session 26) where the module was
        built, with its children: the same dict, each piece of a shape the C does not draw handed to the Python
        method that defines it."""
        if bytescan is not None:
            got = bytescan.draw_node(self._drawing(), n, depth)
            if got is not None:
                return got
        return self._node_py(n, depth)

    @cached_property
    def tool_runs(self) -> dict[str, int]:
        """Tool node id -> its own run time in ms as its runtime recorded it (LangSmith; trial 37b F4): the step's
        ``duration_ms`` (:func:`~asz_core.view.tool_runs.tool_run_times`)."""
        return tool_run_times(self.sess, [*self.of_kind("tool"), *self.of_kind("agent.call")])

    def _drawing(self) -> tuple:
        """What ``bytescan.draw_node`` reads (its ``DC_`` order): the view's maps as they are now, the kind sets, the
        types, and the methods that draw what it leaves."""
        cov = self.coverage
        return (self._at, self.at, self.sess.records, self.hide, NO_TEXT, STRUCTURAL_SET, TOOL_KINDS, NOT_CHILDREN,
                self.children, bool(self.media or cov.copies or cov.conflicts or self.tool_runs), self.edges, self._node_py,
                self._talk_keys, self._content, self._call_keys_py, self._record_keys, self._tool_keys_py,
                self._node_extras, self.placed_at, self.call_usage, self.sess.unverified, WITHHOLDABLE_SET,
                LONG_CONTEXT_ABOVE, CallUsage, Node, Ref, self.sess.times, self.step_changes, self.step_executions,
                SHORT_TEXT, clip_text, data_text, CUT_STATES, self.sess.wide_numbers, DATA_DUMPS)

    def _node_py(self, n: Node, depth: int = 0) -> dict:
        """:meth:`node` in Python. Written for speed: the envelope is one dict display; record, refs and the attrs'
        key order looked up inline; attrs are the fold's own dict, not a copy (nothing writes to them)."""
        kind = n.kind
        nid = n.id
        ms = self._at.get(nid)
        if ms is None:
            ms = self.at(n)
        parent, stream = n.parent, n.stream
        if parent and stream:  # nearly every node: the envelope in one display (no growing dict)
            d: dict[str, Any] = {"id": nid, "kind": kind, "parent": parent, "stream": stream, "at": ms}
        else:
            d = {"id": nid, "kind": kind}
            if parent:
                d["parent"] = parent
            if stream:
                d["stream"] = stream
            d["at"] = ms
        ref, refs = n.ref, n.refs
        if ref is not None:
            d["ref"] = {"seq": ref.seq, "row": ref.row} if ref.block is None else {"seq": ref.seq, "row": ref.row, "block": ref.block}
        if refs:
            shown = []  # a loop, not a comprehension: no frame of its own for the usual two refs
            for r in refs:
                shown.append({"seq": r.seq, "row": r.row} if r.block is None else {"seq": r.seq, "row": r.row, "block": r.block})
            d["refs"] = shown
        attrs = n.attrs
        if attrs:
            if "provider_bodies" in attrs:
                attrs = {k: v for k, v in attrs.items() if k != "provider_bodies"}
            if len(attrs) > 1:  # _in_key_order, inline
                keys = tuple(attrs)
                ordered = self._key_order.get(keys)
                if ordered is None:
                    ordered = self._key_order[keys] = list(keys) == sorted(keys)
                d["attrs"] = attrs if ordered else dict(sorted(attrs.items()))
            elif attrs:
                d["attrs"] = attrs
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
            shown = []
            for c in kids:
                if c.kind not in NOT_CHILDREN:
                    shown.append(self.node(c, depth + 1))
            if shown:
                d["children"] = shown
        self._node_extras(nid, d)
        edges = self.edges.get(nid)
        if edges:
            d["edges"] = edges
        return d

    def _node_extras(self, nid: str, d: dict) -> None:
        """A tool step's own run time as its runtime recorded it (``duration_ms``, ``duration_measured_by: runtime``;
        :attr:`tool_runs`, trial 37b F4), a drawn node's ``media`` (issue 18: its images, withheld ones omitted), then
        its record's later ``copies`` and ``conflicts`` (each with its text), when it has any."""
        runs = self.tool_runs
        if runs and nid in runs:
            d["duration_ms"] = runs[nid]
            d["duration_measured_by"] = "runtime"
        media = self.media
        if media and nid in media:
            d["media"] = [m if not (m["kept"] and self._withheld(self.sess.record(Ref(m["ref"]["seq"], m["ref"]["row"]))))
                          else {**m, "state": "omitted", "kept": False} for m in media[nid]]
        cov = self.coverage
        if cov.copies or cov.conflicts:
            for key, crefs in (("copies", cov.copies.get(nid)), ("conflicts", cov.conflicts.get(nid))):
                if crefs:
                    d[key] = [self._copy(r, key == "conflicts") for r in crefs]

    def _content(self, n: Node, ref: Ref, rec: dict, withheld: bool, d: dict) -> None:
        """A step's text, state and bytes from its record: the part its ref names by block, else the record's text
        parts joined; a part without text shows its data; withheld, only its state (omitted) and bytes."""
        if type(n) is not Node and isinstance(n, RelayedTool):  # its request read from a copy (fix50a)
            return relayed_content(n, rec, withheld, d)
        parts = rec.get("parts", ())
        block = ref.block
        if block is not None and not withheld and parts and 0 <= block < len(parts):
            p = parts[block]
            text = p.get("text")
            if text and p["k"] != "unknown":  # the usual step: a part named by its block, with text of its own
                d["text"] = text if len(text) <= SHORT_TEXT else clip_text(text)
                d["state"] = state = p.get("state", "available")
                if p.get("bytes"):
                    d["bytes"] = p["bytes"]
                if state in CUT_STATES:  # made smaller to land: cut_digest's sha256 (asked only then: no call a step)
                    cut_digest(p, d)
                return
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
                d["text"] = text if len(text) <= SHORT_TEXT else clip_text(text)
            d["state"] = p.get("state", "available")
            if p.get("bytes"):
                d["bytes"] = p["bytes"]
            cut_digest(p, d)
            return
        texts = [p["text"] for p in parts if p["k"] in ("text", "reasoning", "result") and p.get("text")]
        if withheld:
            d["state"] = "omitted"
            d["bytes"] = sum(p.get("bytes", 0) for p in parts)
            return
        if texts:
            d["text"] = clip_text("\n".join(texts))
        d["state"] = parts[0].get("state", "available")

    def _steps_in_order(self, nid: str) -> list[Node]:
        """The step nodes under ``nid`` in file order (their ``rank``; equal ranks as :meth:`_steps_under` meets
        them). In C (``bytescan.talk_steps``, issue 22) where the module was built and the nodes are the usual ones:
        the same list."""
        if bytescan is not None:
            got = bytescan.talk_steps(nid, self.children, self.rank, STEP_KIND_SET, Node)
            if got is not None:
                return got
        rank = self.rank
        return [s for _, s in sorted([(rank[s.id], s) for s in self._steps_under(nid)], key=_FIRST)]  # no call per step

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
        """Add a talk's label, reply, counts, times, child or sidechain mark and segment to ``d`` (computed once per
        talk)."""
        if n.id not in self._talk_cache:
            self._talk_cache[n.id] = {}
            self._compute_talk_keys(n, self._talk_cache[n.id])
        d.update(self._talk_cache[n.id])

    def _compute_talk_keys(self, n: Node, d: dict) -> None:
        steps = self._steps_in_order(n.id)
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
        at = self._at  # every node's time, found when the view was indexed
        # in one compiled loop where the module was built (bytescan.talk_counts, session 27): the same four values
        got = bytescan.talk_counts(n, runs, steps, at, TOOL_KINDS, Node) if bytescan is not None else None
        if got is None:
            got = _talk_counts(n, runs, steps, at)
        tools, first, last, tail = got
        if tools:
            d["tools"] = tools
        if first is not None:
            d["from"] = first
            d["to"] = last
            # steps after the last one with a time (Kiro CLI 2.x: every reply and tool after the prompt): ``to`` is
            # not the talk's end, so its length is not known (trial 19, F22)
            if tail:
                d["untimed_end"] = tail
        stream = self.nodes.get(f"stream/{n.stream}")
        if stream is not None and stream.attrs.get("role") in ("child", "auxiliary"):
            d["child"] = True
        elif (opener := self.sess.record(n.ref)) is not None and opener.get("sidechain") is True:
            d["sidechain"] = True  # a sub-agent's talk its lines opened in its parent's stream (trial 31b F5)
            if n.attrs.get("orphan") is True:  # no call and no prompt of their own opened them (field report 34)
                d["orphan"] = True
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


def _talk_counts(n: Node, runs: list[Node], steps: list[Node], at: dict[str, int]) -> tuple:
    """``(tools, first, last, tail)`` of a talk: its steps of a tool kind; the least and greatest true time ``at`` gives
    ``n``, its runs and its steps (None, None when none is true); the steps after the last step with a true time."""
    tools = sum(1 for s in steps if s.kind in TOOL_KINDS)
    times = [t for s in (n, *runs, *steps) if (t := at[s.id])]
    if not times:
        return tools, None, None, len(steps)
    return tools, min(times), max(times), next((i for i, s in enumerate(reversed(steps)) if at[s.id]), len(steps))


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
            return v._node_text(s) or lost_prompt_title(rec.get("parts"))  # its text too large to land (trial 24b F1)
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
