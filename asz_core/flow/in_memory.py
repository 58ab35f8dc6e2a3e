"""A damaged chain read from its landed records in memory (trial 29a F8; origin-digest §2.5, §4.2, §4.3).

Rounds are derived data: parse writes round N+1 from the fold of rounds 1..N and the landed files through the
index's watermark (:mod:`asz_core.flow.parse`). When a round of a conversation's chain does not read as parse
wrote it (truncated, a flipped bit, missing), the readers fold the rounds before it that verify and build the
rest here, as a parse continuing from that fold would write them, but in memory: nothing is installed, no
``conversation.state``, no session index is written (the index is built in memory from the landed files
themselves, not read from the session's ``index/``), so a read-only root or a copy given to a third party reads the
whole conversation. The root's id table (what other sessions say, issue 18) is read as parse reads it, never
changed for this session (``keep_marks``; an id table in a read-only root is opened read-only).

Same document: the rounds built here are the bytes parse writes for the same fold, landed files and round budget
(parse is a function of them: the invariant of :mod:`asz_core.flow.parse`), so a chain whose rounds were written
that way (a collect or parse pass after the landing) reads here as its intact chain reads, digests and all. A chain
that grew by passes between landings was cut into other windows: the fold is the same entities, the round rows are
those one pass would write.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..sessiondata import gc_pause
from ..storage.layout import landed_files, rounds_dir, session_dir
from .fold import Fold
from .index import Index, IndexBuildError, forget_remembered
from .index_read import index_file
from .memory_note import IN_MEMORY_NOTE
from .parse import DEFAULT_MAX_ROUND_BYTES, IndexEngine
from .round import Round
from .round_read import decode_round
from .windows import SessionParse

__all__ = ["IN_MEMORY_NOTE", "InMemoryEngine", "rounds_in_memory"]



class InMemoryEngine(IndexEngine):
    """:class:`~asz_core.flow.parse.IndexEngine` whose watermark is an index built in memory from the landed files
    (nothing read from or written to the session's ``index/``); the root's id table read without taking the
    session's stale mark. A landed file that does not read whole stops the index before it (``problem`` says so),
    as it stops parse's."""

    def watermark(self, session_dir: Path) -> tuple[Any, int]:
        """``(index, indexed_seq)`` of every landed file of ``session_dir`` that reads whole, in seq order."""
        from .reread import read_today
        from ..storage.frozen import frozen
        from .shared_ids import session_links

        self.problem = ""
        self.memo = {}
        sdir = Path(session_dir)
        idx = Index("", sdir)
        for ln, path in landed_files(sdir, skeletons=True):
            try:
                line = index_file(sdir, ln.seq, path)
            except IndexBuildError as exc:
                self.problem = f"index stops before a landed file it cannot read: {exc}"
                break
            if not idx.session and line.get("session"):
                idx.session = line["session"]
            idx.add_file_line(line, orjson.dumps(line))
        if not idx.session:
            idx.session = sdir.name
        self.reread = read_today(sdir, idx.entries, idx.files)
        try:
            self.links = session_links(sdir.parent, sdir.name, idx, keep_marks=True, read_only=frozen(sdir.parent))
        except Exception as exc:  # noqa: BLE001 - no table to read: assembled alone, and said
            self.links = None
            self.problem = (self.problem + "; " if self.problem else "") + f"the root's id table: {exc}"
        return idx, int(idx.indexed_seq)


def rounds_in_memory(root: Path, conversation: str, session: str, fold: Fold,
                     budget: int = DEFAULT_MAX_ROUND_BYTES) -> tuple[list[Round], str]:
    """The rounds a parse of ``session`` continuing from ``fold`` (the chain's rounds that verify; an empty
    :class:`Fold` for none) would write for ``conversation``'s chain, built in memory and accepted into ``fold``
    in order; ``([], why)`` when nothing can be built (no landed file; ``why`` says so). Returns ``(rounds,
    problem)``: ``problem`` '' or what stopped the index or the id table (:class:`InMemoryEngine`). Raises
    OSError when the session's folder cannot be read, :class:`~asz_core.flow.fold.FoldError` as parse would."""
    sdir = session_dir(root, session)
    if not sdir.is_dir():
        return [], f"session {session} has no folder in {root}"
    engine = InMemoryEngine(update=False)
    rdir = rounds_dir(root, conversation)
    out: list[Round] = []
    with gc_pause.paused(keep=True):
        try:
            ctx = SessionParse(root, session, conversation, engine, budget)
            ctx.handle, watermark = engine.watermark(sdir)
            ctx.start(sdir, watermark)
            while fold.through_seq < watermark:
                # read back from its bytes, as the chain's reader reads a round file (attrs in the file's key order)
                r = decode_round(ctx.next_round(fold, watermark).data, rdir / "in-memory")
                fold.accept(r)
                out.append(r)
        finally:
            forget_remembered()
            engine.memo = {}
    if not out and fold.rounds == 0:
        return [], engine.problem or f"session {session} has no landed file that reads whole"
    return out, engine.problem
