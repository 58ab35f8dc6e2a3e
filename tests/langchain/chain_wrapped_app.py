"""Chains traced by the official clients that return a value LangChain wraps as ``{"output": value}`` (review50 of
8e576c34): ``python chain_wrapped_app.py``; the receiver's address comes from LANGSMITH_ENDPOINT. Three threads, each one
``RunnableLambda`` invoked once, no model call: ``none`` returns None, ``number`` 42, ``list`` ["LISTA", "LISTB"].
Prints the three values as one JSON object, by thread."""

from __future__ import annotations

import json

from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.langchain import wait_for_all_tracers

VALUES = {"none": None, "number": 42, "list": ["LISTA", "LISTB"]}


def main() -> None:
    out = {}
    for thread, value in VALUES.items():
        cfg = {"configurable": {"thread_id": thread}, "run_name": f"{thread}_chain"}
        out[thread] = RunnableLambda(lambda x, v=value: v).invoke({"question": f"WRAPPEDQ {thread}"}, config=cfg)
    wait_for_all_tracers()
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
