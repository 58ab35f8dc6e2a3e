"""Support for the round/fold/chain/parse tests: a toy assembly engine and a session builder.

The toy engine stands in for the real index and assembly so that rounds, fold,
chain and parse can be held to their own rules: it reads landed files
directly and produces entities that are created, changed, removed and
resolved as more files land:

* ``session/<id>``, one ``stream/<name>`` per stream (role main or child);
* one ``message.external`` node ``input/<seq>/<row>`` per record;
* ``rel/follows/<a>/<b>`` between consecutive records of a stream;
* ``rel/ends_with/stream/<s>/<last record>``: replaced (tombstone + new) whenever
  a stream grows;
* ``unres/parent/<id>`` (open) for a record naming a parent id not landed yet:
  it vanishes (→ resolved) once the parent lands.

This module holds no tests; its name keeps it among this suite's files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asz_core.flow.model import Assembly, Node, Ref, Relation, Unresolved, make_id, relation_id, unresolved_id
from asz_core.sessiondata import Header, Part, Record, SDReader
from asz_core.storage.layout import landed_files, session_dir
from asz_core.storage.root import SessionWriter

SESSION = "11111111-2222-4333-8444-555555555555"
STAMP_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z


class ToyIndex:
    """What the toy engine's watermark hands to assemble: the session dir and the indexed seq."""

    def __init__(self, sdir: Path, indexed_seq: int):
        self.sdir = sdir
        self.indexed_seq = indexed_seq


class ToyEngine:
    """A FlowEngine: watermark = highest landed seq (or ``cap``); assembly = the toy rules above."""

    def __init__(self, cap: int | None = None):
        self.cap = cap
        self.assembled: list[int] = []

    def watermark(self, sdir: Path) -> tuple[Any, int]:
        files = landed_files(sdir)
        seq = files[-1][0].seq if files else 0
        if self.cap is not None:
            seq = min(seq, self.cap)
        return ToyIndex(sdir, seq), seq

    def assemble(self, handle: ToyIndex, through_seq: int, conversation: str = "") -> Assembly:
        self.assembled.append(through_seq)
        return toy_assembly(handle.sdir, through_seq)


def toy_assembly(sdir: Path, through_seq: int) -> Assembly:
    """The toy assembly of a session through ``through_seq`` (see the module docstring)."""
    asm = Assembly()
    sid = sdir.name
    asm.nodes[f"session/{sid}"] = Node(f"session/{sid}", kind="session", attrs={"id": sid})
    last: dict[str, str] = {}
    seen_ids: set[str] = set()
    pending: list[tuple[str, str, Ref]] = []
    for ln, path in landed_files(sdir):
        if ln.seq > through_seq:
            break
        reader = SDReader(path)
        for row, rec in reader:
            stream = reader.header.stream or "main"
            sid_node = make_id("stream", stream)
            if sid_node not in asm.nodes:
                role = "main" if stream == "main" else "child"
                asm.nodes[sid_node] = Node(sid_node, kind="stream", parent=f"session/{sid}", stream=stream, attrs={"role": role})
            nid = make_id("input", str(ln.seq), str(row))
            text = rec.parts[0].text if rec.parts else ""
            attrs: dict[str, Any] = {"bytes": rec.bytes, "text": text, "at": Ref(ln.seq, row)}
            asm.nodes[nid] = Node(nid, kind="message.external", parent=sid_node, stream=stream, ref=Ref(ln.seq, row), attrs=attrs)
            if stream in last:
                rid = relation_id("follows", last[stream], nid)
                asm.relations[rid] = Relation(rid, type="follows", from_=last[stream], to=nid, quality="exact_unique", via="containment parent", evidence=[Ref(ln.seq, row)])
            last[stream] = nid
            if rec.id:
                seen_ids.add(rec.id)
            if rec.parent:
                pending.append((rec.parent, nid, Ref(ln.seq, row)))
    for stream, nid in last.items():
        rid = relation_id("ends_with", make_id("stream", stream), nid)
        asm.relations[rid] = Relation(rid, type="ends_with", from_=make_id("stream", stream), to=nid, quality="exact_unique")
    for parent, nid, ref in pending:
        if parent not in seen_ids:
            uid = unresolved_id("parent", parent)
            asm.unresolved[uid] = Unresolved(uid, kind="parent", ref=parent, reason="no record with this id landed", state="open")
    asm.counts = {"title": "toy session"}
    return asm


def land(root: Path, records: list[dict], *, stream: str = "main", session: str = SESSION, stamp_ns: int = STAMP_NS) -> Path:
    """Land one transcript file of ``records`` (dicts with text, id, parent, time) into ``root``; returns its path."""
    w = SessionWriter.open(root, session, stamp_ns=stamp_ns, fsync=False)
    sd = w.start(Header(kind="transcript", session=session, src="toy.jsonl", dialect="toy/1", adapter="toy", stream="" if stream == "main" else stream))
    for i, r in enumerate(records, 1):
        text = r.get("text", f"line {i}")
        sd.write(
            Record(
                ord=i, off=i * 10, bytes=len(text), id=r.get("id", ""), parent=r.get("parent", ""), time=r.get("time", ""),
                from_="runtime", parts=[Part(k="text", text=text, state="available", bytes=len(text))],
            )
        )
    return w.finish(sd).path


def toy_session(root: Path, *, files: int = 6, per_file: int = 3) -> Path:
    """A session of ``files`` landed files: main and a child stream, parents landing late, times increasing."""
    n = 0
    for f in range(files):
        recs = []
        for k in range(per_file):
            n += 1
            rec = {"id": f"r{n}", "text": f"record {n} " + "x" * (n % 7), "time": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.5Z"}
            if n % 4 == 0:
                rec["parent"] = f"r{n + per_file}"  # names a record of the next file: open until it lands
            recs.append(rec)
        land(root, recs, stream="main" if f % 3 != 2 else "helper")
    return session_dir(root, SESSION)
