"""Write the synthetic staged inbox under samples/ (run by hand when the sample shape changes).

One conversation (project ``sample``, thread ``t-sample``): a graph run, a model call with reasoning, text, usage
and two tool calls, a plain tool, a tool that runs a sub-graph (a child stream), a tool that makes one model call
(an auxiliary stream), a failed tool without its call id, and the final answer. Two requests: the posts, then one
patch completing an open model call.
"""

from __future__ import annotations

from pathlib import Path

import orjson

OUT = Path(__file__).resolve().parent / "samples" / "_ingest" / "langsmith" / "inbox"
T0 = "2026-10-01T10:00:00"
TRACE = "01a00000-0000-7000-8000-000000000001"


def rid(n: int) -> str:
    return f"01a00000-0000-7000-8000-{n:012d}"


def stamp(n: int) -> str:
    return f"{T0}.{n:06d}+00:00"


def dotted(chain: list[int]) -> str:
    return ".".join(f"20261001T100000{n:06d}Z{rid(n)}" for n in chain)


MD = {"thread_id": "t-sample", "ls_integration": "langgraph"}


def run(n, chain, name, run_type, inputs, outputs, extra=None, end=True, error=None):
    r = {"id": rid(n), "trace_id": TRACE, "dotted_order": dotted(chain), "name": name, "run_type": run_type,
         "session_name": "sample", "start_time": stamp(n), "inputs": inputs, "outputs": outputs,
         "extra": {"metadata": {**MD, "langgraph_node": name}, **(extra or {})}}
    if len(chain) > 1:
        r["parent_run_id"] = rid(chain[-2])
    if end:
        r["end_time"] = stamp(n + 50)
    if error:
        r["error"] = error
    return r


def gen(content, tool_calls=(), usage=None):
    msg = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
           "kwargs": {"content": content, "type": "ai", "tool_calls": list(tool_calls),
                      "response_metadata": {"finish_reason": "tool_calls" if tool_calls else "stop"},
                      **({"usage_metadata": usage} if usage else {})}}
    return {"generations": [[{"text": "", "type": "ChatGeneration", "message": msg}]]}


def toolmsg(content, call_id):
    return {"output": {"content": content, "type": "tool", "tool_call_id": call_id, "status": "success"}}


human = {"messages": [{"role": "user", "content": "What is the weather in Lisbon, and what do the docs say?"}]}
usage = {"input_tokens": 120, "output_tokens": 30, "input_token_details": {"cache_read": 20}}
posts = [
    run(1, [1], "LangGraph", "chain", human, {}),
    run(2, [1, 2], "agent", "chain", {"messages": []}, {"messages": []}),
    run(3, [1, 2, 3], "ChatOpenAI", "llm", {"messages": [[{"role": "system", "content": "Be brief."}]]},
        gen([{"type": "reasoning", "reasoning": "Two lookups."}, {"type": "text", "text": "Looking both up."}],
            [{"id": "call_w", "name": "weather", "args": {"city": "Lisbon"}},
             {"id": "call_r", "name": "research", "args": {"q": "docs"}},
             {"id": "call_s", "name": "summarise", "args": {"text": "long"}},
             {"id": "call_f", "name": "flaky", "args": {}}], usage),
        extra={"metadata": {**MD, "ls_model_name": "sample-model"}}),
    run(4, [1, 4], "tools", "chain", {}, {}),
    run(5, [1, 4, 5], "weather", "tool", {"city": "Lisbon"}, toolmsg("18C and cloudy", "call_w"), extra={"tool_call_id": "call_w"}),
    run(6, [1, 4, 6], "research", "tool", {"q": "docs"}, toolmsg("The docs say yes.", "call_r"), extra={"tool_call_id": "call_r"}),
    run(7, [1, 4, 6, 7], "LangGraph", "chain", {"messages": [{"role": "user", "content": "docs"}]}, {}),
    run(8, [1, 4, 6, 7, 8], "ChatOpenAI", "llm", {"messages": [[]]}, gen("The docs say yes."), extra={"metadata": {**MD, "ls_model_name": "sub-model"}}),
    run(9, [1, 4, 9], "summarise", "tool", {"text": "long"}, toolmsg("short", "call_s"), extra={"tool_call_id": "call_s"}),
    run(10, [1, 4, 9, 10], "ChatOpenAI", "llm", {"messages": [[]]}, gen("short")),
    run(11, [1, 4, 11], "flaky", "tool", {}, {}, error="RuntimeError('down')\nTraceback (most recent call last):\n  ..."),
    run(12, [1, 12], "agent", "chain", {}, {}),
    run(13, [1, 12, 13], "ChatOpenAI", "llm", {"messages": [[]]}, {}, end=False),
]
patches = [{"id": rid(13), "trace_id": TRACE, "dotted_order": dotted([1, 12, 13]), "end_time": stamp(99),
            "outputs": gen("Lisbon: 18C and cloudy; the docs say yes.")}]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    rec = "2026-10-01T10:00:01.000000000Z"
    with open(OUT / "00000000000000000001-1-000001.jsonl", "wb") as f:
        for r in posts:
            f.write(orjson.dumps({"op": "post", "id": r["id"], "run": r, "received": rec}) + b"\n")
    with open(OUT / "00000000000000000002-1-000002.jsonl", "wb") as f:
        for r in patches:
            f.write(orjson.dumps({"op": "patch", "id": r["id"], "run": r, "received": rec}) + b"\n")


if __name__ == "__main__":
    main()
