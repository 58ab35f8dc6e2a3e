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

import sys

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
    traceback (trial 4, F20); one Typer caught is said by :func:`asz_core.cli.main.main`."""
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    try:
        target = fast_command(name) if name and not name.startswith("-") else ""
        if target:
            from importlib import import_module

            module, _, func = target.partition(":")
            sys.exit(getattr(import_module(module.strip()), func.strip() or "main")(sys.argv[2:]))
        from .main import main as full_main

        full_main()
    except KeyboardInterrupt:
        say_interrupted("while it was starting")
        sys.exit(130)


def say_interrupted(when: str = "") -> None:
    """Write ``asz <command>: interrupted (Ctrl-C)[ <when>]`` to stderr: a Ctrl-C no command said anything about
    (:func:`main` here, :func:`asz_core.cli.main.main` for one Typer caught)."""
    name = sys.argv[1] if sys.argv[1:2] and not sys.argv[1].startswith("-") else ""
    sys.stderr.write(f"asz{' ' + name if name else ''}: interrupted (Ctrl-C){' ' + when if when else ''}\n")


if __name__ == "__main__":  # pragma: no cover
    main()
