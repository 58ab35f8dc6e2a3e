"""Land Session Data straight into a storage root, for tests and the ``sd`` scenario format.

:class:`SessionBuilder` writes whole ``.sd`` files into the layout of
origin-digest §2.1 with the next seq of the session, the way an adapter with
no source files would (seed 000, "Producing Session Data"). :func:`rec` and
:func:`part` build records and parts from keyword arguments in the model's
words, so a test reads like the records it lands.

Nothing here is used by assembly itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from ..sessiondata import Header, Part, Record, SDWriter, Usage
from ..sessiondata.writer import LandedFile
from ..storage.layout import kind_dir, landed_files, landed_name

__all__ = ["SessionBuilder", "rec", "part"]

_DEFAULT_STAMP = "20260101T000000.000000000Z"
_DEFAULT_AT = "2026-01-01T00:00:00Z"


def part(k: str, **fields: Any) -> Part:
    """A part of kind ``k`` (text, reasoning, call, result, media, data, unknown).

    ``bytes`` defaults to the UTF-8 size of ``text`` (or 0); ``state`` to available.
    """
    if "bytes" not in fields:
        fields["bytes"] = len(fields.get("text", "").encode("utf-8"))
    return Part(k=k, **fields)


def rec(*parts: Part, usage: dict | None = None, flags: Iterable[str] = (), from_: str = "", **fields: Any) -> Record:
    """A record with role fields from keywords (``id parent call run continues tool child batch
    label started_by time trigger model``), ``from_`` (agent, external, runtime), ``flags``, a
    ``usage`` dict (``in``, ``out``, ``cache_read``, ``cache_write``) and its parts in order.
    ``ord``/``off``/``bytes`` are filled by :meth:`SessionBuilder.land` when left 0."""
    u = None
    if usage:
        u = Usage(in_=usage.get("in", 0), out=usage.get("out", 0), cache_read=usage.get("cache_read", 0),
                  cache_write=usage.get("cache_write", 0))
    return Record(from_=from_, flags=list(flags), usage=u, parts=list(parts), **fields)


class SessionBuilder:
    """Lands files into ``<root>/<session>`` one at a time, seq = highest on disk + 1.

    ``stamp`` is the file-name stamp (``20260101T000000.000000000Z``) and
    ``at`` the header collection time; both are fixed by default so that the
    same calls give byte-identical files. ``fsync`` is off by default (tests).
    """

    def __init__(self, root: str | os.PathLike, session: str, *, stamp: str = _DEFAULT_STAMP, at: str = _DEFAULT_AT,
                 dialect: str = "mock/1", adapter: str = "mock/0.2.0", fsync: bool = False):
        self.root = Path(root)
        self.session = session
        self.stamp = stamp
        self.at = at
        self.dialect = dialect
        self.adapter = adapter
        self.fsync = fsync
        self._ords: dict[tuple[str, str, str], tuple[int, int]] = {}

    @property
    def session_dir(self) -> Path:
        """``<root>/<session>``."""
        return kind_dir(self.root, self.session, "transcript").parents[1]

    def next_seq(self) -> int:
        """One above the highest seq landed in the session (1 for a new session)."""
        files = landed_files(self.session_dir, skeletons=True) if self.session_dir.is_dir() else []
        return files[-1][0].seq + 1 if files else 1

    def land(self, kind: str, records: Iterable[Record], *, stream: str = "", batch: str = "", src: str = "") -> LandedFile:
        """Land one file of ``kind`` holding ``records`` in order; returns the LandedFile.

        ``stream`` defaults to ``main`` for stream kinds; run kinds need
        ``batch``. Records whose ``ord`` is 0 get consecutive ords (and
        ``off``/``bytes``) continuing the previous file of the same source, so
        contiguity checks hold.
        """
        if kind in ("transcript", "agent_meta", "changes", "execution") and not stream:
            stream = "main"
        seq = self.next_seq()
        header = Header(kind=kind, session=self.session, src=src or f"{kind}/{stream or batch or 'session'}",
                        dialect=self.dialect, adapter=self.adapter, seq=seq, at=self.at, stream=stream, batch=batch)
        d = kind_dir(self.root, self.session, kind, stream, batch)
        d.mkdir(parents=True, exist_ok=True)
        key = (kind, stream, batch)
        ord_, off = self._ords.get(key, (0, 0))
        w = SDWriter(d / landed_name(kind, self.stamp, seq), header, fsync=self.fsync)
        try:
            for r in records:
                if not r.ord:
                    ord_ += 1
                    r.ord = ord_
                    r.off = off
                    r.bytes = r.bytes or 100
                    off += r.bytes + 1
                w.write(r)
        except BaseException:
            w.abort()
            raise
        self._ords[key] = (ord_, off)
        return w.close()


# ---------------------------------------------------------------------------- record shapes
#
# The shapes an adapter writes for each kind of source record, in the model's
# words (origin-digest §3.3, §5.1): who wrote it (``from``), its role fields and
# flags. Times are given as unix milliseconds and written as RFC 3339 UTC.


def when(ms: int | None) -> str:
    """RFC 3339 UTC text of a unix-millisecond instant (``""`` for None)."""
    if ms is None:
        return ""
    from ..sessiondata import format_rfc3339

    return format_rfc3339(ms * 1_000_000)


def title(label: str, ms: int | None = None) -> Record:
    """A title record: a label and no identity of its own."""
    return rec(part("data", data={"type": "ai-title"}), label=label, from_="runtime", time=when(ms))


def user_input(id: str, run: str, text: str, ms: int | None, parent: str = "", trigger: str = "external") -> Record:
    """Input from outside the agent: ``external_input``, trigger external, a text part."""
    return rec(part("text", text=text), id=id, parent=parent, run=run, from_="external", trigger=trigger,
               flags=["external_input"], time=when(ms))


def prompt(id: str, run: str, text: str, ms: int | None, parent: str = "") -> Record:
    """A child stream's delegated prompt: from external, no trigger, no flag."""
    return rec(part("text", text=text), id=id, parent=parent, run=run, from_="external", time=when(ms))


def injection(id: str, parent: str, text: str, ms: int | None, run: str = "", flags: Iterable[str] = ()) -> Record:
    """Material the runtime placed into context: ``injected``."""
    return rec(part("text", text=text), id=id, parent=parent, run=run, from_="runtime",
               flags=["injected", *flags], time=when(ms))


def assistant(id: str, call: str, parent: str, ms: int | None, *parts: Part, finished: bool = True,
              usage: dict | None = None, synthetic: bool = False, run: str = "") -> Record:
    """One fragment of a provider call (``call`` = message id)."""
    flags = (["finished"] if finished else []) + (["synthetic"] if synthetic else [])
    return rec(*parts, id=id, parent=parent, call=call, run=run, from_="agent", flags=flags, usage=usage,
               model="<synthetic>" if synthetic else "mock-model", time=when(ms))


def text(t: str) -> Part:
    """A text part."""
    return part("text", text=t)


def thinking(t: str = "") -> Part:
    """A reasoning part; without text its state is unavailable."""
    return part("reasoning", text=t, state="available" if t else "unavailable")


def tool_call(tool_id: str, name: str, input: Any = None, server: str = "", server_tool: str = "") -> Part:
    """A ``call`` part: a request to run a tool."""
    return part("call", id=tool_id, name=name, data=input if input is not None else {}, server=server,
                server_tool=server_tool)


def tool_result(id: str, tool_id: str, parent: str, ms: int | None, result: str = "ok", *, run: str = "",
                child: str = "", batch: str = "", flags: Iterable[str] = (), failed: bool | None = None) -> Record:
    """A record carrying a tool's result (a ``result`` part whose ``of`` is the tool-use id)."""
    return rec(part("result", of=tool_id, text=result, failed=failed), id=id, parent=parent, run=run, tool=tool_id if child else "",
               child=child, batch=batch, from_="external", flags=list(flags), time=when(ms))


def notification(id: str, run: str, ms: int | None, *, child: str = "", tool: str = "", parent: str = "",
                 body: str = "<task-notification/>") -> Record:
    """The runtime telling the parent a child finished: trigger notification, naming child/tool."""
    return rec(part("text", text=body), id=id, parent=parent, run=run, child=child, tool=tool, from_="external",
               trigger="notification", time=when(ms))


def boundary(id: str, continues: str, ms: int | None) -> Record:
    """An explicit context reset (``context_reset``) resuming from ``continues``."""
    return rec(part("data", data={"subtype": "compact_boundary"}), id=id, continues=continues, from_="runtime",
               flags=["context_reset"], time=when(ms))


def summary(id: str, parent: str, run: str, ms: int | None, text_: str = "Summary.") -> Record:
    """The summary a reset carries forward (``reset_summary``), parented on its boundary."""
    return rec(part("text", text=text_), id=id, parent=parent, run=run, from_="external", flags=["reset_summary"],
               time=when(ms))


def system(id: str, parent: str, flag: str, ms: int | None) -> Record:
    """A runtime record about the session: flag ``error``, ``turn_duration``, ``command`` or ``notice``."""
    return rec(part("data", data={"type": "system"}), id=id, parent=parent, from_="runtime", flags=[flag], time=when(ms))


def sidecar(child: str, label: str = "", tool: str = "", started_by: str = "", batch: str = "") -> Record:
    """A child's ``agent_meta`` record: names the child, maybe the call and the stream that started it."""
    return rec(part("data", data={"agentType": "general"}), child=child, label=label, tool=tool,
               started_by=started_by, batch=batch, from_="runtime")


def journal(child: str, batch: str, ms: int | None = None, result: bool = False) -> Record:
    """A workflow run journal event naming a child; ``child_result`` when it returns the child's value."""
    return rec(part("data", data={"type": "result" if result else "started"}), child=child, batch=batch,
               from_="runtime", flags=["child_result"] if result else [], time=when(ms))


def manifest(batch: str, label: str) -> Record:
    """A workflow manifest: the run's batch and its name."""
    return rec(part("data", data={"workflowName": label}), batch=batch, label=label, from_="runtime")


def changes_record(tool_id: str, captured_by: str, ms: int | None, additions: int = 1, deletions: int = 1) -> Record:
    """A ``changes/1`` record about one tool call (evidence beside a stream, never a step)."""
    data = {"schema": "changes/1", "id": tool_id, "captured_by": captured_by, "tool": tool_id, "time": when(ms),
            "changes": [{"path": "f.txt", "operation": "modify", "diff": "available",
                         "additions": additions, "deletions": deletions}]}
    return rec(part("data", data=data), id=tool_id, tool=tool_id, time=when(ms))


# ---------------------------------------------------------------------------- a conversation script


class Conversation:
    """Builds a session's records step by step, in the shapes above, with the scenario language's ids.

    Step ``N`` (from 1) gives ids ``s<N>`` (input), ``s<N>-call`` (provider call),
    ``s<N>-tool`` (tool use), ``s<N>-cycle`` (run), ``s<N>-cycle-notification``
    and ``s<N>-boundary`` (reset). A child stream is named by its agent's name.
    The clock starts at ``t0`` (unix ms) and advances ``interval`` ms per record.
    :meth:`land` writes what was added since the last call: one transcript per
    stream that grew, then sidecars, then run files — a checkpoint.
    """

    def __init__(self, t0: int = 1767225600000, interval: int = 1000):
        self.t = t0
        self.interval = interval
        self.n = 0
        self.records: dict[str, list[Record]] = {}
        self.meta: dict[str, list[Record]] = {}
        self.runs: dict[str, dict[str, list[Record]]] = {}
        self.last: dict[str, str] = {}
        self.run: dict[str, str] = {}
        self._pending: list[tuple[str, str, str, Record]] = []

    # ---------------------------------------------------------------- plumbing

    def clock(self, after: int | None = None) -> int:
        """Advance the clock by ``after`` ms (default: the interval) and return it."""
        self.t += self.interval if after is None else after
        return self.t

    def emit(self, r: Record, stream: str = "main", lost: bool = False) -> Record:
        """Add one record to ``stream`` (not landed when ``lost``); it becomes the stream's last."""
        if r.id:
            self.last[stream] = r.id
        if not lost:
            self._pending.append(("transcript", stream, "", r))
        return r

    def step(self) -> int:
        """Start the next step; returns its number N (from 1)."""
        self.n += 1
        return self.n

    # ---------------------------------------------------------------- steps

    def input(self, words: str, *, lost: bool = False, stream: str = "main") -> str:
        """A person's input: opens run ``s<N>-cycle``. Returns the record id."""
        n = self.step()
        run = f"s{n}-cycle"
        self.run[stream] = run
        self.emit(user_input(f"s{n}", run, words, self.clock(), self.last.get(stream, "")), stream, lost)
        return f"s{n}"

    def inject(self, words: str, *, flags: Iterable[str] = (), stream: str = "main") -> str:
        """Injected context."""
        n = self.step()
        self.emit(injection(f"s{n}", self.last.get(stream, ""), words, self.clock(), flags=flags), stream)
        return f"s{n}"

    def call(self, *texts: str, tool: str | None = None, tool_id: str = "", result: str | None = "ok",
             result_lost: bool = False, think: bool = False, stream: str = "main", lost: bool = False,
             finished: bool = True, prefix: str = "") -> str:
        """A provider call: one fragment per part (thinking, texts, a tool use), then the tool's result.

        ``result=None`` lands no result; ``result_lost`` drops it. Returns the tool-use id (or call id).
        """
        n = self.step()
        pre = f"{prefix}-" if prefix else ""
        call_id = f"{pre}s{n}-call"
        parts: list[Part] = []
        if think:
            parts.append(thinking())
        parts.extend(text(t) for t in texts)
        tid = tool_id or f"{pre}s{n}-tool"
        if tool:
            parts.append(tool_call(tid, tool, {"n": n}))
        for i, p in enumerate(parts):
            last = i == len(parts) - 1
            self.emit(assistant(f"{pre}s{n}-f{i}", call_id, self.last.get(stream, ""), self.clock(), p,
                                finished=finished and last, usage={"in": 2, "out": 10}), stream, lost)
        if tool and result is not None:
            self.emit(tool_result(f"{pre}s{n}-r", tid, self.last.get(stream, ""), self.clock(), result), stream,
                      lost or result_lost)
        return tid if tool else call_id

    def result(self, of: str, words: str = "done", *, after: int | None = None, stream: str = "main") -> str:
        """A result arriving on its own for tool use ``of``."""
        n = self.step()
        self.emit(tool_result(f"s{n}", of, self.last.get(stream, ""), self.clock(after), words), stream)
        return f"s{n}"

    def error(self, words: str, stream: str = "main") -> str:
        """A client-written error message: a synthetic call."""
        n = self.step()
        self.emit(assistant(f"s{n}-synthetic", f"s{n}-synthetic-call", self.last.get(stream, ""), self.clock(),
                            text(words), finished=False, synthetic=True), stream)
        return f"s{n}-synthetic-call"

    def system(self, flag: str, stream: str = "main") -> str:
        """A runtime record: error, turn_duration, command or notice."""
        n = self.step()
        self.emit(system(f"s{n}", self.last.get(stream, ""), flag, self.clock()), stream)
        return f"s{n}"

    def reset(self, words: str = "Summary.", stream: str = "main") -> str:
        """An explicit context reset and its summary (which opens run ``s<N>-cycle-compact``)."""
        n = self.step()
        cont = self.last.get(stream, "")
        self.emit(boundary(f"s{n}-boundary", cont, self.clock()), stream)
        run = f"s{n}-cycle-compact"
        self.run[stream] = run
        self.emit(summary(f"s{n}-summary", f"s{n}-boundary", run, self.clock()), stream)
        return f"s{n}-boundary"

    def agent(self, name: str, steps: Iterable[str] = ("done",), *, tool: str = "Agent", notify: bool = True,
              lost: bool = False, launch_lost: bool = False, sync: bool = False, sidecar_tool: bool = False) -> str:
        """Delegate to child stream ``name``: the call, its launch result, the child's records, a sidecar
        and (``notify``) the completion notification on main. ``sync`` returns the child's value in the
        call's own result (``child_result``) instead of a launch acknowledgement."""
        n = self.step()
        tid = f"s{n}-tool"
        self.emit(assistant(f"s{n}-f0", f"s{n}-call", self.last.get("main", ""), self.clock(),
                            tool_call(tid, tool, {"prompt": name}), usage={"in": 2, "out": 15}), "main", launch_lost)
        child_run = f"{name}-cycle"
        self.emit(prompt(f"{name}-p", child_run, f"work for {name}", self.clock()), name, lost)
        for i, words in enumerate(steps):
            self.emit(assistant(f"{name}-s{i + 1}", f"{name}-s{i + 1}-call", self.last[name], self.clock(), text(words),
                                usage={"in": 2, "out": 20}), name, lost)
        if not lost:
            self._pending.append(("agent_meta", name, "", sidecar(name, name, tool=tid if sidecar_tool else "")))
        flags = ["child_result"] if sync else ["launch_ack"]
        self.emit(tool_result(f"s{n}-r", tid, f"s{n}-f0", self.clock(), "done" if sync else "launched", child=name,
                              flags=flags), "main", launch_lost)
        if notify and not sync:
            run = f"s{n}-cycle-notification"
            self.run["main"] = run
            self.emit(notification(f"s{n}-n", run, self.clock(), child=name, tool=tid, parent=f"s{n}-r"), "main",
                      launch_lost)
        return tid

    def workflow(self, label: str, children: Iterable[str]) -> str:
        """A workflow call: its launch result names run ``wf_s<N>``; the run journal starts and returns
        each child; a manifest names the workflow."""
        n = self.step()
        tid = f"s{n}-tool"
        batch = f"wf_s{n}"
        self.emit(assistant(f"s{n}-f0", f"s{n}-call", self.last.get("main", ""), self.clock(),
                            tool_call(tid, "Workflow", {"name": label})), "main")
        self.emit(tool_result(f"s{n}-r", tid, f"s{n}-f0", self.clock(), "launched", batch=batch,
                              flags=["launch_ack"]), "main")
        for child in children:
            self._pending.append(("journal", "", batch, journal(child, batch, self.t)))
            self.emit(prompt(f"{child}-p", f"{child}-cycle", f"work for {child}", self.clock()), child)
            self.emit(assistant(f"{child}-s1", f"{child}-s1-call", f"{child}-p", self.clock(), text(f"{child} done")),
                      child)
            self._pending.append(("journal", "", batch, journal(child, batch, self.t, result=True)))
        self._pending.append(("workflow_manifest", "", batch, manifest(batch, label)))
        return tid

    # ---------------------------------------------------------------- landing

    def land(self, b: SessionBuilder) -> list[LandedFile]:
        """Land everything added since the last call: main first, other streams by name, then run files."""
        groups: dict[tuple[str, str, str], list[Record]] = {}
        for kind, stream, batch, r in self._pending:
            groups.setdefault((kind, stream, batch), []).append(r)
        self._pending = []
        order = {"transcript": 0, "agent_meta": 1, "journal": 2, "workflow_manifest": 3}
        keys = sorted(groups, key=lambda k: (order.get(k[0], 9), k[1] != "main", k[1], k[2]))
        return [b.land(k[0], groups[k], stream=k[1], batch=k[2]) for k in keys]
