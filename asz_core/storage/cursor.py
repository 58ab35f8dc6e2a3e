"""Cursors: how far a source has landed (origin-digest §2.2).

Plain text, one ``key<spaces>value`` per line, keys padded to a column,
replaced atomically (temporary name, fsync, rename). A reader splits on the
first run of spaces and skips blank and ``#`` lines.

Append cursor keys, in write order: schema, kind (``append``), source, dev,
ino, offset, ord, last_uuid, tail_sha256, size, mtime, last_seq, updated_at,
state. Snapshot cursor keys: schema, kind (``snapshot``), source,
content_sha256, size, mtime, last_seq, updated_at, state. States: ``active``,
``source_gone``, ``conflict``.

Additive keys, written last and only when set (a reader that does not know
them skips them, as this one skips any key it does not know): ``reason`` (why
a cursor is in conflict), ``folder`` (the source folder of a conflict found by
a pass given another folder than the adapter's default), ``adapter`` (the name of the adapter whose source
the cursor follows, so a vanished source is recognised even when no landed
file is left to name it), on an append cursor ``torn`` (the bytes of a torn
tail, :mod:`asz_core.storage.torn`) and, on a snapshot cursor, ``mode document`` when the
source is a document inside a file (a database row) rather than a file. An append cursor's last line is its
``check`` (:data:`CHECK`), always written, read into :attr:`AppendCursor.edited`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import zlib
from itertools import repeat
from pathlib import Path

import attrs

from ..sessiondata import durable
from ..sessiondata.nolink import NOFOLLOW, LinkRefused

try:  # the compiled half of _written_values (setup.py: optional; without it the Python below does the same)
    from ..sessiondata.bytescan import cursor_values as _cursor_values
except ImportError:  # pragma: no cover - an install without a C compiler
    _cursor_values = None
from ..termsafe import shell_word
from .state_lines import state_rows

__all__ = ["CHECK", "RESET_STEP", "reset_step", "reset_command", "SIZE_NOW", "dated_reason", "AppendCursor", "SnapshotCursor", "read_cursor", "write_cursor", "STATES", "TAIL_WINDOW", "UNREADABLE_CURSOR"]

STATES = ("active", "source_gone", "conflict")
#: Bytes hashed before ``offset`` to detect a rewritten source (1 MiB).
TAIL_WINDOW = 1 << 20
#: What a cursor that does not read adds to asz verify's ``bad cursor``: what asz collect does with it, and why it is
#: safe (trial 13; storage-root.md, Crash behaviour).
UNREADABLE_CURSOR = ("asz collect sets it aside (ROOT/_set_aside/<UTC stamp>/…) and writes a new cursor from the landed "
                     "files, moving past each landed line the source still holds there (its digest is checked), so "
                     "nothing lands twice and nothing is skipped; landed lines the source no longer holds make it a "
                     "conflict")


#: The next step of a source in conflict after it landed (rewritten, cut shorter, a moved source that is not the one
#: that landed), said with every such conflict (a ``conflict:`` line, ``asz sources``, ``asz verify``, and the readers:
#: ``asz ls``, ``asz conversation``, the page).
RESET_STEP = ("asz sources --reset-conflict {session} --root {root} reads it again once its bytes are back, or from its "
              "start with --reread")


def reset_step(session: str, root: str | os.PathLike, adapter: str = "", sources: list | tuple = ()) -> str:
    """:data:`RESET_STEP` for ``session`` in the storage root ``root``, each quoted for the shell
    (:func:`~asz_core.termsafe.shell_word`; trial 33a F2: pasted, the command reaches that root whatever it holds).
    ``sources``: the source folders the pass read, when they are not the adapter's defaults (``--source``, or an
    asz.yaml ``source_root``), said as ``--adapter ADAPTER --source F`` after ``--root`` so that the command works as
    printed (trial 34a F1: without them asz sources looked under the default folders and found no conflict)."""
    tail = RESET_STEP.partition(" reads it again")[2]
    return f"{reset_command(session, root, adapter, sources)} reads it again{tail}"


def reset_command(session: str, root: str | os.PathLike, adapter: str = "", sources: list | tuple = ()) -> str:
    """``asz sources --reset-conflict SESSION --root ROOT``, then ``--adapter ADAPTER --source F`` for each of
    ``sources`` when given (:func:`reset_step`), each word quoted for the shell: the one command every reader prints
    for a source in conflict (:func:`reset_step`, ``asz verify``'s warning)."""
    cmd = f"asz sources --reset-conflict {shell_word(session)} --root {shell_word(root)}"
    if not sources:
        return cmd
    return cmd + (f" --adapter {shell_word(adapter)}" if adapter else "") + "".join(f" --source {shell_word(f)}" for f in sources)

#: What a conflict told again adds when the source's size is not the one its reason names (trial 26a F8): when the
#: reason was found (the cursor's ``updated_at``) and the size now (:func:`dated_reason`).
SIZE_NOW = " (found {found}; the source has {now} bytes now)"


def dated_reason(reason: str, found: str, now: int | None = None) -> str:
    """A conflict's ``reason`` (its cursor's) as ``asz collect``, ``asz sources`` and ``asz verify`` tell it again:
    with :data:`SIZE_NOW` when it names the source's size (``the source has N bytes``) and ``now`` (the source's size
    now, bytes) is another (trial 26a F8, recheck 26 N4: a stale size was told as the present one); as it is when the
    size is the same; with `` (since FOUND)`` when the size now is not known (``asz verify`` reads no source).
    ``found``: when the reason was found (the cursor's ``updated_at``; '' when it has none)."""
    if now is None:
        return f"{reason} (since {found or 'an earlier pass'})"
    m = re.search(r"the source has (\d+) bytes", reason)
    if m is None or now == int(m.group(1)):
        return reason
    return reason + SIZE_NOW.format(found=found or "by an earlier pass", now=now)


@attrs.define
class AppendCursor:
    """Append cursor of a stream of lines: ``offset`` (bytes landed), ``ord`` (lines landed), tail digest.

    ``size`` and ``mtime`` (ns) are what the source had when the cursor moved;
    ``last_seq`` the seq of the last file landed from it; ``updated_at`` RFC 3339.
    ``reason`` (extra key) says why a cursor is in conflict; ``adapter`` (extra
    key) names the adapter that owns the source ('' in cursors written before it existed).
    ``torn`` (extra key, bytes) is the size of an unterminated last line the
    source has held unchanged for the idle window (:mod:`asz_core.storage.torn`); 0, and
    not written, otherwise. ``reread_seq`` (extra key) is set when a person had a rewritten
    source read again from its start (``asz sources --reset-conflict SESSION --reread``): the
    files of this stream and kind with a seq from it on hold that new reading (ord from 1, off
    from 0), the ones before it the earlier reading, kept as evidence; 0, and not written, otherwise.
    """

    source: str
    dev: int = 0
    ino: int = 0
    offset: int = 0
    ord: int = 0
    last_uuid: str = ""
    tail_sha256: str = ""
    size: int = 0
    mtime: int = 0
    last_seq: int = 0
    updated_at: str = ""
    state: str = "active"
    reason: str = ""
    adapter: str = ""
    torn: int = 0
    reread_seq: int = 0
    #: The source folder ``source`` is relative to, kept (extra key) when a pass that was given another folder than the
    #: adapter's default (``--source``, asz.yaml ``source_root``) finds the source in conflict, so that every reader's
    #: ``asz sources --reset-conflict`` hint names it (:func:`reset_step`; trial 34a F1); '' otherwise.
    folder: str = ""
    schema: int = 1
    kind: str = "append"
    #: True when the cursor file holds a ``check`` line (:data:`CHECK`) that is not the check of the lines before it:
    #: an edit or damage that was not write_cursor's (an offset moved to the source's size, an ord changed), which a
    #: pass then holds against the landed files before it trusts the cursor (:func:`asz_core.collect.append.
    #: append_source`). Never written; False for a cursor written before the check existed (it has no line).
    edited: bool = attrs.field(default=False, eq=False)


@attrs.define
class SnapshotCursor:
    """Snapshot cursor of a one-document source: the SHA-256 of the last landed content.

    ``size`` is the bytes the document had when it landed (before trailing
    newlines were trimmed), ``mtime`` its file's mtime in ns (0 for a
    document inside a file). Extra keys: ``reason``, ``adapter`` (as on
    :class:`AppendCursor`) and ``mode``: ``document`` for a ``mode="document"``
    source, '' for a file.
    """

    source: str
    content_sha256: str = ""
    size: int = 0
    mtime: int = 0
    last_seq: int = 0
    updated_at: str = ""
    state: str = "active"
    reason: str = ""
    adapter: str = ""
    mode: str = ""
    folder: str = ""  # as AppendCursor.folder
    schema: int = 1
    kind: str = "snapshot"


#: An append cursor's last key: the CRC-32 (8 hex digits) of every line before it but ``updated_at``, as write_cursor
#: wrote them. Not a seal against a person who means to forge a cursor (anyone can compute it), but an edit or damage that
#: is not asz's (an offset moved ahead to the source's size with its mtime unchanged, an ord alone changed) no longer
#: reads as a cursor a pass with nothing new may pass over (:attr:`AppendCursor.edited`; storage-root.md, Cursors).
CHECK = "check"
_CHECK_KEY = CHECK.encode() + b" "
_UPDATED_AT = b"\nupdated_at "
_APPEND_KEYS = ("schema", "kind", "source", "dev", "ino", "offset", "ord", "last_uuid", "tail_sha256", "size", "mtime", "last_seq", "updated_at", "state", "reason", "adapter",
                "torn", "reread_seq", "folder")
_SNAP_KEYS = ("schema", "kind", "source", "content_sha256", "size", "mtime", "last_seq", "updated_at", "state", "reason",
              "adapter", "mode", "folder")
_APPEND_SET, _SNAP_SET = frozenset(_APPEND_KEYS), frozenset(_SNAP_KEYS)
_HEX64 = re.compile(r"[0-9a-f]{64}")
# The keys every cursor this module writes holds, whatever its values (the others may be left out when empty).
_REQUIRED = {
    "append": ("schema", "kind", "source", "offset", "ord", "size", "last_seq", "state"),
    "snapshot": ("schema", "kind", "source", "size", "last_seq", "state"),
}
_REQUIRED_SET = {kind: frozenset(keys) for kind, keys in _REQUIRED.items()}
_INT_KEYS = {"schema", "dev", "ino", "offset", "ord", "size", "mtime", "last_seq", "torn", "reread_seq"}
def read_cursor(path: Path, checked: bool = False) -> AppendCursor | SnapshotCursor | None:
    """Read a cursor file; None when it does not exist. ``checked``: an append cursor's :data:`CHECK` is held to its
    lines (:attr:`AppendCursor.edited`): asked by a collect pass, which trusts a cursor (its step 3, a pass with
    nothing new), and by no reader that holds it to the landed files anyway (``asz verify``, ``asz sources``).

    Raises ValueError naming the file, line and key on a bad line: an integer
    that does not parse or is negative (``mtime`` aside), a ``state`` outside
    active / source_gone / conflict, a digest that is not 64 hex characters;
    and naming the file for one cut short: no newline after its last line, or
    a key every cursor holds missing (schema, kind, source, offset and ord of
    an append cursor, size, last_seq, state). Raises
    :class:`~asz_core.sessiondata.nolink.LinkRefused` (an OSError) for a cursor that is a symbolic link: never
    followed (docs/storage-root.md, "No links"); OSError for one that cannot be opened.
    """
    try:  # no buffered file object: verify and a pass with nothing new read every cursor; never through a link
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):
            raise LinkRefused(path, "the cursor asz wrote") from None
        raise
    try:
        data = got = os.read(fd, 1 << 16)
        while len(got) == 1 << 16:  # a shorter read of a regular file is its end: one read for a cursor
            got = os.read(fd, 1 << 16)
            data += got
    finally:
        os.close(fd)
    values = _written_values(data)
    if values is None:  # anything odd: the line-by-line reading, which names the line and key of what is wrong
        values = _row_values(data, path)
    kind = values.get("kind")
    if kind in _REQUIRED_SET and not _REQUIRED_SET[kind] <= values.keys():  # type: ignore[index]
        missing = [k for k in _REQUIRED[kind] if k not in values]  # type: ignore[index]
        raise ValueError(f"{path}: {missing[0]}: missing (a cursor holds {', '.join(_REQUIRED[kind])}); "  # type: ignore[index]
                         f"the file is damaged or was cut short")
    if kind == "append":  # keys it does not know left out (none, as write_cursor writes it)
        check = values.pop(CHECK, None)
        cur = AppendCursor(**(values if values.keys() <= _APPEND_SET else {k: v for k, v in values.items() if k in _APPEND_SET}))  # type: ignore[arg-type]
        if checked and check is not None and check != _check_of(data, _last_line(data)):
            cur.edited = True
        return cur
    if kind == "snapshot":
        return SnapshotCursor(**(values if values.keys() <= _SNAP_SET else {k: v for k, v in values.items() if k in _SNAP_SET}))  # type: ignore[arg-type]
    raise ValueError(f"{path}: kind: expected append or snapshot, got {kind!r}")


def _written_values(data: bytes) -> dict[str, object] | None:
    """:func:`_written_values_py`'s result, in one C call (:mod:`asz_core.sessiondata.bytescan`, ``cursor_values``)
    when the module was built and the bytes are printable ASCII, spaces and newlines (what write_cursor writes for
    ASCII paths); the Python otherwise (issue 22: verify reads every cursor of a root; tests/storage/test_cursor_written.py
    holds the two to each other)."""
    if _cursor_values is not None:
        values = _cursor_values(data)
        if values is not None:
            return values
    return _written_values_py(data)


def _written_values_py(data: bytes) -> dict[str, object] | None:
    """The values of a cursor as write_cursor writes it, each found by a few calls over all its lines at once
    instead of a few calls a line (``asz verify`` reads every cursor of a root); exactly what :func:`_row_values`
    returns for those bytes. None for anything else, which :func:`_row_values` then reads, and says what is wrong
    with: an empty or ``#`` line, a key that is not printable ASCII or holds ``#``, a key twice, a whole number that is not ASCII digits (``mtime`` may be signed),
    a state or digest :func:`_row_values` refuses."""
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if lines.pop() != "":
        return None  # no newline at the end
    # each line stripped and split at its first space, the value stripped: what _row_values does a line at a time
    keys, _, rests = zip(*map(str.partition, map(str.strip, lines), repeat(" "))) if lines else ((), (), ())
    joined = "".join(keys)
    if not all(keys) or "#" in joined or not (joined.isascii() and joined.isprintable()):
        return None
    values: dict[str, object] = dict(zip(keys, map(str.strip, rests)))
    if len(values) != len(keys):
        return None  # a key twice: the first one's value is checked too, line by line
    for key in _INT_KEYS.intersection(values):
        value = values[key]
        digits = value[1:] if key == "mtime" and value[:1] == "-" else value  # type: ignore[index]
        if not (digits.isdigit() and digits.isascii()):  # type: ignore[union-attr]
            return None  # int() takes more ("+1", "1_0", " 1"), and a negative number is refused: the rows say which
        values[key] = int(value)  # type: ignore[arg-type]
    if "state" in values and values["state"] not in STATES:
        return None
    for key in ("tail_sha256", "content_sha256"):
        if values.get(key) and not _HEX64.fullmatch(values[key]):  # type: ignore[arg-type]
            return None
    return values


def _row_values(data: bytes, path: object) -> dict[str, object]:
    """A cursor's values read line by line (:func:`state_rows`), checked as :func:`read_cursor` says; raises
    ValueError naming ``path``, the line and the key."""
    values: dict[str, object] = {}
    for n, key, value in state_rows(data, path):
        if key in _INT_KEYS:
            try:
                values[key] = int(value)
            except ValueError:
                raise ValueError(f"{path}: line {n}: {key}: expected an integer, got {value!r}") from None
            if values[key] < 0 and key != "mtime":  # type: ignore[operator]
                raise ValueError(f"{path}: line {n}: {key}: must not be negative, got {value}")
        else:
            values[key] = value
            if key == "state" and value not in STATES:
                raise ValueError(f"{path}: line {n}: state: expected one of {', '.join(STATES)}, got {value!r}")
            if key in ("tail_sha256", "content_sha256") and value and not _HEX64.fullmatch(value):
                raise ValueError(f"{path}: line {n}: {key}: expected 64 hex characters, got {value[:20]!r}")
    return values


def _last_line(data: bytes) -> int:
    """Where the last line of ``data`` (ending in a newline) starts."""
    return data.rfind(b"\n", 0, len(data) - 1) + 1


def _check_of(data: bytes, at: int) -> str:
    """The :data:`CHECK` of a cursor whose check line starts at byte ``at`` of ``data``, over the bytes before it; ''
    when the line at ``at`` is not a check line (a check that then never holds)."""
    return _check_sum(data, at) if data.startswith(_CHECK_KEY, at) else ""


def _check_sum(data: bytes, at: int) -> str:
    """The :data:`CHECK` of the cursor lines ``data[:at]``: the CRC-32 (8 hex digits) of every line but the
    ``updated_at`` one (the clock's, as two cursors are compared: a cursor landed again from the same files has the
    same check). A check against an edit or damage, not a seal, so a CRC does (a pass with nothing new computes it for
    every cursor: docs/performance.md, Session 42)."""
    view = memoryview(data)
    start = data.find(_UPDATED_AT, 0, at) + 1
    if not start:
        return f"{zlib.crc32(view[:at]):08x}"
    end = data.find(b"\n", start, at) + 1 or at
    return f"{zlib.crc32(view[end:at], zlib.crc32(view[:start])):08x}"


def rechecked(before: bytes, after: bytes) -> bytes:
    """``after``, a cursor's bytes ``before`` with some values changed by asz itself (``asz repack`` moving its
    ``last_seq``), with its check line made the check of its lines again when ``before``'s held; else as it is (a
    cursor edited by hand stays one, and one with no check line gets none)."""
    at, to = _last_line(before), _last_line(after)
    if not after.startswith(_CHECK_KEY, to) or before[at:].split()[1:] != [_check_of(before, at).encode()]:
        return after
    return after[:to] + f"{CHECK:<15} {_check_sum(after, to)}\n".encode()


def write_cursor(path: Path, cursor: AppendCursor | SnapshotCursor, *, fsync: bool = True) -> None:
    """Replace the cursor file atomically (temporary name, fsync, rename); an append cursor's last line is its
    :data:`CHECK`."""
    path = Path(path)
    keys = _APPEND_KEYS if isinstance(cursor, AppendCursor) else _SNAP_KEYS
    lines = []
    for k in keys:
        v = getattr(cursor, k)
        if k in ("last_uuid", "tail_sha256", "reason", "adapter", "mode", "torn", "reread_seq", "folder") and not v:
            continue
        lines.append(f"{k:<15} {v}")
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if keys is _APPEND_KEYS:
        data += f"{CHECK:<15} {_check_sum(data, len(data))}\n".encode()
    if fsync and durable.progress(path, lambda: _replace(path, data)):
        return  # written at the batch's next barrier, after the files it names are durable (sessiondata/durable.py)
    _replace(path, data, fsync)


def _replace(path: Path, data: bytes, fsync: bool = False) -> None:
    """Write ``data`` to a temporary name beside ``path`` (``.<name>.<pid>.tmp``), fsync it (``fsync``), rename it
    over ``path``. A write that fails (a full disk: ENOSPC) removes its temporary file and raises the OSError."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:  # a full disk (ENOSPC), Ctrl-C or SIGTERM: no temporary file is left behind
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
