"""A scripted chat model's common half for the apps the LangChain tests run in their own process (no provider, no key):
a subclass gives ``_generate``; :func:`answer` builds what it returns, with usage and a finish reason."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedChat(BaseChatModel):
    """A chat model that answers by its subclass's rule; tools bound to it change nothing."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kw: Any) -> "ScriptedChat":
        return self


def answer(messages: list[BaseMessage], content: str, calls: list[dict]) -> ChatResult:
    """``content`` and tool ``calls`` as one AI message with usage 10 tokens per message in, 5 out, and its finish
    reason (``tool_calls`` or ``stop``)."""
    usage = {"input_tokens": 10 * len(messages), "output_tokens": 5, "total_tokens": 10 * len(messages) + 5}
    msg = AIMessage(content=content, usage_metadata=usage, tool_calls=calls)
    msg.response_metadata = {"finish_reason": "tool_calls" if calls else "stop", "model_name": "scripted"}
    return ChatResult(generations=[ChatGeneration(message=msg)])
