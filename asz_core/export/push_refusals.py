"""What a push pass says of the files its receiver refused: one ``held:`` line and one ``rejected:`` line per session
at most, at the pass's end (trial 31a F5; docs/push.md, partial success).

An ``asz receive`` answer names each file it refused with its reason (``rejected <path>: why``, joined by ``; ``). A
pass quoted every answer whole, one line a request: a re-imaged host's first push (a new root of the same
transcripts, the receiver holding them from the old root) said seven lines of up to 33 KB each. Now each session
gets a line with its count and its first :data:`SHOWN` files: ``held:`` for the files the receiver refused only
because it holds every record of them already (no failure; push.state's ``elsewhere``/``owned`` lines name each, with
the receiver's file holding it), ``rejected:`` for real refusals, quoting the first file's reason whole (push.state's
``rejected`` lines name each file; the receiver's log says why for each).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TextIO

from ..storage.layout import CONVERSATIONS
from ..storage.readings import reread_of_file
from .admit import RETRY_RECORD, RETRYABLE

__all__ = ["SHOWN", "EACH", "Refusals", "files_and_rounds", "reasons_of", "session_of", "sessions_named"]

#: The system's words for a receiving root that takes no more files at all, whatever their size (ENOSPC, EDQUOT,
#: EROFS): after a file refused so, the rest of the pass would be refused too (a file size limit, EFBIG, is not one).
_FULL = tuple(os.strerror(e) for e in (errno.ENOSPC, errno.EDQUOT, errno.EROFS))

#: How many file names (and session ids) a line shows before ``and N more``.
SHOWN = 3
#: Where a line standing for two sessions or more says the full list is (trial 41a F5).
EACH = "asz push --each-session says a line per session"


def sessions_named(ids: list[str]) -> str:
    """``N session(s) (0d3a8e6f, 151b59e6, 2a1c44d0 and K more)``: how a line standing for two sessions or more names
    them, their count and the first :data:`SHOWN` ids (8 characters each; trial 28a F12, trial 41a F5)."""
    return (f"{len(ids):,} session(s) ({', '.join(i[:8] for i in ids[:SHOWN])}"
            + (f" and {len(ids) - SHOWN:,} more" if len(ids) > SHOWN else "") + ")")


def reasons_of(message: str) -> dict[str, str]:
    """An asz receiver's partial-success ``message`` (``rejected <path>: why`` per file, joined by ``; rejected ``) as
    ``{path: its whole reason, "rejected <path>: why"}``; {} when it names no file so."""
    first, *more = message.split("; rejected ")
    out: dict[str, str] = {}
    for part in [first, *(f"rejected {p}" for p in more)]:
        if part.startswith("rejected ") and ": " in part:
            out.setdefault(part[len("rejected "):].split(": ", 1)[0], part)
    return out


def session_of(rel: str) -> str:
    """The session a root-relative file belongs to: its first folder, a round's conversation (``_conversations/<id>/…``)."""
    parts = rel.split("/")
    return parts[1] if parts[0] == CONVERSATIONS and len(parts) > 1 else parts[0]


class Refusals:
    """The files the answers of one pass refused, by session, in the order they came."""

    def __init__(self, root: Path | None = None, each: bool = False) -> None:
        self.root = root  # the pushing root: whether a refused file holds a source's new reading (:func:`reread_said`)
        self.each = each  # a held: line per session even for two or more (asz push --each-session)
        self.held: dict[str, list[str]] = {}
        self.rejected: dict[str, list[tuple[str, str]]] = {}  # session -> (file, the receiver's reason)
        # session -> the files the receiver could not store this pass (its root could not write them: RETRY) and the
        # first one's reason: they stay due, and nothing more of the session is sent this pass (trial 34b F1)
        self.unstored: dict[str, tuple[list[str], str]] = {}
        # the first reason saying the receiving root is full (or read-only): the pass sends nothing more (trial 41a F1)
        self.full = ""

    def not_stored(self, message: str, named: list[tuple[str, str]]) -> set[str]:
        """Of the files an answer's ``message`` names (``named``: (file, its session) each), those it refused as
        retryable (:data:`.admit.RETRYABLE`: the receiving root could not write them, or they came after one it could
        not write, or it could not record them: :data:`.admit.RETRY_RECORD`), recorded in :attr:`unstored`: no line goes
        to push.state for them, and they go again. The first such reason saying the root is full sets :attr:`full`."""
        why = reasons_of(message) if named else {}
        out = set()
        for rel, session in named:
            if RETRYABLE in why.get(rel, ""):
                self.unstored.setdefault(session, ([], why[rel][len(f"rejected {rel}: "):]))[0].append(rel)
                out.add(rel)
                if not self.full and any(w in why[rel] for w in _FULL):
                    self.full = why[rel][len(f"rejected {rel}: "):]
        return out

    def stopped(self) -> str:
        """Why a pass stops once :attr:`full` is set (the receiving root takes no more files): said once, as the pass's
        failure (``push to ENDPOINT: … (N file(s) left for the next pass)``)."""
        return (f"the receiving root could not write ({self.full}); nothing more is sent this pass, whose every file it "
                "would refuse too")

    def unstored_said(self, endpoint: str) -> list[str]:
        """One error line per session of :attr:`unstored` (without ``error: ``): its files stay due."""
        return [f"{session}: {len(rels)} file(s) not stored by {endpoint}, which could not "
                f"{'record' if RETRY_RECORD in first else 'write'} them ({first}); they "
                "stay due and go again on the next push, with the rest of the session (nothing is recorded as "
                f"rejected; its metrics wait for them): {_names(rels)}" for session, (rels, first) in self.unstored.items()]

    def add(self, message: str, held: list[str], rejected: list[str]) -> None:
        """One answer's ``message`` and the files it refused: ``held`` (it holds every record of them already) and
        ``rejected`` (real refusals; each file's reason from ``message``, the whole message when it names none)."""
        for rel in held:
            self.held.setdefault(session_of(rel), []).append(rel)
        why = reasons_of(message)
        for rel in rejected:
            said = why.get(rel) or message or "no reason given"
            self.rejected.setdefault(session_of(rel), []).append((rel, said + reread_said(self.root, rel, said)))

    def say(self, err: TextIO) -> None:
        """The lines on ``err``, then forget them: per session ``held: N file(s) and R round(s) the receiver refused because it holds
        every record of them already (not a failure), of session S: F1, F2, F3 and K more`` (two sessions or more: one
        such line, ``held: N file(s) and R round(s) of S session(s) (…)``, unless :attr:`each`; trial 41a F5: 69 lines buried the
        one error) and ``rejected: N file(s) and R round(s): <the first file's reason> (of session S; and K more: F2, F3, F4 and J
        more)``, one per session (a refusal)."""
        if len(self.held) > 1 and not self.each:
            print(f"held: {files_and_rounds([r for rels in self.held.values() for r in rels])} of "
                  f"{sessions_named(list(self.held))} the "
                  "receiver refused because it holds every record of them already (not a failure; push.state's "
                  f"elsewhere and owned lines name each file; {EACH})", file=err, flush=True)
        for session, rels in self.held.items() if len(self.held) == 1 or self.each else ():
            print(f"held: {files_and_rounds(rels)} the receiver refused because it holds every record of them already "
                  f"(not a failure), of session {session}: {_names(rels)}", file=err, flush=True)
        for session, got in self.rejected.items():
            more = f"; and {len(got) - 1} more: {_names([rel for rel, _ in got[1:]])}" if len(got) > 1 else ""
            print(f"rejected: {files_and_rounds([rel for rel, _ in got])}: {got[0][1]} (of session {session}{more})",
                  file=err, flush=True)
        self.held, self.rejected = {}, {}


def files_and_rounds(rels: list[str]) -> str:
    """``N file(s) and R round(s)``: how many of ``rels`` (root-relative paths) are landed files and how many rounds
    (``_conversations/…``), never "records", which elsewhere are a transcript's lines (trial 45c F6)."""
    rounds = sum(r.startswith(f"{CONVERSATIONS}/") for r in rels)
    return f"{len(rels) - rounds:,} file(s) and {rounds:,} round(s)"


#: What a receiver that takes no new reading (an asz before 2026-12-06, another OTLP receiver) says of its first file:
#: its records start again at ord 1 where the stream there goes on (:func:`.admit._follows`' words).
_NOT_CONTINUED = ("does not continue its stream", "repeats a record from inside")


def reread_said(root: Path | None, rel: str, reason: str) -> str:
    """What the pass adds to a receiver's reason for refusing ``rel`` when the file holds a source's new reading (sent
    with ``asz.reread``, :func:`~asz_core.storage.readings.reread_of_file`) and the reason is the stream not continued
    (trial 34b F2): the receiver took no new reading, so it is an older one; '' otherwise."""
    if root is None or not any(w in reason for w in _NOT_CONTINUED):
        return ""
    reread = reread_of_file(root / rel)
    if not reread:
        return ""
    return (f" [this file holds its source's new reading, read again from its start from seq {reread} (asz sources "
            "--reset-conflict --reread), and said so (asz.reread); this receiver does not take a new reading: an asz "
            "receive before 2026-12-06 or another OTLP receiver. Upgrade it, then asz push --retry-rejected sends the "
            "reading again]")


def _names(rels: list[str]) -> str:
    """The first :data:`SHOWN` of ``rels``, then ``and N more``."""
    return ", ".join(rels[:SHOWN]) + (f" and {len(rels) - SHOWN} more" if len(rels) > SHOWN else "")
