"""Parse's windows: one session's candidate rounds, weighed against the round budget (origin-digest §4.3).

:class:`SessionParse` holds what one session's parse reads again and again
(the engine's handle, cached assemblies and their entity bodies, the landed
files up to the watermark); :meth:`SessionParse.next_round` picks the widest
window that fits the budget, weighing each :class:`Candidate` by its exact
size (:func:`~asz_core.flow.round.round_size`) and writing only the one taken.
Split from :mod:`asz_core.flow.parse` (the chain, the lock, the outcome).
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

import attrs

from ..sessiondata.times import format_rfc3339
from ..storage.layout import landed_files
from .diff import diff_assembly, file_time_range, header_counts, time_str
from .fold import Fold
from .model import PARSER, POLICY, Assembly
from .round import Round, RoundHeader, build_round, entity_body, frame_head, input_digest, landed_file_digest, round_size

__all__ = ["SessionParse", "Window", "Candidate", "ASSEMBLY_CACHE"]

#: Assemblies kept per parse call, by through_seq (narrowing retries and the next window reuse them).
ASSEMBLY_CACHE = 4


class Window:
    """Builds candidate rounds for one window [fold.through_seq + 1, through] over one fold."""

    def __init__(self, ctx: "SessionParse", fold: Fold):
        self.ctx = ctx
        self.fold = fold

    def candidate(self, through: int) -> "Candidate":
        """The round of the window through ``through``, weighed (its exact size) but not yet written."""
        ctx, fold = self.ctx, self.fold
        asm = ctx.assembly(through)
        from_seq = fold.through_seq + 1
        digests = ctx.digests(from_seq, through)
        lo, hi = ctx.time_range(from_seq, through)
        counts = header_counts(asm)
        s_from, _ = time_str(asm.counts.get("session_from_time"))
        s_through, _ = time_str(asm.counts.get("session_through_time"))
        if not s_from or not s_through:
            s_lo, s_hi = ctx.time_range(1, through)
            s_from = s_from or s_lo
            s_through = s_through or s_hi
        header = RoundHeader(
            conversation=ctx.conversation,
            session=ctx.session,
            round=fold.rounds + 1,
            from_seq=from_seq,
            through_seq=through,
            input_digest=input_digest(fold.input_digest, digests),
            previous=fold.head_digest,
            parser=PARSER,
            policy=POLICY,
            from_time=lo,
            through_time=hi,
            session_from_time=s_from,
            session_through_time=s_through,
            **counts,
        )
        want_body = ctx.body
        nodes, rels, unres = diff_assembly(fold, asm, ctx.fold_body, want_body, same=ctx.same_as_written)
        for group in (nodes, rels, unres):
            ctx.weigh(group)
        size = round_size(header, nodes, rels, unres, bodies=want_body, weights_by_id=ctx.weights)
        return Candidate(size, (header, nodes, rels, unres, want_body))


@attrs.define
class Candidate:
    """A candidate round: its file's ``size`` and what :func:`build_round` writes it from (built only when taken)."""

    size: int
    parts: tuple

    def build(self) -> Round:
        header, nodes, rels, unres, body = self.parts
        return build_round(header, nodes, rels, unres, bodies=body)


class SessionParse:
    """One session's parse: the engine's handle, cached assemblies, and the landed files up to the watermark.

    When the handle is an index offering ``files``/``file_digests``/``time_range``
    (asz_core.flow.index.Index), the window's files, digests and record-time
    range come from it; otherwise from the landed files on disk.
    """

    def __init__(self, root: Path, session: str, conversation: str, engine: FlowEngine, budget: int):
        self.root = root
        self.session = session
        self.conversation = conversation
        self.engine = engine
        self.budget = budget
        self.handle: Any = None
        self.files: list[tuple[int, Path]] = []
        self.hint: int | None = None  # the window width (files - 1) the previous round took
        self._asm: OrderedDict[int, Assembly] = OrderedDict()
        #: entity bodies by the entity object's ``id()`` (the object kept with its body, alive as long as this parse, so
        #: no other object takes its id): assemblies share step nodes
        self._bodies: dict[int, tuple[Any, bytes]] = {}
        #: the length of each encoded entity's frame opening and body, by ``id()`` of the object kept in ``_bodies``
        self.weights: dict[int, int] = {}
        #: (type, id) -> the assembly's object a round of this parse wrote for that id last (its body is the fold's)
        self._written: dict[tuple[type, str], Any] = {}
        self._fold_bodies: dict[tuple[type, str, int], bytes] = {}  # the chain's entities' bodies, by revision
        self._digests: dict[Path, str] = {}
        self._times: dict[Path, tuple[int, int] | None] = {}
        self._sizes: dict[int, int] | None = None

    def start(self, sdir: Path, watermark: int) -> None:
        """Fix the file list at the watermark (from the index when it lists files)."""
        idx_files = getattr(self.handle, "files", None)
        if idx_files is not None and hasattr(self.handle, "file_digests"):
            self.files = [(f.seq, sdir / f.path) for f in idx_files if f.seq <= watermark]
        else:
            self.files = [(ln.seq, p) for ln, p in landed_files(sdir, skeletons=True) if ln.seq <= watermark]

    def assembly(self, through: int) -> Assembly:
        """The engine's assembly through ``through`` (kept for retries and the next window)."""
        if through in self._asm:
            self._asm.move_to_end(through)
            return self._asm[through]
        asm = self.engine.assemble(self.handle, through, self.conversation)
        self._asm[through] = asm
        while len(self._asm) > ASSEMBLY_CACHE:
            self._asm.popitem(last=False)
        return asm

    def forget_through(self, seq: int) -> None:
        """Drop the cached assemblies through ``seq`` or less (the chain covers them: no window ends there again)."""
        for through in [t for t in self._asm if t <= seq]:
            del self._asm[through]

    def body(self, e: Any) -> bytes:
        """:func:`entity_body` of an assembly's entity, encoded once per object (assemblies of one parse share the
        step nodes made of the same inputs, which are never changed once made: ``assemble``'s ``memo``)."""
        got = self._bodies.get(id(e))
        if got is not None:  # the object is kept alive beside its body: its id names no other object meanwhile
            return got[1]
        b = entity_body(e)
        self._bodies[id(e)] = (e, b)
        self.weights[id(e)] = len(frame_head(e)) + len(b)
        return b

    def weigh(self, entities: list) -> None:
        """Encode every entity of ``entities`` not yet encoded (tombstones left out), so :attr:`weights` holds the
        length of each one's frame opening and body (:func:`~asz_core.flow.round.round_size`'s ``weights_by_id``)."""
        weights, bodies = self.weights, self._bodies
        for e in [e for e in entities if id(e) not in weights and not e.tombstone]:  # one test each, no id set
            b = entity_body(e)  # :meth:`body`, whose lookup misses here (no weight, no body)
            bodies[id(e)] = (e, b)
            weights[id(e)] = len(frame_head(e)) + len(b)

    def same_as_written(self, e: Any) -> bool:
        """True when ``e`` is the very object whose body the chain's head holds for its id (a step node an earlier
        assembly made and a round wrote: its body is the fold's, unchanged; ``diff_assembly``'s ``same``)."""
        return self._written.get((type(e), e.id)) is e

    def taken(self, cand: "Candidate", r: Round) -> None:
        """Keep the bodies of the round just written as the chain's (:meth:`fold_body`): the fold holds copies of its
        entities at its revision, whose bodies are the same bytes (a body leaves the revision out)."""
        _header, nodes, rels, unres, body = cand.parts
        for group in (nodes, rels, unres):
            for e in group:
                key = (type(e), e.id)
                if e.tombstone:
                    self._written.pop(key, None)
                else:
                    self._fold_bodies[(type(e), e.id, r.header.round)] = body(e)
                    self._written[key] = e

    def fold_body(self, e: Any) -> bytes:
        """:func:`entity_body` of a chain entity (one id has one body per revision), encoded once a parse."""
        key = (type(e), e.id, e.revision)
        b = self._fold_bodies.get(key)
        if b is None:
            b = self._fold_bodies[key] = entity_body(e)
        return b

    def digests(self, from_seq: int, through: int) -> list[str]:
        """Whole-file SHA-256 hex of every landed file in the window."""
        if hasattr(self.handle, "file_digests"):
            return list(self.handle.file_digests(from_seq, through))
        out = []
        for s, p in self.files:
            if from_seq <= s <= through:
                if p not in self._digests:
                    self._digests[p] = landed_file_digest(p)
                out.append(self._digests[p])
        return out

    def time_range(self, from_seq: int, through: int) -> tuple[str, str]:
        """(earliest, latest) record time of the window's files as RFC 3339 UTC; ('', '') when none."""
        if hasattr(self.handle, "time_range"):
            tr = self.handle.time_range(from_seq, through)
            return (tr[0], tr[1]) if tr else ("", "")
        lo = hi = None
        for s, p in self.files:
            if not from_seq <= s <= through:
                continue
            if p not in self._times:
                self._times[p] = file_time_range(p)
            tr = self._times[p]
            if tr is not None:
                lo = tr[0] if lo is None or tr[0] < lo else lo
                hi = tr[1] if hi is None or tr[1] > hi else hi
        return (format_rfc3339(lo), format_rfc3339(hi)) if lo is not None else ("", "")

    def next_round(self, fold: Fold, watermark: int) -> Round:
        """The next round: the widest window up to the watermark that fits the budget (one landed file at least).

        Candidate ends are the landed files' seqs in the window, the last one
        replaced by the watermark. The search starts from the width the
        previous round took (the whole window for a parse's first round).
        When that does not fit, the next probe is the widest window whose
        landed bytes, at the bytes per landed byte of the probe that did not
        fit, would fit; from a window that fits the search gallops wider,
        then bisects; the narrowest window is taken whatever its size.
        Candidates are weighed by size and only the one taken is written.
        Assumes a wider window never makes a smaller round (then the answer
        is the widest window that fits, whatever the order of probes).
        """
        from_seq = fold.through_seq + 1
        self.forget_through(fold.through_seq)
        seqs = [s for s, _ in self.files if from_seq <= s <= watermark]
        cands = seqs[:-1] + [watermark] if seqs else [watermark]
        w = Window(self, fold)
        built: dict[int, Candidate] = {}

        def fits(i: int) -> bool:
            if i not in built:
                built[i] = w.candidate(cands[i])
            return i == 0 or built[i].size <= self.budget

        last = len(cands) - 1
        lo = last if self.hint is None else min(self.hint, last)
        hi = last  # the answer is in [lo, hi] once lo fits
        while not fits(lo):
            hi = lo - 1
            lo = self._narrower(seqs, lo, built[lo].size, hi)
        step = 1
        while lo < hi:  # gallop wider
            probe = min(hi, lo + step)
            if not fits(probe):
                hi = probe - 1
                break
            lo, step = probe, step * 2
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        self.hint = lo
        r = built[lo].build()
        self.taken(built[lo], r)
        return r

    def _narrower(self, seqs: list[int], failed: int, size: int, hi: int) -> int:
        """The widest candidate in [0, hi] whose landed bytes, at the bytes per landed byte of candidate ``failed``
        (``size`` bytes, over the budget), would fit the budget; ``hi`` when the landed files' sizes are unknown."""
        weight = self.file_sizes()
        acc, prefix = 0, []
        for s in seqs[: hi + 2]:
            acc += weight.get(s, 0)
            prefix.append(acc)
        failed_bytes = prefix[failed] if failed < len(prefix) else acc
        if failed_bytes <= 0:
            return hi
        room = self.budget * failed_bytes / size
        i = hi
        while i > 0 and prefix[i] > room:
            i -= 1
        return i

    def file_sizes(self) -> dict[int, int]:
        """Bytes of each landed file by seq (the index's sizes when it has them, else the files on disk)."""
        if self._sizes is None:
            idx_files = getattr(self.handle, "files", None)
            if idx_files is not None and hasattr(self.handle, "file_digests"):
                self._sizes = {f.seq: int(f.size or 0) for f in idx_files}
            else:
                self._sizes = {s: (p.stat().st_size if p.exists() else 0) for s, p in self.files}
        return self._sizes
