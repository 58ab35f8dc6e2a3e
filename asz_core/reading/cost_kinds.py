"""Why a cost is what it is (trial 19, F9): cost by kind of token, and the costliest talks of a conversation.

``asz usage --breakdown`` (a line under each row and the total) and ``asz conversation`` (a line under its cost) say
what each kind of token cost: input, output, cache writes of 5 minutes and of 1 hour, cache reads, at the price
table's rates (:meth:`~asz_core.view.prices.Price.by_kind`, the same arithmetic as the cost). Each figure is its
exact amount rounded once (:func:`~asz_core.view.prices.money`: ``<$0.01`` when small; trial 32a F8: apportioned
cents read two equal parts ``$0.01`` and ``$0.00``), so they add up to the cost as printed within a cent or so, each carrying the cost's marks (``*`` unpriced models left out, ``^`` calls at a rate the
table does not hold, ``?`` calls whose rate was not checked) and its share of the cost, worked from the exact amounts
(:func:`~asz_core.view.prices.shares`; trial 27a F3). ``asz conversation`` also names its costliest talks,
each by its own model calls (a sub-agent's talk is a talk of its own), each rounded on its own.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import Iterable, Mapping

import orjson

from ..view.placing import walk
from ..view.prices import CENT, PriceTable, kind_costs, kinds_line, kinds_text, money, share_text, shares
from ..view.secret_forms import shown_title
from ..view.usage import NO_MODEL, add_call, zero_usage
from ..view.zone import local_text, zone_name
from ..view.rate_words import cost_marks

__all__ = ["CENT", "TALKS_SHOWN", "share_text", "kinds_text", "kinds_line", "talk_usage", "calls_words", "costliest_lines", "cost_lines",
           "talk_names"]

#: How many talks ``asz conversation`` names as its costliest.
TALKS_SHOWN = 3


def _calls_by_model(nodes: Iterable[dict], seen: set[str]) -> tuple[dict[str, dict], int, int]:
    """``(usage by model, calls with usage, calls)`` of the ``llm.call`` nodes among ``nodes``, each call once
    (``seen``: the ids of those already counted), a long-context call in its sum's long-context part (add_call); a node
    holding several provider calls (its ``requests``: a message retried under a second request id) counts each, the
    summary's ``llm_calls`` rule (:func:`~asz_core.view.usage.call_count`; trial 28a F10: 4 call(s) against 5).
    ``calls`` counts every call as CALLS does, ``calls with usage`` those whose records carry usage (only they add
    tokens; trial 38b F6: ``5 call(s)`` said of a talk of 7 calls, 5 with usage)."""
    by_model: dict[str, dict] = {}
    n = every = 0
    for x in nodes:
        if x.get("kind") != "llm.call" or x.get("id") in seen:
            continue
        seen.add(x.get("id"))
        count = len(x.get("requests") or ()) or 1  # a node holding two provider calls counts two, as llm_calls (trial 28a F10)
        every += count
        if isinstance(x.get("usage"), dict):
            n += count
            add_call(by_model.setdefault(x.get("model") or NO_MODEL, zero_usage()), x["usage"])
    return by_model, n, every


def talk_usage(doc: dict) -> list[tuple[dict | None, dict[str, dict], int, int]]:
    """``(talk, usage by model, calls with usage, calls)`` of each talk of an asz.view document, by its own model
    calls (the calls under it that no talk before it holds), in document order; then ``(None, …)`` for calls in no
    talk (the document's ``loose`` nodes), when there are some."""
    from ..view.usage_buckets import counted_there

    seen: set[str] = set(counted_there(doc))  # calls drawn here and counted in an earlier session (trial 28a F1)
    out: list[tuple[dict | None, dict[str, dict], int, int]] = [(t, *_calls_by_model(walk([t]), seen))
                                                               for t in doc.get("talks") or ()]
    rest, n, every = _calls_by_model(walk(doc.get("loose") or ()), seen)
    if every:
        out.append((None, rest, n, every))
    return out


def calls_words(with_usage: int, calls: int) -> str:
    """``7 call(s)``, or ``7 call(s), 5 with usage`` when some of them carry no usage: CALLS's count, as ``asz ls``
    and ``asz usage`` give it, and how many of them add tokens (trial 38b F6)."""
    return f"{calls:,} call(s)" + (f", {with_usage:,} with usage" if with_usage != calls else "")


def talk_names(root: str | os.PathLike, doc: dict) -> dict[str, str]:
    """``{talk id: heading}`` of the asz.view document ``doc`` in ``root``: each talk's heading as md and html head
    it and the page's ``/headings`` gives it (:func:`~asz_core.view.titles.talk_headings` of the conversation's
    dialect, terminal formatting removed, cut at :data:`~asz_core.view.summary.HEADING_LIMIT`; a sub-agent's talk no
    call started ``Subagent: <the line that opens it>``, else ``Subagent: parent call not found``), the records it
    asks for read one by one from the landed files ``doc`` lists (none from a file that does not verify, as the
    exports read none): the names :func:`costliest_lines` gives (fix46c: an orphan group was named its own way)."""
    from ..view.landed import nth_record
    from ..view.summary import HEADING_LIMIT
    from ..view.titles import talk_headings
    from .export import doc_dialect
    from .export_steps import unverified_files
    from .termtext import plain

    bad = unverified_files(doc)
    files = {f["seq"]: f["file"] for f in doc.get("files") or () if isinstance(f, dict) and isinstance(f.get("file"), str)
             and f.get("seq") not in bad}
    read: dict[tuple, dict | None] = {}

    def record(ref: dict) -> dict | None:
        key = (ref.get("seq"), ref.get("row"))
        if key not in read:
            path, got = files.get(key[0]), None
            try:
                line = nth_record(Path(root) / path, key[1]) if path and isinstance(key[1], int) else None
                got = orjson.loads(line) if line else None
            except (OSError, orjson.JSONDecodeError):
                pass
            read[key] = got if isinstance(got, dict) else None
        return read[key]

    return talk_headings(doc, doc_dialect(root, doc), HEADING_LIMIT, record=record, clean=plain)


def _talk_name(talk: dict | None, doc: dict | None = None, names: Mapping[str, str] | None = None) -> str:
    """``stream main from 2026-02-11 21:41 UTC: Work on bead…`` (the talk's heading in ``names``, :func:`talk_names`:
    as md, html and the page head it, Claude Code's command markup read as typed, a sub-agent's talk no call started
    ``Subagent: …``; without ``names`` its label, its credentials masked as a title's
    (:func:`~asz_core.view.secret_forms.shown_title`); cut at 60 characters; none when the talk has none: a pruned
    conversation), or the calls in no talk. A sub-agent's talk with no heading of its own is named
    as an export's talk heading names it (:func:`~asz_core.reading.export_steps.child_label` of ``doc``, the asz.view
    document: ``Subagent: Explore Tmux module…``, what its parent asked; trial 25a). The time is the talk's own (the document's ``at``, ms
    since the epoch), as an export's talk heading gives it, written in the reader's zone and named
    (:func:`~asz_core.view.zone.local_text`, with its offset in a repeated hour, and
    :func:`~asz_core.view.zone.zone_name`: ``from 2026-02-11 02:56 Asia/Kathmandu``; trial 31c F4: it was UTC whatever
    ``TZ=`` or ``--tz`` said); its span's ``from`` only when it has none: a record the
    runtime wrote later with an older time (Claude Code's ``isMeta`` caveat before a ``/clear``) starts the span but
    not the talk (trial 25b F4, as trial 17b F5 for the headings)."""
    if talk is None:
        return "calls in no talk"
    from .termtext import visible

    from .export import talk_start
    from .export_steps import child_label

    said = names.get(talk.get("id")) if names is not None else str(talk.get("label") or "")
    label = " ".join(shown_title(said or child_label(doc or {}, talk)).split())
    label = (": " + visible(label if len(label) <= 60 else label[:59] + "…")) if label else ""
    at = talk_start(talk)  # 0 is no time: its record's time did not read (trial 30a F8: it read 1970-01-01)
    when = f" from {local_text(at, '%Y-%m-%d %H:%M')} {zone_name()}" if isinstance(at, int) and at else " from a time not known"
    side = " (a sub-agent's lines)" if talk.get("sidechain") else ""  # written in its parent's file (trial 31b F5)
    if side and talk.get("orphan") is True:  # no call and no prompt of their own opened them (field report 34)
        side = " (a sub-agent's lines, parent call not found)"
    return f"stream {talk.get('stream') or 'main'}{side}{when}{label}"


def costliest_lines(doc: dict, table: PriceTable | None = None, shown: int = TALKS_SHOWN,
                    names: Mapping[str, str] | None = None) -> list[str]:
    """The lines ``asz conversation`` prints under its cost: ``costliest talks: 3 of 12 …`` (``3 of 12 with model calls
    (of 14 talks)`` when some talks made none: :func:`_of_all`) and one line per talk,
    ``  $11.50 (99%), 150 call(s), stream main from …: LABEL``, costliest first, each its exact amount as
    :func:`~asz_core.view.prices.money` prints it (trial 32a F8); [] when no call carries usage, the cost is held back
    or none of it had a price. The calls in no talk (under the document's ``loose`` nodes) are ranked on a line of
    their own, ``calls in no talk``, and never counted as a talk (trial 43b F1: ``costliest talks: 1 of 1`` beside
    ``0 talks``): ``all 2 and the calls in no talk add up …``, or, when no talk made calls, ``costliest talks: none,
    no talk made model calls; the calls in no talk are the cost above``. Each talk is named by ``names``
    (:func:`talk_names`) when given, as md, html and the page head it (:func:`_talk_name`)."""
    cost = (doc.get("summary") or {}).get("cost")
    talks = [t for t in talk_usage(doc) if t[2]]
    if not isinstance(cost, dict) or "usd" not in cost or not talks:
        return []
    if cost.get("priced") is False and cost.get("unpriced"):
        return []  # none of it had a price: no talk cost $0.00 (trial 32a F8; the cost line says unpriced)
    exact = {i: sum(kind_costs(by_model, table).values(), Decimal(0)) for i, (_, by_model, _, _) in enumerate(talks)}
    share = shares(exact)
    order = sorted(exact, key=lambda i: exact[i], reverse=True)[:shown]
    marks, real = cost_marks(cost), sum(t[0] is not None for t in talks)
    loose = " and the calls in no talk" if real < len(talks) else ""  # never counted as a talk (trial 43b F1)
    named = sum(talks[i][0] is not None for i in order)
    out = [f"costliest talks: {named} of {real}{_of_all(doc, talks)}, each by its own model calls (a sub-agent's "
           f"talk is one of its own; all {real}{loose} add up to the cost above, each rounded on its own)" if real else
           f"costliest talks: none, no talk{_of_all(doc, talks) and ' of ' + str(doc['summary']['talks'])} made model calls; "
           f"the calls in no talk are the cost above"]
    for i in order:
        talk, _, n, every = talks[i]
        out.append(f"  {money(exact[i])}{marks}{share_text(share[i])}, {calls_words(n, every)}, {_talk_name(talk, doc, names)}")
    return out


def _of_all(doc: dict, talks: list) -> str:
    """`` with model calls (of N talks)`` when fewer talks made model calls than the conversation has (the summary's
    ``talks``, the ``state … N talks`` line: an interrupted turn has none; trial 38a F5), else ''."""
    n = (doc.get("summary") or {}).get("talks")
    costed = sum(1 for t in talks if t[0] is not None)
    return f" with model calls (of {n:,} talks)" if isinstance(n, int) and n > costed else ""


def cost_lines(doc: dict, table: PriceTable | None = None, names: Mapping[str, str] | None = None) -> list[str]:
    """What ``asz conversation`` prints under its ``cost $…`` line: ``cost by kind: …`` (:func:`kinds_text` of the
    summary's usage by model) and :func:`costliest_lines` (its talks named by ``names``); [] when the cost is held back (the conversation does not
    verify) or no call carries token usage (Kiro: cost -)."""
    s = doc.get("summary") or {}
    if s.get("held_back") or not isinstance(s.get("cost"), dict) or not s.get("calls_with_usage"):
        return []
    return [f"cost by kind: {kinds_line(s['cost'], s.get('usage_by_model') or {}, table)}", *costliest_lines(doc, table, names=names)]
