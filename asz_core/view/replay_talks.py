"""A sub-agent's talk that holds only copies of its parent's model calls, and the records that are such copies (a
sub-agent's ``agent-*.jsonl`` or a side question copying its parent's response under the same message id and a new
request id; field report 13, trial 43c F2, trial 45d F3, F5).

Assembly decides what a replay is, once (:func:`~asz_core.flow.asm_state.replays`), and the asz.view document says
it on the call it copies: ``attrs.replayed`` (the copies' ``{seq, row}``). :func:`replay_only` is the one rule of a
talk of copies alone, which md and html say after its id (:func:`~asz_core.reading.prose_replays.replay_talks`) and
the page in its header (``/api/c/{id}/headings``' ``replays``; fix46c: it drew ``1 run · 0 steps``)."""

from __future__ import annotations

from typing import Optional

from .placing import walk

__all__ = ["REPLAY_WORDS", "replay_only", "replayed_records"]

#: What every reader says of a talk :func:`replay_only` lists, the calls' ids and where they are drawn filled in.
REPLAY_WORDS = "holds only a copy of {calls} (its parent's model call, replayed in this sub-agent's file), drawn once, in {talk}"


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


def replay_only(doc: dict) -> dict[str, dict]:
    """``{talk id: {"calls": [call ids], "talks": [talk ids]}}``: each talk of ``doc`` with no step and no ``prompt``
    whose first record the document names a replay (:func:`replayed_records`) and whose stream's records
    (``streams[].records``) are all copies in that file: the calls it copies, in the order they are drawn (the talks'
    order, then their place in the talk; a call drawn nowhere last, by id), and the talks they are drawn in."""
    copies = replayed_records(doc)
    if not copies:
        return {}
    home = {}  # call id -> the id of the talk it is drawn in, in the order drawn: the talks' order, then position
    for talk in (doc.get("talks") or ()):
        for n in walk([talk]) if isinstance(talk, dict) else ():
            if n.get("kind") == "llm.call":
                home.setdefault(n.get("id"), talk.get("id"))
    drawn_at = {c: i for i, c in enumerate(home)}
    streams = {st.get("name"): st.get("records") for st in doc.get("streams") or () if isinstance(st, dict)}
    by_file: dict[int, list[str]] = {}  # seq -> the calls its copies copy, one entry a copy
    for (seq, _), c in copies.items():
        by_file.setdefault(seq, []).append(c)
    out: dict[str, dict] = {}
    for talk in doc.get("talks") or ():
        if not isinstance(talk, dict) or talk.get("steps") or talk.get("prompt"):
            continue
        ref = talk.get("ref") if isinstance(talk.get("ref"), dict) else {}
        if (ref.get("seq"), ref.get("row")) not in copies:
            continue
        # its file's copies, as they are drawn (fix47j: sorted as text, call/msg_t47_10 before call/msg_t47_2)
        mine = sorted(set(by_file[ref["seq"]]), key=lambda c: (drawn_at.get(c, len(drawn_at)), c))
        if len(by_file[ref["seq"]]) != streams.get(talk.get("stream")):
            continue  # the stream holds more than copies (or more files): its talk is drawn as it is
        out[talk["id"]] = {"calls": mine, "talks": list(dict.fromkeys(home[c] for c in mine if home.get(c)))}
    return out
