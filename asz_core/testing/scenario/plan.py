"""A scenario turned into the source lines Claude Code would have written (origin-digest §5.1, §9.1).

:func:`make_plan` walks the steps once and produces a :class:`Plan`: every
source file (main transcript, child transcripts and sidecars, workflow
journals, manifests and scripts) with its lines in write order, each line
tagged with the build stage (checkpoint segment) it belongs to and whether
it is ``lost`` (removed from the source as the language says). Both builders
read the same plan: the ``claude-code`` one writes the lines to disk and lets
the real adapter read them; the ``sd`` one converts each line's object with
the mock dialect (:mod:`asz_core.testing.scenario.mock`). So the two formats describe
the same session by construction, and any difference between their folds is
a difference between the adapter and the mock, or inside assembly.

Identifiers are position derived and format independent (origin-digest §9.1):
step ``N`` of the main stream is ``sN``; step ``N`` of a child named ``x`` is
``x-sN``. Record uuids are ``<step>-<role>`` (``s3-text``, ``s7-synthetic``,
``s8-boundary``), provider message ids ``<step>-call`` (``s7-synthetic-call``
for a client-made error), tool ids ``<step>-tool`` unless the scenario names
one, prompt ids ``<step>-cycle`` (a person's input), ``<step>-cycle-notification``
(a task notification) and ``<step>-cycle-compact`` (a reset's summary), a
child's prompt id ``<agent id>-cycle``. A child's agent id is ``a`` plus the
first 16 hex of the SHA-256 of ``agent:<name>`` (the original's rule, which its
example document shows), so no file name holds ``<`` or ``>``.

Times (ms since the epoch) start at ``--at`` and advance by the scenario's
``interval`` (or a step's ``after``) from the last record written: fragments
of one call are 100 ms apart, an agent's launch acknowledgement comes 100 ms
after its request, a tool result ``after`` (default: the interval) after its
request, a child's first record ``after`` (default: the interval) after the
acknowledgement, a notification one interval after the child's last record,
and a reset's summary 400 ms before its boundary.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import attrs

from .model import Agent, Call, Scenario, Step, ToolSchema, Usage

__all__ = ["SourceFile", "Line", "Plan", "make_plan", "agent_id", "format_ms", "session_id_for", "cwd_for", "dumps"]

VERSION = "2.1.245"
MODEL = "claude-opus-5"
_FRAGMENT_MS = 100
_ACK_MS = 100
_SUMMARY_BEFORE_MS = 400
_DEFAULT_USAGE = Usage(in_=2, out=10, cache_read=900, cache_write=100)


def dumps(obj: Any) -> bytes:
    """Compact JSON as Claude Code (JavaScript ``JSON.stringify``) writes it: ``<``, ``>``, ``&``,
    U+2028 and U+2029 literally, non-ASCII as UTF-8, key order kept."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def format_ms(ms: int) -> str:
    """Milliseconds since the epoch as Claude Code's timestamp: ``2026-01-01T00:00:02.000Z``."""
    import datetime as _dt

    t = _dt.datetime.fromtimestamp(ms // 1000, tz=_dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def agent_id(name: str) -> str:
    """A child's agent id: ``a`` + first 16 hex of SHA-256 of ``agent:<name>`` (matches ``^a[0-9a-f]{16}$``).

    This is the original's rule: its example document names the fixture's
    ``checker`` ``a0a10ef0666c4dc7e``."""
    return "a" + hashlib.sha256(("agent:" + name).encode("utf-8")).hexdigest()[:16]


def session_id_for(name: str) -> str:
    """A UUID-shaped session id derived from a scenario name (lower-case hex, version 4 shape)."""
    h = hashlib.sha256(("scenario/" + name).encode("utf-8")).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def cwd_for(project: str) -> str:
    """The working directory a project slug stands for: ``-Users-dev-x-y`` → ``/Users/dev/x-y``."""
    if project.startswith("-Users-dev-"):
        return "/Users/dev/" + project[len("-Users-dev-"):]
    return "/" + project.lstrip("-")


def _safe_name(name: str) -> str:
    """A name usable inside ids and file names: characters outside ``[A-Za-z0-9._-]`` become ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", name) or "x"


@attrs.define
class SourceFile:
    """One source file: file ``kind`` (transcript, agent_meta, journal, workflow_manifest,
    workflow_script), ``stream`` (``main`` or agent id, '' for run files), ``batch`` (workflow run id),
    ``rel`` (path under the ``projects`` dir, forward slashes), ``mode`` (append or snapshot),
    ``name`` (the scenario name of the child it belongs to, '' for main/run files), ``root``: the
    source root it sits under, ``projects`` (Claude Code's) or ``plugin`` (the asz observers' data
    directory, for ``changes`` and ``execution`` files)."""

    kind: str
    stream: str
    batch: str
    rel: str
    mode: str
    name: str = ""
    root: str = "projects"


@attrs.define
class Line:
    """One source record: the ``file`` it goes to, the build ``stage`` (0-based checkpoint segment),
    the JSON ``obj`` (None for a script), its ``raw`` bytes (a line: no newline; a document: the whole
    file, final newline included) and whether it is ``lost``."""

    file: SourceFile
    stage: int
    obj: Any
    raw: bytes
    lost: bool = False


@attrs.define
class Plan:
    """Everything a scenario writes: ``session``, ``project`` slug, ``cwd``, ``at_ms``, ``lines`` in
    write order, ``files`` by rel path in first-write order, ``agents`` (scenario name → agent id),
    ``stages`` (number of checkpoint segments) and ``stage_names``."""

    session: str
    project: str
    cwd: str
    at_ms: int
    lines: list[Line] = attrs.Factory(list)
    files: dict[str, SourceFile] = attrs.Factory(dict)
    agents: dict[str, str] = attrs.Factory(dict)
    stage_names: list[str] = attrs.Factory(list)

    def kept(self, stage: int | None = None) -> list[Line]:
        """Lines that are not lost, optionally only those of ``stage``."""
        return [ln for ln in self.lines if not ln.lost and (stage is None or ln.stage == stage)]


@attrs.define
class _Stream:
    file: SourceFile
    prefix: str  # step-id prefix: '' for main, '<name>-' for a child
    stream: str
    agent: str = ""  # agent id of a child ('' on main)
    sidechain: bool = False
    prev: str | None = None
    prompt: str = ""
    cursor: int = 0
    started: bool = False
    written: list = attrs.Factory(list)  # (obj, raw) of kept main lines, for replay


class _Builder:
    def __init__(self, sc: Scenario, at_ms: int):
        self.sc = sc
        self.session = sc.session or session_id_for(sc.name)
        self.project = sc.project or f"-Users-dev-{_safe_name(sc.name)}"
        self.cwd = cwd_for(self.project)
        self.plan = Plan(self.session, self.project, self.cwd, at_ms, stage_names=sc.checkpoints())
        self.stage = 0
        self.interval = sc.interval_ms

    # -- files and lines ------------------------------------------------------------------

    def file(self, kind: str, rel: str, *, stream: str = "", batch: str = "", mode: str = "append", name: str = "",
             root: str = "projects") -> SourceFile:
        f = self.plan.files.get(rel)
        if f is None:
            f = SourceFile(kind, stream, batch, rel, mode, name, root)
            self.plan.files[rel] = f
        return f

    def emit(self, f: SourceFile, obj: Any, *, lost: bool = False, raw: bytes | None = None) -> None:
        if raw is None:
            raw = dumps(obj) + (b"\n" if f.mode == "snapshot" else b"")
        self.plan.lines.append(Line(f, self.stage, obj, raw, lost))

    def envelope(self, st: _Stream, type_: str, uuid: str, t: int, *, parent: str | None | bool = True) -> dict:
        d: dict[str, Any] = {
            "parentUuid": st.prev if parent is True else (parent or None),
            "isSidechain": st.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": VERSION,
            "gitBranch": "main",
        }
        if st.agent:
            d["agentId"] = st.agent
        d["entrypoint"] = self.sc.entrypoint or "cli"
        d["type"] = type_
        d["uuid"] = uuid
        d["timestamp"] = format_ms(t)
        return d

    def line(self, st: _Stream, obj: dict, *, lost: bool) -> None:
        self.emit(st.file, obj, lost=lost)
        st.prev = obj.get("uuid", st.prev)
        if not lost:
            st.written.append(obj)

    # -- steps ----------------------------------------------------------------------------

    def run(self) -> Plan:
        if self.sc.title:
            f = self.main_file()
            self.emit(f, {"type": "ai-title", "sessionId": self.session, "aiTitle": self.sc.title})
        main = _Stream(self.main_file(), "", "main", cursor=self.plan.at_ms)
        for i, step in enumerate(self.sc.steps, 1):
            self.step(main, step, i, lost=step.lost)
            if step.checkpoint:
                self.stage += 1
        return self.plan

    def main_file(self) -> SourceFile:
        return self.file("transcript", f"{self.project}/{self.session}.jsonl", stream="main")

    def next_time(self, st: _Stream, step: Step) -> int:
        if not st.started:
            st.started = True
            return st.cursor + (step.after_ms or 0)
        return st.cursor + (self.interval if step.after_ms is None else step.after_ms)

    def step(self, st: _Stream, step: Step, n: int, *, lost: bool) -> None:
        """Write step ``n`` of stream ``st``: its records in order, from the stream's next time (ms)."""
        sid = f"{st.prefix}s{n}"
        t = self.next_time(st, step)
        if step.kind == "call":
            self.call(st, step.call, sid, t, lost=lost)
        else:
            _STEP_WRITERS[step.kind](self, st, step, sid, t, lost)

    def result_record(self, st: _Stream, uuid: str, t: int, of: str, text: str, *, failed: bool | None = None,
                      string: bool = False, tur: Any = None, content: Any = None) -> dict:
        d = self.envelope(st, "user", uuid, t)
        d["promptId"] = st.prompt
        block: dict[str, Any] = {"tool_use_id": of, "type": "tool_result", "content": text if content is None else content}
        if failed is not None:
            block["is_error"] = failed
        d["message"] = {"role": "user", "content": [block]}
        if tur is not None:
            d["toolUseResult"] = tur
        elif string:
            d["toolUseResult"] = text
        if st.prev:
            d["sourceToolAssistantUUID"] = st.prev
        return d

    def call(self, st: _Stream, call: Call, sid: str, t: int, *, lost: bool) -> None:
        msg_id = f"{sid}-call"
        u = call.usage
        usage = {
            "input_tokens": _DEFAULT_USAGE.in_ if u.in_ is None else u.in_,
            "cache_creation_input_tokens": _DEFAULT_USAGE.cache_write if u.cache_write is None else u.cache_write,
            "cache_read_input_tokens": _DEFAULT_USAGE.cache_read if u.cache_read is None else u.cache_read,
            "output_tokens": _DEFAULT_USAGE.out if u.out is None else u.out,
        }
        frags: list[tuple[str, dict]] = []
        if call.thinking is not None:
            text = "" if call.thinking == "unavailable" else call.thinking
            frags.append(("thinking", {"type": "thinking", "thinking": text, "signature": "SIG"}))
        if call.text is not None:
            frags.append(("text", {"type": "text", "text": call.text}))
        tool_id = ""
        action = None
        if call.tool is not None:
            tool_id = call.tool.id or f"{sid}-tool"
            kind = "server_tool_use" if tool_id.startswith("srvtool") else "tool_use"
            action = {"type": kind, "id": tool_id, "name": call.tool.name, "input": call.tool.input}
        elif call.agent is not None:
            tool_id = f"{sid}-tool"
            action = {"type": "tool_use", "id": tool_id, "name": "Agent", "input": {"description": call.agent.name, "prompt": call.agent.prompt}}
        elif call.skill is not None:
            tool_id = f"{sid}-tool"
            action = {"type": "tool_use", "id": tool_id, "name": "Skill", "input": {"skill": call.skill.name}}
        elif call.workflow is not None:
            tool_id = f"{sid}-tool"
            action = {"type": "tool_use", "id": tool_id, "name": "Workflow", "input": {"name": call.workflow.name}}
        if action is not None:
            frags.append(("use", action))
        if not frags:
            frags.append(("text", {"type": "text", "text": ""}))
        ft = t
        for i, (role, block) in enumerate(frags):
            ft = t + i * _FRAGMENT_MS
            d = self.envelope(st, "assistant", f"{sid}-{role}", ft)
            d["requestId"] = f"req-{sid}"
            last = i == len(frags) - 1
            d["message"] = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "stop_reason": ("tool_use" if action is not None else "end_turn") if last else None,
                "content": [block],
                "usage": dict(usage),
            }
            self.line(st, d, lost=lost)
        st.cursor = ft
        if call.tool is not None:
            r = call.tool.result
            rt = ft + (self.interval if r is None or r.after_ms is None else r.after_ms)
            self.observations(st, call.tool, tool_id, t, ft, rt if r is not None else ft)
        if call.tool is not None and call.tool.result is not None:
            tur = None
            if not r.string and call.tool.name == "Bash":
                tur = {"stdout": r.text, "stderr": "", "interrupted": False, "isImage": False}
            d = self.result_record(st, f"{sid}-result", rt, tool_id, r.text, failed=r.failed, string=r.string, tur=tur)
            self.line(st, d, lost=lost or r.lost)
            st.cursor = rt
        elif call.agent is not None:
            self.agent(st, call.agent, sid, tool_id, ft, lost=lost)
        elif call.skill is not None:
            self.skill(st, call.skill, sid, tool_id, ft, lost=lost)
        elif call.workflow is not None:
            self.workflow(st, call.workflow, sid, tool_id, ft, lost=lost)

    # -- the asz observers' output (plugin data directory) ---------------------------------

    def observations(self, st: _Stream, tool, tool_id: str, t: int, used: int, done: int) -> None:
        """A ``changes/1`` record for a tool with ``changes``, an ``execution/1`` one for an MCP ``execution``."""
        from .plan_observers import (  # they build on this module's format_ms
            PLUGIN_DIR,
            changes_record,
            execution_record,
        )

        base = f"{PLUGIN_DIR}/output/{self.session}"
        r = tool.result
        failed = bool(r is not None and r.failed)
        if tool.changes:
            f = self.file("changes", f"{base}/{st.stream}.jsonl", stream=st.stream, root="plugin")
            self.emit(f, changes_record(self.session, self.cwd, st.stream, tool, tool_id, t, done, failed))
        if tool.execution is not None:
            f = self.file("execution", f"{base}/{st.stream}.execution.jsonl", stream=st.stream, root="plugin")
            self.emit(f, execution_record(self.session, self.cwd, st.stream, tool, tool_id, done, failed))

    # -- children -------------------------------------------------------------------------

    def child_stream(self, name: str, rel: str, batch: str = "") -> _Stream:
        aid = agent_id(name)
        self.plan.agents[name] = aid
        f = self.file("transcript", rel, stream=aid, batch=batch, name=name)
        return _Stream(f, f"{_safe_name(name)}-", aid, agent=aid, sidechain=True)

    def run_child(self, ch: _Stream, prompt: str, steps: tuple[Step, ...], start: int, *, lost: bool) -> int:
        """Write a child's prompt and steps from ``start``; returns the time of its last record."""
        ch.prompt = f"{ch.agent}-cycle"
        d = self.envelope(ch, "user", f"{ch.prefix}s0-prompt", start, parent=None)
        d["promptId"] = ch.prompt
        d["message"] = {"role": "user", "content": prompt}
        self.line(ch, d, lost=lost)
        ch.cursor = start
        ch.started = True
        for i, s in enumerate(steps, 1):
            self.step(ch, s, i, lost=lost or s.lost)
        return ch.cursor

    def agent(self, st: _Stream, ag: Agent, sid: str, tool_id: str, t: int, *, lost: bool) -> None:
        base = f"{self.project}/{self.session}/subagents"
        ch = self.child_stream(ag.name, f"{base}/agent-{agent_id(ag.name)}.jsonl")
        ack_t = t + _ACK_MS
        tur = {"isAsync": True, "status": "async_launched", "agentId": ch.agent, "description": ag.name, "prompt": ag.prompt}
        self.line(st, self.result_record(st, f"{sid}-ack", ack_t, tool_id, "launched", tur=tur), lost=lost)
        st.cursor = ack_t
        meta = self.file("agent_meta", f"{base}/agent-{ch.agent}.meta.json", stream=ch.agent, mode="snapshot", name=ag.name)
        sidecar: dict[str, Any] = {"agentType": "general-purpose", "description": ag.name, "toolUseId": tool_id}
        if st.agent:
            sidecar["parentAgentId"] = st.agent
        self.emit(meta, sidecar, lost=ag.lost)
        end = self.run_child(ch, ag.prompt, ag.steps, ack_t + (self.interval if ag.after_ms is None else ag.after_ms), lost=ag.lost)
        if ag.notify:
            nt = end + self.interval
            st.prompt = f"{sid}-cycle-notification"
            d = self.envelope(st, "user", f"{sid}-notify", nt)
            d["promptId"] = st.prompt
            d["origin"] = {"kind": "task-notification"}
            d["message"] = {
                "role": "user",
                "content": f"<task-notification>\n<task-id>{ch.agent}</task-id>\n<tool-use-id>{tool_id}</tool-use-id>\n<status>completed</status>\n</task-notification>",
            }
            self.line(st, d, lost=lost)
            st.cursor = nt

    def skill(self, st: _Stream, sk, sid: str, tool_id: str, t: int, *, lost: bool) -> None:
        name = sk.agent or sk.name
        base = f"{self.project}/{self.session}/subagents"
        ch = self.child_stream(name, f"{base}/agent-{agent_id(name)}.jsonl")
        end = self.run_child(ch, f"run the skill {sk.name}", sk.steps, t + self.interval, lost=False)
        rt = end + self.interval
        tur = {"success": True, "commandName": sk.name, "status": "forked", "agentId": ch.agent}
        self.line(st, self.result_record(st, f"{sid}-result", rt, tool_id, f"Skill {sk.name} finished", tur=tur), lost=lost)
        st.cursor = rt

    def workflow(self, st: _Stream, wf, sid: str, tool_id: str, t: int, *, lost: bool) -> None:
        run = "wf_" + _safe_name(wf.name).strip("-")
        ack_t = t + _ACK_MS
        tur = {"status": "async_launched", "runId": run, "taskId": f"task-{run}", "workflowName": wf.name}
        self.line(st, self.result_record(st, f"{sid}-ack", ack_t, tool_id, f"workflow {run} launched", tur=tur), lost=lost)
        st.cursor = ack_t
        base = f"{self.project}/{self.session}"
        jf = self.file("journal", f"{base}/subagents/workflows/{run}/journal.jsonl", batch=run)
        start = ack_t + self.interval
        for child in wf.children:
            ch = self.child_stream(child.name, f"{base}/subagents/workflows/{run}/agent-{agent_id(child.name)}.jsonl", batch=run)
            self.emit(jf, {"type": "started", "key": f"v2:{child.name}", "agentId": ch.agent, "timestamp": format_ms(start)})
            end = self.run_child(ch, child.prompt, child.steps, start, lost=False)
            last = _last_text(ch)
            self.emit(jf, {"type": "result", "key": f"v2:{child.name}", "agentId": ch.agent, "timestamp": format_ms(end), "result": last})
            start = end + self.interval
        mf = self.file("workflow_manifest", f"{base}/workflows/{run}.json", batch=run, mode="snapshot")
        self.emit(mf, {"runId": run, "taskId": f"task-{run}", "workflowName": wf.name, "status": "completed", "agentCount": len(wf.children)})
        script_dir = f"{wf.script_project or self.project}/{self.session}/workflows/scripts"
        label = _safe_name(wf.name).strip("-") or "workflow"
        sf = self.file("workflow_script", f"{script_dir}/{label}-{run}.js", batch=run, mode="snapshot")
        script = f"export const meta = {{\n  name: {json.dumps(wf.name, ensure_ascii=False)},\n}}\n"
        self.emit(sf, None, raw=script.encode("utf-8"))


# --------------------------------------------------------------------------- the steps that are not calls
# Each writes step ``sid`` of stream ``st`` at time ``t`` (ms since the epoch) and moves the stream's cursor.


def _input(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """A person's input: a user record opening a new prompt (``<sid>-cycle``)."""
    st.prompt = f"{sid}-cycle"
    d = b.envelope(st, "user", f"{sid}-input", t)
    d["promptId"] = st.prompt
    if b.sc.entrypoint == "sdk-cli":
        d["promptSource"] = "sdk"
    else:
        d["origin"] = {"kind": "human"}
    d["message"] = {"role": "user", "content": step.input}
    b.line(st, d, lost=lost)
    st.cursor = t


def _queued(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """A queued command attachment; one in ``prompt`` mode opens a new prompt."""
    q = step.queued
    d = b.envelope(st, "attachment", f"{sid}-queued", t)
    if q.mode == "prompt":
        st.prompt = f"{sid}-cycle"
        d["promptId"] = st.prompt
    d["attachment"] = {"type": "queued_command", "prompt": [{"type": "text", "text": q.text}], "commandMode": q.mode}
    b.line(st, d, lost=lost)
    st.cursor = t


def _inject(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """An attachment the runtime injects (a prompt snapshot carries the system prompt and tool schemas)."""
    inj = step.inject
    d = b.envelope(st, "attachment", f"{sid}-inject", t)
    att: dict[str, Any] = {"type": inj.type}
    if inj.type == "prompt_snapshot":
        att["systemPrompt"] = inj.system_prompt or b.sc.system_prompt or ""
        if inj.tools:
            att["tools"] = [_schema(s) for s in inj.tools]
    if inj.text is not None:
        att["content"] = inj.text
    d["attachment"] = att
    b.line(st, d, lost=lost)
    st.cursor = t


def _result(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """A tool result on its own, ``after`` (default: the interval) after the stream's cursor."""
    r = step.result
    t = st.cursor + (r.after_ms if r.after_ms is not None else (b.interval if step.after_ms is None else step.after_ms))
    d = b.result_record(st, f"{sid}-result", t, r.of, r.text, failed=r.failed, string=r.string)
    b.line(st, d, lost=lost or r.lost)
    st.cursor = t


def _error(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """A client-made API error: a synthetic assistant message (model ``<synthetic>``, no usage)."""
    d = b.envelope(st, "assistant", f"{sid}-synthetic", t)
    d["message"] = {
        "id": f"{sid}-synthetic-call",
        "type": "message",
        "role": "assistant",
        "model": "<synthetic>",
        "stop_reason": None,
        "content": [{"type": "text", "text": step.error}],
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    d["isApiErrorMessage"] = True
    b.line(st, d, lost=lost)
    st.cursor = t


def _reset(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """A compaction: the boundary record, then the summary 400 ms before it opening a new prompt."""
    prev = st.prev
    bd = b.envelope(st, "system", f"{sid}-boundary", t, parent=None)
    bd["subtype"] = "compact_boundary"
    bd["logicalParentUuid"] = prev
    bd["compactMetadata"] = {"trigger": "auto", "preservedMessages": {"allUuids": [prev] if prev else []}}
    b.line(st, bd, lost=lost)
    st.prompt = f"{sid}-cycle-compact"
    s = b.envelope(st, "user", f"{sid}-summary", t - _SUMMARY_BEFORE_MS, parent=f"{sid}-boundary")
    s["promptId"] = st.prompt
    s["isCompactSummary"] = True
    s["isVisibleInTranscriptOnly"] = True
    s["message"] = {"role": "user", "content": step.reset.summary}
    b.line(st, s, lost=lost)
    st.cursor = t


def _replay(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """The stream's last ``replay`` kept lines written again, unchanged (a resumed transcript)."""
    for obj in st.written[-step.replay:]:
        b.emit(st.file, obj, lost=lost)
    st.started = True


def _system(b: _Builder, st: _Stream, step: Step, sid: str, t: int, lost: bool) -> None:
    """A system record of the step's ``subtype`` with its fields (``level`` ``info`` unless given)."""
    d = b.envelope(st, "system", f"{sid}-system", t)
    d["subtype"] = step.system.subtype
    for key, value in step.system.fields.items():
        d[str(key)] = value
    d.setdefault("level", "info")
    b.line(st, d, lost=lost)
    st.cursor = t


#: The writer of each step kind but ``call`` (:meth:`_Builder.call`).
_STEP_WRITERS = {"input": _input, "queued": _queued, "inject": _inject, "result": _result, "error": _error, "reset": _reset,
                 "replay": _replay, "system": _system}


def _last_text(ch: _Stream) -> str:
    for obj in reversed(ch.written):
        msg = obj.get("message") if isinstance(obj, dict) else None
        if obj.get("type") == "assistant" and isinstance(msg, dict):
            for b in msg.get("content") or []:
                if b.get("type") == "text":
                    return b.get("text", "")
    return ""


def _schema(s: ToolSchema) -> dict:
    d: dict[str, Any] = {"name": s.name, "description": s.description}
    d["input_schema"] = s.input_schema if s.input_schema is not None else {"type": "object", "properties": {}}
    return d


def make_plan(sc: Scenario, at_ms: int) -> Plan:
    """Every source line ``sc`` writes, starting at ``at_ms`` (ms since the epoch). Never touches disk.

    Stage ``k`` holds the lines written after checkpoint ``k-1`` and up to
    checkpoint ``k`` (``plan.stage_names[k]``; the last is ``final``).
    """
    return _Builder(sc, at_ms).run()
