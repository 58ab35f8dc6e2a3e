"""``asz verify --deep``'s check of one landed file held whole in memory: every record line decoded and type-checked.

Split from :mod:`asz_core.verify.landed`, which re-exports :func:`read_whole` and :data:`FAST_PATH_MAX` and calls
:func:`fast_check` for ``deep``. It accepts exactly what :func:`asz_core.sessiondata.reader.check_file` accepts (the
same header and record checks, the closing line last, count and digest equal); anything else is None, and the
reader then says what is wrong in its own words.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import orjson

from ..sessiondata.codec import MAX_DEPTH, check_record_dict, decode_closing, decode_header, parse_line
from ..sessiondata.nolink import open_nofollow
from .file_result import FileResult, Pos, is_run, is_sd
from .record_types import plain_record

__all__ = ["FAST_PATH_MAX", "read_whole", "records_of", "fast_check"]

#: Files larger than this are streamed by the reader instead of read whole by ``--deep`` (bytes).
FAST_PATH_MAX = 64 << 20


def read_whole(path: str | Path) -> bytes | None:
    """The file's bytes, or None when it should be streamed by the reader (skeleton, large, unreadable)."""
    if not is_sd(path):
        return None
    try:
        with open_nofollow(path) as f:
            if os.fstat(f.fileno()).st_size > FAST_PATH_MAX:
                return None
            return f.read()
    except OSError:
        return None


def records_of(lines: list[bytes]) -> list[Pos]:
    """Decode and type-check every record line (``lines[0]`` is the header); raises FieldError or ValueError."""
    positions: list[Pos] = []
    append = positions.append
    loads = orjson.loads
    for row in range(1, len(lines)):
        line = lines[row]
        try:
            d = loads(line)
        except orjson.JSONDecodeError:
            d = parse_line(line)  # the reader's own decoding says why (or accepts lone surrogates)
        else:
            # parse_line's checks, unrolled: an object, nested no deeper than MAX_DEPTH.
            if type(d) is not dict or len(line) - len(line.translate(None, b"{[")) > MAX_DEPTH:
                d = parse_line(line)
        if not plain_record(d):
            check_record_dict(d)
        append(Pos(row, d["ord"], d["off"], d.get("bytes", 0), d.get("sha") or ""))
    return positions


def fast_check(path: Path, data: bytes, pool: ThreadPoolExecutor | None) -> FileResult | None:
    """Check a whole file held in memory; None when anything is off (the reader then says what).

    Accepts exactly what :func:`check_file` accepts: the same header and record
    checks, the closing line last, count and digest equal.
    """
    n = len(data)
    if n == 0 or data[-1] != 0x0A:
        return None
    cut = data.rfind(b"\n", 0, n - 1) + 1
    if cut == 0:
        return None
    view = memoryview(data)[:cut]
    fut: Future | None = pool.submit(hashlib.sha256, view) if pool is not None else None
    try:
        closing = decode_closing(data[cut:-1])
        lines = data.split(b"\n")
        del lines[-2:]  # the closing line and the empty tail
        header = decode_header(lines[0])
        positions = records_of(lines)
        h = fut.result() if fut is not None else hashlib.sha256(view)
        fut = None
    except ValueError:  # FieldError included
        return None
    finally:
        if fut is not None:
            fut.result()  # never leave the worker holding the buffer
        view.release()
    if closing.records != len(positions) or closing.digest != h.hexdigest():
        return None
    h.update(memoryview(data)[cut:])
    return FileResult(path, header, len(positions), positions, [], is_run(positions), digest=h.hexdigest())
