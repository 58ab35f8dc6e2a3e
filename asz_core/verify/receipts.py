"""``asz verify --root TEAM --receipts HOST``: a receiving root held to what each pushing host says it accepted
(trial 22a, F9 and F11; docs/verify.md, "Nothing altered, nothing lost: the hosts' receipts").

One root cannot show a file rewritten, re-sealed and its rounds, index and sender record rebuilt, nor a session
removed whole with its sender record and its ``_sessions.list`` line: what is left is consistent again. Each pushing
host keeps, outside the receiving root's reach, the SHA-256 the receiver accepted for every file it pushed: its
``push.state`` (origin-digest §8.4; ``pushed <path> <sha256>``, kept after ``asz prune``, whose skeletons keep
``removed.digest`` too). This check holds the receiving root to those receipts: every file a host says the receiver
accepted (a ``pushed`` line with no ``rejected`` line) must be in the root with that SHA-256, as a landed file or
round, or as a skeleton whose ``removed.digest`` is that digest. A round the receiver set aside when it took a chain
built anew (``_set_aside/<stamp>/<path>``) counts as there. Anything else is a problem naming the file, the host's
receipts and the session: :data:`CHANGED` (in the root with another SHA-256) or :data:`MISSING` (not in it).

The receipts are the host's own word: a host whose own root was rewritten too proves nothing (docs/verify.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Protocol

from ..flow.round import landed_file_digest
from ..storage.aside import SET_ASIDE
from .report import Problem, Section

__all__ = ["CHANGED", "MISSING", "Receipts", "check_receipts"]

#: The problem name of a file the root holds with another SHA-256 than the one a host's receipts say it accepted.
CHANGED = "changed since received"
#: The problem name of a file a host's receipts say the receiver accepted that the root no longer holds.
MISSING = "missing since received"


class Receipts(Protocol):
    """What the check reads of one host's receipts (:class:`asz_core.export.state.PushState` is one): ``endpoint``,
    ``pushed`` (path relative to the root → SHA-256 hex, in the file's order), ``rejected`` (paths)."""

    endpoint: str
    pushed: dict[str, str]
    rejected: set[str]


def _session_of(rel: str) -> str:
    """The session (or, for a round, the conversation) a receipt's path belongs to: its first directory, or the
    conversation's directory under ``_conversations/``."""
    parts = rel.split("/")
    return parts[1] if parts[0] == "_conversations" and len(parts) > 1 else parts[0]


def _held(root: Path, rel: str, digests: dict[str, str]) -> tuple[str, str]:
    """``(how, SHA-256)`` of the root's file at ``rel``: ``landed`` (the file, its digest from ``digests`` when
    verify found it on its way, else hashed), ``skeleton`` (its ``removed.digest``), ``set aside`` (a round moved
    under ``_set_aside/``: its digest); ``("", "")`` when none is there. A file that cannot be read is ``landed``
    with digest ``unreadable``."""
    path = root / rel
    got = digests.get(str(path))
    if got is not None:
        return "landed", got
    for how, p in (("landed", path), ("skeleton", path.with_suffix(".sk"))):
        if p.is_file() and (how == "landed" or rel.endswith(".sd")):
            try:
                return how, landed_file_digest(p)
            except (OSError, ValueError, EOFError):
                return how, "unreadable"
    if rel.startswith("_conversations/"):
        aside = root / SET_ASIDE
        for stamp in sorted(os.listdir(aside)) if aside.is_dir() else ():
            p = aside / stamp / rel
            if p.is_file():
                try:
                    return "set aside", landed_file_digest(p)
                except OSError:
                    continue
    return "", ""


def check_receipts(root: str | os.PathLike, receipts: Iterable[tuple[str, Receipts]], *, only: str | None = None,
                   digests: dict[str, str] | None = None) -> Section:
    """The ``receipts`` section: ``receipts`` is one ``(how the host's receipts were given, its receipts)`` per host.

    Each file a host's receipts hold as accepted (``pushed`` and not ``rejected``; ``only``: of that session or its
    conversation) is looked for in ``root`` (``digests``: the whole landed files' SHA-256 verify found on its way, by
    ``str(path)``, so nothing is hashed twice); one :data:`CHANGED` or :data:`MISSING` problem per file that is not
    there with that SHA-256. Counts ``receipts`` (files looked for), ``receipts_changed``, ``receipts_missing``,
    ``receipts_rejected`` (files the receiver refused: not looked for); a note per host. Never raises for what
    the root holds (a file that does not read is :data:`CHANGED`)."""
    root = Path(root)
    root_shown = str(root)
    digests = {} if digests is None else digests
    section = Section("receipts", "")
    looked = changed = missing = rejected = hosts = 0
    for shown, got in receipts:
        hosts += 1
        h_looked = h_changed = h_missing = h_rejected = h_aside = 0
        for rel, want in got.pushed.items():
            if only is not None and _session_of(rel) != only:
                continue
            if rel in got.rejected:
                h_rejected += 1
                continue
            h_looked += 1
            how, have = _held(root, rel, digests)
            where = f"the receipts of {shown} (endpoint {got.endpoint or 'not named'})"
            session = f"session {_session_of(rel)}" if not rel.startswith("_conversations/") else \
                f"conversation {_session_of(rel)}"
            if not how:
                h_missing += 1
                section.problems.append(Problem(os.path.join(root_shown, rel), 0, "file", MISSING, (
                    f"{where} say the receiver accepted this file of {session} with SHA-256 {want}; it is not in "
                    "the root (removed after it landed): a copy held elsewhere (that host's root, a backup) is what "
                    "is left of it")))
            elif have != want:
                h_changed += 1
                held = "its skeleton keeps removed.digest" if how == "skeleton" else "the root holds it with SHA-256"
                section.problems.append(Problem(os.path.join(root_shown, rel), 0, "sha256", CHANGED, (
                    f"{where} say the receiver accepted this file of {session} with SHA-256 {want}; {held} {have}: "
                    "it was changed after it landed (whatever else in the root agrees with it now)")))
            elif how == "set aside":
                h_aside += 1
        looked, changed, missing, rejected = (looked + h_looked, changed + h_changed, missing + h_missing,
                                              rejected + h_rejected)
        section.notes.append(
            f"receipts of {shown} (endpoint {got.endpoint or 'not named'}): {h_looked} file(s) the receiver accepted: "
            f"{h_looked - h_changed - h_missing} in the root with that SHA-256"
            + (f" ({h_aside} of them rounds set aside by a chain built anew)" if h_aside else "")
            + f", {h_changed} changed, {h_missing} missing"
            + (f"; {h_rejected} it rejected, not looked for" if h_rejected else ""))
    section.summary = f"checked {looked} receipt(s) of {hosts} host(s) against the root"
    section.counts.update({"receipts": looked, "receipts_changed": changed, "receipts_missing": missing,
                           "receipts_rejected": rejected})
    section.problems.sort(key=lambda p: p.file)
    return section
