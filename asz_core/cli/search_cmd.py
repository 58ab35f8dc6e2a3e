"""``asz search QUERY``: full-text search over every conversation of a root (issue 20).

The index brought up to date for a command is :mod:`asz_core.cli.search_index`'s; ``asz secrets``, which this module
registers, :mod:`asz_core.cli.secrets_cmd`'s."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Optional

import orjson
import typer

from ..view.rate_words import listed_title
from .reading_common import (CONFIG_HELP, ROOT_HELP, check_limit, dialect_option, filter_option, linked_said, make_filters, model_option, no_match, project_option, settings,
                             tz_option, use_tz)
from .conversation_step import open_command, open_line, opened
from .search_index import asked, indexed_said
from .search_notes import TOO_LARGE_GAP, too_large
from .search_words import SearchCommand, joined


def snippet_line(hit: dict, tty: bool) -> str:
    """A hit's snippet on one line, control and bidi characters written as escapes (``\\x1b``, ``\\u202e``:
    :func:`~asz_core.reading.termtext.visible`): on a terminal each match bold yellow (ANSI); else, and on a terminal
    while ``NO_COLOR`` is set and not empty (no-color.org, as the progress bar honours it: trial 29b F7), each match
    between « and », and a « or » of the text itself escaped by a
    backslash (:func:`~asz_core.reading.search_text.escaped`, docs/reading.md)."""
    import os

    from ..reading.search_text import escaped, one_line
    from ..reading.termtext import visible_spans

    text, spans = visible_spans(*one_line(hit["snippet_text"], hit["snippet_marks"]))
    if not tty or os.environ.get("NO_COLOR"):
        return escaped(text, spans)
    out, at = [], 0
    for a, b in spans:
        out += [text[at:a], "\x1b[1;33m", text[a:b], "\x1b[0m"]
        at = b
    return "".join(out) + text[at:]


def search(
    query: Optional[list[str]] = typer.Argument(None, metavar="QUERY...", show_default=False, help='Words (all must match), "a phrase", a prefix*, a OR b, -word or NOT word (left out); the words may be given apart (asz search zip -test is the query "zip -test"; a phrase keeps its quotes inside one argument: asz search \'"zip archive"\'); after -- every argument is a word. Required unless --reindex is given alone (then the index is built again and nothing is searched).'),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of hits (conversation, title, talk, step, kind, at, snippet, file, row, snippet_text, snippet_marks, repeats, undescribed (why an undescribed record's bytes were not described; '' on other hits), open (not with --held-back or --conversations, whose answers are the page API's: the command that opens the hit: asz conversation ID --step STEP, or for an undescribed record asz show SESSION FILE:ROW, which prints its bytes; '' when none); sender in a root asz receive landed)."),
    held_back: bool = typer.Option(False, "--held-back", help="With --json: print {hits, held_back, partial, indexing, across} as /api/search?held_back=1 answers (partial is always false here: this command waits for another update of the index): the hits, and what was left out (files that do not verify, with how many hits the whole query matches in each; what was never searched; across: with no hit, how many conversations hold every word between their texts)."),
    limit: int = typer.Option(20, "--limit", "-n", help="At most this many hits (default 20); 0: all of them; below 0 is a usage error (as asz ls)."),
    kind: str = filter_option("--kind", "Only these kinds (comma list): prompt (typed by a person), reply, text, context, summary (a compaction summary), notice (a runtime notice, a compaction boundary), thinking, tool_input, tool_result, label (a name the runtime gave: a conversation's title such as a Claude Code summary or ai-title or a Kiro session title, a child's description), undescribed (the bytes of a record or part the dialect could not describe, kept verbatim; bytes that are not valid UTF-8 read with U+FFFD)."),
    tool: str = filter_option("--tool", "Only hits in the inputs and results of the calls of this tool (its whole name as the call names it, e.g. Bash or mcp__fs.files__read; asz usage tools lists them)."),
    project: str = project_option(),
    since: str = filter_option("--since", "Only hits at or after: YYYY-MM-DD or YYYY-MM (a whole month), in --tz; an RFC 3339 instant, 30m/12h/7d/2w back, or today/yesterday (a calendar day in --tz). A hit with no time is kept when its conversation's whole range is in the window, else named on stderr."),
    until: str = filter_option("--until", "Only hits at or before (same forms; a date counts to its end, a month to its last day)."),
    tz: Optional[str] = tz_option(),
    model: str = model_option(),
    dialect: str = dialect_option(),
    instance: str = filter_option("--instance", "In a root asz receive landed: only conversations sent by an instance id (service.instance.id, e.g. dev@hostA) or token credential name containing this (case-insensitive), as asz ls --instance keeps them; each hit names its file's sender (--json: sender)."),
    by_conversation: bool = typer.Option(False, "--conversations", help="One row per conversation: those whose texts hold every word between them (each word in some text, not all in one), the most relevant first (the bm25 of each word's 3 best texts, summed), each with its best hit for each word; --limit counts conversations; --json prints {conversation, title, texts, relevance, groups, hits}."),
    reindex: bool = typer.Option(False, "--reindex", help="Delete the index and build it again from the landed files first; alone (no QUERY), only that, exit 0."),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Search the prompts, replies, thinking, tool inputs and tool results, the labels (titles), and the bytes of the records no dialect could describe, of every conversation in a root.

    The index (<root>/_index/search-56.sqlite, derived data; 56 is its schema) is brought up to date first: conversations whose head round
    changed are indexed again. A record carrying a flag view.hide names is never matched, counted or shown. Hits come best first (bm25), hits of equal score (the same text in copies of a conversation) newest first. Each hit prints its conversation, title, time, step id, landed file and row, and
    a snippet with the matches marked: in colour on a terminal, else between « and », where a « or » of the text
    itself has a backslash before it. A hit whose landed file no longer verifies (damaged before or since it was
    indexed) is left out, and stderr names the file and the problem, for every such file the whole query matches
    whatever --limit shows (the count line says how many hits were held back); so does a landed file missing or a conversation
    with no usable round, whose text was never searched (whatever the words, in the conversations the filters keep), and one note the sessions asz prune removed. Without --json those notes are also
    printed on stdout under the hits, each after "! " (there only when stdout and stderr are one terminal or file); so is, when no one text holds every word of the query, how many
    conversations hold them all between their texts (--conversations lists them, one row each). Ctrl-C while the index is brought up to date keeps
    every conversation indexed whole and says so on stderr (``asz search:
    stopped: N of M conversations indexed; ...``), exit 130; Ctrl-C during the
    query says so on stderr too (``asz search: stopped during the query; ...``), exit 130. Exit 0 (also with no hit), 1
    when --project/--model/--dialect keep no conversation or --since/--until meet no conversation's recorded span (said as asz ls says it, before any query: nothing on stdout, --json prints [] or --held-back's object with no hit),
    when hits were left out or a text was never searched because landed files do not verify, are missing or do not read (the
    warnings above; the hits found are printed first, as the other readers exit 1 on the same damage), the root is missing or the index
    cannot be used, 2 on usage errors. An index SQLite finds damaged is said in a warning, deleted and built again.
    """
    try:  # Ctrl-C here (a loaded machine takes a while to import) was a silent exit 130
        from ..reading.search import QueryError, SearchError

        zone, (r, hide) = use_tz("search", tz), settings("search", root, config)
        filters = make_filters("search", project, since, until, model, dialect, zone, r)
        filters.tool = tool
    except KeyboardInterrupt:
        typer.echo("asz search: stopped before any conversation was indexed", err=True)
        raise typer.Exit(130)
    kinds = _checked(kind, limit, held_back and by_conversation)
    query = joined(query)
    if query is None and not reindex:
        raise typer.BadParameter.__mro__[1]("Missing argument 'QUERY'.")  # click's UsageError: exit 2, as before
    indexed_said(r, reindex, as_json and query is not None, "search")
    if query is None:  # asz search --reindex alone: built again, said on stderr, nothing searched (trial 42b F2)
        return
    phase = ["query"]  # "print" once the query is done (what Ctrl-C says)
    given = [a for flag, v in (("--kind", kind), ("--tool", tool), ("--project", project), ("--model", model), ("--dialect", dialect),
                               ("--since", since), ("--until", until), ("--tz", tz), ("--instance", instance), ("--root", root),
                               ("--config", config))
             if v for a in (flag, str(v))]
    try:
        _answer(r, query, hide, filters, kinds, limit, as_json, held_back, by_conversation, phase, given, instance,
                {"--project": project, "--model": model, "--dialect": dialect, "--since": since, "--until": until})
    except QueryError as exc:
        typer.echo(f"asz search: {exc}", err=True)
        raise typer.Exit(2)
    except SearchError as exc:
        typer.echo(f"asz search: {exc}", err=True)
        raise typer.Exit(1)
    except KeyboardInterrupt:  # Ctrl-C during the query (or while printing) was a silent exit 130
        typer.echo("asz search: stopped during the query; the index is up to date, nothing was printed" if phase == ["query"]
                   else "asz search: stopped while printing the hits", err=True)
        raise typer.Exit(130)


def _answer(r: Path, query: str, hide, filters, kinds: list[str], limit: int, as_json: bool, held_back: bool,
            by_conversation: bool, phase: list[str], given: list[str], instance: str, said: dict[str, str]) -> None:
    """The query asked and answered (:func:`_hits`, or :func:`_conversations`), after the filters' checks
    (``said``: the filter flags as given). An index the query finds damaged (:func:`~asz_core.reading.search_place.is_damaged`)
    is said in one line, deleted, built again and asked once more, while nothing is printed yet (:func:`asked`, as
    ``asz secrets`` does; trial 42b F2: it answered exit 1, "delete it and run asz search --reindex"). Raises
    QueryError, SearchError and KeyboardInterrupt."""
    empty = _empty_answer(as_json, held_back and not by_conversation)

    def ask() -> None:
        none_kept("search", r, filters, said, empty)
        among = _sent_by(r, instance, empty)
        if by_conversation:
            _conversations(r, query, hide, filters, kinds, limit, as_json, phase, given, among)
        else:
            _hits(r, query, hide, filters, kinds, limit, as_json, held_back, phase, given, among)

    asked(r, "search", ask, lambda: phase == ["query"])


def again(query: str, given: list[str], conversations: bool, every: bool) -> str:
    """The ``asz search`` command that asks ``query`` again with the options ``given`` (``[flag, value, …]``: those
    that narrow or place it, as typed), by conversation when ``conversations``, and with ``--limit 0`` when ``every``:
    what a hint names to get the rest (docs/reading.md), each argument quoted for a POSIX shell
    (:func:`~asz_core.termsafe.shell_word`)."""
    from ..termsafe import shell_word

    words = ["asz", "search", *(["--conversations"] if conversations else []), *(["--limit", "0"] if every else []),
             *given, *(["--"] if query.startswith("-") else []), query]
    return " ".join(map(shell_word, words))


def _sent_by(r: Path, instance: str, empty) -> list[str] | str:
    """The conversations of root ``r`` an instance id or credential name holding ``instance`` sent, as ``asz ls
    --instance`` keeps them (:func:`~asz_core.reading.search_hits.sent_by`); '' (every one) when not given. None
    kept: ``empty()`` printed, then exit 1 as every reader's filter that matches nothing (:func:`no_match`)."""
    if not instance:
        return ""
    from ..reading.search_hits import sent_by
    from ..view.rows import list_conversations

    kept = sent_by(r, instance)
    if not kept:
        empty()
        raise no_match("search", r, {"--instance": instance}, len(list_conversations(r)))
    return kept


def _hits(r: Path, query: str, hide, filters, kinds: list[str], limit: int, as_json: bool, held_back: bool,
          phase: list[str], given: list[str], among: list[str] | str = "") -> list[dict]:
    """Run the query over texts and print its hits (:func:`_print_hits`, or ``--held-back``'s answer) and notes; the
    hits. With no hit for a query of two words or more that conversations hold between their texts, says on stderr
    how many and how to ask for them (:func:`_across`). ``given``: the options as :func:`again` takes them. Raises as
    :func:`~asz_core.reading.search.search` does."""
    from ..reading.search import search as run_search

    t0 = time.monotonic()
    unverified, matched, held, unsearched, timeless, excluded = {}, {}, {}, [], {}, {}  # type: ignore[var-annotated]
    hits = run_search(r, query, hide=hide, filters=filters, kinds=kinds, limit=limit or sys.maxsize, unverified=unverified,
                      matched=None if as_json else matched, held=held, unsearched=unsearched, timeless=timeless,
                      excluded=excluded, conversation=among)
    took = time.monotonic() - t0
    phase[0] = "print"
    found = {h["conversation"] for h in hits}
    notes = _gap_notes(r, unverified, unsearched, timeless, found, as_json)
    notes += _unjudged(r, filters, found, held)  # as asz ls says it (recheck 25 N3)
    many = _across(r, query, hide, filters, kinds, notes, given) if not hits and not held else 0
    note = _excluded(excluded, notes)
    if as_json and not held_back:  # the command that opens each hit, as the text prints it under it (its open: line)
        _with_open(hits, opened(given))  # not in --held-back's and --conversations' answers: the page's API's own
    if as_json and held_back:
        _print_held_back(hits, unverified, held, unsearched, many, note)
    else:
        _print_hits(r, hits, sum(held.values()), notes, as_json, matched.get("hits", len(hits)), took, opened(given))
    _exit_left_out(unverified, unsearched)
    return hits


def _gap_notes(r: Path, unverified: dict[str, str], unsearched: list[dict], timeless: dict[str, int], found: set[str],
               as_json: bool) -> list[str]:
    """The notes every search form prints under its answer (``found``: the conversations it shows): a warning for each
    file left out or text never searched (:func:`_notes`, on stderr), the parts too large to land (:func:`too_large`:
    once, on stdout under the answer, and under JSON on stderr as a note; trial 37b F6), the sessions pruned (their text
    is gone: trial 15, F5) and the hits a window cannot place (:func:`_timeless`, trial 19, F25)."""
    large = too_large(r, [g for g in unsearched if g["problem"].startswith(TOO_LARGE_GAP)], found)
    _warn(notes := _notes(unverified, [g for g in unsearched if not g["problem"].startswith(TOO_LARGE_GAP)]), as_json)
    if large and as_json:  # no ! lines under JSON: said once on stderr, a note (no damage: exit 0)
        typer.echo(f"asz search: note: {large}", err=True)
    return notes + ([large] if large else []) + _pruned(r) + linked_said("search", r, "searched", "note: ") + _timeless(r, timeless)


def _excluded(excluded: dict, notes: list[str]) -> str:
    """The note of a query whose ``-word``s left out every text its other words match
    (:func:`~asz_core.reading.search_hits.excluded_note`; trial 30a F4: a pasted ``rm -rf …`` found 0 hits, silently),
    said on stderr and added to ``notes``; '' when there is none."""
    from ..reading.search import COUNT_LIMIT
    from ..reading.search_hits import excluded_note

    said = excluded_note(excluded, COUNT_LIMIT)
    if said:
        typer.echo(f"asz search: note: {said}", err=True)
        notes.append(said)
    return said


def _exit_left_out(unverified: dict[str, str], unsearched: list[dict]) -> None:
    """Exit 1 once the answer is printed when what the query should have read was left out: hits of a landed file
    that does not verify (or whose indexed rows are not its records), or a text never searched (a landed file
    missing or unreadable, a conversation with no usable round), each named by a warning (:func:`_notes`): problems
    found, as asz verify, usage and export exit on the same damage (README, Exit codes; trial 26b F4). A part too
    large to land is the record's own state (seed 000), not damage: said, exit 0."""
    from ..reading.search_gaps import TOO_LARGE

    if unverified or any(not g["problem"].startswith(TOO_LARGE) for g in unsearched):
        raise typer.Exit(1)


def _across(r: Path, query: str, hide, filters, kinds: list[str], notes: list[str], given: list[str]) -> int:
    """How many conversations hold every word of ``query`` between their texts when no one text holds them all
    (:func:`~asz_core.reading.search_convs.across`); when some do, ``N conversation(s) hold them all …`` is said on
    stderr as a note and added to ``notes`` (trial 21: ``hypothesis testing`` found 0 hits, silently, where 36
    conversations hold both words); the command named is :func:`again`'s."""
    from ..reading.search_convs import across

    n = across(r, query, hide=hide, filters=filters, kinds=kinds)
    if n:
        said = (f"no one text holds every word of {query!r}, but {n:,} conversation(s) hold them all between their texts: "
                f"{again(query, given, True, n > 20)} lists them")
        typer.echo(f"asz search: note: {said}", err=True)
        notes.append(said)
    return n


def _conversations(r: Path, query: str, hide, filters, kinds: list[str], limit: int, as_json: bool,
                   phase: list[str], given: list[str], among: list[str] | str = "") -> list[dict]:
    """``--conversations``: the conversations holding every word of ``query`` between their texts
    (:func:`~asz_core.reading.search_convs.search_conversations`), printed as JSON or a table (each conversation, then its
    best hit for each word), and the notes a hit search prints (the ``kept though --project cannot judge it`` line too,
    :func:`_unjudged`, for the rows and for the conversations of the files whose texts were held back); the rows.
    ``among``: the conversations ``--instance`` keeps (:func:`_sent_by`; '' every one)."""
    from ..reading.search_convs import search_conversations

    t0 = time.monotonic()
    unverified, matched, gaps = {}, {}, {}  # type: ignore[var-annotated]
    rows = search_conversations(r, query, hide=hide, filters=filters, kinds=kinds, limit=limit, unverified=unverified,
                                matched=matched, among=among, gaps=gaps)
    took = time.monotonic() - t0
    phase[0] = "print"
    unsearched, found = gaps["unsearched"], {c["conversation"] for c in rows}
    notes = _gap_notes(r, unverified, unsearched, gaps["timeless"], found, as_json)  # the hit search's (trial 46d F2)
    notes += _unjudged(r, filters, found, unverified)  # as the hit search says it (small26)
    if not rows:
        _excluded(gaps["excluded"], notes)
    if as_json:
        from ..reading.termtext import json_visible  # U+202E printed as \u202e (trial 34c F9)

        sys.stdout.buffer.write(json_visible(orjson.dumps(rows, option=orjson.OPT_INDENT_2)) + b"\n")
        _exit_left_out(unverified, unsearched)
        return rows
    from ..reading.ids import shown_conversation_ids
    from ..reading.termtext import visible
    from ..view.zone import local_text, zone_name

    tty, short = sys.stdout.isatty(), shown_conversation_ids(r, {c["conversation"] for c in rows})
    days = conversation_days(r, {c["conversation"] for c in rows if any(not h["at"] for h in c["hits"])})
    for c in rows:
        words = ", ".join(f"{g['query']} {g['texts']:,}" for g in c["groups"])
        typer.echo(f"{short[c['conversation']]}  {visible(listed_title(c['title']) or '(untitled)')}")
        typer.echo(f"  {c['texts']:,} text(s): {visible(words)}")
        for h in c["hits"]:
            when = local_text(h["at"], "%Y-%m-%d %H:%M") if h["at"] else days.get(c["conversation"], "-")
            typer.echo(f"  {when}  {h['kind']:<11}  {visible(h['step'] or '-')}  {visible(h['file'])}:{h['row']}")
            typer.echo(f"    {snippet_line(h, tty)}")
            if h.get("undescribed"):
                typer.echo(f"    {undescribed_line(h)}")
            if opens := open_line(short[c["conversation"]], h, opened(given)):
                typer.echo(f"    {opens}")
    if rows:
        typer.echo(f"times in {zone_name()}{DAY_NOTE if any(not h['at'] for c in rows for h in c['hits'] if c['conversation'] in days) else ''}")
    total = matched.get("conversations", len(rows))
    rest = f"; all of them: {again(query, given, True, True)}" if limit and total > limit else ""
    typer.echo(f"{len(rows):,}{f' of {total:,}' if total != len(rows) else ''} conversation(s) in {took * 1000:.0f} ms{rest}")
    for line in notes:
        typer.echo(f"! {visible(line)}")
    _exit_left_out(unverified, unsearched)
    return rows


def _with_open(hits: list[dict], where: list[str]) -> None:
    """Give each of ``hits`` its ``open`` key: the command that opens it (:func:`~asz_core.cli.conversation_step.open_command`,
    the conversation by its whole id), '' for a hit it cannot open."""
    for h in hits:
        h["open"] = open_command(h["conversation"], h, where)


def _checked(kind: str, limit: int, both: bool) -> list[str]:
    """The kinds ``--kind`` names (a comma list); exit 2 naming the option for an unknown one, a ``--limit`` below 0,
    or (``both``) ``--held-back`` with ``--conversations``, which it does not shape (never ignored silently)."""
    from ..reading.search import iter_kinds

    check_limit("search", limit, "hit")
    if both:
        typer.echo("asz search: --held-back shapes the hits' JSON; --conversations prints conversation rows and names "
                   "what was left out on stderr: give one of them", err=True)
        raise typer.Exit(2)
    try:
        return list(iter_kinds(kind))
    except ValueError as exc:
        typer.echo(f"asz search: --kind: {exc}", err=True)
        raise typer.Exit(2)


def none_kept(cmd: str, r: Path, filters, given: dict[str, str], empty=lambda: None, tail: str = "") -> None:
    """Before the query (``asz search``) or the scan (``asz secrets``): exit 1 when ``given`` (--project, --model,
    --dialect, --since, --until as typed) keep no conversation of the index (a window meets a conversation's recorded
    span: :func:`~asz_core.reading.search.conversations_kept`; trial 26b F1, F2), said as every reader says it
    (:func:`~asz_core.cli.reading_common.no_match`, then ``tail``), after ``empty()`` printed the empty answer: with
    ``asz search --json``, ``[]`` or ``--held-back``'s object with no hit, so that stdout is always JSON (trial 24b F3:
    ``0 hit(s)`` was printed before the exit 1); nothing for ``asz secrets``, whose ``[]`` and ``no credential of a
    known form found`` are the clean answer a gate with a mistyped ``--project`` must not read (exit 1 is what a gate
    stops on). An index that cannot be read: ``asz CMD: ...``, exit 1. A query with no hit in the conversations they
    keep is an answer (exit 0)."""
    if not any(given.values()):
        return
    from ..reading.search import SearchError, conversations_kept, list_conversations

    try:
        if conversations_kept(r, filters):
            return
    except SearchError as exc:
        typer.echo(f"asz {cmd}: {exc}", err=True)
        raise typer.Exit(1)
    empty()
    raise no_match(cmd, r, given, len(list_conversations(r)), tail)


def _print_held_back(hits: list[dict], unverified: dict[str, str], held: dict[str, int], unsearched: list[dict],
                     many: int, note: str = "") -> None:
    """``--json --held-back``: ``{"hits", "held_back", "partial": false, "indexing": 0, "across"}``, as
    ``/api/search?held_back=1`` answers (this command waited for any other update of the index and made its own: its
    answer is whole; ``across``: ``many``, :func:`_across`), with ``note`` when given (:func:`_excluded`)."""
    from ..reading.search_api import held_back_answer

    out = {**held_back_answer(hits, unverified, held, unsearched, 0, many), **({"note": note} if note else {})}
    from ..reading.termtext import json_visible  # U+202E printed as \u202e (trial 34c F9)

    sys.stdout.buffer.write(json_visible(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")


def _one_stream() -> bool:
    """Whether stdout and stderr are the same open file (one terminal, or ``2>&1`` into one file or pipe)."""
    try:
        return os.path.samestat(os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno()))
    except (OSError, ValueError, AttributeError):  # a stream with no file (captured): two streams
        return False


def _warn(notes: list[str], as_json: bool) -> None:
    """Each note on stderr as ``asz search: warning: …``, except where the hits' ``! `` lines print it on the same
    stream (no --json, stdout and stderr one file: a terminal): there it was read twice (trial 31b F11)."""
    if as_json or not _one_stream():
        for line in notes:
            typer.echo(f"asz search: warning: {line}", err=True)


def _notes(unverified: dict[str, str], unsearched: list[dict]) -> list[str]:
    """One line for each file whose hits were left out (``unverified``: file -> problem) and each thing the index
    could not read (``unsearched``, :func:`~asz_core.reading.search_gaps.gaps`), by file."""
    from ..reading.search import INDEX_DIFFERS
    from ..reading.search_gaps import TOO_LARGE

    out = []
    for file, problem in sorted(unverified.items()):
        if problem.endswith(INDEX_DIFFERS):  # the file verifies; the index's copy of a row does not
            out.append(f"hits in {file} left out: {problem}")
        else:
            out.append(f"hits in {file} left out: the landed file does not verify ({problem}); asz verify names the damage")
    return out + [f"{g['file']}: {g['problem']}" if g["problem"].startswith(TOO_LARGE) else
                  f"{g['file']} not searched: {g['problem']}" for g in unsearched]


def _timeless(r: Path, timeless: dict[str, int]) -> list[str]:
    """``[N hit(s) with no time … left out …]``, said on stderr as a note, when a --since/--until window left out hits
    with no time of their own whose conversation's recorded range meets the window but is not inside it (or is not
    known), so they cannot be placed in it or out of it (:func:`~asz_core.reading.search_hits.timeless_left_out`);
    else []. A timeless hit of a conversation wholly inside the window is a hit of the window, and is counted. Each
    conversation is named by its shortest prefix unique in root ``r``, as the hits are."""
    if not timeless:
        return []
    from ..reading.ids import conversation_names

    shown = conversation_names(r)  # each can be given back, as the hits name it
    named = ", ".join(f"{shown(c)} ({n:,})" for c, n in list(timeless.items())[:5])
    more = f" and {len(timeless) - 5} more" if len(timeless) > 5 else ""
    said = (f"{sum(timeless.values()):,} hit(s) with no time of their own left out by --since/--until: their "
            f"conversation's recorded range is not inside the window, so they may lie in it or not: {named}{more}")
    typer.echo(f"asz search: note: {said}", err=True)
    return [said]


def _unjudged(r: Path, filters, conversations: set[str], files: dict[str, int]) -> list[str]:
    """``[kept though --project cannot judge it: …]``, said on stderr as a note, when ``filters``' project or model kept
    conversations only because it cannot judge them (:func:`~asz_core.reading.search_hits.unjudged_hits`: those of the
    hits and of the ``files`` whose hits were held back, one of whose landed files does not verify), in ``asz ls``'s
    words (:func:`kept_note`); else []."""
    if not (filters.project or filters.model):
        return []
    from ..reading.search import index_path
    from ..reading.search_hits import unjudged_hits
    from ..reading.search_place import index_file

    from ..storage.frozen import open_read

    con = open_read(index_file(r, index_path(r)), r, timeout=30)
    try:
        kept = unjudged_hits(con, filters, conversations, files)
    finally:
        con.close()
    return kept_note("search", r, kept, filters, "searched, hits of its files that do not verify held back")


def kept_note(command: str, r: Path, conversations: list[str], filters, kept: str) -> list[str]:
    """``asz COMMAND: note: ! kept though --project cannot judge it: …`` on stderr for ``conversations`` (of root ``r``,
    one of whose landed files did not verify when indexed) that ``filters``' project or model kept only because it
    cannot judge them (:func:`~asz_core.reading.listing.unjudged_line`, the one wording of every reader; ``kept``: what
    the command did with them), and the line without its ``! `` (a note printed under the hits); [] for none."""
    from ..reading.ids import conversation_names
    from ..reading.listing import unjudged_line

    rows = [{"id": c, "state": "unverified", "held_back": True} for c in conversations]
    line = unjudged_line(rows, filters.project, filters.model, shown=conversation_names(r), kept=kept)
    if line:
        typer.echo(f"asz {command}: note: {line}", err=True)
    return [line[2:]] if line else []


def _pruned(r: Path) -> list[str]:
    """``[N session(s) of the root were removed by retention …: not searchable]``, said on stderr as a note, when
    ``asz prune`` replaced landed files of any session by skeletons (which keep no text), else []; each session named
    by its shortest prefix unique in ``r`` (:func:`~asz_core.reading.ids.session_names`)."""
    from ..reading.removed import removed_sessions

    gone = removed_sessions(r)
    if not gone:
        return []
    from ..reading.ids import session_names

    shown = session_names(r)  # each can be given back (asz conversation ID says what went)
    named = ", ".join(shown(g) for g in gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
    said = (f"{len(gone)} session(s) in this root were removed by retention (asz prune): their skeletons keep no text "
            "(only the records' labels, a runtime's title among them, kept for the structure and never shown), so they "
            f"are not searchable: {named}")
    typer.echo(f"asz search: note: {said}", err=True)
    return [said]


#: Said after ``times in ZONE`` when a hit with no time of its own is dated by its conversation (:func:`conversation_days`).
DAY_NOTE = "; (YYYY-MM-DD): a hit with no time of its own, on its conversation's day (its recorded range)"


def conversation_days(r: Path, conversations: set[str]) -> dict[str, str]:
    """``{conversation: "(2026-02-04)"}``, the day in the reader's zone of each of ``conversations`` (of root ``r``'s
    search index) whose recorded range (the index's ``from_ms``..``to_ms``) is known, for its hits with no time of their
    own: ``(A)`` when the range lies in one day, ``(A..B)`` when it crosses days (trial 36b F6: a Kiro CLI 2.x reply's
    hit read ``-`` though its conversation's day is known). {} when there are none or the index does not read."""
    if not conversations:
        return {}
    import sqlite3

    from ..reading.search import index_path
    from ..reading.search_place import index_file
    from ..storage.frozen import open_read
    from ..view.zone import local_text

    try:
        con = open_read(index_file(r, index_path(r)), r, timeout=30)
        try:
            got = con.execute(f"SELECT id, from_ms, to_ms FROM conv WHERE id IN ({','.join('?' * len(conversations))})",
                              sorted(conversations)).fetchall()
        finally:
            con.close()
    except (sqlite3.Error, OSError):
        return {}
    out = {}
    for cid, a, b in got:
        if a and b:
            first, last = local_text(a, "%Y-%m-%d"), local_text(b, "%Y-%m-%d")
            out[cid] = f"({first})" if first == last else f"({first}..{last})"
    return out


def _print_hits(r: Path, hits: list[dict], held: int, notes: list[str], as_json: bool, matched: int, took: float,
                where: list[str] = ()) -> None:
    """Print ``hits`` of root ``r`` (JSON, or three lines each and the command that opens the hit in its talk,
    :func:`~asz_core.cli.conversation_step.open_line`, with ``where``; the conversation by the shortest prefix of 8 characters
    or more that names it alone in ``r`` (trial 20, F10), and a count: ``N of M hit(s)`` when the query matches ``matched``
    texts, more than those shown; ``more than 10,000`` past the count's limit; ``(K held back: …)`` when ``held`` of
    the whole query's hits are in landed files that do not verify), then, without JSON, ``notes`` (what was left
    out or never searched, :func:`_notes`) each after ``! ``."""
    from ..reading.ids import shown_conversation_ids
    from ..reading.search import COUNT_LIMIT

    if as_json:
        from ..reading.termtext import json_visible  # U+202E printed as \u202e (trial 34c F9)

        sys.stdout.buffer.write(json_visible(orjson.dumps(hits, option=orjson.OPT_INDENT_2)) + b"\n")
        return
    from ..reading.termtext import visible
    from ..view.zone import local_text

    tty, short = sys.stdout.isatty(), shown_conversation_ids(r, {h["conversation"] for h in hits})
    days = conversation_days(r, {h["conversation"] for h in hits if not h["at"]})
    for h in hits:
        when = local_text(h["at"], "%Y-%m-%d %H:%M") if h["at"] else days.get(h["conversation"], "-")
        typer.echo(f"{short[h['conversation']]}  {when}  {h['kind']:<11}  {visible(listed_title(h['title']) or '(untitled)')}")
        again = f"  repeats {visible(h['repeats'])}'s record (drawn and counted there)" if h.get("repeats") else ""
        sent = f"  sent by {visible(h['sender'] or '(no instance id)')}" if "sender" in h else ""
        typer.echo(f"  {visible(h['step'] or '-')}  {visible(h['file'])}:{h['row']}{sent}{again}")
        typer.echo(f"  {snippet_line(h, tty)}")
        if h.get("undescribed"):
            typer.echo(f"  {undescribed_line(h)}")
        if opens := open_line(short[h["conversation"]], h, list(where)):
            typer.echo(f"  {opens}")
    total = f"more than {COUNT_LIMIT:,}" if matched > COUNT_LIMIT else f"{matched:,}"
    of = f"{len(hits):,} of {total}" if matched != len(hits) else f"{len(hits):,}"
    left = f" ({held:,} held back: the landed files they were indexed from do not verify, named below)" if held else ""
    if hits:
        from ..view.zone import zone_name

        typer.echo(f"times in {zone_name()}{DAY_NOTE if any(not h['at'] and h['conversation'] in days for h in hits) else ''}")
    typer.echo(f"{of} hit(s){left} in {took * 1000:.0f} ms")
    for line in notes:
        typer.echo(f"! {visible(line)}")




def undescribed_line(hit: dict) -> str:
    """The line under an ``undescribed`` hit's snippet: the record's bytes were searched as its dialect kept them,
    undescribed, and why (with the U+FFFD note when they were not valid UTF-8; trial 47c F2)."""
    from ..reading.termtext import visible

    return f"undescribed record, searched as its kept bytes: {visible(hit['undescribed'])}"


def _empty_answer(as_json: bool, held_back: bool):
    """What ``asz search`` prints on stdout when its filters match nothing (:func:`none_kept`): with ``--json``,
    ``[]`` or, with ``held_back``, ``--held-back``'s object with no hit; else nothing."""
    if as_json and held_back:
        return lambda: _print_held_back([], {}, {}, [], 0)
    return (lambda: sys.stdout.buffer.write(b"[]\n")) if as_json else (lambda: None)


def register(app: typer.Typer) -> None:
    """Add ``search`` and ``secrets`` (:mod:`asz_core.cli.secrets_cmd`) to ``app``."""
    from .secrets_cmd import secrets

    app.command("search", cls=SearchCommand)(search)
    app.command("secrets")(secrets)
