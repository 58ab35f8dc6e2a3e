"""The ``asz`` console script: a tiny entry that keeps ``asz hook`` fast.

Claude Code runs ``asz hook`` after every MCP call, so a command declared in
the entry-point group ``asz.fast`` (``hook = "asz_adapters_claude.hook:main"``
in asz's ``pyproject.toml``) is dispatched before anything else loads: no
Typer, no plugin manager, not even :mod:`importlib.metadata` (whose import alone
costs about 30 ms). The group is read straight from the ``entry_points.txt``
files of the distributions on ``sys.path``. The function is called with the
arguments after the command name and its return value is the exit status; it
must import only what it needs (the observer imports the standard library
only). Every other command loads the Typer app in :mod:`asz_core.cli.main`.
"""

from __future__ import annotations

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

    if signal.getsignal(signal.SIGINT) is starting_interrupt:  # asz_core's import-time guard: from here on settle's
        signal.signal(signal.SIGINT, signal.default_int_handler)  # KeyboardInterrupt says it (a command's handling too)
    settle(_dispatch, lambda: "while it was starting")


def _dispatch() -> None:
    """The ``asz.fast`` command of ``sys.argv[1]`` when the group declares one, else the full CLI."""
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    target = fast_command(name) if name and not name.startswith("-") else ""
    if target:
        from importlib import import_module

        module, _, func = target.partition(":")
        sys.exit(getattr(import_module(module.strip()), func.strip() or "main")(sys.argv[2:]))
    from .main import main as full_main

    full_main()


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
    sys.exit(code)


def say_interrupted(when: str = "") -> None:
    """Write ``asz <command>: interrupted (Ctrl-C)[ <when>]`` to stderr (``(SIGTERM)`` when that stopped it): a stop
    no command said anything about (:func:`main` here, :func:`asz_core.cli.main.main` for one Typer caught)."""
    from .. import interrupted_line
    from .stopping import stop_words

    sys.stderr.write(interrupted_line(when, stop_words()))


if __name__ == "__main__":  # pragma: no cover
    main()
