"""From staged arrivals to per-session sources: the stateful half of ``langsmith/1`` (origin-digest §5.4).

The generic :class:`~asz_core.collect.Collector` lands append sources line by
line and hands each line to a stateless ``convert_line``. LangSmith arrivals
need memory (a patch completes a run posted earlier; a run's session, stream
and tool join come from its ancestors), so discovery does that work first and
*materialises* what it decided, one JSON line per arrival, into files the
Collector then reads like any other append source::

    <ingest>/inbox/<ns>-<pid>-<n>.jsonl      staged by the receiver (one request each)
    <ingest>/done/…                          inbox files already materialised
    <ingest>/sessions/<session>/<stream>.jsonl   one append source per session and stream
    <ingest>/sessions/<session>/bodies/provider_body.jsonl   the session's provider bodies (llm inputs/outputs),
    <ingest>/sessions/<session>/bodies/provider_body.meta.jsonl  and line for line what each one is
    <ingest>/state.json                      what is remembered between passes

``<ingest>`` is ``<storage root>/_ingest/langsmith``. A materialised line is
``{"asz": {decisions}, "op": "post"|"patch"|"title"|"input"|"error"|"reset"|"summary"|"call", "run":
{the run fields as they arrived}, "received": …}``; the decisions are the
record's identity (``id``, ``parent``, ``run``, ``call``, ``tool``,
``child``, ``started_by``, ``model``, ``label``) and how its content is read
(``kind``: ``root``, ``graph``, ``llm``, ``tool``, ``retriever``, ``value``, ``unknown``, ``traceable``:
:func:`~asz_adapters_langchain.runs.run_kind`; ``end``: whether this arrival carries the run's end).

Crash safety (write-ahead): a pass first commits, in one atomic replace of
``state.json``, what it decided (the remembered runs) together with a
*journal*: the bytes it will append to each stream file, the length each
file had, and the inbox files it consumed. Then it appends (fsync) and moves
those inbox files to ``done/``, then clears the journal. A crash before the
commit leaves everything as it was (the inbox is read again); a crash after
it is finished by the next pass, which applies the journal first: a file
already at its end length is left alone, one cut mid-append is cut back and
written again. Nothing acknowledged is lost, nothing is materialised twice,
and bytes someone else appends to a stream file are never cut.

Waiting ancestry: a post whose parent run is unknown, or a patch of a run
never posted, waits in the state; it is tried again at the end of the pass
and on up to :data:`WAIT_PASSES` later passes, then materialised with what is
known (its own conversation, the ``main`` stream), its decisions saying what never
came (``waited``: ``post`` or ``parent``), which the dialect lands under ``dropped``
and the readers say as a problem of the conversation (trial 28c F3). A post whose parent
never landed is read as the first run of its trace (trial 37b F2). Posts whose parent links
form a cycle among what waits (``A`` → ``B`` → ``A``) never find a parent: once nothing else
moves they land in that pass, each as a first run, ``waited: cycle``. A LangGraph node's run whose parent never landed
(``graph_node``) is read by its own kind, not as a first run: what the graph passed the node is no person's input, so
it gives no prompt, only the conversation's title when its state holds a person's message (trial 46b F3); so is one
whose trace already gave a person's input (``traces[trace]["q"]``): a trace has one.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Any, Sequence

import orjson

from asz_core import Discovery, discovery_progress, source_entries

from .inbox_state import PRUNE_AFTER, apply_journal as _apply_journal, load_state as _load_state, prune, write_atomic as _write_atomic

from .ancestry import in_cycles, never_came, trace_of
from .answers import chain_answer, input_keys, reply_keys
from .tool_runs import safe_name, tool_decisions
from .exactjson import loads as exact_loads
from .naming import DEFAULT_SCOPE, DEFAULT_THREAD_KEYS, conversation_values, session_name, unsupplied_session
from .runs import (TITLE_MAX, args_text, end_digest, error_text, graph_node, has_end, human_text, message_text, metadata, posted_complete, resume_text, rfc3339,
                   run_kind, summary_messages, title_of, tool_calls)

__all__ = [
    "INGEST",
    "WAIT_PASSES",
    "waiting_arrivals",
    "TITLE_MAX",
    "Settings",
    "materialise",
    "prune",
    "PRUNE_AFTER",
    "run_kind",
    "has_end",
    "rfc3339",
    "human_text",
    "message_text",
]

#: The ingest directory, relative to the storage root.
INGEST = Path("_ingest") / "langsmith"
#: Passes an arrival waits for its ancestry after the one it arrived in.
WAIT_PASSES = 3


class Settings:
    """What materialisation reads from §8.2: ``thread_keys`` and ``scope`` (defaults from :mod:`.naming`) and
    ``provider_bodies`` (True: an llm run's inputs and outputs also go to the session's body source)."""

    def __init__(self, thread_keys: Sequence[str] | None = None, scope: Sequence[str] | None = None, provider_bodies: bool = True):
        self.thread_keys = tuple(thread_keys or DEFAULT_THREAD_KEYS)
        self.scope = tuple(scope or DEFAULT_SCOPE)
        self.provider_bodies = provider_bodies


#: The body source of a session, relative to its directory under ``sessions/``: one line per body, the body's own bytes.
BODIES = "bodies/provider_body.jsonl"
#: Beside it, line for line, what each body is (``id``, ``role``, ``call``, ``run``, ``model``).
BODIES_META = "bodies/provider_body.meta.jsonl"


# --------------------------------------------------------------------------- state


def waiting_arrivals(ingest: str | os.PathLike) -> list[dict]:
    """The staged arrivals still waiting (for their parent run) after the last pass: ``{"op", "id", "tries", …}`` each."""
    return [w for w in _load_state(Path(ingest) / "state.json")["waiting"] if isinstance(w, dict)]


# --------------------------------------------------------------------------- the pass


class _Pass:
    def __init__(self, ingest: Path, state: dict, settings: Settings):
        self.ingest = ingest
        self.st = state
        self.settings = settings
        self.out: dict[str, list[bytes]] = {}  # relative stream file -> lines to append
        self.below: set[str] = set()  # tool runs with runs beneath them (this pass's arrivals included)
        self.chain_below: set[str] = set()  # tool runs with a chain beneath them
        #: trace id -> this pass's arrivals of it not recorded yet (:meth:`prescan`), and the records held until they
        #: are: a failed trace's error (:meth:`fail`), a chain's answer (:meth:`record`; trial 50c F1)
        self.left: dict[str, int] = {}
        self.held: dict[str, list[tuple[str, str, dict]]] = {}
        #: (trace, tool call id) of the tool calls the model calls among this pass's arrivals name (:meth:`asked`: a
        #: tool's end may be read before the end of the model call that asked for it, a post sent with its end before
        #: that call's patch); by trace, since threads repeat call ids (``call_1``)
        self.named: set[tuple[str, str]] = set()
        self.replied: set[tuple[str, str]] = set()  # (trace, digest of a model reply's text) of this pass (50c F1)

    def prescan(self, arrivals: list[dict]) -> None:
        """Mark, from this pass's posts and the remembered runs, which tool runs have runs (and chains) beneath them.

        A tool's end usually arrives in the same request as the runs beneath it
        (they ended first), so what a tool opened is known before its end is read.
        """
        runs = self.st["runs"]
        for a in arrivals:
            trace = trace_of(a, runs)
            if trace:
                self.left[trace] = self.left.get(trace, 0) + 1
            self.named.update((trace, tcid) for tcid, _ in tool_calls(a["run"].get("outputs")))
            self.replied.update((trace, k) for k in reply_keys(a["run"].get("outputs")))
        parent: dict[str, tuple[str, str]] = {rid: (m.get("p", ""), m.get("ty", "")) for rid, m in runs.items()}
        for a in arrivals:
            if a["op"] == "post":
                r = a["run"]
                parent[a["id"]] = (r.get("parent_run_id") if isinstance(r.get("parent_run_id"), str) else "", str(r.get("run_type") or ""))
        for a in arrivals:
            if a["op"] != "post":
                continue
            cur = parent[a["id"]][0]
            for _hop in range(64):
                if not cur or cur not in parent:
                    break
                pp, ty = parent[cur]
                if ty == "tool":
                    self.below.add(cur)
                    if a["run"].get("run_type") != "llm":  # anything but a model call: no auxiliary stream (46b F1)
                        self.chain_below.add(cur)
                    break
                cur = pp

    # -- helpers

    def fail(self, a: dict, mem: dict, rec_id: str) -> None:
        """The trace of ``mem`` failed (``a``, the arrival ``rec_id`` ending its first run, carries ``error``): its
        error is a step of its own, held until this pass's other arrivals of the trace are recorded (:meth:`recorded`),
        since a batch posting the failed root whole, parents first, would put it before the model calls and tools
        that came before it in time (trial 27a F9)."""
        self.put(mem, {"asz": {"kind": "error", "id": f"{rec_id}:error", "run": mem["t"], "parent": rec_id, "text": error_text(a["run"]["error"]),
                               "time": a["run"].get("end_time")}, "op": "error", "received": a.get("received", "")}, hold=True)

    def recorded(self, trace: str) -> None:
        """One more of this pass's arrivals of ``trace`` is recorded: with none left, its held records follow."""
        self.left[trace] = max(self.left.get(trace, 0) - 1, 0)
        for held in self.held.pop(trace, ()) if self.left[trace] == 0 else ():
            self.emit(*held)

    def flush_held(self) -> None:
        """Emit the records still held (arrivals of their trace wait for a later pass), in the order held."""
        for held in [h for trace in list(self.held) for h in self.held.pop(trace)]:
            self.emit(*held)

    def put(self, mem: dict, line: dict, hold: bool) -> None:
        """Emit ``line`` in the stream of ``mem``, or with ``hold`` keep it until :meth:`recorded` says this pass's other
        arrivals of its trace are recorded (a failed trace's error, trial 27a F9; a chain's answer, trial 50c F1)."""
        self.held.setdefault(mem["t"], []).append((mem["s"], mem["st"], line)) if hold else self.emit(mem["s"], mem["st"], line)

    def emit(self, session: str, stream: str, line: dict) -> None:
        rel = f"sessions/{session}/{safe_name(stream)}.jsonl"
        self.out.setdefault(rel, []).append(orjson.dumps(line) + b"\n")

    def body(self, mem: dict, rid: str, role: str, value: Any) -> None:
        """Queue one provider body line: an llm run's ``inputs`` (request) or ``outputs`` (response), as the framework saw them."""
        meta = {"id": f"{rid}:{role}", "role": role, "call": rid, "run": mem["t"], "model": mem.get("m", "")}
        # The meta file first: a body line is only read once its meta line is there (the journal writes files in order).
        self.out.setdefault(f"sessions/{mem['s']}/{BODIES_META}", []).append(orjson.dumps(meta) + b"\n")
        self.out.setdefault(f"sessions/{mem['s']}/{BODIES}", []).append(orjson.dumps(value) + b"\n")

    def session_of(self, run: dict, parent: dict | None) -> str:
        project = run.get("session_name") if isinstance(run.get("session_name"), str) else ""
        vals = conversation_values(project, metadata(run), self.settings.thread_keys, self.settings.scope)
        if vals is not None:
            return session_name(vals)
        if parent is not None:
            return parent["s"]
        trace = run.get("trace_id") if isinstance(run.get("trace_id"), str) else run["id"]
        return unsupplied_session(project, trace)

    def title_once(self, session: str, text: str, received: str, named: bool = False) -> None:
        """The session's title line, once: ``text`` (a person's text, or with ``named`` a run's name, which gives way
        once to the first person's text after it: trial 37b F2, a cycle's first run has no text). A session first seen
        here remembers the tool call ids its model calls name (``calls``, :meth:`asked`) from its start."""
        sessions = self.st["sessions"]
        if session not in sessions:
            sessions[session] = {"calls": {}}
        ss = sessions[session]
        if ss.get("titled") is True or (ss.get("titled") and named):
            return
        ss["titled"] = "name" if named else True
        self.emit(session, "main", {"asz": {"kind": "title", "label": text}, "op": "title", "received": received})

    def trace_state(self, trace: str) -> dict:
        """What the state remembers of ``trace`` (``calls``: tool call id -> name; ``answered``: the call ids a tool
        answered; ``q``: a run of it gave the person's input), begun empty the first time it is asked for."""
        return self.st["traces"].setdefault(trace, {"calls": {}, "answered": []})

    def asked(self, session: str, trace: str, tcid: str) -> bool:
        """True when a model call that landed (this pass or before) named the tool call ``tcid``: one of ``trace``, or of
        ``session`` (a resumed LangGraph run answers a call of an earlier trace). A session remembered from before
        langsmith-ingest 0.11.0 (no ``calls``) cannot say: any ``tcid`` reads as asked, as it did then."""
        if not tcid:
            return False
        if (trace, tcid) in self.named or tcid in self.st["traces"].get(trace, {}).get("calls", {}):
            return True
        calls = self.st["sessions"].get(session, {}).get("calls")
        return True if calls is None else tcid in calls

    # -- posts

    def post(self, a: dict, force: bool) -> bool:
        """Materialise one post; False when it must wait for its parent."""
        run = a["run"]
        rid = a["id"]
        runs = self.st["runs"]
        if rid in runs:
            return self.patch(a, force, repost=True)
        pid = run.get("parent_run_id") if isinstance(run.get("parent_run_id"), str) else ""
        parent = runs.get(pid) if pid and a.get("waited") != "cycle" else None  # a cycle's links are not followed
        if pid and parent is None and not force:
            return False
        # A run whose parent never landed (it never arrived, or a cycle) is the first run of what lands of its trace:
        # its values are read as a trace's first run's are, since no record above it carries them (trial 37b F2),
        # but for a LangGraph node's, or once a run of its trace gave the person's input (``node``): what the graph
        # or the chain above passed it is no person's input (trial 46b F3).
        root = parent is None
        trace = run.get("trace_id") if isinstance(run.get("trace_id"), str) and run.get("trace_id") else (parent["t"] if parent else rid)
        node = root and bool(pid) and a.get("waited") != "cycle" and (graph_node(run) or self.st["traces"].get(trace, {}).get("q"))
        kind = run_kind(run, root and not node)
        session = self.session_of(run, parent)
        same = parent is not None and parent["s"] == session
        if not same:
            stream, started_by, opener = "main", "", ""
        elif parent["ty"] == "tool":
            # A run beneath a tool: the stream the tool opened, named by the tool's run id.
            stream, opener = safe_name(pid), pid
            started_by = parent["st"] if parent["st"] != "main" else ""
        else:
            stream, started_by, opener = parent["st"], parent.get("sb", ""), parent.get("op", "")
        if opener and opener in runs:
            runs[opener]["below"] = True
            if run.get("run_type") != "llm":
                runs[opener]["cb"] = True  # the tool that opened this stream has more than model calls beneath it
        mem = {"s": session, "st": stream, "t": trace, "p": pid if same else "", "ty": run.get("run_type") or "",
               "k": kind, "n": str(run.get("name") or ""), "end": False, "np": 0}
        if kind == "root" and run_kind(run, False) == "traceable":
            mem["tr"] = True  # a decorated function: its later arrivals carry its values (its patch may not say so)
        if started_by:
            mem["sb"] = started_by
        if opener:
            mem["op"] = opener
        if kind in ("tool", "retriever") and run.get("start_time") not in (None, ""):
            mem["t0"] = run["start_time"]  # the tool run's own start, for its end: a JS client's patch omits it
        runs[rid] = mem
        if root or not same:
            # a node's inputs may title the conversation (the person's message its state holds), never be a prompt
            text = (human_text(run.get("inputs")) if root else "") or (args_text(run.get("inputs")) if kind == "root" else "")
            if kind == "root" and (iv := input_keys(run.get("inputs"), text)):
                mem["iv"] = iv  # the input values its record landed as text, which its dict answer may repeat (review50)
            self.title_once(session, title_of(text) or mem["n"], a.get("received", ""), named=not title_of(text))
            if root and not node and (text or resume_text(run.get("inputs"))) and kind in ("root", "llm"):
                self.trace_state(trace)["q"] = True  # the trace's input: once
            if root and not node and kind == "llm" and text:
                # A trace that is one model call: its human message is the talk's input.
                self.emit(session, stream, {"asz": {"kind": "input", "id": f"{rid}:input", "run": trace, "text": text,
                                                    "time": run.get("start_time")}, "op": "input", "received": a.get("received", "")})
        self.record(a, mem, "post", rid)
        return True

    def patch(self, a: dict, force: bool, repost: bool = False) -> bool:
        """Materialise one patch (or a post of a run already posted); False when the run is unknown."""
        rid = a["id"]
        mem = self.st["runs"].get(rid)
        if mem is None:
            if not force:
                return False
            # Never posted: land it as its own run with what it says.
            return self.post({**a, "run": {**a["run"], "id": rid}}, True) if not repost else False
        mem["np"] = mem.get("np", 0) + 1
        self.record(a, mem, "patch", f"{rid}:patch:{mem['np']}")
        return True

    # -- the record decisions

    def llm(self, run: dict, rid: str, mem: dict, d: dict, end: bool) -> None:
        """A model call's decisions: its call and model; at its end the tool calls it names (its trace's and its
        session's, :meth:`asked`); its provider bodies."""
        d["call"] = rid
        md = metadata(run)
        model = md.get("ls_model_name") or md.get("model_name") or md.get("model")
        if isinstance(model, str) and model:
            mem["m"] = model
        if mem.get("m"):
            d["model"] = mem["m"]
        if end:
            tr = self.trace_state(mem["t"])
            calls = self.st["sessions"].get(mem["s"], {}).get("calls")
            tr["replies"] = list(dict.fromkeys(tr.get("replies", []) + reply_keys(run.get("outputs"))))
            for tcid, name in tool_calls(run.get("outputs")):
                tr["calls"][tcid] = name
                if calls is not None:
                    calls[tcid] = 1
        if self.settings.provider_bodies:
            if not mem.get("rq") and isinstance(run.get("inputs"), dict) and run["inputs"]:
                mem["rq"] = True
                self.body(mem, rid, "request", run["inputs"])
            if end and not d.get("again") and isinstance(run.get("outputs"), dict) and run["outputs"]:
                self.body(mem, rid, "response", run["outputs"])  # a changed end again: its record holds its reply

    def record(self, a: dict, mem: dict, op: str, rec_id: str) -> None:
        run = a["run"]
        rid = a["id"]
        received = a.get("received", "")
        if isinstance(received, str) and received:
            seen = self.st.setdefault("seen", {})
            if received > seen.get(mem["t"], ""):
                seen[mem["t"]] = received  # the receiver's clock, RFC 3339 UTC with nanoseconds: compares as text
        end = has_end(run) and not mem.get("end")
        # A run that ended arriving again with another end (a finished trace posted again, changed): it lands under the
        # id of the record that carried its first end, so the readers keep both and say the conflict (field report #20,
        # trial 48c F2); an identical one stays a record of its own fields that no reader draws, as before
        again = not end and has_end(run) and "ei" in mem and mem.get("ed") != end_digest(run)
        if end:
            mem.update(end=True, ei=rec_id, eo=op, ed=end_digest(run))
        elif again:
            rec_id, op = mem["ei"], mem["eo"]
        d: dict[str, Any] = {"id": rec_id, "run": mem["t"], "kind": mem["k"], "end": end or again}
        if again:
            d["again"] = True
        if a.get("waited"):
            d["waited"] = a["waited"]  # "post": the run's post never came; "parent": its parent run never came
        if mem.get("tr"):
            d["traced"] = True
        elif mem["k"] == "root" and (end or again) and not run.get("error") and (ans := chain_answer(run.get("outputs"), lambda k: (
                mem["t"], k) in self.replied or k in self.trace_state(mem["t"]).get("replies", ()), mem.get("iv"))):
            d["answer"] = ans  # a chain's outputs: its answer ("own"), a model reply's text ("reply"; trial 50c F1), where each value is
        if op == "patch":
            d["parent"] = rid
        elif mem.get("p"):
            d["parent"] = mem["p"]
        if mem.get("sb"):
            d["started_by"] = mem["sb"]
        if mem["k"] == "llm":
            self.llm(run, rid, mem, d, end or again)
        elif mem["k"] in ("tool", "retriever"):
            tool_decisions(self, run, rid, mem, d, end or again, received)
        elif mem["k"] == "unknown":
            d["run_type"] = mem["ty"]  # a patch does not repeat it: the dialect names it in the unknown part
        own = d.get("answer") == "own"  # a chain's answer, or a decorated function's: held until the pass's runs beneath it land (50c F1)
        answers = own or bool(mem.get("tr")) and (end or again) and run.get("outputs") not in (None, {})
        self.put(mem, {"asz": d, "op": op, "run": run, "received": a.get("received", "")}, hold=answers and op == "patch")
        if end and posted_complete(mem["k"], op, run):
            # its record is at its start, the prompt (dialect._fill): one with no parts marks where it ended (48c F1)
            self.emit(mem["s"], mem["st"], {"asz": {"kind": "ended", "id": f"{rec_id}:end", "run": mem["t"], "parent": rec_id,
                                                    "time": run.get("end_time")}, "op": "ended", "received": received})
        if (end or again) and op == "post" and (mem.get("tr") or own) and run.get("outputs") not in (None, {}):
            # a decorated function (or a chain) posted complete: its return value is its answer, at its end (48c F1, 50c F1)
            self.put(mem, {"asz": {"kind": "answer", "id": f"{rec_id}:answer", "run": mem["t"], "parent": rec_id, "time": run.get("end_time"),
                                   "value": run["outputs"], **({"chain": True} if own else {})}, "op": "answer", "received": received}, hold=own)
        if end and mem["k"] == "root" and run.get("error"):
            self.fail(a, mem, rec_id)
        self.recorded(mem["t"])
        if end:
            for mid, text in summary_messages(run.get("outputs")):
                ss = self.st["sessions"].setdefault(mem["s"], {})
                seen = ss.setdefault("summaries", [])
                # By its text: the message has no id in the middleware's output and one in every later state.
                key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
                if key in seen:
                    continue
                seen.append(key)
                base = f"{rec_id}:summary"
                self.emit(mem["s"], mem["st"], {"asz": {"kind": "reset", "id": f"{base}:reset", "run": mem["t"], "parent": rec_id,
                                                        "time": run.get("end_time")},
                                                "op": "reset", "received": a.get("received", "")})
                self.emit(mem["s"], mem["st"], {"asz": {"kind": "summary", "id": base, "run": mem["t"], "parent": f"{base}:reset",
                                                        "text": text, "time": run.get("end_time")},
                                                "op": "summary", "received": a.get("received", "")})


def _order_key(a: dict) -> tuple:
    run = a.get("run") or {}
    do = run.get("dotted_order")
    return (0 if a.get("op") == "post" else 1, do if isinstance(do, str) else "", rfc3339(run.get("start_time")), a.get("n", 0))


def _read_inbox(path: Path) -> list[dict]:
    out = []
    for line in path.read_bytes().splitlines():
        if not line.strip():
            continue
        try:
            a = exact_loads(line)  # a number no double holds stays its staged text (.exactjson)
        except ValueError:
            continue
        if isinstance(a, dict) and isinstance(a.get("run"), dict) and isinstance(a.get("id"), str) and a.get("op") in ("post", "patch"):
            out.append(a)
    return out


def materialise(ingest: str | os.PathLike, settings: Settings | None = None, out: Discovery | None = None) -> list[tuple[str, str, str, Path]]:
    """Turn every staged arrival into lines of per-session sources; return ``[(session, kind, stream, path)]`` for every
    source: kind ``transcript`` per stream file, ``provider_body`` (stream '') for a session's body source.

    ``ingest`` is ``<storage root>/_ingest/langsmith``. Idempotent and crash
    safe: the lines of a pass and the inbox files they consume are first
    committed to ``state.json`` as a journal (with the remembered runs), then
    applied (:func:`_apply_journal`), then the journal is cleared; a pass
    that finds a journal applies it before reading anything new. The inbox
    is read batch by batch (:data:`BATCH_BYTES` of files each, in order, a
    pass and a journal each, as a live receiver's passes would take them), so
    a backlog is never held whole (trial 28c F6); what waits is tried in every
    batch and counts one pass per call. After each batch it says the inbox bytes read of the whole
    (:func:`asz_core.discovery_progress`), so a collect pass's progress line moves while a backlog is
    materialised (trial 37b F7: ``0.0 of 540.0 MB`` for 27 s). Raises
    OSError when the ingest directory cannot be written. A staged line that
    does not parse is skipped (the receiver stages only what it parsed).
    An entry of the inbox or of ``sessions/`` that cannot be read (a symbolic
    link that leads nowhere or out of ``ingest``, a folder that cannot be
    listed) goes to ``out.skipped`` once with why (:func:`asz_core.source_entries`),
    or is passed over when ``out`` is None.
    """
    ingest = Path(ingest)
    settings = settings or Settings()
    inbox = ingest / "inbox"
    state_path = ingest / "state.json"
    st = _load_state(state_path)
    # 1. finish a pass that committed and then crashed
    if st.get("journal"):
        _apply_journal(ingest, st["journal"])
        st["journal"] = None
        _write_atomic(state_path, orjson.dumps(st))
    # 2. read what is new, batch by batch (trial 28c F6: a 125 MB backlog read whole peaked at 717 MB)
    out = out if out is not None else Discovery()
    real = os.path.realpath(ingest)
    names = [e.name for e in source_entries(inbox, out, real) if e.is_file and not e.name.startswith(".")] if inbox.is_dir() else []
    waiting = [w for w in st["waiting"] if isinstance(w, dict)]
    for w in waiting:
        w["tries"] = int(w.get("tries", 0)) + 1  # once per materialise, however many batches it takes
    if not names and not waiting:
        return _staged_sources(ingest, out, real)
    batches = _batches(inbox, names)
    total, done = sum(b for batch in batches for _, b in batch), 0
    discovery_progress(0, total)  # the collect pass's progress line moves while this reads (trial 37b F7)
    n = 0
    for i, batch in enumerate(batches):
        arrivals: list[dict] = []
        for name, _ in batch:
            for a in _read_inbox(inbox / name):
                n += 1
                a["n"] = n
                a["tries"] = 0
                arrivals.append(a)
        _one_pass(ingest, st, settings, st["waiting"] if i else waiting, arrivals, [name for name, _ in batch],
                  last=i == len(batches) - 1)
        del arrivals
        done += sum(b for _, b in batch)
        discovery_progress(done, total)
    return _staged_sources(ingest, out, real)


#: The inbox bytes one batch of :func:`materialise` reads at most (a larger file is a batch of its own): what is
#: held in memory at once is about this times 4 (the arrivals, their lines, the journal), not the whole backlog.
BATCH_BYTES = 8 << 20


def _batches(inbox: Path, names: list[str]) -> list[list[tuple[str, int]]]:
    """The inbox files ``names`` with their sizes (bytes; 0 for one that does not stat), in order, cut into batches of
    at most :data:`BATCH_BYTES` each (a larger file alone); ``[[]]`` when there are none (one pass still retries what
    waits)."""
    out: list[list[tuple[str, int]]] = [[]]
    size = 0
    for name in names:
        try:
            b = (inbox / name).stat().st_size
        except OSError:
            b = 0
        if out[-1] and size + b > BATCH_BYTES:
            out.append([])
            size = 0
        out[-1].append((name, b))
        size += b
    return out


def _one_pass(ingest: Path, st: dict, settings: Settings, waiting: list[dict], arrivals: list[dict], names: list[str],
              last: bool) -> None:
    """Materialise ``waiting`` and the ``arrivals`` read from the inbox files ``names``, commit the journal of the
    lines and the files consumed, apply it (crash safety: module docstring). What still waits stays in ``st``; with
    ``last`` (the batch that ends the materialise), what waited :data:`WAIT_PASSES` passes lands with what is known."""
    todo = waiting + arrivals
    ps = _Pass(ingest, st, settings)
    todo.sort(key=_order_key)
    ps.prescan(todo)
    # Posts in dotted order (parents first), then patches; what waits is tried again until nothing moves.
    todo = _settle(ps, todo)
    cycle = in_cycles(todo)
    if cycle:  # runs each of which waits for another of them: waiting never ends it, so they land now (trial 37b F2)
        for a in todo:
            if id(a) in cycle:
                a["waited"] = "cycle"
                ps.post(a, True)
        todo = _settle(ps, [a for a in todo if id(a) not in cycle])
    still = []
    for a in todo:
        if last and a["tries"] >= WAIT_PASSES:
            a["waited"] = never_came(a, st["runs"])  # landed with what is known, saying what never came
            ps.post(a, True) if a["op"] == "post" else ps.patch(a, True)
        else:
            still.append(a)
    st["waiting"] = still
    ps.flush_held()
    if last:
        prune(st)
    # 3. commit the journal (the pass's lines, where each file stood, the inbox files consumed), then apply it
    files = {}
    for rel, lines in ps.out.items():
        try:
            size = (ingest / rel).stat().st_size
        except FileNotFoundError:
            size = 0
        files[rel] = {"from": size, "data": base64.b64encode(b"".join(lines)).decode("ascii")}
    ps.out.clear()
    st["journal"] = {"files": files, "consumed": names}
    ingest.mkdir(parents=True, exist_ok=True)
    state_path = ingest / "state.json"
    _write_atomic(state_path, orjson.dumps(st))
    _apply_journal(ingest, st["journal"])
    st["journal"] = None
    _write_atomic(state_path, orjson.dumps(st))


def _settle(ps: _Pass, todo: list[dict]) -> list[dict]:
    """Materialise what of ``todo`` can be (posts whose parent is known, patches of known runs), again and again until
    nothing moves; returns what is left, in order."""
    while todo:
        left = [a for a in todo if not (ps.post(a, False) if a["op"] == "post" else ps.patch(a, False))]
        if len(left) == len(todo):
            break
        todo = left
    return todo


def _staged_sources(ingest: Path, out: Discovery, real: str) -> list[tuple[str, str, str, Path]]:
    """``[(session, kind, stream, path)]`` of every staged source under ``ingest/sessions`` (see :func:`materialise`)."""
    found = []
    sessions = ingest / "sessions"
    if sessions.is_dir():
        for sdir in source_entries(sessions, out, real):
            if not sdir.is_dir:
                continue
            for f in source_entries(sdir.path, out, real, own_file=lambda name: name.endswith(".jsonl")):
                if f.is_file and f.name.endswith(".jsonl"):
                    found.append((sdir.name, "transcript", f.name[: -len(".jsonl")], Path(f.path)))
            bodies_dir, bodies_name = BODIES.split("/")
            if os.path.lexists(os.path.join(sdir.path, bodies_dir)):
                for f in source_entries(os.path.join(sdir.path, bodies_dir), out, real, own_file=lambda name: name == bodies_name):
                    if f.is_file and f.name == bodies_name:
                        found.append((sdir.name, "provider_body", "", Path(f.path)))
    return found
