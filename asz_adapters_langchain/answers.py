"""A chain trace's answer: what a trace's first run that is a chain (not a decorated function) ended with, when no
other record of the trace carries it (langsmith-ingest 0.16.0 on, trial 50c F1).

A LangGraph graph ends with its state, whose messages are the model calls' and tools' own records; a chain of
``RunnableLambda`` steps, or one that returns ``{"answer": "…"}``, ends with a value no other record holds, and that
value was only listed under ``dropped`` ("a chain's outputs"), gone once retention deleted the staged requests. By a
rule over the run's fields, never its text's look:

* outputs that hold messages (a ``messages`` key, a message, or a list of messages, whole or under ``output``) are
  carried by the records of the runs that made them: nothing changes (:func:`holds_messages`);
* outputs whose text (:func:`answer_text`) is the text of a reply of one of the trace's model calls (``prompt | model |
  StrOutputParser()``) are carried by that call's record: they stay listed, saying so (``"reply"``);
* a dict whose every top-level value is a reply text of one of the trace's model calls or the run's own input of the
  same key, the text its first record landed (``RunnablePassthrough.assign(answer=prompt | model | StrOutputParser())``
  returns ``{"question": <its input>, "answer": <the reply>}``), is carried by those records: it stays listed, naming
  where each value is (``{key: "reply" | "input"}``, :func:`answer_why`; review50 of 846419c5);
* any other outputs are the trace's answer (``"own"``): the dialect lands them as a decorated function's return value
  is landed, ``from: agent``, a text part (the value when a string, its string ``output``, else its JSON text) and the
  value whole as a data part.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

import orjson

from .runs import generation_items, has_messages, message_role, message_text, taken_out_of

__all__ = ["holds_messages", "answer_text", "reply_keys", "input_keys", "chain_answer", "answer_why", "REPLY_WHY",
           "CHAIN_ANSWER_WHY", "CARRIED_WHY"]

#: The roles a message of any client shape names (:func:`~asz_adapters_langchain.runs.message_role`).
_ROLES = frozenset({"human", "ai", "system", "tool", "function", "chat", "AIMessageChunk", "HumanMessageChunk"})
#: Why a chain trace's first run lists its ``outputs`` when a reply of one of its model calls holds their text.
REPLY_WHY = "the chain's outputs: their text is a reply of the trace's model call, whose record holds it"
#: Why a chain trace's first run posted complete lists its ``outputs``: the derived answer record after it holds them.
CHAIN_ANSWER_WHY = "the chain's outputs, its answer: the answer record after this one holds them, at the run's end_time"
#: Why a chain trace's first run lists its dict ``outputs`` whose every value another record holds; ``{}``: where each is.
CARRIED_WHY = "the chain's outputs: each value is held by another record ({})"
#: Where a carried value of a chain's dict outputs is, by what :func:`chain_answer` found it to be.
_WHERE = {"reply": "a reply of the trace's model call, whose record holds it",
          "input": "the run's input of that key, the text of the trace's first record"}


def _is_message(v: Any) -> bool:
    role, _, msg = message_role(v)
    return bool(msg) and role in _ROLES and ("content" in msg or "tool_calls" in msg)


def holds_messages(value: Any) -> bool:
    """True when ``value`` holds messages: under a ``messages`` key (a graph's state), or is a message or a list of
    them, itself or under ``output`` (``prompt | model`` ends with the model's message)."""
    if has_messages(value):
        return True
    for v in (value, value.get("output") if isinstance(value, dict) else None):
        if _is_message(v) or isinstance(v, list) and v and all(_is_message(x) for x in v):
            return True
    return False


def answer_text(out: Any) -> str:
    """The readable text of a chain's outputs: the value when a string, its string ``output``, the value LangChain
    wrapped when ``output`` is its only key (it wraps a value that is no dict so: ``{"output": 42}`` reads ``42``, and
    ``{"output": null}``, a chain that returned None, nothing; review50), else the value's JSON text (compact, as the
    data part lands it); '' for nothing."""
    if isinstance(out, str):
        return out
    if isinstance(out, dict) and isinstance(out.get("output"), str):
        return out["output"]
    if isinstance(out, dict) and len(out) == 1 and "output" in out:
        return answer_text(out["output"])
    if out in (None, {}, [], ""):
        return ""
    try:
        return orjson.dumps(out).decode("utf-8", "surrogatepass")
    except (TypeError, orjson.JSONEncodeError):
        return ""


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def reply_keys(outputs: Any) -> list[str]:
    """Digests of the reply texts of a model call's outputs (LangChain generations, or an OpenAI completion): each
    generation's ``text`` and its message's text, so a chain answer equal to either is known as carried."""
    keys: list[str] = []
    for item in generation_items(outputs):
        _, content, msg = message_role(item.get("message") or {})
        for t in (item.get("text"), message_text(content) if msg else ""):
            if isinstance(t, str) and t and (k := _key(t)) not in keys:
                keys.append(k)
    return keys


def input_keys(inputs: Any, text: str) -> dict[str, str]:
    """Digests, by key, of a chain run's ``inputs`` values that are ``text``, the text its first record landed (the
    rest of its inputs is listed, not carried: such a value repeated in its outputs would be nowhere else)."""
    if not text or not isinstance(inputs, dict):
        return {}
    return {k: _key(v) for k, v in inputs.items() if isinstance(k, str) and v == text}


def _carried(outputs: dict, replied: Callable[[str], bool], inputs: dict[str, str]) -> dict[str, str]:
    """Where each value of a chain's dict ``outputs`` is: ``"input"`` (``inputs``, :func:`input_keys`, holds that key's
    value), ``"reply"`` (a model call's reply text); {} when any value is neither (the outputs are then the answer)."""
    where: dict[str, str] = {}
    for k, v in outputs.items():
        if not isinstance(v, str) or not v:
            return {}
        where[k] = "input" if inputs.get(k) == _key(v) else "reply" if replied(_key(v)) else ""
        if not where[k]:
            return {}
    return where


def chain_answer(outputs: Any, replied: Callable[[str], bool], inputs: dict[str, str] | None = None) -> str | dict[str, str]:
    """What a chain trace's first run's ``outputs`` are: '' (none, messages: carried by their runs' records, or taken
    out by the receiver), ``"reply"`` (their text is a reply one of the trace's model calls gave: ``replied(key)`` of
    its digest), a dict of where each value is when every one of a dict's values is such a reply or the run's input of
    its key (``inputs``, :func:`input_keys`), else ``"own"``: the trace's answer, which no other record holds."""
    if outputs in (None, {}) or holds_messages(outputs) or taken_out_of(outputs) is not None:
        return ""  # a value the receiver took out (over --max-part) stays listed as such (trial 32a F1)
    text = answer_text(outputs)
    if not text:
        return ""
    if replied(_key(text)):
        return "reply"
    return (isinstance(outputs, dict) and _carried(outputs, replied, inputs or {})) or "own"


def answer_why(answer: Any) -> str:
    """Why a chain trace's first run lists its ``outputs`` that other records carry (``answer``, what
    :func:`chain_answer` found); '' for outputs that are the answer or that it did not read."""
    if answer == "reply":
        return REPLY_WHY
    if isinstance(answer, dict) and answer:
        return CARRIED_WHY.format("; ".join(f"{k}: {_WHERE.get(w, w)}" for k, w in answer.items()))
    return ""
