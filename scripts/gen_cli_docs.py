#!/usr/bin/env python3
"""Generate ``docs/cli.md``, the command-line reference, from the ``asz`` command itself.

It walks the Typer application :data:`asz_core.cli.main.app` as Click sees it
(``typer.main.get_command(app)``) and writes, for every command and
subcommand, its usage line, its whole help text, its arguments, its options
(names, type, default or ``required``, help) and its exit codes. Nothing is typed by hand, so
the page follows the code; ``tests/docs/test_docs.py`` fails when the page on
disk differs from what this script produces now.

Usage::

    python scripts/gen_cli_docs.py            # rewrite docs/cli.md
    python scripts/gen_cli_docs.py --check    # exit 1 when docs/cli.md is stale
    python scripts/gen_cli_docs.py --stdout   # print the page instead

Exit codes: 0 written (or up to date), 1 ``--check`` found the page stale,
2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
#: Where the generated page lives.
CLI_DOC = REPO / "docs" / "cli.md"
#: What every command's exit status means unless its module says more.
GLOBAL_EXIT = "0 done, 1 problems found, 2 usage (an unknown option or a missing argument is a usage error too)."
REGENERATE = "python scripts/gen_cli_docs.py"


from asz_core.cli.helptext import paragraphs, source_of  # noqa: E402


def root_command() -> Any:
    """The ``asz`` command as a Click group: ``typer.main.get_command(asz_core.cli.main.app)``."""
    import typer

    from asz_core.cli.main import app

    return typer.main.get_command(app)


def walk(command: Any, path: tuple[str, ...] = ("asz",)) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Yield ``(path, command)`` for ``command`` and every subcommand below it, depth first, in name order."""
    yield path, command
    subs = getattr(command, "commands", None) or {}
    for name in sorted(subs):
        sub = subs[name]
        if getattr(sub, "hidden", False):
            continue
        yield from walk(sub, path + (name,))


def _md(text: str) -> str:
    """Docstring markup (reStructuredText ``literals`` and :role:`targets`) as Markdown."""
    text = re.sub(r":(?:func|class|meth|mod|data|attr):`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def _paragraphs(text: str) -> list[str]:
    """Paragraphs of a docstring, each joined into one line; a ``::`` literal block is kept as code."""
    return ["```text\n" + para + "\n```" if literal else _md(para) for para, literal in paragraphs(text)]


def exit_codes(command: Any) -> str:
    """What ``command``'s exit status means: ``always 0`` when its help says it always exits 0, a pointer to
    its help when that states the codes (``Exit 0 …``, ``Exit codes …``), else the ``Exit codes: …``
    sentences of the module that defines its callback, else :data:`GLOBAL_EXIT`."""
    text = source_of(command.help)  # the docstring, markup and all (the terminal gets it plain: helptext)
    if re.search(r"always exits 0", text, re.IGNORECASE):
        return "always 0."
    if re.search(r"(^|[.;]\s+)[Ee]xit (codes\b|\d)", text):
        return "as its help above states; anything else Click refuses (an unknown option) exits 2."
    callback = getattr(command, "callback", None)
    module = importlib.import_module(callback.__module__) if callback is not None else None
    for para in _paragraphs(getattr(module, "__doc__", "") or ""):
        at = para.find("Exit codes:")
        if at >= 0:
            return para[at + len("Exit codes:"):].strip()
    return GLOBAL_EXIT


def _default(param: Any) -> str:
    """The default of an option as the page shows it, or '' when there is none worth showing."""
    value = param.default
    if callable(value) or value is None or value == "" or value == [] or value == ():
        return ""
    if getattr(param, "is_flag", False) and value is False:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def _type(param: Any, ctx: Any) -> str:
    """The value type of a parameter (``path``, ``int`` …), '' for a flag."""
    if getattr(param, "is_flag", False):
        return ""
    return param.display_type(ctx).strip("<>")


def _cell(text: str) -> str:
    """Text fit for one Markdown table cell."""
    return _md(text or "").replace("|", "\\|").replace("\n", " ").strip()


def render_command(path: tuple[str, ...], command: Any) -> list[str]:
    """The Markdown section of one command: heading, usage, help, arguments, options and exit codes."""
    name = " ".join(path)
    ctx = command.make_context(path[-1], [], resilient_parsing=True)
    pieces = command.collect_usage_pieces(ctx)
    lines = [f"{'#' * min(len(path) + 1, 4)} `{name}`", "", "```text", f"{name} {' '.join(pieces)}".rstrip(), "```", ""]
    for para in _paragraphs(source_of(command.help)):
        lines += [para, ""]
    args = [p for p in command.params if p.param_type_name == "argument"]
    opts = [p for p in command.params if p.param_type_name == "option"]
    if args:
        lines += ["| argument | type | required | help |", "| --- | --- | --- | --- |"]
        for p in args:
            label = p.metavar or p.name.upper()
            if p.nargs == -1:
                label += " …"
            label = label.replace("|", "\\|")  # a pipe inside a table cell, even in code, must be escaped
            lines.append(f"| `{label}` | {_type(p, ctx)} | {'yes' if p.required else 'no'} | {_cell(getattr(p, 'help', '') or '')} |")
        lines.append("")
    if opts:
        lines += ["| option | type | default | help |", "| --- | --- | --- | --- |"]
        for p in opts:
            names = ", ".join(f"`{o}`" for o in [*p.opts, *p.secondary_opts])
            note = getattr(p, "help", "") or ""
            if getattr(p, "multiple", False):
                note += " May be given more than once."
            if getattr(p, "hidden", False):
                note += " (Hidden from `--help`: for development.)"
            default = "required" if p.required else (f"`{_default(p)}`" if _default(p) else "")
            lines.append(f"| {names} | {_type(p, ctx)} | {default} | {_cell(note)} |")
        lines.append("| `--help` |  |  | Show the help and exit 0. |")
        lines.append("")
    subs = getattr(command, "commands", None)
    if subs:
        listed = [s for s in sorted(subs) if not getattr(subs[s], "hidden", False)]
        lines += ["Subcommands: " + ", ".join(f"`{name} {s}`" for s in listed) + ".", ""]
    else:
        lines += [f"Exit codes: {exit_codes(command)}", ""]
    return lines


def render() -> str:
    """The whole of ``docs/cli.md`` as the CLI describes itself now."""
    root = root_command()
    out = [
        "# Command-line reference",
        "",
        f"<!-- Generated by scripts/gen_cli_docs.py from asz_core.cli.main.app. Do not edit by hand: run `{REGENERATE}`. -->",
        "",
        "This page is generated from the `asz` command itself (its Typer application, walked as Click",
        "commands), so every command, argument and option below is one the code accepts, with the help",
        f"text the code prints. After changing a command, run `{REGENERATE}`; the test",
        "`tests/docs/test_docs.py` fails while this page differs from what the script writes.",
        "",
        "Exit codes, unless a command says otherwise below: 0 done, 1 problems found, 2 usage. An unknown",
        "option, a missing argument or a bad configuration file is a usage error. When stderr is no terminal",
        "(a log, a pipe) a usage error is one plain line, `asz CMD: MESSAGE; see 'asz CMD --help'`, as every other",
        "error is; on a terminal Typer draws it in a box under the usage lines. `asz hook` never reaches",
        "the Typer application: the console script hands it straight to the standard-library observer,",
        "which always exits 0 (see [claude-code-hooks.md](claude-code-hooks.md)). `asz verify [SESSION | PATH]",
        "[--root DIR] [--json] [--jobs N]` is run by the console script before Typer loads, with the same output",
        "and exit codes as below ([verify.md](verify.md), How fast). Configuration keys are",
        "in [configuration.md](configuration.md).",
        "",
        "What a reader leaves out: a reader (`asz ls`, `asz usage`, `asz search`, `asz secrets`, `asz export`, the page)",
        "that says what it could not read and answers the rest exits as the rest makes it exit; it fails (1) where its",
        "help says so, when the answer would mislead without it (a pass stopped before its parse, a source no longer",
        "read, filters that match nothing). A conversation whose rounds folder is a symbolic link (asz follows no link",
        "inside a storage root) is such a gap: each reader names it, with the link's target and the way back, and leaves",
        "its exit code as it is; `asz verify`, whose job is to fail on what does not verify, exits 1 and names it",
        "([storage-root.md](storage-root.md), No links).",
        "",
        "Stopping: SIGTERM (`kill`, `timeout`, systemd's stop) stops every command as Ctrl-C (SIGINT) does, at once, with",
        "the same `stopped: …` or `interrupted` line and the same guarantees (each file lands whole or not at all, no",
        "`.tmp` is left: a worker process still writing two seconds after the stop is killed, and the command removes",
        "the temporary files it left, which its pid names, before it exits; a rerun goes on from where it stopped).",
        "Where a command below exits 130 on Ctrl-C (128 + 2), it",
        "exits 143 on SIGTERM (128 + 15, what `timeout --preserve-status` and systemd expect); the commands that run",
        "until stopped (`asz view`, `asz server`, `asz receive`, `asz collect` without `--once`) exit 0 on either.",
        "",
        "Log stamps: the `[HH:MM:SS]` that opens a pass line (`asz collect`'s, `asz push`'s summary, `asz server`'s",
        "`refreshed:` line, each `asz receive` line) is the time in the process's own zone, the original's form. With",
        "`ASZ_LOG_STAMP=iso` in the environment it is UTC with its date, `[2026-12-05T14:40:36Z]`, so the logs of hosts",
        "in different zones line up. Nothing else on the line changes.",
        "",
        "Commands: " + ", ".join(f"`{' '.join(p)}`" for p, _ in walk(root) if len(p) > 1) + ".",
        "",
    ]
    for path, command in walk(root):
        out += render_command(path, command)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write ``docs/cli.md`` (or check it, or print it); returns the exit code."""
    ap = argparse.ArgumentParser(description="Generate docs/cli.md from the asz command line.")
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/cli.md differs from what would be written")
    ap.add_argument("--stdout", action="store_true", help="print the page instead of writing it")
    ap.add_argument("--out", type=Path, default=CLI_DOC, help="the file to write (default docs/cli.md)")
    args = ap.parse_args(argv)
    text = render()
    if args.stdout:
        sys.stdout.write(text)
        return 0
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
        if current != text:
            print(f"{args.out} is stale: run {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
