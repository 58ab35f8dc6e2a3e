"""The root's record of the sessions erased from it on request, ``<root>/_erased.list`` (docs/storage-root.md, Erasure).

Not derived data: a record kept beside ``_sessions.list`` (:mod:`.session_list`), append-only, so that ``asz verify``
tells a session erased on purpose (``asz erase``: who, when, why) from one removed by accident (``missing session``),
and ``asz collect`` and ``asz receive`` do not land it again. The original keeps no such file (origin-digest §2.6
removes only scenario sessions, by a marker): it is added beside its layout, whose files are unchanged.

Format (UTF-8, one JSON object a line, never rewritten; ``#`` lines and lines that do not read are skipped)::

    # asz sessions erased from this root on request: who, when, why; never their content; append-only (docs/storage-root.md)
    {"session":"<session dir>","conversations":["<conversation id>",…],"erased":"2026-12-05T12:00:00.000000000Z",
     "by":"alex@laptop","reason":"request 2026-114","first_landed":"…","adapter":"claude-code-local/0.2.0"}

``first_landed`` and ``adapter`` are the session's ``_sessions.list`` line's ('' when it had none). The record names
the session's id and its conversations' ids, never a byte of what they held; the ``reason`` is the operator's words.
A session named twice counts at its first line. The line is written (fsynced, under an exclusive ``flock``) before
anything of the session is removed: from then on every listing of the root leaves the session and its conversations
out (:func:`erased_names`), so an erasure a kill stopped half way reads as erased, never as present or as damage, and
``asz erase`` run again finishes it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import NamedTuple

import orjson

__all__ = ["ERASED_LIST", "ERASED_HEAD", "Erasure", "read_erased", "unread_lines", "erased_names", "record_erasure", "erasure_said",
           "REMOVED", "unfinished", "erased_refusal", "erased_id_said", "Relanded", "landed_again", "landed_again_said"]

#: The record's path, relative to the root (a ``_`` name is never a session).
ERASED_LIST = "_erased.list"
#: Where ``asz erase`` moves a session's directory and chains before deleting them (origin-digest §2.6's ``_removed``).
REMOVED = "_removed"
#: The first line of a new record.
ERASED_HEAD = ("# asz sessions erased from this root on request: who, when, why; never their content; append-only "
               "(docs/storage-root.md)\n")


class Erasure(NamedTuple):
    """One line of the record: the session's directory name, its 1-based line, its conversations, when (RFC 3339 UTC),
    by whom, why, and its ``_sessions.list`` line's first landing and adapter ('' when none)."""

    session: str
    line: int
    conversations: tuple[str, ...]
    erased: str
    by: str
    reason: str
    first_landed: str = ""
    adapter: str = ""


#: root -> (the record's stat key when read, its erasures by session).
_READ: dict[str, tuple[tuple, dict[str, Erasure]]] = {}


def _parse(data: bytes, bad: list[int] | None = None) -> dict[str, Erasure]:
    """The erasures of a record's bytes by session; the 1-based numbers of the lines that do not read (not a JSON
    object naming a session as a non-empty string) are appended to ``bad`` when given."""
    out: dict[str, Erasure] = {}
    for n, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip() or raw.lstrip().startswith(b"#"):
            continue
        try:
            d = orjson.loads(raw)
            name = d["session"]
            convs = tuple(str(c) for c in d.get("conversations") or ())
        except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
            name = None
        if not isinstance(name, str) or not name:
            if bad is not None:
                bad.append(n)
            continue
        if name not in out:
            out[name] = Erasure(name, n, convs, str(d.get("erased", "")), str(d.get("by", "")), str(d.get("reason", "")),
                                str(d.get("first_landed", "")), str(d.get("adapter", "")))
    return out


def read_erased(root: str | os.PathLike) -> dict[str, Erasure]:
    """The erasures of ``root`` by session directory name (``{}`` when it has no record or it cannot be read), read
    again only when the file's size, time or inode changed (every listing of the root asks)."""
    path = os.path.join(os.fspath(root), ERASED_LIST)
    try:
        st = os.stat(path)
    except OSError:
        return {}
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    had = _READ.get(path)
    if had is not None and had[0] == key:
        return had[1]
    try:
        with open(path, "rb") as f:
            got = _parse(f.read())
    except OSError:
        return {}
    _READ[path] = (key, got)
    return got


def unread_lines(root: str | os.PathLike) -> list[int]:
    """The 1-based numbers of the lines of ``root``'s record that do not read (a line cut short by a crash while it was
    written, or edited by hand): the erasure each named is not in force (its session is listed and collected as
    before); ``[]`` when all read or there is no record. A line cut short that a later line begins with (``asz erase``
    run again wrote it whole) is not one. ``asz verify`` warns of each (docs/verify.md)."""
    bad: list[int] = []
    try:
        with open(os.path.join(os.fspath(root), ERASED_LIST), "rb") as f:
            data = f.read()
    except OSError:
        return []
    _parse(data, bad)
    lines = data.split(b"\n")
    return [n for n in bad if not any(ln.startswith(lines[n - 1].strip()) for ln in lines[n:])]


def erased_names(root: str | os.PathLike) -> frozenset[str]:
    """Every session directory and conversation id ``root``'s record names: what the listings of the root leave out."""
    got = read_erased(root)
    if not got:
        return frozenset()
    return frozenset(n for e in got.values() for n in (e.session, *e.conversations))


def record_erasure(root: str | os.PathLike, entry: dict) -> bool:
    """Append ``entry`` (the keys of the module docstring) to ``root``'s record unless its session has a line already;
    True when written. One write, then fsync (and the root's directory's when the record was made). Raises OSError."""
    path = Path(root) / ERASED_LIST
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        data = os.pread(fd, size, 0) if size else b""
        if entry["session"] in _parse(data):
            return False
        out = (ERASED_HEAD.encode() if size == 0 else b"") + orjson.dumps(entry) + b"\n"
        if data and not data.endswith(b"\n"):
            out = b"\n" + out  # a line cut short by a crash stays (it does not read); the next one starts afresh
        os.write(fd, out)
        os.fsync(fd)
    finally:
        os.close(fd)
    if size == 0:
        from ..sessiondata.durable import fsync_dir

        fsync_dir(Path(root))
    return True


def erasure_said(e: Erasure) -> str:
    """How the outputs name an erasure: ``erased on WHEN by WHO (REASON) with asz erase``."""
    return f"erased on {e.erased} by {e.by or 'unknown'} ({e.reason}) with asz erase"


def unfinished(root: str | os.PathLike) -> list[str]:
    """Sessions whose erasure began and did not finish (``_removed/<session>`` left: ``asz erase``), by name."""
    try:
        return sorted(e.name for e in os.scandir(Path(root) / REMOVED) if e.is_dir(follow_symlinks=False)
                      and not e.name.endswith(".chain") and not e.name.startswith("."))
    except OSError:
        return []


def erased_refusal(root: str | os.PathLike, rel: str) -> str:
    """Why ``asz receive`` refuses the root-relative file ``rel`` (a landed file ``<session>/…`` or a round
    ``_conversations/<conversation>/…``) of a session ``root`` erased: ``REL: session S was erased on … here: …``;
    '' when it names no erased session."""
    got = read_erased(root)
    if not got:
        return ""
    parts = rel.split("/")
    name = parts[1] if parts[0] == "_conversations" and len(parts) > 1 else parts[0]
    for e in got.values():
        if name == e.session or name in e.conversations:
            return (f"{rel}: session {e.session} was {erasure_said(e)} from this root ({ERASED_LIST}:{e.line}): it is "
                    "not landed again; erase it on the sending host too (asz erase), so that its push stops sending it")
    return ""


def erased_id_said(root: str | os.PathLike, given: str) -> str:
    """What a reader adds when ``given`` (a whole id or a prefix a person typed) names nothing listed in ``root``
    but is, or starts, a session or conversation id ``root``'s record names: ``: SESSION S was erased on WHEN by WHO
    (REASON) with asz erase (ROOT/_erased.list:N): removed whole on request, nothing of it is kept`` (one clause per
    erasure it names, at most 3); '' when it names none (a typo reads as before; trial 32b, F7). Never content: the
    record holds none."""
    got = read_erased(root)
    if not got or not given:
        return ""
    hits = [e for e in got.values()  # in any case, as resolve takes a prefix (trial 39d F3)
            if any(n.casefold().startswith(given.casefold()) for n in (e.session, *e.conversations))]
    said = [f"session {e.session} was {erasure_said(e)} ({os.path.join(os.fspath(root), ERASED_LIST)}:{e.line})"
            for e in sorted(hits, key=lambda e: e.line)[:3]]
    return f": {'; '.join(said)}: removed whole on request, nothing of it is kept" if said else ""


class Relanded(NamedTuple):
    """What of an erased session landed again after its erasure (:func:`landed_again`): how many landed files are
    stamped after the erasure, the first of them (RFC 3339 UTC, from its name) and the ``adapter`` its header names
    ('-' when it does not read)."""

    files: int
    first: str
    adapter: str


def _stamp_said(stamp: str) -> str:
    """A landed file name's stamp (``20261205T210348.776106138Z``) spelled as RFC 3339 (``2026-12-05T21:03:48.776106138Z``)."""
    return f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:]}"


def landed_again(root: str | os.PathLike, e: Erasure) -> Relanded | None:
    """The landed files of erased session ``e`` that are in ``root`` again and were stamped after the erasure: an asz
    that knows no ``_erased.list`` (one from before it, trial 33c F1) collected or received the session again, or
    they were copied back. None when none is (the directory is gone, or holds only files of before the erasure: an
    erasure a kill stopped). Never raises (an unreadable directory holds none)."""
    from ..sessiondata.times import parse_instant
    from .layout import landed_files

    when = parse_instant(e.erased)
    sdir = Path(root) / e.session
    if when is None or not sdir.is_dir() or sdir.is_symlink():
        return None
    try:
        files = landed_files(sdir, skeletons=True)
    except OSError:
        return None
    late = [(ns, ln.stamp, p) for ln, p in files
            if (ns := parse_instant(_stamp_said(ln.stamp))) is not None and ns > when]
    if not late:
        return None
    ns, stamp, first = min(late)
    adapter = "-"
    try:
        with open(first, "rb") as f:
            head = orjson.loads(f.readline())
        adapter = str(head.get("adapter") or "-") if isinstance(head, dict) else "-"
    except (OSError, orjson.JSONDecodeError):
        pass  # a skeleton (gzip) or a damaged header: the adapter is not said
    return Relanded(len(late), _stamp_said(stamp), adapter)


def landed_again_said(root: str | os.PathLike, root_shown: str, e: Erasure, again: Relanded) -> str:
    """What verify and collect say of ``again`` (:func:`landed_again`): ``session S landed again after its erasure
    (N file(s) by ADAPTER, the first at WHEN; erased on …): an asz that knows no _erased.list … collected or received
    it; … asz erase S --root ROOT --reason '…' removes it again``."""
    return (f"session {e.session} landed again after its erasure ({again.files} file(s) by {again.adapter}, the first "
            f"at {again.first}; it was {erasure_said(e)}, {os.path.join(root_shown, ERASED_LIST)}:{e.line}): an asz "
            "that knows no _erased.list (one from before asz erase, run on this root after a downgrade) collected or "
            "received it again (or it was copied back); this asz shows, pushes and checks none of it; "
            f"asz erase {e.session} --root {root_shown} --reason '…' removes it again (the first erasure's record "
            "stays)")
