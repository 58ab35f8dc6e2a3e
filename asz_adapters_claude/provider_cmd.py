"""``asz provider enable|disable|status``: turn Claude Code's raw API body capture on and off (origin-digest §5.3; issue 10).

Added to the ``asz`` command by the ``claude-code-provider`` plugin
(:mod:`asz_adapters_claude.provider_plugin`). ``enable`` sets ``OTEL_LOG_RAW_API_BODIES=file:<dir>`` under ``env`` in
Claude Code's settings (user scope by default), ``disable`` removes it; both
copy the file aside first and write atomically. ``status`` says what the
settings capture, how many body files the directory holds and, with a storage
root, what the provider table says of them. Exit codes: 0 done, 1 the settings
file cannot be read or written, 2 usage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import orjson
import typer

from .hook_cmd import report_change  # the same report as asz hooks install|uninstall

__all__ = ["provider_app", "register"]

provider_app = typer.Typer(help="Capture what Claude Code sends the model (provider bodies): enable, disable, status.",
                           no_args_is_help=True)

_SCOPE = "user: $CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json; project: .claude/settings.json; local: .claude/settings.local.json."


def _path(verb: str, scope: str) -> Path:
    from . import hooks_settings as hs

    try:
        return hs.settings_path(scope)
    except ValueError as exc:
        typer.echo(f"asz provider {verb}: {exc}", err=True)
        raise typer.Exit(2)


@provider_app.command("enable")
def enable(
    directory: Optional[Path] = typer.Option(None, "--dir", help="Where Claude Code writes the bodies (default <claude dir>/asz/provider-bodies)."),
    scope: str = typer.Option("user", "--scope", help=_SCOPE),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the change as a diff; write nothing."),
) -> None:
    """Set ``OTEL_LOG_RAW_API_BODIES=file:<dir>`` in Claude Code's settings; new sessions then write every body.

    The directory is created. Nothing is redacted: a body holds the system
    prompt, the tool schemas and every message. Raises Exit(1) when the
    settings cannot be read or written.
    """
    from .hooks_settings import SettingsError
    from .provider import ClaudeCodeProvider, enable_capture

    d = Path(directory) if directory else ClaudeCodeProvider().default_source_root()
    try:
        change = enable_capture(_path("enable", scope), d, dry_run=dry_run)
    except SettingsError as exc:
        typer.echo(f"asz provider enable: {exc}", err=True)
        raise typer.Exit(1)
    if not dry_run:
        d.expanduser().mkdir(parents=True, exist_ok=True)
    report_change("enable", change, dry_run)


@provider_app.command("disable")
def disable(
    scope: str = typer.Option("user", "--scope", help=_SCOPE),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the change as a diff; write nothing."),
) -> None:
    """Remove ``OTEL_LOG_RAW_API_BODIES`` from Claude Code's settings; files already written stay."""
    from .hooks_settings import SettingsError
    from .provider import disable_capture

    try:
        change = disable_capture(_path("disable", scope), dry_run=dry_run)
    except SettingsError as exc:
        typer.echo(f"asz provider disable: {exc}", err=True)
        raise typer.Exit(1)
    report_change("disable", change, dry_run)


@provider_app.command("status")
def status(
    scope: str = typer.Option("user", "--scope", help=_SCOPE),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root whose _provider/seen.state to count (default: none)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """What the settings capture: the variable, its directory, body files (requests, responses, bytes), table states."""
    from .provider import capture_status

    st = capture_status(_path("status", scope), root)
    if as_json:
        typer.echo(orjson.dumps(st, option=orjson.OPT_INDENT_2).decode())
        return
    if not st["value"]:
        typer.echo(f"{st['settings']}: capture is off (no env.OTEL_LOG_RAW_API_BODIES)")
    else:
        where = st["directory"] or st["value"]
        typer.echo(f"{st['settings']}: capture is on, writing to {where}")
        if st["exists"]:
            typer.echo(f"{where}: {st['requests']} request(s), {st['responses']} response(s), {st['bytes']} bytes")
        else:
            typer.echo(f"{where}: absent (Claude Code creates it with its first body)")
    if st["table"]:
        typer.echo("seen.state: " + " ".join(f"{k}={v}" for k, v in sorted(st["table"].items())))


def register(app: typer.Typer) -> None:
    """Add ``provider`` (enable, disable, status) to ``app``."""
    app.add_typer(provider_app, name="provider")
