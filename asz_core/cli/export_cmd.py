"""``asz export``: one conversation, a project or a date range as Markdown, HTML, asz.view JSON, prose (issue 20) or
the audit form as plain text (``--format text``, trial 27b F4)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional

import typer

from .echo import stderr_outlived
from .export_folder import EXT, Changes, close_folder, interrupted_line, open_folder, write_one
from .export_made import STREAM_RULE, copy_manifest, made, render, stream_manifest
from .export_pool import Drawer
from .export_said import (form_asked, say_thinking, say_unread, MODEL_CONTEXT_TOKENS, PROSE_FORMS, closing_lines, filter_warnings, out_folder, over_budget,
                          stdout_note, window_file_over)
from .export_write import file_to, lines_written, said_path, stream_to, to_stdout, write_parts
from .jobs import usage_error
from ..reading.export_cut import DEFAULT_LIMIT, cut_at, results_cut
from ..storage.out_path import NotRegular
from .out_named import refused
from .reading_common import CONFIG_HELP, ROOT_HELP, fail_id, linked_said, make_filters, refuse_empty_id, no_match, settings, time_range, tz_option, use_tz

FORMATS = ("md", "html", "json", "prose", "text")
#: Suffixes that name a file, not a folder: several html or json conversations' --out with one is refused.
FILE_SUFFIXES = frozenset(f".{e}" for e in EXT.values())


def _usage(message: str) -> typer.Exit:
    """``asz export: MESSAGE`` on stderr; the exit (2) to raise (:func:`~asz_core.cli.jobs.usage_error`)."""
    return usage_error("export", message)


class Prose:
    """What a prose export gathers across conversations: source bytes (``raw``), the turns, the source line reader and its stats."""

    def __init__(self, source: list[Path], config: Optional[Path], audit: bool = False,
                 window: Optional[tuple[Optional[int], Optional[int]]] = None, redact: Optional[bool] = False,
                 in_range_only: bool = False, brief: bool = False, whole: bool = False,
                 max_tokens: int = MODEL_CONTEXT_TOKENS, split_parts: bool = False, shared: bool = False):
        from ..reading.prose import ProseStats, SourceLines

        #: ``--max-tokens``: the budget of one written file, in tokens (bytes ÷ 4); ``--split``: an audit file over it
        #: written in parts (asz_core.reading.export_parts), the last render's in ``parts`` ([] when it fits);
        #: ``part``: the part whose manifest is being written (its ``made``); ``over``: stderr's lines on files over it
        self.max_tokens, self.split_parts = max_tokens, split_parts
        self.parts: list[bytes] = []
        self.part: Optional[int] = None
        self.over: list[tuple[str, int, str]] = []  # (file, bytes, advice): export_said.over_lines

        #: ``--brief``: md in the brief form (asz_core.reading.export_brief); ``index``: the index page each html page
        #: of a folder export links back to ('' for one conversation); ``whole``: json's clipped texts put back whole;
        #: ``linked``: the ids of a folder export's conversations, ``linked_used`` those the last copy linked (render 26)
        self.brief, self.index, self.whole, self.linked, self.linked_used = brief, "", whole, frozenset(), set()
        #: json's clipped texts, ``(put back whole, still clipped)`` per conversation, when said once for all (a
        #: folder export: :func:`~asz_core.cli.export_said.clips_line`; trial 31b F6); None: said per conversation
        self.clips: Optional[list[tuple[int, int]]] = None
        #: md and html heads' thinking blocks left out, ``(with a text, removed by retention)`` per conversation, when
        #: said once for all (a folder export: :func:`~asz_core.cli.export_said.thinking_line`; trial 43c F8); None:
        #: said per conversation
        self.thinking_left: Optional[list[tuple[int, int]]] = None

        #: ``--audit``: the audit form (asz_core.reading.prose_audit); ``window``: ``--since``/``--until`` in unix ms
        self.audit, self.window = audit, window
        #: ``--in-range-only``: lines outside the window left out; the window's lines by ``in_range``: True, False,
        #: None (no time), counted before any is left out
        self.in_range_only = in_range_only
        self.placed = {True: 0, False: 0, None: 0}
        #: ``--redact``: every format's credentials masked (asz_core.view.secret_forms); the fingerprints of those masked
        #: ``shared``: md or html, the forms meant to be shared, which mask by default too (trial 34c F8)
        self.redact, self.redacted, self.shared = ((audit or shared) if redact is None else redact), [], shared
        #: ``--redact`` (True), ``--no-redact`` (False) or neither (None: the form's default, which masks with ``--audit``, md and html);
        #: without masking ``redacted`` gets the fingerprints of those written whole (said on stderr)
        self.redact_said: Optional[bool] = redact
        from ..view.secret_forms import Masker

        #: masks (or with ``redact`` False only counts, in ``redacted``) each text before it is placed (trial 25b F1)
        self.masker = Masker(self.redact, self.redacted)
        #: masking on: where the masks of the conversation last rendered stand (its manifest's ``masks``) and the
        #: manifests written with their own SHA-256 (:func:`_manifest`)
        self.masks: list[dict] = []
        self.manifests: list[tuple[Path, str]] = []
        #: masking on: what the last render gathered; each conversation of one stream with it (export_made.stream_manifest)
        self.seen, self.streamed = [], []  # type: list, list[tuple[str, list]]
        #: each conversation's manifest entry (export_manifest.evidence) of the document its md, html or json copy was
        #: rendered from: built again only for a prose form (trial 40c F6: a 100,003-step document was built twice)
        self.evidence: dict[str, dict] = {}
        #: the audit form: the fingerprints of the credentials found in parts it leaves out and in no line written
        self.unwritten: set[str] = set()
        #: prose: the bytes written (every line, header lines included); ``split``: written one file per conversation
        #: (``--out DIR``, or one conversation); ``outside``: conversations ``--in-range-only`` left out, no line in the window
        self.written, self.split, self.outside = 0, False, set()  # type: int, bool, set[str]
        self.raw: list[int] = []
        self.turns: list[dict] = []
        self.stats = ProseStats()
        self.lines = SourceLines(_source_roots(source, config))
        self.config = config  # the audit header's prices (its figures: asz_core.reading.audit_usage)

    @functools.cached_property
    def table(self):
        """The table of ``config`` (asz.yaml's ``prices`` on the shipped one) every cost of the export is priced by, as
        ``asz conversation`` and ``asz ls`` price them; read once; exit 2 on a bad file (:func:`~.configured.config_prices`)."""
        from .configured import config_prices

        return config_prices(self.config, "asz export")


def _source_roots(source: list[Path], config: Optional[Path]):
    """``adapter name -> [source folder]`` for prose, each looked in for a landed record's ``src`` in order: the
    ``--source`` folders (each time given) for every adapter; else an adapter's configured ``source_root`` (and a
    list's further folders), else its default folders (:meth:`~asz_core.plugins.adapter.Adapter.default_source_roots`:
    Claude Code's ``projects`` of each configuration folder holding sessions, as ``asz collect`` reads them)."""
    if source:
        return lambda name: list(source)

    def of(name: str) -> list[Path]:
        from ..config import load_config
        from ..plugins import get_plugin_manager
        from .jobs import adapter_default_folders

        try:
            entry = load_config(config).adapter(name)
            adapter = get_plugin_manager().get(name)
            adapter.configure(entry)
            if entry.source_root:
                return [Path(entry.source_root), *map(Path, entry.more_source_roots)]
            return adapter_default_folders(adapter)
        except Exception:  # an adapter this install lacks, or a configuration that does not load: no source line
            return []

    return of


def render_bytes(root: Path, cid: str, fmt: str, hide: list[str], thinking: bool, prose: Prose) -> tuple[bytes, list[str]]:
    """One conversation as :func:`asz_core.cli.export_made.render` gives it, without recording where masks stand.

    A conversation "does not verify" when its document's state is not ``verified``: ``mismatch`` (a landed file's
    closing line does not bind its bytes, a line does not read, a round does not match its landed files) or
    ``incomplete`` (a landed file or a round is missing); for prose, when a landed transcript file does not verify
    (its records give no turn) or a landed file or a round is missing (as the document says it)."""
    if fmt in PROSE_FORMS:
        from ..reading.prose import prose_turns

        before, missing = len(prose.stats.unverified), len(prose.stats.missing)
        audit = _audit(cid, thinking, prose, plain=fmt == "text")
        try:
            turns = prose_turns(root, cid, hide=hide, thinking=thinking, raw=prose.raw, lines=prose.lines, stats=prose.stats,
                                audit=audit, evidence=prose.evidence)
        finally:
            prose.lines.close()  # a conversation's source files are its own
        row = None
        if audit is not None or prose.window is not None:  # the header's row; the range timeless lines are placed by
            from ..reading.listing import conversation_rows
            from .conversations_cmd import with_senders

            row = next(iter(with_senders(root, list(conversation_rows(root, hide, ids=[cid])), "")), None)  # + senders
        from ..reading.export import build
        from ..reading.prose_audit import masked_lines, turn_at  # the audit form's: from the document it built

        turns = _windowed(turns, prose, audit, row, lambda: audit.turn_at if audit else turn_at(build(root, cid, hide)))
        written = masked_lines(turns, prose.masker)
        if fmt == "text" and audit is not None:  # a command as typed, its output as md reads it (render 6)
            audit.as_typed(turns)
        say_unread(cid, prose.stats.thinking_unread if thinking and turns else 0, prose.stats.thinking_redacted)  # not of a conversation left out
        prose.turns.extend(turns)
        bad = prose.stats.missing[missing:] + [f"landed file {x}; its records give no turn" for x in prose.stats.unverified[before:]]
        if prose.in_range_only and not turns:  # every line outside the window: not written (trial 22a, F17)
            prose.outside.add(cid)
            return b"", bad
        if audit is not None:
            figures = _figures(root, cid, hide, prose)
            if prose.in_range_only:  # the window's header, from its records only (a closed day's stays byte for byte)
                from ..reading.audit_window import window_head
                from .conversations_cmd import conversation_senders

                row, figures = window_head(row, turns, figures, lambda files: conversation_senders(root, cid, files),
                                           audit.turn_at, audit.companions, audit.title, audit.relayed)
            turns = [prose.masker.tree(audit.header(row, turns, bad, figures, written)), *turns]
            prose.unwritten |= set(audit.unwritten) - set(written)
        data = lines_written(turns, fmt)
        prose.parts = []
        if prose.split_parts and audit is not None and len(data) // 4 > prose.max_tokens:
            from ..reading.export_parts import split_lines

            prose.parts = split_lines(turns, lambda lines: lines_written(lines, fmt), prose.max_tokens)
        return data, bad
    from ..reading.export import problems_of, to_html, to_markdown
    from ..view import to_json
    from ..reading.export_title import built_evidence

    # priced as asz conversation prices it (one table); the manifest's entry of the document rendered, with its title's source
    doc, prose.evidence[cid] = built_evidence(root, cid, hide, prose.table)
    bad = problems_of(doc)  # mismatch or incomplete (trial 2, finding 7)
    if fmt == "json":
        _json_texts(root, cid, doc, prose.whole, prose.clips)
        from ..reading.export_steps import masked_document

        masked_document(root, doc, prose.masker)
        from ..reading.termtext import json_visible

        return json_visible(to_json(doc)) + b"\n", bad  # U+202E and C1 as JSON escapes (trial 34c F9)
    say_thinking(cid, doc, thinking, fmt in ("md", "html") and not prose.brief, prose.thinking_left)
    prose.masker.tree(doc.get("summary"))  # the head's texts (its title is masked already, as every title is)
    if fmt == "html":
        return to_html(root, doc, thinking=thinking, index=prose.index, mask=prose.masker, prices=prose.table).encode("utf-8"), bad
    if prose.brief:
        from ..reading.export_brief import to_brief

        return to_brief(root, doc, thinking=thinking, mask=prose.masker).encode("utf-8"), bad
    return to_markdown(root, doc, thinking=thinking, index=prose.index, mask=prose.masker, prices=prose.table).encode("utf-8"), bad


def _figures(root: Path, cid: str, hide: list[str], prose: Prose) -> dict:
    """The audit header's calls, tokens, cost and credits of ``cid`` (and those in the window), as ``asz usage
    session`` gives them, priced by the configuration's table (:func:`~asz_core.reading.audit_usage.usage_figures`)."""
    from ..reading.audit_usage import usage_figures

    return usage_figures(root, cid, hide, prose.table, prose.window, prose.in_range_only)


def _json_texts(root: Path, cid: str, doc: dict, whole: bool, clips: Optional[list] = None) -> None:
    """``--format json``: with ``--whole`` the texts the document clipped put back whole where the landed records give
    them exactly (:func:`~asz_core.reading.export_steps.whole_texts`); stderr counts those still clipped (the
    document's rule, said rather than silent: trial 16b, F10), or ``clips`` gets the counts (said once for a folder)."""
    from ..reading.export_steps import clipped, whole_texts

    put, cut = whole_texts(root, doc) if whole else (0, clipped(doc))
    if clips is not None:
        clips.append((put, cut))
        return
    if put:
        typer.echo(f"asz export: note: {cid}: {put:,} text(s) the asz.view document clipped at 2,000 bytes are whole "
                   "(--whole)", err=True)
    if cut:
        typer.echo(f"asz export: note: {cid}: {cut:,} text(s) of the asz.view document are clipped at 2,000 bytes "
                   "(each node's bytes gives the whole size); " + ("a talk's label, reply and prompt stay clipped "
                   "with --whole" if whole else "--whole puts them back whole; --format md, html or prose give texts "
                   "whole"), err=True)


def _windowed(turns: list[dict], prose: Prose, audit, row: dict | None, at) -> list[dict]:
    """``turns`` marked ``in_range`` against ``prose.window`` (the audit form marks its own; a line with no time of its
    own at ``at()``, :func:`~asz_core.reading.prose_audit.place_by_turns`, else by its conversation's list ``row``'s
    range, ``place_timeless``) and counted in ``prose.placed``; with ``--in-range-only`` those outside it (``in_range``
    false) are left out, the audit header's ``left_out`` says how many lie before the window (``before_window``) and
    its title is the window's (``windowed_title``). Without a window, ``turns`` as they are."""
    if prose.window is None:
        return turns
    from ..reading.audit_window import before_window, mark_in_range, place_by_turns, place_timeless, windowed_title

    if audit is None:
        mark_in_range(turns, prose.window)
    place_by_turns(turns, prose.window, at)
    if row is not None:
        place_timeless(turns, prose.window, (row.get("from"), row.get("to")))
    for t in turns:
        prose.placed[t["in_range"]] += 1
    if not prose.in_range_only:
        return turns
    kept = [t for t in turns if t["in_range"] is not False]
    prose.stats.keep_only(turns, kept, prose.window)  # stderr names the rows written only
    if audit is not None:
        windowed_title(audit, turns, row, prose.window)
        span = (row or {}).get("from"), (row or {}).get("to")
        audit.left_out["before_window"] = before_window([t for t in turns if t["in_range"] is False], prose.window, span)
    return kept


def _audit(cid: str, thinking: bool, prose: Prose, plain: bool = False):
    """The audit form's reader of ``cid`` (``plain``: ``--format text``'s PlainAudit), or None without ``--audit``."""
    if not prose.audit:
        return None
    from ..reading.prose_audit import Audit
    from ..reading.prose_text import PlainAudit

    return (PlainAudit if plain else Audit)(cid, thinking, prose.window, prose.in_range_only, prose.redact)


def warn_unverified(cid: str, bad: list[str]) -> None:
    """Say on stderr that conversation ``cid`` was exported although its evidence does not verify, one line per problem."""
    for line in bad:
        typer.echo(f"asz export: warning: {cid} does not verify: {line}", err=True)
    if bad:
        typer.echo(f"asz export: warning: {cid} was written without what is missing or does not verify "
                   "(the export names it); `asz verify` names the damage; exit 1", err=True)


def one_stream_file(out: Optional[Path], fmt: str) -> bool:
    """True when several conversations' ``--out`` names one file rather than a folder: md, prose or text (the formats
    that go to stdout as one stream), a path ending in the format's suffix (``.md``, ``.jsonl``, ``.txt``), no folder."""
    return out is not None and fmt in ("md", *PROSE_FORMS) and out.suffix.lower() == f".{EXT[fmt]}" and not out.is_dir()


def _many(r: Path, rows: list[dict], fmt: str, hide: list[str], thinking: bool, out: Optional[Path], prose: Prose,
          unplaced: list[dict], stream=None) -> tuple[int, int]:
    """Export ``rows``; ``(conversations written, those that do not verify or were not exported)``. A conversation with
    no usable round is not exported: one warning line on stderr names it and why, the others are still written, and
    the index lists it as not exported with the reason, as it lists ``unplaced`` (rows a --since/--until window
    could not place: they have no times; said on stderr by the caller). With ``out`` None they go as one stream to
    ``stream`` (a binary file; default stdout), with no index page."""
    from ..reading.progress import Bar
    from ..view.document import ViewError

    files: dict[str, str | list[str]] = {row["id"]: f"{row['id']}.{EXT[fmt]}" for row in rows + unplaced}
    prose.split, prose.linked = out is not None, frozenset(row["id"] for row in rows) if out is not None else frozenset()
    resume, flagged = None, set()  # flagged: conversations whose export warned: the index marks them
    from ..reading.listing import unplaced_why

    skipped = {row["id"]: unplaced_why(row) for row in unplaced}  # id -> why not exported
    bar = Bar("export", len(rows), unit="conversation(s)")
    replaced: list[str] = []  # files of an earlier export this one replaced: said, never silent (trial 12)
    changes = Changes()
    try:
        if out is not None:  # no folder manifest until the index is written, a killed export's .part files gone, its
            # partial manifest read: what is whole there already is not made again (trial 31b F13)
            resume = open_folder(r, out, fmt, prose, lambda: made(prose, fmt, hide, thinking), thinking, files, prose.replace)
        draw = Drawer(r, [x["id"] for x in rows] if out is not None else [], fmt, hide, thinking, prose, resume)  # ahead
        with bar:
            for row in rows:
                if resume is not None and resume.already(row, str(files[row["id"]]), prose, fmt):
                    bar.advance(row["id"][:8])  # whole in the folder, made from what is unchanged: not made again
                    continue
                mark = resume.mark(prose) if resume is not None else (0, 0)
                try:
                    data, bad = draw(row["id"])
                except (ViewError, LookupError) as exc:
                    skipped[row["id"]] = str(exc)
                    typer.echo(f"asz export: warning: {row['id']} not exported: {exc}", err=True)
                    bar.advance(row["id"][:8])
                    continue
                if bad:
                    flagged.add(row["id"])
                    warn_unverified(row["id"], bad)
                if row["id"] in prose.outside:  # --in-range-only: no line in the window, nothing written
                    bar.advance(row["id"][:8])
                    continue
                if out is None:
                    data += STREAM_RULE if fmt == "md" else b""
                    if stream is not None:
                        stream.write(data)
                        prose.streamed += [(row["id"], prose.seen if prose.redact else [])]
                    else:
                        to_stdout(data, fmt)
                elif prose.parts:  # --split: over --max-tokens, written in parts that each fit
                    files[row["id"]] = write_parts(r, row["id"], out, fmt, hide, thinking, prose, replaced)
                else:  # left as it is when made byte for byte again (trial 31b F3)
                    write_one(r, row["id"], out, str(files[row["id"]]), data, fmt, hide, thinking, prose, replaced, changes)
                    over_budget(prose, out / files[row["id"]], len(data), fmt)
                    if resume is not None and not bad:  # whole in the folder: its partial manifest line
                        resume.wrote(row, str(files[row["id"]]), data, prose, mark)
                bar.advance(row["id"][:8])
        rows = [x for x in rows if x["id"] not in prose.outside] + unplaced  # the index lists these too, as not exported
        if out is not None:  # what it did, the index page, then the folder's own manifest (trial 31b F2)
            close_folder(out, fmt, rows, {k: v for k, v in files.items() if k not in prose.outside}, flagged, skipped,
                         prose, replaced, changes, resume, made(prose, fmt, hide, thinking), (r, hide))
    except KeyboardInterrupt:  # said once the bar is gone (said on its line, the bar's last draw cut or wiped it)
        if stream is not None:  # one file: left as it was (_stream_to)
            typer.echo(f"asz export: interrupted after {bar.done} of {len(rows)} conversations (nothing written to "
                       f"{getattr(stream, 'name', 'the file')[:-len('.part')]})", err=True)
            raise typer.Exit(130)
        typer.echo(interrupted_line(out, bar.done, len(rows), resume), err=True)
        raise typer.Exit(130)
    finally:
        if resume is not None:  # the folder's lock: the next export into it goes on
            resume.release()
    return len(rows) - len(skipped), len(flagged) + len(skipped) - sum(x.get("state") == "verified" for x in unplaced)


def _one(r: Path, given: str, fmt: str, hide: list[str], thinking: bool, out: Optional[Path], prose: Prose) -> int:
    """Export the conversation ``given`` names (an id or a unique prefix); 1 when it does not verify (warned), else 0."""
    from ..reading.ids import IdError, conversation_id as resolve
    from ..view.document import ViewError

    prose.split = True  # one conversation: the file cannot be split further
    try:
        cid = resolve(r, given)
        data, bad = render(r, cid, fmt, hide, thinking, prose)
    except IdError as exc:
        raise fail_id("export", exc)
    except (ViewError, LookupError) as exc:
        typer.echo(f"asz export: {exc}", err=True)
        raise typer.Exit(1)
    if out is None:
        to_stdout(data, fmt)
        stdout_note(prose, EXT[fmt])  # one conversation too (trial 31b F10: only several said it)
    else:
        file_to(out, data, lambda: copy_manifest(r, cid, out, data, fmt, hide, thinking, prose))  # its folder exists
        over_budget(prose, out, len(data), fmt, one=True)  # --split refused here: said how to ask for it
    warn_unverified(cid, bad)
    return 1 if bad else 0


def export(
    conversation_id: Optional[str] = typer.Argument(None, metavar="[ID]", help="A conversation id, or a unique prefix of one."),
    project: str = typer.Option("", "--project", help="Every conversation whose project contains this (case-insensitive)."),
    since: str = typer.Option("", "--since", help="Every conversation active since: YYYY-MM-DD or YYYY-MM (a whole month), in --tz; an RFC 3339 instant, 30m/12h/7d/2w back, or today/yesterday (a calendar day in --tz)."),
    until: str = typer.Option("", "--until", help="… and active until (same forms; a date counts to its end, a month to its last day)."),
    tz: Optional[str] = tz_option(),
    instance: str = typer.Option("", "--instance", help="In a root asz receive landed: every conversation sent by an instance id (service.instance.id, e.g. dev@hostA) or token credential name containing this (case-insensitive), as asz ls --instance keeps them; with --since/--until, --project, those of them."),
    fmt: Optional[str] = typer.Option(None, "--format", show_default=False, help="md (Markdown, the default; prose with --audit), html (one self-contained page), json (the asz.view document, whose texts are clipped at 2,000 bytes with bytes giving the whole size; stderr counts them), prose (JSONL per turn) or text (the audit form as plain text for a model: a short key: value header, each line as [TS] KIND then its text, a tool call's nested input as key: value lines, no JSON; masked, windowed and counted as --audit); md, html, prose and text give texts whole."),
    thinking: bool = typer.Option(False, "--thinking", help="Add the model's reasoning (md, html, prose)."),
    out_given: Optional[Path] = typer.Option(None, "--out", path_type=str, help="Write here: a file for one conversation (a folder export when it ends in / or is a folder: made when missing, never its parents), a folder (with an index page) for several, or for several as md, prose or text a FILE.md, FILE.jsonl or FILE.txt that gets the one stream stdout would; a file already there is replaced, and stderr says so (asz export: replaced …); a symbolic link to a file is written through, the link kept; - is stdout; a FIFO, a device (/dev/null), a socket or a link to one is refused, exit 2, nothing written; one conversation's FILE with another format's suffix (html into x.md) is exit 2, and so is one whose suffix is not the format's own when nothing chose the format (chat.pdf: md by default), which when chosen (--format, --brief, --audit) is written as asked and warned of."),
    redact: Optional[bool] = typer.Option(None, "--redact/--no-redact", show_default=False, help="Mask every credential of a known form (asz secrets lists the forms) in what is written, the index page included; credentials only: names, e-mail addresses, phone numbers and other personal data stay as written (docs/reading.md, Credentials): its first and last 4 characters kept (a password, a token given to a name, Basic credentials, mysql's -p and curl's -u passwords: ***), a PEM private key's lines left out; stderr counts them. The default with --audit and --format text (a file for a model) and with md and html (the forms meant to be shared); --no-redact keeps them whole there. Unmasked, stderr counts those written whole (any format: a note naming --redact when there are some). Every copy written to a file (--out FILE, or each file of --out DIR), masked or not, gets FILE.manifest.json beside it (the copy's SHA-256, the head round and landed files' digests, the asz version, window and time zone, and each mask's place and form), which asz verify --export FILE checks; stderr gives the manifest's own SHA-256 to pass on another channel."),
    audit: bool = typer.Option(False, "--audit", help="prose (implied when --format is not given; --format text writes it as plain text; another --format is refused): the audit form (docs/reading.md): every line gets a kind (prompt, prompt_blocks, interrupt, injected, subagent_prompt, compaction_summary, command_output, reply, thinking, …; an error step's line api_error or run_failed, its text bounded as a failed call's); the person turns the default prose leaves out (a user line whose content is a list) are kept (kind prompt_blocks or interrupt, an image as [image: TYPE, N bytes]); one line per tool call (kind tool_call: tool, its input masked, then cut at 200 characters, status ok/error/refused/interrupted/no_result (error: also its error text, at most 1,000 bytes, and the bytes left out), with --in-range-only no_result_in_window when its result is not inside the window, and the window its result lands in has a line of kind tool_result: the call's tool and text, call_ts when it was made, its status and error; a call asz hook's execution record is joined to also executed: its server, outcome and how it failed, as md says it); one header line per conversation (kind conversation: title, project, branch, models, from, to, state, problems, errors (as asz ls says them), left_out (edit_contents: the Edit/Write calls whose file contents are left out); an asz hook execution record joined to no tool call is a line of its own (kind tool_execution: its tool, status and how it failed), credentials (those written, and those found in the parts left out: tool results, thinking), and calls, tokens, cost (then cost_by_kind_line: what each kind of token cost and its share, as asz conversation says it) and credits as asz usage session counts them, with --since/--until also in_window: those of the calls made in the window; with --in-range-only the window's header: from, to, models, senders and in_window of its records only, status_read, no whole-conversation figures, so a closed day's file stays byte for byte); streams interleaved by time; with --since/--until an in_range key on each line. The default prose's lines are all there, their keys and values unchanged. Credentials are masked as --redact masks them (--no-redact keeps them whole); stderr counts them. Credentials only: names, e-mail addresses and phone numbers stay as written."),
    brief: bool = typer.Option(False, "--brief", help="md (implied when --format is not given; another --format is refused): the brief form (docs/reading.md), to hand a model or a colleague: the person's words and the agent's replies whole, each tool call on one line (what it acts on, failed, the size of its result), a compaction or runtime notice as its label; tool results, injected context, compaction summaries, runtime records and command output left out, each talk and the header saying how many and how many bytes."),
    result_limit: Optional[int] = typer.Option(None, "--result-limit", min=0, metavar="BYTES", show_default=False, help=f"md and html: a tool result over BYTES of UTF-8 is drawn cut, its first lines (about three quarters of BYTES) and its last (a quarter), whole lines, and between them a line saying its size in bytes and lines, what is drawn and left out, and that the whole is in the root (asz show) and in --format json --whole; the manifest records it and asz verify --export makes the copy again so. Default {DEFAULT_LIMIT:,} (Claude Code's own cut of a shell's output: most results are whole); 0 draws every result whole."),
    whole: bool = typer.Option(False, "--whole", help="json: each text the asz.view document clipped at 2,000 bytes put back whole from the landed records, where they give exactly the text clipped (its size the node's bytes); stderr counts those put back and those still clipped (a talk's label, reply and prompt)."),
    in_range_only: bool = typer.Option(False, "--in-range-only", help="prose or text with --since/--until: leave out the lines whose time is outside the window (in_range false; a line with no time of its own is placed by its conversation's recorded range, as asz search places a hit, and stays when that range crosses an end of the window, in_range null), and a conversation with no line left (stderr counts those). Without it every line of a matched conversation is written, each with in_range, and stderr counts those outside."),
    max_tokens: int = typer.Option(MODEL_CONTEXT_TOKENS, "--max-tokens", metavar="N", min=1, help="The token budget of one written file (bytes ÷ 4; default 200,000, a Claude model's context): prose, text or md written over it is warned about, file by file (asz export: warning: FILE is … tokens …)."),
    split: bool = typer.Option(False, "--split", help="With --out DIR/ and the audit form (--audit or --format text): a conversation whose file is over --max-tokens is written in parts that each fit, ID.part1.EXT, ID.part2.EXT, …, each beginning with the conversation's header line (with part: '2 of 3: lines …') and holding whole lines only."),
    replace: bool = typer.Option(False, "--replace", help="With --out DIR/: remove the files an earlier export into DIR wrote (its manifest lists them) that this one does not make again (other conversations, another format's copies, its index page), and nothing else; without it such a folder is refused (exit 1, nothing written). The same export again needs no --replace."),
    source: list[Path] = typer.Option([], "--source", help="prose: a source folder the conversations were collected from, again for each further folder, looked in in order (default: each adapter's configured or default folders, as asz collect reads them: Claude Code's every projects folder holding sessions), read where a landed record cannot tell a string from a list (a file landed before claude-code-local 0.2.0)."),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Export one conversation (ID), or every conversation of a project or date range, withholding view.hide as the page does; an ID with --since/--until exports that conversation's window.

    Without --out one conversation (and several as md, prose or text) goes to stdout; html and json of several need --out DIR, which gets one file per
    conversation and an index page linking them (index.html, index.md, or
    index.json for json) with each one's verification state, marking those
    that do not verify. Several as md, prose or text with --out FILE.md,
    FILE.jsonl or FILE.txt (the format's suffix; not a folder already there) write the
    stream stdout would get into that one file, whole or not at all; any
    other --out of several is a folder. prose prints one JSON object per turn (person
    prompts as typed and model text, no tool blocks; a user
    line counts only when its content is a string: --audit keeps the others) and on stderr a token
    estimate of prose against the raw records. A landed record of one text
    part may have been a string or a one-block list: a file landed by
    claude-code-local 0.2.0 or later says which in the record; for an
    earlier one prose reads that line from the source (--source, else the
    adapter's source folders, each looked in) and says on stderr how many it had to keep
    without it. A conversation whose evidence
    does not verify (state mismatch: a landed file's closing line does not bind
    its bytes, a line does not read, a round does not match its landed files;
    state incomplete: a landed file or a round is missing) is still written,
    with the text of such a file held back and marked in its place, and stderr
    gets `asz export: warning: ID does not verify: …` naming each file, round
    and problem; prose, which reads the landed files without the document,
    says a missing landed file or round in the same words. Of several, one
    with no usable round is not exported: one stderr line names it and why,
    the others are written and the index lists it as not exported with the
    reason, as it lists one --since/--until cannot place (no usable round, so
    no times; one stderr line names them). --out's folder must exist (--out DIR itself is made when missing, never
    its parents); one conversation's --out DIR/ (a trailing slash, or a folder already there) is a folder export too: its file, the index page and the folder manifest. Exit 0 written, 1 a root that does not exist, an --out that cannot be written (its folder missing,
    no permission, a folder holding another export's files without --replace, a file another asz export is writing), an unknown id, filters no conversation matches (said before what several need; nothing written; but a --since/--until window alone into a folder that no conversation has a record in is a quiet day: an empty set, its index and manifest, exit 0), a conversation with
    no usable round, or one written that does not verify, 2 usage (an
    ambiguous prefix, an empty ID, no ID and no filter, an ID with --project or --instance, a bad format, several as html or
    json with an --out ending in .html, .json, .md, .jsonl or .txt: they go into a folder; one conversation's --out FILE ending in another format's suffix, or without --format in one not the format's own (chat.pdf); an --out that is a FIFO, a device, a socket or a link to one: nothing written, docs/reading.md, What --out may name).
    """
    chosen, fmt = fmt is not None or brief or audit, form_asked(fmt, audit, brief, in_range_only, bool(since or until), whole, result_limit)
    refuse_empty_id("export", conversation_id)
    many = bool(project or since or until or instance)
    if conversation_id is not None and (project or instance):  # an ID with --since/--until: its window (trial 27b F10)
        raise _usage("give an ID or --project/--instance, not both (an ID takes --since/--until: its window)")
    if conversation_id is None and not many:
        raise _usage("give a conversation ID, or --project P / --since D / --instance I to export several")
    zone = use_tz("export", tz)
    r, hide = settings("export", root, config)  # a root that does not exist: exit 1, said as every reader says it
    out, folder = out_folder(out_given, fmt, conversation_id is not None and not many, chosen)  # no parent: exit 1; a FIFO: 2
    _refuse_split(split, conversation_id is not None and not many, audit or fmt == "text", out, fmt)
    prose = Prose(source, config, audit or fmt == "text", time_range("export", since, until, zone) if since or until else None,
                  redact, in_range_only, brief, whole, max_tokens, split, shared=fmt in ("md", "html"))
    prose.replace = replace  # --out DIR/: an earlier export's files this one does not make removed (trial 37a F3)
    with stderr_outlived(out is not None), results_cut(cut_at(fmt, brief, result_limit)):  # 39c F3; 49b F2
        if conversation_id is not None and not many and not folder:
            unverified = _written(out, lambda: _one(r, conversation_id, fmt, hide, thinking, out, prose))
        else:
            unverified = _several(r, project, since, until, zone, fmt, hide, thinking, out, prose, instance, conversation_id)
        closing_lines(fmt, prose)
    if unverified:
        raise typer.Exit(1)


def _refuse_split(split: bool, one: bool, audit: bool, out: Optional[Path], fmt: str) -> None:
    """Exit 2 when ``--split`` (``split``) was given where it cannot write parts: ``one`` conversation without a window,
    not the ``audit`` form, or no folder ``out`` (stdout or one stream file)."""
    if split and (one or not audit or out is None or one_stream_file(out, fmt)):
        raise _usage("--split writes parts of the audit form (--audit or --format text) into a folder: give "
                     "--since/--until (with an ID: that conversation's window), --project or --instance, and --out DIR/")


def _several(r: Path, project: str, since: str, until: str, zone, fmt: str, hide, thinking: bool, out: Optional[Path],
             prose: "Prose", instance: str = "", given: Optional[str] = None) -> int:
    """Export every conversation the filters match (:func:`export` without an ID, or ``given``, an ID or unique prefix,
    with its window); how many do not verify or could not be exported. Raises typer.Exit (1 no match or an unknown
    id, said before 2 usage)."""
    from ..reading.listing import conversation_rows, newest_first

    filters = make_filters("export", project, since, until, "", "", zone)
    rows = newest_first(conversation_rows(r, hide, filters, ids=None if given is None else [_resolved(r, given)], prices=prose.table))
    if instance:  # a root asz receive landed: only what that instance sent, as asz ls --instance keeps (trial 22a, F21)
        from .conversations_cmd import with_senders

        rows, filters.unplaced[:] = with_senders(r, rows, instance), with_senders(r, filters.unplaced, instance)
    # first: filters that match nothing are said (exit 1) before what several conversations would need (trial 26b F6);
    # a window alone into a folder is a quiet day: its empty set is written, exit 0 (trial 35b F4)
    quiet = not (rows or filters.unplaced) and _quiet_day(out, fmt, project, instance, given)
    _no_match(r, bool(rows or filters.unplaced) or quiet, project, since, until, instance)  # as an unknown id (trial 15, F7)
    if quiet:
        from ..view.rows import list_conversations

        typer.echo(f"asz export: quiet: no conversation has a record in --since {since or '(none)'} --until "
                   f"{until or '(none)'} (of {len(list_conversations(r))} in {r}); an empty set is written to {out}, "
                   "its index and manifest saying so (asz verify --export checks it)", err=True)
    given is None and linked_said("export", r, "exported", "note: ")  # never left out silently (review48)
    if fmt in ("html", "json") and out is None:
        raise _usage(f"several conversations as {fmt} need --out DIR")
    if fmt in ("html", "json") and out is not None and not out.is_dir() and out.suffix.lower() in FILE_SUFFIXES:
        raise _usage(f"--out {out}: several conversations as {fmt} go into a folder (one file each and an index "
                     f"page), not one {out.suffix} file; give --out DIR")
    single = one_stream_file(out, fmt)  # md and prose: the stream stdout would get, as one file
    if out is not None and out.exists() and not out.is_dir() and not single:
        raise _usage(f"--out {out}: several conversations go into a folder, and this is a file")
    filter_warnings(r, rows, filters, project)  # what the filters could not place or judge: said, never dropped
    if single:
        n, unverified = _written(out, lambda: stream_to(out, lambda f: _many(r, rows, fmt, hide, thinking, None, prose,
                                                                              filters.unplaced, f),
                                                         lambda: stream_manifest(r, out, fmt, hide, thinking, prose)))
        if given is not None:  # one conversation's window in one file: warned as a file is (27b)
            window_file_over(prose, out, fmt)
    else:
        n, unverified = _written(out, lambda: _many(r, rows, fmt, hide, thinking, out, prose, filters.unplaced))
    typer.echo(f"exported {n} conversation(s)" + (f" to {out}" if out is not None else "")
               + (f"; {unverified} do(es) not verify or could not be exported (warned above)" if unverified else ""), err=True)
    if n and out is None:
        stdout_note(prose, EXT[fmt])
    return unverified


def _quiet_day(out: Optional[Path], fmt: str, project: str, instance: str, given: Optional[str]) -> bool:
    """Whether a ``--since``/``--until`` window that holds no conversation is a quiet day rather than filters that
    match nothing: the window alone (no ``--project``, ``--instance`` or ID) into a folder ``out`` (not stdout, not
    one stream file), so that a daily job's archive holds a verifiable empty set for the day (trial 35b F4)."""
    if out is None or project or instance or given is not None or one_stream_file(out, fmt):
        return False
    return out.is_dir() or not out.exists() and out.suffix.lower() not in FILE_SUFFIXES


def _no_match(r: Path, matched: bool, project: str, since: str, until: str, instance: str = "") -> None:
    """Exit 1 when the filters matched no conversation (not ``matched``): ``asz export: no conversation matched
    --project P (of N in ROOT; asz ls lists them); nothing written``."""
    if matched:
        return
    from ..view.rows import list_conversations

    raise no_match("export", r, {"--project": project, "--since": since, "--until": until, "--instance": instance}, len(list_conversations(r)),
                   "; nothing written")


def _resolved(r: Path, given: str) -> str:
    """The conversation id ``given`` (an id or a unique prefix) names in ``r``; exit 1 unknown, 2 ambiguous."""
    from ..reading.ids import IdError, conversation_id

    try:
        return conversation_id(r, given)
    except IdError as exc:
        raise fail_id("export", exc)


def _written(out: Optional[Path], write):
    """``write()``'s result; an ``--out`` that cannot be written (no such folder, no permission, a file where a folder
    must be) ends with one line naming it and exit 1, not a traceback (trial 5, finding 4)."""
    if out is None:
        return write()  # stdout: a reader gone is main's to end quietly (BrokenPipeError)
    try:
        return write()
    except BrokenPipeError:
        raise
    except NotRegular as exc:  # a FIFO, a device or a link met at a rename (a folder export's file): exit 2 (47b F1)
        raise refused("export", "--out", exc, named=exc.path == str(out)) from None
    except OSError as exc:
        typer.echo(f"asz export: cannot write {said_path(out, exc.filename)}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``export`` to ``app``."""
    app.command("export")(export)
