"""A LangGraph support agent with a human-in-the-loop step, traced by the official clients; run in its own process by
test_langchain_hitl.py (trial 28c F2, F4).

Offline: a scripted chat model. Thread ``hitl-a``: the person asks for a refund, the model calls ``issue_refund``,
the tool calls ``interrupt()`` with a question for a person, the app resumes the graph with
``Command(resume="approved by agent Bob")`` and the tool returns ``refund O-3209: approved by agent Bob``; then the
person asks a second question (plain). Every invocation carries ``config={"metadata": {"customer": "cust-19"}}``.
The receiver's address comes from LANGSMITH_ENDPOINT. Prints one JSON line of what it sent (the counts the test checks).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_core.tracers.langchain import wait_for_all_tracers
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt
from scripted_chat import ScriptedChat

QUESTION = {"question": "approve refund of 42.5 on O-3209?"}
ANSWER = "approved by agent Bob"


class ScriptedModel(ScriptedChat):
    """Asks for a refund tool call after a refund question, answers in text after a tool result or otherwise."""

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        last = messages[-1]
        usage = {"input_tokens": 10 * len(messages), "output_tokens": 5, "total_tokens": 10 * len(messages) + 5}
        if isinstance(last, ToolMessage):
            msg = AIMessage(content=f"Done: {last.content}", usage_metadata=usage)
        elif "refund" in str(last.content):
            msg = AIMessage(content="", usage_metadata=usage, tool_calls=[
                {"id": "call_refund_1", "name": "issue_refund", "args": {"order": "O-3209", "amount": 42.5}}])
        else:
            msg = AIMessage(content="We ship to Norway.", usage_metadata=usage)
        msg.response_metadata = {"finish_reason": "tool_calls" if msg.tool_calls else "stop", "model_name": "scripted"}
        return ChatResult(generations=[ChatGeneration(message=msg)])


@tool
def issue_refund(order: str, amount: float) -> str:
    """Refund an order once a person approves."""
    decision = interrupt({"question": f"approve refund of {amount} on {order}?"})
    return f"refund {order}: {decision}"


def main() -> None:
    agent = create_react_agent(ScriptedModel(), [issue_refund], checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "hitl-a"}, "metadata": {"customer": "cust-19"}}
    sent = {"questions": [], "interrupts": [], "resumes": [], "results": []}
    q = "I want a refund please"
    sent["questions"].append(q)
    agent.invoke({"messages": [{"role": "user", "content": q}]}, config=cfg)
    state = agent.get_state(cfg)
    sent["interrupts"] = [i.value for t in state.tasks for i in t.interrupts]
    sent["resumes"].append(ANSWER)
    out = agent.invoke(Command(resume=ANSWER), config=cfg)
    sent["results"] = [m.content for m in out["messages"] if isinstance(m, ToolMessage)]
    q = "Do you ship to Norway?"
    sent["questions"].append(q)
    agent.invoke({"messages": [{"role": "user", "content": q}]}, config=cfg)
    wait_for_all_tracers()
    print(json.dumps(sent))


if __name__ == "__main__":
    main()
    sys.exit(0)
