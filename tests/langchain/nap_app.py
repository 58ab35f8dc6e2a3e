"""A LangGraph ReAct app whose tool sleeps a known time, traced by the official clients (trial 37b F4).

Run in its own process: ``python nap_app.py NAP_MS THREAD``. A scripted chat model (no provider, no key) asks for
``nap`` (sleeps NAP_MS ms, returns ``rested``) and ``quick`` (returns at once) in one message, then sleeps 300 ms
itself before answering ``done``, so the time from the model call that asked to a tool's end is not the tool's own.
The receiver's address comes from LANGSMITH_ENDPOINT.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool
from langchain_core.tracers.langchain import wait_for_all_tracers
from langgraph.prebuilt import create_react_agent
from scripted_chat import ScriptedChat, answer

NAP_MS, THREAD = int(sys.argv[1]), sys.argv[2]


class ScriptedModel(ScriptedChat):
    """Asks for nap and quick at once, then answers."""

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        if not any(isinstance(m, AIMessage) for m in messages):
            return answer(messages, "", [{"id": "call_nap", "name": "nap", "args": {"ms": NAP_MS}},
                                         {"id": "call_quick", "name": "quick", "args": {"n": 1}}])
        time.sleep(0.3)
        return answer(messages, "done", [])


@tool
def nap(ms: int) -> str:
    """Sleeps ``ms`` milliseconds."""
    time.sleep(ms / 1000)
    return "rested"


@tool
def quick(n: int) -> str:
    """Answers at once."""
    return "q"


def main() -> None:
    agent = create_react_agent(ScriptedModel(), [nap, quick])
    agent.invoke({"messages": [{"role": "user", "content": "take a nap"}]}, config={"configurable": {"thread_id": THREAD}})
    wait_for_all_tracers()


if __name__ == "__main__":
    main()
    sys.exit(0)
