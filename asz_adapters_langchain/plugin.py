"""The ``langsmith-ingest`` adapter and its registration (entry point ``langsmith-ingest``; origin-digest §5.4).

Its source root is the *storage root* (the receiver stages into
``<root>/_ingest/langsmith/inbox``). Discovery materialises staged arrivals
into one append source per session and stream
(``_ingest/langsmith/sessions/<session>/<stream>.jsonl``, and one
``provider_body`` source per session for the llm runs' inputs and outputs; see
:mod:`asz_adapters_langchain.inbox`) and lists those; the generic collector
lands them through :meth:`LangsmithIngest.convert_line`. ``asz collect``, ``asz sources`` and ``asz server`` read
the inbox of the storage root they resolved (``--root``, else ``storage.root`` of ``--config FILE`` or ./asz.yaml,
else ./data; :func:`asz_core.cli.jobs.storage_source_root`), unless ``--source``, ``source_root`` or
``$ASZ_LANGSMITH_ROOT`` names another folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from asz_core import Adapter, Capabilities, Discovery, Record, Source, hookimpl
from asz_core.plugins.adapter import adapter_version

from .dialect import DIALECT, convert_body, convert_line, tool_run_ms
from .reasons import questions_not_landed, runs_landed_partly, steps_failed_caught
from .glossary import FLAG_RULES, GLOSSARY
from .inbox import INGEST, WAIT_PASSES, Settings, materialise, waiting_arrivals
from .settings import SETTINGS, option

__all__ = ["LangsmithIngest", "asz_register_adapters", "child_label", "child_prompt", "ingest_dir", "runs_without_end"]

NAME = "langsmith-ingest"


def ingest_dir(source_root: str | os.PathLike) -> Path:
    """``<source_root>/_ingest/langsmith``; a path already ending in ``_ingest/langsmith`` is kept as it is."""
    p = Path(source_root)
    if p.name == INGEST.name and p.parent.name == INGEST.parent.name:
        return p
    return p / INGEST


def _settings() -> Settings:
    """thread_keys and scope of the ``langsmith-ingest`` entry of ./asz.yaml (defaults when absent or unreadable)."""
    try:
        from asz_core.config import load_config

        return _from_options(load_config(settings={NAME: SETTINGS}).adapter(NAME).options)
    except Exception:
        return Settings()


def _from_options(options) -> Settings:
    return Settings(option(options, "thread_keys"), option(options, "scope"), option(options, "provider_bodies"))


#: What a file of an earlier ``langsmith-ingest`` did not keep or read as this one does, by the version that first
#: did (:meth:`LangsmithIngest.landed_without`; the notes of :attr:`LangsmithIngest.version`).
_LANDED_WITHOUT = (
    ((0, 4, 0), "the LangSmith project (session_name) as the conversation's project, and a run's session_id as one "
                "it describes (it landed it as an unknown part)"),
    ((0, 5, 0), "a LangGraph interrupt as what the tool asked a person (it landed a failed result, so the resumed "
                "result made the tool's results ambiguous), and the resumed run's Command(resume) as the person's answer"),
    ((0, 6, 0), "a run's own metadata (config metadata such as a customer or a tenant) beside its langgraph_* and ls_* "
                "keys: it dropped them with extra"),
    ((0, 7, 0), "which person messages a trace's first run was given and its graph state held at its end, so an "
                "invocation none of whose requests arrived is not said"),
    ((0, 8, 0), "a tool result's size as that of its text (it counted the whole ToolMessage, so result_bytes reads "
                "larger and asz export --whole leaves a long result clipped), and a run time that does not read as "
                "sent (it landed no time and said nothing)"),
    ((0, 10, 0), "a run sent whole in one part over --max-part with only its largest members taken out, until it fit "
                 "(0.9.0 took out every inputs, outputs, events, extra and serialized, however small, each said to be "
                 "over the limit, so a model call's reply and usage could be listed under dropped as taken out; "
                 "earlier versions refused such a request whole)"),
    ((0, 11, 0), "a failed run's error whole (it landed the first line, the exception, and left its traceback out with "
                 "no dropped entry), and the values of a run whose parent never landed (a tool whose model call never "
                 "arrived landed no call of its own, its inputs dropped as on a model call there was none, its output "
                 "as data no reader searched or counted; a chain's question was dropped as the graph's state) and a "
                 "parent cycle said as one"),
    ((0, 12, 0), "a tool run's own start and end (its tools are timed from the end of the model call that asked for "
                 "them, not by their own run), and a chain step's error (listed under dropped with its size and "
                 "SHA-256, its text not landed)"),
    ((0, 13, 0), "a failed tool's result size as that of its error (the empty outputs LangSmith sends, {}, was the "
                 "result's data, so result_bytes read 2 beside a longer traceback)"),
    ((0, 14, 0), "a retriever run's query and documents (it dropped them as a chain's values: no search or export found "
                 "them), a prompt, parser or embedding run's values (dropped the same way), a run of a run_type LangSmith "
                 "does not document verbatim as an unknown part (it was trimmed as a chain), and, with a trace's first "
                 "run lost, a LangGraph node's inputs as no person's prompt (it drew the question once per node, and a "
                 "tools node's tool_call_with_context, as what a person typed)"),
    ((0, 15, 0), "the person's prompt of a trace posted complete (/runs/batch, as the LangChainTracer sends a finished "
                 "run) at the run's start_time: it is at the run's end_time, after the final reply, and the "
                 "conversation's start is its first step's; a decorated function posted complete, its return value as "
                 "the talk's reply (it dropped it); and a finished run sent again with another end as a conflict (it "
                 "landed the changed end as a record no reader draws, searches or says)"),
    ((0, 16, 0), "a chain trace's answer, its first run's outputs when no model call's reply and no graph state holds "
                 "them (it listed them under dropped, so no reader showed or searched them), a decorated function's "
                 "answer after the model calls beneath it (the talk's reply read the model's), and a model call whose "
                 "run ended with no finish reason stated as ended (it read as a last snapshot with no end recorded)"),
)
#: At most this many characters of a child stream's label read from the tool call that started it (:func:`child_label`).
CHILD_LABEL_MAX = 80


def child_prompt(call: Mapping[str, Any] | None) -> str:
    """What a tool call that ran a LangGraph sub-graph asked it (``call``: the landed ``call`` part, its arguments in
    ``data``): the one string member of its arguments, whole (``{"topic": "marsupials"}`` → ``marsupials``); '' when
    the arguments are no object or hold no string member or more than one (no rule says which is the prompt).
    The sub-graph's own input is the graph's state, which the dialect drops. Never raises (trial 25a, F8)."""
    data = call.get("data") if isinstance(call, Mapping) else None
    said = [v for v in data.values() if isinstance(v, str) and v.strip()] if isinstance(data, Mapping) else []
    return said[0] if len(said) == 1 else ""


def child_label(call: Mapping[str, Any] | None) -> str:
    """The label of a child stream a tool call started: the tool's name and what it asked, ``research: marsupials``
    (:func:`child_prompt`), else its name and its arguments as compact JSON, ``research {"topic":"a","n":2}``; one
    line, cut to :data:`CHILD_LABEL_MAX` characters with ``…``; '' when there is no call or it has no name. As Claude
    Code's ``Task`` description names its subagent (trial 25a, F8: the page read ``Subagent: <run id>``). Never raises."""
    name = call.get("name") if isinstance(call, Mapping) else None
    if not isinstance(name, str) or not name.strip():
        return ""
    asked = child_prompt(call)
    data = call.get("data")
    if asked:
        text = f"{name.strip()}: {asked}"
    elif data in (None, {}, []):
        text = name.strip()
    else:
        try:
            text = f"{name.strip()} {json.dumps(data, ensure_ascii=False, separators=(',', ':'), sort_keys=False)}"
        except (TypeError, ValueError):
            text = name.strip()
    text = " ".join(text.split())
    return text if len(text) <= CHILD_LABEL_MAX else text[:CHILD_LABEL_MAX - 1].rstrip() + "…"


def _starts_only(rec: Mapping[str, Any], run: str) -> bool:
    """True when ``rec``, an arrival of ``run``, does not carry the run's end: it keeps the run's fields as data (an
    arrival before the end: the model call's or tool's run less its settings, or a chain's envelope) and they hold
    no ``end_time``. Every arrival that carries the end holds its content (text, call, result), its error, or the
    run's fields with their ``end_time`` (dialect.py: only the arrival carrying the end carries content)."""
    for p in rec.get("parts") or ():
        d = p.get("data") if isinstance(p, Mapping) and p.get("k") == "data" else None
        if isinstance(d, Mapping) and d.get("id") == run and "start_time" in d:
            return d.get("end_time") in (None, "")
    return False


def runs_without_end(records: Iterable[Mapping[str, Any]]) -> list[tuple[str, bool]]:
    """``(run id, is a model call)`` of each run whose first arrival landed (record id = the run id) and none of whose
    arrivals (that record, its patches ``<run id>:patch:<n>``) carries its end (:func:`_starts_only`), in the order
    the runs landed: what a LangGraph app that stopped mid-run leaves (trial 27a F5). A run's end is what LangSmith
    sends as ``end_time`` (a patch, or the post itself). Derived records (``<id>:input``, ``<id>:error``, …) are no
    runs. Never raises on a record of another shape (it is passed over)."""
    started: dict[str, bool] = {}
    ended: set[str] = set()
    for rec in records:
        rid = rec.get("id") if isinstance(rec, Mapping) else None
        if not isinstance(rid, str) or not rid:
            continue
        run, _, patch = rid.partition(":patch:")
        if ":" in run or (patch and not patch.isdigit()):
            continue  # a derived record (<id>:input, <id>:error, <id>:summary…): not an arrival
        if not patch:
            started.setdefault(run, bool(rec.get("call")))
        if not _starts_only(rec, run):
            ended.add(run)
    return [(run, call) for run, call in started.items() if run not in ended]


def waiting_why(w: dict) -> str:
    """Why a staged arrival ``w`` is pending, and when it lands: ``a patch waiting for its run's post: tried again on
    the next 2 pass(es), then landed with what is known`` (trial 32a F9)."""
    what = "a patch waiting for its run's post" if w.get("op") == "patch" else "a post waiting for its parent run"
    tries = w.get("tries", 0) if isinstance(w.get("tries"), int) else 0
    return f"{what}: tried again on the next {max(WAIT_PASSES - tries, 1)} pass(es), then landed with what is known"


class LangsmithIngest(Adapter):
    """LangChain / LangGraph traffic received as LangSmith runs, landed as ``transcript`` streams (dialect ``langsmith/1``).

    Not stateless like the file adapters: discovery reads and writes
    ``<root>/_ingest/langsmith`` (inbox, state, materialised sources); run it
    under the root's collector lock (``asz collect`` does).
    """

    name = NAME
    # 0.2.0: each dropped member's why is its own (reasons.py; trial 23a F10); 0.3.0: a run member the dialect does not
    # know lands verbatim as an unknown part (dialect.KNOWN_MEMBERS; F9); 0.4.0: a run's session_id is described, and
    # every record of a run with a session_name carries it as its cwd, the conversation's project (trial 25a F2, F4);
    # 0.5.0: a LangGraph interrupt is a notice of what the tool asked a person, a resume the person's answer (28c F2);
    # 0.6.0: a kept envelope holds the run's metadata whole, the app's own keys too (28c F4); 0.7.0: a trace's first
    # run says which person messages its inputs and its end state hold (digests), so a lost invocation is said;
    # 0.8.0: a tool's result part counts the bytes of its text (or data), not of the whole ToolMessage (32a F2);
    # 0.9.0: a value the receiver took out (over --max-part) reads as a result too large / a dropped member (32a F1);
    # 0.10.0: a run part over --max-part loses only its largest members, until it fits (review32 on 7b21ad8b);
    # 0.11.0: a failed run's error lands whole, its traceback too; a run whose parent never landed (lost, or a parent
    # cycle) lands as the first run of what is known, a tool no landed model call asked for with a call of its own
    # (trial 37b F1, F2); 0.12.0: a tool run's end carries the run's own start and end, what the readers time the tool
    # by (37b F4), and a chain step's error lands whole (37b rest); 0.13.0: a failed tool's empty outputs ({}) is no
    # data beside its error: the result part's bytes are the error's, the {} listed as dropped (trial 35a); 0.14.0: a
    # retriever is a call and its result, a prompt's, parser's or embedding's values are kept, a run of another type
    # travels verbatim, a LangGraph node whose parent never landed gives no prompt (trial 46b F1, F3); 0.15.0: a trace's
    # first run posted complete is at its start_time (its prompt), a decorated function's so posted answers at its
    # end_time (<id>:answer), and a finished run sent again with another end lands
    # under its first end's record id, a conflict every reader says (trial 48c F1, F2); 0.16.0: a chain trace's
    # outputs no other record holds are its answer, and a model call's run that ended is finished (trial 50c F1, F5)
    version = "0.16.0"
    dialects = (DIALECT,)
    kinds = ("transcript", "provider_body")
    capabilities = Capabilities(tool_calls=True, reasoning=True, usage=True, children=True)
    source_env = ("ASZ_LANGSMITH_ROOT",)
    description = "LangChain / LangGraph runs received as LangSmith traffic (asz ingest langsmith)"
    source_in_storage = True  # its source is the storage root's _ingest/langsmith
    glossaries = {DIALECT: GLOSSARY}
    flag_rules = {DIALECT: FLAG_RULES}

    def __init__(self, settings: Settings | None = None):
        self.settings = settings

    def configure(self, entry) -> None:
        """``thread_keys``, ``scope`` and ``provider_bodies`` from the configuration the command read (``--config`` included)."""
        self.settings = _from_options(entry.options)

    def start_receiver(self, storage: Path, entry) -> str | None:
        """Start the LangSmith receiver in a daemon thread (``listen``, ``token`` of ``entry``); returns its address.

        Used by ``asz server`` and watch-mode ``asz collect`` when
        ``langsmith-ingest`` is enabled: arrivals are staged under ``storage``
        and landed by each collect pass. Raises OSError when the address cannot be bound.
        """
        from .ingest_cmd import start_receiver

        return start_receiver(storage, entry)

    def tool_timed(self, dialect: str) -> bool:
        """True: a ``langsmith/1`` tool step runs from the end of the model call that asked for it to the end of its
        tool run (both runs' ``end_time``), no person in between, so ``request_to_result_ms`` times the tool and the
        graph's step into it (trial 32a F5)."""
        return True

    def tool_run_ms(self, dialect: str, record) -> int | None:
        """The tool run's own start to end in ms, from the times its end record carries (:func:`.dialect.tool_run_ms`;
        langsmith-ingest 0.12.0 on, trial 37b F4); None for a record landed without them."""
        return tool_run_ms(record)

    def failed_word(self, dialect: str) -> str:
        """LangSmith's words for a failed tool call: the tool run's ``error``, or its ToolMessage's ``status: error``
        (:mod:`asz_adapters_langchain.dialect`)."""
        return "an error on the tool run, or status: error on its ToolMessage"

    def error_failed(self, dialect: str) -> str:
        """``"run"``: an error step of ``langsmith/1`` that ends no model call is the trace's first run ending with an
        ``error`` (the graph failed: a tool or a node raised, or a model call's error went up through it), not a
        model request (trial 32a F7; a model call's own error is its call's, a ``request`` by the core's rule)."""
        return "run"

    def staged_folders(self, source_root: Path) -> list[Path]:
        """``[<storage root>/_ingest/langsmith/inbox]``: where the receiver stages each accepted request, so that
        ``asz server`` runs a pass soon after a trace arrives (trial 23a F14)."""
        return [ingest_dir(source_root) / "inbox"]

    def has_staged(self, source_root: Path) -> bool:
        """True when a plain ``asz collect`` (or ``asz sources``, ``asz server``) has something of this adapter's to do
        under ``source_root`` (trial 40a F2): requests staged in the inbox (the default rule), or what
        :meth:`staged_reason` says. Never raises."""
        return super().has_staged(source_root) or bool(self.staged_reason(source_root))

    def staged_reason(self, source_root: Path) -> str:
        """Why a pass has work under ``source_root`` besides staged request files, in words (trial 40d F4): a receiver
        listening on the root now (:func:`.listening.listening_now`: what it stages next is landed by a server started
        now), arrivals that wait in ``state.json`` for a later pass (their parent run), or a journal a stopped pass
        left there; ``''`` when none holds (no ``state.json``, or one that does not read: the pass that reads it says
        so). Never raises."""
        ingest = ingest_dir(source_root)
        from .inbox_state import load_state
        from .listening import listening_now

        try:
            if listening_now(ingest):
                return f"a receiver is listening on {ingest} now (what it stages next is landed by this pass or the next)"
            if not (ingest / "state.json").is_file():  # no receiver ever staged here
                return ""
            st = load_state(ingest / "state.json")
        except Exception:  # an unreadable state.json: the pass that reads it says so
            return ""
        if st["waiting"]:
            return f"{len(st['waiting']):,} arrival(s) wait in {ingest / 'state.json'} for their parent run"
        if st["journal"]:
            return f"a stopped pass left its journal in {ingest / 'state.json'} to be applied"
        return ""

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """``$ASZ_LANGSMITH_ROOT``, else ``storage.root`` of ./asz.yaml (default ``./data``). The commands that collect
        do not ask it: they read the storage root they resolved (:func:`asz_core.cli.jobs.storage_source_root`)."""
        env = os.environ if env is None else env
        if env.get("ASZ_LANGSMITH_ROOT"):
            from asz_core.config import user_path

            return user_path(Path(env["ASZ_LANGSMITH_ROOT"]))
        try:
            from asz_core.config import load_config

            return Path(load_config().root)
        except Exception:
            return Path("data")

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """Materialise staged arrivals, then list one ``transcript`` source per session and stream.

        ``source_root`` is the storage root (or its ``_ingest/langsmith``).
        ``include``/``exclude`` are not used (conversations are named by the
        app, not by a path). An unwritable ingest directory is an error of
        the discovery, never an exception.
        """
        out = Discovery()
        ingest = ingest_dir(source_root)
        base = ingest.parent.parent
        try:
            found = materialise(ingest, self.settings or _settings(), out)
        except OSError as exc:
            out.errors.append((str(ingest), f"cannot materialise staged arrivals: {exc.strerror or exc}"))
            return out
        for session, kind, stream, path in found:
            try:
                src = path.relative_to(base).as_posix()
            except ValueError:
                src = path.as_posix()
            out.sources.append(Source(session=session, kind=kind, path=path, src=src, dialect=DIALECT, stream=stream))
        out.pending = [(f"run {w.get('id', '?')}", waiting_why(w)) for w in waiting_arrivals(ingest)]
        return out

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """One materialised line → one record: an arrival (:func:`~asz_adapters_langchain.dialect.convert_line`) or,
        from a ``provider_body`` source, a body (:func:`~asz_adapters_langchain.dialect.convert_body`); never raises."""
        if source.kind == "provider_body":
            return convert_body(source, line, ord, off)
        return convert_line(source, line, ord, off)

    def convert_document(self, source: Source, data: bytes) -> Record:
        """No snapshot documents: a whole document is read as line 1."""
        return convert_line(source, data, 1, 0)

    def child_label(self, dialect: str, stream: str, call: Mapping[str, Any] | None, prompt: str = "") -> str:
        """A sub-graph's stream (named by its run id) labelled by the tool call that ran it, ``research: marsupials``
        (:func:`child_label`); '' with no call (the readers then draw ``Subagent: <run id>``)."""
        return child_label(call)

    def child_prompt(self, dialect: str, stream: str, call: Mapping[str, Any]) -> str:
        """What the tool call that ran a sub-graph asked it (:func:`child_prompt`), drawn at the head of its talk."""
        return child_prompt(call)

    def runs_landed_partly(self, dialect: str, records) -> list[tuple[str, str]]:
        """The runs landed with what is known: their post, or their parent run, never arrived (:func:`~asz_adapters_langchain.reasons.runs_landed_partly`)."""
        return runs_landed_partly(records)

    def steps_failed_caught(self, dialect: str, records) -> list[tuple[str, str, str]]:
        """The chain steps that ended with an error the run above them went on after (:func:`.reasons.steps_failed_caught`)."""
        return steps_failed_caught(records)

    def questions_not_landed(self, dialect: str, records) -> list[tuple[str, int, int]]:
        """The person messages a thread's graph state holds that no landed trace asked (:func:`.reasons.questions_not_landed`)."""
        return questions_not_landed(records)

    def runs_without_end(self, dialect: str, records) -> list[tuple[str, bool]]:
        """The runs that started and whose end no landed arrival carries (:func:`runs_without_end`)."""
        return runs_without_end(records)

    def prune_staging(self, storage: Path, before_ns: int, dry_run: bool = False) -> tuple[int, int, list[str]]:
        """The ``done/`` files staged before ``before_ns`` once everything materialised has landed (:func:`.staging.prune_done`)."""
        from .staging import prune_done

        return prune_done(Path(storage), before_ns, dry_run)

    def root_gaps(self, dialect: str, storage) -> list[tuple[str, str, str]]:
        """The root's gaps (from, to) and refused requests (at, at), each with its sentence (trial 32a F3)."""
        from .listening import gap_line, gaps, refusal_line, refusals

        return ([(g["from"], g["to"], gap_line(g)) for g in gaps(Path(storage))]
                + [(r["at"], r["at"], refusal_line(r)) for r in refusals(Path(storage))])

    def root_notes(self, storage: Path) -> list[str]:
        """The times no receiver listened on the root (:func:`.listening.gaps`) and the requests a receiver refused
        unread (:func:`.listening.refusals`, trial 32a F1), one sentence each."""
        from .listening import gap_line, gaps, refusal_line, refusals

        return [gap_line(g) for g in gaps(Path(storage))] + [refusal_line(r) for r in refusals(Path(storage))]

    def landed_in_arrival_order(self, dialect: str) -> bool:
        """True: a run lands when its post and its patch arrive, in the client's batches, so a thread's landed order is
        arrival order; the exports read it in the document's order (:mod:`asz_core.reading.doc_order`)."""
        return True

    def landed_without(self, dialect: str, adapter: str) -> list[str]:
        """What a file whose header names ``adapter`` (``langsmith-ingest/X.Y.Z``, an earlier version) did not keep or
        read as this version does (:data:`_LANDED_WITHOUT`), one phrase each; [] for another adapter or a version that
        is not dotted integers. Never raises."""
        v = adapter_version(adapter, self.name)
        return [] if v is None else [what for since, what in _LANDED_WITHOUT if v < since]


@hookimpl
def asz_register_adapters() -> list[type[Adapter]]:
    """The adapters this plugin provides: ``[LangsmithIngest]``."""
    return [LangsmithIngest]


@hookimpl
def asz_register_settings() -> dict:
    """The keys of the ``langsmith-ingest`` entry of asz.yaml (:mod:`asz_adapters_langchain.settings`)."""
    return {NAME: SETTINGS}


@hookimpl
def asz_register_commands(cli) -> None:
    """``asz ingest langsmith`` (:mod:`asz_adapters_langchain.ingest_cmd`)."""
    from .ingest_cmd import register

    register(cli)
