"""Chains traced by the official clients whose answer is no graph state (trial 50c F1, F5): ``python
chain_answers_app.py``; the receiver's address comes from LANGSMITH_ENDPOINT. Four threads, each one invocation:

* ``plain``: ``RunnableLambda(upper) | RunnableLambda(prefix)``, no model call; it returns a string;
* ``dict``: one ``RunnableLambda`` returning ``{"answer": …, "score": 3}``, no model call;
* ``lcel``: ``prompt | model | StrOutputParser()``: its answer is the model's reply;
* ``shout``: ``model | RunnableLambda(upper of the reply)``: its answer is not the model's reply;
* ``traced``: a ``@traceable`` function that asks the model and returns its reply in upper case.

The model is langchain-core's ``GenericFakeChatModel``, which states no finish reason. Prints the five answers as one
JSON object, by thread."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.langchain import wait_for_all_tracers
from langsmith import traceable

USAGE = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}


def _model(text: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=text, usage_metadata=USAGE)]))


def _cfg(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}, "run_name": f"{thread}_chain"}


def main() -> None:
    out = {}
    plain = RunnableLambda(lambda x: x["text"].upper()) | RunnableLambda(lambda s: f"PLAINANSWER {s[::-1]}")
    out["plain"] = plain.invoke({"text": "wombat chain input"}, config=_cfg("plain"))
    out["dict"] = RunnableLambda(lambda x: {"answer": "DICTANSWER echidna", "score": 3}).invoke(
        {"question": "DICTQUESTION echidna?"}, config=_cfg("dict"))
    lcel = ChatPromptTemplate.from_messages([("human", "LCELPROMPT {topic}")]) | _model("LCELANSWER platypus") | StrOutputParser()
    out["lcel"] = lcel.invoke({"topic": "platypus"}, config=_cfg("lcel"))
    shout = _model("shoutanswer quoll") | RunnableLambda(lambda m: m.content.upper())
    out["shout"] = shout.invoke("SHOUTQUESTION quoll?", config=_cfg("shout"))

    @traceable(name="traced_fn", metadata={"thread_id": "traced"})
    def traced(q: str) -> str:
        return _model("tracedanswer wallaby").invoke(q).content.upper()

    out["traced"] = traced("TRACEDQUESTION wallaby?")
    wait_for_all_tracers()
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
