"""What ``asz verify`` holds a whole root to besides its files: every session the root's list says landed is still
here (``_sessions.list``, :mod:`asz_core.storage.session_list`; docs/verify.md, Sessions removed whole).

A session removed whole (its directory and its chain deleted) leaves no gap in any other session's files, so the
walk alone cannot see it; the list, kept by the writers and never derived, names it. A listed session whose
directory is gone, or holds no landed file (``.sd``, or the ``.sk`` skeleton retention leaves), is a
``missing session`` problem at the list's line. A root with sessions and no list (one collected before the list
existed) gets a note: its completeness cannot be shown. A list line that does not read is a warning.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.erased_list import erased_names  # noqa: F401  (verify.walk's too)
from ..storage.layout import holds_landed
from ..storage.session_list import (LIST_GONE, SESSION_LIST, Listed, ListedSession, kept_by, read_list, unlisted_note,
                                    whole_line)
from .report import Problem, Section
from .unparsed import shown_ids
from ..termsafe import shell_word

__all__ = ["MISSING_SESSION", "BAD_LIST_LINE", "LANDED_DURING", "check_listed", "listed_missing", "missing_note", "ways_back", "said_erased"]

#: The problem name of a listed session that is gone.
MISSING_SESSION = "missing session"
#: The note on sessions the list names that the walk did not find, or found with no landed file, and that hold landed
#: files when looked at again: they landed while verify ran (trial 31a F1), and none of them is a missing session.
LANDED_DURING = ("{n} session(s) landed while asz verify ran (by asz receive or a collector, after the walk had listed "
                 "the root) and were not checked: {ids}; the next asz verify checks them")
#: The warning name of a line of the list that does not read.
BAD_LIST_LINE = "unreadable list line"
#: Its detail. A line cut short that some whole line of the list begins with is no warning: that line (the same write
#: made again by a later pass) names the session, which is checked (trial 26a F4).
BAD_LINE_SAID = ("not '<session> <first landed, UTC> <adapter>': {text!r} (a write cut short by a crash or a full disk, "
                 "or an edit) and no whole line of the list begins so: the session it named, if any, is not checked; "
                 "the next asz collect gives a session still here a whole line, which settles this warning")


def ways_back(root: str | os.PathLike, entry: ListedSession, chained: bool) -> str:
    """What can bring back the listed session ``entry`` whose directory is gone from ``root`` (``chained``: its chain
    is still here): a collect, from its source as it is now, when it was collected here and the source is still
    there (neither of which the root can tell: trial 17, F2), then ``asz parse --anew`` for a chain left behind; and a
    copy held elsewhere, the one way back byte for byte."""
    from ..collect.session_landing import anew_command

    adapter = entry.adapter.split("/", 1)[0]
    anew = (f"; then {anew_command(entry.session, root)} sets aside the chain left here (it binds the files that are "
            "gone) and builds a new one, as the collect warns") if chained else ""
    return (f"if it was collected into this root and its source is still there, asz collect --once --root "
            f"{shell_word(root)} lands it again from the source as it is now (adapter {adapter}; --source the "
            f"folder it was collected from, when that is not the default){anew}; only a copy held elsewhere (a receiver "
            "asz push sent it to, a backup) brings back what landed byte for byte")


def listed_missing(root: str | os.PathLike, listed: Listed, here: set[str] | None = None,
                   empty: set[str] = frozenset(), only: str | None = None) -> list[tuple[ListedSession, str]]:
    """The sessions ``listed`` names that are missing from ``root``, each with how: ``is gone`` (no directory) or
    ``holds no landed file`` (no ``.sd``, nor the ``.sk`` skeleton retention leaves), in the list's order. ``here``:
    the session directories walked (a whole root's verify), with ``empty`` those among them holding no landed file;
    None: each listed session is looked at on its own (one stat, and a directory read or a few until its first landed
    file: :func:`~asz_core.storage.layout.holds_landed`), what ``asz ls`` and ``asz usage`` can afford on a big root.
    ``only``: that session alone (``asz verify SESSION``)."""
    from ..storage.erased_list import read_erased

    base = os.fspath(root)
    out: list[tuple[ListedSession, str]] = []
    erased = read_erased(root)
    for name, entry in listed.sessions.items():
        if (only is not None and name != only) or name in erased:
            continue  # erased on request (asz erase): said as such by check_listed, never missing
        if here is not None:
            where = "" if name in here and name not in empty else "holds no landed file" if name in here else "is gone"
        else:
            sdir = os.path.join(base, name)
            where = "" if holds_landed(sdir) else "holds no landed file" if os.path.isdir(sdir) else "is gone"
        if where == "is gone" and os.path.islink(os.path.join(base, name)):
            where = "is a symbolic link, which asz never follows (its own symbolic link problem)"
        if where:
            out.append((entry, where))
    return out


def missing_note(root: str | os.PathLike) -> str:
    """The line ``asz ls`` and ``asz usage`` print on stderr (after ``note: ``), and the page's list adds to its note,
    when sessions the root's list names are missing: how many, the first ids, and ``asz verify``, which names each at
    its line; '' otherwise, also when the root has no list or it cannot be read (``asz verify`` says that)."""
    try:
        listed = read_list(root)
    except OSError:
        return ""
    missing = listed_missing(root, listed) if listed is not None else []
    if not missing:
        return ""
    return (f"{len(missing)} session(s) listed in {os.path.join(str(root), SESSION_LIST)} as landed are missing: "
            f"their directory is gone or holds no landed file, so their calls are in no figure here: "
            f"{shown_ids([e.session for e, _ in missing])}; asz verify --root {shell_word(root)} names them")


def check_listed(root: Path, root_shown: str, present: list[Path], empty: set[str], section: Section,
                 only: str | None = None, stamps: set[str] | None = None) -> None:
    """Add to ``section`` (the ``landed`` one of a whole root) a :data:`MISSING_SESSION` problem for each session the
    list names that is not among ``present`` (the session directories walked) or is in ``empty`` (walked, no landed
    file), a :data:`BAD_LIST_LINE` warning per line that does not read, and, with no list and some session, a
    ``missing list`` problem when :func:`~asz_core.storage.session_list.kept_by` shows an asz that keeps the list wrote
    here (trial 41b F2: it was deleted), else the note of :func:`~asz_core.storage.session_list.unlisted_note`. ``missing_sessions`` is counted when not 0.
    ``only``: one session's verify (``asz verify SESSION``): only that session is held to its line, and neither the
    warnings nor the note are added. First it waits for the requests ``asz receive`` is landing
    (:func:`~asz_core.storage.landing.settle`: after it, the sender records check_senders reads name what was walked)
    and a session the walk missed that holds landed files when looked at again is a note (:data:`LANDED_DURING`). Then a note per session of ``present`` whose landing stamps go backwards
    along its seqs (:func:`~asz_core.verify.stamps.stamp_notes`: the list's first-landed time is its first stamp), counted
    as ``stamps_back``; ``stamps``, when given, names the only sessions of ``present`` whose stamps can go back (the
    walk's listing of every other told it: :class:`~asz_core.verify.walk_told.Told`)."""
    from ..storage.landing import settle
    from .stamps import stamp_notes

    settle(root)  # the receiver's requests in flight give their files list and sender lines first (trial 31a F1)
    if back := stamp_notes(root, present if stamps is None else [p for p in present if p.name in stamps]):  # a clock set back between two passes (trial 29a F12); --json: stamps_back
        section.notes += back
        section.counts["stamps_back"] = len(back)
    shown = os.path.join(root_shown, SESSION_LIST)
    try:
        listed = read_list(root, only)
    except OSError as exc:
        section.problems.append(Problem(shown, 0, "", "unreadable", f"{exc.strerror or exc}: the sessions landed "
                                        "into this root cannot be checked"))
        return
    if listed is None:
        if present and only is None:
            if kept := kept_by(root):  # deleted, not an old root's (trial 41b F2): the list is evidence
                section.problems.append(Problem(shown, 0, "", "missing list", LIST_GONE.format(kept=kept)))
            else:
                section.notes.append(unlisted_note(root, root_shown))
        return
    missing = listed_missing(root, listed, {p.name for p in present}, empty, only)
    late = [e.session for e, _ in missing if holds_landed(root / e.session)]  # looked at again: landed meanwhile
    if late:  # a receiver or a collector landed it after the walk listed the root, before the list was read
        section.notes.append(LANDED_DURING.format(n=len(late), ids=shown_ids(late)))
        section.counts["landed_during_run"] = len(late)
        missing = [(e, w) for e, w in missing if e.session not in late]
    for entry, where in missing:
        name = entry.session
        chain = os.path.join(root_shown, "_conversations", name)
        chained = "its chain is still here (" + chain + ")" if os.path.isdir(root / "_conversations" / name) else \
            "its chain is gone too"
        section.problems.append(Problem(
            shown, entry.line, "", MISSING_SESSION,
            f"session {name} (first landed {entry.at} by {entry.adapter}) is listed as landed into this root, but its "
            f"directory {os.path.join(root_shown, name)} {where}; {chained}: the session was removed after it landed, "
            f"and no reader shows it; {ways_back(root_shown, entry, chained.startswith('its chain is still'))}"))
    said_erased(root, root_shown, listed, section, only)
    whole = [whole_line(e) for e in listed.sessions.values()] if listed.bad else []
    for line, text in listed.bad if only is None else ():
        if any(w.startswith(text) for w in whole):
            continue  # the write made again whole (after a full disk, a crash): the session it names is checked
        section.warnings.append(Problem(shown, line, "", BAD_LIST_LINE, BAD_LINE_SAID.format(text=text[:80])))
    if missing:
        section.counts["missing_sessions"] = len(missing)
    section.problems.sort(key=lambda p: (p.file, p.line))


def said_erased(root: Path, root_shown: str, listed: Listed, section: Section, only: str | None = None) -> None:
    """Add to ``section`` one note per session ``_erased.list`` names (``asz erase``; docs/verify.md, Sessions removed
    whole): ``erased on WHEN by WHO (REASON)``, never a problem; a warning when its erasure was not finished (a kill:
    ``_removed/<session>`` left), which the same ``asz erase`` finishes; ``landed again after its erasure`` when no
    ``_removed/<session>`` is left and the session's directory holds files stamped after the erasure (an asz that knows
    no ``_erased.list`` landed it: trial 33c F1), which the same ``asz erase`` removes. ``erased_sessions`` is counted
    when not 0. ``only``: that session alone."""
    from ..storage.erased_list import (ERASED_LIST, erasure_said, landed_again, landed_again_said, read_erased,
                                       unfinished, unread_lines)

    erased = read_erased(root)
    shown = os.path.join(root_shown, ERASED_LIST)
    if only is None:
        for n in unread_lines(root):
            section.warnings.append(Problem(shown, n, "", "unread erasure", (
                "this line of the record of erasures does not read (not a JSON object naming a session: cut short "
                "while it was written, or edited); the erasure it held is not in force: its session is listed and "
                "collected as before; asz erase SESSION --root … --reason '…' records it again")))
        for name in unfinished(root):
            if name not in erased:  # stopped before its record was written: nothing of it erased
                section.warnings.append(Problem(os.path.join(root_shown, "_removed", name), 0, "",
                                                "erasure not finished", (
                    f"asz erase of session {name} was stopped before it recorded the erasure: the session is not "
                    f"erased; asz erase {shell_word(name)} --root {shell_word(root_shown)} --reason '…' erases it")))
    if only is not None:
        erased = {k: v for k, v in erased.items() if k == only}
    if not erased:
        return
    stopped = set(unfinished(root))
    left = stopped | {n for n, e in erased.items() if any(
        os.path.lexists(p) for p in (root / n, root / "_received" / f"{n}.senders",
                                     *(root / "_conversations" / c for c in e.conversations)))}
    for name, e in erased.items():
        line = listed.sessions.get(name)
        at = f" (first landed {line.at} by {line.adapter}, {os.path.join(root_shown, SESSION_LIST)}:{line.line})" if line else ""
        section.notes.append(f"{shown}:{e.line}: session {name}{at} was {erasure_said(e)}: removed whole on request, "
                             "with its chain and every derived row; nothing of it is checked")
        again = landed_again(root, e) if name in left and name not in stopped else None
        if again is not None:  # an asz that knows no _erased.list landed it after the erasure ended (trial 33c F1)
            section.warnings.append(Problem(shown, e.line, "", "landed again after its erasure",
                                            landed_again_said(root, root_shown, e, again)))
        elif name in left:
            section.warnings.append(Problem(shown, e.line, "", "erasure not finished", (
                f"asz erase of session {name} was stopped before it ended (its directory, chain or sender record is "
                f"still in {root_shown}, or {os.path.join(root_shown, '_removed', name)} is left); no reader shows the "
                "session; "
                f"asz erase {shell_word(name)} --root {shell_word(root_shown)} --reason '…' finishes it")))
    section.counts["erased_sessions"] = len(erased)
