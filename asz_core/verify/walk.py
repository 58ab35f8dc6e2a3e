"""``asz verify``: check that what landed is whole and contiguous, without the source.

A :class:`VerifyReport` is a list of :class:`Section` s. :func:`verify_root` makes the ``landed`` section, which
holds two checks; :func:`chain_section` adds the round chains of Session Flow as a ``chains`` section,
:func:`provider_section` the rebuilt provider bodies, and :func:`verify` (what the command runs) puts them together.

* **Files** (seed 000, Closing line; origin-digest §3.1). Every landed
  ``.sd`` (and ``.sk`` skeleton) has a valid header, every record line decodes
  and type-checks as a record, and the closing line's count and digest match.
  A landed file is read-only and its name agrees with its header: kind prefix,
  seq, session directory and stream or run directory (origin-digest §2.1). Two
  files of a session never share a seq.
* **Contiguity** (seed 000, Record; origin-digest §3.3). In each stream or run
  directory, for each kind, across its files in seq order: ``ord`` runs 1, 2, 3
  from 1, the first record is at ``off`` 0 and each next one at the previous
  ``off + bytes + 1``; where the kind has an append cursor, the records reach
  its ``ord`` and ``offset`` (origin-digest §2.2). A record landed again by an
  interrupted pass (the file landed, the cursor did not move) repeats an earlier
  record of its stream exactly, at the start of a later file; it is counted,
  not a problem (origin-digest §2.1). Snapshot kinds (``agent_meta``,
  ``workflow_manifest``, ``workflow_script``) hold one document each, at ord 1
  and off 0; a lost one is found only by the round chain (seed 000, Record).
  ``provider_body`` files are not contiguity-checked: :func:`provider_section`
  rebuilds every body instead.

A temporary file a writer left (``.<name>.<pid>.tmp``) never landed and is not checked; one note counts them
(:data:`~asz_core.verify.leftover.LEFTOVER_SAID`; those a parse left in chains and session indexes another,
:data:`~asz_core.verify.leftover.PARSE_LEFTOVER_SAID`). Problems are named as the
original names them (``ord gap``, ``byte gap``, ``end gap``, ``digest mismatch``, ``missing closing line``) and
each names a file, a line (1-based, 0 for the file as a whole) and a field.

Each file is checked by :func:`asz_core.verify.landed.check_landed_file` (one
streaming scan reading each record's positions from the front of its line;
``deep`` decodes every line). A root with ``SESSIONS_PER_JOB`` sessions per
CPU or more is shared among one process per CPU by session; one with fewer sessions but
``PARALLEL_MIN_FILES`` files or more, by file; a session listed by :func:`~asz_core.verify.listing.verify_listing`.
Where sessions are checked one by one, a clean one is checked in one C call (:func:`~asz_core.verify.clean.clean_session`).
The contiguity of one stream and kind is :class:`~asz_core.verify.contiguity.StreamWalk`'s; a file's name held to its
header, :func:`~asz_core.verify.names.name_problems` (re-exported here).
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator

from .landed import FileResult, check_by_reader, check_deep, check_for_walk, check_landed_file, compact_run, read_whole
from ..storage.cursor import UNREADABLE_CURSOR, AppendCursor, read_cursor
from ..storage.root import SESSION_STATE
from ..storage.readings import received_rereads, same_reading
from ..storage.layout import (SessionListing, parse_landed_name, refuse_what_is_no_root, root_links, session_dirs,
                              session_links)
from ..sessiondata.nolink import LinkRefused, link_said
from ..collect.workers import LOST, default_jobs, each_result, guided, process_pool
from ..storage.torn import torn_detail
from ..termsafe import shell_word
from .beside import beside_sessions
from .bodies import provider_section
from .chains import chain_section
from .clean import clean_session
from .hints import WARNED, add_hints, conflict_of
from .gate import refuse_empty_root
from .leftover import leftover_notes
from .listed import check_listed, erased_names
from .senders import check_senders
from .skeletons import skeleton_section
from .listing import verify_listing
from .walk_told import Told
from .contiguity import StreamWalk
from .names import WRITE_BITS, name_problems, names_agree, show_path, shown_in, writable, writable_said
from .report import (ALONE_NOTE, from_error, DUPLICATES_LINE, FILE_OK_LINE, OK_LINE, PARALLEL_MIN_FILES, SESSIONS_PER_JOB, SNAPSHOT_KINDS, TORN,
                     UNCHECKED_KINDS, UNCURSORED_LINE, Problem, Section, VerifyReport, hint_lost)

__all__ = ["Problem", "Section", "VerifyReport", "FileResult", "check_landed_file", "verify", "verify_file",
           "verify_root", "name_problems", "chain_section", "provider_section", "SNAPSHOT_KINDS", "UNCHECKED_KINDS",
           "OK_LINE", "FILE_OK_LINE", "ALONE_NOTE", "DUPLICATES_LINE", "UNCURSORED_LINE", "PARALLEL_MIN_FILES"]

def _threaded(paths: list[Path], deep: bool) -> Iterator[FileResult]:
    """Check files in order in this process; with ``deep``, reading the next one and hashing the current one on worker threads."""
    if not paths:
        return
    if not deep:
        for path in paths:
            yield check_for_walk(path)
        return
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="asz-verify") as pool:
        nxt: Future = pool.submit(read_whole, paths[0])
        for i, path in enumerate(paths):
            data = nxt.result()
            if i + 1 < len(paths):
                nxt = pool.submit(read_whole, paths[i + 1])
            yield compact_run(check_landed_file(path, pool=pool, data=data, deep=True) if data is not None else check_by_reader(path))
            del data


def _sessions_job(job: tuple[Path, str, list[Path], bool, bool, bool]) -> tuple:
    """Verify some sessions in a worker process: ``(root, root as shown, session dirs, deep, want digests, beside)`` →
    the summed counts of :func:`_verify_session` (streams, records, duplicates, streams without a cursor), their
    problems, (when wanted) the whole-file digests of their landed files (:func:`_file_digests`), the names of
    those that hold no landed file, what their listings told the notes (:class:`~asz_core.verify.walk_told.Told`),
    and with ``beside`` what :func:`~asz_core.verify.beside.beside_sessions` checks of them next (else None)."""
    root, root_shown, sdirs, deep, want_digests, beside = job
    problems: list[Problem] = []
    digests: dict[str, str] | None = {} if want_digests else None
    empty: set[str] = set()
    told = Told()
    listed: dict[str, list] | None = {} if beside else None
    total = _each_session(root, root_shown, sdirs, deep, digests, problems, empty, told=told, listed=listed)
    return (*total, problems, list(digests.items()) if digests is not None else [], sorted(empty), told,
            beside_sessions(root, sdirs, digests, listed, root_shown) if beside else None)


def _each_session(root: Path, root_shown: str, sdirs: list[Path], deep: bool, digests: dict[str, str] | None,
                  problems: list[Problem], empty: set[str], step: Callable[[str, int], None] | None = None,
                  told: Told | None = None, listed: dict[str, list] | None = None) -> list[int]:
    """Verify sessions one by one in this process: each in one C call where it is clean (:func:`clean_session`), else
    listed, its files checked and walked by :func:`_verify_session`. Returns the summed (streams, records, duplicates,
    streams without a cursor); puts the problems in ``problems``, the names of sessions holding no landed file in
    ``empty``, whole-file digests in ``digests`` (when given), what the listings told the notes in ``told`` (when
    given), each session's listed files in ``listed`` (when given: ``verify_listing(sdir).files`` by
    ``os.fspath(sdir)``, for the chain checks); ``step(session, 1)`` after each session."""
    total = [0, 0, 0, 0]
    for sdir in sdirs:
        got = None if deep else clean_session(sdir, digests, told, listed)
        if got is None and told is not None:
            told.by_python(sdir.name)
        if got is not None:
            streams, records, uncursored, files = got
            counts: tuple[int, ...] = (streams, records, 0, uncursored)
        else:
            listing = verify_listing(sdir)
            files = len(listing.files)
            if listed is not None:
                listed[os.fspath(sdir)] = listing.files
            results = [check_deep(path) if deep else check_for_walk(path) for _, path in listing.files]
            counts = _verify_session(root, root_shown, sdir, listing, results, problems)
            if digests is not None:
                digests.update(_file_digests(listing, results))
        if not files:
            empty.add(sdir.name)
        for i, n in enumerate(counts):
            total[i] += n
        if step is not None:
            step(sdir.name, 1)
    return total


def _file_digests(listing: SessionListing, results: list[FileResult]) -> Iterator[tuple[str, str]]:
    """``(path, whole-file SHA-256 hex)`` of each listed file whose check found its digest (a whole file)."""
    return ((str(path), res.digest) for (_, path), res in zip(listing.files, results) if res.digest)


def _check_files(paths: list[Path], jobs: int, deep: bool = False) -> Iterator[FileResult]:
    """Check every file, in ``jobs`` processes when there is enough to share; yields results in ``paths`` order.

    Results are consumed as they come, so a large root is never held whole.
    Worker processes are forked only when this process runs no other thread
    (forking a threaded process can deadlock); otherwise they are spawned.
    """
    if jobs > 1 and len(paths) >= PARALLEL_MIN_FILES:
        with process_pool(jobs) as procs:
            yield from procs.map(check_deep if deep else check_for_walk, paths,
                                 chunksize=max(1, min(16, len(paths) // (jobs * 8))))
        return
    yield from _threaded(paths, deep)


# --------------------------------------------------------------------------- problems


def _damage(res: FileResult, path: Path, sdir: Path, seq: int, shown: str) -> list[Problem]:
    """A ``damaged record`` problem naming the first line of ``res``'s file that differs from what the index kept of
    it (:func:`asz_core.verify.damage.first_damaged_line`), for a file that is not whole (a failed closing digest
    or count, a line that does not read, a missing closing line)."""
    if not res.errors:
        return []
    from .damage import first_damaged_line

    dmg = first_damaged_line(path, sdir, seq)
    if dmg is None:
        return []
    return [Problem(shown, dmg.line, "", "damaged record" if dmg.row else "damaged line", dmg.detail)]




# --------------------------------------------------------------------------- the checks


def verify_file(path: str | os.PathLike, *, deep: bool = False) -> VerifyReport:
    """Check one landed file on its own, away from its root (seed 000: a file can be checked on its own).

    Header, every record line, closing count and digest; records of a
    stream kind follow each other inside the file (``ord`` + 1, ``off`` at the
    previous ``off + bytes + 1``); a one-document kind holds ord 1 at off 0;
    when the name is a landed name, its kind prefix and seq agree with the
    header. Mode and directory are not checked (they belong to a root).
    Section ``file``: counts ``files`` (1) and ``records``. Raises
    FileNotFoundError when ``path`` is not a file.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    shown = str(path)
    res = check_landed_file(path, deep=deep)
    problems = [from_error(e, shown) for e in res.errors]
    named = parse_landed_name(path.name)
    sdir = None
    if named is not None:
        sdir = next((p for p in list(path.parents)[:4] if (p / "index" / "index.state").is_file()), None)
        if sdir is not None:
            problems.extend(_damage(res, path, sdir, named.seq, shown))
    if res.header is not None:
        ln = parse_landed_name(path.name)
        if ln is not None:
            if res.header.kind != ln.kind:
                problems.append(Problem(shown, 1, "kind", "name mismatch", f"the name says {ln.kind}, the header says {res.header.kind!r}"))
            if res.header.seq != ln.seq:
                problems.append(Problem(shown, 1, "seq", "name mismatch", f"the name says seq {ln.seq}, the header says {res.header.seq}"))
        kind = res.header.kind
        if kind not in UNCHECKED_KINDS and res.positions:
            walk = StreamWalk(kind)
            first = res.positions[0]
            walk.exp_ord, walk.exp_off = first.ord, first.off  # a file on its own may start anywhere
            walk.feed(shown, res, problems)
    problems.sort(key=lambda p: p.line)
    section = Section("file", f"checked 1 file, {res.records} records", {"files": 1, "records": res.records})
    section.problems = problems
    if not problems:  # what "whole" does not cover (trial 15, F4): said where it could be misread
        section.notes.append(ALONE_NOTE.format(command=f"asz verify --root {shell_word(sdir.parent)} {shell_word(sdir.name)}" if sdir is not None
                                               else "asz verify --root ROOT SESSION"))
    return VerifyReport([section], ok_line=FILE_OK_LINE)


def verify_root(root: str | os.PathLike, session: str | None = None, *, jobs: int | None = None, deep: bool = False,
                digests: dict[str, str] | None = None, step: Callable[[str, int], None] | None = None, unheld=None,
                seen=None) -> VerifyReport:
    """Verify every landed file of a storage root, or of one session (origin-digest §2.1, §2.2, §3.3, §8.1).

    ``root`` is the storage root; ``session`` a session id (its directory name). Returns a report with one section,
    ``landed``: counts ``sessions``, ``streams`` (stream or run directories × kind, i.e. sources), ``records`` (record
    lines read) and ``duplicates`` (records re-landed by an interrupted pass). ``jobs`` is how many processes check
    files (default: one per CPU; a root of fewer than ``PARALLEL_MIN_FILES`` files is checked in this process).
    ``digests`` receives the SHA-256 hex of each whole landed file by path (str): the chains' inputs; ``step(session,
    n)`` is called as ``n`` more sessions are checked; ``unheld`` receives the paths (str) of the landed files of
    sessions holding an ``execution`` file whose bytes (read whole in one C call) hold no :data:`~.clean.CALL_NAME`.
    ``seen`` (a :class:`~asz_core.flow.verify_chain.Seen`): where worker processes check a whole root's sessions,
    each also checks its sessions' state files and chains (:func:`~asz_core.verify.beside.beside_sessions`) into it, for
    :func:`~asz_core.verify.chains.chain_section` and the hints to take; where this process checks them one by one,
    each session's listing goes into ``seen.listed`` for the chain checks.
    Raises FileNotFoundError when the root or session does not exist, or the root is no storage root (no session
    directory in it: a session directory or a Claude Code projects directory given as the root; an empty folder)."""
    root_shown = str(root)
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no storage root here")
    if session is not None:
        sd = root / session.replace("/", "_").replace("\\", "_")
        if session in ("", ".", "..") or sd.name.startswith(("_", ".")):
            raise FileNotFoundError(f"{root}: no session {session!r}")
        if sd.is_symlink():  # never followed (docs/storage-root.md, "No links"): named, nothing under it read
            return VerifyReport([_landed_section(0, 0, 0, 0, 0, _linked(root_shown, root, [str(sd)]))])
        if not sd.is_dir() or sd.name in erased_names(root):  # erased: said so, never walked (asz erase)
            gone = _landed_section(0, 0, 0, 0, 0, [])
            check_listed(root, root_shown, [], set(), gone, only=sd.name)  # listed: removed after it landed
            if not gone.problems and not gone.counts.get("erased_sessions"):
                raise FileNotFoundError(f"{root}: no session {session!r}")
            return VerifyReport([gone])
        sessions = [sd]
    else:
        refuse_empty_root(root_shown)
        sessions = session_dirs(root)
        refuse_what_is_no_root(root, sessions, "asz verify")
    jobs = default_jobs() if jobs is None else jobs
    gone = erased_names(root) if session is None else set()
    problems: list[Problem] = [] if session is not None else _linked(
        root_shown, root, [p for p in root_links(root) if os.path.basename(p) not in gone]) + _key_linked(root_shown, root)
    empty: set[str] = set()  # sessions holding no landed file
    streams = records = duplicates = uncursored = 0
    told: Told | None = Told()  # what the walk's listings told the notes after it; None: every note looks at every session
    if jobs > 1 and len(sessions) >= SESSIONS_PER_JOB * jobs:
        # many sessions: each process verifies whole sessions, its files and its walk
        streams, records, duplicates, uncursored = _by_workers(root, root_shown, sessions, jobs, deep, digests, step,
                                                               seen if session is None else None, problems, empty, told)
    elif jobs <= 1 and not deep:  # one process: a session at a time, a clean one in one C call (its listing kept)
        streams, records, duplicates, uncursored = _each_session(root, root_shown, sessions, deep, digests, problems, empty, step,
                                                                 told, None if seen is None else seen.listed)
    else:
        told = None
        listed = [(sdir, verify_listing(sdir)) for sdir in sessions]
        empty.update(sdir.name for sdir, listing in listed if not listing.files)
        paths = [path for _, listing in listed for _, path in listing.files]
        checked = _check_files(paths, jobs, deep)
        try:
            for sdir, listing in listed:
                results = [next(checked) for _ in listing.files]
                s_streams, s_records, s_dups, s_bare = _verify_session(root, root_shown, sdir, listing, results, problems)
                if digests is not None:
                    digests.update(_file_digests(listing, results))
                streams, records, duplicates, uncursored = (streams + s_streams, records + s_records, duplicates + s_dups,
                                                            uncursored + s_bare)
                if step is not None:
                    step(sdir.name, 1)
        finally:
            checked.close()  # shuts the worker processes down now, not when collected
    if unheld is not None and told is not None:
        unheld.update(told.unheld)
    section = _landed_section(len(sessions), streams, records, duplicates, uncursored, problems)
    check_listed(root, root_shown, sessions, empty, section, only=(only := None if session is None else sessions[0].name),
                 stamps=None if told is None else set(told.stamps))
    check_senders(root, root_shown, section, only, digests, sessions)  # above: _sessions.list's sessions gone; here: who sent what
    section.notes += leftover_notes(root, sessions, only is not None, told,  # temporaries writers left
                                    None if seen is None or only is not None else seen.rounds)
    return VerifyReport([section])


def _linked(root_shown: str, root: Path, paths: list[str]) -> list[Problem]:
    """A ``symbolic link`` problem for each path (an entry of the root in a session folder's place) that is one: no
    listing enters it (:func:`~asz_core.storage.layout.session_dirs`), so its files are never taken as this root's."""
    show = shown_in(root_shown, root, root)
    return [Problem(show(p), 0, "", "symbolic link", link_said(p, "the session folder")) for p in paths]


def _key_linked(root_shown: str, root: Path) -> list[Problem]:
    """A ``symbolic link`` problem for a link at the root's mask key or its folder
    (:func:`~asz_core.storage.mask_key.key_links`): never read, so no export's digests are keyed by a key another
    chose (trial 44c F5)."""
    from ..storage.mask_key import key_links

    show = shown_in(root_shown, root, root)
    return [Problem(show(p), 0, "", "symbolic link", link_said(p, what)) for p, what in key_links(root)]


def _walked_cursor(cpath, show: Callable[[str], str], problems: list[Problem]) -> tuple[object, object]:
    """``(cursor, cpath)`` of a stream's cursor file ``cpath`` (None: none): a cursor that does not read, or is a
    symbolic link (never followed: the stream is walked as one with no cursor, named once), is a problem, and
    ``(None, None)`` (reported: nothing more to check against it)."""
    try:
        return (read_cursor(cpath) if cpath is not None else None), cpath
    except LinkRefused:
        problems.append(Problem(show(cpath), 0, "", "symbolic link", link_said(cpath, "the cursor")))
    except (ValueError, OSError) as exc:  # OSError: a cursor that cannot be opened (a directory in its place)
        why = str(exc) if isinstance(exc, ValueError) else f"{cpath}: unreadable: {exc.strerror or exc}"
        mended = isinstance(exc, (ValueError, IsADirectoryError))  # what asz collect sets aside; not a permission
        problems.append(Problem(show(cpath), 0, "", "bad cursor", f"{why}; {UNREADABLE_CURSOR}" if mended else why))
    return None, None


def _folder_links(sdir: Path, show: Callable[[str], str]) -> list[Problem]:
    """A ``symbolic link`` problem for each folder of session ``sdir`` that is one (``streams``, a stream folder…,
    :func:`~asz_core.storage.layout.session_links`): never entered, so what it holds is not listed (nolink.py)."""
    return [Problem(show(path), 0, "", "symbolic link", link_said(path, what)) for path, what in session_links(sdir, cursors=False)]


def _by_workers(root: Path, root_shown: str, sessions: list[Path], jobs: int, deep: bool, digests: dict[str, str] | None,
                step: Callable[[str, int], None] | None, seen, problems: list[Problem], empty: set[str],
                told: Told) -> list[int]:
    """:func:`verify_root`'s check of ``sessions`` by ``jobs`` worker processes, each whole sessions at a time (and with
    ``seen``, what :func:`~asz_core.verify.beside.beside_sessions` checks of them, put in it): the summed (streams, records, duplicates, streams
    without a cursor); problems, sessions holding no landed file, what the listings told, digests as
    :func:`_each_session` puts them."""
    total = [0, 0, 0, 0]
    with process_pool(jobs) as procs:
        runs = [(root, root_shown, run, deep, digests is not None, seen is not None) for run in guided(sessions, jobs)]
        for job, got in each_result(procs, _sessions_job, runs):
            *counts, s_problems, s_digests, s_empty, s_told, s_beside = got if got is not LOST else _sessions_job(job)
            if s_beside is not None:
                seen.state_files.update(s_beside[0])
                seen.marked.update(s_beside[1])
                seen.chained.update(s_beside[2])
                for key, files in s_beside[3].items():
                    seen.listed.setdefault(key, files)
                seen.rounds.update(s_beside[4])
                seen.open_below.update(s_beside[5])
            empty.update(s_empty)
            told.add(s_told)
            total = [a + b for a, b in zip(total, counts)]
            problems.extend(s_problems)
            if digests is not None:
                digests.update(s_digests)
            if step is not None:
                step(job[2][-1].name, len(job[2]))
    return total


def _landed_section(sessions: int, streams: int, records: int, duplicates: int, uncursored: int,
                    problems: list[Problem]) -> Section:
    """The ``landed`` section of :func:`verify_root`: its counts and ``checked …`` line, its notes, ``problems`` split
    into warnings (:data:`~asz_core.verify.hints.WARNED`) and problems, each sorted by file and line."""
    section = Section(
        "landed",
        f"checked {sessions} session(s), {streams} source file(s), {records} records",  # a stream dir and kind each
        {"sessions": sessions, "streams": streams, "sources": streams, "records": records, "duplicates": duplicates},
    )
    if duplicates:
        section.notes.append(DUPLICATES_LINE.format(n=duplicates))
    if uncursored:
        section.notes.append(UNCURSORED_LINE.format(n=uncursored))
    section.warnings = sorted((p for p in problems if p.problem in WARNED), key=lambda p: (p.file, p.line))
    section.problems = sorted((p for p in problems if p.problem not in WARNED), key=lambda p: (p.file, p.line))
    return section


def _verify_session(root: Path, root_shown: str, sdir: Path, listing: SessionListing, results: list[FileResult],
                    problems: list[Problem]) -> tuple[int, int, int, int]:
    """Names, modes, seqs, contiguity and cursors of one session; returns (streams, records, duplicates, streams without a cursor).
    ``results`` holds the check of each of ``listing.files``, in the same order; a gap tells the way back (hint_lost)."""
    first, show, name = len(problems), shown_in(root_shown, root, sdir), sdir.name
    streams, sname = os.path.join(sdir, "streams") + os.sep, "" if "\\" in name or name in ("", ".", "..") else name
    problems += _folder_links(sdir, show)
    for path in listing.strays:
        problems.append(Problem(show(path), 0, "", "unexpected file",
                                "a Session Data file whose name is not <kind>-<stamp>-<seq>.sd: nothing reads it"))
    groups: dict[tuple[str | Path, str], list[tuple[int, str, FileResult]]] = {}
    by_seq: dict[int, str] = {}
    records = duplicates = uncursored = 0
    for (ln, path), here, res in zip(listing.files, listing.dirs, results):
        shown = show(path)
        groups.setdefault((here, ln.kind), []).append((ln.seq, shown, res))
        records += res.records
        if res.errors:
            problems.extend(from_error(e, shown) for e in res.errors)
            problems.extend(_damage(res, path, sdir, ln.seq, shown))
        if ln.seq in by_seq:
            problems.append(Problem(shown, 0, "seq", "duplicate seq", f"seq {ln.seq} is also {by_seq[ln.seq]}"))
        else:
            by_seq[ln.seq] = shown
        if (res.mode & WRITE_BITS) if res.mode >= 0 else writable(path):
            problems.append(Problem(shown, 0, "mode", "writable", writable_said(path, not res.errors)))
        if res.header is not None and not names_agree(ln, res.header, here, streams, sname):
            problems.extend(name_problems(shown, path, ln, res.header, root, sdir, here if here.__class__ is str else None))
        if ln.ext == "sk":  # issue 21: a skeleton's removed header (seed 000, Skeletons)
            from ..sessiondata.skeleton import check_removed

            problems.extend(Problem(shown, 1, "removed", "bad header", m) for m in check_removed(path))
    cursors = listing.cursors
    # A session a collect pass landed here has session.state; one that arrived through asz receive has none and no
    # source in this root, so a stream of it without a cursor is never landed again by a collect pass here.
    collected: bool | None = None  # looked up once, the first time a stream has no cursor
    keys = sorted(groups.keys() | cursors.keys(), key=lambda k: (str(k[0]), k[1]))
    for key in keys:
        d, kind = key
        cpath = cursors.get(key)
        cursor, cpath = _walked_cursor(cpath, show, problems)
        # A source read again from its start (asz sources --reset-conflict --reread): the files from reread_seq on
        # are that new reading, walked on their own; the earlier reading before them is walked as it landed. A
        # receiving root has the seq its sending root's cursor gave (_received/readings.list; trial 34b F2).
        reread = cursor.reread_seq if isinstance(cursor, AppendCursor) else received_reading(root, sdir, d, kind)
        walk = StreamWalk(kind)
        last_seq = 0
        if kind not in UNCHECKED_KINDS:
            for seq, shown, res in groups.get(key, ()):
                if not same_reading(seq, last_seq, reread):
                    duplicates += walk.duplicates
                    walk = StreamWalk(kind)
                walk.feed(shown, res, problems, seq)
                last_seq = seq
        duplicates += walk.duplicates
        if getattr(cursor, "state", None) == "conflict":  # a warning, as a torn line is (verify_landed)
            problems.extend(conflict_of(name, d, cpath, cursor))
        if cursor is None:
            if cpath is None and key not in cursors and kind not in UNCHECKED_KINDS and key in groups:
                collected = os.path.exists(os.path.join(sdir, SESSION_STATE)) if collected is None else collected
                uncursored += collected
            continue
        if isinstance(cursor, AppendCursor):
            if cursor.torn:  # a warning, not a failure (split off in verify_landed)
                problems.append(Problem(cursor.source, 0, "", TORN, torn_detail(cursor.torn)))
            if walk.short_of(cursor):
                # The cursor was read after the directory was listed: a collector still running may have landed
                # files since (a file lands before its cursor moves), so look once more before calling it a gap.
                last_seq, more = _landed_since(root, root_shown, d, kind, last_seq, walk, problems)
                records += more
            walk.end(cursor, show(cpath), last_seq, problems)
    hint_lost(problems, first, name, root_shown)
    return len(keys), records, duplicates, uncursored


def received_reading(root: Path, sdir: Path, d: str | Path, kind: str) -> int:
    """The seq a receiving root's ``_received/readings.list`` (:func:`~asz_core.storage.readings.received_rereads` of
    session directory ``sdir``) gives the new reading of directory ``d``'s ``kind`` files; 0 when none (any other
    root: one stat)."""
    received = received_rereads(root, sdir.name)
    if not received:
        return 0
    return received.get((os.path.relpath(os.fspath(d), os.fspath(sdir)).replace(os.sep, "/"), kind), 0)


def _landed_since(root: Path, root_shown: str, d: str | Path, kind: str, last_seq: int, walk: "StreamWalk",
                  problems: list[Problem]) -> tuple[int, int]:
    """Check and walk the files of ``kind`` in directory ``d`` with a seq above ``last_seq`` (landed since the
    session was listed); returns the new last seq and the records they hold."""
    found = []
    try:
        names = os.listdir(d)
    except OSError:
        return last_seq, 0
    for name in names:
        ln = parse_landed_name(name)
        if ln is not None and ln.kind == kind and ln.ext == "sd" and ln.seq > last_seq:
            found.append((ln.seq, os.path.join(d, name)))
    records = 0
    for seq, path in sorted(found):
        res = check_for_walk(path)
        shown = show_path(root_shown, root, path)
        problems.extend(from_error(e, shown) for e in res.errors)
        walk.feed(shown, res, problems, seq)
        records += res.records
        last_seq = seq
    return last_seq, records


def verify(root: str | os.PathLike, session: str | None = None, *, jobs: int | None = None, deep: bool = False,
           step: Callable[[str, int], None] | None = None, chains=None, receipts=None, seen=None, unheld=None) -> VerifyReport:
    """Everything ``asz verify`` checks in a root: landed data (:func:`verify_root`), the round chains, the provider bodies
    and, given ``receipts`` (``(shown, receipts, kept, host)`` per host: :func:`asz_core.verify.receipts.check_receipts`), what the
    pushing hosts say the receiver accepted.

    ``session`` limits each to one session. Lines, in order: ``checked N session(s), N source file(s), N records``,
    ``checked N conversation chain(s), N round(s)``, ``checked N provider bodies: …`` (when the root holds any
    provider_body file), how many landed files are skeletons (when any: :mod:`.skeletons`), the re-landed count when
    there is one, then the problems or ``all landed data is contiguous and matches its digests`` (origin-digest
    §8.1). ``step(name, n)``: progress, ``n`` more sessions checked, then one call per chain (a progress bar counts both). ``chains``: the root's
    :class:`~asz_core.flow.chain.SessionChains`, read once by a caller checking
    many sessions (then one session's check reads its own chains only; the
    report is the same). ``seen``: a :class:`~asz_core.flow.verify_chain.Seen` the chain checks fill with what they
    listed and read, for the checks after them (here the hints; in ``asz verify`` the arguments check); ``unheld``
    as :func:`verify_root` fills it. Raises FileNotFoundError when the root or the session does not exist.
    """
    digests: dict[str, str] = {}  # each whole landed file's SHA-256, found by the landed check: the chains' inputs
    if seen is None:
        from ..flow.verify_chain import Seen

        seen = Seen()
    # the workers checking the landed files check their sessions' chains and state files too (into seen)
    report = verify_root(root, session, jobs=jobs, deep=deep, digests=digests, step=step, unheld=unheld, seen=seen)
    section = chain_section(root, session, digests=digests, step=step, chains=chains, seen=seen)
    if section is not None:
        # sessions with no chain, sessions only ids.sqlite knows; the chains' listings read again by no one
        add_hints(root, session, report.sections[0], section, seen)
        report.sections.append(section)
    bodies = provider_section(root, session)  # issue 10: every landed provider body rebuilt
    if bodies is not None:
        report.sections.append(bodies)
    report.sections += filter(None, [skeleton_section(root, session, seen.listed)])  # trial 29a F4: what a pruned root cannot check
    if receipts is not None:
        from .receipts import check_receipts

        report.sections.append(check_receipts(root, receipts, only=session, digests=digests))
    return report
