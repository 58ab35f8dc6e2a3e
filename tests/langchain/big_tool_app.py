"""A LangGraph ReAct app with a tool whose output is large, traced by the official clients (trial 32a F1, F2, F7).

Run in its own process: ``python big_tool_app.py SIZE MARKER [THREAD]``. A scripted chat model (no provider, no key)
calls ``small`` (returns ``small ok``), then ``big`` (returns SIZE bytes of ASCII ending in MARKER), then answers
``after big``; ``SIZE`` 0 makes ``big`` raise instead, with ``handle_tool_errors=False``, so the graph fails (F7).
The receiver's address comes from LANGSMITH_ENDPOINT. Prints the SHA-256 and size of what ``big`` returned.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool
from langchain_core.tracers.langchain import wait_for_all_tracers
from langgraph.prebuilt import ToolNode, create_react_agent
from scripted_chat import ScriptedChat, answer

SIZE, MARKER = int(sys.argv[1]), sys.argv[2]
THREAD = sys.argv[3] if len(sys.argv) > 3 else "big-1"


def big_text() -> str:
    """SIZE bytes of ASCII ending in MARKER."""
    unit = "0123456789abcdef"
    body = SIZE - len(MARKER)
    return (unit * (body // len(unit) + 1))[:body] + MARKER


class ScriptedModel(ScriptedChat):
    """Calls small, then big, then answers."""

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        n = sum(1 for m in messages if isinstance(m, AIMessage))
        calls = {0: [{"id": "call_small", "name": "small", "args": {"n": 1}}],
                 1: [{"id": "call_big", "name": "big", "args": {"n": 2}}]}.get(n, [])
        return answer(messages, "" if calls else "after big", calls)


@tool
def small(n: int) -> str:
    """A small answer."""
    return "small ok"


@tool
def big(n: int) -> str:
    """A large answer (or a failure when SIZE is 0)."""
    if SIZE == 0:
        raise ValueError("big could not reach its store")
    return big_text()


def main() -> None:
    agent = create_react_agent(ScriptedModel(), ToolNode([small, big], handle_tool_errors=False))
    try:
        agent.invoke({"messages": [{"role": "user", "content": "fetch the big one"}]},
                     config={"configurable": {"thread_id": THREAD}})
    except ValueError as exc:
        print(f"failed: {exc}")
    wait_for_all_tracers()
    if SIZE:
        text = big_text().encode()
        print(hashlib.sha256(text).hexdigest(), len(text))


if __name__ == "__main__":
    main()
    sys.exit(0)
