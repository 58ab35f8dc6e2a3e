"""``asz conversation`` and ``asz show``: the asz.view document and the landed record behind an id (seed 004)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Optional

import typer

from ..storage.layout import conversation_dir, rounds_dir
from ..flow.pending import has_chain
from ..reading.export_blocks import again_said, call_named, execution_head, held_said, one_side_said, outcome_said
from ..reading.ids import near_ids
from ..reading.listing import link_lines, usage_lines
from ..sessiondata.codec import encode_record
from ..termsafe import one_line, shell_word
from ..view import ViewError, build_view, list_conversations, to_json, to_yaml
from ..view.arguments_check import HELD_DIFFER, TRANSCRIPT_CHECKS, transcript_differences


def _root(root: Optional[Path], config: Optional[Path]) -> Path:
    if root is not None:
        return root
    from ..config import ConfigError, load_config

    try:
        return Path(load_config(config).root)
    except ConfigError as exc:
        typer.echo(f"asz: {exc}", err=True)
        raise typer.Exit(2)


def config_prices(config: Optional[Path], cmd: str):
    """The price table with ``asz.yaml``'s ``prices`` applied (the file ``--config`` names, else ./asz.yaml); exit 2 on a bad file."""
    from ..config import ConfigError, load_config
    from ..view.prices import price_table

    try:
        return price_table(load_config(config).prices)
    except ConfigError as exc:
        typer.echo(f"{cmd}: {exc}", err=True)
        raise typer.Exit(2)


#: Undescribed parts the short summary of ``asz conversation`` names one by one.
UNDESCRIBED_SHOWN = 5
#: How many execution records `asz conversation` says one line of (failed and interrupted ones first; trial 25a, F1).
EXECUTIONS_SHOWN = 5


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


def _print_document(r: Path, doc: dict, cid: str, as_json: bool) -> None:
    """The whole document on stdout (JSON or YAML); when it does not verify, each problem on stderr too (trial 2,
    finding 6: the document says it, and the terminal is not left silent), then the damage (:func:`say_damage`), and
    exit 1 as the summary form, asz verify, usage, export and search exit on damaged evidence (fix29c: it exited 0,
    so a job reading the document stayed green on a root asz verify fails)."""
    if as_json:
        sys.stdout.buffer.write(to_json(doc) + b"\n")
    else:
        sys.stdout.write(to_yaml(doc))
    sys.stdout.flush()
    from ..reading.termtext import visible

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
    tz: Optional[str] = typer.Option(None, "--tz", help="Time zone of the times the summary shows (a talk's start): an IANA name such as Europe/Paris, or UTC (any case) (default: this machine's, as TZ= sets it)."),
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
    completed, so in no figure) says so in one note on stderr per source, as asz usage does.
    """
    from .reading_common import refuse_empty_id, use_tz

    refuse_empty_id("conversation", conversation_id)
    use_tz("conversation", tz)  # a bad name: exit 2, before the root is read
    if as_json and as_yaml:
        typer.echo("asz conversation: choose one of --json and --yaml", err=True)
        raise typer.Exit(2)
    names = [n.strip() for n in hide.split(",") if n.strip()]
    r = _root(root, config)
    if not r.is_dir():  # said as asz ls, search, export and usage say it, never as a conversation with no rounds
        from .reading_common import no_root

        typer.echo(no_root("conversation", r), err=True)
        raise typer.Exit(1)
    conversation_id = _resolved(r, conversation_id)
    table = config_prices(config, "asz conversation")
    try:
        doc = build_view(r, conversation_id, hide=names, prices=table)
    except ValueError as exc:
        typer.echo(f"asz conversation: {exc}", err=True)
        raise typer.Exit(2)
    except ViewError as exc:
        typer.echo(f"asz conversation: {exc}; {no_document_hint(r, conversation_id)}", err=True)
        raise typer.Exit(1)
    if doc["summary"]["state"] == "verified":  # as asz usage says it: a figure short by a line not landed yet
        from ..reading.ids import conversation_names
        from ..storage.torn import torn_notes

        for note in torn_notes({conversation_id: doc["summary"]["problems"]}, conversation_names(r)):
            typer.echo(f"asz conversation: {note}", err=True)
    if as_json or as_yaml:
        _print_document(r, doc, conversation_id, as_json)
        return
    for line in _summary(r, conversation_id, doc, table):
        typer.echo(line)
    if doc["summary"]["state"] != "verified":
        from ..flow.in_memory import IN_MEMORY_NOTE

        if any(str(p).startswith(IN_MEMORY_NOTE) for p in doc["summary"]["problems"]):  # trial 29a F8
            typer.echo(f"asz conversation: {conversation_id}: {IN_MEMORY_NOTE}; {no_document_hint(r, conversation_id)}",
                       err=True)
        say_damage(r, doc)
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


def _summary(r: Path, conversation_id: str, doc: dict, table) -> list[str]:
    """The lines ``asz conversation ID`` prints by default (no --json or --yaml) for ``doc``, the conversation's
    asz.view document in root ``r``, priced by ``table``: :func:`summary_lines`, with the removal line and the senders
    line after the first, and the earlier adapter versions' and another build's lines after ``landed through seq``."""
    from ..reading.removed import removal_line, shown_removed
    from ..storage.senders import mixed_credentials, senders_line
    from .conversations_cmd import conversation_senders

    removal = shown_removed(doc)  # placed as asz ls shows a pruned conversation (trial 15, F5)
    lines = summary_lines(doc, table)
    if removal is not None:
        lines.insert(1, removal_line(removal))
    senders = conversation_senders(r, conversation_id)
    if said := senders_line(senders):  # a receiving root: who sent it (trial 19, F3)
        lines.insert(1, said)
    if mixed := mixed_credentials(senders):  # never plain verified (trial 27c F1)
        lines = [f"state {line[6:].split(':', 1)[0]}, {mixed}:{line.split(':', 1)[1]}" if line.startswith("state ")
                 and ":" in line else line for line in lines]
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("landed through seq ")), len(lines))
    lines[at:at] = landed_by_lines(r, doc.get("sessions") or []) + assembled_by_lines(r, doc.get("conversation"))
    return lines


def assembled_by_lines(root: Path, conversation: object) -> list[str]:
    """``rounds last assembled by another asz build (assembled_by 20307e06cbdb; this one is 29e7ce69d0ad), whose
    reading may differ: asz parse SESSION --anew --root ROOT builds them by this one`` when the chain's
    ``conversation.state`` names another asz's :func:`~asz_core.flow.chain.assembly_mark` as the one that wrote it
    last (two asz builds used in turn on one root: each assembles the other's chain once per landing, so the one
    not run last reads the other's rounds; docs/storage-root.md, "A round an older asz wrote"); [] when it names this
    asz, or there is no state (a receiving root's chain as its sender wrote it); none (trial 33c F2): the next collect."""
    from ..flow.chain import ASSEMBLED_BY, Chain, assembly_mark

    if not isinstance(conversation, str):
        return []
    st = Chain(root, conversation).read_state()
    by = st.get(ASSEMBLED_BY, "")
    if not st or by == assembly_mark():
        return []
    how = f"asz parse {shell_word(conversation)} --anew --root {shell_word(root)}" if by else f"the next asz collect (or asz parse {shell_word(conversation)})"
    who = f"another asz build (assembled_by {by}; this one is {assembly_mark()})" if by else "an asz before assembled_by"
    return [f"rounds last assembled by {who}, whose reading may differ: {how} builds them by this one"]


def landed_by_lines(root: Path, sessions: list) -> list[str]:
    """``landed by goose/0.1.0 (1 of 2 file(s)), an earlier version than the installed goose/0.2.0`` for each other
    version of an installed adapter whose files the conversation's ``sessions`` hold (their headers' ``adapter``), for
    any adapter (trial 25a F6: a third-party adapter's version bump was said by nothing); where that adapter says what
    the version did not keep (:meth:`~asz_core.plugins.adapter.Adapter.landed_without`), ``, which did not keep or
    read as it does: …; …`` and the way to today's landing follow. A file of a later version than the installed one
    (asz went back) says ``a later version``; where either version is not dotted numbers (``0.3.0rc1``), ``another
    version`` (:func:`_which_version`). [] when every file is of the installed version (docs/storage-root.md, "A root
    several asz versions read")."""
    from collections import Counter

    from ..plugins.manager import adapter_for_dialect
    from ..sessiondata.reader import landed_header
    from ..storage.layout import landed_files, session_dir

    seen: Counter = Counter()
    total = 0
    for sid in sessions:
        if not isinstance(sid, str):
            continue
        for _, path in landed_files(session_dir(root, sid), skeletons=True):
            try:
                h = landed_header(path)
            except (OSError, EOFError, ValueError):
                continue
            total += 1
            seen[(h.dialect, h.adapter)] += 1
    out = []
    for (dialect, adapter), n in sorted(seen.items()):
        a = adapter_for_dialect(dialect) if dialect else None
        today = f"{a.name}/{a.version}" if a is not None else ""
        if a is None or adapter == today or adapter.rpartition("/")[0] != a.name:
            continue
        line = (f"landed by {adapter} ({n} of {total} file(s)), "
                f"{_which_version(adapter, today)} version than the "
                f"installed {today}")
        try:
            said = a.landed_without(dialect, adapter)
        except Exception:  # an adapter's bug: nothing more said
            said = []
        if isinstance(said, list) and said and all(isinstance(x, str) for x in said):
            line += (f", which did not keep or read as it does: {'; '.join(said)}; collecting the same sources into a new "
                     f"root (asz collect --once --root NEW, while the runtime keeps them) lands them by {today}")
        out.append(line)
    return out


def _which_version(adapter: str, today: str) -> str:
    """How a landed file header's ``adapter`` (``goose/0.1.0``) stands to the installed ``today`` (``goose/0.2.0``):
    ``a later`` or ``an earlier`` where both versions are dotted numbers (``0.10.0`` is later than ``0.9.1``:
    :func:`~asz_core.plugins.adapter.adapter_version`), else ``another`` (``0.3.0rc1``: no rule orders them, so none
    is claimed). Never raises."""
    from ..plugins.adapter import adapter_version

    a, b = adapter_version(adapter), adapter_version(today)
    return "another" if a is None or b is None else "a later" if a > b else "an earlier"


#: The tools ``asz conversation``'s ``tools`` line names; the rest are counted in one ``and N more``.
TOOLS_SHOWN = 12


def tools_lines(tools: list[dict]) -> list[str]:
    """``asz conversation``'s line of the calls per tool (the document's ``summary.calls_by_tool``, trial 30b F2), none for no
    tool: ``tools 196 call(s) of 11 tool(s): Bash 85 (3 failed), Read 47, …`` (most calls first, the first
    :data:`TOOLS_SHOWN`), then, when asz hook's execution records name some, how many of each."""
    if not tools:
        return []
    calls = sum(t["calls"] for t in tools)

    def one(t: dict) -> str:
        return f"{t['name']} {t['calls']:,}" + (f" ({t['failed']:,} failed)" if t["failed"] else "")

    used = [t for t in tools if t["calls"]]
    line = (f"tools {calls:,} call(s) of {len(used):,} tool(s): " + ", ".join(one(t) for t in used[:TOOLS_SHOWN])
            + (f", and {len(used) - TOOLS_SHOWN:,} more (--json: summary.calls_by_tool)" if len(used) > TOOLS_SHOWN else ""))
    hooked = [t for t in tools if t["executions"]]
    out = [line] if used else []
    if hooked:
        out.append("  execution records per tool: " + ", ".join(f"{t['name']} {t['executions']:,}" for t in hooked[:TOOLS_SHOWN])
                   + (f", and {len(hooked) - TOOLS_SHOWN:,} more" if len(hooked) > TOOLS_SHOWN else ""))
    return out


def summary_lines(doc: dict, table=None) -> list[str]:
    """The short summary ``asz conversation ID`` prints of an asz.view document ``doc`` (seed 004), line by line:
    title, usage (and under its cost, what each kind of token and the costliest talks cost at the prices ``table``:
    :func:`~asz_core.reading.cost_kinds.cost_lines`; trial 19, F9), rounds and head, landed seq, entities, state, the
    API error steps (``errors N API error step(s): …`` when the document counts any: a failed run), sources no longer read (``stopped:``, one each), sources gone,
    tool executions and the ones whose arguments differ (:func:`execution_lines`), cut text, links, coverage,
    undescribed parts, problems."""
    out: list[str] = []
    s = doc["summary"]
    through = max((f["through_seq"] or 0 for f in doc["rounds"]), default=0)
    from ..reading.termtext import visible

    out.append(f"conversation {doc['conversation']}: {visible(s['title'] or '(title withheld)')}")
    from ..reading.cost_kinds import cost_lines

    out.extend(map(visible, usage_lines(s)))
    at = next((i + 1 for i, line in enumerate(out) if line.startswith("cost ")), len(out))  # cost $…, <$0.01, unpriced (32a F8)
    out[at:at] = cost_lines(doc, table)
    out.append(f"rounds {s['rounds']}, head {doc['head']['digest'][:12]}…")
    out.append(f"landed through seq {through}")
    from ..view.placing import unresolved_words  # still open as the page's Unresolved tab counts them (30d F3)
    out.append(f"entities {sum(s['kinds'].values())} nodes, {sum(s['relation_types'].values())} relations, {unresolved_words(doc)}")
    out.append(f"state {s['state']}: {s['talks']} talks, {s['steps']} steps, {s['streams']} streams")
    failed = (s.get("kinds") or {}).get("error.api", 0)
    if failed:  # a failed run (a LangGraph trace's error) or model call was said only in its talk (trial 27a F9, 32a F7)
        from ..view.rate_words import error_words

        out.append(f"errors {error_words(failed, s.get('failed_runs') or 0)}")
    from ..view.conflicts import conflict_line, gone_line

    out.extend(f"stopped: {visible(conflict_line(c))}" for c in s.get("conflicts") or ())  # trial 19, F5
    out.extend(f"gone: {visible(gone_line(g))}" for g in s.get("sources_gone") or ())  # trial 23b, F3
    out.extend(map(visible, execution_lines(doc)))
    from ..reading.listing import cut_text

    if cut_text(s.get("cut")):  # a verified conversation whose text is not all kept says so where the reader looks
        from ..reading.export_steps import cut_steps

        out.append(cut_text(s.get("cut")))
        steps = cut_steps(doc)  # each step, with its size and sha256 (trial 24b F1)
        out.extend(f"  {visible(line)}" for line in steps)
        if steps:
            out.append(f"  (asz show {doc['conversation'][:8]} ID prints a step's record; the whole text is kept only by "
                       "its source file, while it exists)")
    out.extend(map(visible, tools_lines(s.get("calls_by_tool") or [])))  # calls per tool (trial 30b F2)
    out.extend(link_lines(s))
    cov = s.get("coverage") or {}
    if cov:
        out.append(f"coverage {cov['cited']}/{cov['records']} records with content drawn or listed"
                   f" ({cov.get('listed', 0)} listed in not_drawn)")
    und = doc.get("undescribed") or []
    if und:  # trial finding 8: bytes the dialect could not describe are said, not only listed in --json
        out.append(f"undescribed {len(und)} record part(s) the dialect could not describe (kept whole; --json lists them under undescribed)")
        for u in und[:UNDESCRIBED_SHOWN]:
            r = u["ref"]
            out.append(f"  seq {r['seq']} row {r['row']} block {r['block']}: {visible(u['reason'])} ({u['bytes']:,} bytes)")
        if len(und) > UNDESCRIBED_SHOWN:
            out.append(f"  and {len(und) - UNDESCRIBED_SHOWN} more")
    for p in s["problems"]:
        out.append(f"problem: {visible(p)}")
    return out


def execution_lines(doc: dict) -> list[str]:
    """What the document's ``tool_executions`` entries' ``arguments_check`` say (docs/claude-code-hooks.md, "Held
    against the transcript"; trial 23a, F8), none when it has no entry: ``tool executions 2 (execution records):
    arguments agree 1, differ 1, not compared 0``, then a line for each that differs, ``arguments differ:
    toolu_0001 mcp__probe__run (32 bytes, the transcript's 89)``, then how they ended, ``outcomes returned 8, failed
    1``, and a line for each of the first :data:`EXECUTIONS_SHOWN` (failed and interrupted ones first), ``  toolu_probe_7_0
    mcp__probe__crash: MCP server probe (dynamic): failed (transport: …; error 19 bytes as JSON, not kept) in 1 ms``
    (:func:`~asz_core.reading.export_blocks.execution_head`; trial 25a, F1)."""
    te = doc.get("tool_executions") or []
    if not te:
        return []
    said, (suffix, one_side) = [(e.get("arguments_check") or {}).get("result") for e in te], one_side_said(doc)
    out = [f"tool executions {len(te)} (execution records): arguments agree {said.count('agree')}, differ "
           f"{said.count('differ')}, not compared {said.count('cannot_compare')}{suffix}", *one_side]  # 33b F1
    for e, r in zip(te, said):
        if r == "differ":
            a, t = e.get("arguments") or {}, e["arguments_check"].get("transcript") or {}
            out.append(f"arguments differ: {call_named(e)} ({a.get('bytes', 0):,} bytes, "
                       f"the transcript's {t.get('bytes', 0):,})")
    held = transcript_differences(te)
    twice = [e for e in te if isinstance(e.get("observed_times"), int) and e["observed_times"] > 1]
    differing = [e for e in twice if e.get("observed_again")]
    if any(held.values()) or twice:
        out.append(f"held against the transcript: name differs {held['name']}, outcome differs {held['outcome']}, "
                   f"result differs {held['result']}"
                   + (f"; observed twice {len(twice)}, differing {len(differing)}" if twice else ""))
    for e in te:
        for k in TRANSCRIPT_CHECKS:
            if said_k := held_said(e, k):
                out.append(f"{HELD_DIFFER[k]}: {call_named(e)}: {said_k}")
    for e in differing:
        out.append(f"observed twice, differing: {call_named(e)}: first {outcome_said(e)}"
                   + (f" at {one_line(str(e['time']))}" if e.get("time") else "") + f"; {again_said(e)}")
    ends = [str(e.get("outcome") or "not said") for e in te]
    out.append("outcomes " + ", ".join(f"{k} {ends.count(k)}" for k in dict.fromkeys(sorted(ends, key=_outcome_order))))
    shown = sorted(te, key=lambda e: e.get("outcome") == "returned")[:EXECUTIONS_SHOWN]  # the failures first
    out += [f"  {call_named(e)}: {execution_head(e)}" for e in shown]
    if len(te) > len(shown):
        out.append(f"  and {len(te) - len(shown)} more (--json lists them under tool_executions)")
    return out


def _outcome_order(name: str) -> tuple:
    return (("returned", "failed", "interrupted").index(name) if name in ("returned", "failed", "interrupted") else 3, name)


def show(
    session: str = typer.Argument(..., help="Session id, or a unique prefix of one."),
    ident: str = typer.Argument(..., metavar="ID", help="Any id the document prints: a node id (talk/…, call/…, tool/…, run/…), a relation (rel/…) or unresolved entry (unres/…) id, a stream name, a record id, a tool-use id or a provider call id."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default: storage.root, else ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (its view.hide is withheld)."),
) -> None:
    """Print every landed record behind an id, each with its file and row.

    A node id prints the records the node cites (a talk or run citing none:
    those of every node under it); a relation id (rel/…) the records its
    evidence cites (with none, its from and to nodes'); an unresolved entry id
    (unres/KIND/REF) the records of stream REF, else those naming REF as id,
    tool-use id, call id or parent; a plain stream name (acompact-f46190)
    every record of that stream's landed files; any other id prints the records
    whose id, tool-use id or provider call id it is. Output per record:
    ``<file>:<row>`` (row 1 is the line after the header) then the record
    line as stored (under an execution record, its arguments_check: agree, differ
    or cannot_compare, with the transcript's input; its transcript_check: the
    tool name, outcome and result held against the transcript's; and
    observed_again when another record of the same call differs), except that control characters, C1 and bidi overrides
    are written as JSON escapes (``\\u001b``, ``\\u0085``, ``\\u202e``: the
    same value, nothing that steers the terminal); a record carrying a flag view.hide names keeps its
    envelope and flags, its parts lose their text (docs/view.md, Withholding). A file whose
    closing digest or count does not match shows nothing and is named on
    stderr. Exit 1 when the root does not exist, nothing matches or a file does not verify; 2 for a
    session prefix that names several sessions, or an empty SESSION or ID.
    """
    import orjson

    from ..reading.ids import IdError, session_id
    from ..reading.show import find_records
    from ..reading.termtext import visible
    from ..view.server import withhold_record
    from .reading_common import fail_id, refuse_empty_id, settings

    refuse_empty_id("show", session, "SESSION")
    refuse_empty_id("show", ident)
    r, hide = settings("show", root, config)
    try:
        session = session_id(r, session)
    except IdError as exc:
        raise fail_id("show", exc)
    found = find_records(r, session, ident)
    checks = ExecutionChecks(r, session, hide) if any(_is_execution(p) for p, _, _ in found.hits) else None
    for path, why in found.damaged:
        typer.echo(f"asz show: {path.relative_to(r).as_posix()} does not verify, nothing of it is shown: {why} "
                   f"(asz verify names the damage)", err=True)
    for path, row, rec in found.hits:
        typer.echo(f"{visible(path.relative_to(r).as_posix())}:{row}")
        line = encode_record(rec)
        if hide and set(hide).intersection(rec.flags):
            from ..sessiondata.jsonbytes import loads

            line = orjson.dumps(withhold_record(loads(line, exact=True)))  # lone surrogate escapes and wide numbers read
        typer.echo(visible(line.decode("utf-8"), json=True))
        said = checks.said(path, row) if checks is not None else None
        if said:
            typer.echo(said)
    if not found.hits and not found.damaged:
        typer.echo(f"asz show: no landed record of session {session} has id, tool-use id, call id or node id {ident!r}", err=True)
    if not found.hits or found.damaged:
        raise typer.Exit(1)


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
        from ..termsafe import one_line, shell_word

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
