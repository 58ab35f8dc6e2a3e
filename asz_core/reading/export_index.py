"""The index page of a folder export (``asz export --project P`` / ``--since D`` with ``--out DIR``): ``index.md`` and
``index.html`` linking each conversation's file, with its state, tokens and cost, and the total (docs/reading.md,
``asz export``).

``index.html`` is grouped by project (trial 21, "Exports": one flat table of 111 rows told nothing apart): a list of
the projects at its top, each linking its section; a section per project, newest activity first, headed by its name
and its totals (conversations, tokens, cost as the page's total line counts them, the first and last record of the
project's conversations, and their spans summed: each one's first to last record, added up, named as such, trial
37a F8), then its conversations' table. Each conversation's
page links back to the index (:func:`~asz_core.reading.export.to_html`'s ``index``). Self-contained as every page
of an export: no script, no external reference.
"""

from __future__ import annotations

import html
from typing import Collection, Mapping, Sequence

from ..view.rate_words import COMMAND_TITLE, command_title, listed_title
from ..view.zone import zone_name
from .export import isolated, page, when_text as _when
from .export_blocks import literal
from .export_render import COUNTED_IN_RENDER, INDEX_WORDS_RENDER, drawn
from .head_said import html_head, index_head, runtime_said, runtimes_drawn
from .termtext import md_line

__all__ = ["counted_elsewhere", "github_slugs", "index_figures", "index_html", "index_markdown", "marks_said", "project_groups", "summed_row"]


def _index_state(r: dict, flagged: Collection[str]) -> tuple[str, bool]:
    """(the state an index shows for row ``r``, whether it does not verify: its state is not ``verified``, or its
    export warned, ``flagged``)."""
    state = str(r.get("state") or "")
    bad = r["id"] in flagged or state not in ("", "verified")
    return (state or "not verified") if bad else (state or "-"), bad


def _index_note(rows: Sequence[dict], flagged: Collection[str], skipped: Mapping[str, str] = {}) -> str:
    """``N of M conversation(s) do not verify …`` when some do (``skipped``, not exported, said apart), else ''."""
    n = sum(_index_state(r, flagged)[1] for r in rows if r["id"] not in skipped)
    note = (f"{n} of {len(rows)} conversation(s) do not verify: what is missing or does not verify is held back "
            "and marked in each one's page, and asz verify names the damage.") if n else ""
    from .listing import UNTIMED

    bad = [c for c, why in skipped.items() if why != UNTIMED]  # no time yet: nothing wrong (trial 27b F6)
    if bad:
        note += (" " if note else "") + (f"{len(bad)} of {len(rows)} conversation(s) not exported (no usable round; "
                                         "the state column says why, asz verify names the problems).")
    if len(bad) < len(skipped):
        note += (" " if note else "") + (f"{len(skipped) - len(bad)} of {len(rows)} conversation(s) not in the window: "
                                         "no record with a time of its own yet (nothing is wrong).")
    return note


def index_figures(r: dict) -> tuple[str, str]:
    """A row's tokens and cost as an index shows them: ``held back`` for a conversation that does not verify (its
    figures are in no total), else as ``asz ls`` prints them (:func:`~asz_core.reading.listing.figure_cells`:
    ``not recorded`` and ``-`` where no call recorded token counts, ``+`` and ``*`` marks, ``unpriced``; render 28 and
    before: no marks)."""
    from .listing import cost_value, total_tokens

    if r.get("held_back"):
        return "held back", "held back"
    if drawn() >= INDEX_WORDS_RENDER:  # asz ls's cells, marks and words, by its function (trial 45d F4)
        from .listing import figure_cells

        return figure_cells(r)
    if r.get("usage_recorded") is False:
        return "not recorded", "-"
    from ..view.prices import cents_before, exact_usd, money

    tokens, cost = total_tokens(r.get("usage")), cost_value(r.get("cost"))
    c = r.get("cost")
    if isinstance(c, dict) and c.get("priced") is False and c.get("unpriced") and not cents_before():
        return ("-" if tokens is None else f"{tokens:,}"), "unpriced"  # never $0.00 (trial 32a F8)
    shown = money(c if exact_usd(c) is not None else cost)  # the exact amount rounded once, <$0.01 when small
    return ("-" if tokens is None else f"{tokens:,}"), ("-" if cost is None else shown)


def counted_elsewhere(root, ids: Sequence[str], hide: Sequence[str] = (), table=None) -> dict[str, dict]:
    """``conversation -> {"name", "calls", "tokens", "usd_exact", "under"}``: of each of ``ids`` (conversations of
    storage root ``root``, read withholding ``hide``), the provider calls another of ``ids`` holds too and that a total
    over them counts under that one (:func:`~asz_core.view.usage_once.once`: the copy made first; a fork, an import, a
    session copied under a new id), their tokens, their exact cost (a Decimal, priced with ``table``, the one the rows
    were priced with) and ``under``, ``{name: calls}`` of the conversations they are counted under; a conversation is
    named as ``asz usage`` names it among ``ids`` (:func:`~asz_core.storage.ids.shown_names`). Only conversations
    holding such calls are keys, ``{}`` when none (trial 35a F5, review36 item 2: an index's total added up the rows
    and counted such calls in each). What :func:`_index_total` takes off the rows' sum, so an index's total is
    ``asz usage``'s over the same conversations."""
    from decimal import Decimal

    from ..storage.ids import shown_names
    from ..view.usage import TOKEN_KINDS
    from ..view.usage_report import once, read_root, report, zone_of

    counted, _ = read_root(root, zone_of("UTC"), hide, ids=list(ids))
    kept, same = once(counted)
    if not same:
        return {}
    left, shown = {id(c) for c in kept}, shown_names(ids)
    gone = [c for c in counted if id(c) not in left]
    return {r["conversation"]: {"name": shown(r["conversation"]), "calls": r["calls"],
                                "tokens": sum(r["usage"][k] for k in TOKEN_KINDS),
                                "usd_exact": Decimal(r["cost"].get("usd_exact") or "0"),
                                "under": {shown(o): n for o, n in same[r["conversation"]]["counted_in"].items()}}
            for r in report(gone, "session", table)}


def _index_total(rows: Sequence[dict], elsewhere: Mapping[str, dict] = {}) -> str:
    """``N conversation(s), T tokens, $C`` over the rows whose figures count (held-back ones left out, and said); ``C``
    their exact costs added (``usd_exact``) and rounded once to the cent. ``elsewhere``
    (:func:`counted_elsewhere`): the calls a row holds that another row's conversation holds too and is counted under
    are taken off, so each is counted once, and said (each row keeps its own figure)."""
    from decimal import Decimal

    from ..view.row_filters import cost_exact, cost_value, total_tokens

    counted = [r for r in rows if not r.get("held_back")]
    tokens = sum(total_tokens(r.get("usage")) or 0 for r in counted)
    # the rows' exact amounts added, rounded once to the cent (trial 26b, F8: never a sum of rounded rows)
    cost = sum((cost_exact(r.get("cost")) if cost_exact(r.get("cost")) is not None
                else Decimal(str(cost_value(r.get("cost")) or 0)) for r in counted), Decimal(0))
    twice = [elsewhere[r["id"]] for r in counted if r["id"] in elsewhere]  # by row: 3 named, as asz usage's line
    tokens -= sum(e["tokens"] for e in twice)
    cost -= sum((e["usd_exact"] for e in twice), Decimal(0))
    held = len(rows) - len(counted)
    from ..view.prices import money

    n = sum(e["calls"] for e in twice)
    said = f"{tokens:,} tokens, {money(cost)}"
    if drawn() >= INDEX_WORDS_RENDER:  # as asz usage's total says it: not recorded, never 0; + and * (trial 45d F4)
        from .listing import figure_cells, token_cell

        row = summed_row(counted, tokens, cost, twice)
        (count, words), priced = token_cell(row), figure_cells(row)[1]  # the figure and its marks apart: "318 tokens +"
        said = (f"{count:,} tokens{' ' + words if words else ''}, {priced}" if count is not None
                else f"tokens {words}, cost {priced}")
    return (f"{len(rows)} conversation(s): {said}"
            + (f" ({held} held back, in neither figure)" if held else "")
            + (f" ({n:,} model call(s) that two conversations or more hold are counted once, {_counted_under()}: "
               + "; ".join(f"{e['name']}'s " + ", ".join(f"{k:,} under {o}" for o, k in e["under"].items())
                                           for e in twice[:3])
               + (f" and {len(twice) - 3} more conversation(s)" if len(twice) > 3 else "")
               + "; the same call id and request id: a fork, an import or a copy under a new session id; each row "
               "counts its own)" if n else ""))


def _counted_under() -> str:
    """Where an index's total says a call two rows hold is counted: :data:`~asz_core.view.usage_once.COUNTED_UNDER`
    from render 33, render 32 and before ``under the one that made them first`` (its words before b4afd475's rule)."""
    from ..view.usage_once import COUNTED_UNDER

    return COUNTED_UNDER if drawn() >= COUNTED_IN_RENDER else "under the one that made them first"


def summed_row(counted: Sequence[dict], tokens: int, cost, twice: Sequence[dict]) -> dict:
    """The rows ``counted`` as one row of :func:`~asz_core.reading.listing.figure_cells`' keys, with ``tokens`` and
    the exact ``cost`` (a Decimal) :func:`_index_total` added up: ``usage_recorded`` false when none of them recorded
    token counts (Kiro, LangSmith: ``not recorded``, never 0), the model calls and those with usage summed (``+``), the
    cost's ``unpriced`` models, ``priced`` (false when no row recording usage had a price: ``unpriced``) and rate
    marks as ``asz usage``'s total sums them; ``usage``/``cost`` None when no row counts (``-``)."""
    recorded = [r for r in counted if r.get("usage_recorded") is not False]
    costs = [c for r in recorded if isinstance(c := r.get("cost"), dict)]
    unpriced = sorted({m for c in costs for m in c.get("unpriced") or () if isinstance(m, str)})
    calls = sum(r.get("llm_calls") or 0 for r in counted) - sum(e["calls"] for e in twice)
    return {"usage_recorded": bool(recorded) or not counted, "usage": {"in": tokens} if counted else None,
            "llm_calls": calls, "calls_with_usage": sum(r.get("calls_with_usage") or 0 for r in recorded),
            "usage_incomplete": sum(r.get("usage_incomplete") or 0 for r in counted),
            "cost": {"usd_exact": str(cost), "unpriced": unpriced,
                     "priced": any(c.get("priced") is not False for c in costs) or not unpriced,
                     "rate_not_priced_calls": sum(c.get("rate_not_priced_calls") or 0 for c in costs),
                     "rate_not_checked_calls": sum(c.get("rate_not_checked_calls") or 0 for c in costs)}
            if counted else None}


def marks_said(rows: Sequence[dict], elsewhere: Mapping[str, dict] = {}) -> list[str]:
    """The lines ``asz usage`` prints under its table for the marks of the whole export's total (:func:`summed_row`):
    ``* unpriced, left out of the cost: …`` and ``+ N of M model call(s) carry no token counts …``; [] for none, or
    for a copy of render 28 or before (no marks). ``index.md`` writes each after a ``\\`` (not a list item), a cell's way (:func:`_md_cell`)."""
    from ..view.rate_words import calls_uncounted, partial_line
    from .listing import unpriced_line

    counted = [r for r in rows if not r.get("held_back")]
    if drawn() < INDEX_WORDS_RENDER or not counted:
        return []
    row = summed_row(counted, 0, 0, [elsewhere[r["id"]] for r in counted if r["id"] in elsewhere])
    n = calls_uncounted(row["llm_calls"], row["calls_with_usage"])
    return [x for x in (unpriced_line(row["cost"]["unpriced"]),
                        partial_line(n, row["llm_calls"], f"total ({n:,} of {row['llm_calls']:,})") if n else "") if x]


def index_markdown(rows: Sequence[dict], files: dict[str, str], flagged: Collection[str] = (),
                   skipped: Mapping[str, str] = {}, elsewhere: Mapping[str, dict] = {}) -> str:
    """A Markdown index linking each row's exported file (``files``: conversation id -> file name, or the names of
    its parts in order, each linked: ``asz export --split``), with its
    verification state (bold with ``does not verify`` when not verified or in ``flagged``, as each page says); a row
    in ``skipped`` (conversation id -> why) is listed as not exported, with the reason, and no link. Grouped by project
    as ``index.html`` is (:func:`project_groups`; trial 37a F6: one flat table and a grand total on GitHub): a list of
    the projects linking their sections (anchors by GitHub's heading rule, :func:`github_slugs`), then per project a
    ``##`` heading, its totals line (:func:`_index_total`, :func:`_ran`) and its table; the whole export's total
    ends the page. Each total counts each provider call once (``elsewhere``: :func:`counted_elsewhere`)."""
    lines = ["# Conversations", "", f"Last activity in {zone_name()}.", ""]
    note = _index_note(rows, flagged, skipped)
    cell = _md_cell if drawn() >= 9 else lambda value: literal(md_line(value)).replace("|", "\\|")
    if note:
        lines += [f"**{note}**", ""]
    groups = project_groups(rows)
    names = [md_line(p) if p else "(no project)" for p, _ in groups]
    slugs = github_slugs(names)
    lines += [f"{len(groups):,} project(s), the one active last first; active: its first record to its last; spans "
              "summed: each conversation's first to last record, added up (not time worked).", ""]
    lines += [f"- [{_md_heading(n)}](#{slug}): {_index_total(mine, elsewhere)} · {_ran(mine, md=True)}"
              for n, slug, (_, mine) in zip(names, slugs, groups)]
    for n, (_, mine) in zip(names, groups):
        lines += ["", f"## {_md_heading(n)}", "", f"{_index_total(mine, elsewhere)} · {_ran(mine, md=True)}", "",
                  *index_head()]
        lines += [_md_row(r, files, flagged, skipped, cell) for r in mine]
    return "\n".join(lines + ["", _index_total(rows, elsewhere)] + [x for m in marks_said(rows, elsewhere) for x in ("", "\\" + _md_cell(m))]) + "\n"


def _md_row(r: dict, files: dict, flagged: Collection[str], skipped: Mapping[str, str], cell) -> str:
    """One conversation's row of ``index.md``."""
    title = cell(listed_title(r.get("title") or "(untitled)"))  # one line, no ESC (34c F4), nothing a viewer runs
    project = cell(str(r.get("project") or ""))
    state, bad = _index_state(r, flagged)
    state = f"**{state}: does not verify**" if bad else state
    names = files[r["id"]]
    link = ", ".join(f"[{n}]({n})" for n in ([names] if isinstance(names, str) else names))  # each part of a --split
    if r["id"] in skipped:
        state, link = "**not exported: " + " ".join(skipped[r["id"]].split()).replace("|", "\\|") + "**", f"`{r['id']}`"
    tokens, cost = index_figures(r)
    runtime = f" {cell(runtime_said(r) or '-')} |" if runtimes_drawn() else ""  # its own column (render 57)
    return (f"| {_when(r.get('to')) or 'unknown'} | {title} | {project} |{runtime} {r.get('talks') or 0} | {tokens} | {cost} | "
            f"{state} | {link} |")


def _md_heading(name: str) -> str:
    """A project's name (one line already) as the text of an ``index.md`` heading or link: its backslashes a viewer
    reads as escapes escaped (:func:`~.export_blocks.literal`), nothing a viewer runs (:func:`~.md_active.inert`), its
    ``[``/``]`` escaped too (a link's text)."""
    from .md_active import inert

    return inert(literal(name)).replace("]", "\\]")


def github_slugs(texts: Sequence[str]) -> list[str]:
    """The anchor GitHub (and GitLab, VS Code's preview: the github-slugger rule) gives a heading of each of ``texts``
    (shown text, in page order): :func:`~.export_nav.slug`; a slug met before gets ``-1``, ``-2``, …"""
    from .export_nav import slug as slug_of

    seen: dict[str, int] = {}  # github-slugger's occurrences: a slug met -> the last suffix given to its base
    out = []
    for t in texts:
        base = slug_of(t)
        slug = base
        while slug in seen:
            seen[base] += 1
            slug = f"{base}-{seen[base]}"
        seen[slug] = 0
        out.append(slug)
    return out


def _md_cell(value: str) -> str:
    """``value`` (a title or a project) as a cell of ``index.md`` (render 9): one line (:func:`~.termtext.md_line`), its
    backslashes a viewer reads as escapes escaped outside code (:func:`~.export_blocks.literal`, render 8: a path as written), its ``<`` and ``[`` escaped so that no viewer runs or fetches what it holds (:func:`~.md_active.inert`; fix36c), its
    ``|`` so that it stays one cell."""
    from .md_active import inert

    return inert(literal(md_line(value))).replace("|", "\\|")


def project_groups(rows: Sequence[dict]) -> list[tuple[str, list[dict]]]:
    """``[(project, its rows)]``: ``rows`` grouped by ``project`` ('' for none), each group in the rows' order, the
    groups in the order of their first row (rows newest first: the project active last comes first); a project's two
    Unicode spellings (NFC, macOS's NFD) are one group, named in NFC (trial 31c F2), and so are the names of one Windows
    folder (any letter case, either separator, WSL's ``/mnt/<d>``: :func:`~asz_core.sessiondata.spelling.project_key`),
    named by the form its rows give most often (trial 36c F2)."""
    from ..sessiondata.spelling import nfc, project_forms, project_key

    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(project_key(str(r.get("project") or "")), []).append(r)
    return [(project_forms([nfc(str(r.get("project") or "")) for r in g])[0], g) for g in groups.values()]


def _spans(rows: Sequence[dict]) -> tuple[str, str, str]:
    """``(first, last, summed)`` of ``rows``: the oldest ``from`` and the newest ``to`` as the index writes a time ('' of
    rows with no times), and each row's first to last record added up (``800h20m56s``; a row with no times adds
    nothing)."""
    from ..reading.listing import duration_ms
    from ..sessiondata.times import format_duration

    ms = sum(duration_ms(r) or 0 for r in rows)
    first = min((r["from"] for r in rows if isinstance(r.get("from"), int)), default=None)
    last = max((r["to"] for r in rows if isinstance(r.get("to"), int)), default=None)
    return ("" if first is None else _when(first)), ("" if last is None else _when(last)), format_duration(ms // 1000)


def _ran(rows: Sequence[dict], md: bool = False) -> str:
    """``active <span class="when">2025-11-03 09:12:00</span> to <span class="when">2026-02-11 22:54:12</span> ·
    spans summed 800h20m56s`` (HTML; ``md``: the same words, the dates plain): the dates the project was active
    between (:func:`_spans`), then each row's first to last record added up, named as that sum (trial 37a F8: ``ran
    800h20m56s`` for 12 conversations read as 800 hours of work; conversations open for days each count whole), each
    date kept on one line (:data:`INDEX_CSS`)."""
    first, last, summed = _spans(rows)
    if not first or not last:
        return f"spans summed {summed}"
    when = (lambda t: t) if md else (lambda t: f"<span class=\"when\">{html.escape(t)}</span>")
    return f"active {when(first)} to {when(last)} · spans summed {summed}"


def _index_row(r: dict, files: dict[str, str], flagged: Collection[str], skipped: Mapping[str, str]) -> str:
    """One conversation's ``<tr>`` of the index."""
    e = html.escape
    state, bad = _index_state(r, flagged)
    cls = " class=\"failed\"" if bad else ""
    title = isolated(r.get('title') or '(untitled)')
    if command_title(r.get("title") or ""):  # a command typed in bash mode, drawn as code: never read as a mark (30b F5)
        title = f"<code title=\"{html.escape(COMMAND_TITLE)}\">{title}</code>"
    cell = f"{e(state)}{' · <b>does not verify</b>' if bad else ''}"
    if r["id"] in skipped:
        cell = f"<b>not exported</b>: {e(skipped[r['id']])}"
    else:
        title = f"<a href=\"{e(files[r['id']])}\">{title}</a>"
    runtime = f"<td>{e(runtime_said(r) or '-')}</td>" if runtimes_drawn() else ""  # its own column (render 57)
    return (f"<tr{cls}><td class=\"when\">{e(_when(r.get('to')) or 'unknown')}</td><td>{title}</td>{runtime}<td>{r.get('talks') or 0}</td>"
            + "".join(f"<td class=\"num\">{e(x)}</td>" for x in index_figures(r)) +
            f"<td class=\"state\">{cell}</td><td class=\"id\">{e(r['id'])}</td></tr>")


#: The index's own style, beside the pages' (:data:`~asz_core.reading.export.CSS`): dates on one line (a cell's and a
#: total's: a browser breaks ``2026-02-11`` after a hyphen, trial 21), figures right.
INDEX_CSS = (".when{white-space:nowrap}td.num{text-align:right;white-space:nowrap}"
             "section.project{margin:1.5em 0}nav.projects li{margin:.1em 0}")


def index_html(rows: Sequence[dict], files: dict[str, str], flagged: Collection[str] = (),
               skipped: Mapping[str, str] = {}, elsewhere: Mapping[str, dict] = {}) -> str:
    """An HTML index page linking each row's exported file, grouped by project (module docstring), with its
    verification state: a conversation that does not verify (state not ``verified``, or in ``flagged``) is marked as
    its own page marks it (class ``failed``); a row in ``skipped`` (conversation id -> why) is marked not exported,
    with the reason, and has no link. The whole export's total ends the page. Each total (a project's, the whole
    export's) counts each provider call once (``elsewhere``: :func:`counted_elsewhere`; a call a project's rows hold
    and another project's conversation made first is in that one's total)."""
    e = html.escape
    groups = project_groups(rows)
    nav, sections = [], []
    for i, (project, mine) in enumerate(groups, 1):
        name = isolated(project) if project else "(no project)"
        totals = f"{e(_index_total(mine, elsewhere))} · {_ran(mine)}"
        nav.append(f"<li><a href=\"#project-{i}\">{name}</a> <span class=\"meta\">{totals}</span></li>")
        sections.append(f"<section class=\"project\" id=\"project-{i}\"><h2>{name}</h2><p class=\"meta\">{totals}</p>"
                        f"<table>{html_head()}{''.join(_index_row(r, files, flagged, skipped) for r in mine)}</table></section>")
    note = _index_note(rows, flagged, skipped)
    head = f"<div class=\"failed\"><b>{e(note)}</b></div>" if note else ""
    return page("Conversations", f"<h1>Conversations</h1><p class=\"meta\">Last activity in {e(zone_name())}.</p>"
                f"<p class=\"meta\">{len(groups):,} project(s), the one active last first; active: its first record to its last; spans summed: each conversation's first to last record, added up (not time worked: a conversation left open for days counts whole).</p>{head}"
                f"<nav class=\"projects\"><ul>{''.join(nav)}</ul></nav>{''.join(sections)}"
                f"<p class=\"meta\">{e(_index_total(rows, elsewhere))}</p>"
                + "".join(f"<p class=\"meta\">{e(md_line(m))}</p>" for m in marks_said(rows, elsewhere)), INDEX_CSS)
