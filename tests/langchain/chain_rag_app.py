"""The common RAG chain shape traced by the official clients (review50 of 846419c5): ``python chain_rag_app.py``; the
receiver's address comes from LANGSMITH_ENDPOINT. Two threads, each one invocation of
``RunnablePassthrough.assign(answer=prompt | model | StrOutputParser())``, which returns its input with the model's
reply added under ``answer``:

* ``rag``: nothing else, ``{"question": "where koala?", "answer": "RAGANSWER koala"}``;
* ``sources``: a step first adding ``sources`` (a list the model did not write), ``{"question": …, "sources": [...],
  "answer": "SRCANSWER wombat"}``.

The model is langchain-core's ``GenericFakeChatModel``. Prints the two outputs as one JSON object, by thread."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_core.tracers.langchain import wait_for_all_tracers

PROMPT = ChatPromptTemplate.from_messages([("human", "RAGPROMPT {question}")])
SOURCES = ["kb/koala.md", "kb/wombat.md"]


def _answer(text: str):
    return PROMPT | GenericFakeChatModel(messages=iter([AIMessage(content=text)])) | StrOutputParser()


def main() -> None:
    out = {}
    rag = RunnablePassthrough.assign(answer=_answer("RAGANSWER koala"))
    out["rag"] = rag.invoke({"question": "where koala?"}, config={"configurable": {"thread_id": "rag"}, "run_name": "rag_chain"})
    sources = RunnablePassthrough.assign(sources=lambda _: SOURCES) | RunnablePassthrough.assign(answer=_answer("SRCANSWER wombat"))
    out["sources"] = sources.invoke({"question": "where wombat?"},
                                    config={"configurable": {"thread_id": "sources"}, "run_name": "sources_chain"})
    wait_for_all_tracers()
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
