"""Landing a received file into a storage root, write-once (issue 21; origin-digest §2.1, §8.4).

:func:`land` is the receiver's one write: the path an OTLP record's
``asz.file`` names, checked before anything is written:

- the path is relative, ``/``-separated, with no ``.``/``..``/empty segment,
  no name starting with a dot, and has the shape of a landed file
  (``<session>/streams/<stream>/<prefix>-<stamp>-<seq>.sd``, ``…/runs/<run>/…``,
  ``<session>/provider_body/…``) or of a round
  (``_conversations/<id>/rounds/r<NNNNNN>-<12 hex>.sf``), and stays inside the root;
- the bytes' SHA-256 is ``asz.file.digest``;
- the bytes are a whole file of the kind the path names and fit what the
  root holds (:mod:`.admit`: one file per seq, one round per number, a stream
  continued, a chain followed).

Files arrive write-once: the same bytes again are a no-op, different bytes
at a path that holds a file are refused. A file is written under a temporary
name, fsynced, made read-only (0444) and hard-linked into place (never
replacing), so a crash leaves either nothing or the whole file. The
receiver keeps each session's derived index up to date as collect does
(:func:`index_sessions`), dropping it first when a file arrives below what it indexed.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shutil
import threading
import time
from pathlib import Path

from ..sessiondata.durable import fsync_dir, write_once
from ..sessiondata.nolink import LinkRefused, first_link
from ..sessiondata.times import format_rfc3339
from ..storage.layout import CONVERSATIONS, ROUNDS, parse_landed_name
from ..storage.readings import record_reading
from .admit import Refused, admit

__all__ = ["land", "check_path", "clear_dead_temporaries", "index_sessions", "Refused"]

_LANDED = re.compile(r"^[a-z_]+-\d{8}T\d{6}\.\d{9}Z-\d{6,}\.sd$")
_ROUND = re.compile(r"^r\d{6,}-[0-9a-f]{12}\.sf$")
_counter = itertools.count()
_lock = threading.Lock()


def check_path(rel: str) -> tuple[str, ...]:
    """The segments of a path the receiver may write; raises :class:`Refused` saying why not."""
    if not rel or "\\" in rel or "\x00" in rel or rel.startswith("/") or re.match(r"^[A-Za-z]:", rel):
        raise Refused(f"{rel!r} is not a relative path inside the root")
    parts = tuple(rel.split("/"))
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        raise Refused(f"{rel!r} leaves the root or names a hidden file")
    if parts[0] == CONVERSATIONS:
        if len(parts) == 4 and parts[2] == ROUNDS and _ROUND.match(parts[3]):
            return parts
        raise Refused(f"{rel!r} is not a round's path (_conversations/<id>/rounds/r<NNNNNN>-<digest>.sf)")
    if parts[0].startswith("_"):
        raise Refused(f"{rel!r} is not a session's path")
    ok = (len(parts) == 4 and parts[1] in ("streams", "runs") and _LANDED.match(parts[3])) or (
        len(parts) == 3 and parts[1] == "provider_body" and _LANDED.match(parts[2]))
    if not ok:
        raise Refused(f"{rel!r} is not a landed file's path (<session>/streams|runs/<name>/<kind>-<stamp>-<seq>.sd)")
    return parts


def land(root: str | os.PathLike, rel: str, digest: str, data: bytes, *, replaces: str | None = None,
         instance: str | None = None, sent_now: frozenset[str] = frozenset(), rest: bool = False, reread: int = 0) -> bool:
    """Write ``data`` at ``root/rel`` once. True when written, False when the same bytes were already there.

    Raises :class:`Refused` for a path outside the rules, a digest that does
    not match the bytes, bytes that are not a whole file of the kind the path
    names or that do not fit what the root holds (:func:`.admit.admit`: the
    seq or round already taken by another file, a stream it does not continue,
    a round that does not follow its chain), or another file already at the
    path; OSError when the root cannot be written. Checks and write hold one
    lock, so two requests never land two files in one slot.
    ``replaces``: a round's ``asz.chain.replaces``; ``instance``: the request's ``service.instance.id``; ``sent_now``:
    the files this request landed before from that instance; ``rest``: the record is marked :data:`.wire.REST`
    (:func:`.admit.admit`); ``reread``: its ``asz.reread`` (:data:`.wire.REREAD`): the file holds its source's new
    reading from that seq on, kept in ``_received/readings.list`` before it is written
    (:func:`~asz_core.storage.readings.record_reading`; trial 34b F2).
    """
    parts = check_path(rel)
    got = hashlib.sha256(data).hexdigest()
    if got != (digest or "").lower():
        raise Refused(f"{rel}: asz.file.digest {digest or '(none)'} does not match the bytes (sha256 {got})")
    root = Path(root)
    target = root.joinpath(*parts)
    real_root = os.path.realpath(root)
    if os.path.commonpath([real_root, os.path.realpath(target.parent)]) != real_root:
        raise Refused(f"{rel!r} leaves the root through a link")
    linked = first_link(root, target.parent)  # a folder of the root that is a link, even to another of it: never entered
    if linked is not None and os.path.islink(linked):
        raise Refused(f"{rel}: {linked} is {LinkRefused(linked, 'the folder asz landed')} (docs/storage-root.md, No links)")
    with _lock:
        there = admit(root, parts, got, data, replaces, instance, sent_now, rest, reread)
        if reread and parts[0] != CONVERSATIONS:  # before the file: a crash after it never leaves its reading unsaid
            record_reading(root, parts, parse_landed_name(parts[-1]).kind, reread, instance, format_rfc3339(time.time_ns()))
        if there:
            return False
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f".{target.name}.recv.{os.getpid()}.{next(_counter)}.tmp"
        if not write_once(target, data, tmp):
            return _same(target, rel, data)
        fsync_dir(target.parent)
    if parts[0] != CONVERSATIONS:
        _index_below(root / parts[0], int(parts[-1].rsplit("-", 1)[1].split(".")[0]))
    return True


def clear_dead_temporaries(root: str | os.PathLike) -> list[Path]:
    """Remove the temporaries a receiver killed mid-request left in ``root`` (``.NAME.recv.PID.N.tmp`` beside a
    landed file or a round, :func:`land`; trial 39a F3: a receiving root is never parsed nor collected into, so
    nothing else removed them): those whose receiver is gone, or is this process (called as it starts, before it
    lands anything: its pid reused after a restart); a live receiver's, on the same root, are kept. Then those of the
    chains and session indexes no live process owns (a parse's, an index's:
    :func:`~asz_core.storage.root.sweep_unowned_temporaries`). The paths removed; never raises."""
    from ..storage.root import owner_alive, sweep_unowned_temporaries, temporary_owner

    gone = sweep_unowned_temporaries(root)
    for here, _dirs, names in os.walk(root):
        for name in names:
            if not (name.startswith(".") and ".recv." in name and name.endswith(".tmp")):
                continue
            pid = temporary_owner(name)
            if pid is None or (pid != os.getpid() and owner_alive(pid)):
                continue
            try:
                os.unlink(os.path.join(here, name))  # never chmod: it may be a second link to a landed file
                gone.append(Path(here, name))
            except OSError:
                pass
    return gone


def _index_below(sdir: Path, seq: int) -> None:
    """Drop a session's derived index when a file arrives at or below the seq it indexed (it only grows upward)."""
    from ..storage.root import read_state

    st = read_state(sdir / "index" / "index.state")
    try:
        stale = int(st.get("indexed_seq", "0")) >= seq
    except ValueError:
        stale = True
    if stale:
        shutil.rmtree(sdir / "index", ignore_errors=True)


def index_sessions(root: str | os.PathLike, rels: list[str]) -> dict[str, str]:
    """Bring the index of every session named in ``rels`` up to date (as collect does after landing). Returns the
    sessions whose index the root could not write now (:func:`.receive_record.cannot_write_now`: a full disk) -> why;
    another failure is left to a reader, which rebuilds the index. Never raises."""
    from ..flow.index import update_index
    from .receive_record import cannot_write_now

    failed: dict[str, str] = {}
    for session in sorted({r.split("/", 1)[0] for r in rels if not r.startswith("_")}):
        try:
            update_index(Path(root) / session)
        except Exception as exc:  # noqa: BLE001 - the index is derived; a reader rebuilds it
            if cannot_write_now(exc):  # this root's fault: the pusher sends the files again (trial 41a F1)
                failed[session] = f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"
    return failed


def _same(target: Path, rel: str, data: bytes) -> bool:
    if target.read_bytes() == data:
        return False
    raise Refused(f"{rel}: a different file is already there (files are write-once)")
