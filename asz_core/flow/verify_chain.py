"""The chain checks of ``asz verify`` (origin-digest §4.2, §8.1).

For every round of every conversation chain under ``<root>/_conversations``:

1. no earlier round is missing (round numbers run 1, 2, … with no gap and no double);
2. ``previous`` is the digest of the round before;
3. the round's own commit digest and every reader rule hold (its file name
   names its round number and digest; it keeps round 1's conversation,
   session, parser and policy);
4. ``from_seq`` is the previous round's ``through_seq`` + 1 (round 1 starts at
   seq 1): the contiguity no digest can check;
5. every landed file the round consumed is still on disk;
6. the input digest recomputed from the landed files equals the header's.

Checks 5 and 6 are one comparison: the input digest binds exactly the files a
round consumed. When it does not match, each seq of the window with no file
on disk is named (check 5); when every seq is there, a file changed (check 6).
A seq that never held a file (a landing abandoned before the round) leaves
the digest matching and is no problem.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Mapping
import attrs

from ..sessiondata.nolink import LinkRefused, link_said
from ..sessiondata.reader import check_file
from ..storage.layout import SessionListing, session_listing, session_path
from .chain import Chain, RoundsListed, SessionChains, conversation_dirs
from .round import Round, RoundError, RoundHeader, input_digest, landed_file_digest
from .round_read import CheckedRound, FrameScan, check_round
from ..termsafe import shell_word

__all__ = ["ChainProblem", "ChainReport", "Seen", "verify_chains", "verify_chain"]

#: A session folder's listing as ``session_listing(sdir, skeletons=True, strings=True)`` gives it.
Listing = Callable[[Path], SessionListing]


@attrs.define
class ChainProblem:
    """One problem: the ``conversation``, the ``round`` (0 when not one round's), the ``seq`` (0 when none),
    the ``check`` number of §4.2 (1–6), the file ``path`` and what is wrong (``message``). ``landed`` names the
    landed file a check-6 problem is about (a file that is not the one the round consumed, '' otherwise), and
    ``line`` its first line that differs from the session index (0 when not known; set by ``asz verify``)."""

    conversation: str
    round: int
    seq: int
    check: int
    path: str
    message: str
    landed: str = ""
    line: int = 0

    def __str__(self) -> str:
        where = self.landed + (f":{self.line}" if self.line else "") if self.landed else self.path
        what = f"round {self.round}" if self.round else "chain"
        if self.seq:
            what += f" seq {self.seq}"
        return f"{where}: {what}: {self.message}"

    def as_dict(self) -> dict:
        """The problem as a JSON-ready dict."""
        return attrs.asdict(self)


@attrs.define
class Seen:
    """What the chain checks read that a check after them would read again (``asz verify``: the state files' hints and
    the arguments check), kept for them: ``listed``, each session's landed files as the checks listed them
    (``session_listing(..., skeletons=True, strings=True).files``, by the session folder's path as ``str``);
    ``heads``, each chain's newest round file that read whole, by conversation: ``(file name, session,
    through_seq)``, only where no other file holds that round number (the head a reader lists); ``marked``, each
    session index the state files' check read whole, by the session folder's path as ``str``: whether its bytes hold
    the mark of records whose time does not read (``asz_core.verify.untimed.MARK``; that check reads no index
    without it again). What ``asz verify``'s worker processes checked beside their sessions' landed files (issue 22,
    session 38: :func:`asz_core.verify.walk.verify_root` given a ``Seen``), taken once by the check in the main process
    instead of checking it again: ``chained``, each chain checked by :func:`verify_chain`, by its directory's path as
    ``str``: ``(rounds, problems, heads)`` (what it added to a report's ``rounds``, ``problems`` and ``heads``);
    ``state_files``, each session's :func:`asz_core.verify.session_files.session_file_problems`, by the session
    folder's path as ``str``; ``rounds``, what each chain's listing of ``rounds/`` told besides its round files
    (:class:`~asz_core.flow.chain.RoundsListed`), by the chain directory's name: whether it holds a round, its head by
    name, the temporaries left there (issue 22, session 40: the notes after the chain checks listed every ``rounds/``
    three times more); ``open_below``, each session folder's and chain folder's :func:`asz_core.storage.modes.open_below`
    by its path as the modes note's walk spells it (issue 22, session 49: that walk then reads none of them again)."""

    listed: dict[str, list] = attrs.Factory(dict)
    heads: dict[str, tuple[str, str, int]] = attrs.Factory(dict)
    marked: dict[str, bool] = attrs.Factory(dict)
    chained: dict[str, tuple[int, list, dict]] = attrs.Factory(dict)
    state_files: dict[str, list] = attrs.Factory(dict)
    rounds: dict[str, RoundsListed] = attrs.Factory(dict)
    open_below: dict[str, tuple[int, str]] = attrs.Factory(dict)


@attrs.define
class ChainReport:
    """What the chain checks found: ``chains`` and ``rounds`` checked, and the ``problems``."""

    chains: int = 0
    rounds: int = 0
    problems: list[ChainProblem] = attrs.Factory(list)

    @property
    def ok(self) -> bool:
        """True when no chain has a problem."""
        return not self.problems

    def summary(self) -> str:
        """``checked N conversation chain(s), N round(s)``."""
        return f"checked {self.chains} conversation chain(s), {self.rounds} round(s)"

    def lines(self) -> list[str]:
        """The summary line, then one line per problem."""
        return [self.summary()] + [str(p) for p in self.problems]

    def as_dict(self) -> dict:
        """The report as a JSON-ready dict: chains, rounds, ok, problems."""
        return {"chains": self.chains, "rounds": self.rounds, "ok": self.ok, "problems": [p.as_dict() for p in self.problems]}


def verify_chains(root: str | os.PathLike, session: str | None = None, *, digests: Mapping[str, str] | None = None,
                  step: Callable[[str, int], None] | None = None, chains: SessionChains | None = None,
                  seen: Seen | None = None, frames: FrameScan | None = None,
                  listing: Listing | None = None) -> ChainReport:
    """Run the six chain checks on every chain of ``root`` (or only the chain(s) of ``session``).

    ``session`` selects the chain whose directory is named by it or whose round 1
    names it (:meth:`SessionChains.of`; ``chains``, when given, is that look at
    the root's chains already taken, so a caller checking many sessions opens
    each chain's round 1 once, not once a session). ``digests`` maps a landed file's path (str) to the SHA-256 hex of
    its whole bytes when already known (``asz verify`` hashes every landed file
    once, in its landed check); any other file is read and hashed here.
    ``step(chain, 1)``, when given, is called after each chain checked.
    ``seen``: a :class:`Seen` the checks fill (and read a listing from) for the caller.
    ``frames``: a compiled scan of a round's node and relation frames (``asz_core.verify.jsonscan.round_frames``):
    each round is then read by :func:`~asz_core.flow.round_read.check_round` with it, its entities not built (the
    same findings: check 3 names what :func:`~asz_core.flow.round.read_round` refuses either way).
    ``listing``: how a session folder is listed for checks 5 and 6, a callable giving exactly what
    ``session_listing(sdir, skeletons=True, strings=True)`` gives (its default; ``asz verify`` passes
    :func:`asz_core.verify.listing.verify_listing`, the same listing read in C).
    Returns a :class:`ChainReport`; never raises for what it finds
    (unreadable files are problems). Raises FileNotFoundError when ``root`` is
    not a directory.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no storage root here")
    report = ChainReport()
    dirs = conversation_dirs(root) if session is None else (chains if chains is not None else SessionChains(root)).of(session)
    seen = Seen() if seen is None else seen
    for d in dirs:
        done = seen.chained.pop(str(d), None)  # checked by a worker process beside its sessions' landed files
        if done is None:
            verify_chain(Chain.at(d), report, digests=digests, seen=seen, frames=frames, listing=listing)
        else:
            report.chains += 1
            report.rounds += done[0]
            report.problems.extend(done[1])
            seen.heads.update(done[2])
        if step is not None:
            step(d.name, 1)
    return report


def verify_chain(chain: Chain, report: ChainReport | None = None, *, digests: Mapping[str, str] | None = None,
                 seen: Seen | None = None, frames: FrameScan | None = None, listing: Listing | None = None) -> ChainReport:
    """Run the six checks on one chain, adding to ``report`` (a new one when None); returns the report.

    ``digests``: whole-file SHA-256 hex of landed files already hashed, by path; ``seen``, ``frames`` and ``listing``:
    as :func:`verify_chains` takes them.
    """
    seen = Seen() if seen is None else seen
    listed = seen.listed  # a session's landed files (paths as str), listed once for all its rounds
    report = report if report is not None else ChainReport()
    report.chains += 1
    conv = chain.conversation
    # conversation.state is a cache, but a head it names past the last round listed means rounds were
    # removed from the end of the chain, which no digest inside the chain can show (check 1). It is read
    # before the rounds are listed: a parser writes a round's file before the state that names it, so a
    # chain that grows while it is checked never looks cut short.
    named = chain.named_head()
    try:
        files, seen.rounds[chain.dir.name] = chain.round_listing()
    except LinkRefused as exc:  # its rounds folder a symbolic link: never entered, named, never a traceback
        report.problems.append(ChainProblem(conv, 0, 0, 1, exc.filename, link_said(exc.filename, "the rounds folder")))
        return report

    def problem(check: int, rnd: int, path: Path | str, message: str, seq: int = 0, landed: str = "", line: int = 0) -> None:
        report.problems.append(ChainProblem(conv, rnd, seq, check, str(path), message, landed, line))

    expected = 1
    prev: Round | CheckedRound | None = None  # the round before, when it was read whole
    prev_number = 0
    first: RoundHeader | None = None
    for rf in files:
        report.rounds += 1
        if rf.number < expected:
            problem(1, rf.number, rf.path, f"a second file for round {rf.number}")
            continue
        if rf.number > expected:
            for missing in range(expected, rf.number):
                problem(1, missing, chain.rounds_dir, f"round {missing} is missing (rounds before round {rf.number} must all be there)")
        try:
            r = check_round(rf.path, frames)
        except (RoundError, OSError) as exc:
            if isinstance(exc, RoundError):
                msg = f"{exc.rule}: {exc.message}" + (f" (line {exc.line})" if exc.line else "") + "; " + unread_hint(chain)
            else:
                msg = str(exc)
            problem(3, rf.number, rf.path, msg)
            prev, prev_number, expected = None, rf.number, rf.number + 1
            continue
        h = r.header
        if h.round != rf.number or r.digest[:12] != rf.prefix:
            problem(3, rf.number, rf.path, f"the file name does not match the round it holds (round {h.round}, digest {r.digest[:12]})")
        if first is None and h.round == 1:
            first = h
        elif first is not None:
            if h.conversation != first.conversation:
                problem(3, h.round, rf.path, f"conversation {h.conversation!r} is not round 1's {first.conversation!r}")
            for key in ("session", "parser", "policy"):
                if getattr(h, key) != getattr(first, key):
                    problem(3, h.round, rf.path, f"{key} {getattr(h, key)!r} differs from round 1's {getattr(first, key)!r}")
        adjacent = prev is not None and prev_number == rf.number - 1
        if rf.number > 1 and adjacent and h.previous != prev.digest:
            problem(2, h.round, rf.path, f"previous {h.previous[:12]}… is not the digest of round {prev_number} ({prev.digest[:12]}…)")
        if rf.number == 1 and h.from_seq != 1:
            problem(4, 1, rf.path, f"round 1 starts at seq {h.from_seq}, not 1", seq=h.from_seq)
        elif adjacent and h.from_seq != prev.header.through_seq + 1:
            problem(
                4, h.round, rf.path,
                f"from_seq {h.from_seq} does not follow round {prev_number}'s through_seq {prev.header.through_seq}",
                seq=h.from_seq,
            )
        if rf.number == 1 or adjacent:
            _check_inputs(chain, r, prev.header.input_digest if adjacent else "", problem, digests or {}, listed, listing)
        prev, prev_number, expected = r, rf.number, rf.number + 1
    if prev is not None and files and prev.path == files[-1].path and (len(files) < 2 or files[-2].number != prev_number):
        seen.heads[conv] = (files[-1].path.name, prev.header.session, prev.header.through_seq)
    for missing in range(prev_number + 1, named + 1):
        problem(1, missing, chain.rounds_dir, f"round {missing} is missing: conversation.state names round {named} as the head")
    return report


#: What follows :func:`reland_command` in a hint: what DIR is (the root records each source's path under its source
#: root, never the source root itself: docs/storage-root.md).
RELAND_SOURCE = ("(DIR: the folder the session was collected from; the root does not record it, so give it, or leave "
                 "--source out when asz.yaml's adapter source is that folder)")


def reland_command(session: str, root: str | os.PathLike) -> str:
    """The whole ``asz sources --reland`` command a hint prints for a lost landed file of ``session`` in ``root``:
    ``asz sources --reland SESSION --root ROOT --source DIR`` (``DIR`` a placeholder, :data:`RELAND_SOURCE`)."""
    return f"asz sources --reland {shell_word(session)} --root {shell_word(root)} --source DIR"


def received_from(root: str | os.PathLike, session: str) -> str:
    """Who sent ``session`` (its directory name) to ``root``, when ``asz receive`` landed it (its sender record
    ``_received/<session>.senders`` is there): the instance ids (:func:`~asz_core.storage.senders.instance_label`);
    '' for a session collected here."""
    from ..storage.senders import RECEIVED, instance_label, senders_path, session_senders

    if not senders_path(root, session).is_file():  # a receiving root that took no file of it (its rounds only)
        return "a pushing host, not named (no landed file of the session here says which)" if (Path(root) / RECEIVED).is_dir() else ""
    return instance_label(session_senders(root, session)) or "another host"


def received_lost(hosts: str, root: str | os.PathLike) -> str:
    """The way back for a lost landed file of a session ``hosts`` sent to ``root`` (:func:`received_from`): a receiver
    holds no source, so never ``asz sources --reland`` (trial 30a F9), but the hosts' receipts."""

    return (f"this root received the session from {hosts} (asz receive), so it holds no source to land a lost file again "
            f"from: asz verify --root {shell_word(root)} --receipts HOST_ROOT_OR_PUSH_STATE names each file a host's "
            "receipts say it accepted that is missing since (docs/push.md, the receipts); the sending host's root holds "
            "it while its retention keeps it, and sends it again: by itself on its next push while it is due there, or "
            "with asz push --retry-rejected where its push.state records it as rejected (a receiver that could not "
            "write it answered so before 2026-12-06)")


def anew_hint(sdir: Path) -> str:
    """What a chain whose landed files are gone for good can do: when session ``sdir``'s folder was lost and landed
    again (asz collect warns), ``asz parse SESSION --anew --root ROOT`` sets the chain aside and builds a new one."""
    from ..collect.session_landing import anew_command

    return (f"if the session's folder was lost and its files landed again from the source (asz collect warned), "
            f"{anew_command(sdir.name, sdir.parent)} sets this chain aside (kept under "
            "_set_aside/, never deleted) and builds a new one from the landed files as they are now")


def unread_hint(chain: Chain) -> str:
    """What a round file that no longer reads (changed or damaged after parse wrote it) can do: it vouches for no
    landed file any more, and ``asz parse CONVERSATION --anew --root ROOT`` sets the chain aside and builds a new one
    (trial 17, F1)."""
    from ..collect.session_landing import anew_command

    return ("the round file does not read as parse wrote it (changed or damaged since), so it vouches for no landed "
            "file; once the session's "
            f"landed files verify (no other problem names them), {anew_command(chain.conversation, chain.root)} sets "
            "this chain aside (kept under _set_aside/, never deleted) and builds a new one from them")


def _check_inputs(chain: Chain, r: Round | CheckedRound, previous_input: str, problem, known: Mapping[str, str],
                  listed: dict[str, list], listing: Listing | None = None) -> None:
    """Checks 5 and 6: recompute the input digest from the files on disk, name missing seqs when it differs.

    ``known`` holds whole-file digests already found, by path; ``listed`` each
    session's landed files (their paths as ``str``, no Path made a file), filled on first use by ``listing``
    (:func:`verify_chains`).
    """
    h = r.header
    path = r.path or chain.rounds_dir
    if h.through_seq < h.from_seq:
        want = input_digest(previous_input, [])
        if want != h.input_digest:
            problem(6, h.round, path, "input digest does not match an empty window")
        return
    key = session_path(chain.root, h.session)  # no Path made: nearly every window's digest matches
    present: dict[int, str] = {}
    files = listed.get(key)
    if files is None:
        files = listed[key] = (listing(key) if listing is not None else
                               session_listing(key, skeletons=True, strings=True)).files
    for ln, p in files:
        if h.from_seq <= ln.seq <= h.through_seq:
            present[ln.seq] = p
    digests: dict[int, str] = {}
    unreadable = []
    for seq, p in sorted(present.items()):
        try:
            digests[seq] = known.get(p) or landed_file_digest(p)
        except (OSError, ValueError) as exc:
            unreadable.append((seq, str(exc)))
    if input_digest(previous_input, digests.values()) == h.input_digest and not unreadable:
        return
    for seq, msg in unreadable:
        problem(5, h.round, path, f"consumed file cannot be read: {msg}", seq=seq)
    if unreadable:
        return
    sdir = Path(key)  # made only here: a window whose digest matches, nearly every one, needs no Path
    if not sdir.is_dir():
        problem(5, h.round, path, f"the session directory {sdir} is gone; seqs {h.from_seq}–{h.through_seq} were consumed", seq=h.from_seq)
        return
    missing = [s for s in range(h.from_seq, h.through_seq + 1) if s not in present]
    sent = received_from(chain.root, h.session) if missing else ""
    for seq in missing:
        problem(5, h.round, path, f"a landed file this round consumed is no longer on disk; {received_lost(sent, chain.root)}"
                if sent else f"a landed file this round consumed is no longer on disk; {reland_command(h.session, chain.root)} "
                f"lands it again from its source {RELAND_SOURCE}, byte for byte, while the source and the session's index "
                "still hold it", seq=seq)
    if not missing:
        problem(6, h.round, path, f"input digest recomputed from the landed files of seq {h.from_seq}–{h.through_seq} does not match the header")
        _name_changed(h, previous_input, {s: Path(p) for s, p in present.items()}, digests, sdir,
                      lambda *a, **k: problem(6, h.round, path, *a, **k))


def _name_changed(h: RoundHeader, previous_input: str, present: dict[int, Path], digests: dict[int, str], sdir: Path,
                  problem: Callable[..., None]) -> None:
    """Name each landed file of a round whose input digest does not match that is not the file the round consumed.

    A round keeps one digest over its window, never one per file. The session
    index keeps each file's whole digest as parse read it; when the index's
    digests of the window reproduce the round's input digest, they are the ones
    the round consumed (:mod:`asz_core.flow.recorded`), and each file hashing to
    another that still verifies by itself (re-sealed: its closing line was
    written again; a file whose closing line fails is named by the landed
    files' check) is named (``landed``; ``asz verify`` adds the first line that
    differs from the index). Otherwise the round alone is named, and this says
    why no file is: the index holds digests of the window that do not reproduce
    it, or it is gone (naming the session and its ``index/entries.jsonl``) or
    holds none of the window.
    """
    from .recorded import indexed_digests

    indexed = {s: d for s, d in indexed_digests(sdir).items() if h.from_seq <= s <= h.through_seq}
    if input_digest(previous_input, indexed.values()) != h.input_digest:
        if not indexed:  # no index of these files (never built, or deleted): nothing to tell them apart by; say why
            entries = sdir / "index" / "entries.jsonl"
            why = "is gone" if not entries.is_file() else f"holds no digest of seq {h.from_seq}–{h.through_seq}"
            problem(f"which landed file changed cannot be told: the index of session {sdir.name}, {entries}, {why} "
                    f"(a round keeps one digest over its window, the session index one per file); {anew_hint(sdir)}")
            return
        problem("which landed file changed cannot be told: the session index's digests do not reproduce this round's "
                f"input digest either (the index was built again from the files as they are now); {anew_hint(sdir)}")
        return
    for seq, p in sorted(present.items()):
        want, got = indexed.get(seq), digests.get(seq)
        if want is None or got is None or want == got or (p.suffix != ".sk" and check_file(p).problems):
            continue  # a file that does not verify by itself is named by the landed files' check already
        problem(f"not the file the round consumed (its SHA-256 is {got[:12]}…, the round's input digest binds {want[:12]}…)",
                seq=seq, landed=str(p))
