"""The asz.view document: one conversation rebuilt from its rounds and landed files (seed 004).

:func:`build_view` folds a conversation's chain, reads the records its nodes
reference and returns the document as a plain ``dict`` whose key order is the
order seed 004 and origin-digest §7 list. It is never written to disk.

Verification is content: a missing or broken round, a missing landed file or
a digest that does not match goes into ``summary.state`` and
``summary.problems`` and the rest is still shown. Only a chain with no usable
round is an error (:class:`ViewError`).

Withholding: ``hide`` names withholdable flags (``system_prompt``,
``tool_schemas``); records carrying them are withheld as they are read.
"""

from __future__ import annotations

import gc
import hashlib
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

from ..flow.fold import Fold, FoldError
from ..flow.model import Node, Ref, Relation
from ..flow.round import Round, RoundError, input_digest, parse_round_file_name, read_round
from ..sessiondata import SDReader
from ..sessiondata.jsonbytes import NumberText, RawJSON, number_texts
from ..sessiondata.model import WITHHOLDABLE
from ..sessiondata.reader import SDError
from ..sessiondata.times import parse_instant
from ..sessiondata.model import COMPANION_WHAT
from ..storage.layout import landed_files, session_dir
from ..storage.torn import session_torn_tails, torn_line
from .usage import CallUsage, read_call, usage_totals
from .coverage import carries_text, cited_by
from .coverage import measure as measure_coverage
from .links import Links, find_links

__all__ = ["ViewError", "build_view", "FORMAT", "VERSION", "TEXT_LIMIT", "STEP_KINDS", "list_conversations"]

FORMAT = "asz.view"
VERSION = "1.0"
#: A node's text is clipped to this many bytes at a character boundary.
TEXT_LIMIT = 2000
STRUCTURAL = ("conversation", "segment", "session", "stream", "epoch", "talk", "run")
STEP_KINDS = (
    "message.external", "message.assistant", "message.synthetic", "context.injection", "llm.call", "thinking", "tool",
    "agent.call", "agent.launch_ack", "agent.output", "runtime.notification", "epoch.boundary", "epoch.summary", "error.api",
    "control.interrupt", "control.permission", "control.command", "turn.duration", "control.notice",
)
_NO_TEXT = frozenset(("llm.call", "talk", "run", "segment", "epoch", "stream", "session", "conversation"))
_TOOL_KINDS = frozenset(("tool", "agent.call"))
_STRUCTURAL = frozenset(STRUCTURAL)
_STEP_KINDS = frozenset(STEP_KINDS)
#: Structural kinds listed elsewhere in the document, never as a node's children.
_NOT_CHILDREN = frozenset(("epoch", "stream", "segment", "session"))
_WITHHOLDABLE = frozenset(WITHHOLDABLE)
_NO_RECORD: dict = {}
_WS = "".join(chr(c) for c in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)) + "".join(chr(c) for c in range(0x2000, 0x200B))


class ViewError(RuntimeError):
    """No document can be built: the conversation has no usable round (or does not exist)."""


def list_conversations(root: str | os.PathLike) -> list[str]:
    """Conversation ids with a rounds directory under ``<root>/_conversations``, sorted."""
    d = Path(root) / "_conversations"
    if not d.is_dir():
        return []
    return sorted(p.name for p in d.iterdir() if (p / "rounds").is_dir())


def _ms(ns: int | None) -> int | None:
    return None if ns is None else ns // 1_000_000


def _header_time(value: str) -> int | None:
    """A round header's time: null when absent, 0 when not a time (seed 004)."""
    if not value:
        return None
    ns = parse_instant(value)
    return 0 if ns is None else ns // 1_000_000


def clip_text(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes at a character boundary."""
    if len(text) * 4 <= limit:  # no character takes more than 4 bytes: short text is never cut
        return text
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore")


def _data_text(data: Any) -> str:
    if isinstance(data, RawJSON):
        return data.raw.decode("utf-8", "replace")
    if isinstance(data, str):
        return data
    # A NumberText (a number no reader type holds) is written back as the number its source wrote.
    return orjson.dumps(data, default=_number_fragment, option=orjson.OPT_PASSTHROUGH_SUBCLASS).decode("utf-8")


def _number_fragment(value: Any) -> Any:
    if isinstance(value, NumberText):
        return orjson.Fragment(str(value).encode("utf-8"))
    if isinstance(value, str):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


class _Session:
    """The landed files of one session through a seq: records by (seq, row), headers, file stats.

    A record is its type-checked JSON object as :class:`SDReader` yields it
    with ``decode="dict"`` (keys as written, absent means the model's default:
    ``""``, ``0``, ``[]``, state ``available``); the view reads a few fields of
    each and never needs the model objects.
    """

    def __init__(self, root: Path, session: str, through_seq: int):
        self.root = root
        self.session = session
        self.dir = root / session
        self.files: dict[int, dict] = {}
        self.records: dict[int, list[dict]] = {}
        self.times: dict[int, list[int | None]] = {}
        self.headers: dict[int, Any] = {}
        self.problems: list[str] = []
        self._listed_parts: list[tuple[int, int, int, dict]] | None = None
        for ln, path in landed_files(self.dir) if self.dir.is_dir() else []:
            if ln.seq > through_seq:
                continue
            self._load(ln.seq, path)

    def _load(self, seq: int, path: Path) -> None:
        data = path.read_bytes()
        reader = SDReader(path, decode="dict", data=data)
        recs: list[dict] = []
        try:
            for _, rec in reader:
                recs.append(rec)
        except SDError as exc:
            self.problems.append(f"landed file {path.relative_to(self.root).as_posix()} does not read: {exc.message} (line {exc.line})")
        # a whole read hashed every byte of the file already
        digest = reader.digest if reader.digest and path.suffix == ".sd" else hashlib.sha256(data).hexdigest()
        h = reader.header
        all_times = [parse_instant(r.get("time")) for r in recs]
        self.times[seq] = all_times
        times = [t for t in all_times if t is not None]
        self.records[seq] = recs
        self.headers[seq] = h
        self.files[seq] = {
            "file": path.relative_to(self.root).as_posix(),
            "format": "sd",
            "kind": h.kind if h else "",
            "seq": seq,
            "round": None,
            "stream": (h.stream or None) if h else None,
            "run": (h.batch or None) if h else None,
            "lines": data.count(b"\n"),
            "bytes": len(data),
            "digest": digest,
            "from_time": _ms(min(times)) if times else None,
            "through_time": _ms(max(times)) if times else None,
        }

    def record_lines(self, hide: Iterable[str]) -> Iterator[bytes]:
        """Each record carrying one of the ``hide`` flags, as one JSON line (for :func:`title_withheld`)."""
        names = set(hide)
        for recs in self.records.values():
            for rec in recs:
                flags = rec.get("flags")
                if isinstance(flags, list) and not names.isdisjoint(f for f in flags if isinstance(f, str)):
                    yield orjson.dumps(rec, default=str)

    def time(self, ref: Ref | None) -> int | None:
        """The instant (ns) of the record ``ref`` names, or None (no such record, or no time)."""
        if ref is None:
            return None
        ts = self.times.get(ref.seq)
        if ts is None or not (1 <= ref.row <= len(ts)):
            return None
        return ts[ref.row - 1]

    def listed_parts(self) -> list[tuple[int, int, int, dict]]:
        """``(seq, row, block, part)`` of every ``data`` and ``unknown`` part, in seq/row/block order (scanned once).

        The two kinds the document lists beside its nodes: observations (``changes/1``,
        ``execution/1`` data) and undescribed bytes.
        """
        if self._listed_parts is None:
            out = []
            for seq in sorted(self.records):
                for row, rec in enumerate(self.records[seq], 1):
                    for block, p in enumerate(rec.get("parts", ())):
                        if p["k"] == "data" or p["k"] == "unknown":
                            out.append((seq, row, block, p))
            self._listed_parts = out
        return self._listed_parts

    def record(self, ref: Ref | None) -> dict | None:
        """The record ``ref`` names, or None."""
        if ref is None:
            return None
        recs = self.records.get(ref.seq)
        if recs is None or not (1 <= ref.row <= len(recs)):
            return None
        return recs[ref.row - 1]

    def part(self, ref: Ref) -> dict | None:
        """The part ``ref`` names (its block), or None."""
        rec = self.record(ref)
        if rec is None or ref.block is None:
            return None
        parts = rec.get("parts", ())
        return parts[ref.block] if 0 <= ref.block < len(parts) else None


class _Builder:
    def __init__(self, root: Path, conversation: str, hide: Iterable[str], through_round: int | None = None):
        if not conversation or "/" in conversation or "\\" in conversation or conversation in (".", "..") \
                or conversation.startswith((".", "_")) or "\x00" in conversation:
            raise ViewError(f"no rounds: {conversation!r} is not a conversation id (a name under _conversations/)")
        self.root = root
        self.through_round = through_round
        self.conversation = conversation
        self.hide = [h for h in WITHHOLDABLE if h in set(hide)]
        unknown = set(hide) - set(WITHHOLDABLE)
        if unknown:
            raise ValueError(f"not a withholdable flag: {', '.join(sorted(unknown))}")
        self.problems: list[str] = []
        self.state = "verified"

    # ------------------------------------------------------------------ chain

    def fold_chain(self) -> tuple[Fold, list[dict], list[Round]]:
        rdir = self.root / "_conversations" / self.conversation / "rounds"
        if not rdir.is_dir():
            raise ViewError(f"no rounds: conversation {self.conversation!r} has no chain under {rdir}")
        files: dict[int, Path] = {}
        for p in rdir.iterdir():
            parsed = parse_round_file_name(p.name)
            if parsed and p.stat().st_size > 0 and (self.through_round is None or parsed[0] <= self.through_round):
                files.setdefault(parsed[0], p)
        fold = Fold()
        rows: list[dict] = []
        accepted: list[Round] = []
        stopped = False
        for n in range(1, (max(files) if files else 0) + 1):
            path = files.get(n)
            if stopped or path is None:
                if path is None and not stopped:
                    self._problem("incomplete", f"round {n} is missing; the fold stops at round {n - 1}")
                    stopped = True
                if path is not None:
                    rows.append(self._round_row_unread(n, path))
                continue
            try:
                r = read_round(path)
                fold.accept(r)
            except (RoundError, FoldError, OSError) as exc:
                self._problem("mismatch", f"round {n} does not verify: {exc}")
                stopped = True
                rows.append(self._round_row_unread(n, path))
                continue
            accepted.append(r)
        if fold.rounds == 0:
            raise ViewError(f"no usable round in conversation {self.conversation!r}: " + "; ".join(self.problems or ["no rounds"]))
        return fold, rows, accepted

    def _round_row_unread(self, n: int, path: Path) -> dict:
        return {"round": n, "digest": None, "previous": None, "from_seq": None, "through_seq": None, "input_digest": None, "from_time": None, "through_time": None, "verified": False}

    def _problem(self, state: str, line: str) -> None:
        self.problems.append(line)
        rank = {"verified": 0, "incomplete": 1, "mismatch": 2}
        if rank[state] > rank[self.state]:
            self.state = state

    def check_inputs(self, accepted: list[Round], sess: _Session) -> list[bool]:
        ok: list[bool] = []
        prev = ""
        for r in accepted:
            h = r.header
            digests = []
            good = True
            for seq in range(h.from_seq, h.through_seq + 1):
                f = sess.files.get(seq)
                if f is None:
                    self._problem("incomplete", f"round {h.round}: landed file seq {seq} of session {h.session} is missing")
                    good = False
                    continue
                digests.append(f["digest"])
            if good and input_digest(prev, digests) != h.input_digest:
                self._problem("mismatch", f"round {h.round}: the landed files seq {h.from_seq}..{h.through_seq} do not match its input digest")
                good = False
            prev = h.input_digest
            ok.append(good)
        return ok


def _pos(ref: Ref | None) -> tuple:
    if ref is None:
        return (1 << 62, 0, 0)
    return (ref.seq, ref.row, -1 if ref.block is None else ref.block)


def build_view(root: str | os.PathLike, conversation: str, *, hide: Iterable[str] = (), through_round: int | None = None) -> dict:
    """Build the asz.view document of ``conversation`` under storage root ``root``.

    Returns a dict in document key order (JSON-ready). ``hide`` names the
    withholdable flags to withhold; ``through_round`` builds the document as
    of that round (the head by default). Raises :class:`ViewError` when the
    chain has no usable round, ValueError for a hide name that is not withholdable.

    The cyclic garbage collector is paused while the document is built. A
    build allocates a few hundred thousand dicts and lists that all stay alive
    until it returns; every collection those allocations trigger walks every
    live object of the process and finds nothing to free (a third of a large
    build's time). Reference counting still frees as usual, and the collector
    runs again once the build returns. Only a collector this call disabled is
    enabled again, so nested or concurrent builds never leave it off. The
    pause comes first, before anything is allocated, so a build does not start
    by collecting what its caller left young.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(Path(root), conversation, hide, through_round)
    finally:
        if was_enabled:
            gc.enable()


def title_withheld(lines: Iterable[bytes], title: str, hide: Iterable[str]) -> bool:
    """True when ``title`` could come from a record carrying a withheld flag (seed 004, Withholding).

    ``lines`` are landed record lines. A line counts when it names one of the
    ``hide`` flags and holds the title, as the writer escapes it or as it
    stands (a source's own bytes may escape it otherwise). Erring on the side
    of withholding: a title found in a withheld record is not shown.
    """
    hide = [n for n in hide if n]
    if not title or not hide:
        return False
    flags = [f'"{n}"'.encode() for n in hide]
    needles = {orjson.dumps(title)[1:-1], title.encode("utf-8", "surrogatepass")}
    for line in lines:
        if any(f in line for f in flags) and any(n in line for n in needles):
            return True
    return False


def landed_lines(root: str | os.PathLike, session: str) -> Iterator[bytes]:
    """Every line of a session's landed ``.sd`` files, as stored (headers and closing lines too); unreadable files are skipped."""
    sdir = Path(root) / session
    for _, path in landed_files(sdir) if sdir.is_dir() else []:
        try:
            with open(path, "rb") as f:
                yield from f
        except OSError:
            continue


def _build(root: Path, conversation: str, hide: Iterable[str], through_round: int | None) -> dict:
    b = _Builder(root, conversation, hide, through_round)
    fold, unread_rows, accepted = b.fold_chain()
    head = fold.head
    assert head is not None
    session = head.session
    sess = _Session(root, session, head.through_seq)
    for p in sess.problems:
        b._problem("mismatch", p)
    # A torn tail is said, not a mismatch: the landed records are whole, one source line waits for its newline.
    b.problems.extend(torn_line(src, size) for src, size in session_torn_tails(session_dir(root, session)))
    verified = b.check_inputs(accepted, sess)
    links = find_links(root, session, [(r.get("id", ""), r.get("parent", "")) for rs in sess.records.values() for r in rs])
    v = _View(b, fold, sess, links)
    rounds = []
    for r, ok in zip(accepted, verified):
        h = r.header
        rounds.append({
            "round": h.round, "digest": r.digest, "previous": h.previous or None, "from_seq": h.from_seq, "through_seq": h.through_seq,
            "input_digest": h.input_digest, "from_time": _header_time(h.from_time), "through_time": _header_time(h.through_time), "verified": ok,
        })
    rounds.extend(unread_rows)
    files = [sess.files[s] for s in sorted(sess.files)]
    for r in accepted:
        data = r.data
        files.append({
            "file": (Path("_conversations") / conversation / "rounds" / r.file_name).as_posix(), "format": "sf", "kind": "round",
            "seq": None, "round": r.header.round, "stream": None, "run": None, "lines": data.count(b"\n"), "bytes": len(data),
            "digest": hashlib.sha256(data).hexdigest(), "from_time": _header_time(r.header.from_time), "through_time": _header_time(r.header.through_time),
        })
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "conversation": conversation,
        "sessions": [session],
        "head": {"round": head.round, "digest": fold.head_digest},
        "parser": head.parser,
        "policy": head.policy,
        "summary": None,
        "rounds": rounds,
        "files": files,
        "streams": v.streams(),
        "segments": v.segments(),
        "talks": v.talks(),
        "loose": v.loose(),
        "relations": [v.relation_dict(r) for r in v.ordered_relations] + links.relations,
        "unresolved": [
            {"id": u.id, "kind": u.kind, "ref": u.ref, "reason": u.reason, "state": u.state}
            for u in sorted(fold.unresolved.values(), key=lambda u: u.id)
        ] + links.unresolved,
        "workspace_changes": v.changes,
        "tool_executions": v.executions,
        "undescribed": v.undescribed(),
        "not_drawn": v.coverage.not_drawn,
    }
    doc["summary"] = v.summary(head, len(accepted), b.state, b.problems + v.coverage.problems, len(doc["undescribed"]))
    doc["summary"]["coverage"] = v.coverage.summary
    if links.unresolved:  # issue 18: dangling parents and shared ids are said as open entries
        doc["summary"]["unresolved"] += len(links.unresolved)
    if links.earlier:  # issue 18: a resumed session counts what it repeats from the earlier one once, there
        doc["summary"]["continues"] = links.earlier
        doc["summary"]["repeated"] = len(links.repeated)
    return doc


class _View:
    """Renders the folded entities with the text of the records they reference."""

    def __init__(self, b: _Builder, fold: Fold, sess: _Session, links: Links | None = None):
        self.b = b
        self.fold = fold
        self.sess = sess
        self.hide = set(b.hide)
        self.nodes = fold.nodes
        self._talk_cache: dict[str, dict] = {}
        self._at: dict[str, int] = {}
        # Nodes in file order (seq, row, block of their first ref; then id): children lists and a talk's steps follow it.
        in_order = sorted(self.nodes.values(), key=lambda n: (_pos(n.ref or (n.refs[0] if n.refs else None)), n.id))
        self.rank: dict[str, int] = {n.id: i for i, n in enumerate(in_order)}
        self.children: dict[str, list[Node]] = {}
        for n in in_order:
            self.children.setdefault(n.parent, []).append(n)
        self.ordered_relations = sorted(fold.relations.values(), key=self._relation_key)
        self.edges: dict[str, list[dict]] = {}
        #: (type, to) -> relations, in document order (a stream's opener, a segment's talks)
        self.relations_to: dict[tuple[str, str], list[Relation]] = {}
        for r in self.ordered_relations:
            self.relations_to.setdefault((r.type, r.to), []).append(r)
            self.edges.setdefault(r.from_, []).append({"type": r.type, "other": r.to, "dir": "out", "quality": r.quality, "via": r.via})
            self.edges.setdefault(r.to, []).append({"type": r.type, "other": r.from_, "dir": "in", "quality": r.quality, "via": r.via})
        self.talk_of: dict[str, str] = {}
        for n in self.nodes.values():
            t = self._talk(n)
            if t:
                self.talk_of[n.id] = t
        self.changes, self.executions, self.step_changes, self.step_executions = self._observations()
        self.call_usage: dict[str, CallUsage] = {n.id: self._read_call(n) for n in self.nodes.values() if n.kind == "llm.call"}
        self.links = links or Links()
        #: llm.call nodes every record of which repeats an earlier session's (issue 18): their usage is counted there
        self.repeated_calls = {n.id for n in self.nodes.values() if n.kind == "llm.call" and self.links.repeated
                               and all((r.seq, r.row) in self.links.repeated for r in (n.refs or [n.ref]) if r is not None)}
        #: issue 18: every record with content drawn by a node or listed in ``not_drawn``
        step_cited = cited_by(self.nodes.values())
        #: talk id -> the record its ``prompt`` shows: a talk's first record no step draws (a child's prompt)
        self.prompts: dict[str, Ref] = {}
        for n in self.nodes.values():
            if n.kind == "talk" and n.ref is not None and (n.ref.seq, n.ref.row) not in step_cited \
                    and carries_text(self.sess.record(n.ref)):
                self.prompts[n.id] = n.ref
        self.coverage = measure_coverage(self.sess.records, self.nodes.values(),
                                         ((seq, row) for seq, row, _, p in sess.listed_parts() if p["k"] == "unknown"),
                                         {(r.seq, r.row): t for t, r in self.prompts.items()}, fold.unresolved)

    # ------------------------------------------------------------------ helpers

    def _time(self, ref: Ref | None) -> int | None:
        return self.sess.time(ref)

    def _read_call(self, n: Node) -> CallUsage:
        """A call's usage from its fragments (every ref, in landed order); its lane from its stream's role."""
        stream = self.nodes.get(f"stream/{n.stream}")
        lane = "main" if stream is None or stream.attrs.get("role", "main") == "main" else "subagent"
        refs = sorted(n.refs or ([n.ref] if n.ref else []), key=_pos)
        return read_call((self.sess.record(r) for r in refs), n.attrs.get("usage") == "observed_replayable", lane)

    def _relation_key(self, r: Relation) -> tuple:
        best = None
        for e in r.evidence:
            t = self._time(e)
            key = (0 if t is not None else 1, t or 0, _pos(e))
            if best is None or key < best:
                best = key
        return (best or (2, 0, (0, 0, 0)), r.id)

    def _talk(self, n: Node) -> str:
        seen = 0
        cur: Node | None = n
        while cur is not None and seen < 64:
            if cur.kind == "talk":
                return cur.id
            cur = self.nodes.get(cur.parent)
            seen += 1
        return ""

    def _withheld(self, rec: dict | None) -> bool:
        return bool(self.hide) and rec is not None and not self.hide.isdisjoint(rec.get("flags", ()))

    def _first_ref(self, n: Node) -> Ref | None:
        return n.ref or (n.refs[0] if n.refs else None)

    def at(self, n: Node) -> int:
        """A node's time: its first record's instant in unix ms (rounded down), 0 when it has none (computed once per node)."""
        ms = self._at.get(n.id)
        if ms is None:
            t = self.sess.time(n.ref or (n.refs[0] if n.refs else None))
            ms = self._at[n.id] = 0 if t is None else t // 1_000_000
        return ms

    # ------------------------------------------------------------------ nodes

    def node(self, n: Node, depth: int = 0) -> dict:
        """One node as the document shows it: envelope, attrs, text and kind-specific keys, children to depth 12, edges."""
        kind = n.kind
        d: dict[str, Any] = {"id": n.id, "kind": kind}
        if n.parent:
            d["parent"] = n.parent
        if n.stream:
            d["stream"] = n.stream
        d["at"] = self.at(n)
        if n.ref is not None:
            d["ref"] = n.ref.as_dict()
        if n.refs:
            d["refs"] = [r.as_dict() for r in n.refs]
        attrs = n.attrs
        if "provider_bodies" in attrs:
            attrs = {k: v for k, v in attrs.items() if k != "provider_bodies"}
        if attrs:
            d["attrs"] = dict(sorted(attrs.items())) if len(attrs) > 1 else dict(attrs)
        if kind == "talk":
            self._talk_keys(n, d)
        ref = n.ref or (n.refs[0] if n.refs else None)
        rec = self.sess.record(ref)
        withheld = rec is not None and self._withheld(rec)
        if rec is not None and kind not in _NO_TEXT:
            self._content(n, ref, rec, withheld, d)
        if kind == "llm.call":
            cu = self.call_usage[n.id]
            if cu.model:
                d["model"] = cu.model
            if cu.usage is not None:
                d["usage"] = dict(cu.usage)
                d["usage_state"] = cu.state
            flags = sorted({f for r in n.refs or ([n.ref] if n.ref else []) for f in (self.sess.record(r) or _NO_RECORD).get("flags", ()) if f in _WITHHOLDABLE})
            if flags:
                d["flags"] = flags
            if not self.hide:
                pb = n.attrs.get("provider_bodies")
                if isinstance(pb, list) and pb:
                    d["provider_bodies"] = pb
        elif rec is not None and kind not in _STRUCTURAL:
            if rec.get("flags"):
                d["flags"] = list(rec["flags"])
            if rec.get("dropped"):
                d["dropped"] = [{"what": x["what"], "bytes": x.get("bytes", 0), "why": x.get("why", "")} for x in rec["dropped"]]
            if kind in _TOOL_KINDS:
                self._tool_keys(n, d)
            elif kind == "turn.duration" and not withheld:
                for p in rec.get("parts", ()):
                    v = p.get("data")
                    if isinstance(v, dict) and isinstance(v.get("durationMs"), int):
                        d["duration_ms"] = v["durationMs"]
                        d["duration_measured_by"] = "runtime"
                        break
        elif kind in _TOOL_KINDS:
            self._tool_keys(n, d)
        kids = self.children.get(n.id)
        if kids and depth < 12:
            shown = [self.node(c, depth + 1) for c in kids if c.kind not in _NOT_CHILDREN]
            if shown:
                d["children"] = shown
        if ref is not None and kind not in _STRUCTURAL and (ref.seq, ref.row) in self.links.repeated:
            d["repeated_from"] = f"conversation/{self.links.earlier}"
        for key, refs in (("copies", self.coverage.copies.get(n.id)), ("conflicts", self.coverage.conflicts.get(n.id))):
            if refs:
                d[key] = [self._copy(r, key == "conflicts") for r in refs]
        edges = self.edges.get(n.id)
        if edges:
            d["edges"] = edges
        return d

    def _copy(self, ref: dict, with_text: bool) -> dict:
        """A later copy of a node's record (issue 18): its ref, and for a conflict its own text."""
        out = dict(ref)
        rec = self.sess.record(Ref(ref["seq"], ref["row"]))
        if with_text and rec is not None and not self._withheld(rec):
            texts = [p["text"] for p in rec.get("parts", ()) if p["k"] in ("text", "reasoning", "result") and p.get("text")]
            if texts:
                out["text"] = clip_text("\n".join(texts))
        return out

    def _content(self, n: Node, ref: Ref, rec: dict, withheld: bool, d: dict) -> None:
        parts = rec.get("parts", ())
        if ref.block is not None:
            parts = [parts[ref.block]] if 0 <= ref.block < len(parts) else []
        if not parts:
            return
        if len(parts) == 1:
            p = parts[0]
            text = p.get("text", "")
            if not text or p["k"] == "unknown":
                data = p.get("data")
                text = _data_text(data) if data is not None else ""
                wide = number_texts(data) if data is not None and not withheld else []
                if wide:
                    d["notes"] = [f"number {w[:40]} does not fit 64 bits or a double: kept as its source text" for w in wide]
            if withheld:
                d["state"] = "omitted"
                d["bytes"] = p.get("bytes", 0)
                return
            if text:
                d["text"] = clip_text(text)
            d["state"] = p.get("state", "available")
            if p.get("bytes"):
                d["bytes"] = p["bytes"]
            return
        texts = [p["text"] for p in parts if p["k"] in ("text", "reasoning", "result") and p.get("text")]
        if withheld:
            d["state"] = "omitted"
            d["bytes"] = sum(p.get("bytes", 0) for p in parts)
            return
        if texts:
            d["text"] = clip_text("\n".join(texts))
        d["state"] = parts[0].get("state", "available")

    def _tool_keys(self, n: Node, d: dict) -> None:
        name = n.attrs.get("name")
        req = self.sess.part(n.refs[0]) if n.refs else (self.sess.part(n.ref) if n.ref else None)
        if not name and req is not None:
            name = req.get("name", "")
        if name:
            d["name"] = name
        failed = req.get("failed") if req is not None else None
        result_set = False
        for r in n.refs[1:]:
            rec = self.sess.record(r)
            if rec is None:
                continue
            parts = rec.get("parts", ())
            if r.block is not None and 0 <= r.block < len(parts):
                p = parts[r.block]
            else:
                p = next((q for q in parts if q["k"] == "result"), None)
            if p is None:
                continue
            if failed is None and p.get("failed") is not None:
                failed = p["failed"]
            if result_set:
                continue
            if self._withheld(rec):
                d["result_state"] = "omitted"
                d["result_bytes"] = p.get("bytes", 0)
                result_set = True
                continue
            text = p.get("text", "")
            if not text:
                data = p.get("data")
                text = _data_text(data) if data is not None else ""
            if text:
                d["result"] = clip_text(text)
            d["result_state"] = p.get("state", "available")
            d["result_bytes"] = p.get("bytes", 0)
            result_set = bool(text)
            self._companion_keys(rec, d)
        if failed is not None:
            d["failed"] = failed
            # keep the documented key order: failed comes right after name
            for k in ("result", "result_state", "result_bytes"):
                if k in d:
                    d[k] = d.pop(k)
        if n.attrs.get("result_join") == "exact_unique" and len(n.refs) >= 2:
            t0, t1 = self._time(n.refs[0]), self._time(n.refs[1])
            if t0 is not None and t1 is not None and t1 >= t0:
                ms = (t1 - t0) // 1_000_000
                if ms:
                    d["request_to_result_ms"] = ms
                d["request_to_result_join"] = "exact_unique"
        tool_id = n.id.split("/", 1)[1] if "/" in n.id else ""
        if self.step_changes.get(tool_id):
            d["changes"] = self.step_changes[tool_id]
        if self.step_executions.get(tool_id):
            d["executions"] = self.step_executions[tool_id]

    def _companion_keys(self, rec: dict, d: dict) -> None:
        """A result that is a preview of a companion file: ``full_output`` links the landed file, or a ``missing`` problem.

        The adapter lists the companion in the result record's ``dropped`` as
        ``what: "full output in <path>"`` (docs/session-data.md, Dropped);
        the companion lands as a ``tool_output`` record whose ``label`` is the
        file name (its latest version wins).
        """
        for x in rec.get("dropped", ()):
            what = x.get("what", "")
            if not what.startswith(COMPANION_WHAT):
                continue
            path = what[len(COMPANION_WHAT):]
            name = path.rsplit("/", 1)[-1]
            found = self._companions().get(name)
            if found is None:
                line = f"missing companion file {path}: the result holds only a preview; the full output did not land"
                if line not in self.b.problems:
                    self.b.problems.append(line)
                d["full_output"] = {"file": path, "state": "missing"}
            else:
                seq, row, nbytes = found
                d["full_output"] = {"file": path, "state": "available", "ref": {"seq": seq, "row": row, "block": 0}, "bytes": nbytes}

    def _companions(self) -> dict[str, tuple[int, int, int]]:
        """File name → ``(seq, row, bytes)`` of the latest landed ``tool_output`` record with that label."""
        cached = getattr(self, "_companion_map", None)
        if cached is None:
            cached = {}
            for seq in sorted(self.sess.headers):
                h = self.sess.headers[seq]
                if h is None or h.kind != "tool_output":
                    continue
                for row, r in enumerate(self.sess.records.get(seq, ()), 1):
                    if r.get("label"):
                        cached[r["label"]] = (seq, row, r.get("bytes", 0))
            self._companion_map = cached
        return cached

    def _steps_under(self, nid: str) -> list[Node]:
        out: list[Node] = []
        stack = list(self.children.get(nid, []))
        while stack:
            c = stack.pop()
            if c.kind in _STEP_KINDS:
                out.append(c)
            stack.extend(self.children.get(c.id, []))
        return out

    def _talk_keys(self, n: Node, d: dict) -> None:
        """Add a talk's label, reply, counts, times, child mark and segment to ``d`` (computed once per talk)."""
        if n.id not in self._talk_cache:
            self._talk_cache[n.id] = {}
            self._compute_talk_keys(n, self._talk_cache[n.id])
        d.update(self._talk_cache[n.id])

    def _compute_talk_keys(self, n: Node, d: dict) -> None:
        rank = self.rank
        steps = sorted(self._steps_under(n.id), key=lambda s: rank[s.id])
        label = self._label(steps)
        if label:
            d["label"] = label
        pref = self.prompts.get(n.id)
        prec = self.sess.record(pref)
        if prec is not None:  # issue 18: what a child was asked, drawn on its talk
            d["prompt"] = "" if self._withheld(prec) else clip_text("\n".join(
                p["text"] for p in prec.get("parts", ()) if p["k"] == "text" and p.get("text")))
        for s in reversed(steps):  # the reply is the last one with text
            if s.kind in ("message.assistant", "agent.output"):
                rec = self.sess.record(self._first_ref(s))
                if rec is None or self._withheld(rec):
                    continue
                reply = self._node_text(s)
                if reply:
                    d["reply"] = reply
                    break
        runs = [c for c in self.children.get(n.id, []) if c.kind == "run"]
        d["runs"] = len(runs)
        if steps:
            d["steps"] = len(steps)
        tools = sum(1 for s in steps if s.kind in _TOOL_KINDS)
        if tools:
            d["tools"] = tools
        times = [t for t in map(self.at, [n, *runs, *steps]) if t]
        if times:
            d["from"] = min(times)
            d["to"] = max(times)
        stream = self.nodes.get(f"stream/{n.stream}")
        if stream is not None and stream.attrs.get("role") in ("child", "auxiliary"):
            d["child"] = True
        seg = next((e["other"] for e in self.edges.get(n.id, []) if e["type"] == "in_segment" and e["dir"] == "out"), None)
        if seg:
            d["segment"] = seg

    def _node_text(self, s: Node) -> str:
        ref = self._first_ref(s)
        rec = self.sess.record(ref)
        if rec is None:
            return ""
        tmp: dict = {}
        self._content(s, ref, rec, False, tmp)
        return tmp.get("text", "")

    def _label(self, steps: list[Node]) -> str:
        for s in steps:
            if s.kind == "message.external":
                rec = self.sess.record(self._first_ref(s))
                if rec is None or self._withheld(rec):
                    return ""
                return self._node_text(s)
        injections = [s for s in steps if s.kind == "context.injection"][:3]
        for s in injections:
            rec = self.sess.record(self._first_ref(s))
            if rec is None or not _WITHHOLDABLE.isdisjoint(rec.get("flags", ())):
                continue
            t = self._node_text(s)
            if t.strip(_WS) and not t.startswith('{"type":"deferred_tools_delta"'):
                return t
        return ""

    # ------------------------------------------------------------------ lists

    def talks(self) -> list[dict]:
        talks = [n for n in self.nodes.values() if n.kind == "talk"]
        talks.sort(key=lambda n: (self.at(n) or (1 << 62), n.id))
        self._talk_dicts = {t.id: self.node(t) for t in talks}
        return list(self._talk_dicts.values())

    def loose(self) -> list[dict]:
        out = []
        for n in self.nodes.values():
            if n.kind in STRUCTURAL and n.kind != "run":
                continue
            if n.id in self.talk_of:
                continue
            parent = self.nodes.get(n.parent)
            if parent is not None and parent.kind not in ("epoch", "stream", "session", "segment", "conversation"):
                continue  # rendered under its parent
            out.append(n)
        out.sort(key=lambda n: self.rank[n.id])
        return [self.node(n) for n in out]

    def streams(self) -> list[dict]:
        out = []
        streams = [n for n in self.nodes.values() if n.kind == "stream"]
        talks_by_stream: dict[str, list[Node]] = {}
        for t in self.nodes.values():
            if t.kind == "talk":
                talks_by_stream.setdefault(t.stream, []).append(t)
        # A stream's records: its transcript's records once each (a record an interrupted pass landed again, at
        # the same ord, counts once, as assembly takes it once), and every version of its sidecar.
        records: dict[str, int] = {}
        ords: dict[str, set] = {}
        for seq, h in self.sess.headers.items():
            if h is None:
                continue
            name = h.stream or "main"
            if h.kind == "transcript":
                ords.setdefault(name, set()).update(r.get("ord") for r in self.sess.records.get(seq, []))
            elif h.kind == "agent_meta":
                records[name] = records.get(name, 0) + len(self.sess.records.get(seq, []))
        for name, seen in ords.items():
            records[name] = records.get(name, 0) + len(seen)
        for s in sorted(streams, key=lambda s: (s.attrs.get("role") != "main", self.at(s) or (1 << 62), s.id)):
            name = s.id.split("/", 1)[1] if "/" in s.id else s.id
            talks = sorted(talks_by_stream.get(name, []), key=lambda t: (self.at(t) or (1 << 62), t.id))
            opened = []
            for r in self.relations_to.get(("starts", s.id), ()):
                src = self.nodes.get(r.from_)
                opened.append({"step": r.from_, "stream": src.stream if src else "", "talk": self.talk_of.get(r.from_, ""), "quality": r.quality})
            parent = s.attrs.get("parent", "")
            if not parent and opened:
                parent = opened[0]["stream"]
            out.append({
                "id": s.id, "name": name, "role": s.attrs.get("role", ""), "label": s.attrs.get("label", ""), "parent": parent,
                "records": records.get(name, 0), "steps": sum(self._talk_steps(t) for t in talks),
                "talk": talks[0].id if talks else "", "named_by": s.attrs.get("named_by", ""), "opened_by": opened,
            })
        return out

    def _talk_steps(self, t: Node) -> int:
        tmp: dict = {}
        self._talk_keys(t, tmp)
        return tmp.get("steps", 0)

    def segments(self) -> list[dict]:
        out = []
        for s in sorted((n for n in self.nodes.values() if n.kind == "segment"), key=lambda n: n.id):
            members = [self.nodes[r.from_] for r in self.relations_to.get(("in_segment", s.id), ()) if r.from_ in self.nodes]
            froms, tos = [], []
            for t in members:
                tmp: dict = {}
                self._talk_keys(t, tmp)
                if "from" in tmp:
                    froms.append(tmp["from"])
                    tos.append(tmp["to"])
            d = {"id": s.id, "state": s.attrs.get("state", ""), "committable": bool(s.attrs.get("committable", False)), "talks": len(members)}
            if froms:
                d["from"] = min(froms)
                d["to"] = max(tos)
            out.append(d)
        return out

    def relation_dict(self, r: Relation) -> dict:
        return {"id": r.id, "type": r.type, "from": r.from_, "to": r.to, "quality": r.quality, "via": r.via, "evidence": [e.as_dict() for e in r.evidence]}

    def _observations(self):
        changes: list[tuple] = []
        executions: list[tuple] = []
        for seq, row, block, p in self.sess.listed_parts():
            if p["k"] != "data":
                continue
            v = p.get("data")
            if not isinstance(v, dict):
                continue
            schema = v.get("schema")
            if schema not in ("changes/1", "execution/1"):
                continue
            t = parse_instant(v.get("time"))
            runtime_first = 0 if v.get("captured_by") == "claude-code" else 1
            key = (0 if t is not None else 1, t or 0, runtime_first, seq, row, block)
            entry = {"step": "", "ref": {"seq": seq, "row": row, "block": block}, **v}
            (changes if schema == "changes/1" else executions).append((key, entry))
        changes.sort(key=lambda x: x[0])
        executions.sort(key=lambda x: x[0])
        step_changes: dict[str, list[str]] = {}
        step_executions: dict[str, list[str]] = {}
        out_c, out_e = [], []
        for lst, out, by_step in ((changes, out_c, step_changes), (executions, out_e, step_executions)):
            for _, e in lst:
                tool = e.get("tool") or ""
                node = self.nodes.get(f"tool/{tool}") if tool else None
                if node is not None:
                    e["step"] = node.id
                    by_step.setdefault(tool, []).append(e.get("id", ""))
                else:
                    e.pop("step")
                out.append(e)
        return out_c, out_e, step_changes, step_executions

    def undescribed(self) -> list[dict]:
        """Every ``unknown`` part of the landed files (seed 000: bytes a dialect could not describe).

        One entry each, in seq/row/block order: ``ref``, ``stream``, ``reason``
        (the part's text), ``bytes``, and ``node`` when a node of the fold cites
        that record. Listed so a reader sees them even where no step is drawn.
        Added in 1.x (a 1.x only adds keys).
        """
        out = []
        for seq, row, block, p in self.sess.listed_parts():
            if p["k"] != "unknown":
                continue
            h = self.sess.headers.get(seq)
            out.append({"ref": {"seq": seq, "row": row, "block": block}, "stream": (h.stream if h else "") or (h.batch if h else ""),
                        "reason": p.get("text", ""), "bytes": p.get("bytes", 0)})
        if out:
            cited: dict[tuple[int, int], str] = {}
            for n in self.nodes.values():
                for r in ([n.ref] if n.ref else []) + list(n.refs):
                    cited.setdefault((r.seq, r.row), n.id)
            for e in out:
                node = cited.get((e["ref"]["seq"], e["ref"]["row"]))
                if node is not None:
                    e["node"] = node
        return out

    def summary(self, head, rounds: int, state: str, problems: list[str], undescribed: int) -> dict:
        """The document's ``summary``; ``undescribed`` is the number of unknown parts (the length of :meth:`undescribed`)."""
        kinds: dict[str, int] = {}
        for n in self.nodes.values():
            kinds[n.kind] = kinds.get(n.kind, 0) + 1
        rtypes: dict[str, int] = {}
        quality: dict[str, int] = {}
        for r in self.fold.relations.values():
            rtypes[r.type] = rtypes.get(r.type, 0) + 1
            quality[r.quality] = quality.get(r.quality, 0) + 1
        bodies = sum(len(recs) for seq, recs in self.sess.records.items() if self.sess.headers.get(seq) is not None and self.sess.headers[seq].kind == "provider_body")
        captured = 0
        if not self.hide:
            for n in self.nodes.values():
                pb = n.attrs.get("provider_bodies") if n.kind == "llm.call" else None
                if isinstance(pb, list) and any(isinstance(x, dict) and x.get("role") == "request" for x in pb):
                    captured += 1
        withheld: dict[str, int] = {}
        if self.hide:
            for name in self.b.hide:  # in the flags' documented order (WITHHOLDABLE), not a set's
                seen: set = set()
                for seq, recs in self.sess.records.items():
                    for row, rec in enumerate(recs, 1):
                        if name in rec.get("flags", ()):
                            seen.add(rec.get("id") or (seq, row))
                withheld[name] = len(seen)
            withheld["provider_bodies"] = bodies
        d = {
            "title": "" if self.hide and title_withheld(self.sess.record_lines(self.hide), head.title, self.hide) else head.title,
            "state": state,
            "problems": list(problems),
            "talks": kinds.get("talk", 0),
            "steps": sum(c for k, c in kinds.items() if k in STEP_KINDS),
            "streams": kinds.get("stream", 0),
            "segments": kinds.get("segment", 0),
            "rounds": rounds,
            "unresolved": sum(1 for u in self.fold.unresolved.values() if u.state == "open"),
            "changes": len(self.changes),
            "provider_bodies": bodies,
            "captured_prompts": captured,
            "from": _header_time(head.session_from_time),
            "to": _header_time(head.session_through_time),
            "kinds": dict(sorted(kinds.items())),
            "relation_types": dict(sorted(rtypes.items())),
            "quality": dict(sorted(quality.items())),
            "withheld": withheld,
            "undescribed": undescribed,
            "cut": self.cut(),
        }
        d.update(usage_totals(cu for nid, cu in self.call_usage.items() if nid not in self.repeated_calls))
        return d

    def cut(self) -> dict:
        """Parts made smaller to land (seed 000, Too large to land): ``{"truncated": N, "too_large": N, "bytes": N}``.

        ``truncated`` parts kept some text, ``too_large`` ones nothing; ``bytes``
        is the original size of all of them. ``{}`` when no part was cut. Each
        keeps the SHA-256 of what was taken out. Added in 1.x (a 1.x only adds keys).
        """
        counts = {"truncated": 0, "too_large": 0}
        size = 0
        for recs in self.sess.records.values():
            for rec in recs:
                for p in rec.get("parts", ()):
                    state = p.get("state")
                    if state in counts:
                        counts[state] += 1
                        size += p.get("bytes", 0) if isinstance(p.get("bytes"), int) else 0
        if not counts["truncated"] and not counts["too_large"]:
            return {}
        return {**counts, "bytes": size}
