"""A small LangGraph app traced by the official clients, run by test_langchain_live.py in its own process.

Offline: a scripted chat model (no provider, no key) answers from a script keyed by the last message. Shapes: one
thread with two turns (parallel tool calls, a tool that raises and is reported back as an error message, a sub-agent
called as a tool), and a second thread at the same time. The receiver's address comes from LANGSMITH_ENDPOINT.
"""

from __future__ import annotations

import sys
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_core.tracers.langchain import wait_for_all_tracers
from langgraph.prebuilt import ToolNode, create_react_agent


class ScriptedModel(BaseChatModel):
    """Answers by rule from the conversation so far: tool calls first, then a final text."""

    role: str = "main"

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kw: Any) -> "ScriptedModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        last = messages[-1]
        n = sum(1 for m in messages if isinstance(m, AIMessage))
        usage = {"input_tokens": 10 * len(messages), "output_tokens": 5, "total_tokens": 10 * len(messages) + 5}
        if self.role == "sub":
            msg = AIMessage(content="the docs say yes", usage_metadata=usage)
        elif isinstance(last, ToolMessage) or n >= 1:
            msg = AIMessage(content=f"done after {n} steps", usage_metadata=usage)
        elif "weather" in str(last.content):
            msg = AIMessage(content="", usage_metadata=usage, tool_calls=[
                {"id": "call_w1", "name": "weather", "args": {"city": "Lisbon"}},
                {"id": "call_w2", "name": "weather", "args": {"city": "Porto"}},
                {"id": "call_b1", "name": "broken", "args": {"site": "docs-1"}},
            ])
        elif "docs" in str(last.content):
            msg = AIMessage(content="", usage_metadata=usage, tool_calls=[{"id": "call_r1", "name": "research", "args": {"q": "docs"}}])
        else:
            msg = AIMessage(content="hello", usage_metadata=usage)
        msg.response_metadata = {"finish_reason": "tool_calls" if msg.tool_calls else "stop", "model_name": "scripted"}
        return ChatResult(generations=[ChatGeneration(message=msg)])


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"18C in {city}"


@tool
def broken(site: str) -> str:
    """A tool that fails."""
    raise RuntimeError("the site API refused the request")


SUB = create_react_agent(ScriptedModel(role="sub"), [], name="researcher")


@tool
def research(q: str) -> str:
    """Ask the research sub-agent."""
    out = SUB.invoke({"messages": [{"role": "user", "content": q}]})
    return out["messages"][-1].content


def summarized() -> None:
    """A thread whose history SummarizationMiddleware replaces by a summary (LangChain's create_agent)."""
    try:
        from langchain.agents import create_agent
        from langchain.agents.middleware import SummarizationMiddleware
        from langgraph.checkpoint.memory import InMemorySaver
    except ImportError:
        return
    agent = create_agent(ScriptedModel(), [weather], checkpointer=InMemorySaver(),
                         middleware=[SummarizationMiddleware(ScriptedModel(role="sub"), trigger=("messages", 4), keep=("messages", 1))])
    for q in ("Say hello.", "Say hello again.", "Once more, hello."):
        agent.invoke({"messages": [{"role": "user", "content": q}]}, config={"configurable": {"thread_id": "live-s"}})


def main() -> None:
    tools = ToolNode([weather, broken, research], handle_tool_errors=True)
    agent = create_react_agent(ScriptedModel(), tools)
    agent.invoke({"messages": [{"role": "user", "content": "What is the weather in Lisbon and Porto?"}]},
                 config={"configurable": {"thread_id": "live-a"}})
    agent.invoke({"messages": [{"role": "user", "content": "And what do the docs say?"}]},
                 config={"configurable": {"thread_id": "live-a"}})
    agent.invoke({"messages": [{"role": "user", "content": "Say hello."}]}, config={"configurable": {"thread_id": "live-b"}})
    agent.invoke({"messages": [("user", "Say hello.")]}, config={"configurable": {"thread_id": "live-t"}})  # the tuple form
    summarized()
    wait_for_all_tracers()


if __name__ == "__main__":
    main()
    sys.exit(0)
