"""Which receiver credential each talk's records came with, in a conversation whose landed files came with more than
one (trial 27c F1, fix27e's leftover "no per-talk mark"; docs/push.md, One session, one credential).

``asz receive`` records who sent each landed file (``_received/<session>.senders``, :mod:`asz_core.storage.senders`);
each step of the asz.view document cites its records by landed file (``ref``/``refs``: ``seq``), and the document's
``files`` name the file of each ``seq``. So a talk's records are in known files, each sent with a known credential:
:func:`talk_credentials` names the talks whose records came with a credential other than the session's owner (the
credential of the first sender line that verifies and names one, the receiver's own rule:
:func:`asz_core.export.owners.owned_by`). The page marks those talks (``/api/c/{id}/headings``' ``credentials``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

__all__ = ["talk_credentials"]


def _nodes(n: dict) -> Iterator[dict]:
    yield n
    for c in n.get("children") or ():
        yield from _nodes(c)


def _seqs(n: dict) -> Iterator[int]:
    """The landed-file seqs node ``n`` cites: its ``ref`` and each of its ``refs``."""
    for r in [n.get("ref")] + list(n.get("refs") or ()):
        if isinstance(r, dict) and isinstance(r.get("seq"), int):
            yield r["seq"]


def talk_credentials(root: str | Path, doc: dict) -> dict[str, dict]:
    """``{talk id: {"credentials": [names], "owner": name}}`` for each talk of ``doc`` (a conversation's asz.view
    document in ``root``, its top-level ``talks``, a subagent's among them) one of whose records lies in a landed file
    sent with a credential other than ``owner``, the credential of the session's first sender line that verifies and
    names one; ``credentials``: every credential its records' files came with, in order of the talk's steps (``(no
    credential name)`` for files sent with one unnamed token or none; files whose sender line does not verify, or with
    no line, name none and mark nothing). ``{}`` when the session's files came with one credential, or the root keeps
    no sender record (not a receiving root). Reads the session's sender record; never raises."""
    from ..storage.layout import dir_name
    from ..storage.senders import (NO_CREDENTIAL, RECEIVED, UNVERIFIED, credentials_of, read_senders, senders_path,
                                   session_senders)

    root = Path(root)
    sessions = [s for s in doc.get("sessions") or () if isinstance(s, str)]
    if len(sessions) != 1 or not (root / RECEIVED).is_dir():
        return {}
    session = sessions[0]
    if len(credentials_of(session_senders(root, session))) < 2:
        return {}
    try:
        entries = read_senders(senders_path(root, dir_name(session))).entries
    except ValueError:
        return {}
    sent = {e["file"]: e.get("credential") if isinstance(e.get("credential"), str) else NO_CREDENTIAL
            for e in entries if not e.get(UNVERIFIED)}
    owner = next((e["credential"] for e in entries if not e.get(UNVERIFIED) and isinstance(e.get("credential"), str)
                  and e["credential"]), None)
    if owner is None:
        return {}
    file_of = {f["seq"]: f["file"] for f in doc.get("files") or () if isinstance(f.get("seq"), int)}
    out: dict[str, dict] = {}
    for t in doc.get("talks") or ():
        names: list[str] = []
        for n in _nodes(t):
            for seq in _seqs(n):
                name = sent.get(file_of.get(seq, ""))
                if name is not None and name not in names:
                    names.append(name)
        if any(name != owner for name in names):
            out[t["id"]] = {"credentials": names, "owner": owner}
    return out
