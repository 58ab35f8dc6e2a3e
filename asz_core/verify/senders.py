"""``asz verify`` over a receiving root's sender record (trial 19, F3 and F17; docs/push.md, "Who sent what").

The record (:mod:`asz_core.storage.senders`, ``_received/<session>.senders``)
is the receiver's own account of who sent each file, kept beside the landed
files and never inside them. It cannot be derived from them, so verify checks
it as evidence of its own: every line reads, each line's ``prev`` is the
SHA-256 of the line before (none changed, left out or moved), and each file it
names is in the root with the SHA-256 the line keeps (a skeleton by the digest
its ``removed`` header keeps). A session erased on request (``asz erase``: named in ``_erased.list``, its
erasure finished or not) is not held to its lines: its record is part of the erasure, which deletes it (a kill before
that leaves it, and verify warns ``erasure not finished``; trial 32b, F3); ``before.list``'s lines of it stay by
design. A ``note`` names who sent what. Digests are
integrity, not authenticity: a line proves what this receiver wrote, not
who the sender was beyond the token it held.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..flow.round import landed_file_digest
from ..storage.erased_list import erased_names
from ..storage.sender_roots import two_roots, two_roots_line
from ..storage.landing import left_intents
from ..storage.senders import BEFORE, RECEIVED, UNWRITTEN_SAID, read_senders, sender_label, senders_summary
from .report import Problem, Section

__all__ = ["SENDER_RECORD", "check_senders"]

#: The problem name of a sender record's finding.
SENDER_RECORD = "sender record"


def _digest_of(path: Path, digests: dict[str, str] | None) -> str:
    """The whole-file SHA-256 of the landed file at ``path`` (``digests`` when it found it), else of its skeleton's
    ``removed`` digest; '' when neither is there or reads."""
    if digests is not None and str(path) in digests:
        return digests[str(path)]
    for p in (path, path.with_suffix(".sk")):
        try:
            return landed_file_digest(p)
        except (OSError, ValueError, EOFError):
            continue
    return ""


def _read_problems(shown: str, problems: list[str], section: Section) -> None:
    """A :data:`SENDER_RECORD` problem on ``shown`` for each of ``problems`` (``line N: why``, a chained list's lines
    that do not read or break the chain: :attr:`~asz_core.storage.senders.SendersRead.problems`)."""
    for p in problems:
        n, _, why = p.partition(": ")
        section.problems.append(Problem(shown, int(n.split()[1]), "", SENDER_RECORD, why))


def _unrecorded(root: Path, root_shown: str, section: Section, sessions: list[Path], named: dict[str, set[str]],
                 digests: dict[str, str] | None, before: set[str] | None) -> None:
    """Add a :data:`SENDER_RECORD` problem for each of ``sessions`` that ``asz receive`` landed (no ``session.state``:
    no collect pass wrote it here) with landed files and no sender record, or whose record names none of some of its
    whole landed files (``digests``' keys; ``named``: session directory → the files its record names; trial 22a, F12).
    A file ``before`` holds (``_received/before.list``: landed before the root kept sender records) needs no line;
    ``before`` None: the root has no such list (its records were begun by an asz that kept none)."""
    by_session: dict[str, list[str]] = {}  # session directory -> its whole landed files, root-relative, as .sd
    for p in digests or ():
        rel = os.path.relpath(p, root).replace(os.sep, "/")
        by_session.setdefault(rel.split("/", 1)[0], []).append(rel.removesuffix(".sk").removesuffix(".sd") + ".sd")
    listed = before or set()
    meant = left_intents(root)  # files a receiver killed mid-request landed, its journal naming their lines (45c F1)
    for sdir in sessions:
        if (sdir / "session.state").exists():
            continue  # collected into this root: it has no sender record
        have = named.get(sdir.name)
        files = sorted(f for f in by_session.get(sdir.name, ()) if f not in listed)
        shown = os.path.join(root_shown, RECEIVED, f"{sdir.name}.senders")
        if unwritten := [f for f in files if f in meant and f not in (have or ())]:
            files = [f for f in files if f not in unwritten]
            journal = os.path.join(root_shown, os.path.relpath(meant[unwritten[0]]["journal"], root))
            section.warnings.append(Problem(shown, 0, "", SENDER_RECORD, UNWRITTEN_SAID.format(
                n=len(unwritten), journal=journal) + f" (the first: {unwritten[0]})"))
            section.counts["sender_lines_not_yet_written"] = section.counts.get("sender_lines_not_yet_written", 0) + len(unwritten)
            if not files:
                continue
        if have is None and (files or digests is None and not any(f.startswith(sdir.name + "/") for f in listed)
                             and any(sdir.glob("*/*/*.sd"))):
            section.problems.append(Problem(shown, 0, "", SENDER_RECORD, (
                f"session {sdir.name} holds {len(files) or 'its'} landed file(s) that asz receive landed (no "
                "session.state: no collect pass wrote them here), but no sender record, and "
                + (f"{RECEIVED}/{BEFORE} (what landed before the root kept sender records) does not name them: the "
                   "record was removed, or an asz receive before 2026-12-07 was killed between landing them and writing "
                   "their lines (the sending host's next push writes them)" if before is not None else
                   f"no {RECEIVED}/{BEFORE}: the record was removed, or they landed before asz receive kept records "
                   f"and no asz receive that lists such files in {BEFORE} has started on this root since (one lists "
                   "them when it starts), or an asz receive before 2026-12-07 was killed between landing them and "
                   "writing their lines (the sending host's next push writes them)")
                + "; who sent them cannot be told; the pushing hosts' receipts (asz verify --receipts) still say what "
                "the receiver accepted")))
        elif have is not None and (lost := [f for f in files if f not in have]):
            section.problems.append(Problem(shown, 0, "", SENDER_RECORD, (
                f"{len(lost)} of session {sdir.name}'s {len(files)} landed file(s) have no line in its sender record "
                f"(the first: {lost[0]}): lines were removed from its end, or the receiver stopped between landing "
                "them and writing their lines (the pusher's next pass sends them again and the receiver writes them), "
                "or an asz receive before 2026-12-06 could not write their lines (a full disk) and answered them as "
                "taken: the host sends them again once its push.state is moved aside (every file goes again, already "
                "there, and the receiver writes the lines it lacks; docs/push.md, A file the receiving root cannot "
                "write)")))


def _check_before(root: Path, root_shown: str, section: Section, only: str | None,
                  digests: dict[str, str] | None) -> set[str] | None:
    """The files ``_received/before.list`` names (``only``: of that session directory), None when the root has no
    such list. Adds a :data:`SENDER_RECORD` problem per line that does not read or breaks the chain, names no landed
    file of a session, or a file the root does not hold with the SHA-256 the line keeps; and a note
    ``landed before sender records were kept (_received/before.list, listed …): N landed file(s) of M session(s) …``."""
    path = root / RECEIVED / BEFORE
    if not path.is_file():
        return None
    shown = os.path.join(root_shown, RECEIVED, BEFORE)
    got = read_senders(path)
    _read_problems(shown, got.problems, section)
    listed: set[str] = set()
    gone = erased_names(root)
    for n, e in enumerate(got.entries, 1):
        rel = str(e.get("file"))
        if only is not None and not rel.startswith(only + "/") or rel.split("/", 1)[0] in gone:
            continue  # another session's; or one erased on request, whose lines stay (paths and digests only)
        if rel.startswith(("/", "_", ".")) or ".." in rel.split("/") or not rel.endswith(".sd") or "/" not in rel:
            section.problems.append(Problem(shown, n, "file", SENDER_RECORD, f"{rel!r} is not a landed file of a session"))
        elif _digest_of(root / rel, digests) != e.get("sha256"):
            section.problems.append(Problem(shown, n, "sha256", SENDER_RECORD, (
                f"{rel} is not in the root with the SHA-256 this line keeps (listed {e.get('listed_at')} as landed "
                "before the root kept sender records)")))
        listed.add(rel)
    if listed:
        at = got.entries[0].get("listed_at")
        section.notes.append(
            f"landed before sender records were kept ({RECEIVED}/{BEFORE}, listed {at} by asz receive: "
            f"{got.entries[0].get('how')}): {len(listed)} landed file(s) of {len({f.split('/', 1)[0] for f in listed})} "
            "session(s); who sent them cannot be told, the pushing hosts' receipts (asz verify --receipts) say what "
            "the receiver accepted")
        section.counts["landed_before_records"] = len(listed)
    return listed


def check_senders(root: Path, root_shown: str, section: Section, only: str | None = None,
                  digests: dict[str, str] | None = None, sessions: list[Path] | None = None) -> None:
    """Add to ``section`` one :data:`SENDER_RECORD` problem per line of ``root``'s sender records (``only``: that
    session directory's) that does not read or breaks the chain, or names a file the root does not hold with that
    digest, and one note ``received (sender record, _received/): N landed file(s): N from INSTANCE (credential NAME), …``.
    Count
    ``sender_lines`` when not 0. One more note per instance id more than one sending root sent under
    (:func:`~asz_core.storage.sender_roots.two_roots_line`, count ``two_roots``; trial 34b F3). Nothing when the root has no ``_received``. ``sessions``: the session directories
    checked, each one ``asz receive`` landed held to have a record naming each of its landed files (:func:`_unrecorded`)."""
    base = root / RECEIVED
    if not base.is_dir():
        return
    gone = erased_names(root)  # erased on request: their records go with the erasure, never checked
    names = [f"{only}.senders"] if only is not None else sorted(n for n in os.listdir(base) if n.endswith(".senders"))
    names = [n for n in names if n[:-len(".senders")] not in gone]
    lines, every = 0, []
    named: dict[str, set[str]] = {}
    for name in names:
        path = base / name
        if not path.is_file():
            continue
        shown = os.path.join(root_shown, RECEIVED, name)
        got = read_senders(path)
        named[name[:-len(".senders")]] = {str(e.get("file")) for e in got.entries}
        lines += len(got.entries)
        _read_problems(shown, got.problems, section)
        for n, e in enumerate(got.entries, 1):
            rel = str(e.get("file"))
            if rel.startswith("/") or ".." in rel.split("/") or not rel.startswith(name[:-len(".senders")] + "/"):
                section.problems.append(Problem(shown, n, "file", SENDER_RECORD, f"{rel!r} is not a file of this session"))
            elif _digest_of(root / rel, digests) != e.get("sha256"):
                section.problems.append(Problem(shown, n, "sha256", SENDER_RECORD,
                                                f"{rel} is not in the root with the SHA-256 this line keeps"))
        every += got.entries
    _unrecorded(root, root_shown, section, sessions or [], named, digests, _check_before(root, root_shown, section,
                                                                                          only, digests))
    who = ", ".join(f"{s['files']} whose sender line does not verify (named above)" if s.get("unverified") else
                    f"{s['files']} from {sender_label(s)}" for s in senders_summary(every))
    if who:
        section.notes.append(f"received (sender record, {RECEIVED}/): {lines} landed file(s): {who}")
        section.counts["sender_lines"] = lines
    if two := two_roots(every):  # one instance id, two sending roots (trial 34b F3): said, never merged unsaid
        section.notes += [two_roots_line(d, sender_label({"instance": d["instance"]})) for d in two]
        section.counts["two_roots"] = len(two)
