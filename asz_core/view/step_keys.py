"""The keys a step node adds to its envelope (seed 004): a call's model, usage and flags, a record's flags and dropped
bytes, a tool's name, result and timing, and the later copies of its record (issue 18)."""

from __future__ import annotations

from ..flow.model import Node, Ref
from .kinds import CUT_STATES, RESULT_FROM_DATA, SHORT_TEXT, TAKEN_KEYS, TOOL_KINDS, WITHHOLDABLE_SET, clip_text, data_text, taken_keys
from ..sessiondata.numberprobe import bytescan
from .rate_words import kept_text
from .usage import LONG_CONTEXT_ABOVE, CallUsage, is_long
from .usage_relayed import RelayedTool
from .view_base import ViewBase

__all__ = ["StepKeys", "request_entries"]


def request_entries(requests, held: bool) -> list[dict]:
    """An ``llm.call``'s ``requests`` (issue 17: two provider calls under one message id), each with its own usage.

    Per request: ``request``, ``model``, and ``usage`` with ``usage_state`` (``long_context: true`` when its input is
    above 200K tokens; ``usage_incomplete``, the counts its record lists under ``dropped``, as the node's, when some:
    ``/api/usage`` counts each provider call's, fix41b), or ``usage_state: unavailable`` when ``held`` (a landed file
    that does not verify), or no usage at all when that call left none; ``unnamed: true`` on the call counted from fragments naming no request id that
    no record chain ties to one of the named requests (:func:`~asz_core.view.usage.read_call`: it may be part of one)."""
    return [({"request": r.request, "usage_state": "unavailable", "model": r.model} if held else
             {"request": r.request, "model": r.model} if r.usage is None else
             {"request": r.request, "usage": dict(r.usage), "usage_state": r.state, "model": r.model}
             | ({"long_context": True} if is_long(r.usage) else {})
             | ({"usage_incomplete": list(r.incomplete)} if r.incomplete else {})) | ({"unnamed": True} if r.unnamed else {})
            for r in requests]


class StepKeys(ViewBase):
    """The kind-specific keys of a drawn node (:class:`~asz_core.view.nodes.NodeView` draws the envelope and text)."""

    #: ``{llm.call node id: unix ms}``: the calls with no time of their own placed at their turn's recorded end
    #: (:func:`~asz_core.view.turn_places.placed_calls`, set by the document's view), each node's ``placed_at``
    placed_at: dict[str, int] = {}

    def _call_keys(self, n: Node, d: dict) -> None:
        """An ``llm.call``'s model, usage (per provider request when two answered), withholdable flags, provider bodies.
        The usual call (one provider call, nothing unverified, plain counts) in C (``bytescan.call_keys``, issue 22)
        where the module was built: the same keys."""
        cu = self.call_usage[n.id]
        if (placed := self.placed_at.get(n.id)) is not None:  # its turn's recorded end: the usage table's place for it
            d["placed_at"] = placed
        if bytescan is not None and bytescan.call_keys(n, d, cu, self.sess.records, self.sess.unverified, WITHHOLDABLE_SET,
                                                       self.hide, LONG_CONTEXT_ABOVE, CallUsage, Node, Ref) is not None:
            return
        self._call_keys_py(n, d, cu)

    def _call_keys_py(self, n: Node, d: dict, cu: CallUsage) -> None:
        """:meth:`_call_keys` after ``placed_at`` in Python, ``cu`` the call's usage: the definition, and the way for
        any call the compiled one leaves."""
        if cu.synthetic and not cu.requests:  # the runtime wrote it itself (an error notice): no model call, no usage
            d["synthetic"] = True
            return
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
        if rec.get("sidechain") is True and self._orphan_sidechain(n):
            d["sidechain"] = True
        if kind in TOOL_KINDS:
            self._tool_keys(n, d)
        elif kind == "turn.duration" and not withheld:
            for p in rec.get("parts", ()):
                v = p.get("data")
                if isinstance(v, dict) and isinstance(v.get("durationMs"), int):
                    d["duration_ms"] = v["durationMs"]
                    d["duration_measured_by"] = "runtime"
                    break

    def _orphan_sidechain(self, n: Node) -> bool:
        """Whether a step whose record says ``sidechain`` (a sub-agent's line in its parent's file) is drawn in a talk
        its parent's lines opened: no call started it and no prompt of its own opened a talk for it (field report 34,
        trial 43c F6), so the head counts its call under subagents while it sits among the parent's steps. A step of
        an old sidechain's own talk (its opening record says ``sidechain``: the talk's ``sidechain``) is not one."""
        nodes = self.nodes
        cur = nodes.get(n.parent) if n.parent else None
        for _ in range(16):  # a step, its call, its run, its talk: a few hops
            if cur is None or cur.kind == "talk":
                break
            cur = nodes.get(cur.parent) if cur.parent else None
        if cur is None or cur.kind != "talk":
            return False
        opener = self.sess.record(cur.ref) if cur.ref is not None else None
        return not (opener is not None and opener.get("sidechain") is True)

    def _copy(self, ref: dict, with_text: bool) -> dict:
        """A later copy of a node's record (issue 18): its ref, and for a conflict its own text."""
        out = dict(ref)
        rec = self.sess.record(Ref(ref["seq"], ref["row"]))
        if with_text and rec is not None and not self._withheld(rec):
            texts = [p["text"] for p in rec.get("parts", ()) if p["k"] in ("text", "reasoning", "result") and p.get("text")]
            if texts:
                out["text"] = clip_text("\n".join(texts))
        return out

    def _tool_keys(self, n: Node, d: dict) -> None:
        """A tool node's name, failure, result (text, state, bytes), request-to-result time and observed changes and
        executions. The usual tool (at most two refs, a result part with text or data, nothing dropped or withheld)
        in C (``bytescan.tool_keys``, issue 22) where the module was built: the same keys in the same order. A result
        made smaller to land (``result_state`` in :data:`~asz_core.view.kinds.CUT_STATES`) is read by the Python, which
        adds its ``result_sha256`` (trial 24b F1): the keys the compiled one wrote are taken back first."""
        had = len(d)
        if bytescan is not None and bytescan.tool_keys(n, d, self.sess.records, self.sess.times, self.hide,
                                                       self.step_changes, self.step_executions, SHORT_TEXT, clip_text,
                                                       data_text, Node, Ref) is not None:
            if d.get("result_state") not in CUT_STATES and not (d.get("result_state") == "removed" and d.get("result")):
                return  # a skeleton's result keeping its runtime's fixed wording is read by the Python (kept_text)
            for k in list(d)[had:]:  # the keys it added, in insertion order after the ones d held
                del d[k]
        self._tool_keys_py(n, d)

    def _tool_keys_py(self, n: Node, d: dict) -> None:
        """:meth:`_tool_keys` in Python: the definition, and the way for any tool the compiled one leaves."""
        if type(n) is not Node and isinstance(n, RelayedTool):  # a sub-agent's tool call read from copies (fix50a)
            return self._relayed_tool_keys(n, d)
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
            text = kept_text(p)  # with a marker where retention took what followed a kept fixed wording (47a F1)
            from_data = False
            if not text:
                data = p.get("data")
                text = data_text(data) if data is not None else ""
                from_data = bool(text)
            if text:
                d["result"] = text if len(text) <= SHORT_TEXT else clip_text(text)
                if from_data:  # seed 004: the part's data when it has no text; said, since the model saw no text
                    d["result_from"] = RESULT_FROM_DATA
            d["result_state"] = p.get("state", "available")
            d["result_bytes"] = p.get("bytes", 0)
            if p.get("sha256") and d["result_state"] in CUT_STATES:  # what was taken out, to match a copy against
                taken_keys(rec, r.block if r.block is not None else parts.index(p), p, d)  # result_sha256 (40c F1)
            result_set = bool(text)
            if rec.get("dropped"):
                self._companion_keys(rec, d)
        self._tool_tail(n, d, failed)

    def _relayed_tool_keys(self, n: RelayedTool, d: dict) -> None:
        """A relayed tool call's keys (:class:`~asz_core.view.usage_relayed.RelayedTool`), as :meth:`_tool_keys_py`
        draws a tool's from its parts: ``name``, ``failed`` as its copied result says (absent when it says nothing, or
        no copy of the result landed: ``attrs.result`` ``not_copied``, never a failure), ``result``,
        ``result_state`` and ``result_bytes`` of that copy, withheld as its record is (read from a skeleton,
        ``result_state`` ``removed`` and the size its skeleton keeps: fix50i); then the shared keys."""
        if n.attrs.get("name"):
            d["name"] = n.attrs["name"]
        got = n.answer
        if got is not None:
            rec = self.sess.record(n.refs[-1]) if len(n.refs) > 1 else None
            text = got["text"]
            if self.hide and rec is not None and self._withheld(rec):
                d["result_state"] = "omitted"
            elif "removed" in got:  # its copy read from a skeleton: retention took the text, kept its size (fix50i)
                d["result_state"] = "removed"
            else:
                if text:
                    d["result"] = text if len(text) <= SHORT_TEXT else clip_text(text)
                d["result_state"] = "available"
            d["result_bytes"] = got["removed"] if "removed" in got else len(text.encode("utf-8", "surrogatepass"))
        self._tool_tail(n, d, got.get("failed") if got is not None else None)

    def _tool_tail(self, n: Node, d: dict, failed) -> None:
        """What every tool's keys end with: ``failed`` right after ``name``, the request-to-result time and the
        observed changes and executions."""
        attrs, refs = n.attrs, n.refs
        if failed is not None:
            d["failed"] = failed
            # keep the documented key order: failed comes right after name
            for k in ("result", "result_from", "result_state", "result_bytes", "result_sha256", *TAKEN_KEYS):
                if k in d:
                    d[k] = d.pop(k)
        if len(refs) >= 2 and attrs.get("result_join") == "exact_unique":
            times, a, b = self.sess.times, refs[0], refs[1]  # sess.time of each, inline
            ta, tb = times.get(a.seq), times.get(b.seq)
            t0 = ta[a.row - 1] if ta is not None and 1 <= a.row <= len(ta) else None
            t1 = tb[b.row - 1] if tb is not None and 1 <= b.row <= len(tb) else None
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
