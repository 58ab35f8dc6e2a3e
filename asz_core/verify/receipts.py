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

A file of a session the root erased on request (``asz erase``: its ``_erased.list`` names the session or the
conversation, the erasure finished or not) is neither: it is counted apart (``receipts_erased``) and one note per
session names the erasure, and says whether the host erased it too (the host's own ``_erased.list``, when the receipts
were given as its root or a state it keeps) or still holds it. A session the host erased and this root still holds
(its files here with the receipts' SHA-256) is a warning naming both: the erasure did not reach the receiver
(trial 32b, F2).

The receipts are the host's own word: a host whose own root was rewritten too proves nothing (docs/verify.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Protocol

from ..flow.round import landed_file_digest
from ..storage.aside import SET_ASIDE
from .report import Problem, Section
from ..termsafe import shell_word

__all__ = ["CHANGED", "MISSING", "OTHER_RECEIVER", "Receipts", "check_receipts", "ERASED_HOST_ONLY"]

#: The problem name of a file the root holds with another SHA-256 than the one a host's receipts say it accepted.
CHANGED = "changed since received"
#: The problem name of a file a host's receipts say the receiver accepted that the root no longer holds.
MISSING = "missing since received"
#: The problem (or warning) name of receipts none of whose files is in the root: another receiver's.
OTHER_RECEIVER = "receipts of another receiver"
#: The warning name of a session the pushing host erased on request that the receiving root still holds.
ERASED_HOST_ONLY = "erased on the host only"


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


def held_files(got: Receipts) -> set[str]:
    """The files of ``got`` the receiver refused only because it holds every record of them already (trial 32c F5; the
    pusher's ``held``, docs/push.md): a landed file its receipts keep as ``elsewhere … all`` (from another root) or
    ``owned … all`` (another credential's files), and a round of a session every refused landed file of which is held
    so (the pusher's own rule also looks at the round's seqs, which the receipts do not keep: a round whose session
    has a refused file that is not held reads as rejected here). Receipts without those lines hold none."""
    elsewhere = getattr(got, "elsewhere", {}) or {}
    owned = getattr(got, "owned", {}) or {}
    whole = {rel for rel in got.rejected if not rel.startswith("_conversations/")
             and (elsewhere.get(rel, ("",))[0] == "all" or owned.get(rel, ("", ""))[1] == "all")}
    by_session: dict[str, bool] = {}
    for rel in got.rejected:
        if not rel.startswith("_conversations/"):
            s = rel.split("/", 1)[0]
            by_session[s] = by_session.get(s, True) and rel in whole
    return whole | {rel for rel in got.rejected if rel.startswith("_conversations/")
                    and by_session.get(_session_of(rel), False)}


def _held_said(got: Receipts, held: set[str]) -> str:
    """What ``N held`` says of the files ``held`` (of :func:`held_files`) by the real cause: ``(the receiver holds every
    record of them from another root)`` (``elsewhere … all``), ``(… in the files of credential NAME, which sent their
    session first)`` (``owned … all``: refused as that credential's session; a round by its session's files), or both,
    counted apart (trial 43a F5: files refused for their credential were said to be held from another root)."""
    owned = getattr(got, "owned", {}) or {}
    by_owner = {rel: v[0] for rel, v in owned.items() if rel in held and v[1] == "all"}
    sessions = {rel.split("/", 1)[0] for rel in by_owner}
    mine = sum(1 for rel in held if rel in by_owner or rel.startswith("_conversations/") and _session_of(rel) in sessions)
    whose = (f"in the files of credential {', '.join(sorted(set(by_owner.values())))}, which sent their session "
             "first")
    if not mine:
        return "(the receiver holds every record of them from another root)"
    if mine == len(held):
        return f"(the receiver holds every record of them {whose})"
    return f"(the receiver holds every record of them: {len(held) - mine} from another root, {mine} {whose})"


def _check_host(root: Path, shown: str, got: Receipts, only: str | None, digests: dict[str, str],
                problems: list[Problem], erased: dict[str, list[str]] | None = None,
                found_by: dict[str, int] | None = None) -> tuple[int, int, list[str], int, int]:
    """Look for each file ``got`` holds as accepted (see :func:`check_receipts`) in ``root``; append a :data:`CHANGED`
    or :data:`MISSING` problem for each not there with that SHA-256. A file of a session ``root`` erased on request is
    not looked for: appended to ``erased`` (when given) under the erased session's name. ``found_by``: the files found
    in the root with the receipts' SHA-256, counted by session or conversation. Returns ``(looked, changed, the missing
    files' paths, rejected (held ones too), set aside)``."""
    from ..storage.erased_list import read_erased

    looked = changed = rejected = aside = 0
    missing: list[str] = []
    where = f"the receipts of {shown} (endpoint {got.endpoint or 'not named'})"
    gone = {n: e.session for e in read_erased(root).values() for n in (e.session, *e.conversations)}
    for rel, want in got.pushed.items():
        if only is not None and _session_of(rel) != only:
            continue
        if rel in got.rejected:
            rejected += 1
            continue
        if _session_of(rel) in gone:  # erased on request here (asz erase): a note, never missing (docs/verify.md)
            if erased is not None:
                erased.setdefault(gone[_session_of(rel)], []).append(rel)
            continue
        looked += 1
        how, have = _held(root, rel, digests)
        session = f"session {_session_of(rel)}" if not rel.startswith("_conversations/") else \
            f"conversation {_session_of(rel)}"
        if not how:
            missing.append(rel)
            problems.append(Problem(os.path.join(str(root), rel), 0, "file", MISSING, (
                f"{where} say the receiver accepted this file of {session} with SHA-256 {want}; it is not in "
                "the root (removed after it landed): a copy held elsewhere (that host's root, a backup) is what "
                "is left of it")))
        elif have != want:
            changed += 1
            held = "its skeleton keeps removed.digest" if how == "skeleton" else "the root holds it with SHA-256"
            problems.append(Problem(os.path.join(str(root), rel), 0, "sha256", CHANGED, (
                f"{where} say the receiver accepted this file of {session} with SHA-256 {want}; {held} {have}: "
                "it was changed after it landed (whatever else in the root agrees with it now)")))
        else:
            aside += how == "set aside"
            if found_by is not None:
                found_by[_session_of(rel)] = found_by.get(_session_of(rel), 0) + 1
    return looked, changed, missing, rejected, aside


def _found(root: Path, got: Receipts, only: str | None, digests: dict[str, str]) -> tuple[int, int]:
    """``(files in root with that SHA-256, files looked for)`` of the files ``got`` holds as accepted
    (:func:`_check_host`'s counts, its problems let go)."""
    looked, changed, missing, _, _ = _check_host(root, "", got, only, digests, [])
    return looked - changed - len(missing), looked


def _another_receiver(root: Path, shown: str, got: Receipts, looked: int, missing: list[str], kept: list,
                      only: str | None, digests: dict[str, str]) -> tuple[bool, Problem | None]:
    """What to say of receipts ``missing`` of whose ``looked`` accepted files are not in ``root``: ``(sure, finding)``,
    an :data:`OTHER_RECEIVER` finding on the receipts' file. ``sure`` when one of the host's ``kept`` receipts of other
    endpoints (``(shown, receipts)``) finds files in the root and holds none of the missing ones as accepted: that
    endpoint is this root's receiver, and the finding names the receipts to give. Else, when none of the files is in
    the root, the finding says both readings (another receiver, or all of it removed); else None."""
    others = [(k_shown, k, *_found(root, k, only, digests)) for k_shown, k in kept if k.endpoint != got.endpoint]
    match = next(((k_shown, k, f, n) for k_shown, k, f, n in sorted(others, key=lambda o: -o[2])
                  if f and not any(rel in k.pushed and rel not in k.rejected for rel in missing)), None)
    head = (f"{'none' if len(missing) == looked else len(missing)} of the {looked} file(s) the receipts of {shown} say "
            f"the receiver at {got.endpoint or '(endpoint not named)'} accepted {'is' if len(missing) == looked else 'are not'} "
            "in this root")
    if len(missing) < looked and match is None:
        return False, None
    if match is not None:
        k_shown, k, f, n = match
        return True, Problem(shown, 0, "endpoint", OTHER_RECEIVER, (
            f"{head}, while its receipts of {k.endpoint} ({k_shown}) find {f} of their {n} in it and hold none of those "
            "as accepted: these are the receipts "
            f"of another receiver than this root's; give --receipts {shell_word(k_shown)} (asz push --root HOST --endpoint "
            f"{k.endpoint} --receipts FILE writes them)"))
    also = "; ".join(f"{k.endpoint} ({k_shown}): {f} of {n} in this root" for k_shown, k, f, n in others)
    return False, Problem(shown, 0, "endpoint", OTHER_RECEIVER, (
        f"{head}: if that is not the receiver that landed this root, these are another receiver's receipts: give that "
        "receiver's (asz push --root HOST --endpoint URL --receipts FILE writes the receipts a host keeps of URL); if it "
        "is, everything this host sent there was removed (each file is named below)"
        + (f"; the receipts this host keeps of other endpoints: {also}" if also else "")))


def _said_erasures(root: Path, shown: str, host: Path | None, erased: dict[str, list[str]], held: dict[str, int],
                   section: Section) -> None:
    """One note per session ``root`` erased whose files the receipts at ``shown`` hold (``erased``: session -> those
    files), saying whether the host (its root ``host``, None when the receipts were given as a copy) erased it too;
    one :data:`ERASED_HOST_ONLY` warning per session the host erased that ``root`` still holds files of (``held``:
    files found here by session or conversation)."""
    from ..storage.erased_list import ERASED_LIST, erasure_said, read_erased

    here = read_erased(root)
    there = read_erased(host) if host is not None else {}
    for session, rels in sorted(erased.items()):
        e, h = here[session], there.get(session)
        if h is not None:
            also = f"the host erased it too ({host / ERASED_LIST}:{h.line}: {erasure_said(h)})"
        elif host is not None:
            also = (f"the host has not erased it ({host / ERASED_LIST} does not name it): it still holds what was erased "
                    f"here, and its push of the session is refused here; erase it there too (asz erase {shell_word(session)} "
                    f"--root {shell_word(host)} --reason '…')")
        else:
            also = f"whether the host erased it too cannot be told from {shown} alone (give the host's root)"
        section.notes.append(
            f"{root / ERASED_LIST}:{e.line}: {len(rels)} file(s) of session {session} that the receipts of {shown} say "
            f"the receiver accepted were {erasure_said(e)} here: erased on request, not missing; {also}")
    for session, h in sorted(there.items()):
        if session in here:
            continue
        n = sum(held.get(name, 0) for name in {session, *h.conversations})
        if n:
            section.warnings.append(Problem(str(root), 0, "", ERASED_HOST_ONLY, (
                f"session {session} was {erasure_said(h)} on the host ({host / ERASED_LIST}:{h.line}), but this root "
                f"still holds {n} file(s) of it that the host pushed here: the erasure did not reach this receiver; "
                f"erase it here too (asz erase {shell_word(session)} --root {shell_word(root)} --reason '…')")))


def check_receipts(root: str | os.PathLike, receipts: Iterable[tuple], *, only: str | None = None,
                   digests: dict[str, str] | None = None) -> Section:
    """The ``receipts`` section: ``receipts`` is one ``(shown, receipts, kept[, due[, host]])`` per host: how the
    host's receipts were given, its receipts, ``kept`` the ``(shown, receipts)`` the same host keeps of other
    endpoints, ``host`` its root when the receipts were read from it (None or absent for a copy: whether it erased a
    session cannot then be told; :func:`_said_erasures`), and ``due`` (None: not known, the receipts were given
    without the host's root) the host's
    landed files and rounds the receipts hold no line of: not yet accepted by the receiver, due for the host's next
    push, said in the host's note (``N landed file(s) not yet accepted by the receiver (due for the next push)``) and
    counted in ``receipts_due``, not a problem (the receipts prove what the receiver accepted; ``asz push`` fails
    while it cannot send: trial 32c F6).

    Each file a host's receipts hold as accepted (``pushed`` and not ``rejected``; ``only``: of that session or its
    conversation) is looked for in ``root`` (``digests``: the whole landed files' SHA-256 verify found on its way, by
    ``str(path)``, so nothing is hashed twice); one :data:`CHANGED` or :data:`MISSING` problem per file that is not
    there with that SHA-256. Receipts none of whose files is in the root are said plainly (:func:`_another_receiver`):
    one :data:`OTHER_RECEIVER` problem instead of a missing one per file when the host's receipts of another endpoint
    find files in it, else a warning beside the missing files. Counts ``receipts`` (files looked for),
    ``receipts_changed``, ``receipts_missing``, ``receipts_rejected`` (files the receiver refused: not looked for),
    ``receipts_other_receiver`` (hosts whose receipts are of another receiver), ``receipts_held`` (of the files the
    receiver refused, those it holds every record of from another root or another credential's files: :func:`held_files`,
    said by cause, :func:`_held_said`; not in
    ``receipts_rejected``); a note per host. Never raises for what
    the root holds (a file that does not read is :data:`CHANGED`)."""
    root = Path(root)
    digests = {} if digests is None else digests
    section = Section("receipts", "")
    looked = changed = missing = rejected = hosts = other = held = due = erased_n = 0
    for shown, got, kept, *more in receipts:
        h_due = None if not more or more[0] is None else \
            sum(1 for rel in more[0] if only is None or _session_of(rel) == only)
        due += h_due or 0
        hosts += 1
        found: list[Problem] = []
        erased: dict[str, list[str]] = {}
        here: dict[str, int] = {}
        h_looked, h_changed, gone, h_rejected, h_aside = _check_host(root, shown, got, only, digests, found, erased, here)
        h_held_files = {rel for rel in held_files(got) if only is None or _session_of(rel) == only}
        h_held = len(h_held_files)
        h_rejected -= h_held
        h_missing = len(gone)
        h_found = h_looked - h_changed - h_missing
        if gone:
            sure, said = _another_receiver(root, shown, got, h_looked, gone, kept, only, digests)
            if sure:
                found, h_missing, other = [p for p in found if p.problem != MISSING] + [said], 0, other + 1
            elif said is not None:
                section.warnings.append(said)
        section.problems.extend(found)
        looked, changed, missing, rejected, held = (looked + h_looked, changed + h_changed, missing + h_missing,
                                                    rejected + h_rejected, held + h_held)
        h_erased = sum(len(v) for v in erased.values())
        erased_n += h_erased
        section.notes.append(
            f"receipts of {shown} (endpoint {got.endpoint or 'not named'}): {h_looked} file(s) the receiver accepted: "
            + (f"{h_found} in the root with that SHA-256; the rest not sent to this root's receiver: the receipts of "
               "another receiver" if found and found[0].problem == OTHER_RECEIVER else
               f"{h_found} in the root with that SHA-256"
               + (f" ({h_aside} of them rounds set aside by a chain built anew)" if h_aside else "")
               + f", {h_changed} changed, {h_missing} missing")
            + (f"; {h_rejected} it rejected, not looked for" if h_rejected else "")
            + (f"; {h_held} held {_held_said(got, h_held_files)}" if h_held else "")
            + (f"; {h_due} landed file(s) not yet accepted by the receiver (due for the next push)" if h_due else "")
            + (f"; {h_erased} more of session(s) erased here on request, not looked for (named below)" if h_erased else ""))
        _said_erasures(root, shown, more[1] if len(more) > 1 else None, erased, here, section)
    section.summary = f"checked {looked} receipt(s) of {hosts} host(s) against the root"
    section.counts.update({"receipts": looked, "receipts_changed": changed, "receipts_missing": missing,
                           "receipts_rejected": rejected, "receipts_other_receiver": other, "receipts_held": held,
                           "receipts_due": due})
    if erased_n:
        section.counts["receipts_erased"] = erased_n
    section.problems.sort(key=lambda p: p.file)
    return section
