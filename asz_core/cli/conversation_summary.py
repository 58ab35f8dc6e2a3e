"""What ``asz conversation ID`` prints by default: the short summary of an asz.view document, line by line (seed 004).

Split from :mod:`asz_core.cli.view_cmd` (the commands ``asz conversation`` and ``asz show``): the title, usage and
cost lines, rounds, entities and state, the API error steps, sources stopped or gone, tool executions held against
the transcript (:func:`execution_lines`), cut text, calls per tool (:func:`tools_lines`), links, coverage,
undescribed parts and problems (:func:`summary_lines`); with a receiving root's senders, a removal, and the lines of
earlier adapter versions (:func:`landed_by_lines`) or another asz build's rounds (:func:`assembled_by_lines`)
placed by :func:`conversation_summary`.
"""

from __future__ import annotations

from pathlib import Path

from ..reading.export_blocks import again_said, call_named, execution_head, held_said, one_side_said, outcome_said
from ..reading.listing import link_lines, usage_lines
from ..termsafe import one_line, shell_word
from ..view.arguments_check import HELD_DIFFER, TRANSCRIPT_CHECKS, transcript_differences

__all__ = ["UNDESCRIBED_SHOWN", "EXECUTIONS_SHOWN", "TOOLS_SHOWN", "conversation_summary", "summary_lines", "outside_steps", "tools_lines",
           "execution_lines", "landed_by_lines", "assembled_by_lines"]

#: Undescribed parts the short summary of ``asz conversation`` names one by one.
UNDESCRIBED_SHOWN = 5
#: How many execution records `asz conversation` says one line of (failed and interrupted ones first; trial 25a, F1).
EXECUTIONS_SHOWN = 5


def conversation_summary(r: Path, conversation_id: str, doc: dict, table) -> list[str]:
    """The lines ``asz conversation ID`` prints by default (no --json or --yaml) for ``doc``, the conversation's
    asz.view document in root ``r``, priced by ``table``: :func:`summary_lines`, with the removal line and the senders
    line after the first, ``ran from A to B (times in ZONE)`` after the project line (:func:`~asz_core.reading.export.span`,
    the export header's words, in ``--tz``), and the earlier adapter versions' and another build's lines after ``landed through seq``."""
    from ..reading.cost_kinds import talk_names  # the costliest talks named as md and the page head them (fix46c)
    from ..reading.ids import shown_conversation_ids  # the prefix its hints print, one that works (trial 43b F3)
    from ..reading.removed import removal_line, shown_removed
    from ..reading.termtext import visible
    from ..storage.senders import mixed_credentials, senders_line
    from ..termsafe import line_value
    from ..view.counted_in import summary_counted_in  # a copy counted where it continues: 0, counted in ID (46a F5)
    from ..view.secret_forms import shown_places  # a credential in its cwd or branch masked as in a title (trial 37a F2)
    from .conversations_cmd import conversation_senders

    removal = shown_removed(doc)  # placed as asz ls shows a pruned conversation (trial 15, F5)
    name = shown_conversation_ids(r, [doc["conversation"]])[doc["conversation"]] if doc.get("conversation") else ""
    shown = {**doc, "summary": summary_counted_in(r, shown_places(doc["summary"]))} if isinstance(doc.get("summary"), dict) else doc
    lines = summary_lines(shown, table, name, talk_names(r, doc), root=r)
    if removal is not None:
        lines.insert(1, removal_line(removal))
    senders = conversation_senders(r, conversation_id)
    if said := senders_line(senders):  # a receiving root: who sent it (trial 19, F3), its ids drawn as asz ls draws them
        lines.insert(1, line_value(said))  # (an instance id is the sender's own word: trial 34c F3; one line: review34)
    if mixed := mixed_credentials(senders):  # never plain verified (trial 27c F1)
        lines = [f"state {line[6:].split(':', 1)[0]}, {mixed}:{line.split(':', 1)[1]}" if line.startswith("state ")
                 and ":" in line else line for line in lines]
    from ..reading.export import span  # when it ran, as the export header and asz ls say it (trial 36b F5)

    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("project ")), 1)
    at += lines[at].startswith("renamed: ") if at < len(lines) else 0  # the project's own note stays under it
    lines.insert(at, f"ran {span(r, doc)}")
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
    version`` (:func:`~asz_core.collect.older_landed.which_version`); files of a dialect no installed adapter speaks,
    ``landed by heron/0.1.0 (2 of 2 file(s)) in heron/1: no installed adapter speaks it (asz adapters list); …``
    (trial 49c F3). [] when every file is of the installed version (docs/storage-root.md, "A root
    several asz versions read")."""
    from ..collect.older_landed import older_landed, which_version
    from ..view.unspoken import NOT_INSTALLED

    out = []
    for o in older_landed(root, sessions, unspoken=True):
        if not o.today:  # its dialect no installed adapter speaks (trial 49c F3: the line went without a word)
            out.append(f"landed by {o.adapter} ({o.files} of {o.total} file(s)) in {o.dialect}: {NOT_INSTALLED}; "
                       "where its adapter would answer, asz's defaults read them")
            continue
        line = f"landed by {o.adapter} ({o.files} of {o.total} file(s)), {which_version(o.adapter, o.today)} version than the installed {o.today}"
        if o.said:
            line += (f", which did not keep or read as it does: {'; '.join(o.said)}; collecting the same sources into a new "
                     f"root (asz collect --once --root NEW, while the runtime keeps them) lands them by {o.today}")
        out.append(line)
    return out


#: The tools ``asz conversation``'s ``tools`` line names; the rest are counted in one ``and N more``.
TOOLS_SHOWN = 12


def tools_lines(tools: list[dict]) -> list[str]:
    """``asz conversation``'s line of the calls per tool (the document's ``summary.calls_by_tool``, trial 30b F2), none for no
    tool: ``tools 196 call(s) of 11 tool(s): Bash 85 (3 failed, 1 refused), Read 47, …`` (most calls first, the first
    :data:`TOOLS_SHOWN`), then, when asz hook's execution records name some, how many of each."""
    if not tools:
        return []
    calls = sum(t["calls"] for t in tools)

    def one(t: dict) -> str:
        said = [f"{t[k]:,} {k}" for k in ("failed", "refused") if t.get(k)]  # refused by the person (trial 38a F4)
        return f"{t['name']} {t['calls']:,}" + (f" ({', '.join(said)})" if said else "")

    used = [t for t in tools if t["calls"]]
    line = (f"tools {calls:,} call(s) of {len(used):,} tool(s): " + ", ".join(one(t) for t in used[:TOOLS_SHOWN])
            + (f", and {len(used) - TOOLS_SHOWN:,} more (--json: summary.calls_by_tool)" if len(used) > TOOLS_SHOWN else ""))
    hooked = [t for t in tools if t["executions"]]
    out = [line] if used else []
    if hooked:
        out.append("  execution records per tool: " + ", ".join(f"{t['name']} {t['executions']:,}" for t in hooked[:TOOLS_SHOWN])
                   + (f", and {len(hooked) - TOOLS_SHOWN:,} more" if len(hooked) > TOOLS_SHOWN else ""))
    return out


def summary_lines(doc: dict, table=None, name: str = "", names: dict | None = None, root: Path | None = None) -> list[str]:
    """The short summary ``asz conversation ID`` prints of an asz.view document ``doc`` (seed 004), line by line:
    title, usage (and under its cost, what each kind of token and the costliest talks cost at the prices ``table``:
    :func:`~asz_core.reading.cost_kinds.cost_lines`; trial 19, F9), rounds and head, landed seq, entities, state, the
    API error steps (``errors N API error step(s): …`` when the document counts any: a failed run), sources no longer read (``stopped:``, one each), sources gone,
    tool executions and the ones whose arguments differ (:func:`execution_lines`), cut text, links, coverage,
    undescribed parts, problems. ``name`` is the conversation's shortest unique prefix in its root
    (:func:`~asz_core.reading.ids.shown_conversation_ids`), what a hint prints; its first 8 characters when not given.
    ``names``: each talk's heading (:func:`~asz_core.reading.cost_kinds.talk_names`), which the costliest talks
    are named by; ``root``: the document's root, where a repeated record holding an undrawn result's call is read."""
    out: list[str] = []
    s = doc["summary"]
    through = max((f["through_seq"] or 0 for f in doc["rounds"]), default=0)
    from ..reading.termtext import visible

    out.append(f"conversation {doc['conversation']}: {visible(s['title'] or '(title withheld)')}")
    from ..reading.cost_kinds import cost_lines

    out.extend(map(visible, usage_lines(s)))
    at = next((i + 1 for i, line in enumerate(out) if line.startswith("cost ")), len(out))  # cost $…, <$0.01, unpriced (32a F8)
    out[at:at] = cost_lines(doc, table, names)
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
        from ..reading.repeated_call import repeated_calls

        steps = cut_steps(doc, repeated_calls(root, doc) if root is not None else None)  # each step, with its size and sha256 (trial 24b F1, 49d F7)
        out.extend(f"  {visible(line)}" for line in steps)
        if steps:
            out.append(f"  (asz show {name or doc['conversation'][:8]} ID prints a step's record; the whole text is kept only by "
                       "its source file, while it exists)")
    out.extend(map(visible, tools_lines(s.get("calls_by_tool") or [])))  # calls per tool (trial 30b F2)
    out.extend(link_lines(s))
    cov = s.get("coverage") or {}
    if cov:
        apart = outside_steps(doc)
        out.append(f"coverage {cov['cited']}/{cov['records']} records with content drawn or listed"
                   f" ({cov.get('listed', 0)} listed in not_drawn" + (f"; {apart:,} step(s) under no talk, drawn as the "
                                                                     "exports' 'Outside any talk'" if apart else "") + ")")
    und = doc.get("undescribed") or []
    if und:  # trial finding 8: bytes the dialect could not describe are said, not only listed in --json
        blank = sum(1 for u in und if u.get("blank"))  # empty, blank or null lines: no call in them (trial 41b F6)
        bare = sum(1 for u in und if u.get("no_object"))  # a string, a number: no object, so no call (trial 49b F5)
        out.append(f"undescribed {len(und)} record part(s) the dialect could not describe (kept whole; --json lists them "
                   "under undescribed)" + (f"; {blank} of them a line that holds nothing (empty, blanks only, or null), "
                                           "which cannot hold a call: not among the records that could" if blank else "")
                   + (f"; {bare} of them JSON holding no object (a string, a number, true or false, an array of those), "
                      "which cannot hold a call either" if bare else ""))
        for u in und[:UNDESCRIBED_SHOWN]:
            r = u["ref"]
            out.append(f"  seq {r['seq']} row {r['row']} block {r['block']}: {visible(u['reason'])} ({u['bytes']:,} bytes"
                       + ("; it holds nothing, so no call" if u.get("blank") else "")
                       + (f"; {u['no_object']}, which holds no call" if u.get("no_object") else "") + ")")
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


def outside_steps(doc: dict) -> int:
    """How many steps of the asz.view document ``doc`` no talk holds (under its ``loose`` nodes whose stream has no
    talk: :func:`~asz_core.view.placing.loose_talks`), counted as the ``state`` line's steps are (``STEP_KINDS``), which the exports
    draw under ``Outside any talk`` and the page on its Talks tab when it has no talk (trial 43b F1: a transcript with
    no prompt read ``0 talks`` and its calls and replies were drawn nowhere but the page's Loose tab)."""
    from ..view.kinds import STEP_KIND_SET
    from ..view.placing import loose_talks, walk

    placed = loose_talks(doc)
    return sum(n.get("kind") in STEP_KIND_SET for n in walk(x for x in doc.get("loose") or () if x.get("id") not in placed))
