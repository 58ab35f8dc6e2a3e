"""The folded entities of a conversation indexed for the document: what every part of the view reads (seed 004)."""

from __future__ import annotations

from contextvars import ContextVar

import msgspec

from ..flow.fold import Fold
from ..flow.model import Node, Ref, Relation
from ..sessiondata.numberprobe import bytescan
from ..sessiondata.untimed import UNTIMED_PREFIX, untimed, untimed_said
from ..sessiondata.vocabulary import TWICE_DROPPED, USAGE_DROPPED
from ..termsafe import shell_word
from .arguments_check import hold_all, observation_entries, record_line
from .chain import ChainReader
from .companions import Companions
from .coverage import carries_text, cited_by, superseded_documents
from .coverage import measure as measure_coverage
from .kinds import position
from .links import Links, calls_there
from .media import media_of
from .session_records import LandedSession
from .usage import CallUsage, folded_copies, incomplete_lines, mark_rates_unchecked, outside_call_lines, rates_unchecked, read_call, undescribed_call_lines, \
    unended_lines, unnamed_call_lines
from .usage_relayed import relayed_lines, relayed_view
from .unended import caught_lines, gap_lines, lost_lines, partly_lines

__all__ = ["NOTICES_READ", "ViewBase", "untimed_lines"]


class ViewBase(Companions):
    """The folded entities indexed for rendering: file order, children, edges, talks, observations and call usage."""

    def __init__(self, b: ChainReader, fold: Fold, sess: LandedSession, links: Links | None = None):
        self.b = b
        self.fold = fold
        self.sess = sess
        self.hide = set(b.hide)
        self.links = links or Links()
        self._streams: dict[int, str] = {}  # seq -> its stream name
        #: sub-agent calls seen only in progress records, each an llm.call node here ({} nearly always; trial 48a F1)
        self.relayed, self.nodes, relayed = relayed_view(sess, fold.nodes, self.links.evidence, self._stream_of)
        self._talk_cache: dict[str, dict] = {}
        self._key_order: dict[tuple, bool] = {}  # a set of attrs keys -> whether it is sorted already (drawing)
        self._at: dict[str, int] = {}
        self._lanes: dict[str, str] = {}  # stream name -> a call's lane
        self.rank, self.children = self._in_file_order(sess.times)
        self.ordered_relations = sorted(fold.relations.values(), key=self._relation_key)
        self.edges: dict[str, list[dict]] = {}
        #: (type, to) -> relations, in document order (a stream's opener, a segment's talks)
        self.relations_to: dict[tuple[str, str], list[Relation]] = {}
        for r in self.ordered_relations:
            self.relations_to.setdefault((r.type, r.to), []).append(r)
            self.edges.setdefault(r.from_, []).append({"type": r.type, "other": r.to, "dir": "out", "quality": r.quality, "via": r.via})
            self.edges.setdefault(r.to, []).append({"type": r.type, "other": r.from_, "dir": "in", "quality": r.quality, "via": r.via})
        self.changes, self.executions, self.step_changes, self.step_executions, self.unrecorded = self._observations()
        self.call_usage: dict[str, CallUsage] = {**self._call_usages(), **relayed} if relayed else self._call_usages()
        unchecked = {seq for seq, h in sess.headers.items() if h is not None and rates_unchecked(h.dialect, h.adapter)}
        if unchecked:  # files landed before their adapter looked at a call's rate: their calls are said not checked
            mark_rates_unchecked(self.call_usage, self.nodes, unchecked)
        #: llm.call node id -> the session counting it, not this one (:func:`~asz_core.view.links.calls_there`; {} nearly always)
        self.there: dict[str, str] = calls_there(sess, self.nodes, self.call_usage, self.links)
        #: issue 18: ``unres/parent/<id>`` entries of the document (set by the document builder)
        self.dangling: list[dict] = []
        self.media = media_of(self.sess.media_parts(), self.nodes.values())  # issue 18: images said on their steps
        #: issue 18: every record with content drawn by a node or listed in ``not_drawn``
        step_cited = cited_by(self.nodes.values())
        #: talk id -> the record its ``prompt`` shows: a talk's first record no step draws (a child's prompt)
        self.prompts: dict[str, Ref] = {}
        for n in self.of_kind("talk"):
            if n.ref is not None and (n.ref.seq, n.ref.row) not in step_cited \
                    and carries_text(self.sess.record(n.ref)):
                self.prompts[n.id] = n.ref
        shown = {(r.seq, r.row): t for t, r in self.prompts.items()}
        shown.update(self._companions_shown(step_cited))  # a companion file is shown by the step it completes
        self.coverage = measure_coverage(self.sess.records, self.nodes.values(),
                                         ((seq, row) for seq, row, _, p in sess.listed_parts() if p["k"] == "unknown"),
                                         shown, fold.unresolved, superseded_documents(sess.records, {
                                             seq: (h.kind, h.stream or "main") for seq, h in sess.headers.items() if h is not None}),
                                         self.links.evidence, step_cited, sess.content(), sess.ids)

    # ------------------------------------------------------------------ helpers

    def of_kind(self, kind: str) -> list[Node]:
        """The nodes of ``kind`` in the fold's order (``[]`` for none). The first ask indexes every kind in one pass
        over the nodes, which the document's lists (talks, streams, segments, the title) each walked for their own
        kind; the nodes are not changed after the view is made."""
        by = self.__dict__.get("_by_kind")
        if by is None and bytescan is not None:  # the same index in one compiled loop (session 27)
            by = self._by_kind = bytescan.by_kind(self.nodes, Node)
        if by is None:
            by = self._by_kind = {}
            for n in self.nodes.values():
                got = by.get(n.kind)
                if got is None:
                    by[n.kind] = [n]
                else:
                    got.append(n)
        return by.get(kind, [])

    def _time(self, ref: Ref | None) -> int | None:
        return self.sess.time(ref)

    def _in_file_order(self, times: dict[int, list], compiled: bool = True) -> tuple[dict[str, int], dict[str, list[Node]]]:
        """``(rank, children)``: each node's place in file order (seq, row, block of its first ref; then id) and each
        parent's children in that order, a talk's steps following it; each node's time (:meth:`at`) is put in
        ``self._at`` in the same walk (every node is drawn, so every one is asked for). In one compiled loop
        (``bytescan.order_nodes``, issue 22) where the module was built; ``compiled=False`` runs the Python."""
        if compiled and bytescan is not None:
            got = bytescan.order_nodes(self.nodes, times, self._at, Node, Ref)
            if got is not None:
                return got
        keyed = []
        for n in self.nodes.values():
            r = n.ref or (n.refs[0] if n.refs else None)
            if r is None:
                keyed.append((1 << 62, 0, 0, n.id, n))
                self._at[n.id] = 0
                continue
            keyed.append((r.seq, r.row, -1 if r.block is None else r.block, n.id, n))  # flat: a third of the sort's time
            ts = times.get(r.seq)
            t = ts[r.row - 1] if ts is not None and 1 <= r.row <= len(ts) else None
            self._at[n.id] = 0 if t is None else t // 1_000_000
        keyed.sort()  # ids are unique: the node itself is never compared
        in_order = [k[4] for k in keyed]
        rank = {n.id: i for i, n in enumerate(in_order)}
        children: dict[str, list[Node]] = {}
        for n in in_order:
            children.setdefault(n.parent, []).append(n)
        return rank, children

    def _call_usages(self, compiled: bool = True) -> dict[str, CallUsage]:
        """Each ``llm.call`` node's id -> its usage (:meth:`_read_call`), in node order. The usual call (one or two
        fragments on its own stream naming one request, plain counts) is read by the compiled
        ``bytescan.call_usages`` where it was built (issue 22), every other by :meth:`_read_call`: the same values."""
        if compiled and bytescan is not None:
            for seq in self.sess.headers:  # every landed file's stream, as _stream_of caches it
                self._stream_of(seq)
            got = bytescan.call_usages(self.nodes, self.sess.records, self.sess.times, self._streams, self._lanes,
                                       self.sess.unverified, CallUsage, self._read_call, Node, Ref,
                                       USAGE_DROPPED)  # a call with a usage count or rate dropped: _read_call
            if got is not None:
                return got
        return {n.id: self._read_call(n) for n in self.nodes.values() if n.kind == "llm.call"}

    def counted_calls(self) -> dict[str, CallUsage]:
        """:attr:`call_usage` less the calls counted in another session (:attr:`there`): what the figures count."""
        if not self.there:
            return self.call_usage
        return {k: cu for k, cu in self.call_usage.items() if k not in self.there}

    def read_call(self, n: Node) -> CallUsage:
        """:meth:`_read_call` of ``n`` (a node of this view, or one whose refs were narrowed: what a call counted when
        only some of its records had landed, ``document.checked_call_ids_within``)."""
        return self._read_call(n)

    def _read_call(self, n: Node) -> CallUsage:
        """A call's usage from its fragments in landed order; its lane from its stream's role, ``subagent`` for a call
        on the main stream one of whose own records says ``sidechain`` (a sub-agent's line in its parent's file, as
        Claude Code 1.0.x wrote them; docs/view.md, ``usage_by_lane``).

        The fragments on the call's own stream (the stream of its first landed fragment) are read first: a copy of the
        call in another stream (a side question replaying its parent's responses, field report 13) may hold an earlier
        snapshot and never replaces the call's own last one. Only a call with no usage on its own stream takes it from
        its copies."""
        lane = self._lanes.get(n.stream)
        if lane is None:
            stream = self.nodes.get(f"stream/{n.stream}")
            lane = self._lanes[n.stream] = "main" if stream is None or stream.attrs.get("role", "main") == "main" else "subagent"
        refs = n.refs or ([n.ref] if n.ref else [])
        if len(refs) == 2:  # most calls: two fragments, nearly always in landed order already (sorted stably otherwise)
            a, b = refs
            if a.seq > b.seq or a.seq == b.seq and (a.row > b.row or a.row == b.row and position(a) > position(b)):
                refs = [b, a]
        elif len(refs) > 2:
            refs = sorted(refs, key=position)
        finished = n.attrs.get("usage") == "observed_replayable"
        streams, stream_of, records, times = self._streams, self._stream_of, self.sess.records, self.sess.times
        pairs = []  # (record, instant) of each ref on the call's own stream, (None, None) for one that did not land
        others = []
        for r in refs:
            recs = records.get(r.seq)
            row = r.row
            pair = (recs[row - 1], times[r.seq][row - 1]) if recs is not None and 0 < row <= len(recs) else (None, None)
            (pairs if (streams.get(r.seq) or stream_of(r.seq)) == n.stream else others).append(pair)
        if lane == "main" and any(rec is not None and rec.get("sidechain") is True for rec, _ in pairs):
            lane = "subagent"  # a sub-agent's call written into its parent's file (Claude Code 1.0.x; trial 31b F5)
        got = read_call(pairs, finished, lane)
        if got.usage is None and others:
            at = self.sess.record_and_time
            got = read_call([at(r) for r in refs], finished, lane)
        got = folded_copies(got, pairs, others)  # copies under request ids of their own: ccusage 18 counted each again
        unverified = self.sess.unverified
        if unverified and any(r.seq in unverified for r in refs):  # read from a file that does not verify: its model
            # is no fact (as its text and usage are held back), so no list, summary or cache names it: as if deleted
            got = msgspec.structs.replace(got, model="", requests=tuple(msgspec.structs.replace(q, model="") for q in got.requests))
        return got

    def _stream_of(self, seq: int) -> str:
        """The stream of landed file ``seq`` (``main`` when its header names none)."""
        name = self._streams.get(seq)
        if name is None:
            h = self.sess.headers.get(seq)
            name = self._streams[seq] = (h.stream if h is not None else "") or "main"
        return name

    def _relation_key(self, r: Relation) -> tuple:
        best = None
        for e in r.evidence:
            t = self._time(e)
            key = (0 if t is not None else 1, t or 0, position(e))
            if best is None or key < best:
                best = key
        return (best or (2, 0, (0, 0, 0)), r.id)

    def _talk(self, n: Node | None) -> str:
        """The talk ``n`` is in (itself when a talk): the first talk up its parents, at most 64 up; '' when none (or no node)."""
        seen = 0
        cur: Node | None = n
        while cur is not None and seen < 64:
            if cur.kind == "talk":
                return cur.id
            cur = self.nodes.get(cur.parent)
            seen += 1
        return ""

    def _withheld(self, rec: dict | None) -> bool:
        return bool(self.hide) and rec is not None and not self.hide.isdisjoint(rec.get("flags", ()))

    def _first_ref(self, n: Node) -> Ref | None:
        return n.ref or (n.refs[0] if n.refs else None)

    def at(self, n: Node) -> int:
        """A node's time: its first record's instant in unix ms (rounded down), 0 when it has none (computed once per node)."""
        ms = self._at.get(n.id)
        if ms is None:
            t = self.sess.time(n.ref or (n.refs[0] if n.refs else None))
            ms = self._at[n.id] = 0 if t is None else t // 1_000_000
        return ms

    # ------------------------------------------------------------------ nodes

    def _observations(self):
        changes, executions = observation_entries(self.sess.listed_parts())
        step_changes: dict[str, list[str]] = {}
        step_executions: dict[str, list[str]] = {}
        for lst, by_step in ((changes, step_changes), (executions, step_executions)):
            for e in lst:
                tool = e.get("tool") or ""
                node = self.nodes.get(f"tool/{tool}") if tool else None
                if node is not None:
                    e["step"] = node.id
                    by_step.setdefault(tool, []).append(e.get("id", ""))
                else:
                    e.pop("step")
        unrecorded: list[dict] = []  # the MCP calls no execution record covers (trial 33b F1), none withheld
        if executions:
            sess, hid = self.sess, lambda seq, row: self._withheld(sess.record(Ref(seq, row)))
            records = ((seq, row, rec) for seq in sorted(sess.records) for row, rec in enumerate(sess.records[seq], 1))
            _, unrecorded = hold_all(executions, records, removed=sess.removed_at.__contains__, unverified=sess.unverified.__contains__,
                                     withheld=hid, line=lambda seq, row: record_line(sess.files, sess.bound_lines, sess.root, seq, row),
                                     record=lambda seq, row: sess.record(Ref(seq, row)))
            unrecorded = [c for c in unrecorded if not hid(c["ref"]["seq"], c["ref"]["row"])]
        return changes, executions, step_changes, step_executions, unrecorded

    def usage_lines(self) -> list[str]:
        """The ``summary.problems`` lines on usage, in this order: each call whose usage lacks a count (``usage.incomplete_lines``), the
        records with usage no call holds (``outside_call_lines``), the transcript records no call could be read from (``undescribed_call_lines``),
        the calls counted from fragments naming no request id beside two or more that do (``unnamed_call_lines``), the calls read from another
        stream's copies (``usage_relayed.relayed_lines``), the runs that started and never ended (``unended_lines``), the runs landed with what is
        known (``unended.partly_lines``), the questions whose trace never arrived (:func:`lost_lines`), the root's gaps within the conversation's
        span (:func:`gap_lines`), the steps that failed while the run above went on (:func:`caught_lines`)."""
        return (incomplete_lines(self.call_usage) + outside_call_lines(self.children, self.sess.record, self.sess.records)
                + undescribed_call_lines(self.sess.headers, self.sess.records, self.sess.listed_parts())
                + unnamed_call_lines(self.call_usage, self.nodes, self.sess.record)
                + relayed_lines(self.relayed)
                + unended_lines(self.sess.headers, self.sess.records) + partly_lines(self.sess.headers, self.sess.records)
                + lost_lines(self.sess.headers, self.sess.records) + gap_lines(self.sess.root, self.sess.headers, self.sess.records) + caught_lines(self.sess.headers, self.sess.records))

    def twice_lines(self) -> list[str]:
        """The ``summary.problems`` line (:data:`TWICE_PREFIX`) naming the landed records that list under ``dropped`` the
        earlier value of a key their source line gave twice in one object (the last is read, as JSON readers read it:
        :data:`~asz_core.sessiondata.vocabulary.TWICE_DROPPED`, trial 27c F9): how many, and at most 10 as
        ``seq/row`` with the fields. [] when none (nearly always)."""
        n = len(TWICE_DROPPED)
        found = []
        for seq in sorted(self.sess.records):
            for row, rec in enumerate(self.sess.records[seq], 1):
                if "dropped" not in rec:
                    continue
                paths = [w[n:] for d in rec["dropped"] or () if isinstance(d, dict)
                         and isinstance(w := d.get("what"), str) and w.startswith(TWICE_DROPPED)]
                if paths:
                    found.append(f"{seq}/{row} {', '.join(paths)}")
        if not found:
            return []
        return [f"{TWICE_PREFIX}{len(found)} record(s) whose source line gives a key twice in one object: the last value "
                f"is read, as JSON readers read it, and each earlier one is listed under dropped: "
                f"{'; '.join(found[:10])}{'; …' if len(found) > 10 else ''}"]

    def reread_lines(self) -> list[str]:
        """The ``summary.problems`` lines of person's messages (``message.external`` steps) the chain holds for records
        their adapter reads otherwise today (:meth:`~asz_core.plugins.adapter.Adapter.read_today`: an earlier adapter
        version flagged them by an earlier rule; a Claude Code bash-mode command's output before ``claude-code-local/0.3.0``),
        one per landing adapter and reason: ``N record(s) landed by claude-code-local/0.2.0 read by that version's rule
        in this conversation's rounds (today's rule: a bash-mode command's output is no typed prompt); asz parse SESSION
        --root ROOT reads them …``. A parse by
        this asz reads them today (asz_core.flow.reread), so a chain parsed since has none. [] when none."""
        from .titles import ask_adapter

        counts: dict[tuple[str, str], int] = {}
        sess = self.sess
        # seq -> its header names another version than the installed adapter's: the hook is asked of those files' records
        # only (Adapter.read_today); a session every file of which the installed versions landed has no node to look at
        earlier = {seq: _another_version(h) for seq, h in sess.headers.items() if h is not None}
        if not any(earlier.values()):
            return []
        for n in self.nodes.values():
            if n.kind != "message.external" or n.ref is None or n.ref.block is not None:
                continue
            hdr = sess.headers.get(n.ref.seq)
            if hdr is None or not earlier.get(n.ref.seq):
                continue
            rec = sess.record(n.ref)
            if rec is None or "external_input" not in (rec.get("flags") or ()):
                continue
            why = _reread_why(ask_adapter(hdr.dialect, "read_today", hdr.adapter, rec))
            if isinstance(why, str) and why:
                counts[(hdr.adapter, why)] = counts.get((hdr.adapter, why), 0) + 1
        return [reread_line(n, adapter, why, sess.session, sess.root) for (adapter, why), n in counts.items()]


#: Whether a record an adapter reads today as the runtime's notice (Claude Code's interrupt notice, 65cc2646) is said
#: among a round's re-read records (:meth:`ViewBase.reread_lines`): False while a copy of render 18 or before is drawn
#: again (:func:`~asz_core.reading.export_render.drawing`), whose asz said none.
NOTICES_READ: ContextVar[bool] = ContextVar("asz_notices_read", default=True)


def _reread_why(got: object) -> str | None:
    """The ``why`` of an adapter's :meth:`read_today` answer ``got``; None when it gives none, or when it flags the
    record ``notice`` and :data:`NOTICES_READ` is False (an older copy drawn again)."""
    if not isinstance(got, dict) or "notice" in (got.get("flags") or ()) and not NOTICES_READ.get():
        return None
    return got.get("why")


#: How a ``summary.problems`` line about keys given twice in a source line starts (:meth:`ViewBase.twice_lines`).
TWICE_PREFIX = "keys given twice: "


def untimed_lines(sess: LandedSession) -> list[str]:
    """The ``summary.problems`` line (:data:`~asz_core.sessiondata.untimed.UNTIMED_PREFIX`) naming ``sess``'s landed
    records whose ``time`` is given and does not read as an RFC 3339 time (the runtime's value as written: trial 30a
    F8), each as its landed file (under the root) and line with its value, in the words ``asz collect`` and
    ``asz verify`` say them in (:func:`~asz_core.sessiondata.untimed.untimed_said`). [] when none (nearly always:
    only a record whose parsed time is None is looked at)."""
    found = []
    for seq in sorted(sess.records):
        times, recs = sess.times.get(seq) or (), sess.records[seq]
        for row, ns in enumerate(times, 1):
            if ns is None and row <= len(recs) and untimed(t := recs[row - 1].get("time")):
                found.append((sess.files[seq]["file"], row + 1, t))
    return [UNTIMED_PREFIX + untimed_said(found, shown=10)] if found else []


def reread_line(n: int, adapter: str, why: str, session: str, root: object) -> str:
    """The problem line of :meth:`ViewBase.reread_lines`: ``n`` records landed by ``adapter`` that its adapter reads
    otherwise today (``why``), in the rounds of ``session``'s chain under ``root``, and the command that reads them
    today (docs/storage-root.md, "A root several asz versions read")."""
    return (f"{n} record(s) landed by {adapter} read by that version's rule in this conversation's rounds (today's rule: "
            f"{why}); asz parse {shell_word(session)} --root {shell_word(root)} reads them by today's rule (it writes a round; the landed files "
            "stay as they landed)")


def _another_version(hdr) -> bool:
    """True when an installed adapter speaks ``hdr.dialect`` and ``hdr.adapter`` (a landed file's header,
    ``name/version``) names another version than its own: the only files whose records
    :meth:`~asz_core.plugins.adapter.Adapter.read_today` is asked of (as :mod:`asz_core.flow.reread` asks it)."""
    from ..plugins.manager import adapter_for_dialect

    adapter = adapter_for_dialect(hdr.dialect) if hdr.dialect else None
    return adapter is not None and hdr.adapter != f"{adapter.name}/{adapter.version}"
