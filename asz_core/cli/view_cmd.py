"""``asz conversation`` and ``asz show``: the asz.view document and the landed record behind an id (seed 004).

The short summary ``asz conversation ID`` prints by default is :mod:`asz_core.cli.conversation_summary`'s."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Optional

import typer

from ..storage.layout import conversation_dir, rounds_dir
from ..flow.pending import has_chain
from ..reading.ids import near_ids
from ..sessiondata.codec import encode_record
from ..termsafe import one_line, shell_word
from ..view import ViewError, build_view, list_conversations, to_json, to_yaml
from .configured import config_prices, configuration as _configuration
from .conversation_summary import conversation_summary


def _root(root: Optional[Path], config: Optional[Path]) -> Path:
    if root is not None:
        return root
    from ..config import ConfigError, load_config

    try:
        return Path(load_config(config).root)
    except ConfigError as exc:
        typer.echo(f"asz: {exc}", err=True)
        raise typer.Exit(2)


def _landed_session(root: Path, given: str) -> str:
    """The landed session ``given`` (a whole id or a unique prefix) names when no conversation does, else ``given``:
    a session with no chain is then named by its full id (trial finding 10)."""
    from ..reading.ids import IdError, session_id

    try:
        return session_id(root, given)
    except (IdError, OSError):
        return given


def _refuse_unknown(root: Path, given: str) -> None:
    """Raise typer.Exit(1) after ``asz conversation: no conversation 'ID' in ROOT[; conversations in ROOT: …]`` when
    ``given`` names nothing in ``root``: no conversation folder under ``_conversations/`` and no landed session folder
    (either is said by the document build: a chain that does not verify, a session never parsed); ``given`` holding
    what no id holds (a space: a title typed) adds the ``asz search --conversations`` that finds one by its words."""
    try:
        unknown = not conversation_dir(root, given).exists() and not (root / given).is_dir()
    except ValueError:  # not usable as an id (a path separator, ..): the document build says so
        return
    if unknown:
        known = _conversations_in(root, given)
        words = ""
        if known and not re.fullmatch(r"[0-9A-Za-z_.-]+", given):  # a title or words, not an id (trial 30b F4)
            words = (f"; to find one by its title or prompts: asz search --conversations {shell_word(given)} "
                     f"--root {shell_word(root)}")
        from ..storage.erased_list import erased_id_said  # erased on request: said so, never as a typo (32b F7)
        said = erased_id_said(root, given) or (f"; {known}" if known else "") + words
        typer.echo(f"asz conversation: no conversation {given!r} in {root}{said}", err=True)
        raise typer.Exit(1)


def _credentials(r: Path, doc: dict, redact: bool) -> str:
    """``doc``'s credentials masked in place (``redact``) or only counted, as ``asz export --format json --redact``
    masks and counts the same document (:func:`~asz_core.reading.export_steps.masked_document`: a clipped text masked
    whole from its record, a talk's copy of a step's text one place with it), and the note that says so
    (:func:`~asz_core.cli.export_said.credentials_said`; trial 44c F4: --json printed them whole and said nothing)."""
    from ..reading.export_steps import masked_document
    from ..view.secret_forms import Masker, counted
    from .export_said import credentials_said

    mask = Masker(redact)
    masked_document(r, doc, mask)
    return credentials_said("conversation", *counted(mask.gone), redact)


def _print_document(r: Path, doc: dict, cid: str, as_json: bool, said: str = "") -> None:
    """The whole document on stdout (JSON or YAML), then ``said`` (its credentials, :func:`_credentials`) on stderr;
    when it does not verify, each problem on stderr too (trial 2, finding 6: the document says it, and the terminal
    is not left silent), then the damage (:func:`say_damage`), and exit 1 as the summary form, asz verify, usage,
    export and search exit on damaged evidence (fix29c: it exited 0, so a job reading the document stayed green on
    a root asz verify fails)."""
    from ..reading.termtext import json_visible, visible  # U+202E in JSON printed as \u202e (trial 34c F9)
    if as_json:
        sys.stdout.buffer.write(json_visible(to_json(doc)) + b"\n")
    else:
        sys.stdout.write(to_yaml(doc))
    sys.stdout.flush()
    if said:
        typer.echo(said, err=True)

    state = doc["summary"]["state"]
    if state != "verified":
        for p in doc["summary"]["problems"]:
            typer.echo(f"asz conversation: warning: {cid} does not verify ({state}): {visible(p)}", err=True)
        say_damage(r, doc)
        raise typer.Exit(1)


def damage_lines(r: Path, doc: dict) -> list[str]:
    """asz verify's problem lines for the sessions of ``doc`` (a conversation's asz.view document in root ``r``) and
    their round chains, each ``FILE:LINE: problem [field]: detail`` (``FILE: …`` when the file as a whole is at fault:
    a landed file or round gone), as ``asz verify --root R SESSION`` prints them (:class:`~asz_core.verify.report.Problem`);
    [] when it finds none (what the document's problems say then stands alone). Reads the sessions' landed files and
    chains again, so it is called only for a document that does not verify."""
    from ..verify.walk import verify

    out: list[str] = []
    for sid in doc.get("sessions") or [doc.get("conversation")]:
        if not isinstance(sid, str):
            continue
        try:
            report = verify(r, sid, jobs=1)
        except OSError:  # the session's folder is gone (FileNotFoundError): the document's problems say what is missing
            continue
        out += [str(p) for p in report.problems if str(p) not in out]
    return out


def say_damage(r: Path, doc: dict) -> None:
    """Each of :func:`damage_lines` on stderr as ``asz conversation: damage: FILE:LINE: problem [field]: detail``."""
    from ..reading.termtext import visible

    for line in damage_lines(r, doc):
        typer.echo(f"asz conversation: damage: {visible(line)}", err=True)


def no_document_hint(r: Path, conversation_id: str) -> str:
    """What to do about a conversation with no usable round: its damaged chain is moved aside and parsed again (rounds
    are derived), a session never parsed is parsed, an unknown id gets the conversations the root holds."""
    if has_chain(r, conversation_id) and not conversation_id.startswith(("_", ".")):
        rounds = rounds_dir(r, conversation_id)
        return (f"its round chain does not verify (asz verify --root {shell_word(r)} names the damage); rounds are derived from the "
                f"landed files: asz parse {shell_word(conversation_id)} --anew --root {shell_word(r)} sets {rounds} aside and builds it again")
    if (r / conversation_id).is_dir() and not conversation_id.startswith(("_", ".")):
        return (f"session {conversation_id} landed in {r} but has no conversation chain (never parsed, or its rounds "
                f"were removed): asz parse --root {shell_word(r)} builds it")
    return _conversations_in(r) or f"{r} holds no conversations"


def _conversations_in(r: Path, given: str = "") -> str:
    """``[did you mean ID?; ]conversations in ROOT: a, …, e and N more (asz ls lists them)``, '' for none (33a F7)."""
    known = list_conversations(r)
    shown = ", ".join(known[:5]) + (f" and {len(known) - 5} more (asz ls lists them)" if len(known) > 5 else "")
    return (f"did you mean {' or '.join(near)}?; " if (near := near_ids(known, given)) else "") + f"conversations in {r}: {shown}" if known else ""


def conversation(
    conversation_id: str = typer.Argument(..., metavar="ID", help="Conversation id (the session id for Claude Code), or a unique prefix of one."),
    as_json: bool = typer.Option(False, "--json", "-json", help="Print the whole document as JSON."),
    as_yaml: bool = typer.Option(False, "--yaml", "-yaml", help="Print the whole document as YAML."),
    hide: str = typer.Option("", "--hide", help="Comma list of withholdable flags to withhold (system_prompt, tool_schemas)."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default: storage.root, else ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read."),
    tz: Optional[str] = typer.Option(None, "--tz", help="Time zone of the times the summary shows (a talk's start): an IANA name such as Europe/Paris, UTC (any case), or a Windows zone name such as 'W. Europe Standard Time', read as its IANA zone (default: this machine's, as TZ= sets it)."),
    redact: bool = typer.Option(False, "--redact", help="Mask each credential of a known form in --json's and --yaml's document as asz export --format json --redact and the page mask it (docs/reading.md, Credentials); stderr says how many places. Without it the document's texts are printed as landed and stderr says how many credentials it holds whole. The summary and --step mask them always."),
    step: str = typer.Option("", "--step", help="Print the talk holding this step (a step id as asz search prints it, a call/… or talk/… id) as the md export draws a talk, credentials masked and what view.hide and --hide name withheld, the step's line marked with ▶ (thinking drawn for a thinking step); exit 1 when the conversation has no such step. Not with --json or --yaml."),
) -> None:
    """Print a conversation's asz.view document (--json / --yaml) or, by default, a short summary.

    Under its cost the summary says what each kind of token cost (input, output, cache write 5m and 1h, cache read;
    each rounded once to the cent, <$0.01 when smaller) and its three costliest talks, each by its own model calls and start (in --tz's
    zone, else this machine's, as asz ls: from 2026-02-11 02:56 Asia/Kathmandu). Under its landed seq,
    one line for each earlier adapter version whose files the conversation holds, with what that version did not keep
    or read as the installed one does (``landed by claude-code-local/0.2.0 (1 of 1 file(s)), …``), and when another
    asz build assembled its rounds last, which (``rounds last assembled by another asz build …``).

    Exit 1 when the root does not exist, when the conversation has no usable round, or when no conversation or landed session
    has that id (``no conversation 'ID' in ROOT``); 2 on usage errors (an empty id, an id prefix of several, both
    formats, an unknown hide name). When the conversation does not verify
    (summary.state incomplete or mismatch: a landed file or round damaged or missing), the summary lists each problem,
    --json and --yaml print the whole document, which carries the state and problems and holds back what does not
    verify (a viewer gets a document, docs/view.md), and say each problem on stderr as
    ``asz conversation: warning: ID does not verify (STATE): PROBLEM``; every form then names the damage on stderr as
    asz verify does, ``asz conversation: damage: FILE:LINE: problem [field]: detail``, and exits 1, as asz verify,
    usage, export and search exit on damaged evidence. A verified conversation one of whose
    sources ends in a torn tail (a last line with no newline, unchanged for 10 minutes: not landed until it is
    completed, so in no figure) says so in one note on stderr per source, as asz usage does. ``--step STEP`` prints instead the
    talk holding a step, as ``asz search`` names it under each hit (``asz conversation ID --step STEP``): a hit read in
    its context (docs/reading.md, Reading a hit in its talk).
    """
    from .reading_common import refuse_empty_id, use_tz

    refuse_empty_id("conversation", conversation_id)
    use_tz("conversation", tz)  # a bad name: exit 2, before the root is read
    if (as_json and as_yaml) or (step and (as_json or as_yaml)):
        typer.echo(f"asz conversation: choose one of {'--step, ' if step else ''}--json and --yaml", err=True)
        raise typer.Exit(2)
    names = [n.strip() for n in hide.split(",") if n.strip()]
    r = _root(root, config)
    if not r.is_dir():  # said as asz ls, search, export and usage say it, never as a conversation with no rounds
        from .reading_common import no_root

        typer.echo(no_root("conversation", r), err=True)
        raise typer.Exit(1)
    conversation_id = _resolved(r, conversation_id)
    table = config_prices(config, "asz conversation")
    doc = _document(r, conversation_id, names + (list(_configuration(config, "asz conversation").view_hide) if step else []),
                    table)
    if doc["summary"]["state"] == "verified":  # as asz usage says it: a figure short by a line not landed yet
        from ..reading.ids import conversation_names
        from ..storage.torn import torn_notes

        for note in torn_notes({conversation_id: doc["summary"]["problems"]}, conversation_names(r)):
            typer.echo(f"asz conversation: {note}", err=True)
    if as_json or as_yaml:
        from ..view.counted_in import summary_counted_in

        doc = {**doc, "summary": summary_counted_in(r, doc["summary"])}  # as /api/c/ID/view's (trial 46a F5)
        said = _credentials(r, doc, redact)
        _print_document(r, doc, conversation_id, as_json, said)
        return
    if step:
        from .conversation_step import print_step

        print_step(r, doc, step, table)
    else:
        for line in conversation_summary(r, conversation_id, doc, table):
            typer.echo(line)
    if doc["summary"]["state"] != "verified":
        from ..flow.in_memory import IN_MEMORY_NOTE

        if any(str(p).startswith(IN_MEMORY_NOTE) for p in doc["summary"]["problems"]):  # trial 29a F8
            typer.echo(f"asz conversation: {conversation_id}: {IN_MEMORY_NOTE}; {no_document_hint(r, conversation_id)}",
                       err=True)
        say_damage(r, doc)
        raise typer.Exit(1)


def _document(r: Path, cid: str, hide: list[str], prices) -> dict:
    """The asz.view document of conversation ``cid`` of root ``r``, withholding ``hide``, priced by ``prices``: exit 2
    for an unknown hide name, 1 (with :func:`no_document_hint`) when it has no usable round."""
    try:
        return build_view(r, cid, hide=hide, prices=prices)
    except ValueError as exc:
        typer.echo(f"asz conversation: {exc}", err=True)
        raise typer.Exit(2)
    except ViewError as exc:
        typer.echo(f"asz conversation: {exc}; {no_document_hint(r, cid)}", err=True)
        raise typer.Exit(1)


def _resolved(r: Path, given: str) -> str:
    """The conversation id ``given`` (or a unique prefix) names in root ``r``, else the landed session it names (the
    document build names what is missing); exit 2 for a prefix of several, 1 for none (:func:`_refuse_unknown`)."""
    from ..reading.ids import AmbiguousId, conversation_id as resolve_conversation

    try:
        return resolve_conversation(r, given)
    except AmbiguousId as exc:
        typer.echo(f"asz conversation: {exc}", err=True)
        raise typer.Exit(2)
    except LookupError:
        session = _landed_session(r, given)
        _refuse_unknown(r, session)
        return session



def show(
    session: str = typer.Argument(..., help="Session id, or a unique prefix of one."),
    ident: str = typer.Argument(..., metavar="ID", help="Any id the document prints: a node id (talk/…, call/…, tool/…, run/…), a relation (rel/…) or unresolved entry (unres/…) id, a stream name, a record's place as the readers print it (1/4, 'seq 1 row 4 block 0', '(seq 1, row 4)', FILE:ROW, 'FILE line N'), a record id, a tool-use id or a provider call id."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default: storage.root, else ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (its view.hide is withheld)."),
    redact: bool = typer.Option(False, "--redact", help="Mask each credential of a known form in the records as the page's record view masks it; stderr says how many places. Without it the records are printed as stored and stderr says how many credentials they hold whole."),
) -> None:
    """Print every landed record behind an id, each with its file and row.

    A node id prints the records the node cites (a talk or run citing none:
    those of every node under it); a relation id (rel/…) the records its
    evidence cites (with none, its from and to nodes'); an unresolved entry id
    (unres/KIND/REF) the records of stream REF, else those naming REF as id,
    tool-use id, call id or parent; a plain stream name (acompact-f46190)
    every record of that stream's landed files; a record's place as the
    readers print it (asz ls's and asz conversation's S/R, 1/4; seq 1 row 4
    block 0, the exports' Undescribed records too; (seq 1, row 4) and record
    ID (seq 1, row 4), the exports' Unresolved section; FILE:ROW, what asz show
    and asz search print; FILE line N, an untimed step's, row N - 1) that
    record (with a block: that part only); any
    other id prints the records whose id, tool-use id or provider call id it
    is. Output per record:
    ``<file>:<row>`` (row 1 is the line after the header) then the record
    line as stored (under an execution record, its arguments_check: agree, differ
    or cannot_compare, with the transcript's input; its transcript_check: the
    tool name, outcome and result held against the transcript's; and
    observed_again when another record of the same call differs; under a record holding an unknown part, the bytes
    the dialect could not describe, decoded from base64 where the record keeps them so: a line ``unknown part N
    (REASON): B bytes as kept, …``, then the bytes on one line, indented two spaces, UTF-8 as its characters and
    each byte that is not UTF-8 as ``\\xNN``, a backslash as ``\\\\``, a newline ``\\n``, a tab ``\\t``,
    another control ``\\xNN`` and a character that could steer a terminal or draws as nothing ``\\uNNNN``,
    so that every byte can be read back; under a record whose part lost the runtime's structured copy to land, a line
    naming each object with its own size and digest, ``part 0 (result): result too large to land: text N bytes (its
    sha256 not recorded); the runtime's structured copy M bytes, sha256 …``), except that control characters, C1 and bidi overrides
    are written as JSON escapes (``\\u001b``, ``\\u0085``, ``\\u202e``: the
    same value, nothing that steers the terminal); a record carrying a flag view.hide names keeps its
    envelope and flags, its parts lose their text (docs/view.md, Withholding). A file whose
    closing digest or count does not match shows nothing and is named on
    stderr. The credentials of a known form the records hold are printed as stored, and stderr says how many (``asz
    show: note: N place(s) of M credential(s) of a known form written whole (asz secrets lists them); --redact masks
    them``); --redact masks them as the page does. Exit 1 when the root does not exist, nothing matches or a file
    does not verify; 2 for a session prefix that names several sessions, or an empty SESSION or ID.
    """
    from ..reading.ids import IdError, session_id
    from ..reading.show import find_records
    from .reading_common import fail_id, refuse_empty_id, settings

    refuse_empty_id("show", session, "SESSION")
    refuse_empty_id("show", ident)
    r, hide = settings("show", root, config)
    try:
        session = session_id(r, session)
    except IdError as exc:
        raise fail_id("show", exc)
    found = find_records(r, session, ident)
    from ..view.secret_forms import counted
    from .export_said import credentials_said

    marks: list[str] = []
    checks = ExecutionChecks(r, session, hide) if any(_is_execution(p) for p, _, _ in found.hits) else None
    for path, why in found.damaged:
        typer.echo(f"asz show: {path.relative_to(r).as_posix()} does not verify, nothing of it is shown: {why} "
                   f"(asz verify names the damage)", err=True)
    for path, row, rec in found.hits:
        _print_hit(r, path, row, rec, hide, marks, redact)
        said = checks.said(path, row) if checks is not None else None
        if said:
            typer.echo(said)
        _unknown_bytes(rec, found.block, marks, redact, bool(hide and set(hide).intersection(rec.flags)))
    if found.hits and (said := credentials_said("show", *counted(marks), redact)):
        typer.echo(said, err=True)
    if not found.hits and not found.damaged:
        typer.echo(f"asz show: no landed record of session {session} has id, tool-use id, call id or node id {ident!r}", err=True)
    if not found.hits or found.damaged:
        raise typer.Exit(1)


def _print_hit(root: Path, path: Path, row: int, rec, hide, marks: list[str], redact: bool) -> None:
    """``asz show``'s lines of one record: ``<file>:<row>``, then the record line as stored (withheld when a flag
    ``hide`` names is on it; masked with ``--redact``, its credentials counted into ``marks``)."""
    import orjson

    from ..reading.termtext import visible
    from ..view.page_secrets import masked_line
    from ..view.server import withhold_record

    typer.echo(f"{visible(path.relative_to(root).as_posix())}:{row}")
    line = encode_record(rec)
    if hide and set(hide).intersection(rec.flags):
        from ..sessiondata.jsonbytes import loads

        line = orjson.dumps(withhold_record(loads(line, exact=True)))  # lone surrogate escapes and wide numbers read
    typer.echo(visible(masked_line(line, marks, redact).decode("utf-8"), json=True))


def _unknown_bytes(rec, block: int | None, marks: list[str], redact: bool, withheld: bool) -> None:
    """Print the bytes of ``rec``'s unknown parts (the one ``block`` names, when given) under it, and the words of each
    part that lost the runtime's structured copy to land (:func:`~asz_core.reading.show.taken_lines`), none of a record
    ``withheld`` (:func:`~asz_core.reading.show.unknown_lines`; trial 47c F3), masked with ``--redact``; their
    credentials counted into ``marks`` for a part kept as base64 (the record's line showed them to no one), apart
    for one kept as its string (the record's line counted them already)."""
    from ..reading.show import taken_lines, unknown_lines
    from ..reading.termtext import visible
    from ..view.secret_forms import Masker

    if withheld:
        return
    coded = any(p.k == "unknown" and p.encoding == "base64" for p in rec.parts)
    for text in unknown_lines(rec, block, Masker(redact, marks if coded else []).text):
        typer.echo(visible(text))
    for text in taken_lines(rec, block):  # each size beside its own object's digest (trial 47d F7)
        typer.echo(text)


def _is_execution(path: Path) -> bool:
    """Whether ``path`` is a landed ``execution`` file (the records ``asz hook`` and the observers write)."""
    from ..storage.layout import parse_landed_name

    named = parse_landed_name(path.name)
    return named is not None and named.kind == "execution"


class ExecutionChecks:
    """What the document's ``tool_executions`` say of a session's execution records, for ``asz show``: under each
    execution record it prints, ``arguments_check: agree|differ|cannot_compare; <words>`` (the exports' words:
    :func:`~asz_core.reading.export_blocks.arguments_said`; docs/claude-code-hooks.md, Held against the transcript).
    Read once, when a hit is an execution record; a conversation that does not read says nothing."""

    def __init__(self, root: Path, session: str, hide):
        from ..view.chain import ViewError
        from ..view.document import conversation_executions

        self.root, self.by_ref, self.again_at = root, {}, {}
        try:
            _, entries, files = conversation_executions(root, session, hide=hide)
        except (ViewError, OSError):
            return
        for e in entries:
            ref = e.get("ref") or {}
            self.by_ref.setdefault((files.get(ref.get("seq"), ""), ref.get("row")), []).append(e)
            for a in e.get("observed_again") or ():
                r = a.get("ref") or {}
                self.again_at.setdefault((files.get(r.get("seq"), ""), r.get("row")), []).append(e)

    def said(self, path: Path, row: int) -> str:
        """The check line(s) of the execution record at ``path`` row ``row``; '' when the document holds none."""
        from ..reading.export_blocks import again_said, arguments_said, transcript_said
        from ..termsafe import shell_word

        out = []
        for e in self.by_ref.get((path.relative_to(self.root).as_posix(), row), ()):
            c = e.get("arguments_check") if isinstance(e.get("arguments_check"), dict) else {}
            if c.get("result"):
                out.append(f"arguments_check: {c['result']}{arguments_said(e)} (tool call {one_line(str(e.get('tool') or '-'))})")
            tc = e.get("transcript_check") if isinstance(e.get("transcript_check"), dict) else {}
            bits = [f"{k} {(tc.get(k) or {}).get('result')}" for k in ("name", "outcome", "result") if tc.get(k)]
            if bits:
                out.append(f"transcript_check: {', '.join(bits)}{transcript_said(e)}")
            if e.get("observed_again"):
                out.append(f"observed_again: {again_said(e)}")
        # a later record of an id the document lists once: said under it too (trial 30c F2)
        for e in self.again_at.get((path.relative_to(self.root).as_posix(), row), ()):
            out.append(f"observed_again: a later observation of tool call {one_line(str(e.get('tool') or '-'))}; "
                       f"{again_said(e)}")
        return "\n".join(out)


def register(app: typer.Typer) -> None:
    """Add ``conversation`` and ``show`` to ``app``."""
    app.command("conversation")(conversation)
    app.command("show")(show)
