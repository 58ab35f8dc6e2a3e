"""``asz sources --reland SESSION``: land again the landed files of a session that were lost or damaged (asz_core/collect/reland.py);
``asz sources --reset-conflict SESSION``: check its conflicted sources again (asz_core/collect/reset.py)."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import typer

__all__ = ["conflict_adapters", "reland", "reset"]


def reland(storage: Path, jobs: list, session: str, lock_timeout: float, as_json: bool) -> int:
    """The lost files the session's index names, and the damaged ones (on disk, their digest not the index's: a skeleton's is its removed.digest), each landed again from its source when rebuilt it is the file
    that landed; one line per file (``relanded: <path>: …`` or ``not relanded: <path>: …``); the exit code."""
    from ..collect.collector import Collector, CollectOptions, Report
    from ..collect.reland import LostFile, reland_lost
    from ..flow.index import load_index
    from ..flow.round import landed_file_digest
    from ..reading.ids import AmbiguousId, UnknownId, session_id
    from ..storage.layout import landed_files
    from ..storage.root import LockBusy

    try:
        session = session_id(storage, session)  # a whole id or a unique prefix of one, as everywhere a session is taken
    except (AmbiguousId, UnknownId) as exc:
        typer.echo(f"asz sources: {exc}{gone_from_root(storage, session) if isinstance(exc, UnknownId) else ''}", err=True)
        return 2 if isinstance(exc, AmbiguousId) else 1
    sdir = storage / session
    on_disk = {ln.seq: p for ln, p in landed_files(sdir, skeletons=True)}
    index = load_index(sdir, rebuild=False)  # never rebuilt here: a rebuilt index would forget the lost files
    lost = []  # the lost and the damaged, in seq order (the index's)
    for f in index.files:
        if f.seq in on_disk:
            if on_disk[f.seq] != sdir / f.path:
                continue
            try:
                digest = landed_file_digest(sdir / f.path)  # a skeleton's is its header's removed.digest, as the index's
            except (OSError, ValueError):
                digest = ""
            if digest == f.digest:
                continue
        lost.append(LostFile(f.seq, f.path, f.digest, f.records, damaged=f.seq in on_disk))
    rows: dict[str, object] = {}
    try:
        for j in jobs:
            col = Collector(storage, j.adapter, j.source_root, options=CollectOptions(max_delta_bytes=j.max_delta_bytes),
                            report=Report(io.StringIO()), more_roots=j.more_roots)
            for r in reland_lost(storage, col, session, [f for f in lost if not getattr(rows.get(f.path), "relanded", False)],
                                 lock_timeout=lock_timeout):
                if r.relanded or r.src or r.path not in rows:  # a row of the adapter whose source it is wins
                    rows[r.path] = r
    except LockBusy as exc:
        typer.echo(f"busy: {exc}", err=True)
        return 1
    out = [rows[f.path] for f in lost if f.path in rows]
    if as_json:
        typer.echo(orjson.dumps({"root": str(storage), "session": session, "files": [
            {"path": r.path, "src": r.src, "relanded": r.relanded, "why": r.why} for r in out]},
            option=orjson.OPT_INDENT_2).decode())
    else:
        for r in out:
            typer.echo(f"{'relanded' if r.relanded else 'not relanded'}: {sdir / r.path}: {r.why}")
        if not out:
            typer.echo(f"session {session} has no lost file its index names, and no damaged one (asz verify names any gap "
                       "or damage; a file lost before the session was indexed cannot be rebuilt byte for byte)", err=True)
    return 0 if out and all(r.relanded for r in out) else 1


def gone_from_root(storage: Path, given: str) -> str:
    """What follows ``no session is or starts with GIVEN`` when the root's list (``_sessions.list``) names one session
    that is or starts with ``given``: that it landed here and its directory is gone, so --reland (which rebuilds files
    of a session the root holds) cannot help, and what can (:func:`asz_core.verify.listed.ways_back`; trial 17, F2).
    '' when the list names none or several, or does not read."""
    import os

    from ..storage.session_list import read_list
    from ..verify.listed import ways_back

    try:
        listed = read_list(storage)
    except OSError:
        return ""
    found = [e for name, e in (listed.sessions.items() if listed else ()) if name.startswith(given)]
    if len(found) != 1:
        return ""
    entry = found[0]
    chained = os.path.isdir(storage / "_conversations" / entry.session)
    return (f" in {storage}, but {storage / '_sessions.list'} names session {entry.session} as landed here (first "
            f"landed {entry.at} by {entry.adapter}): its directory is gone, and --reland lands again files of a session the "
            f"root still holds; {ways_back(storage, entry, chained)}")


def conflict_adapters(storage: Path, given: str, cfg, source: bool) -> list[str]:
    """The adapters ``asz sources --reset-conflict GIVEN`` resets when no ``--adapter`` is given: those named by the
    session's cursors in conflict (their ``adapter`` key, :func:`~asz_core.view.conflicts.session_conflicts`), so a
    Kiro session's conflict is found whatever the configuration lists (trial 34a F1: the default list, Claude Code
    only, found ``no source in conflict`` and the hint printed for it did not work). [] (the configured list) when the
    session is unknown, has no conflict, or a cursor names no adapter (written before the key existed). Raises
    typer.Exit(2) when ``--source`` (``source``, one adapter's folder) is given and several adapters hold conflicts,
    naming each and the command to type."""
    from ..reading.ids import AmbiguousId, UnknownId, session_id
    from ..storage.cursor import reset_command
    from ..view.conflicts import session_conflicts

    try:
        session = session_id(storage, given)
    except (AmbiguousId, UnknownId):
        return []  # said by reset, as before
    named = [c.get("adapter", "") for c in session_conflicts(storage, session)]
    if not named or "" in named:
        return []
    names = list(dict.fromkeys(named))
    if source and len(names) > 1:
        typer.echo(f"asz sources: session {session} has sources in conflict under {len(names)} adapters "
                   f"({', '.join(names)}) and --source is one adapter's folder: give the adapter too, "
                   + " or ".join(reset_command(session, storage, n, ["FOLDER"]) for n in names), err=True)
        raise typer.Exit(2)
    return names


def reset(storage: Path, jobs: list, session: str, lock_timeout: float, as_json: bool, reread: bool = False) -> int:
    """``asz sources --reset-conflict SESSION``: the rows of every adapter's conflicted cursors; the exit code."""
    from ..collect.reset import reset_conflicts
    from ..reading.ids import AmbiguousId, UnknownId, session_id
    from ..storage.root import LockBusy

    try:
        session = session_id(storage, session)  # a whole id or a unique prefix of one, as everywhere a session is taken
    except AmbiguousId as exc:
        typer.echo(f"asz sources: {exc}", err=True)
        return 2
    except UnknownId:
        pass  # reset_conflicts names the missing session
    rows = []
    try:
        for j in jobs:
            rows += reset_conflicts(storage, j.adapter, j.source_root, session, lock_timeout=lock_timeout, reread=reread,
                                    more_roots=j.more_roots)
    except FileNotFoundError as exc:
        typer.echo(f"asz sources: {exc}", err=True)
        return 1
    except LockBusy as exc:
        typer.echo(f"busy: {exc}", err=True)
        return 1
    if as_json:
        typer.echo(orjson.dumps({"root": str(storage), "session": session, "cursors": [
            {"src": r.src, "cursor": r.cursor, "reset": r.reset, "why": r.why} for r in rows]}, option=orjson.OPT_INDENT_2).decode())
    else:
        for r in rows:
            typer.echo(f"{'reset' if r.reset else 'conflict'}: {r.src}: {r.why}")
        if not rows:
            typer.echo(f"session {session} has no source in conflict", err=True)
    return 0 if rows and all(r.reset for r in rows) else 1
