"""One session, one credential (trial 27c F1; docs/push.md, One session, one credential).

A receiver whose token file names each credential (``NAME TOKEN`` lines) lands a session's files and rounds only
from the credential that sent its first file: the first line of the session's sender record
(:mod:`asz_core.storage.senders`) that verifies and names a credential. Any other named credential is refused
(:data:`OWNED`), so one token holder cannot add talks to a session another sent, which every reader would then call
verified. A receiver with one unnamed token, or none, has one credential for every sender: nothing is checked.

Requests of named credentials touching one session are answered one at a time (:func:`one_at_a_time`): a request
refused a session another request is landing first waits for that landing, so what it says this root holds of its
records is said after it (trial 43a F1: two hosts' first pushes of one copied session ran together, and the refused
one was told the root lacks 54 of its 54 records, which the first landed a moment later). A request whose turn does not
come soon is answered busy (:class:`Busy`), so requests of one session never hold every worker of the receiver while
other sessions' requests wait behind them (close43, "Not done"; fix44a).
"""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..flow.chain import Chain, round_session
from ..storage.layout import CONVERSATIONS, dir_name
from .admit import Refused, held_clause, landed_seq, round_reads

__all__ = ["OWNED", "OWNED_AT", "CANNOT_ADD", "Busy", "RETRY_AFTER", "STOPPING", "TURN_WAIT", "WAITING_AT_MOST", "owned_by", "release",
           "sessions_of", "one_at_a_time", "waiting"]


#: Why a file is refused for a session another credential sent (trial 27c F1); formatted with ``rel``, ``session``,
#: ``owner`` and ``credential``.
OWNED = ("{rel}: its session {session} was first sent with credential {owner}: credential {credential} cannot add to "
         "it (a session's files and rounds land only from the credential that sent its first file; docs/push.md, "
         "One session, one credential)")
#: In an :data:`OWNED` refusal, before the owner's name; :data:`CANNOT_ADD` after it (what a pusher reads back).
OWNED_AT = "was first sent with credential "
CANNOT_ADD = ": credential "

_owners_lock = threading.Lock()
#: (root, session directory) -> the credential its sender record's first line names (append-only: it never changes).
_owners: dict[tuple[str, str], str] = {}
#: (root, session directory) -> the credential of a request now landing the session's first files (not yet recorded).
_claims: dict[tuple[str, str], str] = {}
#: (root, session directory) -> the lock a request of a named credential touching the session holds while answered.
_turns: dict[tuple[str, str], threading.Lock] = {}

#: Seconds a request waits for its sessions' turn (:func:`one_at_a_time`) before it is answered busy.
TURN_WAIT = 10.0
#: At most this many requests wait for a session's turn at once (half the receiver's 8 gRPC workers): one more is
#: answered busy at once, so the others always find a worker for the other sessions' requests.
WAITING_AT_MOST = 4
#: Seconds a busy answer asks its sender to wait before it sends the request again (HTTP ``Retry-After``, gRPC
#: ``retry-after`` trailing metadata: what ``asz push`` reads).
RETRY_AFTER = 1
#: Why a request is answered busy once ``asz receive`` stops (:class:`Busy`).
STOPPING = "asz receive is stopping: nothing of this request was landed; send it again once it is back"
_waiting = threading.BoundedSemaphore(WAITING_AT_MOST)
_waiting_now = [0]


class Busy(Exception):
    """A request answered busy, nothing of it landed (``str``: why, one line): its sessions' turn did not come within
    :data:`TURN_WAIT` seconds, :data:`WAITING_AT_MOST` requests were waiting already, or the receiver began to stop
    while it waited. HTTP answers 503 with ``Retry-After``, gRPC ``RESOURCE_EXHAUSTED`` with ``retry-after``, both
    :data:`RETRY_AFTER` seconds: ``asz push`` sends the same request again after them (docs/push.md, The receiver's
    limits)."""


def waiting() -> int:
    """How many requests wait for a session's turn now (:func:`one_at_a_time`)."""
    return _waiting_now[0]


def _recorded_owner(root: Path, session: str) -> str | None:
    """The credential the first line of ``session``'s sender record names that verifies and names one; None: none."""
    from ..storage.senders import UNVERIFIED, read_senders, senders_path

    for e in read_senders(senders_path(root, session)).entries:
        if not e.get(UNVERIFIED) and isinstance(e.get("credential"), str) and e["credential"]:
            return e["credential"]
    return None


def owned_by(root: Path, rel: str, data: bytes, credential: str | None, claimed: set[tuple[str, str]]) -> None:
    """Refused (:data:`OWNED`) when ``rel`` (a landed file, or a round: the session its header reads and the session
    round 1 of the chain its path names reads) is of a session whose first file came with another named credential
    (trial 27c F1). Checked only for a named ``credential`` (a token file of ``NAME TOKEN`` lines): one unnamed token,
    or none, is one credential for every sender. A session no named credential sent yet is taken by this one (kept in
    ``claimed`` until the request's sender lines are written, :func:`release`), so two requests at once cannot both
    start it. A landed file's refusal ends with what this root holds of its records (:func:`.admit.held_clause`:
    ``this root holds every record of it …`` or ``this root lacks N of its M record(s)``; trial 28a F2): the receiver
    lists the second as a short session, and the pusher says which it is."""
    if not credential:
        return
    at = landed_seq(rel)
    for session in sessions_of(root, rel, data):
        try:
            _owned(root, rel, session, credential, claimed)
        except Refused as exc:  # a landed file: whether this root holds its records, from the owner (trial 28a F2)
            clause = held_clause(root, rel, data) if at is not None else ""
            raise Refused(f"{exc}; {clause}" if clause else str(exc)) from None


def sessions_of(root: Path, rel: str, data: bytes) -> list[str]:
    """The session directories whose owner :func:`owned_by` checks for ``rel`` (a landed file: its session; a round:
    the session its header reads and the session round 1 of the chain its path names reads), in order, each once;
    ``[]`` for a path naming none."""
    at = landed_seq(rel)
    sessions = [at[0] if at is not None else (rel.split("/", 1)[0] if not rel.startswith("_") else None)]
    if sessions[0] is None and rel.endswith(".sf"):
        reads = round_reads(data)
        # the chain the round would join: a round naming a session of this credential must not take a slot in the
        # chain of another's session (the fold would then stop there: every reader says mismatch)
        sessions = [reads[0] if reads is not None else None, _chain_session(root, rel)]
    return list(dict.fromkeys(s for s in sessions if s))


@contextmanager
def one_at_a_time(root: Path, sessions: Iterable[str], credential: str | None,
                  stopping: Callable[[], bool] = lambda: False, wait: float | None = None) -> Iterator[None]:
    """Held while a request of the named ``credential`` touching ``sessions`` (:func:`sessions_of` of its files) is
    answered: another such request touching one of them waits until this one has landed and recorded its files and
    released its claims (trial 43a F1: a request refused a session another was still landing said the root lacks
    every record of it, and listed the session short for good). The locks are taken in sorted order, so two requests
    each touching two sessions cannot wait for each other. Nothing is held without a named credential (no owner is
    checked then). Raises :class:`Busy`, nothing held, when the turn does not come within ``wait`` seconds (default
    :data:`TURN_WAIT`), when :data:`WAITING_AT_MOST` requests wait already, or once ``stopping()`` (the receiver
    stops: asked every 0.1 s while waiting)."""
    if not credential:
        yield
        return
    with ExitStack() as stack:
        locks = []
        for session in sorted(set(sessions)):
            with _owners_lock:
                locks.append(_turns.setdefault((str(root), session), threading.Lock()))
        for release_ in _take(locks, stopping, TURN_WAIT if wait is None else wait):
            stack.callback(release_)
        yield


def _take(locks: list[threading.Lock], stopping: Callable[[], bool], wait: float) -> list[Callable[[], None]]:
    """Take each of ``locks`` in order (:func:`one_at_a_time`); their releases, in the order taken. Raises
    :class:`Busy` (none held) as :func:`one_at_a_time` says."""
    taken: list[threading.Lock] = []
    slot, end = False, time.monotonic() + wait
    try:
        for lock in locks:
            while not lock.acquire(timeout=0.1 if slot else 0):
                if not slot:
                    if not _waiting.acquire(blocking=False):
                        raise Busy(f"{WAITING_AT_MOST} requests wait for their session's turn already (a session's "
                                   f"requests are landed one at a time)")
                    slot = True
                    with _owners_lock:
                        _waiting_now[0] += 1
                    continue
                if stopping():
                    raise Busy(STOPPING)
                if time.monotonic() >= end:
                    raise Busy(f"its session's turn did not come in {wait:g} s (another request of it is landing)")
            taken.append(lock)
    except BaseException:
        for lock in reversed(taken):
            lock.release()
        raise
    finally:
        if slot:
            with _owners_lock:
                _waiting_now[0] -= 1
            _waiting.release()
    return [lock.release for lock in taken]


def _chain_session(root: Path, rel: str) -> str | None:
    """The session directory round 1 of the chain ``rel`` (``_conversations/<id>/rounds/<name>.sf``) names; None:
    no such chain here yet, or its round 1 does not read."""
    parts = rel.split("/")
    if len(parts) != 4 or parts[0] != CONVERSATIONS or parts[1] in ("", ".", ".."):
        return None
    files = Chain.at(root / CONVERSATIONS / parts[1]).round_files()
    first = round_session(files[0].path) if files and files[0].number == 1 else ""
    try:
        return dir_name(first) if first else None
    except ValueError:
        return None


def _owned(root: Path, rel: str, session: str, credential: str, claimed: set[tuple[str, str]]) -> None:
    """Refused (:data:`OWNED`) when ``session`` is owned by a credential other than ``credential``; else it is, or
    becomes (claimed), this credential's."""
    key = (str(root), session)
    with _owners_lock:
        owner = _owners.get(key) or _claims.get(key)
        if owner is None:
            if (owner := _recorded_owner(root, session)) is not None:
                _owners[key] = owner
            else:
                owner = _claims[key] = credential
                claimed.add(key)
    if owner != credential:
        raise Refused(OWNED.format(rel=rel, session=session, owner=owner, credential=credential))


def release(claimed: set[tuple[str, str]]) -> None:
    """Drop a request's claims (:func:`owned_by`): what it landed is in the sender record now."""
    if claimed:
        with _owners_lock:
            for key in claimed:
                _claims.pop(key, None)
