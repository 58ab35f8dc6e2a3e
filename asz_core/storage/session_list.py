"""The root's list of every session ever landed into it, ``<root>/_sessions.list`` (docs/storage-root.md).

Not derived data: a record the writers keep, append-only, so that ``asz verify``
can tell a session removed whole (its directory and its chain deleted) from one
that never was. The original keeps no such list (origin-digest §2.1 is silent);
this file is added beside its layout and changes none of its files.

Format (UTF-8 text, one line per session, never rewritten)::

    # asz sessions landed into this root: id, first landed (UTC), adapter; append-only (docs/storage-root.md)
    5c03…-…  2026-12-03T07:22:03.123456789Z  claude-code-local/0.1.0

Fields are separated by one or more spaces: the session's directory name (percent-encoded when it holds
whitespace or ``%`` or starts with ``#``), the
RFC 3339 UTC time of its lowest-seq landed file's stamp (the pass that first
landed it), and the ``adapter`` of that file's header (``-`` when the header does
not read). Lines starting with ``#`` and blank lines are skipped; a session named
twice counts at its first line.

Writers (:func:`record_sessions`): ``asz collect`` and ``asz server`` at the end of
every pass (every session directory of the root that holds a landed file and no
line gets one), the provider-body pass for the sessions it landed into, ``asz
receive`` after a request lands files of a session not listed yet, ``asz repack``
for the sessions it wrote. A line is appended only after the session's files are
durable (after the pass's last barrier, or the receiver's fsync), then fsynced:
a crash in between leaves a session with files and no line, which the next
writer adds (work repeated, nothing lost); a line never names a session whose
files could be lost by the same crash. Appends hold an exclusive ``flock`` on the
file; a line left without its newline by a crash is closed before the next one.
"""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path
from typing import Iterable, NamedTuple

from ..sessiondata.times import format_rfc3339, parse_stamp
from .layout import landed_files

__all__ = ["SESSION_LIST", "LIST_HEAD", "Listed", "ListedSession", "read_list", "first_landed", "record_sessions",
           "Recorded", "unlisted_note", "MADE_LATE", "kept_by", "LIST_GONE", "LIST_REMADE"]

#: The list's path, relative to the root (a ``_`` name is never a session).
SESSION_LIST = "_sessions.list"
#: The first line of a new list.
LIST_HEAD = ("# asz sessions landed into this root: id, first landed (UTC), adapter; append-only "
             "(docs/storage-root.md)\n")

_LINE = re.compile(r"^(\S+) +(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) +(\S+)$")


class ListedSession(NamedTuple):
    """One line of the list: the session's directory name, its 1-based line, when it first landed, its adapter."""

    session: str
    line: int
    at: str
    adapter: str


class Listed(NamedTuple):
    """What :func:`read_list` found: ``sessions`` by name (first line wins), ``bad`` lines that do not read as
    ``(line number, text)`` (a line cut short by a crash, an edit)."""

    sessions: dict[str, ListedSession]
    bad: list[tuple[int, str]]


def _field(name: str) -> str:
    """A directory name as the list's first field: as it is, unless it holds whitespace or ``%`` or starts with ``#``
    (then percent-encoded, so a line always reads back to its name)."""
    if name.startswith("#") or "%" in name or any(c.isspace() for c in name):
        from urllib.parse import quote

        return quote(name, safe="")
    return name


def whole_line(entry: ListedSession) -> str:
    """The list line ``entry`` was read from, as :func:`record_sessions` writes it (no newline)."""
    return f"{_field(entry.session)} {entry.at} {entry.adapter}"


def _name(field: str) -> str:
    if "%" not in field:
        return field
    from urllib.parse import unquote

    return unquote(field)


def _parse(data: bytes) -> Listed:
    sessions: dict[str, ListedSession] = {}
    bad: list[tuple[int, str]] = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        text = raw.decode("utf-8", "replace").strip()
        if not text or text.startswith("#"):
            continue
        m = _LINE.match(text)
        if m is None:
            bad.append((n, text))
            continue
        name = _name(m.group(1))
        sessions.setdefault(name, ListedSession(name, n, m.group(2), m.group(3)))
    return Listed(sessions, bad)


def read_list(root: str | os.PathLike, only: str | None = None) -> Listed | None:
    """The list of ``root``, or None when it has none. ``only``: that session's line alone (one session's verify):
    the :class:`Listed` holds its first line naming it, if any, and no ``bad`` line (none is looked for), found
    without reading every line into a record. Raises OSError when it is there but cannot be read."""
    try:
        data = (Path(root) / SESSION_LIST).read_bytes()
    except FileNotFoundError:
        return None
    if only is None or b"%" in data:  # an escaped name (_field) can only be told by reading its line whole
        got = _parse(data)
        return got if only is None else Listed({k: v for k, v in got.sessions.items() if k == only}, [])
    key = only.encode("utf-8", "surrogateescape")
    at = data.find(key) if key else -1
    while at >= 0:  # each line holding the name, in order: the first that reads as its line is the one _parse keeps
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        text = data[start:end].decode("utf-8", "replace").strip()
        m = _LINE.match(text) if text and not text.startswith("#") else None
        if m is not None and m.group(1) == only:
            return Listed({only: ListedSession(only, data.count(b"\n", 0, start) + 1, m.group(2), m.group(3))}, [])
        at = data.find(key, end)
    return Listed({}, [])


def first_landed(session_dir: str | os.PathLike) -> tuple[str, str] | None:
    """``(RFC 3339 UTC of the stamp, adapter)`` of the session's lowest-seq landed file (``.sd``, else its skeleton
    ``.sk``); None when the directory holds no landed file. The adapter is the header's (``-`` when it does not read)."""
    files = landed_files(Path(session_dir), skeletons=True)
    if not files:
        return None
    ln, path = files[0]
    try:
        at = format_rfc3339(parse_stamp(ln.stamp))
    except ValueError:
        return None
    from ..sessiondata.reader import landed_header

    try:
        value = landed_header(path).adapter
    except (OSError, ValueError, EOFError):
        value = ""
    return at, value if value and not any(c.isspace() for c in value) else "-"


class Recorded(NamedTuple):
    """What :func:`record_sessions` did: ``added`` the sessions given a line (directory names, sorted), ``created``
    True when it made the list (then ``added`` are the sessions the root held already, for a writer's first pass)."""

    added: list[str]
    created: bool


def _candidates(root: Path, names: Iterable[str] | None) -> list[str]:
    if names is not None:
        return sorted({n for n in names if n and not n.startswith(("_", "."))})
    try:
        return sorted(e.name for e in os.scandir(root) if not e.name.startswith(("_", ".")) and e.is_dir())
    except FileNotFoundError:
        return []


def record_sessions(root: str | os.PathLike, names: Iterable[str] | None = None, *, fsync: bool = True,
                    create: bool = True, given: Listed | None = None) -> Recorded:
    """Append a line for each session of ``root`` (``names``: only those directory names; None: every session
    directory) that holds a landed file and has no line yet; one write and one fsync for them all, none when there
    is nothing to add. ``create`` False leaves a root without a list as it is (returns nothing added). First the
    root's :data:`~asz_core.storage.describe.README_NAME` is written when it has none (:func:`~asz_core.storage.describe.describe_root`).

    ``given``: another root's list (``asz repack``'s source), whose time and adapter a session it names keeps.
    Call only once the sessions' files are durable (a line must never outlive the files it names). Holds an
    exclusive ``flock`` on the list while it reads and appends. Raises OSError when the list cannot be written."""
    root = Path(root)
    path = root / SESSION_LIST
    if not create and not path.exists():
        return Recorded([], False)
    from .describe import describe_root

    candidates = _candidates(root, names)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        describe_root(root)  # _README.txt, when the root has none (trial 29a F10), once the list is there (kept_by)
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        data = os.pread(fd, size, 0) if size else b""
        listed = _parse(data).sessions
        lines = []
        added = []
        for name in candidates:
            if name in listed:
                continue
            first = first_landed(root / name)
            if first is None:
                continue  # no landed file (yet): not a session of this root
            was = given.sessions.get(name) if given is not None else None
            if was is not None:
                first = (was.at, was.adapter)
            lines.append(f"{_field(name)} {first[0]} {first[1]}\n")
            added.append(name)
        created = size == 0
        if not lines and not created:
            return Recorded([], False)
        out = (LIST_HEAD if created else "") + "".join(lines)
        if data and not data.endswith(b"\n"):
            out = "\n" + out  # a line cut short by a crash stays (verify names it); the next one starts afresh
        os.write(fd, out.encode("utf-8"))
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
    if created and fsync:
        from ..sessiondata.durable import fsync_dir

        fsync_dir(root)
    return Recorded(added, created)


#: What a writer says when it made the list for a root that already held sessions (``{n}``, ``{list}``).
MADE_LATE = ("wrote {list} from the {n} session(s) already in this root: from now on asz verify finds a session "
             "removed whole; a session removed from this root before now cannot be found")


def unlisted_note(root: str | os.PathLike, shown: str | os.PathLike | None = None) -> str:
    """``asz verify``'s note for a root that holds sessions but no list ('' otherwise); on a receiving root (one with
    ``_received/``, which ``asz receive`` writes and nobody collects into) the command that writes it there is the
    receiver's next start (trial 33c F7); on one with neither ``_received/`` nor ``_collect/`` (an older asz receive
    wrote no ``_received/``, trial 37c F4) both are named."""
    from .senders import RECEIVED

    received = os.path.isdir(os.path.join(os.fspath(root), RECEIVED))
    collected = os.path.isdir(os.path.join(os.fspath(root), "_collect"))  # a collect pass's cursors (storage.layout)
    # an asz receive built before 2026-12-05 wrote no _received/ (trial 37c F4): a root with neither was never collected
    writer = ("the next start of asz receive on this root writes the list from the sessions present" if received else
              "the next asz collect writes the list from the sessions present" if collected else
              "the next start of asz receive on this root, or the next asz collect, writes the list from the sessions "
              "present (it holds no collect state, _collect/: asz receive or a copy wrote it)")
    return (f"{shown if shown is not None else root}: no {SESSION_LIST}: this root was last "
            f"{'collected' if collected and not received else 'written'} by an asz that "
            "did not keep the list of landed sessions, so a session removed whole (its directory and its chain) cannot "
            f"be found; {writer}")


#: ``asz verify``'s ``missing list`` problem at ``ROOT/_sessions.list`` (``{kept}``: :func:`kept_by`'s evidence).
LIST_GONE = ("the root's list of landed sessions is gone, although {kept}: it was deleted or moved, so a session "
             "removed whole (its directory and its chain) cannot be found; put the list back from a backup or a copy "
             "of this root, byte for byte (it is append-only); else the next asz collect, or the next start of asz "
             "receive on a receiving root, writes a new one from the sessions present, which names no session removed "
             "before it")
#: What ``asz collect`` and ``asz receive`` say (a warning) when they wrote the list anew in place of a lost one.
LIST_REMADE = ("was gone, although {kept}: wrote a new one from the {n} session(s) in this root; a session removed "
               "whole before now cannot be found (asz verify said missing list)")


def kept_by(root: str | os.PathLike) -> str:
    """What shows that an asz which keeps :data:`SESSION_LIST` wrote into ``root``, as words for :data:`LIST_GONE`;
    '' when nothing does (a root from before the list, 2026-12-03, or none of asz's). The evidence: the root's
    ``_README.txt`` names the list (a writer writes it only once the list is there, :func:`record_sessions`; the
    first asz that wrote one kept the list), or an ``_erased.list`` (``asz erase`` came after the list). Never
    raises."""
    from .describe import README_NAME

    base = os.fspath(root)
    try:
        with open(os.path.join(base, README_NAME), "rb") as f:
            text = f.read(8192).decode("utf-8", "replace")
    except OSError:
        text = ""
    if SESSION_LIST in text:
        by = re.search(r"written by (asz [^,\n]+(?:, source \w+)?)", text)
        return f"its {README_NAME} shows {by.group(1) if by else 'an asz'} wrote here, which keeps the list"
    if os.path.isfile(os.path.join(base, "_erased.list")):
        return "its _erased.list shows an asz that keeps the list wrote here"
    return ""
