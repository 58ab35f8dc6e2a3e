"""A RAG chain traced by the official clients: a retriever, a prompt template, a scripted chat model and an output
parser (``retriever | prompt | model | parser``), and a decorated embedding function, so the receiver gets each run type
LangSmith documents as the client sends it (test_langchain_run_types; trial 46b F1).
Run in its own process: ``python rag_app.py THREAD``; the receiver's address comes from LANGSMITH_ENDPOINT."""

from __future__ import annotations

import sys
from typing import Any

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnablePassthrough
from langchain_core.tracers.langchain import wait_for_all_tracers
from langsmith import traceable

from scripted_chat import ScriptedChat, answer

#: What the retriever finds, and what the model answers.
POLICY = "Refunds are accepted within 30 days of purchase (policy RP-7)."
REPLY = "30 days, under policy RP-7."


class PolicyStore(BaseRetriever):
    """Finds the refund policy, whatever is asked."""

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return [Document(page_content=POLICY, metadata={"source": "policy.pdf", "page": 3})]


class Answers(ScriptedChat):
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        return answer(messages, REPLY, [])


@traceable(run_type="embedding", name="embed_query")
def embed(text: str) -> list[float]:
    return [float(len(text)), 0.5, -1.25]


def main() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "Answer from the context only."),
                                               ("human", "Context: {context}\n\nQuestion: {question}")])
    chain = ({"context": PolicyStore() | (lambda docs: "\n".join(d.page_content for d in docs)),
              "question": RunnablePassthrough()} | prompt | Answers() | StrOutputParser())
    config = {"configurable": {"thread_id": sys.argv[1]}, "metadata": {"thread_id": sys.argv[1]}}
    print(chain.invoke("What is our refund policy?", config=config))
    embed("refund policy", langsmith_extra={"metadata": {"thread_id": sys.argv[1]}})
    wait_for_all_tracers()


if __name__ == "__main__":
    main()
    sys.exit(0)
