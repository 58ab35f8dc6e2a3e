"""``asz erase``: sessions removed whole on request, the erasure recorded (docs/storage-root.md, Erasure).

Exit codes: 0 done, 1 a session named nowhere in the root, a collector or pusher holding it, or a step that failed
(recorded: run it again), 2 usage (no --reason, a control character in --reason or --by, an ambiguous prefix, no root).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .push_cmd import load


def _candidates(root: Path) -> list[str]:
    """What a SESSION may name: the session directories, the sessions ``_sessions.list`` names (removed by hand
    too) and those erased already (a rerun finishes one)."""
    from ..storage.erased_list import read_erased
    from ..storage.layout import session_dirs
    from ..storage.session_list import read_list

    try:
        listed = read_list(root)
    except OSError:
        listed = None
    names = {p.name for p in session_dirs(root)} | set(read_erased(root))
    return sorted(names | (set(listed.sessions) if listed is not None else set()))


def erase_command(
    sessions: List[str] = typer.Argument(..., metavar="SESSION...", help="Sessions to erase (a unique prefix works)."),
    reason: str = typer.Option(..., "--reason", help="Why (recorded in _erased.list: a request's reference, never "
                                                     "what the session held)."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Configuration file (default ./asz.yaml when present)."),
    by: str = typer.Option("", "--by", help="Who asks (recorded; default USER@HOST of this process)."),
) -> None:
    """Erase whole sessions on request: their landed files, chains and every derived row naming them.

    Nothing of a session stays but its line in _sessions.list and the erasure's line in ROOT/_erased.list (its id
    and its conversations' ids, when, --by, --reason; never its content). The search index, the summaries, the id
    table, what asz view kept, a receiving root's sender record and lists, and what a repair set aside go too, wiped
    from the files. Afterwards asz verify says "erased on … (reason)" instead of "missing session" and exits 0, and
    asz collect and asz receive do not land the session again (an asz from before asz erase knows no _erased.list
    and does: delete the session's sources before going back to one; verify then warns "landed again after its
    erasure", and this command run again removes it). Refused while a collector, server, push or prune
    holds the root. Prints ``erased SESSION: N conversation(s) …`` per session. A kill at any point leaves it
    recorded and read as erased: the same command run again finishes it (``finished erasing SESSION``); run again on
    an erasure already finished, it says ``already erased SESSION: erased on … by … (REASON) with asz erase (…)``.
    Ctrl-C or SIGTERM prints the sessions it ended and ``asz erase: stopped: N of M session(s) recorded as erased …;
    run the same command again to finish it`` (exit 130, 143 for SIGTERM). A refusal names the holder's command when
    it can be read (``another asz erase is running …``). Exit 0 done, 1 a session the root never held, a step that
    failed or a holder, 2 usage.
    """
    from ..reading.ids import IdError
    from ..retention.erase import EraseInterrupted, erase
    from ..storage.erased_list import ERASED_LIST
    from ..storage.ids import resolve
    from ..storage.root import LockBusy

    cfg = load("erase", config)
    where = Path(root) if root is not None else Path(cfg.root)
    if not where.is_dir():
        from .reading_common import no_root

        typer.echo(no_root("erase", where), err=True)
        raise typer.Exit(2)
    if not reason.strip():
        typer.echo("asz erase: --reason is empty: say why (a request's reference), it is recorded", err=True)
        raise typer.Exit(2)
    for flag, text in (("--reason", reason), ("--by", by)):
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):  # the record's line is printed as is by verify, collect
            typer.echo(f"asz erase: {flag} holds a control character (a newline, a tab, an escape): give one line of "
                       "plain text, it is recorded and shown as given", err=True)
            raise typer.Exit(2)
    pool = _candidates(where)
    names: list[str] = []
    for given in sessions:
        try:
            names.append(resolve(pool, given, "session"))
        except IdError as exc:  # unknown: 1, named nowhere; ambiguous: 2, its matches listed
            nowhere = f" (nor in its _sessions.list or {ERASED_LIST})" if exc.exit_code == 1 else ""
            typer.echo(f"asz erase: {exc} in {where}{nowhere}", err=True)
            raise typer.Exit(exc.exit_code) from None
    try:
        rep = erase(where, names := list(dict.fromkeys(names)), reason.strip(), by=by.strip(),
                    max_round_bytes=cfg.max_round_bytes)
    except LockBusy as exc:
        from ..storage.root import holder_command

        what = holder_command(exc.holder)  # an asz erase holding it is named so (trial 32b, F10)
        who = f" ({exc.holder}{': ' + what if what else ''})" if exc.holder else ""
        running = f"another {what}" if what else "another collector, server, push, prune or erase"
        typer.echo(f"asz erase: {running} is running on {where}{who} (lock {exc.path}): stop it, or let it end, then "
                   "erase", err=True)
        raise typer.Exit(1) from None
    except EraseInterrupted as exc:  # Ctrl-C or SIGTERM: what is recorded, then exit 130 (143 for SIGTERM: cli/entry.py)
        _said_stop(where, names, exc.report)
        raise typer.Exit(130) from None
    _said_done(where, rep)
    for name in rep.relinked:
        typer.echo(f"parsed {name} again: it repeated records of an erased session, counted there until now; it "
                   "counts them itself from now on")
    for line in rep.problems:
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(1 if rep.problems else 0)


def _said_done(where: Path, rep) -> None:
    """One line per session ``rep`` (:class:`~asz_core.retention.erase.EraseReport`) erased: ``erased S: N
    conversation(s): …; recorded in ROOT/_erased.list``, ``finished erasing S: …`` (a stopped one ended), or ``already
    erased S: erased on WHEN by WHO (REASON) with asz erase (ROOT/_erased.list:N); nothing of it was left to remove``
    (trial 32b, F8: a rerun on a finished erasure read as if the first had been incomplete)."""
    from ..storage.erased_list import ERASED_LIST, erasure_said, read_erased

    got = read_erased(where)
    for session, convs, first in rep.erased:
        if session in rep.already:
            e = got[session]
            typer.echo(f"already erased {session}: {erasure_said(e)} ({where / ERASED_LIST}:{e.line}); nothing of it "
                       "was left to remove")
            continue
        lead = "erased" if first else "finished erasing"
        typer.echo(f"{lead} {session}: {len(convs)} conversation(s){': ' + ', '.join(convs) if convs else ''}; "
                   f"recorded in {where / ERASED_LIST}")


def _said_stop(where: Path, names: list[str], rep) -> None:
    """Ctrl-C or SIGTERM stopped ``asz erase`` of ``names`` in ``where``: per session on stdout what it ended
    (``erased S``), and on stderr ``asz erase: stopped: N of M session(s) recorded as erased (…), K of them not
    finished: run the same command again to finish it`` (trial 32b, F9). Read from the root, not from what the run
    thought it did: a stop may fall between a record's write and the run's note of it."""
    from ..retention.erase import anything_left
    from ..storage.erased_list import ERASED_LIST, read_erased

    got = read_erased(where)
    recorded = [n for n in names if n in got]
    open_ = [n for n in recorded if anything_left(where, n, list(got[n].conversations))]
    for n in rep.finished:
        typer.echo(f"erased {n}; recorded in {where / ERASED_LIST}")
    rest = len(names) - len(recorded)
    said = ((f"{len(recorded)} of {len(names)} session(s) recorded as erased in {where / ERASED_LIST} (no reader shows "
             "them)" + (f", {len(open_)} of them not finished ({', '.join(open_)})" if open_ else ", each finished")
             + (f"; {rest} not recorded, nothing of them erased" if rest else "")) if recorded else
            f"none of the {len(names)} session(s) recorded as erased, nothing of them erased")
    typer.echo(f"asz erase: stopped: {said}" + ("; run the same command again to finish it" if open_ or rest else ""),
               err=True)


def register(app: typer.Typer) -> None:
    """Add ``erase`` to ``app``."""
    app.command("erase")(erase_command)
