"""The ``asz`` command: assembles the command groups and maps outcomes to exit codes.

Exit codes for every command: 0 done, 1 problems found, 2 usage.
"""

from __future__ import annotations

import sys

import typer

from . import adapters_cmd, collect_cmd, hook_cmd, parse_cmd, scenario_cmd, verify_cmd, view_cmd
from . import server_cmd
from . import provider_cmd  # issue 10
from . import ingest_cmd  # issue 11

app = typer.Typer(
    name="asz",
    help="Record what AI agent sessions really did, as Session Data (sd/1) a person can read and a machine can check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"asz {__version__} (Python {sys.version.split()[0]})")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."),
) -> None:
    """asz: collect, verify and read agent sessions."""


adapters_cmd.register(app)
collect_cmd.register(app)
verify_cmd.register(app)
parse_cmd.register(app)
scenario_cmd.register(app)
hook_cmd.register(app)
view_cmd.register(app)
server_cmd.register(app)
provider_cmd.register(app)  # issue 10
ingest_cmd.register(app)  # issue 11


def main() -> None:
    """Console-script entry point ``asz``: runs the Typer app; usage errors exit 2.

    ``asz hook …`` skips Typer and goes straight to the stdlib-only observer
    (:mod:`asz_adapters_claude.hook`), which always exits 0.
    """
    if sys.argv[1:2] == ["hook"]:
        from asz_adapters_claude.hook import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
