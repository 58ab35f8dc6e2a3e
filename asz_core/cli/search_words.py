"""The words of an ``asz search`` query as a shell splits them (trial 48d F1).

``asz search zip archive`` was exit 2 (``Got unexpected extra argument(s) (archive)``) and ``asz search zip -test``
exit 2 (``No such option: -t``), although docs/reading.md gives ``-word`` as the query's way to leave a word out:
the query had to be one quoted argument. Now the words given apart are one query, joined by single spaces in the
order typed (``zip archive`` is the query ``zip archive``: both words must match; a phrase still needs its own
quotes inside the query, ``asz search '"zip archive"'``), and a word of one dash followed by a letter that is not one
of the command's own short options (``-test``) is a query word wherever it stands. ``--`` still ends the options.
"""

from __future__ import annotations

from typer.core import TyperCommand


def _sorted(cmd: TyperCommand, args: list[str]) -> list[str]:
    """``args`` as click should read them: the options (each with its value when it takes one) first, then ``--``
    and the query's words in the order typed. A ``-`` word is an option when it names one of ``cmd``'s options
    (``-n``, ``-n5``, ``--json``, ``--limit=5``) or starts with ``--`` (an unknown ``--word`` stays click's usage
    error); any other ``-word`` is a word of the query."""
    takes_value: dict[str, bool] = {}
    for p in cmd.params:
        if p.param_type_name == "option":  # Typer's own click (typer._click), not the click package
            for name in (*p.opts, *p.secondary_opts):
                takes_value[name] = not p.is_flag and not p.count
    options: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            words += args[i + 1:]
            break
        name = a.split("=", 1)[0] if a.startswith("--") else a[:2]
        if a.startswith("--") or (a.startswith("-") and name in takes_value):
            options.append(a)
            if takes_value.get(name) and a == name and i + 1 < len(args):  # the value is the next argument
                options.append(args[i + 1])
                i += 1
        else:
            words.append(a)
        i += 1
    return [*options, "--", *words] if words else options


class SearchCommand(TyperCommand):
    """``asz search``'s command: its arguments sorted by :func:`_sorted` before click reads them."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _sorted(self, args))


def joined(words: list[str] | None) -> str | None:
    """The query the words make: joined by single spaces (None when no word was given)."""
    return " ".join(words) if words else None
