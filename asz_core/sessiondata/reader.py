"""The sd/1 reader and validator (seed 000: Header, Record, Reading a record, Closing line).

Reads one line at a time with no line-length limit and never holds the whole
file. Refuses a bad header, a line with a field of the wrong type, nesting
deeper than 256, a missing closing line, and a record count or digest that does
not match. Every refusal is an :class:`SDError` naming the file, the line
(1-based, the header is line 1) and the field.

A ``.sk`` skeleton is read through gzip like any other Session Data.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
from pathlib import Path
from typing import Iterator

import attrs

from .codec import (
    FieldError,
    check_record_dict,
    check_record_structures,
    record_line_clear,
    decode_closing,
    decode_header,
    parse_line,
    record_from_dict,
)
from .jsonbytes import exact_as_plain
from .model import Closing, Header, Record
from .nolink import LINK_RULE, LinkRefused, gunzip_nofollow, open_nofollow

#: The problem name of a landed file that is a symbolic link (docs/verify.md; :mod:`asz_core.sessiondata.nolink`).
LINK_PROBLEM = "symbolic link"

__all__ = ["LINK_PROBLEM", "SDError", "SDReader", "read_file", "check_file", "FileCheck", "RecordPos", "header_line", "landed_header", "open_landed"]


class SDError(ValueError):
    """A refusal: ``path``, ``line`` (1-based; 0 for the file as a whole), ``field`` and ``message``."""

    def __init__(self, path: str | os.PathLike, line: int, field: str, message: str):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {field + ': ' if field else ''}{message}")


def open_landed(path: Path, data: bytes | None = None):
    """A binary file object over a landed file's lines: ``path`` itself, or its gzip stream when it is a ``.sk``
    skeleton (seed 000, Skeletons); over ``data`` (the file's bytes, already read) instead of the file when given.
    Never through a symbolic link (:mod:`asz_core.sessiondata.nolink`). Raises OSError when the file cannot be opened
    (:class:`~asz_core.sessiondata.nolink.LinkRefused` for a link); reading a damaged skeleton raises OSError,
    EOFError or zlib.error."""
    if data is not None:
        f = io.BytesIO(data)
        return gzip.GzipFile(fileobj=f, mode="rb") if path.suffix == ".sk" else f
    return gunzip_nofollow(path) if path.suffix == ".sk" else open_nofollow(path)


def link_said(path: str | os.PathLike, target: str) -> str:
    """The refusal of a landed file that is a symbolic link to ``target`` (docs/verify.md, ``symbolic link``): the rule
    and the way back."""
    return (f"{LINK_PROBLEM}: the landed file is a link to {target}, whose bytes were not read: {LINK_RULE}; if that "
            f"file is the one landed here, put it in the link's place (cp --remove-destination {target} {path}; chmod "
            f"a-w {path}) and verify again")


def header_line(path: str | os.PathLike) -> bytes:
    """The first line of a landed file, without its newline: ``.sd``, or a gzip ``.sk`` skeleton (seed 000,
    Skeletons), whose header alone carries ``removed``. Raises OSError or EOFError (a gzip cut short)."""
    with open_landed(Path(path)) as f:
        return f.readline().rstrip(b"\n")


def landed_header(path: str | os.PathLike):
    """The checked header (:class:`asz_core.sessiondata.model.Header`) of a landed file: ``.sd``, or a gzip ``.sk``
    skeleton (seed 000, Skeletons). Reads the first line only (:func:`header_line`). Raises OSError, EOFError (a
    gzip cut short) or :class:`~asz_core.sessiondata.codec.FieldError` (a ValueError) when it does not read."""
    from .codec import decode_header

    return decode_header(header_line(path))


@attrs.define
class RecordPos:
    """Where a record says it came from: row (line after the header, from 1), ord, off, bytes, id."""

    row: int
    ord: int
    off: int
    bytes: int
    id: str


@attrs.define
class FileCheck:
    """The outcome of checking one file: header, positions, counts and problems (empty when whole)."""

    path: Path
    header: Header | None = None
    records: int = 0
    digest: str = ""
    size: int = 0
    positions: list[RecordPos] = attrs.Factory(list)
    problems: list[SDError] = attrs.Factory(list)

    @property
    def ok(self) -> bool:
        """True when the file is whole: a valid header, every line decodes, closing count and digest match."""
        return not self.problems


def missing_closing(lines: int) -> str:
    """What a file of ``lines`` lines with no closing line is told, at line ``lines + 1`` where one was expected."""
    return f"missing closing line: the file ends after line {lines}"


#: What a file whose last line is a closing line with no newline after it is told, at that line.
CUT_CLOSING = "missing closing line: the last line reads as one but has no newline after it (the file was cut short)"


def bad_header(path: str | os.PathLike, exc: FieldError) -> SDError:
    """The refusal of a header line that does not decode (line 1, the field :func:`decode_header` named)."""
    return SDError(path, 1, exc.field, f"bad header: {exc.message}")


def empty_file_error(path: str | os.PathLike) -> SDError:
    """The refusal of a file with no bytes (line 0: not even a header)."""
    return SDError(path, 0, "", "empty file: no header")


def count_mismatch_error(path: str | os.PathLike, lineno: int, says: int, count: int) -> SDError:
    """The refusal of a closing line (at ``lineno``) that says ``says`` records where the file holds ``count``."""
    return SDError(path, lineno, "records", f"closing line says {says} records, file holds {count}")


def digest_mismatch_error(path: str | os.PathLike, lineno: int) -> SDError:
    """The refusal of a closing line (at ``lineno``) whose digest is not the one of the bytes before it."""
    return SDError(path, lineno, "digest", "digest mismatch: the file's bytes are not the ones its closing line binds")


def missing_closing_error(path: str | os.PathLike, data: bytes) -> SDError:
    """The refusal of a whole file's bytes ``data`` whose last line is no closing line (cut short, or cut at a line's
    end): the words :class:`SDReader` and :func:`check_file` use, so a reader of the search index (which does not
    decode every record) says what ``asz verify`` says."""
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    last = data.rstrip(b"\n").rpartition(b"\n")[2]
    if not data.endswith(b"\n") and lines > 1 and _reads_as_closing(last):
        return SDError(path, lines, "", CUT_CLOSING)
    if lines <= 1:
        return SDError(path, 1, "", "missing closing line (file ends inside the header)") if not data.endswith(b"\n") else \
            SDError(path, 2, "", missing_closing(1))
    return SDError(path, lines + 1, "", missing_closing(lines))


class SDReader:
    """Iterate one ``.sd`` (or gzip ``.sk``) file: ``header`` first, then records.

    Iterating yields ``(row, Record)``; the closing line is checked when the
    iteration ends, so a consumer that reads to the end has read a whole file.
    Raises :class:`SDError` on the first refusal.

    ``decode`` says what a record is yielded as: ``True`` a :class:`Record`;
    ``"dict"`` the type-checked JSON object (nulls removed, keys as written:
    ``from``, ``usage.in``) with exactly the refusals of ``True``, without
    building the model (a reader that only looks at a few fields), numbers
    no int64/uint64 or double holds kept as their source text
    (:class:`~asz_core.sessiondata.jsonbytes.NumberText`); ``False``
    the type-checked object without the model's own refusals (a ``dropped``
    entry without ``what``). ``data`` is the file's bytes when the caller has
    read them already (one read instead of two); the file is not opened then.
    """

    def __init__(self, path: str | os.PathLike, *, decode: bool | str = True, data: bytes | None = None):
        if decode not in (True, False, "dict"):
            raise ValueError(f"decode is True, False or 'dict', not {decode!r}")
        self.path = Path(path)
        self.decode = decode
        self.data = data
        self.header: Header | None = None
        self.closing: Closing | None = None
        #: SHA-256 hex of every byte read, set once the file has read whole (of the decompressed bytes for a ``.sk``).
        self.digest = ""
        #: True while record lines are decoded with exact numbers (``decode="dict"``); False when ``decode`` is not
        #: ``"dict"`` or once a probe of the whole ``data`` showed no line holds a number kept as text (then no record does).
        self.exact = decode == "dict"

    def __iter__(self) -> Iterator[tuple[int, Record]]:
        sha = hashlib.sha256()
        if self.exact and self.data is not None and self.path.suffix != ".sk" and exact_as_plain(self.data):
            self.exact = False  # one probe of the whole file instead of one a line: no line needs the exact decoder
        with open_landed(self.path, self.data) as f:
            first = f.readline()
            if not first:
                raise empty_file_error(self.path)
            if not first.endswith(b"\n"):
                raise SDError(self.path, 1, "", "missing closing line (file ends inside the header)")
            try:
                self.header = decode_header(first[:-1])
            except FieldError as exc:
                raise bad_header(self.path, exc) from None
            sha.update(first)
            prev: bytes | None = None
            lineno = 1
            count = 0
            for line in f:
                if prev is not None:
                    lineno += 1
                    count += 1
                    yield count, self._record(prev, lineno)
                    sha.update(prev)
                prev = line
            if prev is None:
                raise SDError(self.path, 2, "", missing_closing(1))
            lineno += 1  # the last line's number
            closing = None
            if prev.endswith(b"\n"):
                try:
                    closing = decode_closing(prev[:-1])
                except FieldError:
                    pass
            if closing is None:
                # The last line is not a closing line: a record (the file was cut at a line's end) or a cut line.
                if not prev.endswith(b"\n") and _reads_as_closing(prev):
                    raise SDError(self.path, lineno, "", CUT_CLOSING)
                self._record(prev if prev.endswith(b"\n") else prev + b"\n", lineno)  # not a record either: said so
                raise SDError(self.path, lineno + 1, "", missing_closing(lineno))
            if closing.records != count:
                raise count_mismatch_error(self.path, lineno, closing.records, count)
            if closing.digest != sha.hexdigest():
                raise digest_mismatch_error(self.path, lineno)
            sha.update(prev)
            self.digest = sha.hexdigest()
            self.closing = closing

    def _record(self, line: bytes, lineno: int) -> Record:
        try:
            body = line[:-1]
            d = parse_line(body, exact=self.exact)
            if self.decode is True:
                return record_from_dict(check_record_dict(d))
            if not record_line_clear(body):  # the one-pass check clears nearly every line; the rest take the full check
                check_record_dict(d)
                if self.decode == "dict":
                    check_record_structures(d)
            return d  # type: ignore[return-value]
        except FieldError as exc:
            raise SDError(self.path, lineno, exc.field, exc.message) from None


def read_file(path: str | os.PathLike) -> tuple[Header, list[Record], Closing]:
    """Read a whole file into memory (small files, tests). Raises SDError."""
    r = SDReader(path)
    records = [rec for _, rec in r]
    assert r.header is not None and r.closing is not None
    return r.header, records, r.closing


def check_file(path: str | os.PathLike) -> FileCheck:
    """Check one file without stopping at the first bad record line.

    Every line is decoded and type-checked; the closing count and digest are
    compared; positions of good records are collected for contiguity checks.
    Problems are SDErrors naming file, line and field. Never raises for bad
    content (an unreadable file becomes a problem).
    """
    path = Path(path)
    fc = FileCheck(path)
    sha = hashlib.sha256()
    try:
        fc.size = os.lstat(path).st_size
        with open_landed(path) as f:
            first = f.readline()
            if not first:
                fc.problems.append(empty_file_error(path))
                return fc
            try:
                fc.header = decode_header(first.rstrip(b"\n"))
            except FieldError as exc:
                fc.problems.append(bad_header(path, exc))
            sha.update(first)
            prev: bytes | None = None
            lineno = 1
            count = 0
            for line in f:
                if prev is not None:
                    lineno += 1
                    count += 1
                    _check_record_line(fc, prev, lineno, count)
                    sha.update(prev)
                prev = line
            closing = None
            if prev is not None and prev.endswith(b"\n"):
                try:
                    closing = decode_closing(prev[:-1])
                except FieldError:
                    closing = None
            if closing is None:
                if prev is not None:
                    lineno += 1
                    if not prev.endswith(b"\n") and _reads_as_closing(prev):
                        fc.problems.append(SDError(path, lineno, "", CUT_CLOSING))
                        fc.records = count
                        fc.digest = sha.hexdigest()
                        return fc
                    count += 1
                    _check_record_line(fc, prev, lineno, count)
                    sha.update(prev)
                fc.problems.append(SDError(path, lineno + 1, "", missing_closing(lineno)))
                fc.records = count
                fc.digest = sha.hexdigest()
                return fc
            lineno += 1
            fc.records = count
            fc.digest = sha.hexdigest()
            if closing.records != count:
                fc.problems.append(count_mismatch_error(path, lineno, closing.records, count))
            if closing.digest != fc.digest:
                fc.problems.append(digest_mismatch_error(path, lineno))
    except LinkRefused as exc:  # docs/verify.md, symbolic link (trial 42a F4)
        fc.problems.append(SDError(path, 0, "", link_said(path, exc.target)))
    except OSError as exc:
        fc.problems.append(SDError(path, 0, "", f"unreadable: {exc.strerror or exc}"))
    except (EOFError, gzip.BadGzipFile) as exc:
        fc.problems.append(SDError(path, 0, "", f"unreadable: {exc}"))
    return fc


def _reads_as_closing(line: bytes) -> bool:
    """True when ``line`` (with or without its newline) decodes as a closing line."""
    try:
        decode_closing(line.rstrip(b"\n"))
    except FieldError:
        return False
    return True


def _check_record_line(fc: FileCheck, line: bytes, lineno: int, row: int) -> None:
    body = line[:-1] if line.endswith(b"\n") else line
    try:
        d = check_record_dict(parse_line(body))
    except FieldError as exc:
        if body.startswith(b'{"t":') and _reads_as_closing(body):
            fc.problems.append(SDError(fc.path, lineno, "t", "a closing line before the end of the file: "
                                       "the lines after it were added after the file was closed"))
            return
        fc.problems.append(SDError(fc.path, lineno, exc.field, exc.message))
        return
    fc.positions.append(RecordPos(row, d["ord"], d["off"], d.get("bytes", 0), d.get("id", "") or ""))
