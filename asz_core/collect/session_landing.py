"""One session's landing within a collect pass: its sources in landing order, under its lock (origin-digest §2.1, §2.2).

Split from :mod:`asz_core.collect.collector` (the :class:`~asz_core.collect.collector.Collector` and
:func:`~asz_core.collect.collector.run_passes`, which re-exports every public name here). :func:`land_session` lands
one session's sources from one or more collectors under one session lock, one pass stamp and one seq counter, in
:func:`landing_rank` order; a failure it did not expect becomes one ``error:`` line and the pass goes on. The
per-source work is :class:`asz_core.collect.session_pass.SessionPass`'s, loaded only once a session has something
to land.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..plugins.adapter import Source
from ..sessiondata import durable
from ..storage.layout import cursor_path, kind_dir, rounds_dir, session_dir
from ..storage.root import LockBusy, remove_session_temporaries, session_lock
from ..termsafe import shell_word
from .meter import session_done
from .full import stops_pass
from .report import Counters
from .settled import settled
from .vanished import still_there
from .windows import strerror

if TYPE_CHECKING:
    from .collector import Collector

__all__ = ["OBSERVER_KINDS", "landing_rank", "land_session", "LANDED_AGAIN", "anew_command"]

#: Kinds the asz observers land beside a runtime's streams (origin-digest §2.1): they land right after the main transcript.
OBSERVER_KINDS = ("changes", "execution")


def landing_rank(source: Source) -> int:
    """Where a source lands within its session's pass: 0 the main transcript (kind ``transcript``, stream
    ``main`` or ''), 1 the observers' files (:data:`OBSERVER_KINDS`), 2 everything else.

    Sources of one rank keep their order (collectors in the order given to
    :func:`run_passes`, each in discovery order). The original lands this way:
    its example document has the main transcript at seq 1 and the ``changes``
    file at seq 2, then the child streams (origin-digest §2.1).
    """
    if source.kind == "transcript" and (source.stream or "main") == "main":
        return 0
    if source.kind in OBSERVER_KINDS:
        return 1
    return 2


def land_session(root: Path, session: str, parts: list[tuple[Collector, list[Source]]], c: Counters) -> None:
    """Land one session (:func:`_collect_session`); any failure it did not expect (a MemoryError on a huge line,
    an adapter bug) is told as ``error: <session dir>: session pass failed: …`` and counted in ``errors``, and
    the pass goes on with the next session. What landed before the failure stays; the next pass goes on from
    the cursors. KeyboardInterrupt and SystemExit are not caught."""
    try:
        if parts[0][0].options.fsync:
            with durable.batch(root):  # two syncs for the session's files and cursors (sessiondata/durable.py)
                _collect_session(root, session, parts, c)
        else:
            _collect_session(root, session, parts, c)
    except Exception as exc:
        if stops_pass(root, exc, c):  # full, or the root made unwritable: said once for the pass (said_full)
            session_done(parts)
            return
        try:
            where: object = session_dir(root, session)
        except ValueError:
            where = session
        parts[0][0].report.error(where, f"session pass failed: {type(exc).__name__}: {exc}; the next pass tries again")
        c.errors += 1
    session_done(parts)


def _collect_session(root: Path, session: str, parts: list[tuple[Collector, list[Source]]], c: Counters) -> None:
    """Land one session's sources from one or more collectors under one lock, stamp and seq counter."""
    lead = parts[0][0]
    c.sessions += 1
    c.sources += sum(len(sources) for _, sources in parts)
    sdir = session_dir(root, session)
    if not sdir.is_dir():  # nothing of the session landed yet: a source gone since discovery is told here, no lock taken
        parts = [(col, still_there(col, sources, c)) for col, sources in parts]
    if settled(root, session, parts, sdir):
        return
    if refuse_linked(root, session, sdir, lead, c):
        return
    from .session_pass import Landing, SessionPass  # the landing code loads once a session has something to land

    chained = not sdir.is_dir() and _has_rounds(root, session)  # its folder went missing, its chain did not (the lock makes it)
    timeout = max(col.options.lock_timeout for col, _ in parts)
    lock = session_lock(root, session, timeout)
    try:
        lock.acquire()
    except LockBusy as exc:
        lead.report.busy(sdir, f"another writer holds the session lock ({exc.holder or 'unknown holder'}); "
                         f"left for the next pass after {timeout:g}s")
        c.busy += 1
        return
    except OSError as exc:
        if stops_pass(root, exc, c):  # a root made unwritable is said once for the pass (trial 41b F3): not collected
            c.sessions -= 1
            c.sources -= sum(len(sources) for _, sources in parts)
        else:
            lead.report.error(sdir, f"cannot lock the session: {strerror(exc)}")
            c.errors += 1
        return
    landing = None  # a Ctrl-C before it is made: the finally below has nothing to forget (trial 29b F1)
    try:
        if sdir.is_dir():
            remove_session_temporaries(sdir)  # what a writer killed or refused by a full disk left (trial 26a F5)
        stamp = lead.options.stamp_ns if lead.options.stamp_ns is not None else time.time_ns()
        landing = Landing(root, session, stamp, lead.options.fsync, lead.options.before_landing)
        passes = [SessionPass(col, session, stamp, c, landing) for col, _ in parts]
        visited: list[set[Path]] = [set() for _ in parts]
        owners: dict[Path, str] = {}
        order = [(i, s) for i, (_, ss) in enumerate(parts) for s in ss]
        order.sort(key=lambda item: landing_rank(item[1]))  # stable: discovery order within a rank
        peers: dict[Path, list[str]] = {}  # cursor file -> the src of every source of this pass landing into it
        for i, s in order:
            with contextlib.suppress(ValueError, KeyError):  # told in the loop below
                peers.setdefault(cursor_path(kind_dir(root, session, s.kind, s.stream, s.batch), s.kind), []).append(s.src)
        for i, s in order:
            col = parts[i][0]
            try:
                d = kind_dir(root, session, s.kind, s.stream, s.batch)
                cp = cursor_path(d, s.kind)
            except (ValueError, KeyError) as exc:
                col.report.error(s.path, f"cannot be stored: {exc}")
                c.errors += 1
                continue
            visited[i].add(cp)
            passes[i].source(s, d, cp, owners, peers.get(cp))
        landing.landed(lead.options.after_landing)  # before session.state: its barrier syncs what this wrote
        if landing.writer is not None:
            landing.writer.write_state()
        for i, (col, _) in enumerate(parts):
            col._check_gone(sdir, visited[i], c, timeout=None)
        if chained and landing.writer is not None:
            lead.report.warning(sdir, LANDED_AGAIN.format(session=session, anew=anew_command(session, root)))
    except OSError as exc:
        if not stops_pass(root, exc, c):  # full or unwritable: said once for the pass (said_full), not once per session
            lead.report.error(sdir, f"session pass stopped: {strerror(exc)}")
            c.errors += 1
    finally:
        if landing is not None:
            landing.forget()
        durable.after_progress(lock.release) or lock.release()  # in a chain: once its cursors are written (durable.py)


def refuse_linked(root: Path, session: str, sdir: Path, lead: "Collector", c: Counters) -> bool:
    """True, after one ``error:`` (counted: the pass exits 1), when the session folder, its ``streams``, ``runs`` or
    ``provider_body``, or one of its stream or run folders is a symbolic link: nothing of the session lands, no cursor
    and no lock is written through it, every source keeps its bytes for a later pass (docs/storage-root.md, "No
    links"; a cursor that is one is refused as it is read, ``session_pass.cursor_or_set_aside``). Looked at only for
    a session with something new (a settled one writes nothing)."""
    from ..sessiondata.nolink import LinkRefused
    from ..storage.layout import session_links

    linked = session_links(sdir, cursors=False)
    if not linked:
        return False
    path, what = linked[0]
    lead.report.error(Path(path), f"{LinkRefused(path, what + ' asz landed')}; nothing of session {session} lands "
                      "(no file, cursor or lock is written through it; its sources keep their bytes): put that folder "
                      "back in the link's place and the next pass lands what is new")
    c.errors += 1
    return True


LANDED_AGAIN = ("session {session} landed again from its source after its folder went missing; its chain "
                "(_conversations/{session}) binds the landed files that are gone, so it no longer matches: {anew} "
                "sets that chain aside (kept under _set_aside/) and builds a new one")


def anew_command(session: str, root: str | os.PathLike) -> str:
    """The whole ``asz parse SESSION --anew --root ROOT`` command a warning or hint prints for a chain that binds
    landed files gone for good (here, not in flow: the collector may not import flow, which imports collect)."""
    return f"asz parse {shell_word(session)} --anew --root {shell_word(root)}"


def _has_rounds(root: Path, session: str) -> bool:
    """True when the session's chain (:func:`~asz_core.storage.layout.rounds_dir`) holds a round file (a ``.sf``)."""
    try:
        return any(n.endswith(".sf") for n in os.listdir(rounds_dir(root, session)))
    except (OSError, ValueError):
        return False
