"""``asz hook`` (the MCP observer Claude Code runs) and ``asz hooks install|uninstall|status`` (origin-digest §3.8, §5.2).

Added to the ``asz`` command by this package's plugin (``asz_register_commands``
in :mod:`asz_adapters_claude.plugin`). ``asz hook`` normally never reaches
Typer: it is declared in the ``asz.fast`` entry-point group, so
:mod:`asz_core.cli.entry` hands ``sys.argv[2:]`` straight to
:func:`asz_adapters_claude.hook.main`. The Typer command below is the same
thing for help listings and for invocations that do not start with ``hook``.
"""

from __future__ import annotations

from typing import Optional

import typer

hooks_app = typer.Typer(help="Add, remove or check the MCP observer's hooks in Claude Code's settings.json.", no_args_is_help=True)

_SCOPE_HELP = "user: $CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json; project: .claude/settings.json here; local: .claude/settings.local.json here."


def hook(
    data: Optional[str] = typer.Option(None, "--data", help="Data directory (default: $ASZ_HOOK_DATA, $CLAUDE_PLUGIN_DATA, else <claude dir>/plugins/data/file-changes-skywalking-ai-sessionizer)."),
) -> None:
    """Record one Claude Code hook event read as JSON on stdin (spec §3.8, §5.2).

    For PostToolUse / PostToolUseFailure of an ``mcp__…`` tool it appends one
    execution/1 record to ``<data>/output/<session>/<stream>.execution.jsonl``;
    any other event writes nothing. Always exits 0; problems go to
    ``<data>/log/plugin.log``.
    """
    from .hook import main as hook_main

    raise typer.Exit(hook_main(["--data", data] if data else []))


def report_change(verb: str, change, dry_run: bool) -> None:
    """Print what a settings change did (``asz hooks``, ``asz provider``): each action, the backup, or the dry-run diff."""
    if not change.changed:
        typer.echo(f"{change.path}: nothing to {verb}; unchanged")
        return
    if dry_run:
        typer.echo(change.diff, nl=False)
        typer.echo(f"{change.path}: dry run, nothing written ({len(change.actions)} change(s))")
        return
    for a in change.actions:
        typer.echo(f"{change.path}: {a}")
    if change.target:
        typer.echo(f"{change.path}: a symbolic link: wrote the file it names, {change.target}, in place; the link is kept")
    if change.backup:
        typer.echo(f"{change.path}: backup at {change.backup}")


def _run(verb: str, scope: str, dry_run: bool, direct: bool = True) -> None:
    from . import hooks_settings as hs

    if verb == "install" and not direct:
        warning = hs.bare_command_warning()
        if warning:
            typer.echo(f"asz hooks install: warning: {warning}; install without --bare to write this asz's absolute path", err=True)

    try:
        path = hs.settings_path(scope)
    except ValueError as exc:
        typer.echo(f"asz hooks {verb}: {exc}", err=True)
        raise typer.Exit(2)
    try:
        if verb == "install":
            change = hs.install(path, dry_run=dry_run, direct=direct)
        else:
            change = hs.uninstall(path, dry_run=dry_run)
    except hs.SettingsError as exc:
        typer.echo(f"asz hooks {verb}: {exc}", err=True)
        raise typer.Exit(1)
    report_change(verb, change, dry_run)
    if verb == "install":
        from .hook import resolve_data_dir

        typer.echo(f"the hook writes its records under {resolve_data_dir()}/output; plain asz collect collects them "
                   "once there are some (as every adapter with records at its default folder), but an asz.yaml that "
                   "lists adapters must list changes too (or asz collect --adapter changes; docs/claude-code-hooks.md)")


@hooks_app.command("install")
def install(
    scope: str = typer.Option("user", "--scope", help=_SCOPE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the diff and write nothing."),
    direct: bool = typer.Option(False, "--direct", help="Run the observer's file with this interpreter and -S, by absolute path (the default; kept for scripts that pass it)."),
    bare: bool = typer.Option(False, "--bare", help="Write the bare command `asz hook`, found on the PATH Claude Code runs hooks with (warns when `asz` on this PATH is not this asz)."),
) -> None:
    """Add PostToolUse and PostToolUseFailure hooks (matcher mcp__.*) to Claude Code's settings.

    The command is ``"<python>" -S "<…/asz_adapters_claude/hook.py>"``: this
    asz's interpreter and observer file by absolute path, so it needs no
    ``PATH`` (Claude Code does not show a hook that cannot start) and costs
    about 0.7 of the CPU time of ``asz hook`` (``bench/hook.py``;
    docs/claude-code-hooks.md, Start-up cost); install again after this Python
    moves. ``--bare`` writes ``asz hook`` instead and warns
    on stderr when ``asz`` on this ``PATH`` is missing or another one.
    Installing one form over the other switches it. Idempotent; the old file
    is copied to ``settings.json.asz-backup-<stamp>`` first (mode at most
    0600), and only the hooks' part of its text is written again. A settings
    file that is a symbolic link is written through (its target, the link
    kept). Exit 0 done (or nothing to do), 1 when the file is not a JSON
    object, is a dangling link or cannot be written, 2 for an unknown scope
    or ``--bare`` with ``--direct``.
    """
    if bare and direct:
        typer.echo("asz hooks install: --bare and --direct contradict each other; give one", err=True)
        raise typer.Exit(2)
    _run("install", scope, dry_run, not bare)


@hooks_app.command("uninstall")
def uninstall(
    scope: str = typer.Option("user", "--scope", help=_SCOPE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the diff and write nothing."),
) -> None:
    """Remove exactly the hook entries whose command is ``asz hook`` or the absolute ``-S`` command (and containers that leaves empty).

    Exit codes as ``install``.
    """
    _run("uninstall", scope, dry_run)


@hooks_app.command("status")
def status(
    scope: str = typer.Option("all", "--scope", help="user, project, local, or all three (the default). " + _SCOPE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: asz, settings (each file's entries), plugins (each installed plugin's hooks), counts, all_run_this_asz."),
) -> None:
    """Say whether each observer hook entry in Claude Code's settings would run THIS asz.

    For each settings file of the scope, each entry ``asz hooks install``
    wrote (the absolute ``-S`` command or the bare ``asz hook``):
    ``this_asz`` (its interpreter exists and is executable, its
    ``hook.py`` is this install's file), ``another_install`` (named),
    or ``missing`` (the interpreter or the file is gone: Claude Code does
    not show a hook that cannot start, so no MCP record is written). The
    bare form is judged by the ``asz`` on this ``PATH``. The fix is
    ``asz hooks install`` again (``--scope`` as the file's), which
    switches the entry to this asz. The observer entries of each installed
    plugin's hooks/hooks.json (the plugins installed_plugins.json lists)
    are judged the same way, whatever the scope; a plugin the settings
    disable (enabledPlugins) is not counted; hooks a plugin.json declares
    itself, --plugin-dir plugins and managed settings are not read (said).
    Exit 0 when there is an entry and
    every one runs this asz, 1 otherwise (none installed, one that would
    not run or runs another install, a file that does not read), 2 for
    an unknown scope.
    """
    from .hooks_status import status as hooks_status
    from .hooks_status import status_lines

    scopes = ["user", "project", "local"] if scope == "all" else [scope]
    try:
        got = hooks_status(scopes)
    except ValueError as exc:
        typer.echo(f"asz hooks status: {exc}; or all", err=True)
        raise typer.Exit(2)
    if as_json:
        import json

        typer.echo(json.dumps(got, indent=2))
    else:
        from asz_core.termsafe import one_line

        for line in status_lines(got):  # a project's settings file is a cloned repository's: no control reaches the terminal
            typer.echo(one_line(line))
    raise typer.Exit(0 if got["all_run_this_asz"] else 1)


def register(app: typer.Typer) -> None:
    """Add ``hook`` and the ``hooks`` group (install, uninstall, status) to ``app``."""
    app.command("hook")(hook)
    app.add_typer(hooks_app, name="hooks")
