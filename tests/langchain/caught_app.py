"""A LangGraph graph whose node calls a chain with a fallback, traced by the official clients: ``primary`` raises,
``backup`` answers, the graph goes on (a chain step's own error that the app caught; test_langchain_run_errors_whole).
Run in its own process: ``python caught_app.py THREAD``; the receiver's address comes from LANGSMITH_ENDPOINT."""

from __future__ import annotations

import sys
from typing import TypedDict

from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.langchain import wait_for_all_tracers
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    question: str
    answer: str


def primary(q: str) -> str:
    raise ValueError("primary store down")


def backup(q: str) -> str:
    return "from the backup store"


LOOKUP = RunnableLambda(primary).with_fallbacks([RunnableLambda(backup)])


def fetch(state: State) -> dict:
    return {"answer": LOOKUP.invoke(state["question"])}


def main() -> None:
    g = StateGraph(State)
    g.add_node("fetch", fetch)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", END)
    print(g.compile().invoke({"question": "where is it"}, config={"configurable": {"thread_id": sys.argv[1]}})["answer"])
    wait_for_all_tracers()


if __name__ == "__main__":
    main()
    sys.exit(0)
