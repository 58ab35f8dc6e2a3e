"""The records the prose, audit and text exports leave out as replays: a copy of a model call in another stream's file
(a sub-agent's ``agent-*.jsonl`` or a side question copying its parent's response under the same message id and a new
request id; field report 13, trial 43c F2, trial 45d F3).

Assembly decides what a replay is, once (:func:`~asz_core.flow.asm_state.replays`), and the asz.view document says
it on the call it copies: ``attrs.replayed`` (the copies' ``{seq, row}``) and ``attrs.replayed_in`` (their streams);
md, html and the page draw such a call once, in its own stream, ``replayed in STREAM (drawn once, here)``. The
lines forms read the same answer from the document (:func:`replayed_records`), so they draw the call once too: no
``reply`` or ``tool_call`` line of the copy, and the header's ``lines`` count it once (render 29,
:data:`~asz_core.reading.export_render.REPLAYS_RENDER`; render 28 and before drew the copy as a line of its stream).

The prose form (no ``--audit``) builds no document for most conversations: :class:`Replays` builds it only when a
record's ``call`` (message id) was first read in another stream, which every replay's is (its call's own stream is
the stream of its first landed fragment).
"""

from __future__ import annotations

from typing import Callable, Optional

from ..view.replay_talks import REPLAY_WORDS, replay_only, replayed_records
from .export_render import REPLAY_CALLS_RENDER, REPLAY_ORDER_RENDER, REPLAYS_RENDER, drawn

__all__ = ["REPLAY_TALK", "Replays", "replay_talks", "replayed_records"]


#: What md and html say after the start and id of a sub-agent's talk that holds only copies of calls drawn in another
#: talk (render 29, trial 45d F5: it was drawn as an empty talk), the calls' ids and their talk's number filled in.
REPLAY_TALK = " · " + REPLAY_WORDS


def replay_talks(doc: dict, talks: list[dict]) -> None:
    """Give each talk of ``talks`` (:func:`~asz_core.reading.export_steps.steps` of ``doc``) that has no step and no
    prompt and that :func:`~asz_core.view.replay_talks.replay_only` lists (a talk of copies alone, the page's rule too)
    ``replay_said``, :data:`REPLAY_TALK` naming the calls and the talks they are drawn in (``Talk 2, Talk 10``, by
    number from render 34, as text before); none before render 29."""
    only = replay_only(doc) if drawn() >= REPLAYS_RENDER else {}
    if not only:
        return
    number = {t["talk"]["id"]: i for i, t in enumerate(talks, 1) if t.get("talk")}
    for t in talks:
        got = only.get((t.get("talk") or {}).get("id"))
        if not got or t.get("steps") or t.get("prompt"):
            continue
        at = sorted({number[x] for x in got["talks"] if x in number})
        # by number (render 34: fix47b, ``Talk 10, Talk 2`` was sorted as text); as text when drawn as before
        where = [f"Talk {n}" for n in at] if drawn() >= REPLAY_ORDER_RENDER else sorted(f"Talk {n}" for n in at)
        # the calls as drawn (render 38: fix47j); as text when drawn as before (call/msg_10 before call/msg_2)
        calls = got["calls"] if drawn() >= REPLAY_CALLS_RENDER else sorted(got["calls"])
        t["replay_said"] = REPLAY_TALK.format(calls=", ".join(calls), talk=", ".join(where) or "its parent's talk")


class Replays:
    """What one export of the lines forms leaves out as replays. ``build`` gives the conversation's document (called
    at most once). With ``early`` (the audit forms, which read the document anyway) it is built before the records
    are read (:attr:`doc`), so a replay gives no line and nothing of it is counted (:meth:`skip`); else the records whose call
    was first read in another stream are noted, and :meth:`drop` takes their lines out once the records are read."""

    def __init__(self, build: Callable[[], dict], early: bool):
        self.on = drawn() >= REPLAYS_RENDER
        self._build = build
        self.doc: Optional[dict] = build() if early else None
        self.known = replayed_records(self.doc) if self.on and self.doc is not None else None
        self._first: dict[str, str] = {}  # call (message id) -> the stream it was first read in
        #: (seq, row) -> (file, row) of each record whose call another stream read first
        self._where: dict[tuple[int, int], tuple[str, int]] = {}

    def skip(self, seq: int, file: str, row: int, stream: str, rec: dict) -> bool:
        """Whether the record at ``(seq, row)`` (``file``, ``row``; of ``stream``) is left out now: a replay the
        document names, when it was built first."""
        if not self.on:
            return False
        if self.known is not None:
            return (seq, row) in self.known
        call = rec.get("call")
        if isinstance(call, str) and rec.get("from") == "agent" and self._first.setdefault(call, stream) != stream:
            self._where[(seq, row)] = (file, row)
        return False

    def document(self, doc: Optional[dict]) -> Optional[dict]:
        """``doc`` (the document the caller built, or None), else the one built here, else it built now when a record
        may be a replay (:meth:`skip` noted one)."""
        if doc is None and self.doc is None and self._where:
            self.doc = self._build()
        return doc if doc is not None else self.doc

    def drop(self, by_stream: dict[str, list[dict]], doc: Optional[dict]) -> dict[str, list[dict]]:
        """``by_stream`` without the lines of the records noted in :meth:`skip` that ``doc`` says are replays."""
        if not self._where or doc is None:
            return by_stream
        gone = {self._where[k] for k in replayed_records(doc) if k in self._where}
        if not gone:
            return by_stream
        return {s: [x for x in lines if (x.get("file"), x.get("row")) not in gone] for s, lines in by_stream.items()}
