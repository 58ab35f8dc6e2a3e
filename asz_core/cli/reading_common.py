"""What the reading commands (conversations, search, export) share: root and withheld names from the
configuration, the filter options, id prefixes and their exit codes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Optional, Sequence

import typer

from ..reading.ids import IdError
from ..reading.listing import Filters, TimeError
from ..termsafe import shell_word

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["settings", "require_root", "no_root", "root_hint", "NO_ROOT_HINT", "ELSEWHERE_HINT", "FOUND_HINT", "EXAMPLE_HINT", "OWN_ROOT_HINT", "terminal_columns", "say_left_out", "make_filters", "fail_id", "refuse_empty_id", "check_limit", "tz_option", "project_option", "model_option", "dialect_option", "check_dialect", "use_tz", "ROOT_HELP", "CONFIG_HELP", "TZ_HELP", "incomplete"]

ROOT_HELP = "Storage root (default: storage.root, else ./data)."
CONFIG_HELP = "asz.yaml to read (its view.hide is withheld)."
TZ_HELP = ("Time zone of the times shown, the days counted and the dates of --since/--until: an IANA name such as "
           "Europe/Paris, UTC (any case), or a Windows zone name such as 'W. Europe Standard Time' (tzutil /g), read as its "
           "IANA zone (default: this machine's).")


def linked_said(cmd: str, root: Path | str, left_out: str, head: str = "") -> list[str]:
    """Say on stderr (``asz CMD: HEAD…``) the conversations of ``root`` whose rounds folder is a symbolic link, not
    ``left_out`` (``searched``, ``counted``…: :func:`~asz_core.view.rows.rounds_links_note`; review48: readers left
    them out with no word); the line in a list, [] when there is none."""
    from ..view.rows import rounds_links, rounds_links_note

    said = rounds_links_note(rounds_links(root), left_out)
    if said:
        typer.echo(f"asz {cmd}: {head}{said}", err=True)
    return [said] if said else []


def tz_option(*also: str):
    """The ``--tz`` option of every command that prints a local time or counts by day (one definition, one help);
    ``also``: other names it answers to (``asz usage``'s ``--timezone``, ccusage's name: trial 38b F7)."""
    more = f" {', '.join(also)}: the same (ccusage's name)." if also else ""
    return typer.Option(None, "--tz", *also, help=TZ_HELP + more)


def given(ctx: typer.Context, param: typer.CallbackParam, value: str) -> str:
    """A filter option's value, checked: one given empty on the command line (``--project ''``) is a usage error
    naming the flag, exit 2 (trial 42b F7: it was taken as not given, silently); ``/api/…``'s 400 says the same
    (:data:`~asz_core.view.row_filters.EMPTY_FILTER`). Raises typer.BadParameter."""
    source = ctx.get_parameter_source(param.name or "")
    if value == "" and source is not None and source.name == "COMMANDLINE":
        from ..view.row_filters import EMPTY_FILTER

        raise typer.BadParameter(EMPTY_FILTER, ctx=ctx, param=param)
    return value


given.refuses_empty = True  # type: ignore[attr-defined]  # asz_core.cli.quick reads a value it lets pass, not an empty one


def filter_option(flag: str, help: str):
    """A filter option of the commands that list or search conversations: ``''`` when not given, refused given
    empty (:func:`given`)."""
    return typer.Option("", flag, help=help, callback=given)


def project_option():
    """The ``--project`` option of the commands that list or search conversations (ls, search, secrets): one help."""
    return filter_option("--project", "Only conversations whose project contains this (case-insensitive); '(no project)': those naming none.")


def model_option():
    """The ``--model`` option of the commands that list or search conversations (ls, search, secrets): one help."""
    return filter_option("--model", "Only conversations with a model whose name contains this.")


def dialect_option():
    """The ``--dialect`` option of the commands that list or search conversations (ls, search, secrets): one help
    (``asz usage --dialect`` has its own, which says what it counts; :func:`check_dialect` checks both)."""
    return filter_option("--dialect", "Only conversations of this dialect (claude-code/1, or its name claude-code).")


def use_tz(cmd: str, name: Optional[str]):
    """The zone ``--tz`` names (None when not given: this machine's), made the zone the command's times are written
    in (:func:`~asz_core.view.zone.use_zone`); exit 2 with one line for a name that is no zone (also ``''``)."""
    from ..view.zone import use_zone, zone_of

    if name is None:
        use_zone(None)
        return None
    try:
        zone = zone_of(name)
    except ValueError as exc:
        typer.echo(f"asz {cmd}: --tz: {exc}", err=True)
        raise typer.Exit(2)
    use_zone(zone)
    return zone


def settings(cmd: str, root: Optional[Path], config: Optional[Path]) -> tuple[Path, list[str]]:
    """``(storage root, view.hide)`` for a command: ``--root`` wins over the configuration's root; exit 2 on a bad configuration."""
    from ..config import ConfigError, load_config

    try:
        cfg = load_config(config)
    except ConfigError as exc:
        typer.echo(f"asz {cmd}: {exc}", err=True)
        raise typer.Exit(2)
    where = root if root is not None else Path(cfg.root)
    require_root(cmd, where)
    return where, list(cfg.view_hide)


#: What every command that reads a root says after ``no storage root at PATH``: how to name one.
NO_ROOT_HINT = "(give --root DIR or set storage.root)"
#: What it says instead when PATH is relative (the default ``data``), after the path in full: the folder decides.
ELSEWHERE_HINT = ("(that is {path}: asz collect lands into ./data of the folder it runs in, so run asz in the folder you "
                  "collected in, or give --root DIR, or set storage.root in an asz.yaml there or in --config FILE)")
#: Then, when roots are found at the usual places (:func:`asz_core.cli.roots_near.usual_roots`), what names them.
FOUND_HINT = "; {there} at {paths}: give --root {first}"
#: What names the README's example roots found there (``example-data``): never offered as the user's own (trial 47d F5).
EXAMPLE_HINT = "; {what} at {paths} (the bundled example, not your own history)"
#: What follows when only example roots are found: where the user's own root is.
OWN_ROOT_HINT = ("; your own root is ./data of the folder you ran asz collect in, or the storage.root of the asz.yaml "
                 "there: give --root with it")


def no_root(cmd: str, root: Path | str) -> str:
    """The line a command says for a storage root that does not exist: ``asz CMD: no storage root at PATH (give
    --root DIR or set storage.root)``, the same words for every command (docs/reading.md). A relative ``root`` (the
    default ``data``) depends on the folder the command ran in: it is named in full, with what that means
    (:data:`ELSEWHERE_HINT`), and the storage roots found where they usually are (:data:`FOUND_HINT`; trial 33a F4:
    run from another folder, every reader said only ``no storage root at data``)."""
    return f"asz {cmd}: no storage root at {root} {root_hint(root)}"


def root_hint(root: Path | str) -> str:
    """What follows ``no storage root at ROOT``: :data:`NO_ROOT_HINT` for an absolute ``root``; for a relative one
    :data:`ELSEWHERE_HINT` and, when :func:`~asz_core.cli.roots_near.usual_roots` finds some, :data:`FOUND_HINT`
    naming up to three (``and N more``) in full, quoted for the shell. A root named ``example-data`` is the README's
    bundled example: it is named apart (:data:`EXAMPLE_HINT`), never as the ``--root`` to give, and when no other root
    is found :data:`OWN_ROOT_HINT` says where the user's own one is (trial 47d F5: run beside the README's folder,
    ``asz ls`` said ``give --root …/asz/example-data``, a one-conversation root, not the user's)."""
    import os

    if os.path.isabs(root):
        return NO_ROOT_HINT
    from .roots_near import usual_roots

    said = ELSEWHERE_HINT.format(path=os.path.abspath(root))
    found = usual_roots(root)
    own = [p for p in found if p.name != EXAMPLE_ROOT]
    examples = [p for p in found if p.name == EXAMPLE_ROOT]
    if own:
        there = "a storage root is" if len(own) == 1 else "storage roots are"
        said += FOUND_HINT.format(there=there, paths=_some(own), first=shell_word(own[0]))
    if examples:
        what = "the README's example root is" if len(examples) == 1 else "the README's example roots are"
        said += EXAMPLE_HINT.format(what=what, paths=_some(examples))
        if not own:
            said += OWN_ROOT_HINT
    return said


#: The folder name of the README's example root (its set-up line's ``--root ./example-data``).
EXAMPLE_ROOT = "example-data"


def _some(paths: list) -> str:
    """Up to three of ``paths`` in full, then ``and N more``."""
    return ", ".join(map(str, paths[:3])) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def created_root_note(root: Path | str, cfg: Config) -> str:
    """The one ``note:`` line a command says when it created the storage root ``root`` that no ``--root`` named
    (trial 23b F7: a collect run from another folder silently started a second, partial root), naming it in full and
    how it was chosen: ``note: created a new storage root at /home/me/w/data (no --root given and no asz.yaml here:
    ./data of the working folder; a root is --root DIR, else storage.root of asz.yaml, else ./data)``; ``cfg``: the
    configuration that chose it (its ``path``, the asz.yaml read or None; ``root_set``, whether that set storage.root,
    else the root is ./data beside it). A root ``--root`` named is the one the user asked for, and is not said (callers
    check)."""
    import os

    config = cfg.path
    why = ("no --root given and no asz.yaml here: ./data of the working folder" if config is None else
           f"storage.root of {config}" if cfg.root_set else f"no --root given and {config} sets no storage.root: ./data beside it")
    return (f"note: created a new storage root at {os.path.abspath(root)} ({why}; a root is --root DIR, "
            "else storage.root of asz.yaml, else ./data)")


def require_root(cmd: str, root: Path) -> None:
    """Exit 1 when ``root`` does not exist (:func:`no_root`'s line), 2 when it is no storage root (a session
    directory, a projects folder): a mistaken ``--root`` is said, never read as an empty root and never written into.
    ``cmd`` is the command as the user typed it (``ls``, not ``conversations``)."""
    from ..storage.layout import require_storage_root

    if not root.is_dir():
        typer.echo(no_root(cmd, root), err=True)
        raise typer.Exit(1)
    try:
        require_storage_root(root)
    except FileNotFoundError as exc:
        typer.echo(f"asz {cmd}: {exc}", err=True)
        raise typer.Exit(2)


def no_match(cmd: str, root: Path, given: dict[str, str], of: int, tail: str = "") -> typer.Exit:
    """Say that the filters ``given`` (option -> value as typed; empty ones left out) matched none of the ``of``
    conversations of ``root``, and return the exit 1 to raise: ``asz CMD: no conversation matched --project P (of N in
    ROOT; asz ls lists them)`` then ``tail``, on stderr, in the words of
    :func:`~asz_core.view.row_filters.matched_none` (the HTTP API's ``note`` too). The readers' one rule (``ls``,
    ``search``, ``export``, ``secrets``: a filter that matches nothing exits 1, as grep does; docs/reading.md)."""
    from ..view.row_filters import matched_none

    said = " ".join(f"{flag} {v}" for flag, v in given.items() if v)
    typer.echo(f"asz {cmd}: {matched_none(said, of, root, '; asz ls lists them')}{tail}", err=True)
    return typer.Exit(1)


def make_filters(cmd: str, project: str, since: str, until: str, model: str, dialect: str, zone=None,
                 root: Path | None = None) -> Filters:
    """A :class:`Filters` from the options; exit 2 naming the option for a time that does not read, or for a
    ``--dialect`` no installed adapter speaks and no conversation of ``root`` landed in (:func:`check_dialect`)."""
    check_dialect(cmd, dialect, root)
    first, last = time_range(cmd, since, until, zone)  # a day of --tz (None: this machine's)
    return Filters(project=project, model=model, dialect=dialect, since=first, until=last)


def check_dialect(cmd: str, dialect: str, root: Path | None = None) -> None:
    """Exit 2 for a ``--dialect`` no installed adapter speaks (neither a dialect such as ``claude-code/1`` nor its
    name) and no conversation of ``root`` landed in, naming the installed dialects (as ``asz glossary`` says); nothing
    for '' (every dialect). One a conversation landed in whose adapter is not installed (uninstalled since) filters
    as any, with a ``note:`` saying so (trial 35a F6)."""
    from ..view.row_filters import unknown_dialect, uninstalled

    why = unknown_dialect(dialect, root)
    if why:
        typer.echo(f"asz {cmd}: --dialect: {why}", err=True)
        raise typer.Exit(2)
    if uninstalled(dialect):
        typer.echo(f"note: asz {cmd}: --dialect {dialect}: no installed adapter speaks it; the conversations landed in "
                   "it are read as they landed (asz adapters list)", err=True)


def time_range(cmd: str, since: str, until: str, zone=None) -> tuple[int | None, int | None]:
    """``--since`` and ``--until`` as unix ms (:func:`~asz_core.view.match.time_window`, the one date range of every
    command and ``/api/`` route; None when not given); exit 2 naming the options for a time that does not read or
    that no date can hold (``9999-12`` in a zone east of UTC ends in year 10000), or for a ``--since`` after the
    ``--until`` (nothing could match: the command would print an empty answer that looks like a real one)."""
    from ..view.match import time_window

    try:
        return time_window(since, until, zone)
    except TimeError as exc:
        typer.echo(f"asz {cmd}: {exc}", err=True)
        raise typer.Exit(2)


def check_limit(cmd: str, limit: int, what: str = "row") -> None:
    """Exit 2 for a ``--limit`` below 0, the one rule of every command that takes it: 0 lists every
    ``what`` (a row of asz ls, a hit of asz search), N the first N (trial 21: asz search refused 0, asz ls listed all)."""
    if limit < 0:
        typer.echo(f"asz {cmd}: --limit {limit} is below 0 (0 lists every {what})", err=True)
        raise typer.Exit(2)


def refuse_empty_id(cmd: str, given: Optional[str], what: str = "ID") -> None:
    """Raise typer.Exit(2) after ``asz CMD: an empty WHAT is not an id: give one, or a unique prefix of one`` when
    ``given`` is ``''`` or only blanks: it would be read as a prefix of every id, or as a session of no name
    (trial 18, F-d). None (an optional id not given) passes."""
    if given is not None and not given.strip():
        typer.echo(f"asz {cmd}: an empty {what} is not an id: give one, or a unique prefix of one", err=True)
        raise typer.Exit(2)


def fail_id(cmd: str, exc: IdError) -> typer.Exit:
    """Print an id error (an ambiguous prefix's message lists its matches) and give its exit (1 none, 2 ambiguous)."""
    typer.echo(f"asz {cmd}: {exc}", err=True)
    return typer.Exit(exc.exit_code)


def fit_tail(text: str, width: int) -> str:
    """``text`` (a project path) in exactly ``width`` cells, cut at its START so the tail that tells projects apart
    stays: ``…/workspace/claude-code-log`` as the page writes it (``…/`` or ``…\\`` and the whole last folders that
    fit, cut at either separator: :func:`~asz_core.view.project_labels.cut_path`), else ``…`` and the last cells; a
    text that fits is padded as :func:`fit_cells` pads it. :func:`fit_tails` tells several projects apart."""
    return fit_tails([text], width)[text]


def fit_tails(texts: Iterable[str], width: int) -> dict[str, str]:
    """``{text: cell}``: each project path of ``texts`` as :func:`fit_tail` fits it in ``width`` cells, and where two
    different projects would read alike, each keeping as many of its first folders as tell them apart
    (:func:`~asz_core.view.project_labels.project_labels`: ``/mnt/…e.example-next``, ``/Users/alex/…le-next``; two
    Unicode spellings of one path read alike; trial 31c F3)."""
    from ..reading.termtext import cell_visible, plain
    from ..view.project_labels import project_labels

    shown = {t: cell_visible(" ".join(plain(str(t)).split())) for t in texts}
    labels = project_labels(shown.values(), width)
    return {t: fit_cells(labels.get(s, s), width) for t, s in shown.items()}


def fit_cells(text: str, width: int, align: str = "<") -> str:
    """``text`` on one line in exactly ``width`` terminal cells: a wide character (CJK, most emoji) takes two
    (rich's cell widths), a longer text is cut to ``width - 1`` cells and ``…`` (when the cut falls inside a word,
    at the last space among its last quarter of characters, when there is one: a word is not cut in two), the rest padded with spaces
    (``align`` ``<`` left, ``>`` right). Control and bidi characters are written as escapes first
    (:func:`~asz_core.reading.termtext.cell_visible`: a zero-width space too, ``\\u200b``, so two cells that differ
    by one never read alike; trial 34c F9), so a cut never leaves half a terminal sequence."""
    from rich.cells import cell_len

    from ..reading.termtext import cell_visible, plain
    from ..view.rows import inside_word

    text = cell_visible(" ".join(plain(str(text)).split()))
    if len(text) > 4 * width:
        text = text[: 4 * width]  # never fewer cells than width: at most three zero-width marks per character
    used = cell_len(text)
    if used > width:
        whole = text
        while text and used > width - 1:
            text = text[:-1]
            used = cell_len(text)
        space = text.rfind(" ", max(0, len(text) - max(3, width // 4)))
        if space > 0 and text and inside_word(text[-1], whole[len(text)]):  # a word's end is near: end there
            text = text[:space]
        text = text.rstrip()
        text, used = text + "…", cell_len(text) + 1
    pad = " " * max(0, width - used)
    return pad + text if align == ">" else text + pad


def terminal_columns() -> int:
    """The width in cells of the terminal stdout goes to (``COLUMNS=`` sets it, as Python's
    ``shutil.get_terminal_size`` reads it), or 0 when stdout is no terminal (a pipe, a file: a table keeps every
    column there, whatever ``COLUMNS`` says, since scripts read it)."""
    import shutil
    import sys

    try:
        if not sys.stdout.isatty():
            return 0
    except (AttributeError, ValueError):  # a replaced or closed stdout
        return 0
    return shutil.get_terminal_size((0, 0)).columns


def say_left_out(cmd: str, headers: list[str]) -> None:
    """Say once on stderr which columns a narrow terminal left out of ``asz CMD``'s table (nothing when none)."""
    if headers:
        typer.echo(f"asz {cmd}: a narrow terminal: {', '.join(headers)} left out (a wider one, or --json, shows "
                   "every column)", err=True)


def incomplete(r: Path, ids: list[str], cmd: str, failed: bool = False, stopped: Sequence[str] = (),
               shown: Callable[[str], str] = str) -> None:
    """Exit 1, said on stderr (:data:`~asz_core.reading.stopped_pass.INCOMPLETE_SAID`), when landed sessions of root
    ``r`` that a stopped pass or parse left unparsed are not among the conversations ``ids`` (their calls are in no
    figure: :func:`~asz_core.reading.stopped_pass.stopped_unparsed`; trial 31a F4), or when the conversations
    ``stopped`` (named by ``shown``) have a source the collector no longer reads, the lines it holds past what landed
    in no figure (:data:`~asz_core.view.stopped_sources.STOPPED_SAID`; trial 46a F1); exit 1 too when ``failed``
    (the command already found its answer failing); nothing otherwise."""
    from ..reading.stopped_pass import INCOMPLETE_SAID, stopped_unparsed
    from ..view.stopped_sources import stopped_said

    left = stopped_unparsed(r, ids)
    if left:
        typer.echo(f"asz {cmd}: {INCOMPLETE_SAID.format(n=len(left), root=shell_word(r))}", err=True)
    if said := stopped_said(list(stopped), shown):
        typer.echo(f"asz {cmd}: {said}", err=True)
    if left or failed or said:
        raise typer.Exit(1)
