"""The ``asz`` console script: a tiny entry that keeps ``asz hook`` fast.

Claude Code runs ``asz hook`` after every MCP call, so a command declared in
the entry-point group ``asz.fast`` (``hook = "asz_adapters_claude.hook:main"``
in asz's ``pyproject.toml``) is dispatched before anything else loads: no
Typer, no plugin manager, not even :mod:`importlib.metadata` (whose import alone
costs about 30 ms). The group is read straight from the ``entry_points.txt``
files of the distributions on ``sys.path``. The function is called with the
arguments after the command name and its return value is the exit status; it
must import only what it needs (the observer imports the standard library
only). ``asz verify`` in the forms a user and a cron job run (``--root R``, ``--json``, ``--jobs N``, a session
id or a file's path) runs from here too, without Typer (:func:`asz_core.cli.verify_run.light`; issue 22, the
command's start); every other form of it, and every other command, loads the Typer app in
:mod:`asz_core.cli.main`. Both run under :func:`run_command`, so their exit codes, stop lines and closed-pipe
handling are one.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Callable, NoReturn

#: The entry-point group of commands dispatched before the plugins load.
FAST_GROUP = "asz.fast"


def fast_command(name: str, paths: list[str] | None = None) -> str:
    """The ``module:function`` the ``asz.fast`` group declares for ``name``, or '' when none does.

    Scans each directory of ``paths`` (default ``sys.path``) in order for
    ``*.dist-info/entry_points.txt`` and ``*.egg-info/entry_points.txt``, as
    :mod:`importlib.metadata` would (:func:`asz_core.plugins.packages.declared`);
    the first declaration wins. Never raises.
    """
    from ..plugins.packages import declared

    return next((value for key, value in declared(FAST_GROUP, paths) if key == name and value), "")


def main() -> None:
    """Run ``asz``: an ``asz.fast`` command goes straight to its function; anything else to the full CLI.

    A Ctrl-C that no command caught (while Python loads the CLI, before a command's own handling begins) ends with
    one line on stderr, ``asz <command>: interrupted (Ctrl-C) while it was starting``, and exit 130, not a
    traceback (trial 4, F20); one Typer caught is said by :func:`asz_core.cli.main.main`. Exits through
    :func:`settle`: a Ctrl-C once the exit status is decided does not change it (trial 7)."""
    from .. import starting_interrupt
    from .filemode import private_umask

    name = sys.argv[1] if len(sys.argv) > 1 else ""
    target = fast_command(name) if name and not name.startswith("-") else ""
    # what asz writes is its user's alone, unless ASZ_UMASK says otherwise (trial 34c F5); a mask that lets others write
    # stops every command with exit 2 (trial 42a F6), but an asz.fast command (asz hook) never exits 2: a warning
    private_umask(refuse=not target)
    if signal.getsignal(signal.SIGINT) is starting_interrupt:  # asz_core's import-time guard: from here on settle's
        signal.signal(signal.SIGINT, signal.default_int_handler)  # KeyboardInterrupt says it (a command's handling too)
    settle(lambda: _dispatch(name, target), lambda: "while it was starting")


def _dispatch(name: str, target: str) -> None:
    """The ``asz.fast`` command ``target`` (``module:function``, what the group declares for ``name``, the command
    ``sys.argv[1]``) when there is one, else the full CLI."""
    if target:
        from importlib import import_module

        module, _, func = target.partition(":")
        sys.exit(getattr(import_module(module.strip()), func.strip() or "main")(sys.argv[2:]))
    if name == "verify":
        from .verify_run import light

        light(sys.argv[2:])  # exits when the arguments are its forms; else returns, having run nothing
    from .main import main as full_main

    full_main()


def run_command(run: Callable[[], None]) -> NoReturn:
    """Run one command line (``run``, which exits or returns for exit 0) as every ``asz`` command runs: SIGTERM taken
    as Ctrl-C (:func:`asz_core.cli.stopping.take_stops`), the outcome through :func:`guarded` and :func:`settle` (a
    Ctrl-C no command said anything about is one line, ``… while it was starting`` before the command began; exit
    143 for SIGTERM). :func:`asz_core.cli.main.main` and :func:`asz_core.cli.verify_run.light` call it."""
    from .filemode import private_umask
    from .stopping import take_stops

    private_umask()  # python -m asz_core.cli.main too (trial 34c F5)
    take_stops()  # SIGTERM stops every command as Ctrl-C does (trial 29b F10): its line, then exit 143
    ran: list[bool] = []
    settle(lambda: guarded(run, ran), lambda: "" if ran else "while it was starting")


def guarded(run: Callable[[], None], ran: list[bool]) -> None:
    """Run ``run`` (a command; it exits, or returns for exit 0); ``ran`` gets an item once it returned or raised.

    Its exit 130 for a Ctrl-C no command caught (:func:`uncaught_interrupt`) is said in one line; a standard output
    whose reader went away (``asz ls | head -1``) ends with exit 0 and nothing on stderr, as ``git log | head``
    does: met by the command (``BrokenPipeError``), by Click (which wraps the streams and exits 1) or by rich (which
    points stdout at /dev/null and exits 1). What is still buffered meets a closed pipe here, not in the
    interpreter's exit."""
    out = sys.stdout
    was_devnull = _fd1_is_devnull()
    try:
        try:
            run()
        finally:
            ran.append(True)  # the command ran (Typer and run_quick turn its Ctrl-C into exit 130) or will not
            if sys.stdout is out and out is not None:
                out.flush()
    except SystemExit as exc:
        if exc.code == 130 and uncaught_interrupt(exc):
            say_interrupted()
        if exc.code == 1 and sys.stdout is not out and type(sys.stdout).__name__.endswith("PacifyFlushWrapper"):
            _closed_pipe()  # Click met EPIPE, wrapped the streams and exits 1
        if exc.code == 1 and not was_devnull and _fd1_is_devnull():
            _closed_pipe()  # rich met EPIPE (Console.on_broken_pipe): it pointed stdout at /dev/null and exits 1
        raise
    except BrokenPipeError:
        _closed_pipe()


def uncaught_interrupt(exc: SystemExit) -> bool:
    """Whether ``exc`` is Typer's exit 130 for a Ctrl-C no command caught (Typer raises ``Exit(130) from`` the
    KeyboardInterrupt; a command that says how far it got raises its own exit after its line): then nothing said
    so, and :func:`guarded` does, in one line (trial 4, F20)."""
    seen = exc.__context__
    return seen is not None and isinstance(seen.__cause__, KeyboardInterrupt)


def _fd1_is_devnull() -> bool:
    """True when file descriptor 1 is /dev/null."""
    try:
        st, dn = os.fstat(1), os.stat(os.devnull)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (dn.st_dev, dn.st_ino)


def _closed_pipe() -> None:
    """Exit 0 quietly after the reader of standard output went away: later writes and the final flush go to /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
    sys.exit(0)


def settle(run: Callable[[], object], when: Callable[[], str]) -> NoReturn:
    """Run ``run`` (a whole command line) and exit with its status; a Ctrl-C it let through is said in one line
    (:func:`say_interrupted` with ``when()``) and exits 130.

    A SIGTERM stops a command as Ctrl-C does (:mod:`asz_core.cli.stopping`): an exit 130 the command raised for its
    interruption (its own ``stopped: …`` line said, or Typer's) is 143 when SIGTERM stopped it, 128 + 15, what
    ``timeout`` and systemd expect (trial 29b F10); one it let through is said ``interrupted (SIGTERM)``.

    Once the status is decided SIGINT and SIGTERM are ignored, so a Ctrl-C during the rest of the exit (streams flushed,
    worker pools closed, the interpreter's finalization, where Python puts back the default action and the
    signal would kill the process: returncode -2) does not change it: a command that printed its last line exits
    with its own status (trial 7: 6 of 30 ``asz collect --once`` killed just after their pass line)."""
    from .stopping import STOPS, stopped_status

    code: object = 0
    try:
        try:
            run()
        except KeyboardInterrupt:
            say_interrupted(when())
            code = 130
    except SystemExit as exc:
        code = exc.code
    finally:
        for sig in STOPS:
            try:
                signal.signal(sig, signal.SIG_IGN)
            except KeyboardInterrupt:  # the signal came as it was being ignored: the status stands
                signal.signal(sig, signal.SIG_IGN)
    if code == 130:  # a command's interruption: Ctrl-C's, or SIGTERM's 143
        code = stopped_status()
    _forget_caught_interrupt()
    sys.exit(code)


def _forget_caught_interrupt() -> None:
    """Clear CPython's note of a KeyboardInterrupt that left an ``exec``/``eval`` of a string, so the exit status
    :func:`settle` decided is the process's.

    CPython (3.8 to 3.13 at least) notes in ``run_eval_code_obj`` (Python/pythonrun.c) every KeyboardInterrupt that
    leaves code run from a string (``exec(str)``/``eval(str)``: ``dataclasses``, ``namedtuple`` and attrs build their
    methods so, as a module imports), **even when a caller catches it**; under ``python -m`` (``Py_RunMain``) a note
    left set makes the process kill itself with SIGINT once finalized (returncode -2, shell status 130), whatever
    status it exited with. A Ctrl-C that landed while such a module imported (a watching collector stopped while its
    list rows loaded: session 38's intermittent ``test_watch_started_with_sigint_ignored_stops_on_sigint_with_exit_0``,
    traced with ``perf``'s ``signal_generate``: the second SIGINT came from the process itself, 0.1 to 1 s after the
    first) turned a decided exit 0 into -2. The same function clears the note as it begins: running an empty string
    through it leaves it clear. The console script (``sys.exit`` inside ``PyRun_SimpleFile``) never reads the note."""
    exec("pass", {})  # noqa: S102  (a constant string: clears the note, nothing else)


def say_interrupted(when: str = "") -> None:
    """Write ``asz <command>: interrupted (Ctrl-C)[ <when>]`` to stderr (``(SIGTERM)`` when that stopped it): a stop
    no command said anything about (:func:`main` here, :func:`asz_core.cli.main.main` for one Typer caught)."""
    from .. import interrupted_line
    from .stopping import stop_words

    sys.stderr.write(interrupted_line(when, stop_words()))


if __name__ == "__main__":  # pragma: no cover
    main()
