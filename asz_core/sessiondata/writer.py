"""The sd/1 writer: one file, written once, landed read-only (seed 000; origin-digest §2.1, §3.1).

The writer refuses a header that fails the reader's check, fills ``h`` and
``schema``, writes one line per record and computes the closing line as it
goes: ``records`` and the SHA-256 of every byte before that line. Landing is
temporary name, write, fsync, mode 0444, rename without replacing; a landed
file is never appended to or rewritten.

:func:`shrink_record` makes a record that is too large to land fit a budget
(seed 000, "Too large to land").
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import os
from pathlib import Path
from typing import Any, Sequence

import attrs

from . import durable
from .codec import FieldError, check_header, dropped_dicts, encode_closing, encode_header, encode_part, encode_record, encode_value
from .filemode import read_only_mode
from .jsonbytes import RawJSON, loads
from .model import CUT_DATA_WHAT, DEFAULT_MAX_DELTA_BYTES, ENVELOPE, SCHEMA, Closing, Dropped, Header, Part, Record
from .vocabulary import FLAGS, FROM_VALUES, PART_KINDS, STATES, TRIGGERS

__all__ = ["SDWriter", "LandedFile", "shrink_record", "encoded_size", "encode_measured", "DEFAULT_MAX_DELTA_BYTES", "VocabularyError",
           "check_vocabulary", "CLOSING_MAX"]

#: The most bytes a landed file's closing line takes, newline included (the largest record count, a SHA-256 hex): a
#: file cut at ``max_delta_bytes`` leaves it this room (the collector, ``collect.fit``; the rest of a stream,
#: ``export.push_rest``).
CLOSING_MAX = len(encode_closing(Closing(records=2**63 - 1, digest="0" * 64))) + 1


@attrs.define
class LandedFile:
    """What landing a file produced: its path, record count, closing digest and size in bytes; ``whole`` the SHA-256
    (hex) of the whole file, closing line included, and ``head`` its header line (no newline), what the session
    index keeps of the file (:mod:`asz_core.sessiondata.slim`)."""

    path: Path
    records: int
    digest: str
    size: int
    header: Header
    whole: str = ""
    head: bytes = b""


class VocabularyError(FieldError):
    """A record holds a value outside Session Data's vocabularies (seed 000); ``field`` names it (``from``,
    ``trigger``, ``flags[1]``, ``parts[2].k``, ``parts[2].state``) and the message names the record and the values
    allowed."""


def _record_name(record: Record) -> str:
    return f"record ord {record.ord}" + (f" (id {record.id!r})" if record.id else "")


_FROM_SET, _TRIGGER_SET, _FLAG_SET = frozenset(FROM_VALUES) | {""}, frozenset(TRIGGERS) | {""}, frozenset(FLAGS)
_KIND_SET, _STATE_SET = frozenset(PART_KINDS), frozenset(STATES) | {""}


def check_vocabulary(record: Record) -> None:
    """Refuse a record whose ``from``, ``trigger``, a flag, a part kind or a part state is outside Session Data's
    vocabularies (:mod:`asz_core.sessiondata.vocabulary`); an empty ``from`` or ``trigger`` is allowed (none given).

    Raises :class:`VocabularyError`, e.g. ``from: record ord 3 (id 'u1'): 'assistant' is not a Session Data
    value (one of agent, external, runtime)``. The first offending field is named.
    """
    # One set lookup a value (this runs for every record landed); anything else (a value outside, None, a value that
    # is not hashable) is judged the slow way, which names the field.
    try:
        if (record.from_ in _FROM_SET and record.trigger in _TRIGGER_SET
                and (not record.flags or _FLAG_SET.issuperset(record.flags))
                and all(p.k in _KIND_SET and p.state in _STATE_SET for p in record.parts or ())):
            return
    except TypeError:
        pass
    _refuse_vocabulary(record)


def _refuse_vocabulary(record: Record) -> None:
    """Raise the :class:`VocabularyError` naming the first field of ``record`` outside its vocabulary."""
    def refuse(field: str, value: object, allowed: tuple[str, ...]) -> VocabularyError:
        return VocabularyError(field, f"{_record_name(record)}: {value!r} is not a Session Data value (one of {', '.join(allowed)})")

    if record.from_ and record.from_ not in FROM_VALUES:
        raise refuse("from", record.from_, FROM_VALUES)
    if record.trigger and record.trigger not in TRIGGERS:
        raise refuse("trigger", record.trigger, TRIGGERS)
    for i, flag in enumerate(record.flags or ()):
        if flag not in FLAGS:
            raise refuse(f"flags[{i}]", flag, FLAGS)
    for i, part in enumerate(record.parts or ()):
        if part.k not in PART_KINDS:
            raise refuse(f"parts[{i}].k", part.k, PART_KINDS)
        if part.state and part.state not in STATES:
            raise refuse(f"parts[{i}].state", part.state, STATES)


def encoded_size(record: Record) -> int:
    """Bytes the record takes once written, newline included.

    A record holding a text of more than ``_TEXT_CHUNK`` characters is
    measured part by part (:class:`_PartSizes`), its long texts a piece at a
    time, so measuring it never holds a second copy of the text; the answer is
    the same.
    """
    return encode_measured(record)[1]


def encode_measured(record: Record, budget: int | None = None) -> tuple[bytes | None, int]:
    """``(line, encoded_size(record))``: the encoded line (no newline) when measuring it encoded it whole anyway, so a
    caller that keeps a record that fits does not encode it a second time; ``(None, size)`` for a record holding a
    text of more than ``_TEXT_CHUNK`` characters (measured a piece at a time, never encoded whole).

    With ``budget`` (bytes, newline included): the line whenever ``size <= budget`` (encoded here if measuring did
    not), and None, nothing held, when the record does not fit."""
    if not any(len(p.text) > _TEXT_CHUNK for p in record.parts):
        line: bytes | None = encode_record(record)
        size = len(line) + 1  # type: ignore[arg-type]
    else:
        line, size = None, _long_size(record)
    if budget is None:
        return line, size
    if size > budget:
        return None, size
    return (line if line is not None else encode_record(record)), size


def _long_size(record: Record) -> int:
    """:func:`encoded_size` of a record holding a long text, measured part by part."""
    sizes = _PartSizes()
    stub = Part(k="x")
    shell = len(encode_record(attrs.evolve(record, parts=[stub]))) - len(encode_part(stub))
    return shell + sum(sizes.part(p) for p in record.parts) + len(record.parts) - 1 + 1


class SDWriter:
    """Write one ``.sd`` file to ``path`` and land it on :meth:`close`.

    ``path`` is the final name; bytes go to a temporary name beside it until
    close. ``fsync`` (default on) syncs the file and its directory. Raises
    :class:`~asz_core.sessiondata.codec.FieldError` for a bad header and
    FileExistsError when ``path`` already exists (on start and on landing).
    Use as a context manager: an exception discards the temporary file.
    """

    def __init__(self, path: str | os.PathLike, header: Header, *, fsync: bool = True):
        header = attrs.evolve(header, h=ENVELOPE, schema=SCHEMA)
        check_header(header)
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"{self.path}: already landed; a landed file is never rewritten")
        self.header = header
        self._fsync = fsync
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._f = None
        self._closed = False
        try:  # from the open on: a stop raised as open() returns, before the header, still removes the file
            self._f = open(self._tmp, "wb")
            if STALL_ENV in os.environ:
                _stall_for_test()
            self._sha = hashlib.sha256()
            self._records = 0
            self._size = 0
            self._head = encode_header(header)
            self._write_line(self._head)
        except BaseException:  # Ctrl-C or SIGTERM as it starts, also between the open and the header: no temporary
            try:               # file is left behind (a worker a stop reached there left a 0-byte .sd.PID.tmp, fix40m)
                self.abort()
            except OSError:  # the open's own error (a directory not writable) is the one to tell
                pass
            raise

    def _write_line(self, line: bytes) -> None:
        # A short line is written and hashed with its newline in one call each; a long one (a record line can be
        # megabytes, not worth a copy) and its newline separately.
        if len(line) < 65536:
            line += b"\n"
            self._f.write(line)
            self._sha.update(line)
            self._size += len(line)
            return
        self._f.write(line)
        self._f.write(b"\n")
        self._sha.update(line)
        self._sha.update(b"\n")
        self._size += len(line) + 1

    @property
    def size(self) -> int:
        """Bytes written so far (header and records, closing line not yet)."""
        return self._size

    @property
    def records(self) -> int:
        """Records written so far."""
        return self._records

    def write(self, record: Record) -> int:
        """Append one record line; returns the bytes it took, newline included.

        Raises :class:`VocabularyError` (nothing written) for a value outside Session Data's vocabularies.
        """
        check_vocabulary(record)
        line = encode_record(record)
        self._write_line(line)
        self._records += 1
        return len(line) + 1

    def write_encoded(self, line: bytes) -> int:
        """Append an already encoded record line (no newline) carried unchanged; returns bytes written."""
        if b"\n" in line:
            raise ValueError("an encoded record is one line")
        self._write_line(line)
        self._records += 1
        return len(line) + 1

    def write_encoded_lines(self, lines: Sequence[bytes]) -> int:
        """Append already encoded record lines (no newline in any), in order, as :meth:`write_encoded` each; returns
        the bytes written. The short lines in a row are joined with their newlines, then written and hashed in one
        call each (landing writes a batch of a few hundred at once); a line of 64 KiB or more is written alone, not
        copied. Raises ValueError, writing none of them, when one of a row holds a newline."""
        total = 0
        row: list[bytes] = []
        for line in lines:
            if len(line) < 65536:
                row.append(line)
                continue
            if row:
                total += self._write_row(row)
                row = []
            total += self.write_encoded(line)
        if row:
            total += self._write_row(row)
        return total

    def _write_row(self, row: list[bytes]) -> int:
        if any(map(bytes.__contains__, row, itertools.repeat(b"\n"))):  # memchr each, no Python call per line
            raise ValueError("an encoded record is one line")
        row.append(b"")  # the last line's newline
        buf = b"\n".join(row)
        del row[-1]
        self._f.write(buf)
        self._sha.update(buf)
        self._size += len(buf)
        self._records += len(row)
        return len(buf)

    def close(self) -> LandedFile:
        """Write the closing line, sync, make read-only (0444) and rename to the final name. Whatever stops it (an
        OSError, Ctrl-C, SIGTERM) the temporary file goes: the file lands whole (linked) or not at all."""
        if self._closed:
            raise RuntimeError("writer already closed")
        try:
            return self._close()
        except BaseException:
            self.abort()
            raise

    def _close(self) -> LandedFile:
        digest = self._sha.hexdigest()
        closing = encode_closing(Closing(records=self._records, digest=digest)) + b"\n"
        self._f.write(closing)
        self._sha.update(closing)  # the whole file's digest, what the session index keeps of it: no second read
        self._f.flush()
        batched = self._fsync and durable.current() is not None  # one sync for the batch (storage/durable.py)
        if self._fsync and not batched:
            os.fsync(self._f.fileno())
        self._f.close()
        self._closed = True
        os.chmod(self._tmp, read_only_mode())  # 0444 less the umask: 0400 under asz's 077 (trial 34c F5)
        try:
            os.link(self._tmp, self.path)  # never replaces an existing file
        except FileExistsError:
            os.unlink(self._tmp)
            raise FileExistsError(f"{self.path}: already landed; a landed file is never rewritten") from None
        except OSError:
            # File systems without hard links: check then rename.
            if self.path.exists():
                os.unlink(self._tmp)
                raise FileExistsError(f"{self.path}: already landed") from None
            os.rename(self._tmp, self.path)
        else:
            os.unlink(self._tmp)
        if batched:
            durable.data(self.path, self._size + len(closing))
        elif self._fsync:
            durable.fsync_dir(self.path.parent)
        return LandedFile(self.path, self._records, digest, self._size + len(closing), self.header, self._sha.hexdigest(),
                          self._head)

    def abort(self) -> None:
        """Discard the temporary file; nothing lands (also after a :meth:`close` that was stopped: the temporary file
        goes, a file it had linked stays)."""
        if self._f is not None and not self._f.closed:
            self._f.close()
        self._closed = True
        try:
            os.unlink(self._tmp)
        except FileNotFoundError:
            pass

    def __enter__(self) -> "SDWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()


# --------------------------------------------------------------------------- too large to land


#: A test hook (tests/collect/test_sigterm_straggler.py): a worker process (never the command's own) that opens its
#: first temporary file holds SIGTERM and SIGINT and sleeps this many seconds, as a worker stuck in a write on a loaded
#: machine does past a stopping pool's grace (trial 31a F2).
STALL_ENV = "ASZ_TEST_STALL_WRITER"
_stalled = False


def _stall_for_test() -> None:
    """:data:`STALL_ENV`'s sleep, once per worker process; nothing in the command's own process or for a bad value."""
    global _stalled
    import multiprocessing
    import signal
    import time

    try:
        seconds = float(os.environ[STALL_ENV])
    except ValueError:
        return
    if _stalled or multiprocessing.parent_process() is None:
        return
    _stalled = True
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        time.sleep(seconds)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})


def _data_schema(data: Any) -> str:
    """``schema`` of a data part's value when it is an object naming one, else ''.

    A RawJSON is decoded for this without keeping the decoded value on it.
    Raises ValueError on bytes that are not JSON.
    """
    if isinstance(data, (str, int, float, bool)):
        return ""
    return _schema_of(loads(data.raw) if isinstance(data, RawJSON) else data)


def _schema_of(value: Any) -> str:
    if isinstance(value, dict):
        v = value.get("schema")
        return v if isinstance(v, str) else ""
    return ""


def _data_bytes(p: Part) -> bytes:
    return encode_value(p.data)


def _dropped_size(rec: Record) -> int:
    """Bytes the ``dropped`` field adds to ``rec`` once written (``,"dropped":[…]``), 0 when it has none."""
    if not rec.dropped:
        return 0
    return len(b',"dropped":') + len(encode_value(dropped_dicts(rec.dropped)))


def _say_cut_data(rec: Record, block: int, size: int) -> int:
    """Add to ``rec.dropped`` that part ``block``'s data (``size`` bytes, compact JSON as landed) was taken out to land
    (:data:`~asz_core.sessiondata.model.CUT_DATA_WHAT`; trial 40c F1: the part's ``bytes`` is its text's, so no reader
    could say the data's size); return the bytes this adds to the written record."""
    before = _dropped_size(rec)
    rec.dropped.append(Dropped(what=f"{CUT_DATA_WHAT}{block + 1}", bytes=size,
                               why="too large to land: the runtime's structured copy; the part's sha256 is its SHA-256"))
    return _dropped_size(rec) - before


def _shrink_changes(p: Part, record: Record, budget: int) -> bool:
    """Make a changes/1 data part smaller in its own format. True when something was removed."""
    value = p.data_value()
    value = copy.deepcopy(value)
    changes = value.get("changes") or []
    # The file with the largest hunks loses them first.
    best, best_size = None, 0
    for i, ch in enumerate(changes):
        if isinstance(ch, dict) and ch.get("hunks"):
            size = len(encode_value(ch["hunks"]))
            if size > best_size:
                best, best_size = i, size
    if best is not None:
        changes[best].pop("hunks", None)
        changes[best]["diff"] = "too_large"
    else:
        removed = False
        for key in ("changes", "overlaps", "gaps"):
            if key in value:
                value.pop(key)
                removed = True
        if not removed:
            return False
    if not p.sha256:
        p.sha256 = hashlib.sha256(_data_bytes(p)).hexdigest()
    p.data = value
    p.state = "truncated"
    return True


class _PartSizes:
    """Encoded sizes of parts and their payloads, each computed once per payload object.

    A record line is its fields around ``"parts":[`` + the parts joined by
    commas + ``]`` (:func:`encode_record` writes exactly what piecewise
    encoding writes), so making one part smaller changes the line by that
    part's change alone. A part's size is its encoding with each payload
    (``text``, ``data``) replaced by a one-token placeholder, plus the payloads'
    own encoded sizes: no payload is encoded twice.
    """

    _TEXT_MARK = "x"  # encodes as 3 bytes
    _DATA_MARK = RawJSON(b"0")  # 1 byte

    def __init__(self) -> None:
        # (id(payload), what) -> (payload, answer); the payload is held, so its id is not reused meanwhile
        self._memo: dict[tuple[int, str], tuple[Any, Any]] = {}

    def _of(self, payload: Any, kind: str, fn) -> Any:
        key = id(payload)
        hit = self._memo.get((key, kind))
        if hit is not None and hit[0] is payload:
            return hit[1]
        answer = fn(payload)
        self._memo[(key, kind)] = (payload, answer)
        return answer

    def text(self, p: Part) -> int:
        """Encoded size of ``p.text`` (bytes); a long text is encoded a piece at a time."""
        return self._of(p.text, "size", _str_size)

    def data(self, p: Part) -> int:
        """Encoded size of ``p.data`` (bytes)."""
        return self._of(p.data, "size", lambda d: len(encode_value(d)))

    def schema(self, p: Part) -> str:
        """The ``schema`` of ``p.data`` when it is an object naming one, else ''."""
        return self._of(p.data, "schema", _data_schema)

    def part(self, p: Part) -> int:
        """Encoded size of the whole part (bytes)."""
        size = 0
        stub = p
        if p.text != "" or p.data is not None:
            stub = copy.copy(p)
            if p.text != "":
                stub.text = self._TEXT_MARK
                size += self.text(p) - 3
            if p.data is not None:
                stub.data = self._DATA_MARK
                size += self.data(p) - 1
        return size + len(encode_part(stub))


#: Characters of a text encoded at a time when it is hashed (1 Mi code points, at most 4 MiB of UTF-8).
_TEXT_CHUNK = 1 << 20


def _str_size(text: str) -> int:
    """``len(encode_value(text))`` without encoding a long text whole: JSON escapes each character on its own."""
    if len(text) <= _TEXT_CHUNK:
        return len(encode_value(text))
    return 2 + sum(len(encode_value(text[i: i + _TEXT_CHUNK])) - 2 for i in range(0, len(text), _TEXT_CHUNK))


def text_sha256(text: str) -> str:
    """The SHA-256 (64 hex) of ``text`` as UTF-8, encoded a piece at a time, so a text of any size costs no copy of itself.

    Equal to ``hashlib.sha256(text.encode("utf-8")).hexdigest()``: UTF-8
    encodes each code point on its own, and slicing a ``str`` never splits one.
    Raises UnicodeEncodeError where that would (a lone surrogate).
    """
    if len(text) <= _TEXT_CHUNK:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    h = hashlib.sha256()
    for i in range(0, len(text), _TEXT_CHUNK):
        h.update(text[i: i + _TEXT_CHUNK].encode("utf-8"))
    return h.hexdigest()


def shrink_record(record: Record, budget: int, *, size: int | None = None) -> Record:
    """Return a copy of ``record`` made to fit ``budget`` bytes once written (seed 000, Too large to land).

    The largest payload goes first, the earlier part first on a tie; a part's
    data (and encoding) go before its text; an unknown part's text (its reason)
    stays. A part keeps its kind and identifiers, says ``truncated`` while text
    remains or ``too_large`` when nothing does, keeps the original ``bytes`` and
    gets the ``sha256`` of what was taken out first. A ``changes/1`` data part
    shrinks in its own format; an ``execution/1`` part is never cut. The result
    is deterministic. A record still too large with nothing left to take is
    returned as far as it went.

    ``size`` is ``encoded_size(record)`` when the caller already knows it
    (bytes, newline included); the record is then not encoded again. Each
    step re-measures only the part it changed.
    """
    rec = copy.deepcopy(record)
    total = encoded_size(rec) if size is None else size
    sizes = _PartSizes()
    while total > budget:
        best_i, best_what, best_size = None, None, -1
        for i, p in enumerate(rec.parts):
            value_schema = None
            if p.data is not None:
                schema = sizes.schema(p)
                if schema == "execution/1":
                    continue
                if schema == "changes/1":
                    value_schema = "changes/1"
                psize = sizes.data(p)
                what = "changes" if value_schema else "data"
            elif p.text and p.k != "unknown":
                psize = sizes.text(p)
                what = "text"
            else:
                continue
            if psize > best_size:
                best_i, best_what, best_size = i, what, psize
        if best_i is None:
            break
        p = rec.parts[best_i]
        before = sizes.part(p)
        if best_what == "changes":
            if not _shrink_changes(p, rec, budget):
                # nothing left to take in its own format; stop considering it
                break
            total += sizes.part(p) - before
            continue
        if best_what == "data":
            if not p.sha256:
                if p.k == "unknown":
                    p.sha256 = hashlib.sha256(p.raw()).hexdigest()
                else:
                    p.sha256 = hashlib.sha256(_data_bytes(p)).hexdigest()
            if p.k != "unknown" and p.text:  # its text stays: the data's size is said where the part cannot say it
                total += _say_cut_data(rec, best_i, len(_data_bytes(p)))
            p.data = None
            p.encoding = ""
        else:
            if not p.sha256:
                p.sha256 = text_sha256(p.text)
            p.text = ""
        has_left = bool(p.data is not None or (p.text and p.k != "unknown"))
        p.state = "truncated" if has_left else "too_large"
        total += sizes.part(p) - before
    return rec


# RawJSON is re-exported for adapters that build parts from source bytes.
RawJSON = RawJSON
