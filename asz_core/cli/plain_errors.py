"""Usage errors as one plain line when stderr is no terminal (trial 31a F7; docs/cli.md, exit codes).

Typer draws a usage error (an unknown option, a bad value, a missing argument) as a Rich box of UTF-8 box-drawing
characters, 80 columns wide, after click's ``Usage:`` lines. In a log file (cron, CI, systemd) that is four lines of
frame where every other error of asz is one ``asz CMD: …`` line a ``grep`` finds. :class:`PlainErrorsGroup`, the
application's top group, catches a usage error before Typer draws it when stderr is not a terminal and prints
``asz CMD: MESSAGE; see 'asz CMD --help'`` on stderr, exit 2 (click's usage exit code, unchanged). On a terminal
the box stays.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

#: Click's usage error as Typer raises it (Typer 0.29 carries its own copy of click: ``typer.BadParameter``'s base).
UsageError = typer.BadParameter.__mro__[1]

__all__ = ["PlainErrorsGroup", "plain_usage_line", "CCUSAGE_FLAGS"]


def plain_usage_line(exc: UsageError, path: str = "asz") -> str:
    """``asz CMD: MESSAGE; see 'asz CMD --help'``: ``exc`` in one line (its message's line breaks as spaces, no full
    stop at its end), named by the command whose arguments it is about (its context's), else ``path``."""
    if exc.ctx is not None:  # the program is asz however started (python -m asz_core.cli.main, a script's path)
        names, c = [], exc.ctx
        while c.parent is not None:
            names.append(c.info_name or "")
            c = c.parent
        path = " ".join(["asz", *reversed(names)])
    message = " ".join(exc.format_message().split())
    message = message[:-1] if message.endswith(".") and not message.endswith("..") else message
    return f"{path}: {message}; see '{path} --help'"


def _said(exc: UsageError, group: TyperGroup) -> NoReturn:
    """Print ``exc``'s line and exit with its code (2); a message with no context is named by the command the command
    line gives, when ``group`` has it (``asz usage --root`` with no value)."""
    words = sys.argv[1:2]
    path = f"asz {words[0]}" if words and words[0] in group.commands else "asz"
    print(plain_usage_line(exc, path), file=sys.stderr, flush=True)
    sys.exit(exc.exit_code)


def _plain() -> bool:
    try:
        return not sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or it is closed
        return True


def _goes_after(exc: UsageError, group: TyperGroup, words: list[str]) -> None:
    """An option given before the command that takes it (``asz --root R ls``, as git and ccusage users type): click's
    ``No such option: --root`` gets ``: it goes after the command, asz ls --root R`` (trial 38a F8), the words before
    the command moved after the rest. Only when a later word is a command of ``group`` whose options include it;
    else ``exc`` is left as it is. Never raises."""
    name = getattr(exc, "option_name", None)
    if not name or type(exc).__name__ != "NoSuchOption":
        return
    try:
        at = next(i for i, w in enumerate(words) if w in group.commands)
        command = group.commands[words[at]]
        if not any(name == o or name.split("=", 1)[0] == o for p in command.params for o in p.opts):
            return
        from ..termsafe import shell_word

        moved = [*words[at:], *words[:at]]
        exc.message = f"No such option: {name}: it goes after the command, asz {' '.join(shell_word(w) for w in moved)}"
    except Exception:  # the message as click gave it
        return


#: ccusage's flags asz usage does not take, each with what to use instead, as docs/ccusage.md maps it (trial 40b F5:
#: click suggested --instance, the team root's sender filter, for --instances, and --model for --mode).
CCUSAGE_FLAGS = {
    "--instances": "ccusage's --instances is asz usage project here",
    "--mode": "asz always prices every call from its tokens (ccusage's --mode calculate); asz usage --prices shows the rates",
    "--offline": "asz is always offline: the price table ships with it (asz.yaml prices overrides it)",
    "--compact": "a narrow terminal leaves columns out by itself, said on stderr",
    "--locale": "asz writes figures with , thousands and . decimals in every locale",
    "--live": "asz reads what landed: asz collect beside the agent, and asz server's usage page",
    "--recent": "ccusage's blocks --recent (its last 3 days) is asz usage blocks --since 3d",
    "--token-limit": "asz usage blocks takes no token limit: the open block's line gives its burn rate and its tokens "
                     "and cost at its end (--json: burn_rate, projection)",
    "--session-length": "a block is 5 hours, ccusage's default, and asz takes no other length",
    "--id": "ccusage's session --id is asz conversation ID (its usage and cost), or asz usage session --json's "
            "conversation key",
    "--start-of-week": "a week starts on Monday in --tz, and asz takes no other start",
    **{short: f"ccusage's {short} is {long} here" for short, long in (("-s", "--since"), ("-u", "--until"),
       ("-j", "--json"), ("-b", "--breakdown"), ("-o", "--order"), ("-z", "--tz"), ("-p", "--project"))},
}


def _from_ccusage(exc: UsageError) -> None:
    """``asz usage``'s ``No such option`` for a ccusage flag (:data:`CCUSAGE_FLAGS`) says what to use instead and
    where docs/ccusage.md maps it, in place of click's nearest names; any other error is left as it is (exit 2 either
    way). Never raises."""
    name = str(getattr(exc, "option_name", "") or "").split("=", 1)[0]
    ctx = exc.ctx
    if name in CCUSAGE_FLAGS and type(exc).__name__ == "NoSuchOption" and ctx is not None and ctx.info_name == "usage":
        exc.message = f"No such option: {name}: {CCUSAGE_FLAGS[name]}; see docs/ccusage.md"
        exc.possibilities = None


class PlainErrorsGroup(TyperGroup):
    """The top group of asz: a usage error met while its arguments or a command's are read, or raised by a command
    (``typer.BadParameter``), is :func:`plain_usage_line` on stderr and exit 2 when stderr is no terminal."""

    def make_context(self, info_name: str | None, args: list[str], parent: typer.Context | None = None,
                     **extra: Any) -> typer.Context:
        words = list(args)
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as exc:
            _goes_after(exc, self, words)
            if not _plain():
                raise
            _said(exc, self)

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            _from_ccusage(exc)
            if not _plain():
                raise
            _said(exc, self)
