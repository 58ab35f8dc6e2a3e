"""The mock dialect (``adapter: mock/0.2.0``, ``dialect: mock/1``): scenario lines landed directly as Session Data.

The ``sd`` scenario format needs no runtime and no collector: each planned
line (:mod:`asz_core.testing.scenario.plan`) becomes one :class:`~asz_core.Record`
with the role fields the Claude Code adapter gives the same line
(origin-digest §5.1 "Record fields landed", "Index flags computed per
record", "Session Data mapping of content blocks"), and the records of one
source and stage land as one ``.sd`` file through the storage root's session
writer (origin-digest §2.1, §3). Index, assembly and chain contain no runtime
code, so both formats must fold the same (property ``cross_format``; §2.7).

Record positions are those of the source the line stands for: ``ord``
counts the kept lines of the source from 1, ``off`` is where the line would
start, ``bytes`` its size and ``sha`` the first 12 hex of its SHA-256.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from ...sessiondata import FLAGS, Dropped, Header, Part, Record, Usage, source_sha, unknown_part
from ...storage.root import SessionWriter, session_lock
from .plan import Line, Plan, SourceFile, dumps

__all__ = ["ADAPTER", "DIALECT", "line_record", "land_stage", "landing_order", "landing_group"]

ADAPTER = "mock/0.2.0"
DIALECT = "mock/1"
SCRIPT_REASON = "a workflow script is a program, not data"
SIGNATURE_WHY = "a provider verifies it; a reader cannot read it"
#: The entry the Claude Code adapter (0.2.0 on) lists under ``dropped`` for a ``user`` line's content that was a list
#: of one text block (the list around the text; a string lands as one text part too: docs/reading.md, prose).
CONTENT_LIST_WHAT = "content list"
CONTENT_LIST_WHY = "the list held only this text block, which is the text part"

_FROM = {"assistant": "agent", "user": "external", "system": "runtime", "attachment": "runtime"}
_SYSTEM_FLAGS = {"compact_boundary": "context_reset", "api_error": "error", "turn_duration": "turn_duration", "local_command": "command"}
_TRIGGERS = {"human": "external", "task-notification": "notification"}
_ORDER = {f: i for i, f in enumerate(FLAGS)}
_RANK = {"transcript": 0, "agent_meta": 1, "journal": 2, "workflow_manifest": 3, "workflow_script": 4}
_AGENT_ID = re.compile(r"a[0-9a-f]{16}")
#: Envelope fields of a Claude Code line that a mock data part leaves out (the original's example
#: document shows a boundary's data as its other fields, keys sorted).
_ENVELOPE = frozenset(("parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "agentId",
                       "entrypoint", "uuid", "timestamp", "promptId"))


def _size(v: Any) -> int:
    """A part's ``bytes`` in the mock dialect: the size of what the part holds (the text's UTF-8, or
    the data's compact JSON), as the original's example document shows (``run the build``: 13)."""
    if isinstance(v, str):
        return len(v.encode("utf-8"))
    return len(dumps(v))


def _s(d: Any, k: str) -> str:
    v = d.get(k) if isinstance(d, dict) else None
    return v if isinstance(v, str) else ""


def _mcp(name: str) -> tuple[str, str] | None:
    if not name.startswith("mcp__"):
        return None
    rest = name[5:]
    if sum(1 for i in range(len(rest) - 1) if rest[i:i + 2] == "__") != 1:
        return None
    a, b = rest.split("__")
    return (a, b) if a and b else None


def _sorted(v: Any) -> Any:
    """``v`` with every object's keys in code point order, as the original's mock wrote data (Go maps)."""
    if isinstance(v, dict):
        return {k: _sorted(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_sorted(x) for x in v]
    return v


def _block(rec: Record, b: dict, tur: Any, used: list) -> None:
    t = b.get("type")
    if t == "text":
        rec.parts.append(Part(k="text", text=b["text"], bytes=_size(b["text"])))
    elif t in ("tool_use", "server_tool_use"):
        p = Part(k="call", id=b["id"], name=b["name"], data=_sorted(b.get("input")), bytes=_size(b.get("input")))
        split = _mcp(p.name)
        if split:
            p.server, p.server_tool = split
        rec.parts.append(p)
    elif t == "thinking":
        text = b.get("thinking") or ""
        rec.parts.append(Part(k="reasoning", text=text, state="available" if text else "unavailable", bytes=_size(text)))
        if b.get("signature"):
            rec.dropped.append(Dropped(what="reasoning signature", bytes=len(b["signature"].encode()), why=SIGNATURE_WHY))
    elif t == "tool_result":
        p = Part(k="result", of=b.get("tool_use_id", ""))
        if isinstance(b.get("is_error"), bool):
            p.failed = b["is_error"]
        c = b.get("content")
        if isinstance(c, str):
            p.text = c
        elif isinstance(c, list):
            p.text = "\n".join(x["text"] for x in c if isinstance(x, dict) and x.get("type") == "text")
        p.bytes = _size(p.text)
        if isinstance(tur, dict) and not used:
            p.data = _sorted(tur)
            used.append(True)
        rec.parts.append(p)
    else:
        rec.parts.append(unknown_part(dumps(b), f'block type "{t}" is not one this dialect describes'))


def _flags(v: dict, t: Any, msg: dict | None, att: dict | None, origin: Any, tur: Any) -> list[str]:
    """The Session Data flags of transcript line ``v`` (of ``type`` ``t``), in the vocabulary's order."""
    flags: set[str] = set()
    meta = v.get("isMeta") is True
    if t == "assistant" and msg is not None:
        if msg.get("model") == "<synthetic>":
            flags.add("synthetic")
        if isinstance(msg.get("stop_reason"), str) and msg["stop_reason"]:
            flags.add("finished")
    elif t == "system":
        flags.add(_SYSTEM_FLAGS.get(v.get("subtype"), "notice"))
    elif t == "attachment" and att is not None:
        if att.get("type") == "queued_command" and att.get("commandMode") == "prompt":
            flags.add("external_input")
        else:
            flags.add("injected")
        if att.get("type") == "prompt_snapshot":
            flags.add("system_prompt")
            if any("tool" in k.lower() and v2 not in (None, "", [], {}) and isinstance(v2, (str, list, dict)) for k, v2 in att.items()):
                flags.add("tool_schemas")
    elif t == "user" and not meta and v.get("isCompactSummary") is not True:
        if (isinstance(origin, dict) and origin.get("kind") == "human") or (origin is None and v.get("promptSource") == "sdk"):
            flags.add("external_input")
    if v.get("isCompactSummary") is True:
        flags.add("reset_summary")
    if meta:
        flags.add("injected")
        flags.discard("external_input")
    if isinstance(tur, dict):
        if tur.get("status") == "async_launched":
            flags.add("launch_ack")
        elif tur.get("status") == "completed":
            flags.add("child_result")
    return sorted(flags, key=_ORDER.__getitem__)


def _parts(rec: Record, v: dict, msg: dict | None, att: dict | None, tur: Any) -> None:
    """Append the parts of transcript line ``v`` to ``rec``: its message content, attachment, or its own fields."""
    content = msg.get("content") if msg is not None else None
    if isinstance(content, str):
        rec.parts.append(Part(k="text", text=content, bytes=_size(content)))
        if content.lstrip().startswith("<task-notification>"):
            m = re.search(r"<tool-use-id>\s*([^<\s]+)\s*</tool-use-id>", content)
            if m and not rec.tool:
                rec.tool = m.group(1)
            for m in re.finditer(r"<task-id>\s*([^<\s]+)\s*</task-id>", content):
                if _AGENT_ID.fullmatch(m.group(1)) and not rec.child:
                    rec.child = m.group(1)
                    break
    elif isinstance(content, list):
        used: list = []
        for b in content:
            _block(rec, b, tur, used)
        if v.get("type") == "user" and len(content) == 1 and len(rec.parts) == 1 and rec.parts[0].k == "text":
            wrapper = len(dumps(content)) - len(dumps(content[0]["text"]))
            rec.dropped.append(Dropped(what=CONTENT_LIST_WHAT, bytes=wrapper, why=CONTENT_LIST_WHY))
        if isinstance(tur, dict) and not used:
            rec.parts.append(Part(k="data", data=_sorted(tur), bytes=_size(tur)))
    elif att is not None:
        if att.get("type") == "queued_command" and att.get("commandMode") == "prompt" and isinstance(att.get("prompt"), list):
            text = "\n".join(x["text"] for x in att["prompt"])
            rec.parts.append(Part(k="text", text=text, bytes=_size(text)))
        elif isinstance(att.get("text"), str) and att["text"]:
            rec.parts.append(Part(k="text", text=att["text"], bytes=_size(att["text"])))
        elif isinstance(att.get("content"), str) and att["content"]:
            rec.parts.append(Part(k="text", text=att["content"], bytes=_size(att["content"])))
        else:
            rec.parts.append(Part(k="data", data=_sorted(att), bytes=_size(att)))
    else:  # no content: the record's own fields, without the envelope the roles already carry
        data = _sorted({k: v[k] for k in v if k not in _ENVELOPE})
        rec.parts.append(Part(k="data", data=data, bytes=_size(data)))


def _transcript(rec: Record, v: dict) -> None:
    t = v.get("type")
    msg = v.get("message") if t in ("user", "assistant") and isinstance(v.get("message"), dict) else None
    att = v.get("attachment") if t == "attachment" and isinstance(v.get("attachment"), dict) else None
    tur = v.get("toolUseResult")
    rec.id, rec.parent, rec.run = _s(v, "uuid"), _s(v, "parentUuid"), _s(v, "promptId")
    rec.continues, rec.time = _s(v, "logicalParentUuid"), _s(v, "timestamp")
    rec.from_ = _FROM.get(t, "")
    if t == "ai-title":
        rec.label = _s(v, "aiTitle")
    if isinstance(tur, dict):
        rec.tool, rec.child, rec.batch = _s(tur, "toolUseId"), _s(tur, "agentId"), _s(tur, "runId")
    if msg is not None:
        rec.call, rec.model = _s(msg, "id"), _s(msg, "model")
        u = msg.get("usage") or {}
        usage = Usage(in_=u.get("input_tokens", 0), out=u.get("output_tokens", 0),
                      cache_read=u.get("cache_read_input_tokens", 0), cache_write=u.get("cache_creation_input_tokens", 0))
        rec.usage = None if usage.is_empty() else usage
    origin = v.get("origin")
    if not isinstance(origin, dict) and att is not None:
        origin = att.get("origin")
    if isinstance(origin, dict):
        rec.trigger = _TRIGGERS.get(origin.get("kind"), "unknown")
    elif t == "user" and v.get("isMeta") is not True and v.get("promptSource") == "sdk":
        rec.trigger = "external"
    rec.flags = _flags(v, t, msg, att, origin, tur)
    _parts(rec, v, msg, att, tur)


def line_record(f: SourceFile, obj: Any, raw: bytes, ord_: int, off: int) -> Record:
    """One planned line (or document) of source ``f`` as the mock dialect's record at ``ord_``/``off``.

    ``raw`` is the source bytes (a line without its newline, or a whole
    document with its trailing newlines trimmed, as the collector hands it
    to an adapter): ``bytes`` and ``sha`` describe them. Never raises for
    a planned line.
    """
    rec = Record(ord=ord_, off=off, sha=source_sha(raw), bytes=len(raw))
    if f.kind == "workflow_script":
        rec.parts = [unknown_part(raw, SCRIPT_REASON)]
        rec.from_ = "runtime"
        rec.batch = f.batch
        return rec
    if f.kind == "transcript":
        _transcript(rec, obj)
        return rec
    if f.kind in ("changes", "execution"):  # the observers' records: ids lifted, no role, no flag
        for key in ("id", "tool", "time"):
            if isinstance(obj.get(key), str):
                setattr(rec, key, obj[key])
        rec.parts = [Part(k="data", data=_sorted(obj), bytes=len(raw))]
        return rec
    rec.parts = [Part(k="data", data=_sorted(obj), bytes=len(raw))]
    rec.from_ = "runtime"
    if f.kind == "journal":
        rec.child = _s(obj, "agentId")
        rec.batch = f.batch or _s(obj, "runId")
        rec.time = _s(obj, "timestamp")
        if "result" in obj:
            rec.flags = ["child_result"]
    elif f.kind == "agent_meta":
        rec.child = _s(obj, "agentId") or f.stream
        rec.tool = _s(obj, "toolUseId")
        rec.label = _s(obj, "description")
        rec.started_by = _s(obj, "parentAgentId")
        rec.batch = f.batch
    elif f.kind == "workflow_manifest":
        rec.batch = f.batch or _s(obj, "runId")
        rec.label = _s(obj, "workflowName")
    return rec


def landing_group(f: SourceFile) -> int:
    """0 for the main transcript, 1 for the asz observers' files, 2 for every other Claude Code source.

    The original lands a session stream by stream: its example document
    (``asz-view-example.yaml``) has the main transcript at seq 1, the
    observers' ``changes`` file at seq 2, then the child's transcript and
    sidecar; ``removed-after-sent`` cuts its five rounds only in that order.
    """
    if f.root != "projects":
        return 1
    return 0 if f.kind == "transcript" and f.stream == "main" else 2


def landing_order(files: list[SourceFile]) -> list[SourceFile]:
    """The order a scenario build lands the sources of one stage: by :func:`landing_group`, then as the
    Claude Code adapter discovers them (main first, then by kind: transcripts, sidecars, journals,
    manifests, scripts), each by ``rel`` path; the observers' files by ``rel``."""
    return sorted(files, key=lambda f: (landing_group(f), f.root == "projects" and f.stream != "main", _RANK.get(f.kind, 0), f.rel)
                  if f.root == "projects" else (landing_group(f), False, 0, f.rel))


def _cursor(plan: Plan, f: SourceFile, lines: list[Line], positions: dict, seq: int, stamp_ns: int, root: Path) -> None:
    """Write the cursor the collector would hold for source ``f`` after landing through ``seq``.

    The mock lands what a collector would, so its sources have cursors too:
    ``verify`` then finds an end gap when a landed file is lost, in both
    formats alike. ``dev``/``ino``/``mtime`` are 0 (there is no source file);
    the tail digest covers the source's bytes up to the offset.
    """
    from ...sessiondata.times import format_rfc3339
    from ...storage.cursor import TAIL_WINDOW, AppendCursor, SnapshotCursor, write_cursor
    from ...storage.layout import cursor_path, kind_dir

    d = kind_dir(root, plan.session, f.kind, f.stream or ("main" if f.kind in ("transcript", "agent_meta", "changes", "execution") else ""), f.batch)
    at = format_rfc3339(stamp_ns)
    if f.mode == "snapshot":
        raw = positions[f.rel]
        cur = SnapshotCursor(source=f.rel, content_sha256=hashlib.sha256(raw).hexdigest(), size=len(lines[-1].raw), last_seq=seq, updated_at=at)
    else:
        data = b"".join(ln.raw + b"\n" for ln in plan.kept() if ln.file.rel == f.rel and ln.stage <= lines[-1].stage)
        ord_, off = positions[f.rel]
        last = lines[-1].obj.get("uuid", "") if isinstance(lines[-1].obj, dict) else ""
        cur = AppendCursor(source=f.rel, offset=off, ord=ord_ - 1, last_uuid=last if isinstance(last, str) else "",
                           tail_sha256=hashlib.sha256(data[max(0, off - TAIL_WINDOW):off]).hexdigest(), size=len(data),
                           last_seq=seq, updated_at=at)
    write_cursor(cursor_path(d, f.kind), cur, fsync=False)


def land_stage(plan: Plan, stage: int, root: Path, positions: dict, stamp_ns: int) -> int:
    """Land stage ``stage`` of ``plan`` into storage root ``root`` as mock Session Data; returns files landed.

    ``positions`` maps a source's rel path to its ``(next ord, next off)`` and
    is updated, so a later stage continues each source where the last stopped.
    Snapshot sources land whole (ord 1, off 0) only when their content
    changed. Takes the session lock; raises OSError or LockBusy from the
    storage layer.
    """
    by_file: dict[str, list[Line]] = {}
    for ln in plan.kept(stage):
        by_file.setdefault(ln.file.rel, []).append(ln)
    if not by_file:
        return 0
    order = landing_order([plan.files[r] for r in by_file])
    landed = 0
    lock = session_lock(root, plan.session, 30.0)
    lock.acquire()
    try:
        w = SessionWriter.open(root, plan.session, stamp_ns=stamp_ns, fsync=False)
        for f in order:
            lines = by_file[f.rel]
            header = Header(kind=f.kind, session=plan.session, src=f.rel, dialect=DIALECT, adapter=ADAPTER,
                            stream=f.stream or ("main" if f.kind in ("transcript", "agent_meta", "changes", "execution") else ""), batch=f.batch)
            recs = []
            if f.mode == "snapshot":
                ln = lines[-1]
                raw = ln.raw.rstrip(b"\n")  # as the collector: trailing newlines are not content
                if positions.get(f.rel) == raw:
                    continue
                positions[f.rel] = raw
                recs.append(line_record(f, ln.obj, raw, 1, 0))
            else:
                ord_, off = positions.get(f.rel, (1, 0))
                for ln in lines:
                    recs.append(line_record(f, ln.obj, ln.raw, ord_, off))
                    ord_ += 1
                    off += len(ln.raw) + 1
                positions[f.rel] = (ord_, off)
            sdw = w.start(header)
            try:
                for r in recs:
                    sdw.write(r)
            except BaseException:
                sdw.abort()
                raise
            lf = w.finish(sdw)
            _cursor(plan, f, lines, positions, lf.header.seq, stamp_ns, root)
            landed += 1
        w.write_state()
    finally:
        lock.release()
    return landed
