"""What ``asz receive`` keeps of each request's landed files besides the files (docs/push.md, "Who sent what"): the
root's ``_sessions.list`` line of their sessions, the sender line of each landed file, and, once per root, the list of
what landed before sender records were kept. A landed file whose landing cannot be recorded (a full disk) is not
acknowledged: :func:`unacknowledged` refuses it as retryable (:data:`.admit.RETRY_RECORD`; trial 41a F1).
"""

from __future__ import annotations

import errno
import sqlite3
import threading
import time
from pathlib import Path
from typing import TextIO

from .admit import RETRY_RECORD

__all__ = ["cannot_write_now", "complete_left", "record_before", "record_landed", "record_senders", "unacknowledged"]


#: The OS's errors of a root that cannot be written now (full, over quota or a file size limit, failing, mounted
#: read-only), which room or a repair ends: a landing not recorded for one of these is answered as retryable.
_NOT_NOW = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS)


def cannot_write_now(exc: BaseException) -> bool:
    """True when ``exc`` (from writing a landing's record, index or id table) says the root cannot be written now: an
    OSError of :data:`_NOT_NOW`, or SQLite's full, I/O or read-only error (``SQLITE_FULL``, ``SQLITE_IOERR_*``: on a
    full disk ``disk I/O error``; ``SQLITE_READONLY``). Another failure (an ``_index`` that is a file) is left to the
    derived data's own repair: the files are acknowledged, the failure said (tests/export/test_push_continued.py)."""
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        return name == "SQLITE_FULL" or name.startswith(("SQLITE_IOERR", "SQLITE_READONLY"))
    return isinstance(exc, OSError) and exc.errno in _NOT_NOW


def unacknowledged(unrecorded: dict[str, str], written: list[str], again: list[dict], refused: list[str],
                   counts: tuple[int, int]) -> tuple[int, int]:
    """The request's counts (landed, already there) without the files of ``unrecorded`` (root-relative path -> why
    their landing was not recorded: their sender line, their session's index or look for continuations), each of which
    gets its refusal line in ``refused``, ``rejected PATH: WHY (retryable: …)``: the pusher keeps it due and sends it
    again; then already there, it gets what it lacks. ``written``: the files the request landed; ``again``: those
    already there (dicts with ``file``)."""
    refused += [f"rejected {rel}: {why} ({RETRY_RECORD} once this root can be written)" for rel, why in unrecorded.items()]
    return (counts[0] - sum(r in unrecorded for r in written), counts[1] - sum(e["file"] in unrecorded for e in again))


def record_landed(root: Path, rels: list[str] | None, err: TextIO | None) -> None:
    """Give the sessions of the landed files ``rels`` (None: every session directory of ``root``, when it holds any)
    their line in the root's ``_sessions.list`` (:func:`asz_core.storage.session_list.record_sessions`), once their
    files are durable (:func:`.land.land` fsyncs each). A list that cannot be written is said on ``err``; the next
    request of the session, or the receiver's next start, tries again. Never raises."""
    from ..storage.layout import session_dirs
    from ..storage.session_list import LIST_REMADE, MADE_LATE, SESSION_LIST, kept_by, record_sessions

    kept = ""
    try:
        if rels is None:
            if not session_dirs(root):
                return
            kept = kept_by(root) if not (root / SESSION_LIST).exists() else ""  # a lost list (trial 41b F2)
            done = record_sessions(root)
        else:
            done = record_sessions(root, [r.split("/", 1)[0] for r in rels if not r.startswith("_")])
    except OSError as exc:
        if err is not None:
            print(f"error: {root / SESSION_LIST}: cannot record the sessions landed: {exc.strerror or exc}; "
                  "the next request of the session tries again", file=err, flush=True)
        return
    if done.created and done.added and rels is None and err is not None:
        said = (f"warning: {root / SESSION_LIST}: {LIST_REMADE.format(kept=kept, n=len(done.added))}" if kept else
                f"note: {root / SESSION_LIST}: {MADE_LATE.format(list=SESSION_LIST, n=len(done.added))}")
        print(said, file=err, flush=True)


def record_before(root: Path, err: TextIO | None) -> None:
    """Once per root, before it lands anything: list under ``_received/before.list`` the landed files of sessions an
    asz that kept no sender record received (:func:`asz_core.storage.senders.list_landed_before`), so that
    ``asz verify`` tells them from files whose record was removed; a line on ``err`` says how many. Never raises."""
    from ..storage.senders import BEFORE, RECEIVED, list_landed_before

    try:
        n = list_landed_before(root, time.time_ns())
    except OSError as exc:
        if err is not None:
            print(f"error: {root / RECEIVED / BEFORE}: cannot list the files landed before sender records were kept: "
                  f"{exc.strerror or exc}; asz verify names their sessions as having no sender record", file=err, flush=True)
        return
    if n and err is not None:
        print(f"note: {root / RECEIVED / BEFORE}: {n} landed file(s) of this root were received before it kept sender "
              "records: listed, with their SHA-256, as landed before (who sent them cannot be told)", file=err, flush=True)


_senders_lock = threading.Lock()


def record_senders(root: Path, sent_by: list[dict], err: TextIO | None, unless_named: bool = False) -> dict[str, str]:
    """Append ``sent_by`` (one dict per landed file: ``file``, ``sha256``, ``instance``, ``service``, ``credential``,
    ``received_at`` when it is not now (a journal's, :func:`complete_left`), and ``root`` when the request named its sending root, ``asz.root.id``: trial 34b F3)
    to the sender record of each file's session (:func:`asz_core.storage.senders.append_senders`), ``received_at``
    now; rounds (``_conversations/…``) have none (a conversation's senders are its sessions'). One writer at a time.
    ``unless_named``: files that arrived again, each written only when the record names no line of it (a receiver
    stopped between landing it and writing its line; the pusher, never answered, sends it again: trial 22a, F12).
    A record that cannot be written is said on ``err`` (the files stay landed, the record as it was) and returned:
    file -> why (the system's words), each file of that session; {} when every line was written. Never raises."""
    from ..sessiondata.times import format_rfc3339
    from ..storage.senders import BEFORE, RECEIVED, append_chained, append_senders, read_senders, senders_path

    at = format_rfc3339(time.time_ns())
    failed: dict[str, str] = {}
    by_session: dict[str, list[dict]] = {}
    for e in sent_by:
        if not e["file"].startswith("_"):
            by_session.setdefault(e["file"].split("/", 1)[0], []).append(
                {"file": e["file"], "sha256": e["sha256"], "received_at": e.get("received_at") or at, "instance": e["instance"],
                 "service": e["service"], "credential": e["credential"], **({"root": e["root"]} if e.get("root") else {})})
    with _senders_lock:
        # the first record: nothing landed here before records (no list, no record yet; _received/ itself may hold
        # only the lock files of the requests in flight, asz_core.storage.landing)
        if by_session and not (root / RECEIVED / BEFORE).exists() and not any((root / RECEIVED).glob("*.senders")):
            try:
                append_chained(root / RECEIVED / BEFORE, [])
            except OSError:
                pass  # said below, where the record itself cannot be written
        for session, entries in by_session.items():
            if unless_named:
                named = {e.get("file") for e in read_senders(senders_path(root, session)).entries}
                if not (entries := [e for e in entries if e["file"] not in named]):
                    continue
            try:
                append_senders(root, session, entries)
            except OSError as exc:
                failed.update((e["file"], f"its sender line could not be written: {exc.strerror or exc}") for e in entries)
                if err is not None:
                    print(f"error: {session}: cannot record who sent {len(entries)} file(s): {exc.strerror or exc}; "
                          "refused as retryable: the pusher sends them again and their lines are written then",
                          file=err, flush=True)
    return failed


def complete_left(root: Path, err: TextIO | None) -> int:
    """Write the sender lines a receiver killed mid-request did not (trial 45c F1): each file its request's journal
    names (:func:`asz_core.storage.landing.left_intents`) that is landed with the SHA-256 the journal keeps and that its
    session's record does not name gets the journal's line, ``received_at`` the time the request arrived. Called as
    ``asz receive`` starts, before the journals are removed (:func:`~asz_core.storage.landing.clear_left`); a line on
    ``err`` says how many. The number of lines written. Never raises."""
    import hashlib

    from ..storage.landing import left_intents
    from ..storage.senders import read_senders, senders_path

    named: dict[str, set] = {}
    lacking = []
    for rel, e in sorted(left_intents(root).items()):
        session = rel.split("/", 1)[0]
        if session not in named:
            named[session] = {x.get("file") for x in read_senders(senders_path(root, session)).entries}
        try:
            whole = hashlib.sha256((root / rel).read_bytes()).hexdigest() == e.get("sha256")
        except OSError:
            whole = False
        if whole and rel not in named[session]:
            lacking.append({k: v for k, v in e.items() if k != "journal"})
    failed = record_senders(root, lacking, err) if lacking else {}
    if (n := len(lacking) - len(failed)) and err is not None:
        print(f"note: {root / '_received'}: a receiver stopped mid-request (killed) after landing {n} file(s) and before "
              "writing their sender lines; written now from that request's journal (received_at: when the request "
              "arrived)", file=err, flush=True)
    return n
