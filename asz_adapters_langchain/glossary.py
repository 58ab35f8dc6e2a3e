"""The ``langsmith/1`` glossary and flag mapping (origin-digest §6, §5.4; seed 004, Withholding).

Every name of :data:`asz_core.VOCABULARY` has one :class:`~asz_core.Term`:
named ones say where LangSmith's run records carry them; the rest are
derived by asz and say so. :data:`FLAG_RULES` lists each flag the dialect
sets and the rule over run fields that sets it (applied in
:mod:`asz_adapters_langchain.dialect`).
"""

from __future__ import annotations

from asz_core import FlagRule, Term, build_glossary

__all__ = ["GLOSSARY", "FLAG_RULES", "NAMED", "glossary_terms"]

_RUN = "a run posted or patched to the receiver"

#: (native, where, note) per model name LangSmith has a word for.
NAMED: dict[str, tuple[str, str, str]] = {
    "conversation": ("extra.metadata.thread_id", f"extra.metadata of {_RUN}",
                     "with the project; also session_id or conversation_id (thread_keys); none supplied: one session per trace"),
    "session": ("session_name", f"top level of {_RUN}", "the project; with the thread key it names the session ls-<slug>-<digest>"),
    "run": ("trace_id", f"top level of {_RUN}", "one graph invocation: one turn, one talk"),
    "id": ("id", f"top level of {_RUN}", "the post's record id; a patch is <id>:patch:<n>"),
    "parent": ("parent_run_id", f"top level of {_RUN}", "containment parent inside one session"),
    "call": ("id of run type llm", f"top level of {_RUN} with run_type llm", "every arrival of the run is a fragment of the call"),
    "child": ("id of the tool run", f"top level of {_RUN} with run_type tool", "runs beneath a tool land in a stream named by the tool run"),
    "time": ("start_time and end_time", f"top level of {_RUN}", "start_time, end_time on the arrival carrying the end (a trace's first run posted complete: its start_time, it carries the prompt); epoch milliseconds from the JS client"),
    "model": ("extra.metadata.ls_model_name", "extra.metadata of a run with run_type llm", "remembered from the post for later patches"),
    "llm.call": ("run_type: llm", f"top level of {_RUN}", "one call per llm run"),
    "tool": ("run_type: tool", f"top level of {_RUN}; extra.tool_call_id", "joined to the model's tool call by tool call id; one no landed model call asked for has a call of its own, from its inputs; "
             "a retriever run (run_type: retriever) is such a tool: its query the call's input, its documents the result"),
    "message.external": ("inputs.messages", "inputs of a trace's first run", "the last human message; a decorated function's first string argument; a run whose parent never landed reads as a first "
                         "run, but for a LangGraph node's (langgraph_node metadata) or once its trace gave a person's input: what the graph "
                         "or a chain passed a run is no person's input"),
    "message.assistant": ("outputs.generations[].message.kwargs.content", "outputs of a run with run_type llm", "text blocks of the model output"),
    "result_of": ("tool_call_id", "extra.tool_call_id of a tool run, or its ToolMessage", "a failed tool without one joins only to the one unanswered call of its name"),
    "epoch.boundary": ("additional_kwargs.lc_source: summarization", "a message in the outputs of a run", "written by SummarizationMiddleware"),
    "epoch.summary": ("additional_kwargs.lc_source: summarization", "content of that message", "the summary carried into the new context"),
    "error.api": ("error", f"top level of {_RUN} with run_type llm, or a trace's first run", "the error is kept whole, its traceback too"),
}

_DERIVED: dict[str, str] = {
    "segment": "derived by assembly from activity windows",
    "stream": "derived: main, or one per tool run with runs beneath it",
    "epoch": "derived: the stretch between summarizations",
    "talk": "derived: one per trace",
    "agent.call": "derived: a tool run with a run beneath it that is no model call (a chain, a retriever)",
    "agent.output": "derived: the child stream's last model response",
    "auxiliary": "derived: a tool run with only model calls beneath it",
    "main": "derived: the runs not beneath a tool",
    "thinking": "derived: reasoning blocks of the model output",
    "message.synthetic": "derived: LangChain writes no client-made assistant message",
    "context.injection": "derived: the framework's injected context is in the request (a provider body)",
    "batch": "derived: LangSmith has no group of children",
    "continues": "derived: a summarization names no record to resume from",
    "trigger": "derived: a trace's first run with a human message is external",
    "external": "derived: a trace's first run with a human message",
}


def glossary_terms() -> list[Term]:
    """One Term per name of :data:`asz_core.VOCABULARY`, in its order (origin-digest §6)."""
    return list(build_glossary(NAMED, _DERIVED, default_note="derived by asz; LangSmith has no word for it"))


#: The glossary of ``langsmith/1``, computed once.
GLOSSARY: tuple[Term, ...] = tuple(glossary_terms())

#: One rule per flag ``langsmith/1`` sets.
FLAG_RULES: tuple[FlagRule, ...] = (
    FlagRule("external_input", "the post of a trace's first run whose inputs hold a human message (or a decorated function's string "
                               "argument, or a LangGraph Command's resume value: a person's answer to an interrupt); the input record derived for a trace whose first run is a model call"),
    FlagRule("system_prompt",
             "a kept value (a trace's first input, an llm run's fields before its end) holding a system or developer message, "
             "or a key system, instructions, instruction, system_instruction, system_instructions, preamble, system_message, "
             "system_prompt (case, _ and - ignored); every kept value of a decorated function (ls_method metadata or library langsmith)"),
    FlagRule("tool_schemas", "a kept value holding a non-empty list or map under tools, functions, function_declarations, tool_definitions or available_tools"),
    FlagRule("finished", "the arrival carrying an llm run's end: its end_time with no error, or a generation "
                        "stating a finish_reason or stop_reason"),
    FlagRule("error", "an arrival of an llm run carrying error; the error record derived after a trace's first run that carries error"),
    FlagRule("context_reset", "a message with additional_kwargs.lc_source summarization first seen in a run's outputs"),
    FlagRule("reset_summary", "the same message's content, landed after the reset"),
    FlagRule("notice", "the end of a tool run whose error is LangGraph's GraphInterrupt (the tool called interrupt(): it asks a "
                       "person and waits)"),
    FlagRule("auxiliary", "the end of a tool run with runs beneath it, all of them model calls (run_type llm)"),
)
