"""What a sub-agent's talk that no call started opens with, and what it is headed (field report 34; trial 45b F4).

Two sorts of talk hold a sub-agent's lines that no call of its parent started: an orphan sidechain group (the
document's talk ``orphan``: lines that say ``sidechain`` in the parent's file, :func:`~asz_core.flow.asm_talks.
orphan_sidechains`) and a child stream whose ``opened_by`` holds no ``exact_unique`` call (a Claude Code
``subagents/agent-<id>.jsonl`` no ``Task`` names). Either may hold a person's or injected line; such a line is what the
talk was asked only when it comes before every other step of the talk (:func:`opens`), by where each step's first
record stands in its stream (``(seq, row, block)``): a line written after the talk's first reply did not prompt that
reply, whatever its text (seed 004 keeps it the talk's ``label``; only what a reader calls it changes).

:func:`subagent_heading` is the one heading such a talk takes in md, html, the text form's Talks, the exports' Talks
list and the page (its ``/headings``, :func:`~asz_core.view.titles.talk_headings`), made as a linked sub-agent's is:
``Subagent: <its prompt as a title>`` when a line opens it, else :data:`NO_PARENT_CALL`, the page's words."""

from __future__ import annotations

from typing import Callable

from .placing import position, walk

__all__ = ["NO_PARENT_CALL", "asked_steps", "opens", "no_call_started", "subagent_heading"]

#: The heading of a sub-agent's talk that no call started and no line of its own opens (the page's label, render 25).
NO_PARENT_CALL = "Subagent: parent call not found"
#: Steps that may come before a talk's opening line: none of them answers anything.
_BEFORE_OPENING = frozenset({"run", "context.injection", "message.external"})


def _at(n: dict) -> tuple | None:
    """Where ``n``'s first record stands in its stream (:func:`~asz_core.view.placing.position`), None without one."""
    return position(n) if n.get("ref") or n.get("refs") else None


def opens(talk: dict, step: dict) -> bool:
    """True when ``step`` (a person's or injected step of ``talk``, an asz.view document's talk node) comes before
    every step of the talk that answers or calls (each but a run, an injection and a person's line), by where each
    one's first record stands (module docstring); a step whose place is not known opens nothing."""
    mine = _at(step)
    if mine is None:
        return False
    return all(at is None or mine < at for n in walk(talk.get("children") or ()) if n.get("kind") not in _BEFORE_OPENING
               for at in (_at(n),))


def no_call_started(doc: dict, talk: dict) -> bool:
    """True for a sub-agent's talk no call started (module docstring): ``orphan``, or a child's whose stream among
    ``doc["streams"]`` names no ``exact_unique`` opener and no name its adapter gave (``named_by`` ``stream``: Claude
    Code's compaction agent) and that holds no ``prompt`` of its own record."""
    if talk.get("orphan") is True:
        return True
    if not talk.get("child") or talk.get("prompt"):
        return False
    stream = next((s for s in doc.get("streams") or () if isinstance(s, dict) and s.get("name") == talk.get("stream")), None)
    return stream is not None and stream.get("named_by") != "stream" and not any(
        isinstance(o, dict) and o.get("quality") == "exact_unique" for o in stream.get("opened_by") or ())


def subagent_heading(doc: dict, talk: dict, title: Callable[[str], str]) -> str:
    """The heading of ``talk`` when :func:`no_call_started` (module docstring), else '': ``Subagent: `` and ``title``
    of its ``label`` (the caller's reading of a label as a title: cut, cleaned) when the step that label is the text of
    (a person's line, or an injection not flagged ``injected``) :func:`opens` the talk; else :data:`NO_PARENT_CALL`."""
    if not no_call_started(doc, talk):
        return ""
    label = talk.get("label")
    if isinstance(label, str) and label and any(
            n.get("kind") in ("message.external", "context.injection") and n.get("text") == label
            and "injected" not in (n.get("flags") or ()) and opens(talk, n) for n in walk(talk.get("children") or ())):
        return "Subagent: " + title(label)
    return NO_PARENT_CALL


def asked_steps(doc: dict, withheld: Callable[[dict], bool] = lambda n: n.get("state") == "omitted",
                ordered: bool = True) -> dict[str, str]:
    """``{talk id: step id}`` for each talk with no ``message.external`` step whose ``label`` is the text of one of
    its first three ``context.injection`` steps carrying no ``injected`` flag (:mod:`~asz_core.view.placing`; the rule
    for such a label, seed 004 "A talk's label and reply"): that step is what the talk was asked, when ``ordered``
    only if it comes before the talk's first reply (:func:`opens`; trial 45b F4)."""
    out: dict[str, str] = {}
    for t in doc.get("talks") or ():
        if not isinstance(t, dict) or not t.get("label") or t.get("prompt"):
            continue
        steps = list(walk(t.get("children") or ()))
        if any(s.get("kind") == "message.external" for s in steps):
            continue
        for s in [s for s in steps if s.get("kind") == "context.injection"][:3]:
            if "injected" not in (s.get("flags") or ()) and not withheld(s) and s.get("text") == t["label"]:
                if not ordered or opens(t, s):
                    out[t["id"]] = s["id"]
                break
    return out
