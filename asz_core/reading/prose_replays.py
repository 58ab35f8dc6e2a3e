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

from ..view.placing import walk
from .export_render import REPLAYS_RENDER, drawn

__all__ = ["REPLAY_TALK", "Replays", "replay_talks", "replayed_records"]


def replayed_records(doc: Optional[dict]) -> dict[tuple[int, int], str]:
    """``{(seq, row): call node id}``: each landed record the asz.view document ``doc`` says replays a model call of
    another stream (the call's ``attrs.replayed``), with the id of the call it copies (``call/msg_…``); {} for none."""
    out: dict[tuple[int, int], str] = {}
    talks = (doc or {}).get("talks") or ()
    for n in walk([t for t in talks if isinstance(t, dict)]):
        for at in (n.get("attrs") or {}).get("replayed") or () if n.get("kind") == "llm.call" else ():
            if isinstance(at, dict) and isinstance(at.get("seq"), int) and isinstance(at.get("row"), int):
                out[(at["seq"], at["row"])] = str(n.get("id") or "")
    return out


#: What md and html say after the start and id of a sub-agent's talk that holds only copies of calls drawn in another
#: talk (render 29, trial 45d F5: it was drawn as an empty talk), the calls' ids and their talk's number filled in.
REPLAY_TALK = " · holds only a copy of {calls} (its parent's model call, replayed in this sub-agent's file), drawn once, in {talk}"


def replay_talks(doc: dict, talks: list[dict]) -> None:
    """Give each talk of ``talks`` (:func:`~asz_core.reading.export_steps.steps` of ``doc``) that has no step and no
    prompt, whose first record the document names a replay and whose stream's records (``streams[].records``) are
    all copies in that file (:func:`replayed_records`)
    ``replay_said``, :data:`REPLAY_TALK` naming the calls and the talk they are drawn in (``Talk 1``); none before
    render 29."""
    copies = replayed_records(doc) if drawn() >= REPLAYS_RENDER else {}
    if not copies:
        return
    number = {t["talk"]["id"]: i for i, t in enumerate(talks, 1) if t.get("talk")}
    home = {}  # call id -> the id of the talk it is drawn in
    for talk in (doc.get("talks") or ()):
        for n in walk([talk]) if isinstance(talk, dict) else ():
            if n.get("kind") == "llm.call":
                home[n.get("id")] = talk.get("id")
    streams = {st.get("name"): st.get("records") for st in doc.get("streams") or () if isinstance(st, dict)}
    for t in talks:
        talk = t.get("talk")
        if not talk or t.get("steps") or t.get("prompt"):
            continue
        ref = talk.get("ref") if isinstance(talk.get("ref"), dict) else {}
        if (ref.get("seq"), ref.get("row")) not in copies:
            continue
        mine = sorted({c for (seq, _), c in copies.items() if seq == ref["seq"]})  # its file's copies
        if sum(1 for seq, _ in copies if seq == ref["seq"]) != streams.get(talk.get("stream")):
            continue  # the stream holds more than copies (or more files): its talk is drawn as it is
        where = sorted({f"Talk {number[home[c]]}" for c in mine if home.get(c) in number})
        t["replay_said"] = REPLAY_TALK.format(calls=", ".join(mine), talk=", ".join(where) or "its parent's talk")


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
