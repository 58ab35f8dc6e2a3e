"""The document's ``summary`` (seed 004; issue 17 adds title rules, places, models, usage and cost)."""

from __future__ import annotations

import math
from collections import Counter
from contextvars import ContextVar
from operator import attrgetter

import msgspec

from .arguments_check import execution_keys
from .kinds import STEP_KINDS, WHITESPACE
from .rows import REMOVED, inside_word  # noqa: F401  (public here too)
from .session_records import header_time, title_unread, title_withheld
from .lists import ListView
from .prices import PriceTable, cost_of
from .secret_forms import shown_title
from .time_order import in_time_order
from .titles import COMPACTION_UNSAID, LandedTitles, PromptTitle, RuntimeTitle, ask_adapter, continued_title, copy_marked, named_for, prompt_text, subagent_title
from .usage import usage_totals

__all__ = ["DocumentView", "metered_model", "meta_fields", "renamed_project", "same_model", "session_model", "HEADING_LIMIT", "NOT_VERIFIED", "NO_PROMPT", "COMPACTION_ONLY", "REMOVED", "TITLE_LIMIT", "inside_word", "observed_cwd", "observed_range", "observed_title", "talks_title", "shorten",
           "short_title", "title_text"]

_KIND = attrgetter("kind")
#: The title of a conversation with no title of its runtime's and no talk with a label.
NO_PROMPT = "(no prompt)"
#: The title of a conversation that does not verify (a landed file missing, changed or damaged) when nothing that is
#: there and verifies names it: neither a title read from evidence that is gone or does not verify, nor
#: :data:`NO_PROMPT`, which would say it had no prompt.
NOT_VERIFIED = "(no verified title)"
#: The title of a verified conversation with no talk and no other title whose records hold a compaction summary (an
#: ``epoch.summary`` step: Claude Code's ``isCompactSummary`` line, field report 35) and what the model did after it:
#: the summary is the runtime's, not a person's input, so no talk opens on it (seed 004), and its text tells what an
#: earlier conversation did, which names this one no better; it is said, not :data:`NO_PROMPT` (fix46c; field report 35's
#: shape; an export of render 29 or before is made again with ``(no prompt)``, :data:`~asz_core.view.titles.COMPACTION_UNSAID`).
COMPACTION_ONLY = "(compaction summary, no prompt)"
#: A title taken from a talk's label is cut to this many characters (whitespace runs count as one space).
TITLE_LIMIT = 100
#: A talk's heading in an export (Markdown, HTML) is cut to this many characters, the ``…`` included.
HEADING_LIMIT = 80


def title_text(label: str, dialect: str = "") -> str:
    """What of a prompt names a conversation: the prompt as the person typed it, as the adapter of ``dialect`` reads
    its runtime's markup (:meth:`~asz_core.plugins.adapter.Adapter.prompt_title`: Claude Code's slash commands,
    bash-mode commands, IDE context); the prompt as written when no adapter speaks ``dialect``."""
    return prompt_text(label, dialect)


def short_title(label: str, dialect: str = "", limit: int = TITLE_LIMIT) -> str:
    """``label`` as a title (:func:`title_text` for ``dialect``): its credentials masked
    (:func:`~asz_core.view.secret_forms.shown_title`, before the cut, so none is left with its head whole), whitespace
    runs made one space, cut to ``limit`` characters by :func:`shorten`."""
    words = shown_title(title_text(label, dialect)).split()
    return shorten(" ".join(w.strip(WHITESPACE) for w in words if w.strip(WHITESPACE)), limit)


#: How far back from the limit a cut looks for a space to end on (characters); a longer word is cut inside.
WORD_BACK = 20


def shorten(text: str, limit: int, back: int = WORD_BACK) -> str:
    """``text`` when it has at most ``limit`` characters, else its first characters and ``…``, ``limit`` in all; a cut
    that falls inside a word (:func:`inside_word`) ends at the last space within ``back`` characters before it instead
    (so a word is not cut in two where a space is near), else inside the word."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if head and inside_word(head[-1], text[limit - 1]):
        space = head.rfind(" ", max(0, limit - 1 - back))
        head = head[:space] if space > 0 else head
    return head.rstrip() + "…"


def metered_model(call_usage: dict, credits_at: list | None, session: str = "") -> dict:
    """``call_usage`` (node id -> :class:`~asz_core.view.usage.CallUsage`) with each call whose records name no model
    given the one model the records that metered the conversation's credits name (``credits_at``'s models, when
    exactly one is named: Kiro CLI 2.x's session document, ``model_info.model_id``, often ``auto``), so a call and the
    credits metered for them are counted under the same model in every view (``asz usage model``, ``asz ls``, the
    page; trial 21, finding 8: the 7 calls read ``(no model)`` while their credits sat on ``auto``); else ``session``,
    the conversation's own model (:func:`session_model`: Kiro 3.x / IDE ``session.json`` ``modelId``; trial 29c, F6).
    Unchanged when neither names exactly one. A call whose records name ``NS::M``, where ``M`` is ``session`` (the
    conversation's own model, named bare), is counted under ``M``: one model under the service's name and its own
    (Kiro IDE: ``session.json`` ``modelId`` ``auto``, its ``Reasoning`` lines' ``reasoningModelId`` ``qdev::auto``; trial
    34a F8: one session's calls under two names, its credits under one). The records keep the name they give."""
    named = {m for _, m, *_ in credits_at or () if m}
    if len(named) != 1 and not session:
        return call_usage
    (model,) = named if len(named) == 1 else (session,)
    return {nid: msgspec.structs.replace(cu, model=model) if not cu.model and not cu.synthetic
            else msgspec.structs.replace(cu, model=session) if same_model(cu.model, session) else cu
            for nid, cu in call_usage.items()}


def same_model(named: str, session: str) -> bool:
    """True when ``named`` is ``NS::M`` (a service's name, ``::``, a model's) and ``M`` is ``session``, the
    conversation's own model named bare (:func:`metered_model`)."""
    return bool(session) and "::" not in session and isinstance(named, str) and named.rpartition("::")[2] == session != named


def session_model(sess) -> str:
    """The conversation's own model: the one ``model`` the session's metadata documents on its main stream name
    (``agent_meta`` records of stream ``main`` naming no ``child``, in landed files that verify: Kiro CLI 3.x and Kiro
    IDE ``session.json`` ``modelId``, 2.x ``<id>.json`` ``model_info.model_id``); '' when none names one or they name
    more than one (docs/adapters/kiro.md, Usage and credits). ``sess`` is a
    :class:`~asz_core.view.session_records.LandedSession`."""
    named: set[str] = set()
    for seq, recs in sess.records.items():
        h = sess.headers.get(seq)
        if h is None or seq in sess.unverified or getattr(h, "kind", "") != "agent_meta" or getattr(h, "stream", "") != "main":
            continue
        named.update(m for r in recs if isinstance(m := r.get("model"), str) and m and not r.get("child"))
    return next(iter(named)) if len(named) == 1 else ""


def not_repeated(asked, sess, links):
    """The ``(record, adapter, dialect)`` of ``asked`` (:func:`~asz_core.view.turn_places.asking` over ``sess``) but
    the records this session repeats from the one it continues (``links.evidence``, the ``continues`` relation's):
    drawn and counted there, their credits too, as their calls and tokens are (trial 34a F3: a byte-for-byte copy of
    a Kiro session, 0 talks, added its credits to the total again)."""
    there = {id(sess.records[seq][row - 1]) for seq, row in links.evidence
             if seq in sess.records and 0 < row <= len(sess.records[seq])}
    return (x for x in asked if id(x[0]) not in there) if there else asked


def repeated_and_here(ids: dict[int, list], evidence: dict[tuple[int, int], str]) -> tuple[set[str], set[str]]:
    """``(repeated, here)``: the ids of the records a session repeats from one it continues (``evidence``, the
    ``continues`` relation's (seq, row): drawn and counted there, :func:`not_repeated`) and of its other records
    (``ids``: seq -> each landed record's id); both empty for a session repeating none (most)."""
    there = {i for seq, row in evidence if seq in ids and 0 < row <= len(ids[seq]) and (i := ids[seq][row - 1])}
    return there, ({i for seq in ids for i in ids[seq] if i and i not in there} if there else set())


def not_elsewhere(asked, turns: dict, apart: tuple[set[str], set[str]]):
    """The ``(record, adapter, dialect)`` of ``asked`` but a record listing turns (``turns``: id(record) -> what
    :func:`~asz_core.view.turn_places.turn_ends` read of it, else asked again) every one of which is another
    conversation's (:func:`~asz_core.view.turn_places.elsewhere` by ``apart``, :func:`repeated_and_here`): a copy's
    Kiro CLI 2.x session document, whose credits count where its turns' calls are (trial 40a F3)."""
    from .turn_places import elsewhere, recorded

    if not apart[0]:
        return asked
    return (x for x in asked if not ((t := turns[id(x[0])] if id(x[0]) in turns else recorded(*x[1:], x[0]))
                                     and all(elsewhere(ids, apart) for _, ids, _ in t)))


class DocumentView(ListView):
    """The whole document's view of a fold: nodes, lists and the summary."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        from .turn_places import placed_calls, turn_ends

        self._turns: dict[int, list | None] = {}  # id(record) -> its turns (turn_places.recorded), asked once a build
        self.turns_outside: list[tuple[int, tuple]] = []  # (end ms, ids) of each turn ending outside the range (36b F9)
        self.call_usage, self.placed_at = placed_calls(self.call_usage, self.nodes, self.sess, turn_ends(self.sess, self._turns, self.recorded_range(self.fold.head), self.turns_outside, repeated_and_here(self.sess.ids, self.links.evidence)))  # a call with no time at its turn's recorded end (kiro22b), inside the recorded range (36b F9)
        self.call_usage = metered_model(self.call_usage, self.credits_at(), self.session_model())

    def summary(self, head, rounds: int, state: str, problems: list[str], undescribed: int, prices: PriceTable | None = None) -> dict:
        """The document's ``summary``; ``undescribed`` is the number of unknown parts (the length of :meth:`undescribed`).

        Issue 17's keys come last: ``project``, ``git_branch``, ``runtime``
        (:meth:`places`), then ``models``, ``usage``, ``usage_by_model``,
        ``usage_by_lane`` (:func:`~asz_core.view.usage.usage_totals`) and
        ``cost`` (:func:`~asz_core.view.prices.cost_of` with ``prices``, the
        shipped table by default); ``title`` follows :meth:`title`.
        """
        kinds: dict[str, int] = Counter(map(_KIND, self.nodes.values()))  # counted in C
        rtypes: dict[str, int] = {}
        quality: dict[str, int] = {}
        for r in self.fold.relations.values():
            rtypes[r.type] = rtypes.get(r.type, 0) + 1
            quality[r.quality] = quality.get(r.quality, 0) + 1
        bodies = sum(len(recs) for seq, recs in self.sess.records.items() if self.sess.headers.get(seq) is not None and self.sess.headers[seq].kind == "provider_body")
        captured = 0
        if not self.hide:
            nodes = self.nodes
            for nid in self.call_usage:  # the llm.call nodes
                pb = nodes[nid].attrs.get("provider_bodies")
                if isinstance(pb, list) and any(isinstance(x, dict) and x.get("role") == "request" for x in pb):
                    captured += 1
        withheld: dict[str, int] = {}
        if self.hide:
            for name in self.b.hide:  # in the flags' documented order (WITHHOLDABLE), not a set's
                seen: set = set()
                for seq, recs in self.sess.records.items():
                    for row, rec in enumerate(recs, 1):
                        if name in rec.get("flags", ()):
                            seen.add(rec.get("id") or (seq, row))
                withheld[name] = len(seen)
            withheld["provider_bodies"] = bodies
        d = {
            "title": self.title(head.title),
            "state": state,
            "problems": list(problems) + [x for x in [title_unread(self.sess.unreadable.values(), self.b.hide)] if x],
            "talks": kinds.get("talk", 0),
            "steps": sum(c for k, c in kinds.items() if k in STEP_KINDS),
            "streams": kinds.get("stream", 0),
            "segments": kinds.get("segment", 0),
            "rounds": rounds,
            "unresolved": sum(1 for u in self.fold.unresolved.values() if u.state == "open"),
            "changes": len(counted_changes(self.changes, self.coverage.not_drawn)),
            "provider_bodies": bodies,
            "captured_prompts": captured,
            "from": None,
            "to": None,
            "kinds": dict(sorted(kinds.items())),
            "relation_types": dict(sorted(rtypes.items())),
            "quality": dict(sorted(quality.items())),
            "withheld": withheld,
            "undescribed": undescribed,
            "cut": self.cut(),
        }
        d["from"], d["to"] = self.recorded_range(head)
        d.update(self.places())
        d.update(usage_totals(self.counted_calls().values()))  # a call counted in an earlier session: not here
        d["cost"] = cost_of(d["usage_by_model"], prices)
        credits = self.credits()
        if credits is not None:  # only then: a conversation whose runtime meters none gives the keys it always gave
            d["credits"] = credits
            d["credits_at"] = self.credits_at_keys()
        if d.get("llm_calls") and (grouped := self.calls_grouped()):  # only then, as credits: asz's grouping, not the runtime's ids
            d["calls_grouped"] = grouped
        if unknown := self.lines_unknown():  # only then, as credits: changed files whose lines are not known
            d["changes_lines_unknown"] = unknown
        removed = self.removal()
        if removed is not None:  # only then, as credits: what retention took (seed 000, Skeletons; trial 19, F21)
            d["removed"] = removed
        if self.executions:  # only then, as credits: the MCP calls whose hook saw other arguments (trial 23a, F8)
            d.update(execution_keys(self.executions, self.unrecorded))  # and the calls only one side saw (33b F1)
        return d

    def recorded_range(self, head) -> tuple[int | None, int | None]:
        """``(from, to)``, unix ms (each None when not known; 0 when the header's is not a time, seed 004): the
        conversation's recorded range, the head round's ``session_from_time`` and ``session_through_time`` (its
        records' first and last times), else, when no stream record has a time, its observations' own (the changes
        and executions entries: trial 20, F14). The summary's ``from``/``to``, and the one range that places a call
        with no time of its own, in ``asz usage`` and the page alike (``usage_report.range_span``; kiro22)."""
        got = header_time(head.session_from_time), header_time(head.session_through_time)
        if got == (None, None) and (seen := observed_range(self.changes + self.executions)):
            return seen  # no stream record has a time: the observations' own
        return got

    def api_errors(self) -> int:
        """How many API error steps (``error.api`` nodes: a model call or a run that ended with an error) the
        conversation has: its ``summary.kinds``' ``error.api``, counted without the summary."""
        return sum(1 for n in self.nodes.values() if n.kind == "error.api")

    def calls_failed(self) -> int:
        """How many model calls an error ended (:func:`~asz_core.view.unended.failed_call_count`): ``summary.calls_failed``."""
        from .unended import failed_call_count

        return failed_call_count((n.kind, [(r.seq, r.row) for r in (n.ref, *n.refs) if r is not None])
                                 for n in self.nodes.values() if n.kind in ("llm.call", "error.api"))

    def lines_unknown(self) -> int:
        """``summary.changes_lines_unknown``: :func:`lines_unknown` of the conversation's :func:`counted_changes`."""
        return lines_unknown(counted_changes(self.changes, self.coverage.not_drawn))

    def removal(self) -> dict | None:
        """``summary.removed``: what retention took of the conversation's landed files (seed 000, Skeletons), or None
        when none of them is a skeleton. ``{"files", "landed", "bytes", "at"}``: ``files`` of the ``landed`` files
        the document reads are skeletons (``.sk``), ``bytes`` the removed files' sizes summed (``removed.size``),
        ``at`` the latest ``removed.at`` (ISO 8601 UTC; '' when no skeleton's header gives one); and, only when some
        skeleton's header does not give it, ``size_unknown``: ``[{"file", "why"}]``, each such skeleton (its path
        under the root) and why (``cannot be read: Permission denied``), its size in no ``bytes`` (review A 26)."""
        sess = self.sess
        gone = [seq for seq in sess.files if seq in sess.removed_at]
        if not gone:
            return None
        d = {"files": len(gone), "landed": len(sess.files),
             "bytes": sum(sess.files[seq]["bytes"] for seq in gone if seq not in sess.size_unknown),
             "at": max(sess.removed_at[seq] for seq in gone)}
        if unknown := [{"file": sess.files[seq]["file"], "why": sess.size_unknown[seq]} for seq in gone if seq in sess.size_unknown]:
            d["size_unknown"] = unknown
        return d

    def credits_at_keys(self, keyed: bool = False) -> list[dict]:
        """``summary.credits_at``: ``[{"at": ms or null, "model", "credits" (6 decimals)}, ...]``, ``key`` too if ``keyed``."""
        return [{"at": at, "model": m, "credits": round(c, 6), **({"key": k} if keyed and k else {})} for at, m, c, k in self.credits_at() or ()]

    def session_model(self) -> str:
        """:func:`session_model` of the conversation, asked once a build."""
        if not hasattr(self, "_session_model"):
            self._session_model = session_model(self.sess)
        return self._session_model

    def credits(self) -> float | None:
        """The credits the runtime metered (Kiro), from the session's landed records that verify: the last running
        total a record gives in landed order plus every figure a record adds
        (:meth:`~asz_core.plugins.adapter.Adapter.credits`), rounded to 6 decimals; None when no record gives one.
        Never tokens, never USD (trial 15, F14)."""
        got = self.credits_at()
        return None if got is None else round(sum(c for _, _, c, _ in got), 6)

    def credits_at(self) -> list[tuple[int | None, str, float, str]] | None:
        """``[(unix ms or None, model, credits), ...]`` in landed order: each verified record's part of the credits the
        runtime metered (:meth:`~asz_core.plugins.adapter.Adapter.credits`): what it adds
        (:class:`~asz_core.plugins.adapter.AddedCredits`), or its running total's change from the last one (below 0
        when a total drops), at the record's ``time`` (None when it has none) and ``model`` (when it names none, the
        conversation's :meth:`session_model`, '' when that is none too);
        a running total whose record lists its turns (:meth:`~asz_core.plugins.adapter.Adapter.turns`, Kiro CLI 2.x)
        replaces the running totals' parts before it and is split on its turns, each turn's credits at the turn's
        recorded end (:func:`~asz_core.view.turn_places.turn_parts`), so a turn's credits go where its calls are;
        a record whose part is 0 is left out, and so is a record
        adding a figure under the ``id`` of one that already added it, and one repeated from an earlier session (:func:`not_repeated`). The parts sum to :meth:`credits`. None when no record gives credits.
        Last, its key (once root-wide): ``record/<id>`` of a record adding it, a turn's (:func:`~.turn_places.turn_parts`).
        Memoised: the summary, the places a list row keeps and ``/api/usage`` read it."""
        if hasattr(self, "_credits_at"):
            return self._credits_at
        from ..plugins.adapter import AddedCredits
        from ..sessiondata.times import parse_instant
        from .turn_places import asking, recorded, turn_parts

        out: list[tuple[int | None, str, float, str]] = []
        seen, total, running = False, 0.0, set()  # running: the places in out of the running totals' parts
        added: set = set()  # the ids of records whose figure was added: a line landed twice adds once
        asked = self._turns  # what turn_ends found of the records it read (their adapter asked once)
        for rec, a, dialect in not_elsewhere(not_repeated(asking(self.sess, "credits"), self.sess, self.links), asked, apart := repeated_and_here(self.sess.ids, self.links.evidence)):
            try:
                got = a.credits(dialect, rec)
            except Exception:  # an adapter's bug takes nothing from the conversation: no credits from it
                continue
            if not isinstance(got, (int, float)) or isinstance(got, bool) or not math.isfinite(got) or got < 0:
                continue
            if isinstance(got, AddedCredits) and rec.get("id"):
                if rec["id"] in added:
                    continue
                added.add(rec["id"])
            part = float(got) if isinstance(got, AddedCredits) else float(got) - total
            if not isinstance(got, AddedCredits):
                total = float(got)
            seen = True
            t, m = rec.get("time"), rec.get("model")
            ns = parse_instant(t) if isinstance(t, str) and t else None
            at, m = None if ns is None else ns // 1_000_000, m if isinstance(m, str) and m else self.session_model()
            turns = None if isinstance(got, AddedCredits) else asked[id(rec)] if id(rec) in asked else recorded(a, dialect, rec)
            if turns is not None:  # the whole running total on the turns it lists, each at its end (kiro22b)
                out = [x for i, x in enumerate(out) if i not in running]
                running = set(range(len(out), len(out) + len(parts := turn_parts(turns, total, at, m, apart))))
                out.extend(parts)
            elif part:
                running |= set() if isinstance(got, AddedCredits) else {len(out)}
                out.append((at, m, part, f"record/{rec['id']}" if isinstance(got, AddedCredits) and rec.get("id") else ""))
        self._credits_at = out if seen else None
        return self._credits_at

    def title(self, runtime_title: str) -> str:
        """The conversation's title (issue 17): the runtime's own (marked in a copy: :func:`copy_marked`), else its
        first talk's label, else ``(no prompt)`` (:data:`NOT_VERIFIED` when the conversation does not verify).

        The runtime's title is what the round header carries (the last label
        on a record with no id of its own: Claude Code's ``ai-title`` and older
        ``summary`` records, Kiro's session title, a LangSmith run's first
        question), as :meth:`runtime_title` checks it against the landed
        records: never a label written for another session's record, nor one
        in a landed file that does not verify. The first talk is the main stream's earliest talk with a
        label (a typed prompt, else a meaningful injection), else any
        stream's, whose label names work (:class:`~asz_core.view.titles.PromptTitle`: not a command such as Claude
        Code's ``/context`` alone), else the first talk with a label, shortened by :func:`short_title` (read as the adapter of the conversation's dialect reads a typed
        prompt); with neither, for a conversation that continues another (it opens by repeating its records: a
        resumed copy), ``(continues ID) TITLE``, the whole id (:func:`~asz_core.view.titles.continued_title`), else
        :data:`REMOVED` when retention replaced any of its landed files by skeletons (the prompt a title is taken from
        went with the text: the one place every reader's title of a pruned conversation comes from), else
        ``(subagent) PROMPT`` (:func:`talks_title`), else
        for a conversation with no talk that holds observations (execution or changes records alone, as ``asz hook``
        writes them), what they are (:func:`observed_title`), else for a verified one with no talk whose records hold a
        compaction summary :data:`COMPACTION_ONLY`, else ``(no prompt)``, or :data:`NOT_VERIFIED` for a conversation that does not verify. While something is
        withheld, a runtime title found in a withheld record is left empty
        (seed 004, Withholding: no other name stands in for it), and so is a
        conversation with no label to fall back on.
        """
        if self.hide and self.sess.unreadable:  # a withheld record may hold it in a file not read: none shown (title_unread)
            return ""
        runtime_title = self.runtime_title(runtime_title)
        talks = in_time_order(self, self.of_kind("talk"), main_first=True)
        if runtime_title:
            withheld = self.hide and title_withheld(self.sess.record_lines(self.hide), runtime_title, self.hide)
            return "" if withheld else copy_marked(shown_title(runtime_title), self.links.earlier, bool(talks))
        pick, asked = talks_title(self, talks)
        if pick.title():
            return pick.title()
        if self.links.earlier:  # a resumed copy with no prompt of its own: named by what it continues
            return continued_title(self.links.earlier[0], LandedTitles(self.sess.root, self.sess.session, self.sess).title(hide=self.hide))
        if self.sess.removed_at:  # the prompts went with the text (trial 19, F15, F21): never "(no prompt)"
            return REMOVED
        if asked:  # a session of a sub-agent's file alone: what it was asked (trial 41c F9)
            return subagent_title(short_title(asked, pick.dialect))
        if not talks and (said := observed_title(self.executions, self.changes)):  # hook records only (trial 20, F14)
            return said
        if not talks and self.b.state == "verified" and self.of_kind("epoch.summary") and not COMPACTION_UNSAID.get():
            return COMPACTION_ONLY
        if self.hide:
            return ""
        return NO_PROMPT if self.b.state == "verified" else NOT_VERIFIED

    def runtime_title(self, header_title: str) -> str:
        """``header_title`` as :class:`~asz_core.view.titles.RuntimeTitle` checks it over the landed records."""
        sess = self.sess
        got = RuntimeTitle(named_for(sess.root, sess.session))
        for seq in sorted(sess.records):
            got.see_landed(sess, seq)
        return got.title(header_title)

    def places(self) -> dict:
        """``project``, ``git_branch`` and ``runtime`` ``{"name", "version"}`` as the landed records recorded them.

        Each is the first value recorded on the main stream's transcript (the
        record fields ``cwd``, ``git_branch``, ``runtime_version``), else on any
        stream's, else ''; a project no transcript records is the ``cwd`` the
        first observation records (an ``execution/1`` or ``changes/1`` record's
        own field, :func:`observed_cwd`: a session of hook records alone, trial
        23a F3). The runtime's name is the dialect of the main
        transcript's files (``claude-code`` for ``claude-code/1``). A workspace renamed: :func:`renamed_project`.
        """
        sess = self.sess
        return {
            **renamed_project(sess, sess.first_field("cwd") or observed_cwd(self.executions + self.changes)),
            "git_branch": sess.first_field("git_branch"),
            "runtime": {"name": sess.runtime_name(), "version": sess.first_field("runtime_version")},
        }

    def calls_grouped(self) -> str:
        """What the adapter says of how it grouped the records of this conversation's transcripts into model calls where
        the runtime records no call id (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.calls_grouped`: Kiro CLI
        3.x), the first answer over the landed transcript files; '' when every call is keyed by the runtime's own id."""
        asked: set[tuple[str, str]] = set()
        for h in self.sess.headers.values():
            if h is None or h.kind != "transcript" or (h.dialect, h.src) in asked:
                continue
            asked.add((h.dialect, h.src))
            got = ask_adapter(h.dialect, "calls_grouped", h.src)
            if isinstance(got, str) and got:
                return got
        return ""

    def cut(self) -> dict:
        """Parts made smaller to land (seed 000, Too large to land): ``{"truncated": N, "too_large": N, "bytes": N}``.

        ``truncated`` parts kept some text, ``too_large`` ones nothing; ``bytes`` what was not kept of them, each
        part's own size as written (a too-large result's text; not the runtime's structured copy taken out before it,
        whose size is its step's ``result_taken_bytes``), for one that kept its text whole the structured copy's
        (:func:`~asz_core.view.session_records._not_kept`; fix48b). ``{}`` when no part was cut. Each
        keeps the SHA-256 of what was taken out. Added in 1.x (a 1.x only adds keys).
        """
        return self.sess.cut()


def talks_title(view: DocumentView, talks: list) -> tuple[PromptTitle, str]:
    """The :class:`~asz_core.view.titles.PromptTitle` of ``talks`` (in the order they would title ``view``'s
    conversation), offered each talk's label until one names work, and what the first child talk offered shows it
    was asked (its ``prompt``, '' when none or withheld): a session of a sub-agent's file alone is titled by it,
    ``(subagent) PROMPT`` (:func:`~asz_core.view.titles.subagent_title`; trial 41c F9)."""
    pick, asked = PromptTitle(view.sess.dialect()), ""
    for t in talks:
        keys: dict = {}
        view._talk_keys(t, keys)
        if pick.offer(keys.get("label", "")):
            break
        asked = asked or (keys.get("prompt") or "" if keys.get("child") else "")
    return pick, asked


def observed_title(executions: list[dict], changes: list[dict]) -> str:
    """The title of a conversation that holds observations and no talk (trial 20, F14: sessions with only the records
    ``asz hook`` wrote were listed as ``(no prompt)``): ``(no transcript) 2 tool executions of mcp__probe__echo,
    mcp__probe__fail; 1 workspace change``, at most three tool names; '' for none."""
    said = []
    if executions:
        from ..termsafe import one_line  # a name breaking a line is escaped, as everywhere one is drawn (trial 30c F7)

        names = list(dict.fromkeys(one_line(str(e["tool_name"])) for e in executions if e.get("tool_name")))
        of = f" of {', '.join(names[:3])}" + (f" and {len(names) - 3} more" if len(names) > 3 else "") if names else ""
        said.append(f"{len(executions)} tool execution{'s' if len(executions) != 1 else ''}{of}")
    if changes:
        said.append(f"{len(changes)} workspace change{'s' if len(changes) != 1 else ''}")
    return f"(no transcript) {'; '.join(said)}" if said else ""


def meta_fields(sess, name: str) -> list[str]:
    """The non-empty string field ``name`` of each record of ``sess``'s main-stream metadata documents (``agent_meta``
    files of stream ``main`` that verify, records naming no ``child``), in landed order: the versions of a snapshot the
    runtime rewrote (Kiro's ``session.json``, its ``workspacePaths`` as ``cwd``). ``sess``: a
    :class:`~asz_core.view.session_records.LandedSession`."""
    out = []
    for seq in sorted(sess.records):
        h = sess.headers.get(seq)
        if h is None or seq in sess.unverified or h.kind != "agent_meta" or h.stream not in ("", "main"):
            continue
        out += [v for r in sess.records[seq] if isinstance(v := r.get(name), str) and v and not r.get("child")]
    return out


def renamed_project(sess, project: str) -> dict:
    """``{"project": project}``, or, where ``project`` is the one the first version of ``sess``'s main-stream metadata
    document named and its newest version names another (the runtime rewrote it: a Kiro workspace renamed,
    ``session.json`` ``workspacePaths``), ``{"project": the newest, "project_before": [the earlier names, oldest
    first]}``: the newest version's, as the title is (:meth:`DocumentView.places`; trial 34a F4: the project stayed the
    first version's while the title followed the last, and nothing said so). No ``project_before`` when not renamed."""
    docs = meta_fields(sess, "cwd") if project else []
    if not docs or docs[0] != project or docs[-1] == project:
        return {"project": project}
    return {"project": docs[-1], "project_before": list(dict.fromkeys(c for c in docs if c != docs[-1]))}


def observed_cwd(observations: list[dict]) -> str:
    """The ``cwd`` of the first of ``observations`` (execution or changes entries, in the document's order: time) that
    records one, or '' (trial 23a, F3: a session of hook records alone read ``project —`` beside its record's cwd)."""
    return next((o["cwd"] for o in observations if isinstance(o.get("cwd"), str) and o["cwd"]), "")


def observed_range(observations: list[dict]) -> tuple[int, int] | None:
    """(earliest, latest) ``time`` of ``observations`` (execution or changes entries) in unix ms, None when none has
    one: the times of a conversation whose streams hold no timed record (trial 20, F14)."""
    from ..sessiondata.times import parse_instant

    ms = [ns // 1_000_000 for o in observations if (ns := parse_instant(o.get("time"))) is not None]
    return (min(ms), max(ms)) if ms else None


#: True while a copy of render 31 or before is made again (:func:`~asz_core.reading.export_render.drawing`): those
#: counted a continuing copy's repeated change records in ``summary.changes`` and ``changes_lines_unknown`` (339e9bc7
#: changed the count with no render of its own; a json copy of 8463c716 made at c963d268 said changes 27, made again
#: 0, and no longer verified: review46).
CHANGES_REPEATED: ContextVar[bool] = ContextVar("asz_changes_repeated", default=False)


def counted_changes(changes: list[dict], not_drawn: list[dict]) -> list[dict]:
    """The change records (``changes``: a view's entries) a conversation counts: all but those its ``not_drawn``
    lists as a ``duplicate`` (a continuing copy's repeats of an earlier session's records, drawn and counted there; a
    record landed twice under one id), by the rule the round header's ``changes`` and lines follow (trial 46d F1: a
    Kiro copy's row said changes 0 and changes_lines_unknown 2)."""
    repeats = {(e["ref"]["seq"], e["ref"]["row"]) for e in not_drawn if e.get("why") == "duplicate"}
    if not repeats or CHANGES_REPEATED.get():
        return changes
    return [w for w in changes if (w["ref"]["seq"], w["ref"]["row"]) not in repeats]


def lines_unknown(changes: list[dict]) -> int:
    """How many changed files of ``changes`` (change records) have lines that are not known (``additions`` null: the
    diff is unavailable, the earlier content not being recorded, as for a Kiro CLI 2.x file write); each counts as a
    change with 0 lines in ``lines_added``/``lines_removed``."""
    return sum(1 for w in changes for f in (w.get("changes") or ()) if isinstance(f, dict) and f.get("additions") is None)
