"""One session, one credential (trial 27c F1; docs/push.md, One session, one credential).

A receiver whose token file names each credential (``NAME TOKEN`` lines) lands a session's files and rounds only
from the credential that sent its first file: the first line of the session's sender record
(:mod:`asz_core.storage.senders`) that verifies and names a credential. Any other named credential is refused
(:data:`OWNED`), so one token holder cannot add talks to a session another sent, which every reader would then call
verified. A receiver with one unnamed token, or none, has one credential for every sender: nothing is checked.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ..flow.chain import Chain, round_session
from ..storage.layout import CONVERSATIONS, dir_name
from .admit import Refused, held_clause, landed_seq, round_reads

__all__ = ["OWNED", "OWNED_AT", "CANNOT_ADD", "owned_by", "release"]


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
    sessions = [at[0] if at is not None else (rel.split("/", 1)[0] if not rel.startswith("_") else None)]
    if sessions[0] is None and rel.endswith(".sf"):
        reads = round_reads(data)
        # the chain the round would join: a round naming a session of this credential must not take a slot in the
        # chain of another's session (the fold would then stop there: every reader says mismatch)
        sessions = [reads[0] if reads is not None else None, _chain_session(root, rel)]
    for session in dict.fromkeys(s for s in sessions if s):
        try:
            _owned(root, rel, session, credential, claimed)
        except Refused as exc:  # a landed file: whether this root holds its records, from the owner (trial 28a F2)
            clause = held_clause(root, rel, data) if at is not None else ""
            raise Refused(f"{exc}; {clause}" if clause else str(exc)) from None


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
