"""A landed file's bytes, read once for the view (:class:`~asz_core.view.session_records.LandedSession`): sealed and
hashed (:func:`read_sealed`), decoded as a file a round binds (:func:`read_one`) or read the full way with the reader's
checks (:func:`read_full`); a record of a file that does not verify held back (:func:`hold_back`). Seed 000 (Closing
line), seed 004; issue 22 (docs/performance.md, Sessions 14, 24, 34 and 37).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import orjson

from ..sessiondata import SDReader
from ..sessiondata.codec import MAX_DEPTH, FieldError, check_record_dict, decode_closing, decode_header, parse_line, record_line_clear
from ..sessiondata.jsonbytes import nesting_depth
from ..sessiondata.nolink import open_nofollow, read_nofollow
from ..sessiondata.numberprobe import bytescan, scan_file
from ..sessiondata.reader import SDError
from ..sessiondata.times import parse_instant
from ..storage.filekey import stat_key
from ..storage.handed import handed

__all__ = ["FullRead", "BoundRead", "read_files", "read_one", "read_full", "read_sealed", "hold_back"]


#: A line shorter than this cannot nest deeper than ``MAX_DEPTH`` (it needs as many openers and closers).
_DEEP = 2 * MAX_DEPTH
def _shallow(data: bytes) -> bool:
    """True when no line of ``data`` holds more than ``MAX_DEPTH`` openers, so none nests deeper: one count over the
    whole file (:func:`~asz_core.sessiondata.numberprobe.scan_file`) instead of counting both openers on every line."""
    return scan_file(data)[1] <= MAX_DEPTH


#: A landed time's text -> its instant (:func:`~asz_core.sessiondata.times.parse_instant`, a pure function of the text),
#: kept by the compiled decode loop from build to build of the process (a document built again, as the server does,
#: parses none of its times again: 16,422 in the bench session, 132 M instructions), emptied when it holds more than
#: :data:`_INSTANTS_KEPT` (at most some 10 MB).
_INSTANTS: dict[str, int | None] = {}
_INSTANTS_KEPT = 1 << 16


def _decode_bound(lines: Sequence[bytes], exact: bool, shallow: bool = False, nulls: bool = True) -> tuple[list, ...] | None:
    """``(records, their instants, ids, parents, ords)`` of a bound landed file's record ``lines``
    (:func:`_bound_records`), or None for a line the full reader must read. Raises FieldError as :func:`parse_line`.
    ``shallow``: no line holds more than ``MAX_DEPTH`` openers (:func:`_shallow`), so no depth is checked; ``nulls``:
    False when the whole file holds no ``null`` (one search of the file, not one a line), so no line is searched.

    Written for speed (every record passes here): a line orjson reads is decoded by it directly, with
    :func:`parse_line`'s object and depth checks inline; any other line goes through :func:`parse_line` (lone
    surrogate escapes, the exact decoder, a refusal). Each record's instant is parsed, and its id, parent and ord
    gathered, in the same loop, while the record is fresh in the cache. Where the compiled
    :mod:`asz_core.sessiondata.bytescan` was built, the usual lines of a file without wide numbers are read by its
    ``decode_lines`` (the same steps in C: a line it cannot take whole is left to this loop, one at a time, and so is,
    in a file that is not ``shallow``, each line of more than ``MAX_DEPTH`` openers, whose nesting this loop
    measures), else all by this loop; tests/view/test_view_bound_files.py compares the two."""
    recs: list[dict] = []
    times: list[int | None] = []
    ids: list = []
    parents: list = []
    ords: list = []
    append, at, ida, pa, oa = recs.append, times.append, ids.append, parents.append, ords.append
    loads, bad = orjson.loads, orjson.JSONDecodeError
    fast = bytescan is not None and not exact and type(lines) is list
    guard = None if shallow else MAX_DEPTH  # the compiled loop leaves a line of more openers to this one
    i, n, cache = 0, len(lines), _INSTANTS  # type: ignore[arg-type]
    if len(cache) > _INSTANTS_KEPT:
        cache.clear()
    while i < n:
        if fast:  # the usual lines in one compiled loop; it stops at the first line it leaves to the loop below
            i = bytescan.decode_lines(lines, i, loads, bad, record_line_clear if nulls else None, parse_instant, cache,
                                      recs, times, ids, parents, ords, guard)
            if i == n:
                break
        body = lines[i]  # type: ignore[index]
        i += 1
        if exact:
            d = parse_line(body, exact=True)
        else:
            try:
                d = loads(body)
            except bad:
                d = parse_line(body)
            if type(d) is not dict:
                return None
            # its decoded nesting, not its bytes' openers counted again: a line the compiled loop leaves here for its
            # openers was counted there, and a value holds no more containers than its line has openers (so the walk
            # of a line of at most MAX_DEPTH openers is short; session 23: 20 M instructions of 8463c716's first open)
            if not shallow and len(body) > _DEEP and nesting_depth(d) > MAX_DEPTH:
                return None
        if nulls and b"null" in body and not record_line_clear(body):  # as the reader: its full check removes a null field
            check_record_dict(d)
        dropped = d.get("dropped")
        if dropped and not all("what" in x for x in dropped):
            return None
        append(d)
        at(parse_instant(d.get("time")))
        ida(d.get("id"))
        pa(d.get("parent"))
        oa(d.get("ord"))
    return recs, times, ids, parents, ords


def _bound_records(data: bytes, sealed: tuple) -> tuple[tuple[list, ...] | None, bool]:
    """``(got, exact)`` of a landed file whose bytes a round's input digest binds and whose closing line binds them
    (:func:`read_sealed`): ``got`` is ``(records, their instants, ids, parents, ords)``, or None to read it the full
    way (:meth:`LandedSession._load`); ``exact`` is True when the whole-file probe found a number only the exact decoder
    keeps.

    Parse read these bytes whole and checked every record with the reader's field types before any round bound
    them (:mod:`asz_core.flow.index_read`: a file it refuses is never indexed, so no round binds it), so a line is
    only decoded here (:func:`_decode_bound`), with the exact decoder where the whole-file probe asks for it. What
    parse's check lets through and the reader's changes is done as the reader does it: a line holding ``null``
    that :func:`~asz_core.sessiondata.codec.record_line_clear` does not clear gets the reader's
    :func:`~asz_core.sessiondata.codec.check_record_dict` (it removes a listed field that is null; a refusal sends
    the file the reader's way). A ``dropped`` entry without ``what`` (refused by the model only) still sends the
    file the reader's way. (Until session 14 any line holding the bytes ``null``, in a text too, did: 91 of the 187
    files of a 50 MB real-shaped root were read twice.)
    A file changed since (another digest) is not bound and is read the full way: its damage is said as before."""
    # A line that is a bare number is never a record (both ways below refuse it), so only the wide-number probe
    # decides the decoder (:func:`~asz_core.sessiondata.jsonbytes.exact_as_plain` without its bare-number search).
    exact, most_openers, nulls = scan_file(data)  # one pass over the bytes (compiled where it was built)
    try:
        return _decode_bound(sealed[4], exact, most_openers <= MAX_DEPTH, nulls), exact
    except FieldError:
        return None, exact


class BoundRead(NamedTuple):
    """A sealed landed file decoded as a file a round binds (:func:`_bound_records`): its whole-file digest, its
    :func:`~asz_core.storage.filekey.stat_key` as read, its header, ``(records, instants, ids, parents, ords)``, whether
    a number only the exact decoder keeps is in it, its size, and its record lines (None when they are not kept)."""
    whole: str
    key: tuple
    header: Any
    decoded: tuple
    exact: bool
    size: int
    lines: list | None


def read_files(found: Sequence[tuple[int, Path]], rounds: Sequence[Any], lines_kept: bool
               ) -> list[tuple[int, Path, "BoundRead | FullRead | OSError | None"]]:
    """``(seq, path, got)`` of each landed file of ``found`` (seq, path; in file order), each read once and its bytes
    and lines let go of before the next is read (issue 22, session 37: until then every file's bytes and lines were held
    at once, read before any was decoded, since which files a round's input digest binds is known only once every
    digest is). ``got`` is the :class:`OSError` that stopped the read; a :class:`BoundRead` of a sealed file a round of
    ``rounds`` (in chain order) binds (:func:`_bound_seqs`), decoded while its bytes were in hand; None for a sealed
    file some round's window names but none binds (a file changed since parse: read it again the full way); else its
    :class:`FullRead`. ``lines_kept``: a bound file's record lines are kept (:attr:`BoundRead.lines`)."""
    seqs = {seq for seq, _ in found}
    windowed = set().union(*(_within(range(r.header.from_seq, r.header.through_seq + 1), seqs) for r in rounds))
    done: list[tuple[int, Path, Any]] = []
    digests: dict[int, str] = {}
    for seq, path in found:
        got = read_one(path, seq in windowed, lines_kept)
        if isinstance(got, (FullRead, BoundRead)) and got.whole is not None:
            digests[seq] = got.whole
        done.append((seq, path, got))
    bound = _bound_seqs(rounds, digests) if rounds else set()
    return [(seq, path, None if isinstance(got, BoundRead) and not (seq in bound and got.whole == digests[seq]) else got)
            for seq, path, got in done]


class FullRead(NamedTuple):
    """A landed file read the full way (:func:`read_full`): its size and line count, whole-file digest, header
    (None when it does not read), records (held back when a line does not read), whether a number only the exact
    decoder keeps is in it, and why it does not read (``refused … (line N)``; None when it reads)."""
    size: int
    lines: int
    digest: str
    header: Any
    recs: list
    exact: bool
    problem: str | None
    #: a plain file's whole-file digest as :func:`read_sealed` hashed it (what a round's input digest binds); None for
    #: a skeleton
    whole: str | None = None


def read_one(path: Path, windowed: bool, lines_kept: bool) -> BoundRead | FullRead | OSError:
    """One landed file of :class:`~asz_core.view.session_records.LandedSession`, read once: the :class:`OSError` that
    stopped it; a sealed plain file a round's window names (``windowed``) decoded as a bound file
    (:func:`_bound_records`) as a :class:`BoundRead` (its record lines kept with ``lines_kept``); any other file read
    the full way (:func:`read_full`). Its bytes are let go of as this returns."""
    got = _read_or_why(path)
    if isinstance(got, OSError):
        return got
    if isinstance(got, bytes):  # a skeleton
        return read_full(path, got)
    data, whole, sealed, key = got
    if sealed is not None and windowed:
        decoded, exact = _bound_records(data, sealed)
        if decoded is not None:
            return BoundRead(whole, key, sealed[0], decoded, exact, len(data), sealed[4] if lines_kept else None)
    return read_full(path, data)._replace(whole=whole)


def read_full(path: Path, data: bytes) -> FullRead:
    """``data``, the bytes of the landed file ``path``, read with the reader's checks (:class:`SDReader`): what
    :meth:`LandedSession._keep_full` keeps. A skeleton's (``.sk``) digest is that of the landed file it stands for."""
    reader = SDReader(path, decode="dict", data=data)
    recs: list[dict] = []
    problem = None
    try:
        for _, rec in reader:
            recs.append(rec)
    except SDError as exc:
        problem = f"{exc.message} (line {exc.line})"
        recs = [hold_back(r) for r in recs]
    # a whole read hashed every byte of the file already
    if path.suffix == ".sk":  # a skeleton stands for the landed file its header's removed.digest names (issue 21)
        from ..flow.round import landed_file_digest

        digest = landed_file_digest(path)
    else:
        digest = reader.digest if reader.digest else hashlib.sha256(data).hexdigest()
    return FullRead(len(data), data.count(b"\n"), digest, reader.header, recs, reader.exact, problem)


def _read_or_why(path: Path) -> tuple[bytes, str, tuple | None, tuple] | bytes | OSError:
    """:func:`read_sealed` of a plain landed file; a skeleton's (``.sk``) bytes as stored (gzip), which the full way
    reads (:meth:`LandedSession._load`); or the :class:`OSError` that stopped either (it cannot be opened or read:
    a skeleton of mode 000 is said as a plain file is, not a traceback)."""
    try:
        return read_sealed(path) if path.suffix != ".sk" else read_nofollow(path)
    except OSError as exc:
        return exc


def read_sealed(path: Path) -> tuple[bytes, str, tuple | None, tuple]:
    """``(bytes, whole-file SHA-256 hex, sealed, stat key)`` of a plain landed file, hashed in one pass. ``sealed`` is
    ``(header, end of the header line, start of the closing line, record count, record lines)`` when the header
    reads and the closing line's count and digest bind the bytes before it (seed 000, Closing line), else None.
    The lines are split once here: their number is the count the closing line is checked against. ``stat key``:
    :func:`~asz_core.storage.filekey.stat_key` of the file as it was opened to be read. The two digests of a file
    this command landed and has not changed since are the ones landing computed as it wrote it
    (:func:`~asz_core.storage.handed.handed`), not computed again."""
    with open_nofollow(path) as f:  # a link is refused: LinkRefused (sessiondata.nolink)
        key = stat_key(os.fstat(f.fileno()))
        data = f.read()
        given = handed(f.fileno())  # what landing computed over these very bytes, this command (storage/handed.py)
    first = data.find(b"\n")
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    if first < 0 or cut <= first or not data.endswith(b"\n"):
        return data, given[0] if given is not None else hashlib.sha256(data).hexdigest(), None, key
    if given is not None:
        whole, closed = given
    else:
        view = memoryview(data)
        sha = hashlib.sha256(view[:cut])
        closed = sha.hexdigest()
        sha.update(view[cut:])
        whole = sha.hexdigest()
    try:
        header = decode_header(data[:first])
        closing = decode_closing(data[cut:-1])
    except FieldError:
        return data, whole, None, key
    # between the header line and the closing line (the data ends with a newline)
    bodies = bytescan.split_lines(data, first + 1, cut) if bytescan is not None else data.split(b"\n")[1:-2]
    count = len(bodies)
    if closing.digest != closed or closing.records != count:
        return data, whole, None, key
    return data, whole, (header, first, cut, count, bodies), key


def _within(window: range, seqs: set[int]) -> set[int]:
    """The seqs of ``seqs`` in ``window``, in the fewer steps of the two."""
    return {s for s in window if s in seqs} if len(window) <= len(seqs) else {s for s in seqs if s in window}


def _bound_seqs(rounds: Sequence[Any], digests: dict[int, str]) -> set[int]:
    """Seqs of the landed files whose whole-file ``digests`` the input digests of ``rounds`` (in chain order) bind:
    every file of a round's window present and the chained digest equal (what :meth:`ChainReader.check_inputs` checks)."""
    from ..flow.round import input_digest

    out: set[int] = set()
    prev = ""
    for r in rounds:
        h = r.header
        window = range(h.from_seq, h.through_seq + 1)
        if all(seq in digests for seq in window) and input_digest(prev, [digests[seq] for seq in window]) == h.input_digest:
            out.update(window)
        prev = h.input_digest
    return out


def hold_back(rec: dict) -> dict:
    """A record of a landed file that does not verify, as the view reads it: every part keeps its kind, bytes and
    identifiers (id, name, of, media, ...) and loses text, data and encoding, and its state says ``unavailable``
    (seed 000 lists the state; seed 004: where the evidence cannot be shown the document says unavailable).
    The envelope (ids, time, flags, usage) stays, so the chain's structure still folds."""
    parts = rec.get("parts")
    if not isinstance(parts, list):
        return rec
    held = []
    for p in parts:
        if isinstance(p, dict):
            p = {k: v for k, v in p.items() if k not in _HELD_BACK}
            p["state"] = "unavailable"
        held.append(p)
    return {**rec, "parts": held}


_HELD_BACK = frozenset(("text", "data", "encoding"))
