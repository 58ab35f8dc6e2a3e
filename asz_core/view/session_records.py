"""The landed files of one session as the view reads them: records by (seq, row), headers, file stats (seed 004).

Also re-exports the record-line helpers the title rule of seed 004 (Withholding) needs
(:mod:`asz_core.view.title_lines`): :func:`title_unread`, :func:`title_withheld`, :func:`title_words`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import orjson

from ..flow.model import Ref
from ..sessiondata.numberprobe import bytescan
from ..sessiondata.nolink import read_nofollow
from ..sessiondata.times import parse_instant
from ..storage.layout import session_listing
from ..sessiondata.model import cut_data_bytes
from .kinds import CONTENT_KINDS, text_kept
from .landed_bytes import FullRead, hold_back, read_files, read_full, read_sealed
from .title_lines import title_unread, title_withheld, title_words

__all__ = ["LandedSession", "read_sealed", "scan_parts_py", "hold_back", "title_unread", "title_withheld", "title_words", "header_time", "ms_of"]


def ms_of(ns: int | None) -> int | None:
    """Nanoseconds to unix ms (rounded down); None stays None."""
    return None if ns is None else ns // 1_000_000


def header_time(value: str) -> int | None:
    """A round header's time: null when absent, 0 when not a time (seed 004)."""
    if not value:
        return None
    ns = parse_instant(value)
    return 0 if ns is None else ns // 1_000_000


class LandedSession:
    """The landed files of one session through a seq: records by (seq, row), headers, file stats.

    A record is its type-checked JSON object as :class:`SDReader` yields it
    with ``decode="dict"`` (keys as written, absent means the model's default:
    ``""``, ``0``, ``[]``, state ``available``); the view reads a few fields of
    each and never needs the model objects. ``lines_kept`` False (a list row, whose build serves no heading): the
    record lines of a bound file (:attr:`bound_lines`) are kept only in a session holding an execution file.
    """

    def __init__(self, root: Path, session: str, through_seq: int, rounds: Sequence[Any] = (), lines_kept: bool = True):
        self.root = root
        self.session = session
        self.dir = root / session
        self.files: dict[int, dict] = {}
        self.records: dict[int, list[dict]] = {}
        self.times: dict[int, list[int | None]] = {}
        self.headers: dict[int, Any] = {}
        #: seq -> each record's ``id``, ``parent`` and ``ord`` (None where it has none), in row order: gathered as the
        #: records are read, while each is fresh in the cache (dangling parents and a stream's records read them).
        self.ids: dict[int, list] = {}
        self.parents: dict[int, list] = {}
        self.ords: dict[int, list] = {}
        self.problems: list[str] = []
        #: seq -> when retention removed the landed file a skeleton (``.sk``) stands for: its header's ``removed.at``
        #: (ISO 8601 UTC; '' when it does not read). Only skeletons are keys (seed 000, Skeletons).
        self.removed_at: dict[int, str] = {}
        #: seq -> why the size of the landed file a skeleton stands for is not known (the skeleton cannot be read, or
        #: its header gives no ``removed.size``): ``cannot be read: Permission denied``. Its ``files`` row's ``bytes``
        #: is then null, and ``summary.removed`` says so (``size_unknown``), never 0 bytes (review A 26).
        self.size_unknown: dict[int, str] = {}
        #: seq -> why a landed file does not verify (its closing line does not bind its bytes, or a line does not
        #: read). Its records are read with every part held back (:func:`hold_back`): none of their text is served.
        self.unverified: dict[int, str] = {}
        #: seq -> the problem line of each landed file that could not be read at all (``landed file S/…/x.sd cannot be
        #: read: Permission denied``): a withheld record there is not seen, so no title is shown while anything is
        #: withheld (:func:`~asz_core.view.title_lines.title_unread`).
        self.unreadable: dict[int, str] = {}
        #: False when no landed record can hold a number kept as its text (``NumberText``): every file's bytes were
        #: probed whole and none holds one (:func:`~asz_core.sessiondata.jsonbytes.may_hold_wide_number`).
        self.wide_numbers = False
        self._listed_parts: list[tuple[int, int, int, dict]] | None = None
        self._media_parts: list[tuple[int, int, int, dict]] | None = None
        self._content: set[tuple[int, int]] | None = None
        self._cut: dict | None = None
        #: seq -> (path, its stat key when read, its record lines) of each landed file whose bytes a round's input
        #: digest and its closing line bind (read here without the reader's check, :func:`_bound_records`): what the page's
        #: headings ask of its records, served from these bytes while the file is unchanged (:meth:`LandedFiles.record`).
        self.bound_lines: dict[int, tuple[Path, tuple, list[bytes]]] = {}
        #: The one listing of the session's folders (None when it is no folder): its cursors too, for the torn tails.
        self.listing = session_listing(self.dir, skeletons=True) if self.dir.is_dir() else None
        found = [(ln.seq, path) for ln, path in (self.listing.files if self.listing is not None else [])
                 if ln.seq <= through_seq]
        # a list row keeps lines only where an execution record may ask for its call's line (issue 22, session 34)
        lines_kept = lines_kept or any(ln.kind == "execution" for ln, _ in (self.listing.files if self.listing else ()))
        # Each file read once, in seq order, its bytes and lines let go of before the next is read (issue 22, session
        # 37): a file a round binds decoded without the reader's check, any other read the full way (:func:`read_files`)
        for seq, path, got in read_files(found, rounds, lines_kept):
            if got is None:  # a sealed file no round binds (changed since parse): read again, the full way
                self._load(seq, path)
            elif isinstance(got, OSError):
                self._unreadable(seq, path, got)
            elif isinstance(got, FullRead):
                self._keep_full(seq, path, got)
            else:  # as parse read it: a sealed file's lines are its header, its records and its closing line
                self.wide_numbers = self.wide_numbers or got.exact
                self.bound_lines.update({seq: (path, got.key, got.lines)} if got.lines is not None else ())
                self._entry(seq, path, got.size, len(got.decoded[0]) + 2, got.whole, got.header, *got.decoded)

    def _unreadable(self, seq: int, path: Path, exc: OSError) -> None:
        """Keep a landed file that cannot be read (permissions, I/O) as one with no record, no digest and a ``problem``
        (trial 26a, F1): the round's input digest then fails, and every reader says it rather than crashing."""
        self.unverified[seq] = why = f"cannot be read: {exc.strerror or exc}"
        self.unreadable[seq] = said = f"landed file {path.relative_to(self.root).as_posix()} {why}"
        self.problems.append(said)
        self._entry(seq, path, 0, 0, "", None, [], [], [], [], [])

    def _load(self, seq: int, path: Path) -> None:
        """Read the landed file ``path`` (of ``seq``) the full way, with the reader's checks (:func:`read_full`), and
        keep it; one that cannot be read now is kept as :meth:`_unreadable`."""
        try:
            data = read_nofollow(path)
        except OSError as exc:
            self._unreadable(seq, path, exc)
            return
        self._keep_full(seq, path, read_full(path, data))

    def _keep_full(self, seq: int, path: Path, got: FullRead) -> None:
        """Keep a landed file :func:`read_full` read: its records (held back when it does not read), its problem line."""
        if got.problem is not None:
            self.problems.append(f"landed file {path.relative_to(self.root).as_posix()} does not read: {got.problem}")
            self.unverified[seq] = got.problem
        self.wide_numbers = self.wide_numbers or got.exact
        self._entry(seq, path, got.size, got.lines, got.digest, got.header, got.recs,
                    [parse_instant(r.get("time")) for r in got.recs], [r.get("id") for r in got.recs],
                    [r.get("parent") for r in got.recs], [r.get("ord") for r in got.recs])

    def _entry(self, seq: int, path: Path, size: int, lines: int, digest: str, h: Any, recs: list[dict],
               all_times: list[int | None], ids: list, parents: list, ords: list) -> None:
        """Keep a landed file's records, their times (instants in ns), ids, parents and ords, its header and its
        ``files`` row: ``size`` bytes and ``lines`` lines as read (a skeleton's are those of the file it stands for)."""
        if path.suffix == ".sk":
            removed_size, self.removed_at[seq], why = _removed_of(path)
            if removed_size is None:
                self.size_unknown[seq] = why
            size, lines = removed_size, lines if seq in self.unreadable else len(recs) + 2  # none read: no line counted
        self.times[seq] = all_times
        self.ids[seq], self.parents[seq], self.ords[seq] = ids, parents, ords
        times = [t for t in all_times if t is not None]
        self.records[seq] = recs
        self.headers[seq] = h
        entry = self.files[seq] = {
            "file": path.relative_to(self.root).as_posix(),
            "format": "sd",
            "kind": h.kind if h else "",
            "seq": seq,
            "round": None,
            "stream": (h.stream or None) if h else None,
            "run": (h.batch or None) if h else None,
            "lines": lines,
            "bytes": size,
            "digest": digest,
            "from_time": ms_of(min(times)) if times else None,
            "through_time": ms_of(max(times)) if times else None,
        }
        if seq in self.unverified:  # a key only a file that fails its check carries: a verified document keeps its bytes
            entry["problem"] = self.unverified[seq]

    def pin_damage(self, from_seq: int, through_seq: int) -> list[str]:
        """Hold back the records of each landed file of seqs ``from_seq``..``through_seq`` (a round whose input digest
        no longer matches) that differs from what the session index kept of it when it landed, although its closing
        line binds its bytes (the file was written again whole). Returns one problem line per file held back.

        The round's digest decides that something changed; the index only points at which file
        (:func:`~asz_core.verify.damage.first_damaged_line`). A file every record row of which matches the index is
        left as it is. When the index points at none although every seq of the window is there (it was built again
        from the files as they are now, or is gone), which file changed cannot be told: every file of the window is
        held back, as ``asz search``, ``asz show`` and the record API hold them back (:mod:`asz_core.flow.recorded`)."""
        from ..verify.damage import first_damaged_line

        out = []
        for seq in range(from_seq, through_seq + 1):
            entry = self.files.get(seq)
            if entry is None or seq in self.unverified:
                continue
            d = first_damaged_line(self.root / entry["file"], self.dir, seq)
            if d is None or (d.row == 0 and d.line != 1):  # not indexed, or every line matches (only the closing line)
                continue
            self.unverified[seq] = entry["problem"] = f"{d.detail} (line {d.line})"
            self.records[seq] = [hold_back(r) for r in self.records[seq]]
            out.append(f"landed file {entry['file']} differs from the file indexed when it landed: {d.detail} (line {d.line})")
        window = range(from_seq, through_seq + 1)
        if not out and all(s in self.files for s in window) and not any(s in self.unverified for s in window):
            why = (f"the round's input digest over seq {from_seq}–{through_seq} does not match the landed files, and the "
                   f"session index cannot tell which of them changed")
            for seq in window:
                self.unverified[seq] = self.files[seq]["problem"] = why
                self.records[seq] = [hold_back(r) for r in self.records[seq]]
            out.append(f"landed files seq {from_seq}–{through_seq}: {why}; the text of every one of them is held back")
        if out:
            self._listed_parts = self._media_parts = self._content = self._cut = None
        return out

    def record_lines(self, hide: Iterable[str]) -> Iterator[bytes]:
        """Each record carrying one of the ``hide`` flags, as one JSON line (for :func:`title_withheld`)."""
        names = set(hide)
        for recs in self.records.values():
            for rec in recs:
                flags = rec.get("flags")
                if isinstance(flags, list) and not names.isdisjoint(f for f in flags if isinstance(f, str)):
                    yield orjson.dumps(rec, default=str)

    def _transcripts(self) -> list[int]:
        """Seqs of the transcript and metadata (``agent_meta``) files: the main stream's first, transcripts before
        metadata, each group in seq order."""
        kinds = {"transcript": 0, "agent_meta": 1}
        seqs = [seq for seq in sorted(self.headers) if self.headers[seq] is not None and self.headers[seq].kind in kinds]
        return sorted(seqs, key=lambda seq: (self.headers[seq].stream not in ("", "main"), kinds[self.headers[seq].kind], seq))

    def first_field(self, name: str) -> str:
        """The first non-empty string record field ``name`` in those files that verify (main stream first, file
        order), or '': a file that does not verify is no evidence, so a damaged only file gives what a deleted one
        gives (nothing), as for the title."""
        for seq in self._transcripts():
            if seq in self.unverified:
                continue
            for rec in self.records.get(seq, ()):
                v = rec.get(name)
                if isinstance(v, str) and v:
                    return v
        return ""

    def dialect(self) -> str:
        """The dialect of the first of those files, main stream first (``claude-code/1``); '' when none landed."""
        seqs = self._transcripts()
        return self.headers[seqs[0]].dialect if seqs else ""

    def runtime_name(self) -> str:
        """The dialect name (before ``/``) of the first of those files (main stream first) that verifies, or that does
        not verify as a whole but whose header line is the one the session index kept when it landed
        (:func:`~asz_core.verify.damage.header_as_indexed`): the runtime that wrote it is what landed, so a conversation
        held back for a changed record still names it (``asz ls``'s RUNTIME, the page's Runtime); '' when none."""
        from ..verify.damage import header_as_indexed

        for seq in self._transcripts():
            if seq not in self.unverified or header_as_indexed(self.root / self.files[seq]["file"], self.dir, seq):
                return self.headers[seq].dialect.split("/", 1)[0]
        return ""

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
            self._scan_parts()
        return self._listed_parts  # type: ignore[return-value]

    def media_parts(self) -> list[tuple[int, int, int, dict]]:
        """``(seq, row, block, part)`` of every ``media`` part, in seq/row/block order (the same single scan)."""
        if self._media_parts is None:
            self._scan_parts()
        return self._media_parts  # type: ignore[return-value]

    def content(self) -> set[tuple[int, int]]:
        """(seq, row) of every record carrying content (a part of :data:`~asz_core.view.kinds.CONTENT_KINDS`)."""
        if self._content is None:
            self._scan_parts()
        return self._content  # type: ignore[return-value]

    def _scan_parts(self) -> None:
        """One pass over every part of every record: listed (data, unknown) and media parts, content records.

        In one compiled loop (``bytescan.scan_parts``) where it was built and every record and part is of the usual
        shape with no part cut to land; the Python below otherwise (the same lists and set: tests/view/test_view_bound_files.py)."""
        if bytescan is not None:
            got = bytescan.scan_parts([(seq, self.records[seq]) for seq in sorted(self.records)], CONTENT_KINDS)
            if got is not None:
                self._listed_parts, self._media_parts, self._content = got
                self._cut = {}
                return
        self._listed_parts, self._media_parts, self._content, self._cut = scan_parts_py(self.records)

    def cut(self) -> dict:
        """Parts made smaller to land (seed 000, Too large to land): ``{"truncated": N, "too_large": N, "bytes": N}``, ``{}`` when none.

        ``truncated`` parts kept some text, ``too_large`` ones nothing; ``bytes`` what was not kept of them all
        (:func:`_not_kept`: each part's own size as written, for a too-large result its text's, not the structured
        copy taken out before it; found in the same single scan of the parts).
        """
        if self._cut is None:
            self._scan_parts()
        return dict(self._cut)  # type: ignore[arg-type]

    def record(self, ref: Ref | None) -> dict | None:
        """The record ``ref`` names, or None."""
        if ref is None:
            return None
        recs = self.records.get(ref.seq)
        if recs is None or not (1 <= ref.row <= len(recs)):
            return None
        return recs[ref.row - 1]

    def record_and_time(self, ref: Ref) -> tuple[dict | None, int | None]:
        """``(record, instant in ns)`` of the record ``ref`` names; ``(None, None)`` when there is none."""
        recs = self.records.get(ref.seq)
        if recs is None or not (1 <= ref.row <= len(recs)):
            return None, None
        return recs[ref.row - 1], self.times[ref.seq][ref.row - 1]

    def part(self, ref: Ref) -> dict | None:
        """The part ``ref`` names (its block), or None."""
        rec = self.record(ref)
        if rec is None or ref.block is None:
            return None
        parts = rec.get("parts", ())
        return parts[ref.block] if 0 <= ref.block < len(parts) else None


def _removed_of(path: Path) -> tuple[int | None, str, str]:
    """``(size, at, why)`` of the landed file a skeleton stands for: its header's ``removed.size`` (None when not known)
    and ``removed.at`` ('' when not given), and why the size is not known ('' when it is): ``cannot be read:
    Permission denied`` (the words of the file's problem line), ``its header does not read``, ``its header gives no
    removed.size``."""
    import gzip

    try:
        with gzip.open(path, "rb") as f:
            head = orjson.loads(f.readline())
    except OSError as exc:
        if not isinstance(exc, gzip.BadGzipFile):
            return None, "", f"cannot be read: {exc.strerror or exc}"
        return None, "", "its header does not read"
    except (EOFError, ValueError):
        return None, "", "its header does not read"
    removed = head.get("removed") if isinstance(head, dict) else None
    if not isinstance(removed, dict):
        return None, "", "its header gives no removed.size"
    size, at = removed.get("size"), removed.get("at")
    at = at if isinstance(at, str) else ""
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return None, at, "its header gives no removed.size"
    return size, at, ""


def scan_parts_py(records: dict[int, list[dict]]) -> tuple[list, list, set, dict]:
    """``(listed, media, content, cut)`` of ``records`` (seq -> landed records in row order), as
    :meth:`LandedSession._scan_parts` keeps them: ``(seq, row, block, part)`` of every data and unknown part and of
    every media part, the (seq, row) of every record carrying content, and the parts cut to land (``{}`` when none)."""
    listed: list[tuple[int, int, int, dict]] = []
    media: list[tuple[int, int, int, dict]] = []
    content: set[tuple[int, int]] = set()
    cut = {"truncated": 0, "too_large": 0}
    size = 0
    for seq in sorted(records):
        for row, rec in enumerate(records[seq], 1):
            parts = rec.get("parts")
            if not parts:
                continue
            for block, p in enumerate(parts):
                k = p["k"]
                if k in CONTENT_KINDS:
                    content.add((seq, row))
                    if k == "media":
                        media.append((seq, row, block, p))
                elif k == "data" or k == "unknown":
                    listed.append((seq, row, block, p))
                state = p.get("state")
                if state in cut:  # one lookup for the usual available part
                    cut[state] += 1
                    size += _not_kept(rec, block, p, cut)
    return listed, media, content, ({} if not cut["truncated"] and not cut["too_large"] else {**cut, "bytes": size})


def _not_kept(rec: dict, block: int, p: dict, cut: dict) -> int:
    """The bytes part ``p`` (block ``block`` of ``rec``, made smaller to land) did not keep: the original's ``bytes``
    (a too-large result's text size: the runtime's structured copy taken out before it, which the record's
    ``dropped`` sizes, is not counted here, its step's ``result_taken_bytes`` says it; fix48b), or, for a part that kept its text whole (:func:`~asz_core.view.kinds.text_kept`), the size of the runtime's
    structured copy taken out, counted in ``cut["data_taken"]`` (``cut["data_unsized"]`` too when its record does not
    say the size: a root collected before asz said it; trial 40c F1)."""
    if text_kept(p):
        cut["data_taken"] = cut.get("data_taken", 0) + 1
        size = cut_data_bytes(rec.get("dropped"), block)
        if size is None:
            cut["data_unsized"] = cut.get("data_unsized", 0) + 1
        return size or 0
    return p.get("bytes", 0) if isinstance(p.get("bytes"), int) else 0
