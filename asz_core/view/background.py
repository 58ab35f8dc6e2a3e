"""What ``asz view`` reads in the background (issue 22), and the usage per hour it gathers on the way (issue 20).

The checker builds every conversation's document once its files change (newest
first, waiting while a reader's request is answered and until ``READ_QUIET``
seconds after the last conversation a reader opened), so the list's ``state``
and summary keys are known without anyone opening a conversation. Each build
also gives the usage of its model calls per UTC hour, which ``/api/usage``
sums (:meth:`BackgroundChecks.usage`); the buckets and their sums are :mod:`asz_core.view.usage_buckets`'.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Sequence

from ..storage.ids import named
from .match import dialect_matches, matches
from .query import ApiError
from .rows import header_ms
from .usage_buckets import by_sender, cost_not_known_yet, grouped, hours_answer, narrow_buckets, once_parts, sum_parts, usage_hours  # noqa: F401 (usage_hours: named here since issue 20)
from .usage_once import same_calls_list
from .usage_undescribed import undescribed_in, undescribed_said
from .worker import WorkerGone
from .checker_wake import wait_for_news, wake_mark
from .reading_since import ReadingSaid, reading_for

__all__ = ["BackgroundChecks", "counting_words", "list_note", "waiting_line", "torn_lines", "usage_hours", "hours_answer", "READ_QUIET", "CHECK_DELAY", "UNREAD_START", "CHECK_SOON"]

#: Seconds the checker waits after a reader's last ``/api/c/…`` request before its next build: a reader opening one
#: conversation after another (the view, then its records and bodies) never shares the interpreter with a build.
READ_QUIET = 1.0
#: Seconds after the server's first answered API request before the checker's first build: the first conversation a
#: reader opens, right after the page lists them, is not slowed by it.
CHECK_DELAY = 2.0
#: What ``/api/status`` ``reading`` says between the checker's start and its first check.
CHECK_SOON = "checking conversations: starting soon"
#: Seconds more the checker waits for a first request before it starts without one (a server no page reads yet).
UNREAD_START = 10.0
#: Seconds the note naming landed sessions with no conversation chain is kept while no collect loop of this process
#: reports its passes (asz view, or asz server before its first pass ends): another process may land meanwhile.
UNCHAINED_TTL = 10.0


def waiting_line(last_pass: dict | None, torn: int = 0) -> str:
    """What ``/api/status`` ``reading`` says of the sources the last pass found ending in a line with no newline yet,
    or read as a snapshot its runtime was rewriting (``partial``, as ``asz collect`` counts them: Kiro's
    ``session.json`` not valid JSON, :meth:`~asz_core.Adapter.document_unfinished`), less ``torn``, those of them that
    are torn tails now (:func:`torn_lines`; trial 40c F4: a finished session's torn tail kept the page at "Still
    reading" for ever): ``N source(s) end in a line still being written or are a snapshot read while its runtime
    rewrote it (each lands once complete)``; '' when none (trial 19, F7; trial 23a, F16)."""
    n = ((last_pass or {}).get("partial") or 0) - torn
    return (f"{n} source(s) end in a line still being written or are a snapshot read while its runtime rewrote it "
            "(each lands once complete)") if n > 0 else ""


def torn_lines(tails: Sequence, now_ns: int | None = None) -> list[str]:
    """``/api/status`` ``torn_tails``: the sentence ``asz collect`` warns with (``torn tail: PATH: the last line has no
    newline (N bytes) and the file has not changed for 10m0s; it lands when the line is completed``) of each of the
    last pass's ``tails`` (:class:`~asz_core.storage.torn.Tail`) that is a torn tail at ``now_ns`` (default: now) by
    the rule the pass judged by (:func:`~asz_core.storage.torn.is_torn`), sorted; a tail still young is a write in
    progress, said in ``reading`` (:func:`waiting_line`) until it turns torn, with no pass needed."""
    return sorted(t.line() for t in tails if t.torn(now_ns))


def counting_words(done: int, pending: int, held: bool) -> str:
    """What the counter is doing, said from its numbers as they are now (``done`` counted since it started, ``pending``
    still to count, ``held`` while asz server's first pass holds it): ``counting conversations: 3 of 12 done``, and
    ``, waiting for the collect pass to end`` when held (trial 19, F24: the words were set when the counter took a
    conversation, and said ``0 of 9 done`` for 26 s while 202 rows waited); '' when none waits."""
    if not pending:
        return ""
    return f"counting conversations: {done} of {done + pending} done" + (", waiting for the collect pass to end" if held else "")


def of_dialect(state, conversations: set[str], dialect: str) -> set[str]:
    """The ``conversations`` of ``state`` (a :class:`~asz_core.view.state.ViewState`) whose session's dialect is
    ``dialect`` or has it as its name (``asz usage --dialect``'s rule, :func:`~asz_core.view.match.dialect_matches`;
    ``/api/usage?dialect=``, trial 29b F4); all of them for ''."""
    if not dialect:
        return conversations
    from .state import conversation_dialect

    return {c for c in conversations if dialect_matches(conversation_dialect(state, c), dialect)}


def list_note(state, conversations: Sequence[str]) -> str:
    """``/api/conversations``' ``note`` of ``state`` (a :class:`~asz_core.view.state.ViewState`) for the ids listed,
    ``conversations``: '' when nothing is to be said.

    With none listed: the storage root is gone, or holds none yet (``asz view``: collect and parse into it; ``asz
    server``: its passes do, every ``interval`` seconds), or, while asz server's first pass runs
    (``hold_counting``), that the pass is reading the sources into it (trial 19, F24: the page asked the reader to
    collect while the server was doing it). While that pass runs, sessions it landed and has not parsed yet are no
    damage: the note says that they are listed as it parses them, and lists no session folder; once it ended, the
    landed sessions with no conversation chain are named (:meth:`BackgroundChecks.unchained`). Then the entries of
    ``_conversations`` that are symbolic links, not served."""
    if not state.root.is_dir():
        notes = [f"the storage root {state.root} is gone: nothing to show until it is back"]
    elif state.hold_counting:
        notes = [("no conversation is listed yet: " if not conversations else "")
                 + "this server's first collect pass is reading the sources into the storage root; the sessions "
                 "it lands are listed as it parses them"]
    else:
        how = f"this server collects and parses its sources into it every {state.interval:g} s" \
            if state.mode == "server" and isinstance(state.interval, (int, float)) else "collect and parse sessions into it"
        notes = [] if conversations else [f"this storage root holds no conversations yet: {how}"]
        if getattr(state, "no_source", ""):  # trial 45c F4: the page said a first pass was reading sources it had none of
            notes = [("this storage root holds no conversations: " if not conversations else "")
                     + f"this server's collect passes find no source to read ({state.no_source}), so nothing new is "
                     "collected; what the root holds is listed"]
        notes.append(state.unchained(conversations, state.rounds_linked))  # as asz ls names them (trial 7)
    if state.links_skipped:
        n = state.links_skipped
        notes.append(f"{n} entr{'y' if n == 1 else 'ies'} of _conversations are symbolic links and are not served")
    return " ".join(x for x in notes if x)


def _noted(state, convs: set[str], states: dict[str, str], narrow: tuple[str, bool] | None, since: int | None,
           until: int | None, every: Sequence[str]) -> tuple[list[dict], str, list[dict]]:
    """``/api/usage``'s ``undescribed``, ``undescribed_said`` and ``untimed``, of the verified ones of ``convs`` kept
    as ``asz usage``'s filters keep them (with ``narrow``, ``(model, exact)`` when a filter is given: only those with a
    call of such a model) and named as it names them: ``undescribed`` ``asz usage --json``'s, ``[{"conversation",
    "name", "records", "naming_calls"}]`` by id (``name`` among ``every``, as :func:`~asz_core.storage.ids.named`
    names the answer's other lists; review 40), holding transcript records their dialect could not read, but one whose
    range lies wholly outside ``since``..``until`` (:func:`~asz_core.view.usage_undescribed.undescribed_in`); the line
    ``asz usage daily`` prints of them (:func:`~asz_core.view.usage_undescribed.undescribed_said`; fix40o); and
    ``untimed``, ``[{"conversation", "name", "note"}]``, the notes ``asz usage`` prints on stderr of those holding
    records whose time does not read, only those a window places them in
    (:func:`~asz_core.view.usage_untimed.untimed_noted`, fix41b). Called under ``state``'s lock."""
    from .usage_untimed import untimed_noted

    kept = {c for c in convs if states.get(c, "verified") == "verified"
            and (narrow is None or narrow_buckets(state._usage.get(c) or {}, *narrow, None, None))}
    und, untimed = named([undescribed_in({c: state._undescribed.get(c) for c in kept}, state._spans, since, until),
                          untimed_noted({c: state._untimed.get(c) or () for c in kept}, state._spans, since, until)], every)
    return und, undescribed_said(und), untimed


def reader_first(checks) -> bool:
    """True while the counter and the checker of ``checks`` (a :class:`BackgroundChecks`) wait for a reader: while a
    conversation is read (``/api/c/…``) and :data:`READ_QUIET` seconds after, and while any API request is answered when
    they count in this process (no ``worker``). With a worker (``asz server``, ``asz view``), a poll of the list, the
    status or the usage does not hold them: their work runs in that process, niced, and a page polling the list every
    second held the checker, so the usage figures, which wait for it, lagged the list by minutes (trial 46c F3)."""
    active = checks.requests_active if checks.worker is None else checks.reads_active
    return active > 0 or time.monotonic() - checks.last_read < READ_QUIET


class BackgroundChecks(ReadingSaid):
    """The checker, the counter, the status and the usage sums of :class:`asz_core.view.state.ViewState` (a mixin over
    its caches)."""
    tails: tuple = ()  # the last pass's sources ending in a line with no newline (storage.torn.Tail; set_pass)

    def warm_up(self) -> threading.Thread:
        """Delete session 21's ``_index/documents/`` (:func:`~asz_core.view.found_store.drop_old_documents`), import what
        a first document and its ``/headings`` need, read the price table and make the build mark (25–35 ms), in a daemon
        thread once the server answers (issue 22), so neither the first answer nor the first open waits for them."""

        def load() -> None:
            from ..plugins.manager import load_adapters
            from ..verify import damage, landed  # noqa: F401
            from . import document, named_listing, named_titles, placing, turn_places, usage_keys  # noqa: F401 (usage_keys: a kept row's flat keys)
            from .found_store import build_mark, drop_old_documents
            from .prices import default_table

            drop_old_documents(self.root)  # once per server start; derived data, nothing lost
            build_mark()  # the found records' key: every file of the code stat'ed once (about 1 ms), not in an answer
            default_table()
            load_adapters()  # the adapters a title asks which record a label was written for (view.titles)

        t = threading.Thread(target=load, name="asz-view-warm", daemon=True)
        t.start()
        return t

    def usage(self, project: str = "", model: str = "", since: int | None = None, until: int | None = None,
              exact: bool = False, tz: str | None = None, instance: str = "", by: str = "", dialect: str = "") -> dict:
        """``/api/usage``: tokens (and cost, where the price table knows the model) of every model call, per hour.

        ``hours`` is a list of ``{"hour": unix ms (UTC hour start), "in", "out", "cache_read", "cache_write", "calls", "cost": USD or null}`` (and ``cache_write_1h``, the 1-hour part of
        ``cache_write``, in an hour that has some); ``quarters`` the same per quarter hour, keyed ``"at"`` (unix ms
        of its start), so that a day in any time zone in use (offsets of whole quarter hours: India +5:30, Nepal
        +5:45) is an exact sum of them (trial 3, F16). Both summed over
        the conversations built so far (by a request or the background checker);
        ``counted`` says how many of ``conversations`` that is; ``unpriced``
        lists models with tokens and no price (their cost is in no sum). ``complete`` is False while the sums are
        partial: something is still being read (the first collect pass, the checker: ``/api/status`` ``reading``) or a
        listed conversation was not built yet (one that cannot be built counts as done while its files are unchanged: it
        is in no sum); True
        once every listed conversation was built and nothing is being read (till then no cost figure: cost_not_known_yet).
        Only verified evidence is summed: a built conversation that does not
        verify is in no hour and is named in ``held_back``
        (``[{"conversation", "state"}]``, by id; not in ``counted``; none of other days: usage_report.outside_window). ``usage_incomplete`` lists
        ``{"conversation", "calls", "fields"}`` of each summed conversation some of whose calls the answer counts (in
        the window, of the models asked) lack a usage count their record lists under ``dropped`` (the hours are short
        by it), by id, counted as ``asz usage`` counts its rows' (:func:`~asz_core.view.usage_keys.incomplete_calls`). ``no_time``, ``models`` and ``total``: see
        :func:`~asz_core.view.usage_buckets.hours_answer`; ``no_time`` adds ``conversations``, ``[{"conversation", "calls"}]`` of its calls, by id
        (and ``credits``, those its records with no time metered, where some). ``credits``: ``[{"conversation",
        "credits"}]``, by id, of each summed conversation whose records metered credits (Kiro's own unit, never tokens or
        USD; a bucket, ``no_time``, a model's row and ``total`` carry it where some); ``untimed``: the notes of records whose time does not read (:func:`_noted`);
        ``same_calls``: ``asz usage``'s ``total.same_calls`` (:func:`once_parts`); ``undescribed``: its ``undescribed`` (:func:`_noted`), ``undescribed_said`` the line ``asz usage daily`` prints of them ('' when none; :func:`~asz_core.view.usage_undescribed.undescribed_said`, the Usage tab's as it is, fix40o). Each entry of those seven lists has ``name`` too: its id as ``asz usage`` prints it (storage.ids.named). ``stopped``: ``asz usage --json``'s ``stopped`` (the sources of the conversations asked the collector no longer reads, the lines they hold past what landed in no figure; each with ``name``), ``stopped_said`` the ``stopped:`` line ``asz usage`` prints of each ([] when none; :func:`with_stopped`).

        Narrowed (trial 17b, F12) to the conversations whose project matches ``project``, the calls of models that
        match ``model`` (:func:`~asz_core.view.match.matches`: a part of the name, case-insensitive, as ``asz ls``
        and ``asz usage`` match; ``exact``: the whole name) and the quarter hours whose start is from ``since`` to
        ``until`` (unix ms). A call with no time is placed by its conversation's range as ``asz usage`` places it
        (``usage_report.span_key``, ``span_in_window``; days in zone ``tz``, None: the server's): :func:`_sum_parts`.
        ``conversations`` then counts the listed ones whose project matches or is not built yet, and ``held_back`` names
        one that does not verify and names no project (the filter cannot judge it). ``dialect``: :func:`of_dialect`. ``filters`` says what was applied: ``{"project", "model", "dialect", "since", "until", "exact"}`` ('' and null: none), and ``tz`` when given; ``instance``, ``by``: usage_buckets.grouped."""
        from .usage_keys import incomplete_calls
        from .usage_report import outside_window, range_span
        from .zone import zone_of

        zone = zone_of(tz)  # ValueError for a name of none: usage_filters refuses it first (400)
        convs = set(every := self.conversations())
        convs, senders = by_sender(self.root, of_dialect(self, convs, dialect), instance, by)  # trial 28a F3, 29b F4
        with self._lock:
            states = {c: s[1] for c, s in self._states.items()}
            if project:  # a conversation not built yet has no known project: counted as still to read; one that does
                # not verify and names none cannot be judged: kept, held back (listing.blind_to's rule, trial 25b F3)
                convs = {c for c in convs if c not in self._projects or matches(self._projects[c], project, exact)
                         or (not self._projects[c] and states.get(c, "verified") != "verified")}
            parts = [(c, narrow_buckets(v, model, exact, since, until), range_span(*self._spans.get(c, (None, None)), zone))
                     for c, v in sorted(self._usage.items()) if c in convs and states.get(c, "verified") == "verified"]
            near = {c for c in convs if not outside_window(self._spans.get(c, (None, None)), since, until)}  # 39d F1
            held = [{"conversation": c, "state": states[c]} for c in sorted(self._usage)
                    if c in near and states.get(c, "verified") != "verified"]
            behind = any(c not in self._usage and c not in self._unbuilt for c in convs)
            unbuilt = [(c, fp) for c, fp in self._unbuilt.items() if c in convs and c not in self._usage]
            und = _noted(self, convs, states, (model, exact) if project or model or dialect or instance else None, since, until, every)
            parts, same, kept = once_parts(parts, self._calls, model, exact, since, until)  # a call two hold: once (35a F5)
        total, placed, untimed, metered = sum_parts(parts, since, until)
        answer = hours_answer(total, counted=len(parts), conversations=len(convs), prices=self.prices, placed=placed)
        answer["no_time"]["conversations"], answer["credits"], answer["held_back"], answer["usage_incomplete"], answer["same_calls"], answer["undescribed"], answer["undescribed_said"], answer["untimed"] = \
            *named([untimed, metered, held, incomplete_calls(kept), same_calls_list(same)], every), *und  # as asz usage names them (122b95e)
        answer["complete"] = not behind and not self.reading and all(self._files_now(c) == fp for c, fp in unbuilt)
        answer["filters"] = {"project": project, "model": model, "dialect": dialect, "since": since, "until": until, "exact": exact, **({"tz": tz} if tz else {})}
        return grouped(cost_not_known_yet(with_stopped(answer, self.root, convs, every)), parts, since, until, self.prices, zone, instance, by, senders, self.root)

    def _files_now(self, conversation: str) -> tuple:
        """:meth:`fingerprint` of ``conversation``'s files, or ``("unreadable",)`` when it cannot be taken (a link in the way)."""
        try:
            return self.fingerprint(conversation)
        except ApiError:
            return ("unreadable",)

    def status(self) -> dict:
        """``/api/status``: mode, root, source, interval (s), follows (asz server's followed folders, or null), started / last_refresh / next_refresh (unix ms), last pass counts,
        ``checked`` (conversations whose state the checker found since start) and ``checked_built`` (how many of them it
        built; the others it read from what a build of the same files found, ``_index/found``),
        ``root_exists`` (False once the storage root is gone), ``reading`` (what is still being read, '' when nothing; :func:`waiting_line`),
        ``counting`` (how many list rows wait for their summary to be counted, issue 22), ``torn_tails`` (:func:`torn_lines`); ``conversations`` counted at most once a second and after a pass (36a F8)."""
        convs = self.counted_listed.value()
        torn = torn_lines(self.tails)
        with self._lock:  # the count and the words about it read together: never 0 left and "counting", nor the reverse
            counting = len(self._count_pending)
            return {
                "mode": self.mode,
                "root": os.path.abspath(self.root),  # absolute: a dashboard polling several servers tells them apart (29b F11)
                "source": self.source or None,
                "interval": self.interval, "follows": self.follows,
                "started": self.started, "last_refresh": self.last_refresh, "next_refresh": self.next_refresh,
                "refreshing": self.refreshing, "last_pass": self.last_pass,
                "conversations": convs,
                "root_exists": self.root.is_dir(),
                "hide": list(self.hide), "hide_override": self.hide_override,
                "documents_built": self.builds,
                "checked": self.checked,
                "checked_built": self.checked_built,
                "reading": "; ".join(x for x in (self.reading, counting_words(self._count_done, counting, self.hold_counting), waiting_line(self.last_pass, len(torn))) if x),
                "counting": counting,
                "torn_tails": torn, "reading_for": reading_for(self), "first_pass": bool(self.hold_counting),  # 50b F1
            }

    def set_pass(self, counts: dict[str, Any], finished_ms: int, next_ms: int | None) -> None:
        """Record a collect(+parse) pass of ``asz server``: its counts and when the next one starts (unix ms); a pass
        that landed files or wrote rounds makes :meth:`unchained` list the session folders again."""
        with self._lock:
            if counts.get("landed") or counts.get("rounds") or self.last_pass is None:
                self._unchained, self._unchained_gen = None, self._unchained_gen + 1
            self.tails = tuple(counts.pop("tails", ()))  # judged at each status (torn_lines), not shown as they were
            self.last_pass, self.last_refresh, self.next_refresh = counts, finished_ms, next_ms
            self.counted_listed.forget()  # the conversations the pass made are counted by the next status
            self.refreshing = False

    def unchained(self, conversations: Sequence[str], links: Sequence[str] | None = None) -> str:
        """The line naming landed sessions with no conversation chain that ``conversations`` (the ids listed) leaves
        out (:func:`~asz_core.verify.unparsed.unchained_note`), then the one naming listed sessions that are missing
        (:func:`~asz_core.verify.listed.missing_note`), or ''. It lists every session folder (48 ms of CPU, 1 GB root),
        so it is kept for the same conversations and ``links`` (rounds folders that are links, from the scan that
        listed them; None: looked for): in ``asz server`` until a collect pass lands a file or writes a round
        (:meth:`set_pass`); with no pass reported (``asz view``, or before the first pass ends), :data:`UNCHAINED_TTL` s."""
        key, now = (tuple(conversations), None if links is None else tuple(links)), time.monotonic()
        with self._lock:
            hit, passes, gen = self._unchained, self.last_pass is not None, self._unchained_gen
        if hit is not None and hit[0] == key and (passes or now - hit[1] < UNCHAINED_TTL):
            return hit[2]
        from ..verify.listed import missing_note
        from ..verify.unparsed import unchained_note
        # asz view is no collector: one at work, or a writer holding a session's lock, said as asz ls says it (fix42d);
        # then the sessions _sessions.list names that are gone or emptied (33 ms of CPU for 1,342), as asz ls says them
        said = unchained_note(self.root, set(conversations), collector=self.mode != "server", links=links)[0]
        note = " ".join(x for x in (said, missing_note(self.root)) if x)
        with self._lock:
            if self._unchained_gen == gen:  # a pass that landed meanwhile cleared it: the line read may predate it
                self._unchained = (key, now, note)
        return note

    def count_behind(self, conversations: Sequence[str], hide: Sequence[str]) -> None:
        """Count the summaries of ``conversations`` (withholding ``hide``) in the counter thread, in the order given
        (the list's: newest first), so a later ``/api/conversations`` gives their rows whole (issue 22).

        A conversation already waiting keeps its place. The thread starts when
        there is something to count and ends when nothing is left; it waits
        while a reader's request is answered, as the checker does, and while
        :attr:`hold_counting` is set (``asz server``'s first pass runs)."""
        with self._lock:
            pending = self._count_pending
            for c in conversations:
                pending.setdefault(c, tuple(hide))
            if not pending or self._counter_alive:
                return
            self._counter_alive, self._count_done = True, 0  # said from this answer on (status), not once the thread runs
        threading.Thread(target=self._count_loop, name="asz-view-count", daemon=True).start()

    def count_waiting(self, conversation: str, hide: Sequence[str]) -> bool:
        """True while ``conversation`` waits in the counter for the withheld names ``hide``."""
        with self._lock:
            return self._count_pending.get(conversation) == tuple(hide)

    def counts_pending(self) -> int:
        """How many conversations the counter still has to count (:meth:`count_behind`)."""
        with self._lock:
            return len(self._count_pending)

    def _count_loop(self) -> None:
        """The counter thread: count each waiting conversation's summary (:meth:`known_summary`) until none waits."""
        while True:
            while reader_first(self) or self.hold_counting:
                time.sleep(0.05)  # a reader's request comes first, and asz server's first pass
            with self._lock:
                if not self._count_pending:
                    self._counter_alive = False
                    return
                conversation, hide = next(iter(self._count_pending.items()))
            try:
                self.known_summary(conversation, hide, self.fingerprint(conversation), behind=True)
            except Exception:  # a conversation that does not read is shown as such when opened
                pass
            with self._lock:  # the count and its words change together (status reads both under the lock)
                self._count_done += 1
                if self._count_pending.get(conversation) == hide:
                    del self._count_pending[conversation]

    def check_all(self, stop: threading.Event, pause: float = 0.05) -> int:
        """Find the verification state of every conversation that has none for its current files, newest first.

        Runs in the checker thread (:meth:`start_checker`); each check builds
        the document (verification reads every landed file) without keeping it.
        Returns how many were checked. Sets :attr:`reading` while it works.
        """
        convs = self.conversations()
        todo = [c for c in convs if self.known_state(c) is None]
        todo.sort(key=lambda c: -((self.row_time(c)) or 0))
        done = 0
        for i, c in enumerate(todo):
            while (reader_first(self) or self.counts_pending()) \
                    and not stop.is_set():
                stop.wait(0.05)  # a reader's request comes first, and the list's figures before the states
            if stop.is_set():
                break
            self.reading = f"checking conversations: {i} of {len(todo)} done"
            newest = self.newest_round(c)
            try:
                if newest is None:
                    raise ApiError(404, "no round")
                built = self.check_one(c, newest)
            except Exception:  # a conversation that does not build is shown as such when opened; in no usage sum
                fp = self._files_now(c)
                with self._lock:
                    self._unbuilt[c] = fp  # done for usage's completeness until its files change
                continue
            done += 1
            with self._lock:
                self.checked += 1
                self.checked_built += built  # the rest read from what a build of the same files found (found_store)
            stop.wait(pause if built else 0)  # a record read (a restart, nothing changed): no pause (trial 21)
        self.reading = ""
        return done

    def check_one(self, conversation: str, newest: tuple) -> bool:
        """Build ``conversation``'s document withholding :attr:`hide` without keeping it in memory, for its state, row
        keys and usage: in :attr:`worker` when there is one (only what was found comes back), else in this thread;
        what the build found (never the document, seed 004) is kept in the root's record (:meth:`prepare`), so a
        restart knows its state by reading it. A record of the same files is read instead of building: False, else True."""
        fp = self.fingerprint(conversation)
        if self.kept_found(conversation, self.hide, newest, fp):
            return False  # what a build of these files found (found_store): read, not built
        if self.worker is not None:
            try:
                summary, hours, calls = self.worker.call("check", str(self.root), conversation, list(self.hide), self.prices)
            except WorkerGone:
                if self.worker.closed:
                    raise  # the server is stopping: nothing more is checked
            else:
                self.keep_found(conversation, fp, self.hide, summary, hours, calls)
                return True
        return self.prepare(conversation, self.hide, newest) is not None

    def count_in_worker(self, root, conversation: str, session: str, hide: Sequence[str], store):
        """:func:`~asz_core.view.summary_cache.conversation_summary` counted in :attr:`worker` (which keeps it in the
        root's store too); in this thread when the worker is gone."""
        from .summary_cache import ConversationSummary, conversation_summary

        try:
            return ConversationSummary.from_json(self.worker.call("summary", str(root), conversation, session, list(hide)))
        except WorkerGone:
            if self.worker.closed:
                raise  # the server is stopping: nothing more is counted
            return conversation_summary(root, conversation, session, hide, store)

    def row_time(self, conversation: str) -> int | None:
        """The last activity (unix ms) the head round names, or None."""
        h = self.head_header(conversation) or {}
        return header_ms(h.get("session_through_time"))

    def start_checker(self, stop: threading.Event, every: float = 2.0, delay: float = CHECK_DELAY) -> threading.Thread:
        """Start the daemon thread keeping every conversation's state known (:meth:`check_all`), again once a thing changed (checker_wake).

        Its first build waits ``delay`` seconds after the server answered its first API request (the page
        asking for the list), or ``delay`` + ``UNREAD_START`` seconds after it started when no one asks, so the
        first conversation a reader opens is not slowed by it, however long the server took to listen."""
        self.reading = self.reading or CHECK_SOON  # said until the first check starts, so the page says what is still to be read

        def loop() -> None:
            start = time.monotonic()
            while not stop.is_set():
                now, first = time.monotonic(), self.first_request
                if (first and now - first >= delay) or now - start >= delay + UNREAD_START:
                    break
                stop.wait(0.05)
            while not stop.is_set():  # again once something changed, not every ``every`` s (checker_wake; trial 42c F5)
                mark = wake_mark(self)
                self.check_all(stop)
                wait_for_news(self, stop, every, mark)

        t = threading.Thread(target=loop, name="asz-view-check", daemon=True)
        t.start()
        return t


def with_stopped(answer: dict, root, convs: set[str], every: Sequence[str]) -> dict:
    """``answer`` (``/api/usage``'s) with ``stopped``, the sources of ``convs`` in conflict
    (:func:`~asz_core.view.stopped_sources.stopped_sources`), each named as ``asz usage`` names it among ``every``,
    and ``stopped_said``, the ``stopped:`` line of each (trial 46a F1: the page's Usage tab was as silent as ``asz
    usage``)."""
    from .stopped_sources import stopped_lines, stopped_sources

    (stopped,) = named([stopped_sources(root, convs)], every)
    answer["stopped"], answer["stopped_said"] = stopped, stopped_lines(stopped, {s["conversation"]: s["name"] for s in stopped}.__getitem__, " above")
    return answer
