"""The session index as loaded: its files, its records' entries and their parts (origin-digest §2.4).

Split from :mod:`asz_core.flow.index` (the files under ``<root>/<session>/index/``, their lock, state and
appending), which re-exports every public name here. An :class:`Index` is built from ``entries.jsonl`` lines
(:meth:`Index.add_file_json`, decoded by msgspec straight into :class:`IndexEntry` and :class:`IndexPart`), or from
the dicts a fresh indexing dumped (:meth:`Index.add_file_line`); nothing here reads or writes a file.
"""

from __future__ import annotations

from operator import attrgetter
from pathlib import Path
from typing import Iterable, Iterator

import msgspec

from ..sessiondata import format_rfc3339
from ..sessiondata.slim import SET_ASIDE_KINDS

__all__ = ["IndexPart", "IndexEntry", "IndexFile", "Index", "record_time_range", "SET_ASIDE_KINDS", "payload_of", "payload_key",
           "same_content"]


class IndexPart(msgspec.Struct, eq=False):
    """One part of an indexed record: ``k`` and its identifiers (origin-digest §3.5).

    ``block`` is the part's position in the record (from 0). ``changes`` is
    ``(identity, additions, deletions)`` for a ``changes/1`` data part, where
    identity is ``captured_by|id``; else None. Decoded by msgspec straight from
    an ``entries.jsonl`` line (:meth:`Index.add_file_json`); compared by identity.
    """

    k: str = ""
    id: str = ""
    of: str = ""
    name: str = ""
    server: str = ""
    server_tool: str = ""
    failed: bool | None = None
    bytes: int = 0
    changes: tuple[str, int, int] | None = msgspec.field(default=None, name="ch")
    # provider_body/1 manifest (issue 10): (role, request, previous_request, call) for the join in rounds.
    provider: tuple[str, str, str, str] | None = msgspec.field(default=None, name="pb")
    state: str = ""
    block: int = msgspec.field(default=0, name=" block")  # set from the part's position, never read from a line

    def __repr__(self) -> str:
        return f"IndexPart({self.block}, {self.k!r}, id={self.id!r}, of={self.of!r})"


class IndexEntry(msgspec.Struct, eq=False):
    """One indexed record: where it landed, what file kind it came from, and its role fields.

    ``seq``/``row`` locate it (row counts from 1 after the header). ``kind`` is
    the file kind of its landed file, ``stream`` the file header's stream
    (empty for run files and provider bodies), ``batch`` the record's batch or,
    when it names none, its file's (``own_batch``: the record's alone). ``ts``
    is the record time in integer ns since the epoch (None when absent or not
    an RFC 3339 time). ``flags`` is a frozenset of flag names; ``usage`` the
    record's usage object (or None). Decoded by msgspec straight from an
    ``entries.jsonl`` line (:meth:`Index.add_file_json`), which then sets the
    fields a record line does not hold (names starting with a space in JSON:
    never read from a line); compared by identity.
    """

    id: str = ""
    parent: str = ""
    call: str = ""
    run: str = ""
    continues: str = ""
    tool: str = ""
    child: str = ""
    own_batch: str = msgspec.field(default="", name="batch")
    label: str = ""
    started_by: str = ""
    from_: str = msgspec.field(default="", name="from")
    time: str = ""
    trigger: str = ""
    model: str = ""
    sha: str = ""
    ts: int | str | None = None
    ord: int = msgspec.field(default=0, name="o")  # issue 10: the source line, for the provider-body join's gap rule
    flags: frozenset[str] = frozenset()
    usage: dict | None = None
    parts: list[IndexPart] = []
    #: The content digests of its parts as landed (:func:`~asz_core.sessiondata.slim.content_digests`): ``pd`` ('' for
    #: a record without id or parts, of a set-aside file or read from a skeleton, whose text is gone), ``pds`` the
    #: same with every UUID taken out ('' when its session id does not occur there): :func:`same_content` compares.
    parts_digest: str = msgspec.field(default="", name="pd")
    parts_digest_unnamed: str = msgspec.field(default="", name="pds")
    #: The record says ``sidechain`` (a sub-agent's line in its parent's file; index schema 7, written last as ``sc``):
    #: what assembly stage 7 draws as an orphan sub-agent group when no call or prompt of its own opened it.
    sidechain: bool = msgspec.field(default=False, name="sc")
    seq: int = msgspec.field(default=0, name=" seq")
    row: int = msgspec.field(default=0, name=" row")
    kind: str = msgspec.field(default="", name=" kind")
    stream: str = msgspec.field(default="", name=" stream")
    batch: str = msgspec.field(default="", name=" batch")
    #: a part carries a changes/1 identity (``IndexPart.changes``): what a round header's change counts read
    changes: bool = msgspec.field(default=False, name=" changes")
    #: The assembly's references to this record and its parts, by block (None: the record), made once
    #: per loaded index however many assemblies read it (asz_core.flow.asm_state.ref_of).
    refs: dict = msgspec.field(default_factory=dict, name=" refs")
    #: The run the record opens or states (asz_core.flow.asm_talks.cycle_key: its own fields only), once made.
    cycle: str | None = msgspec.field(default=None, name=" cycle")
    unflagged: bool | None = msgspec.field(default=None, name=" unflagged")  # asz_core.flow.asm_state.unflagged_input
    steps: bool | None = msgspec.field(default=None, name=" steps")  # asz_core.flow.asm_steps.draws_step, once made
    joins: tuple | None = msgspec.field(default=None, name=" joins")  # asz_core.flow.asm_streams.tool_parts, once made
    #: ``"<adapter>: <why>"`` when its flags and trigger are the ones its adapter reads today, not the ones an earlier
    #: version landed (asz_core.flow.reread); '' when they are as landed.
    reread: str = msgspec.field(default="", name=" reread")
    #: :func:`payload_key`, once made: a record is compared with each session sharing its id, 84 on average for the
    #: 751 Kiro sessions of trial 48c (F3: 1.8 million keys made for 27,389 records, a fifth of the collect's CPU).
    pkey: tuple | None = msgspec.field(default=None, name=" pkey")

    def __repr__(self) -> str:
        return f"IndexEntry({self.seq}/{self.row} {self.kind} {self.stream!r} id={self.id!r})"


def payload_of(e: IndexEntry) -> tuple:
    """What decides whether two records landed under one id are one record: the model call they belong to, its usage
    and their parts as the index keeps them (kind, ids, names, state, failed and size). A copy the runtime wrote again
    gives the same; another message under a reused id (field report 20), or a copy with one result's state changed (a
    ``tool_result`` copied with ``success`` false, trial 40a F1), does not. Used within a session (assembly's stage 1)
    and across sessions (:func:`~asz_core.flow.shared_ids.session_links`: only the same record is repeated)."""
    return e.call, e.usage, [(p.k, p.id, p.of, p.name, p.server, p.server_tool, p.failed, p.bytes, p.changes, p.provider, p.state)
                             for p in e.parts]


def payload_key(e: IndexEntry) -> tuple:
    """What two sessions' records under one id must agree on to be one record (a repeat: :func:`~asz_core.flow.
    shared_ids.session_links`), as a hashable tuple: :func:`payload_of` with its usage as compact JSON with sorted keys
    and its parts' sizes left out (a resumed Claude Code session writes the lines it repeats again, its ``sessionId`` in
    each, and a copy may be written with other escapes: a part's size is the line's, the kind, ids, names, state and
    ``failed`` are the record's)."""
    if e.pkey is None:
        call, usage, parts = payload_of(e)
        e.pkey = (call, (msgspec.json.encode(usage, order="sorted") if usage else usage), tuple((*p[:7], *p[8:]) for p in parts))
    return e.pkey


def same_content(a: IndexEntry, b: IndexEntry) -> bool:
    """Whether two sessions' records under one id hold the same content (text, data, media) as landed, by their
    :attr:`~IndexEntry.parts_digest`: the same digest, or the same once session ids are taken out (``pds``, made only
    for a record naming its own session, else ``pd``): a copy made by writing another session id everywhere (its text
    naming the session too) reads the same, and so does a resumed Claude Code session, whose repeated lines name the
    new session in ``sessionId`` (a line Claude Code lands whole holds it) beside the old one in their text. True when
    either digest is missing (a record read from a skeleton, whose
    text is gone: compared by :func:`payload_key` alone, as an index before schema 6 was). A copy with one answer's or
    one tool result's text edited at the same length (same size, same state) differs here alone (fix41a)."""
    x, y = a.parts_digest, b.parts_digest
    return not x or not y or x == y or (a.parts_digest_unnamed or x) == (b.parts_digest_unnamed or y)


class IndexFile:
    """One indexed landed file: ``seq``, ``path`` relative to the session directory, header
    ``kind``/``stream``/``batch``, whole-file SHA-256 ``digest`` (hex), ``size`` in bytes and
    ``records`` count."""

    __slots__ = ("seq", "path", "kind", "stream", "batch", "digest", "size", "records")

    def __init__(self, seq: int, path: str, kind: str, stream: str, batch: str, digest: str, size: int, records: int):
        self.seq = seq
        self.path = path
        self.kind = kind
        self.stream = stream
        self.batch = batch
        self.digest = digest
        self.size = size
        self.records = records

    def __repr__(self) -> str:
        return f"IndexFile({self.seq}, {self.path!r})"


class Index:
    """A session's index as loaded: ``session`` id, ``indexed_seq``, ``files`` and ``entries``.

    ``files`` are in seq order; ``entries`` are every indexed record in landed
    order (seq, then row), duplicates included — assembly applies the
    first-copy rule (origin-digest §4.4 step 1). ``session_dir`` is where it
    was loaded from (None for an index built in memory).
    """

    def __init__(self, session: str, session_dir: Path | None = None):
        self.session = session
        self.session_dir = session_dir
        self.indexed_seq = 0
        self.files: list[IndexFile] = []
        self.entries: list[IndexEntry] = []

    # ------------------------------------------------------------------ queries

    def entries_through(self, through_seq: int) -> Iterator[IndexEntry]:
        """Entries with ``seq <= through_seq``, in landed order."""
        for e in self.entries:
            if e.seq > through_seq:
                break
            yield e

    def files_in(self, from_seq: int, through_seq: int) -> list[IndexFile]:
        """Indexed files with ``from_seq <= seq <= through_seq``, in seq order."""
        return [f for f in self.files if from_seq <= f.seq <= through_seq]

    def file_digests(self, from_seq: int, through_seq: int) -> list[str]:
        """Lowercase hex SHA-256 of each whole indexed file in the seq window (for ``input_digest``, §4.1)."""
        return [f.digest for f in self.files_in(from_seq, through_seq)]

    def time_range(self, from_seq: int, through_seq: int) -> tuple[str, str] | None:
        """RFC 3339 UTC (earliest, latest) record time of the files in the seq window, or None.

        Counts the records a stream holds (changes, execution and provider-body
        records are evidence beside a stream and are left out, as in assembly).
        """
        lo = hi = None
        for seq, (a, b) in self._seq_times().items():
            if from_seq <= seq <= through_seq:
                lo = a if lo is None or a < lo else lo
                hi = b if hi is None or b > hi else hi
        if lo is None or hi is None:
            return None
        return format_rfc3339(lo), format_rfc3339(hi)

    def of_kind(self, kind: str) -> list[IndexEntry]:
        """The entries of landed files of ``kind``, in landed order (made once per entries list)."""
        got = self.__dict__.get("_kinds")
        if got is None or got[0] is not self.entries or got[1] != len(self.entries):
            by: dict[str, list[IndexEntry]] = {}
            for e in self.entries:
                by.setdefault(e.kind, []).append(e)
            got = self._kinds = (self.entries, len(self.entries), by)
        return got[2].get(kind, [])

    def _seq_times(self) -> dict[int, tuple[int, int]]:
        """seq -> (earliest, latest) ``ts`` of its records a stream holds (those carrying one), made once per
        entries list: parse asks :meth:`time_range` of every candidate window."""
        got = self.__dict__.get("_times")
        if got is not None and got[0] is self.entries and got[1] == len(self.entries):
            return got[2]
        per: dict[int, tuple[int, int]] = {}
        for e in self.entries:
            ts = e.ts
            if ts is None or e.kind in SET_ASIDE_KINDS:
                continue
            have = per.get(e.seq)
            if have is None:
                per[e.seq] = (ts, ts)
            elif ts < have[0] or ts > have[1]:
                per[e.seq] = (min(ts, have[0]), max(ts, have[1]))
        self._times = (self.entries, len(self.entries), per)
        return per

    # ------------------------------------------------------------------ building

    def add_file_json(self, raw: bytes) -> None:
        """Append one ``entries.jsonl`` line (its bytes, without the newline: a landed file and its records) to
        this index. Raises msgspec.ValidationError or msgspec.DecodeError for a line not of that shape."""
        self._add_line(_FILE_LINE.decode(raw), raw)

    def add_file_line(self, line: dict, raw: bytes) -> None:
        """:meth:`add_file_json` of a line still held as the dict it was dumped from (``raw``, its orjson bytes): the
        records are converted from the dict by msgspec instead of decoded again from the bytes (the same entries)."""
        self._add_line(msgspec.convert(line, _FileLine), raw)

    def _add_line(self, line: "_FileLine", raw: bytes) -> None:
        records = line.records
        f = IndexFile(line.seq, line.path, line.kind, line.stream, line.batch, line.digest, line.size, len(records))
        self.files.append(f)
        seq, kind, stream, fb = f.seq, f.kind, f.stream, f.batch
        for row, e in enumerate(records, start=1):
            e.seq = seq
            e.row = row
            e.kind = kind
            e.stream = stream
            e.batch = e.own_batch or fb
        if b'"ts":"' in raw:  # an instant outside the signed 64-bit ns range, as its decimal text
            for e in records:
                if type(e.ts) is not int:
                    e.ts = _wide_ts(e.ts)
        if b'},{"k"' in raw:  # a record of several parts: each knows its position
            for e in records:
                parts = e.parts
                for i in range(1, len(parts)):
                    parts[i].block = i
        if b'"ch":' in raw:
            for e in records:
                e.changes = any(p.changes is not None for p in e.parts)
        self.entries.extend(records)
        if f.seq > self.indexed_seq:
            self.indexed_seq = f.seq


class _FileLine(msgspec.Struct):
    """An ``entries.jsonl`` line as :meth:`Index.add_file_json` reads it (``head`` and ``rows`` are not read)."""

    seq: int
    path: str
    kind: str
    stream: str = ""
    batch: str = ""
    digest: str = ""
    size: int = 0
    records: list[IndexEntry] = []


_FILE_LINE = msgspec.json.Decoder(_FileLine)


_TS = attrgetter("ts")


def record_time_range(entries: Iterable[IndexEntry]) -> tuple[str, str] | None:
    """RFC 3339 UTC (earliest, latest) time among ``entries`` that carry one; None when none does."""
    times = [ts for ts in map(_TS, entries) if ts is not None]
    if not times:
        return None
    return format_rfc3339(min(times)), format_rfc3339(max(times))


def _wide_ts(ts: object) -> int | None:
    """An index ``ts`` written as decimal text (an instant outside the signed 64-bit nanosecond range), or None."""
    if isinstance(ts, str):
        try:
            return int(ts)
        except ValueError:
            return None
    return None
