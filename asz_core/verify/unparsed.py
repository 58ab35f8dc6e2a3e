"""Landed sessions with no conversation chain, as ``asz verify`` and ``asz ls`` say them (trial finding 10).

A session ``asz parse`` read has a session index (``<session>/index/``) and, for every landed file, rounds under
``<root>/_conversations/<session>/rounds`` (a Claude Code session's conversation id is its session id). A session
landed but never parsed (``asz collect --no-parse``) has neither: that is normal, and is said as a note. A session
with a session index but no round was parsed once and its rounds were removed since: that is a problem, since its
conversation disappeared from every reader; ``asz parse`` builds the chain again from the landed files. A parse
indexes the sessions before it writes their rounds, and marks them while it has not (:mod:`asz_core.flow.pending`):
a session with that mark is not parsed yet, a parse was interrupted (Ctrl-C, trial 3 F5), and is said as a note too.
A collect pass that parses marks a session with no round before its first file of it lands (the mark alone, no index
yet), so a pass stopped before it parsed the session is said the same way, not as ``--no-parse`` (trial 30d F6).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from ..flow.index import index_dir
from ..flow.pending import has_chain, pending_why
from ..flow.round import parse_round_file_name
from ..storage.layout import CONVERSATIONS, ROUNDS, dir_name, highest_landed_seq, session_dirs
from ..storage.root import COLLECTOR_LOCK, SESSION_LOCK, SESSION_STATE, lock_taken
from .report import Problem, Section
from ..termsafe import shell_word

__all__ = ["unchained_sessions", "unchained_note", "unchained_section", "has_chain", "shown_ids", "NEVER_PARSED_LINE",
           "INTERRUPTED_LINE", "RECEIVED_UNPARSED_LINE", "STOPPED", "lagging_sessions", "lagging_line", "UNREAD_LINE",
           "collector_at_work", "AT_WORK", "AT_WORK_LINE", "session_holder", "held_sessions", "held_line", "HELD_LINE"]


def collector_at_work(root: str | os.PathLike) -> bool:
    """True while a collector (``asz collect``, ``asz server``) holds ``root``'s lock (:data:`COLLECTOR_LOCK`), told
    from ``/proc/locks`` without taking it (:func:`~asz_core.storage.root.lock_taken`): its pass parses the sessions it
    landed, so a session with no chain is not parsed yet, whatever marks it holds. The one judgement of ``asz ls``,
    ``asz usage``, ``asz verify`` and :func:`~asz_core.reading.stopped_pass.stopped_unparsed` (trial 29b F6, 40d F1)."""
    return lock_taken(Path(root) / COLLECTOR_LOCK)


def session_holder(session_dir: str | os.PathLike) -> str | None:
    """Who holds the session's lock (``<session>/.lock``, told from ``/proc/locks`` without taking it), as its lock file
    says: ``pid 4242 since 2026-12-06T20:10:00.123456789Z``, then ``: asz parse`` when the live process is an asz
    command (:func:`~asz_core.storage.root.holder_command`); '' when held but the file says nothing readable; None when
    nobody holds it (or there is no ``/proc/locks``)."""
    from ..storage.root import holder_command

    path = Path(session_dir, SESSION_LOCK)
    if not lock_taken(path):
        return None
    try:
        with open(path, "rb") as f:
            note = f.read(200).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    what = holder_command(note)
    return note + (f": {what}" if what else "")


#: Why landed sessions have no chain while :func:`collector_at_work`: ``asz ls``, ``asz usage`` (:func:`unchained_note`)
#: and ``asz verify`` (:data:`AT_WORK_LINE`) say it in these words, advising no command that would compete with it.
AT_WORK = ("a collector holds the root (asz collect or asz server is at work), so they are not parsed yet; its pass "
           "builds them")


def unchained_sessions(root: str | os.PathLike, session: str | None = None, rounds: dict | None = None,
                       working: bool | None = None) -> tuple[list[str], list[str], list[str]]:
    """``(never parsed, parsed but chain gone, parse interrupted)``: session ids of ``root`` (or only ``session``) that
    hold landed files and no round, split by whether their session index is there (a parse read them) and whether
    a parse or a collect pass marked them as still to be parsed (:func:`asz_core.flow.pending.pending_why`: stopped
    before their parse, indexed or not; or indexed only for the id table, which counts as never parsed). While a collector holds the root's lock, or a writer the
    session's, such a session counts as not parsed yet (its parse may not have reached it). Each list sorted.
    ``rounds``: what the chain checks' listings of chains' ``rounds/`` told, by the chain directory's name
    (:attr:`~asz_core.flow.verify_chain.Seen.rounds`): whether a session has a chain is taken from there.
    ``working``: :func:`collector_at_work` as the caller asked it (None: asked here when needed)."""
    root = Path(root)
    dirs = [root / session] if session is not None else session_dirs(root)
    never: list[str] = []
    gone: list[str] = []
    interrupted: list[str] = []
    # A collector at work (asz collect, asz server) indexes every session of its pass before it writes their rounds:
    # a session index with no round is then one not parsed yet, not one whose rounds were removed. Asked (of
    # /proc/locks) only once a session has no chain: one session's verify of a chained session never reads it.
    for sdir in dirs:
        if _chained(root, sdir.name, rounds) or not highest_landed_seq(sdir):  # no landed file (nor skeleton): nothing to chain
            continue
        if working is None:
            working = collector_at_work(root)
        busy = working or lock_taken(sdir / SESSION_LOCK)
        parsed = not busy and (index_dir(sdir) / "entries.jsonl").is_file() and (sdir / SESSION_STATE).is_file()
        # marked to be parsed (by a parse, or by a collect pass that parses before it landed the session's first file:
        # trial 30d F6) and not at work: a pass was stopped before it parsed the session, indexed or not
        why = "" if busy else pending_why(sdir)
        (interrupted if why == "interrupted" else never if why or not parsed else gone).append(sdir.name)
        # a received session (no session.state) waits for its rounds
    return never, gone, interrupted


def _rounds_listed(name: str, rounds: dict | None):
    """The :class:`~asz_core.flow.chain.RoundsListed` of session ``name``'s chain in ``rounds`` (by the chain
    directory's name), None when it holds none."""
    if not rounds:
        return None
    try:
        return rounds.get(dir_name(name))
    except ValueError:
        return None


def _chained(root: str | os.PathLike, name: str, rounds: dict | None) -> bool:
    """:func:`~asz_core.flow.pending.has_chain` of session ``name``, from ``rounds`` where it holds the listing."""
    listed = _rounds_listed(name, rounds)
    return has_chain(root, name) if listed is None else listed.named


def lagging_sessions(root: str | os.PathLike, session: str | None = None, seen=None) -> list[tuple[str, int, int]]:
    """``(session, through_seq, highest seq)`` of each session of ``root`` (or only ``session``) whose chain's head
    round reads through a seq below the highest landed there: landed files no round reads, so no reader counts or
    shows their records (trial 24a F1: a receiving root given a re-made root's new file whose round never came). A
    session a collector or writer is at work on (the root's or the session's lock taken) is not counted: its parse
    follows its landing. Sorted by session; a head round that does not read is left to the chain checks. ``seen``:
    what the chain checks just listed and read (:class:`~asz_core.flow.verify_chain.Seen`: ``asz verify``): a
    session's highest seq taken from its listing there, a head round's through_seq from the head read there, where
    the round files listed here name the same head, instead of reading again; a chain's head by name from the
    listing of its ``rounds/`` there (``seen.rounds``), instead of listing it again."""
    import orjson

    root = Path(root)
    names = [session] if session is not None else [d.name for d in session_dirs(root)]
    conv = os.path.join(root, CONVERSATIONS)
    out: list[tuple[str, int, int]] = []
    working: bool | None = None
    # Asked of every session by each asz ls, asz usage and asz verify: plain strings and one directory read each,
    # no Path per file (on a 200 MB root of 270 sessions ~5 ms of CPU; Path objects made it ~50 ms, 8 % of asz ls)
    rounds = seen.rounds if seen is not None else None
    for name in names:
        head = (0, "")
        listed = _rounds_listed(name, rounds)
        try:
            if listed is not None:  # the chain checks' listing of it
                head = (listed.head, os.path.join(conv, dir_name(name), ROUNDS, listed.head_name) if listed.head_name else "")
            else:
                with os.scandir(os.path.join(conv, dir_name(name), ROUNDS)) as entries:
                    for e in entries:
                        n = parse_round_file_name(e.name)
                        if n is not None and n[0] > head[0]:
                            head = (n[0], e.path)
        except (OSError, ValueError):
            continue  # no chain: unchained_sessions says it
        if not head[1]:
            continue
        sdir = os.path.join(root, name)
        files = seen.listed.get(sdir) if seen is not None else None
        top = highest_landed_seq(sdir) if files is None else max((ln.seq for ln, _ in files), default=0)
        known = seen.heads.get(name) if seen is not None else None
        if known is not None and known[0] == os.path.basename(head[1]):
            through = known[2]  # the head the chain checks read whole
        else:
            try:
                with open(head[1], "rb") as f:
                    through = int(orjson.loads(f.readline()).get("through_seq") or 0)
            except (OSError, ValueError, AttributeError, TypeError):
                continue
        if through >= top:
            continue
        if working is None:
            working = collector_at_work(root)
        if working or lock_taken(Path(sdir, SESSION_LOCK)):
            continue
        out.append((name, through, top))
    return out


#: What readers say of landed files no round reads; ``{n}`` files, ``{s}`` sessions, ``{which}`` the first of them.
UNREAD_LINE = ("{n} landed file(s) of {s} session(s) are read by no round, so no reader counts or shows their records "
               "({which}); asz parse SESSION --root {root} reads them, except on a receiving root in a chain its sending "
               "root wrote (no conversation.state here), where it writes none: that root's next asz push sends their "
               "rounds, and asz receive writes them itself when that root holds them back (docs/push.md, A root re-made)")


def lagging_line(root: str | os.PathLike, lagging: list[tuple[str, int, int]]) -> str:
    """:data:`UNREAD_LINE` for ``lagging`` (:func:`lagging_sessions`); '' when there are none."""
    if not lagging:
        return ""
    which = ", ".join(f"{s} seq {t + 1}" + (f"-{h}" if h > t + 1 else "") + f" (its chain reads through seq {t})"
                      for s, t, h in lagging[:3]) + (f" and {len(lagging) - 3} more" if len(lagging) > 3 else "")
    return UNREAD_LINE.format(n=sum(h - t for _, t, h in lagging), s=len(lagging), which=which, root=shell_word(root))


def unchained_note(root: str | os.PathLike, listed: set[str], left_out: str = "listed", *,
                   collector: bool = False, links: Sequence[str] | None = None) -> tuple[str, list[str]]:
    """``(N landed session(s) have no conversation chain … : ID, ID and N more; asz parse … builds them, their ids)``
    for the sessions landed in ``root`` that have no round (never parsed, a parse interrupted, or their rounds
    removed) and are not among the ``listed`` conversation ids (a chain directory left with no round is listed, as
    unreadable): they are in no list until asz parse builds their chains; ``('', [])`` when there are none. With
    ``collector`` (``asz ls``, ``asz usage``: not a server, which holds the lock itself), while a collector holds the
    root's lock (``asz collect``, ``asz server``), the line says so and that they are not parsed yet, advising no
    command that would compete with it (as ``asz verify`` counts them, trial 29b F6); with or without it (the page of
    ``asz server``, whose own pass's child holds a session's lock while it parses it, too), those whose session lock a
    writer holds (:func:`held_sessions`) are said by :func:`held_line`, as ``asz verify`` says them, advising no ``asz parse``.
    ``left_out`` says what they are not (``listed`` by asz ls and the page, ``counted`` by asz usage). ``links``: the
    rounds folders that are symbolic links, when the caller's scan of ``_conversations`` gave them with ``listed``
    (:func:`~asz_core.flow.listed.listed_and_links`); None: looked for here (:func:`~asz_core.flow.listed.rounds_links`)."""
    never, gone, interrupted = ([s for s in ids if s not in listed] for ids in unchained_sessions(root))
    ids = sorted(never + gone + interrupted)
    unread = lagging_line(root, lagging_sessions(root))  # a chain behind its landed files: said after (trial 24a F1)
    from ..storage.short_list import read_short, short_line

    short = read_short(root)  # a sending root holds records of these this root lacks (trial 24a F3)
    if short:
        unread = " ".join(x for x in (unread, f"{len(short)} refused file(s) hold records this root lacks: "
                                              + "; ".join(short_line(d) for d in short[:3])
                                              + (f"; and {len(short) - 3} more" if len(short) > 3 else "")) if x)
    from ..flow.listed import rounds_links, rounds_links_note

    linked = rounds_links_note(rounds_links(root) if links is None else links, left_out)  # in no list (review48)
    unread = " ".join(x for x in (unread, *twice_notes(root), linked) if x)
    if not ids:
        return unread, []
    if collector and collector_at_work(root):  # a pass at work: it parses what it landed (29b F6)
        return (f"{len(ids)} landed session(s) have no conversation chain yet and are not {left_out}: {AT_WORK}: "
                f"{shown_ids(ids)}" + (f". {unread}" if unread else "")), ids
    # a writer holding a session's lock (asz parse, asz receive, asz ingest) is at work on it: said as asz verify says
    # it, advising no asz parse that would wait on it (session 41)
    held = held_sessions(root, never)  # asz ls, asz usage and the page alike (fix42d: the page advised asz parse)
    never = [s for s in never if s not in held]
    rest = sorted(never + gone + interrupted)
    why = ([f"{len(interrupted)} not parsed yet: {STOPPED}"] if interrupted else []) \
        + ([f"{len(gone)} parsed before: their rounds are gone"] if gone else [])
    said = [held_line(held, left_out)] if held else []
    if rest:
        said.append(f"{len(rest)} landed session(s) have no conversation chain and are not {left_out}"
                    + (f" ({'; '.join(why)})" if why else "")
                    + f": {shown_ids(rest)}; asz parse --root {shell_word(root)} builds them (asz verify names them)")
    return ". ".join(said + ([unread] if unread else [])), ids


#: How :func:`twice_notes` opens its two parts (:func:`figures_off` reads them).
COUNTED_ONCE, TWICE_IN_PART = "counted once here: ", " conversation(s) counted twice in part"


def figures_off(note: str) -> bool:
    """True when :func:`unchained_note`'s ``note`` says something some figure lacks or counts twice (sessions with no
    chain, files no round reads, records refused, pairs counted twice): ``asz usage`` marks its total ``!`` then.
    False for no note, and for one that says only pairs counted once here (:func:`twice_notes`' first part, which the
    note then opens with: every figure is right, the line says what was corrected)."""
    return bool(note) and not (note.startswith(COUNTED_ONCE) and TWICE_IN_PART + ":" not in note)


def twice_notes(root: str | os.PathLike) -> tuple[str, str]:
    """What :func:`unchained_note` says of ``root``'s ``_received/twice.list`` (a session continuing another, assembled
    on a host without it: trial 28a F1), ``(corrected, twice)``: ``counted once here: N conversation(s) …: LINE; …`` for
    the pairs whose repeated calls the readers count once (:func:`~asz_core.storage.twice_list.corrected`: said, no
    figure is off), ``N conversation(s) counted twice in part: LINE; …`` for those an older receiver listed without
    ids (the totals count them twice); each ``''`` when there are none, three pairs named and ``and N more``."""
    from ..storage.twice_list import corrected, read_twice, twice_line

    twice = read_twice(root)
    out = []
    for said, pairs in ((COUNTED_ONCE + "{n} conversation(s) continuing another sent by another instance",
                         [d for d in twice if corrected(d)]),
                        ("{n}" + TWICE_IN_PART, [d for d in twice if not corrected(d)])):
        out.append(said.format(n=len(pairs)) + ": " + "; ".join(twice_line(d) for d in pairs[:3])
                   + (f"; and {len(pairs) - 3} more" if len(pairs) > 3 else "") if pairs else "")
    return out[0], out[1]


def shown_ids(ids: list[str], n: int = 5) -> str:
    """The first ``n`` ids, comma-separated, then ``and N more``."""
    return ", ".join(ids[:n]) + (f" and {len(ids) - n} more" if len(ids) > n else "")


def unchained_section(root: str | os.PathLike, shown_root: str, session: str | None, section: Section,
                      seen=None) -> None:
    """Add to ``section`` (the chains' section of ``asz verify``) a note for landed sessions never parsed and a
    ``missing chain`` problem for each session parsed once whose rounds are gone, and a note for those a parse was
    interrupted before (the root is whole, only the chain is not built yet); counts ``unparsed``, ``interrupted``
    and ``unchained`` only when not zero (a clean report keeps its shape). ``seen``: as :func:`lagging_sessions`
    takes it."""
    from ..storage.senders import RECEIVED

    working = collector_at_work(root)
    never, gone, interrupted = unchained_sessions(root, session, getattr(seen, "rounds", None), working)
    if never:
        section.counts["unparsed"] = len(never)
    # a writer holding a session's lock (asz parse, asz receive, asz ingest) is at work on it: said naming it, not as
    # --no-parse left it (session 41; the collector's case: trial 40d F1)
    holders = {} if working else held_sessions(root, never)
    if holders:
        section.notes.append(held_line(holders))
    never = [s for s in never if s not in holders]
    if never:
        # a collector at work parses what it landed: said as asz ls says it, not as --no-parse left it (trial 40d F1)
        said = AT_WORK_LINE if working else RECEIVED_UNPARSED_LINE if (Path(root) / RECEIVED).is_dir() \
            else NEVER_PARSED_LINE  # trial 34b F5
        section.notes.append(said.format(n=len(never), ids=shown_ids(never)))
    if interrupted:
        section.counts["interrupted"] = len(interrupted)
        section.notes.append(INTERRUPTED_LINE.format(n=len(interrupted), ids=shown_ids(interrupted)))
    from ..storage.short_list import SHORT_LIST, read_short, short_line

    for n, d in enumerate(read_short(root), 1):  # a sending root holds records this root lacks (trial 24a F3)
        if session is None or d["session"] == session:
            section.counts["short"] = section.counts.get("short", 0) + 1
            section.warnings.append(Problem(os.path.join(shown_root, RECEIVED, SHORT_LIST), n, "", "short session",
                                            short_line(d)))
    from ..storage.twice_list import TWICE_LIST, corrected, read_twice, twice_line

    for n, d in enumerate(read_twice(root), 1):  # a session continuing another its sending root lacked (trial 28a F1)
        if session is None or session in (d["session"], d["continues"]):
            where = os.path.join(shown_root, RECEIVED, TWICE_LIST)
            if corrected(d):  # the readers count its repeated calls once: said, nothing wrong
                section.counts["counted_once"] = section.counts.get("counted_once", 0) + 1
                section.notes.append(f"{where}:{n}: counted once here: {twice_line(d)}")
                continue
            section.counts["twice"] = section.counts.get("twice", 0) + 1
            section.warnings.append(Problem(where, n, "", "counted twice", twice_line(d)))
    lagging = lagging_sessions(root, session, seen)
    if lagging:
        section.counts["unread"] = sum(h - t for _, t, h in lagging)
        section.notes.append(lagging_line(shown_root, lagging))
    if gone:
        section.counts["unchained"] = len(gone)
    for sid in gone:
        section.problems.append(Problem(os.path.join(shown_root, CONVERSATIONS, sid), 0, "", "missing chain",
                                        f"session {sid} was parsed (its session index is there) but has no round: its "
                                        "rounds were removed or its parse failed; asz parse builds the chain again "
                                        "from the landed files"))


#: The note counting landed sessions never parsed; ``{n}`` the count, ``{ids}`` the first of them. A pass of this asz
#: marks a session to be parsed before it lands (:data:`INTERRUPTED_LINE` when stopped), one of an asz built before
#: 2026-12-05 (ac127e8e) did not, so its stopped pass leaves what --no-parse leaves: both are said (trial 37c F4).
NEVER_PARSED_LINE = ("{n} landed session(s) not parsed yet, so no conversation chain (left so by asz collect "
                     "--no-parse, or by a collect pass stopped before its parse by an asz built before 2026-12-05, "
                     "which marked no session to be parsed, so the two cannot be told apart here; asz parse builds "
                     "them): {ids}")
#: :data:`NEVER_PARSED_LINE` on a receiving root (``_received/``, asz receive's): its rounds come from the sending host,
#: and ``asz parse`` there would write a chain of its own ahead of the host's rounds (trial 34b F5: verify advised it).
RECEIVED_UNPARSED_LINE = ("{n} landed session(s) with no conversation chain here yet: this root receives (asz receive), "
                          "and the sending host sends a session's rounds after its files (a push in flight), or once it "
                          "parsed them (a host collecting with --no-parse sends none until it runs asz parse); do not run "
                          "asz parse here: a chain written here would take the numbers of the host's rounds: {ids}")
#: The note counting landed sessions with no chain while :func:`collector_at_work` (every such session is then in
#: :func:`unchained_sessions`' first list); ``{n}`` and ``{ids}`` as above, :data:`AT_WORK` as asz ls says it.
AT_WORK_LINE = "{n} landed session(s) have no conversation chain yet: " + AT_WORK + ": {ids}"
#: The note counting landed sessions with no chain whose session lock a writer holds (:func:`session_holder`; not a
#: collector: :data:`AT_WORK_LINE`); ``{holders}``: each holder as its lock file says, ``{ids}`` as above. Advises no
#: command that would compete with it (in :func:`unchained_sessions`' first list, counted ``unparsed``).
HELD_LINE = ("{n} landed session(s) have no conversation chain yet{left_out}: another process holds their session lock "
             "({holders}), so its work may not have reached their parse; asz verify says what is left once it has let "
             "go: {ids}")


def held_sessions(root: str | os.PathLike, ids: list[str]) -> dict[str, str]:
    """Session id -> :func:`session_holder` for each of ``ids`` (sessions of ``root`` with no chain) whose session lock
    a writer holds: what :func:`held_line` says, for ``asz verify`` (:func:`unchained_section`) and ``asz ls``/``asz
    usage`` (:func:`unchained_note`) alike. Asked only of sessions with no chain (one ``/proc/locks`` read each)."""
    return {s: h for s in ids if (h := session_holder(Path(root) / s)) is not None}


def held_line(holders: dict[str, str], left_out: str = "") -> str:
    """:data:`HELD_LINE` for ``holders`` (:func:`held_sessions`): the distinct holders in the sessions' order, three
    named and ``and N more``; one whose lock file says nothing is ``its holder unknown``. ``left_out``: what they are
    not (``listed`` by asz ls, ``counted`` by asz usage: :func:`unchained_note`); '' for asz verify."""
    named = list(dict.fromkeys(h or "its holder unknown" for _, h in sorted(holders.items())))
    said = "; ".join(named[:3]) + (f"; and {len(named) - 3} more" if len(named) > 3 else "")
    return HELD_LINE.format(n=len(holders), holders=said, ids=shown_ids(sorted(holders)),
                            left_out=f" and are not {left_out}" if left_out else "")


#: Why sessions marked to be parsed have no round (:func:`unchained_sessions`' third list).
STOPPED = "a collect pass or parse was stopped before it parsed them"
#: The note counting landed sessions a collect pass or a parse was stopped before it parsed (Ctrl-C, SIGTERM: marked to
#: be parsed, :mod:`asz_core.flow.pending`); ``{n}`` and ``{ids}`` as above. Not the ``--no-parse`` words (trial 30d F6).
INTERRUPTED_LINE = ("{n} landed session(s) not parsed yet: " + STOPPED + " (their rounds are not written yet); the next "
                    "collect pass or asz parse parses them: {ids}")
