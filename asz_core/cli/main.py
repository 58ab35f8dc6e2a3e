"""The ``asz`` command: assembles the command groups and maps outcomes to exit codes.

The core's own commands live in the modules of :data:`MODULES`; a plugin adds
its commands through the ``asz_register_commands(cli)`` hook (the Claude Code
package adds ``hook``, ``hooks`` and ``provider``; the LangChain package
``ingest``). A command of the core builds an application holding only its
module; any other name (and ``asz --help``) loads the plugins too.

Exit codes for every command: 0 done, 1 problems found, 2 usage. A command
whose standard output is a pipe its reader closed (``asz ls | head -1``) stops
writing and exits 0 with nothing on stderr, as ``git log | head`` does.
"""

from __future__ import annotations

import sys

import typer

#: The command modules, in the order their commands are listed; each has ``register(app)``.
MODULES = ("adapters_cmd", "collect_cmd", "verify_cmd", "parse_cmd", "scenario_cmd", "view_cmd",
           "server_cmd", "conversations_cmd", "push_cmd", "senders_cmd", "search_cmd", "export_cmd",
           "usage_cmd", "retention_cmd", "erase_cmd")
#: Which module registers each top-level command or group.
COMMANDS = {
    "adapters": "adapters_cmd", "glossary": "adapters_cmd", "collect": "collect_cmd", "sources": "collect_cmd",
    "verify": "verify_cmd", "parse": "parse_cmd", "scenario": "scenario_cmd",
    "conversation": "view_cmd", "show": "view_cmd", "view": "server_cmd", "server": "server_cmd",
    "conversations": "conversations_cmd", "ls": "conversations_cmd",
    "push": "push_cmd", "receive": "push_cmd", "senders": "senders_cmd", "search": "search_cmd", "secrets": "search_cmd", "export": "export_cmd", "usage": "usage_cmd",
    "prune": "retention_cmd", "repack": "retention_cmd", "erase": "erase_cmd",
}
#: Commands run without building the Typer application when their arguments are all plain options
#: (:mod:`asz_core.cli.quick`; issue 22): the servers, so they listen sooner, ``collect``, whose pass with nothing
#: new is mostly start-up, and ``usage`` and ``ls``, whose reports the kept summaries and rows answer (perf47: Typer's
#: pydantic was a third of their start). Command name -> (module, function).
QUICK = {"view": ("server_cmd", "view"), "server": ("server_cmd", "server"), "collect": ("collect_cmd", "collect"),
         "verify": ("verify_cmd", "verify"), "usage": ("usage_cmd", "usage"),
         "ls": ("conversations_cmd", "conversations"), "conversations": ("conversations_cmd", "conversations")}


def source_commit() -> str:
    """``<short commit id> of <commit date>`` (``+ local changes`` when tracked files differ from it) of the git
    checkout asz runs from (an editable install: the folder holding ``asz_core`` has a ``.git``); else the commit the
    build recorded (``asz_core/_version_info.py``, written by setup.py's ``build_py`` for ``pip install .`` and a
    wheel, and into an sdist); '' when neither is known (:func:`asz_core._commit.source_commit`). Runs git, so only
    ``asz --version`` asks (trial 23b, F2: every commit printed the same 0.1.0; a non-editable install named none)."""
    from pathlib import Path

    from .._commit import source_commit as commit_of

    return commit_of(Path(__file__).resolve().parents[2])


def _version_callback(value: bool) -> None:
    if value:
        from .. import __version__

        src = source_commit()
        typer.echo(f"asz {__version__}, {f'source {src}' if src else 'unknown commit'} (Python {sys.version.split()[0]}); "
                   "asz adapters list names the version each adapter writes into landed files")
        raise typer.Exit(0)


def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."),
) -> None:
    """asz: collect, verify and read agent sessions."""


def build_app(modules: tuple[str, ...] = MODULES, *, plugins: bool | None = None) -> typer.Typer:
    """The ``asz`` Typer application with the commands of ``modules`` (names from :data:`MODULES`; default all).

    ``plugins`` adds the commands of the installed plugins
    (``asz_register_commands``); by default it does so when ``modules`` is all
    of them. :data:`app` is the whole application; :func:`main` builds one
    holding only the module of the command it runs, so a command imports and
    prepares only what it needs. A plugin whose hook raises adds nothing and is
    a ``failed`` row of ``asz adapters list``.
    """
    from importlib import import_module

    from .plain_errors import PlainErrorsGroup

    built = typer.Typer(
        cls=PlainErrorsGroup,  # usage errors in one plain line when stderr is no terminal (trial 31a F7)
        name="asz",
        help="Record what AI agent sessions really did, as Session Data (sd/1) a person can read and a machine can check.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    built.callback()(_root)
    for name in MODULES:
        if name in modules:
            import_module(f"{__package__}.{name}").register(built)
    if plugins or (plugins is None and tuple(modules) == MODULES):
        from ..plugins.manager import get_plugin_manager

        get_plugin_manager().register_commands(built)
    _expand_user_paths(built)
    from .helptext import plain_commands

    plain_commands(built)  # --help shows plain text, each paragraph wrapped to the terminal (no docstring markup)
    return built


def _expand_user_paths(typer_app: typer.Typer) -> None:
    """Every command of ``typer_app`` and of its groups (the plugins' too) gets its ``Path`` arguments through
    :func:`asz_core.config.user_path` (:func:`asz_core.cli.quick.with_user_paths`): ``~`` is the home folder."""
    from .quick import with_user_paths

    for info in typer_app.registered_commands:
        if info.callback is not None:
            info.callback = with_user_paths(info.callback)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _expand_user_paths(group.typer_instance)


def __getattr__(name: str):
    """``app``: the whole application, built on first use (PEP 562)."""
    if name == "app":
        whole = build_app()
        globals()["app"] = whole
        return whole
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point ``asz``: runs the Typer app; usage errors exit 2.

    A command of the core runs in an application holding only its own
    module's commands; no command, an option or any other name (a plugin's
    command) gets the whole application with the plugins' commands.
    (:mod:`asz_core.cli.entry` dispatches the ``asz.fast`` commands, and ``asz verify``'s light forms, before this.)
    Runs under :func:`asz_core.cli.entry.run_command`: a Ctrl-C no command said anything about is one line and
    exit 130 (``… while it was starting`` before the command began), and one that comes once the exit status
    is decided does not change it; SIGTERM stops a command as Ctrl-C does, exit 143 (:mod:`asz_core.cli.stopping`);
    a standard output whose reader went away ends with exit 0.
    """
    from .entry import run_command

    run_command(_main)


def _main() -> None:
    """:func:`main`'s command line: a :data:`QUICK` command's plain options without Typer, else the application."""
    module = COMMANDS.get(sys.argv[1]) if len(sys.argv) > 1 else None
    if sys.argv[1:2] and sys.argv[1] in QUICK:
        _run_quick(*QUICK[sys.argv[1]])
    (build_app((module,)) if module else build_app())()


def _run_quick(module: str, func: str) -> None:
    """Run a :data:`QUICK` command straight from its function when :func:`~asz_core.cli.quick.run_quick` can (it exits);
    return, having run nothing, when Typer must parse the arguments."""
    from importlib import import_module

    from .quick import run_quick

    run_quick(getattr(import_module(f"{__package__}.{module}"), func), sys.argv[2:], sys.argv[1])


if __name__ == "__main__":  # pragma: no cover
    main()
