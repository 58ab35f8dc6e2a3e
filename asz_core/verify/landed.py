"""One landed file's check for ``asz verify``: header, record positions, closing count and digest (seed 000).

:func:`check_landed_file` checks one ``.sd`` or ``.sk`` file's contents and
returns a :class:`FileResult` (header, record count, each record's
:class:`Pos`, the reader's refusals). By default a ``.sd`` file is scanned
once in chunks (:func:`_scan`): the chunk is hashed and each record line's
``ord``, ``off``, ``sha`` and ``bytes`` are read from the front of the line;
``deep`` reads the file whole and decodes and type-checks every line while a
worker thread hashes (:func:`~asz_core.verify.deep.fast_check`). Anything found wrong, and every ``.sk``
skeleton, is read again by :func:`asz_core.sessiondata.reader.check_file`,
so every problem is the reader's own wording. :mod:`asz_core.verify` walks
the results across a root. The result's shape is :mod:`asz_core.verify.file_result`'s and ``--deep``'s check of a
file held whole :mod:`asz_core.verify.deep`'s (both re-exported here).
"""

from __future__ import annotations

import hashlib
import os
import re
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from operator import add, sub
from pathlib import Path

import orjson

from ..sessiondata.compiled import load_compiled
from ..sessiondata.codec import check_record_dict, closing_pair, decode_closing, decode_header, parse_line
from ..sessiondata.model import Header
from ..sessiondata.nolink import NOFOLLOW
from .deep import FAST_PATH_MAX, fast_check, read_whole
from .file_result import FileResult, Pos, check_by_reader, compact_run, is_sd

# the compiled half of the scan (setup.py); without it, the per-line loop of _whole reads the same positions
linescan = load_compiled("asz_core.verify.linescan")

__all__ = ["Pos", "FileResult", "check_landed_file", "check_for_walk", "check_deep", "check_by_reader", "read_whole",
           "compact_run", "expand_run", "line_positions", "SCAN_CHUNK", "FAST_PATH_MAX"]


# --------------------------------------------------------------------------- the default scan

#: Bytes read at a time by the scan (8 MiB): memory stays flat whatever the size of a file or a line.
SCAN_CHUNK = 8 << 20
#: The scan leaves this many of the last bytes read unhashed until it knows where the closing line starts (bytes).
_LAG = 4096
#: A header line longer than this, or a record line the prefix does not describe and longer than this,
#: sends the file to the reader (bytes).
_ODD_MAX = 1 << 20
# The positional prefix the sd/1 writer puts at the start of every record line (seed 000, Record:
# ord, off, sha, bytes first): top-level keys, since nothing can come before them in the object.
# At most 18 digits, so always within int64; a larger number sends the line to the full decoding.
# Each group is a JSON value as the line writes it (the sha with its quotes): one orjson call decodes a file's worth.
_PREFIX = re.compile(
    rb'\{"ord":([1-9][0-9]{0,17}|0),"off":([1-9][0-9]{0,17}|0),"sha":("[0-9a-f]{12}"),"bytes":([1-9][0-9]{0,17}|0)[,}]'
)
_GROUPS = re.Match.groups
_tuple_new = tuple.__new__


def _odd_line(line: bytes, row: int) -> Pos | None:
    """The position of a record line the prefix does not describe, decoded and type-checked in full.

    None when the line reads as a closing line (only the last line may; the
    caller decodes it as one); raises FieldError (a ValueError) when it is not
    a record, as the reader would.
    """
    if line.startswith(b'{"t":"end",'):
        return None  # the closing line's own start: a record holds no "t"
    try:
        d = check_record_dict(parse_line(line))
    except ValueError:
        if line.startswith(b'{"t":'):
            return None
        raise
    return Pos(row, d["ord"], d["off"], d.get("bytes", 0), d.get("sha") or "")


class _Bad(Exception):
    """The scan cannot vouch for the file: the reader reads it again and says what is wrong."""


class _ScanState:
    """What the scan of one file keeps from chunk to chunk.

    ``flat`` holds four items per record line: its ord, off, sha and bytes as
    the line writes them, JSON values (bytes objects, which the garbage collector does not
    track: a file of many records costs no collections); ``ms`` the prefix
    matches of the current chunk, turned into groups at its end (:meth:`flush`).
    ``head`` is the header line once read; ``closing_at`` how many records came
    before a line that reads as a closing line (-1: none yet; only the last
    line may). ``carry`` is a line begun in an earlier chunk (its first
    ``_ODD_MAX`` bytes), ``carry_len`` its whole length so far and
    ``carry_last`` its last byte so far. ``pending`` is the last ``_LAG``
    bytes read, not hashed yet into ``h``, so the closing line can be left out.
    """

    __slots__ = ("flat", "ms", "head", "closing_at", "carry", "carry_len", "carry_last", "pending", "h")

    def __init__(self) -> None:
        self.flat: list[bytes] = []
        self.ms: list[re.Match] = []
        self.head: bytes | None = None
        self.closing_at = -1
        self.carry: bytearray | None = None
        self.carry_len = 0
        self.carry_last = -1
        self.pending = b""
        self.h = hashlib.sha256()

    def hash_chunk(self, chunk: bytes) -> None:
        """Hash all but the last ``_LAG`` bytes read so far (those wait in ``pending``)."""
        n = len(chunk)
        if n >= _LAG:
            if self.pending:
                self.h.update(self.pending)
            self.h.update(memoryview(chunk)[: n - _LAG])
            self.pending = chunk[n - _LAG:]
        else:
            both = self.pending + chunk
            if len(both) > _LAG:
                self.h.update(both[: len(both) - _LAG])
            self.pending = both[-_LAG:]

    def flush(self) -> None:
        """Move the prefix matches of the current chunk into ``flat``, in order (no match outlives its chunk)."""
        self.flat.extend(chain.from_iterable(map(_GROUPS, self.ms)))
        self.ms.clear()

    def take(self, line: bytes, whole: bool, last: int) -> None:
        """Take one line held apart: the header, a carried line, or one the prefix does not describe.

        ``line`` is the line, or only its first ``_ODD_MAX`` bytes when not
        ``whole``; ``last`` its last byte (-1 when empty). Raises :class:`_Bad`
        (or FieldError, a ValueError) when the scan cannot vouch for the line.
        """
        if self.head is None:
            if not whole:
                raise _Bad
            self.head = line
            return
        self.flush()  # the lines before this one, in order
        flat = self.flat
        m = _PREFIX.match(line)
        if m is not None and last == 0x7D:
            flat.extend(m.groups())
            return
        if not whole:
            raise _Bad  # too long to decode here
        got = _odd_line(line, (len(flat) >> 2) + 1)
        if got is None:
            if self.closing_at >= 0:
                raise _Bad  # two closing lines
            self.closing_at = len(flat) >> 2
        else:
            try:
                sha = orjson.dumps(got.sha)
            except TypeError:  # a lone surrogate, which the reader's own decoding lets through
                raise _Bad from None
            flat.extend((b"%d" % got.ord, b"%d" % got.off, sha, b"%d" % got.bytes))

    def carry_in(self, chunk: bytes) -> int:
        """Go on with a carried line (or the header) at the start of ``chunk``.

        Returns where the chunk's next line starts, or -1 when the whole chunk
        belongs to the carried line.
        """
        if self.carry is None and self.head is not None:
            return 0
        nl = chunk.find(b"\n")
        if self.carry is None:
            self.carry, self.carry_len = bytearray(), 0
        take = len(chunk) if nl < 0 else nl
        if self.carry_len < _ODD_MAX:
            self.carry += chunk[: min(take, _ODD_MAX - self.carry_len)]
        self.carry_len += take
        if take:
            self.carry_last = chunk[take - 1]
        if nl < 0:
            return -1
        self.take(bytes(self.carry), self.carry_len <= _ODD_MAX, self.carry_last)
        self.carry = None
        return nl + 1

    def carry_out(self, chunk: bytes, pos: int) -> None:
        """Keep the line that starts at ``pos`` and goes on in the next chunk."""
        n = len(chunk)
        self.carry = bytearray(chunk[pos: pos + _ODD_MAX])
        self.carry_len = n - pos
        self.carry_last = chunk[n - 1]


def _scan(path: Path, *, compact: bool = False) -> FileResult | None:
    """Check a landed ``.sd`` file in one streaming read; None when anything is off (the reader then says what).

    What it checks (seed 000: Header, Record, Closing line): the header line
    decodes and type-checks; every record line starts with its positions
    (``ord``, ``off``, ``sha``, ``bytes``, in the order the sd/1 writer puts
    them) and closes its object on its last byte, and any line that does not
    is decoded and type-checked in full; the closing line is last, and its
    count and SHA-256 match. Record lines are not decoded in full: the
    closing digest binds every byte the writer wrote, and ``asz verify
    --deep`` decodes them all (:func:`check_landed_file` with ``deep=True``). Memory is one chunk (``SCAN_CHUNK``
    bytes) plus one line of at most ``_ODD_MAX`` bytes, whatever the size of the file or of its lines. With
    ``compact``, a run keeps only its first and last position (:func:`compact_run`). A file read whole is checked
    by one call of ``linescan.landed`` where it was built (:func:`_whole` in C), which hands anything else back.
    """
    got = linescan.landed(path, compact, SCAN_CHUNK, hashlib.sha256, closing_pair, decode_header) if linescan else None
    if got is not None:
        return _compiled(path, *got)
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)  # a link is the reader's to say (sessiondata.nolink)
    except OSError:
        return None
    try:
        fs = os.fstat(fd)
        mode, left = fs.st_mode, fs.st_size + 1  # one byte more: a file that grew is read to its end
        if left <= SCAN_CHUNK:
            data = os.read(fd, left)
            if len(data) < left:  # the whole file in one read (the common case): no chunk state to carry
                return _whole(path, data, mode, compact)
            left -= len(data)
            st = _ScanState()
            st.hash_chunk(data)
            _lines(st, data)
        else:
            st = _ScanState()
        while True:
            chunk = os.read(fd, min(SCAN_CHUNK, max(left, _LAG)))
            left -= len(chunk)
            if not chunk:
                break
            st.hash_chunk(chunk)
            _lines(st, chunk)
    except (OSError, ValueError, _Bad):  # FieldError is a ValueError
        return None
    finally:
        os.close(fd)
    return _scanned(path, st, mode, compact)


def _whole(path: Path, data: bytes, mode: int, compact: bool) -> FileResult | None:
    """:func:`_scan` of a file read whole in one read: the same checks and result, without the chunk machinery.

    The closing line is found first and the digest checked over everything
    before it in one ``hashlib`` call; then each record line's positions are read by the same prefix match: in one
    call by :mod:`asz_core.verify.linescan` (C, where built), which accepts exactly what the loop here accepts, else by the loop. A line the prefix does not describe sends the
    file through the chunk scan over the same bytes (:func:`_lines`), which
    decodes it in full, so what is accepted and what is found is the scan's own.
    """
    n = len(data)
    if n == 0 or data[n - 1] != 0x0A:
        return None  # empty, or no newline at the end: the reader says which
    start = data.find(b"\n") + 1  # the first record line
    cut = data.rfind(b"\n", 0, n - 1) + 1  # the closing line
    if cut < start:
        return None  # one line only
    view = memoryview(data)
    try:
        h = hashlib.sha256(view[:cut])
        records, digest = closing_pair(data[cut:-1])
        if digest != h.hexdigest():
            return None
        scan = linescan
        if scan is not None:
            got = scan.positions(data, start, cut, compact)
            if got.__class__ is int:  # the record row it does not vouch for: the exact path reads the file
                return _chunked(path, data, mode, compact)
            ms = None
            k = got[0]
        else:
            ms = _matches(data, start, cut)
            if ms is None:
                return _chunked(path, data, mode, compact)
            k = len(ms)
        if records != k:
            return None
        header = decode_header(data[: start - 1])
    except (ValueError, _Bad):  # FieldError is a ValueError
        return None
    finally:
        view.release()
    h.update(data[cut:])  # the closing line: now the SHA-256 of the whole file
    if ms is None:
        return _compiled(path, header, got, mode, h.hexdigest())
    return _result(path, header, b",".join(chain.from_iterable(map(_GROUPS, ms))), k, mode, h.hexdigest(), compact)


def _matches(data: bytes, start: int, cut: int) -> list[re.Match] | None:
    """The prefix match of every record line from ``start`` to ``cut`` (the closing line), or None at the first
    line the prefix does not describe or that does not end its object on its last byte: the hot loop."""
    ms: list[re.Match] = []
    keep, match, find, pos = ms.append, _PREFIX.match, data.find, start
    while pos < cut:  # one record line each turn
        nl = find(b"\n", pos)
        m = match(data, pos, nl)
        if m is None or data[nl - 1] != 0x7D:
            return None
        keep(m)
        pos = nl + 1
    return ms


def _chunked(path: Path, data: bytes, mode: int, compact: bool) -> FileResult | None:
    """:func:`_scan`'s chunk path over a whole file's bytes: each line the prefix does not describe decoded in full."""
    st = _ScanState()
    st.hash_chunk(data)
    _lines(st, data)
    return _scanned(path, st, mode, compact)


def _compiled(path: Path, header: Header, got: tuple, mode: int, digest: str) -> FileResult:
    """The result of a whole file from :func:`asz_core.verify.linescan.positions`: what :func:`_result` makes of the
    same lines (a run of more than 2 records cut to its first and last when the scan was asked for its ends)."""
    k, run, ords, offs, sizes, shas = got
    if len(ords) < k:  # each Pos made by tuple.__new__, what Pos(...) does without its Python-level __new__
        ps = [_tuple_new(Pos, (1, ords[0], offs[0], sizes[0], shas[0])), _tuple_new(Pos, (k, ords[1], offs[1], sizes[1], shas[1]))]
        return FileResult(path, header, k, ps, [], True, True, mode, digest)
    return FileResult(path, header, k, list(map(Pos, range(1, k + 1), ords, offs, sizes, shas)), [], run, False, mode, digest)


def _lines(st: _ScanState, chunk: bytes) -> None:
    """Read the positions of every line of ``chunk`` into ``st``: the scan's per-line work, and its hot loop.

    A line that goes on past the chunk is carried into the next one. Raises
    :class:`_Bad` or FieldError (a ValueError) when the scan cannot vouch for a line.
    """
    pos = st.carry_in(chunk)
    if pos < 0:
        return
    keep = st.ms.append
    match = _PREFIX.match
    take = st.take
    find = chunk.find
    while True:  # one record line each turn
        nl = find(b"\n", pos)
        if nl < 0:
            break
        m = match(chunk, pos, nl)
        if m is None or chunk[nl - 1] != 0x7D:
            if nl - pos > _ODD_MAX:
                raise _Bad
            take(chunk[pos:nl], True, chunk[nl - 1] if nl > pos else -1)
        else:
            keep(m)
        pos = nl + 1
    st.flush()
    if pos < len(chunk):
        st.carry_out(chunk, pos)


def line_positions(data: bytes) -> int:
    """The scan's per-line work alone over the bytes of a whole file: each line's positions read, nothing hashed.

    Returns how many lines read as records. ``bench/verify.py`` times it to
    show what reading the positions costs beside hashing; raises ValueError
    when a line is not one the scan can vouch for.
    """
    st = _ScanState()
    try:
        _lines(st, data)
    except _Bad:
        raise ValueError("a line the scan cannot vouch for") from None
    return len(st.flat) >> 2


def _scanned(path: Path, st: _ScanState, mode: int, compact: bool) -> FileResult | None:
    """The result of a scan read to its end: the closing line checked against the count and digest, None when off."""
    flat, pending, h = st.flat, st.pending, st.h
    k = len(flat) >> 2  # record lines
    if st.carry is not None or st.head is None or st.closing_at != k or not pending.endswith(b"\n"):
        return None  # no newline at the end, or the last line is not a closing line
    cut = pending.rfind(b"\n", 0, len(pending) - 1) + 1  # the closing line lies in the unhashed tail
    if cut == 0:
        return None
    h.update(memoryview(pending)[:cut])
    try:
        closing = decode_closing(pending[cut:-1])
        header = decode_header(st.head)
    except ValueError:  # FieldError included
        return None
    if closing.records != k or closing.digest != h.hexdigest():
        return None
    h.update(memoryview(pending)[cut:])  # the closing line: now the SHA-256 of the whole file
    return _result(path, header, b",".join(flat), k, mode, h.hexdigest(), compact)


def _result(path: Path, header: Header, joined: bytes, k: int, mode: int, digest: str, compact: bool) -> FileResult | None:
    """The result of a whole file of ``k`` record lines whose positions are ``joined`` (ord, off, sha and bytes of
    each line as the lines write them, comma-separated); None when they do not decode."""
    if not k:
        return FileResult(path, header, 0, [], [], True, mode=mode, digest=digest)
    try:
        values = orjson.loads(b"[%b]" % joined)  # ord, off, sha, bytes of each record line, in one call
    except orjson.JSONDecodeError:
        return None
    ords, offs, sha, sizes = values[0::4], values[1::4], values[2::4], values[3::4]
    run = ords == list(range(ords[0], ords[0] + k)) and list(map(sub, offs[1:], map(add, offs, sizes))) == [1] * (k - 1)
    if compact and run and k > 2:
        positions = [Pos(1, ords[0], offs[0], sizes[0], sha[0]), Pos(k, ords[-1], offs[-1], sizes[-1], sha[-1])]
    else:
        positions = list(map(Pos, range(1, k + 1), ords, offs, sizes, sha))
        compact = False
    return FileResult(path, header, k, positions, [], run, compact, mode, digest)




def check_landed_file(path: str | os.PathLike, *, pool: ThreadPoolExecutor | None = None, data: bytes | None = None,
                      deep: bool = False, compact: bool = False) -> FileResult:
    """Check one ``.sd`` or ``.sk`` file's contents (seed 000: Header, Record, Closing line).

    By default a ``.sd`` file is scanned once, in chunks (:func:`_scan`): the
    header decoded, each record line's ``ord``, ``off``, ``sha`` and ``bytes``
    read from the front of the line, the closing count and SHA-256 compared.
    With ``deep`` every record line is also decoded and type-checked in full
    (the file read whole; ``pool`` hashes on a worker thread; ``data`` is the
    file's bytes when already read). Anything found wrong, and every ``.sk``
    skeleton, goes to the reader (:func:`asz_core.sessiondata.reader.check_file`),
    so every problem is the reader's own wording. ``compact`` cuts a run's
    positions to its first and last (:func:`compact_run`). Never raises for bad content
    or an unreadable file: ``errors`` holds the refusals as
    ``(line, field, message)``.
    """
    path = Path(path)
    if not deep:
        got = _scan(path, compact=compact) if is_sd(path) else None
        return got if got is not None else check_by_reader(path)
    if data is None:
        data = read_whole(path)
    if data is not None:
        got = fast_check(path, data, pool)
        if got is not None:
            return got
    return check_by_reader(path)



def expand_run(res: FileResult) -> FileResult:
    """``res`` with every position again, read from its file when :func:`compact_run` cut them."""
    if res.compact:
        res.positions = check_landed_file(res.path).positions
        res.compact = False
    return res


def check_for_walk(path: str | Path) -> FileResult:
    """:func:`check_landed_file` by the scan, a run cut to its ends (:func:`compact_run`): what the walk across a root
    sends between processes. A ``str`` path that the scan vouches for stays a str in the result (no Path made)."""
    got = _scan(path, compact=True) if is_sd(path) else None
    return compact_run(got if got is not None else check_by_reader(Path(path)))


def check_deep(path: Path) -> FileResult:
    """:func:`check_landed_file` with ``deep`` (every record decoded), a run cut to its ends (:func:`compact_run`)."""
    return compact_run(check_landed_file(path, deep=True))
