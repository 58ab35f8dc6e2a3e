"""What ``asz view`` reads in the background (issue 22), and the usage per hour it gathers on the way (issue 20).

The checker builds every conversation's document once its files change (newest
first, waiting while a reader's request is answered and until ``READ_QUIET``
seconds after the last conversation a reader opened), so the list's ``state``
and summary keys are known without anyone opening a conversation. Each build
also gives the usage of its model calls per UTC hour, which ``/api/usage``
sums (:meth:`BackgroundChecks.usage`).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Sequence

from ..storage.ids import named
from .match import matches
from .query import ApiError
from .rows import header_ms
from .usage import LONG_KIND, RATE_KIND, RATE_UNCHECKED_KIND, SPLIT_KIND, credits_follow_calls
from .worker import WorkerGone

__all__ = ["BackgroundChecks", "counting_words", "list_note", "waiting_line", "usage_hours", "hours_answer", "READ_QUIET", "CHECK_DELAY", "UNREAD_START", "CHECK_SOON"]

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


def waiting_line(last_pass: dict | None) -> str:
    """What ``/api/status`` ``reading`` says of the sources the last pass found ending in a line with no newline yet
    (``partial``, as ``asz collect`` counts them): ``N source(s) end in a line still being written (it lands once
    complete)``; '' when none (trial 19, F7)."""
    n = (last_pass or {}).get("partial") or 0
    return f"{n} source(s) end in a line still being written (it lands once complete)" if n else ""


def counting_words(done: int, pending: int, held: bool) -> str:
    """What the counter is doing, said from its numbers as they are now (``done`` counted since it started, ``pending``
    still to count, ``held`` while asz server's first pass holds it): ``counting conversations: 3 of 12 done``, and
    ``, waiting for the collect pass to end`` when held (trial 19, F24: the words were set when the counter took a
    conversation, and said ``0 of 9 done`` for 26 s while 202 rows waited); '' when none waits."""
    if not pending:
        return ""
    return f"counting conversations: {done} of {done + pending} done" + (", waiting for the collect pass to end" if held else "")


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
        notes.append(state.unchained(conversations))  # landed sessions with no chain, as asz ls names them (trial 7)
    if state.links_skipped:
        n = state.links_skipped
        notes.append(f"{n} entr{'y' if n == 1 else 'ies'} of _conversations are symbolic links and are not served")
    return " ".join(x for x in notes if x)


class BackgroundChecks:
    """The checker, the counter, the status and the usage sums of :class:`asz_core.view.state.ViewState` (a mixin over
    its caches)."""

    def warm_up(self) -> threading.Thread:
        """Delete session 21's ``_index/documents/`` (:func:`~asz_core.view.found_store.drop_old_documents`), import what
        a first document and its ``/headings`` need, read the price table and make the build mark (25–35 ms), in a daemon
        thread once the server answers (issue 22), so neither the first answer nor the first open waits for them."""

        def load() -> None:
            from ..plugins.manager import load_adapters
            from ..verify import damage, landed  # noqa: F401
            from . import document, placing, turn_places  # noqa: F401
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
              exact: bool = False, tz: str | None = None) -> dict:
        """``/api/usage``: tokens (and cost, where the price table knows the model) of every model call, per hour.

        ``hours`` is a list of ``{"hour": unix ms (UTC hour start), "in", "out",
        "cache_read", "cache_write", "calls", "cost": USD or null}`` (and ``cache_write_1h``, the 1-hour part of
        ``cache_write``, in an hour that has some); ``quarters`` the same per quarter hour, keyed ``"at"`` (unix ms
        of its start), so that a day in any time zone in use (offsets of whole quarter hours: India +5:30, Nepal
        +5:45) is an exact sum of them (trial 3, F16). Both summed over
        the conversations built so far (by a request or the background checker);
        ``counted`` says how many of ``conversations`` that is; ``unpriced``
        lists models with tokens and no price (their cost is in no sum). ``complete`` is False while the sums are
        partial: something is still being read (the first collect pass, the checker: ``/api/status`` ``reading``) or a
        listed conversation was not built yet (one that cannot be built counts as done while its files are unchanged: it
        is in no sum); True
        once every listed conversation was built and nothing is being read.
        Only verified evidence is summed: a built conversation that does not
        verify is in no hour and is named in ``held_back``
        (``[{"conversation", "state"}]``, by id; not in ``counted``). ``usage_incomplete`` lists
        ``{"conversation", "calls"}`` of each summed conversation some of whose calls' usage lacks a count their
        record lists under ``dropped`` (the hours are short by it), by id. ``no_time``, ``models`` and ``total``: see
        :func:`hours_answer`; ``no_time`` adds ``conversations``, ``[{"conversation", "calls"}]`` of its calls, by id
        (and ``credits``, those its records with no time metered, where some). ``credits``: ``[{"conversation",
        "credits"}]``, by id, of each summed conversation whose records metered credits (Kiro; the runtime's own unit,
        never tokens or USD); a bucket, ``no_time``, a model's row and ``total`` carry ``credits`` only where some.
        Each entry of those four lists has ``name`` too: its id as ``asz usage`` prints it (storage.ids.named).

        Narrowed (trial 17b, F12) to the conversations whose project matches ``project``, the calls of models that
        match ``model`` (:func:`~asz_core.view.match.matches`: a part of the name, case-insensitive, as ``asz ls``
        and ``asz usage`` match; ``exact``: the whole name) and the quarter hours whose start is from ``since`` to
        ``until`` (unix ms). A call with no time is placed by its conversation's range as ``asz usage`` places it
        (``usage_report.span_key``, ``span_in_window``; days in zone ``tz``, None: the server's): :func:`_sum_parts`.
        ``conversations`` then counts the listed ones whose project matches or is not built yet. ``filters`` says what
        was applied: ``{"project", "model", "since", "until", "exact"}`` ('' and null: none)."""
        from .usage_report import range_span
        from .zone import zone_of

        zone = zone_of(tz)  # ValueError for a name of none: usage_filters refuses it first (400)
        convs = set(every := self.conversations())
        with self._lock:
            if project:  # a conversation not built yet has no known project: counted as still to read
                convs = {c for c in convs if c not in self._projects or matches(self._projects[c], project, exact)}
            states = {c: s[1] for c, s in self._states.items()}
            parts = [(c, _narrow(v, model, exact, since, until), range_span(*self._spans.get(c, (None, None)), zone))
                     for c, v in sorted(self._usage.items()) if c in convs and states.get(c, "verified") == "verified"]
            held = [{"conversation": c, "state": states[c]} for c in sorted(self._usage)
                    if c in convs and states.get(c, "verified") != "verified"]
            short = [{"conversation": c, "calls": self._short[c]} for c in sorted(self._usage)
                     if c in convs and states.get(c, "verified") == "verified" and self._short.get(c)]
            behind = any(c not in self._usage and c not in self._unbuilt for c in convs)
            unbuilt = [(c, fp) for c, fp in self._unbuilt.items() if c in convs and c not in self._usage]
        total, placed, untimed, metered = _sum_parts(parts, since, until)
        answer = hours_answer(total, counted=len(parts), conversations=len(convs), prices=self.prices, placed=placed)
        answer["no_time"]["conversations"], answer["credits"], answer["held_back"], answer["usage_incomplete"] = \
            named([untimed, metered, held, short], every)  # as asz usage names them: unique in the root (122b95e)
        answer["complete"] = not behind and not self.reading and all(self._files_now(c) == fp for c, fp in unbuilt)
        answer["filters"] = {"project": project, "model": model, "since": since, "until": until, "exact": exact}
        return answer

    def _files_now(self, conversation: str) -> tuple:
        """:meth:`fingerprint` of ``conversation``'s files, or ``("unreadable",)`` when it cannot be taken (a link in the way)."""
        try:
            return self.fingerprint(conversation)
        except ApiError:
            return ("unreadable",)

    def status(self) -> dict:
        """``/api/status``: mode, root, source, interval (s), follows (asz server's followed folders, or null), started / last_refresh / next_refresh (unix ms), last pass counts,
        ``root_exists`` (False once the storage root is gone), ``reading`` (what is still being read, '' when nothing; :func:`waiting_line`),
        ``counting`` (how many list rows wait for their summary to be counted, issue 22)."""
        convs = len(self.conversations())
        with self._lock:  # the count and the words about it read together: never 0 left and "counting", nor the reverse
            counting = len(self._count_pending)
            return {
                "mode": self.mode,
                "root": str(self.root),
                "source": self.source or None,
                "interval": self.interval, "follows": self.follows,
                "started": self.started,
                "last_refresh": self.last_refresh,
                "next_refresh": self.next_refresh,
                "refreshing": self.refreshing,
                "last_pass": self.last_pass,
                "conversations": convs,
                "root_exists": self.root.is_dir(),
                "hide": list(self.hide),
                "hide_override": self.hide_override,
                "documents_built": self.builds,
                "checked": self.checked,
                "reading": "; ".join(x for x in (self.reading, counting_words(self._count_done, counting, self.hold_counting), waiting_line(self.last_pass)) if x),
                "counting": counting,
            }

    def set_pass(self, counts: dict[str, Any], finished_ms: int, next_ms: int | None) -> None:
        """Record a collect(+parse) pass of ``asz server``: its counts and when the next one starts (unix ms); a pass
        that landed files or wrote rounds makes :meth:`unchained` list the session folders again."""
        with self._lock:
            if counts.get("landed") or counts.get("rounds") or self.last_pass is None:
                self._unchained, self._unchained_gen = None, self._unchained_gen + 1
            self.last_pass = counts
            self.last_refresh = finished_ms
            self.next_refresh = next_ms
            self.refreshing = False

    def unchained(self, conversations: Sequence[str]) -> str:
        """The line naming landed sessions with no conversation chain that ``conversations`` (the ids listed) leaves
        out (:func:`~asz_core.verify.unparsed.unchained_note`), then the one naming listed sessions that are missing
        (:func:`~asz_core.verify.listed.missing_note`), or ''. It lists every session folder (48 ms of CPU on
        a 1 GB root of 1,345 sessions), so the line is kept for the same conversations: in ``asz server`` until a
        collect pass lands a file or writes a round (:meth:`set_pass`); with no pass reported (``asz view``, or before
        the first pass ends), for :data:`UNCHAINED_TTL` seconds."""
        key, now = tuple(conversations), time.monotonic()
        with self._lock:
            hit, passes, gen = self._unchained, self.last_pass is not None, self._unchained_gen
        if hit is not None and hit[0] == key and (passes or now - hit[1] < UNCHAINED_TTL):
            return hit[2]
        from ..verify.listed import missing_note
        from ..verify.unparsed import unchained_note

        # and the sessions the root's _sessions.list names that are gone or emptied, as asz ls says them (one read of
        # the list, two directory reads a listed session: 33 ms of CPU for 1,342)
        note = " ".join(x for x in (unchained_note(self.root, set(conversations))[0], missing_note(self.root)) if x)
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
            while self.requests_active > 0 or time.monotonic() - self.last_read < READ_QUIET or self.hold_counting:
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
            while (self.requests_active > 0 or time.monotonic() - self.last_read < READ_QUIET or self.counts_pending()) \
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
                summary, hours = self.worker.call("check", str(self.root), conversation, list(self.hide), self.prices)
            except WorkerGone:
                if self.worker.closed:
                    raise  # the server is stopping: nothing more is checked
            else:
                self.keep_found(conversation, fp, self.hide, summary, hours)
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
        """Start the daemon thread that keeps every conversation's state known (:meth:`check_all`), looking again every ``every`` s.

        Its first build waits ``delay`` seconds after the server answered its first API request (the page
        asking for the list), or ``delay`` + ``UNREAD_START`` seconds after it started when no one asks, so the
        first conversation a reader opens is not slowed by it, however long the server took to listen."""
        if not self.reading:
            self.reading = CHECK_SOON  # said until the first check starts, so the page says what is still to be read

        def loop() -> None:
            start = time.monotonic()
            while not stop.is_set():
                now, first = time.monotonic(), self.first_request
                if (first and now - first >= delay) or now - start >= delay + UNREAD_START:
                    break
                stop.wait(0.05)
            while not stop.is_set():
                self.check_all(stop)
                stop.wait(every)

        t = threading.Thread(target=loop, name="asz-view-check", daemon=True)
        t.start()
        return t


_TOKENS = ("in", "out", "cache_read", "cache_write")


#: The span of one usage bucket: a quarter hour, in ms (every time zone in use is offset by whole quarter hours).
QUARTER_MS = 900_000
HOUR_MS = 3_600_000
#: The bucket key of the calls whose records carry no time (:func:`usage_hours`); never a quarter's start.
NO_TIME_AT = -1


def usage_hours(doc: dict) -> dict[tuple[int, str], list[int]]:
    """(UTC quarter-hour start in unix ms, model) -> [in, out, cache_read, cache_write, calls, cache_write_1h, then the
    same six for the long-context calls among them (a node's or request's ``long_context`` key), the credits (below),
    then the calls run at a rate the price table does not hold (a usage's :data:`~asz_core.view.usage.RATE_KIND`) and
    those whose rate was not checked when they landed (:data:`~asz_core.view.usage.RATE_UNCHECKED_KIND`)] over the
    document's ``llm.call`` nodes (``cache_write_1h``: the 1-hour part of ``cache_write``, which costs more);
    :func:`hours_answer` sums the quarters into hours too.

    A call with no usage counts in its bucket's calls with no tokens (every call counts, as ``summary.llm_calls`` and
    ``asz usage`` count them: :func:`~asz_core.view.usage.call_count`); a call with no time (Kiro CLI 2.x writes none
    on a model reply) is keyed :data:`NO_TIME_AT`, in no time bucket: :func:`hours_answer` gives it as ``no_time``.
    Then, last, the credits the runtime metered (a float: the summary's ``credits_at``, each on its record's quarter
    and model, :data:`NO_TIME_AT` when the record has no time or the calls have none:
    :func:`~asz_core.view.usage.credits_follow_calls`): never a call, a token or a cost."""
    out: dict[tuple[int, str], list[int]] = {}
    stack = list(doc.get("talks") or []) + list(doc.get("loose") or [])
    while stack:
        n = stack.pop()
        stack.extend(n.get("children") or ())
        if n.get("kind") != "llm.call" or n.get("synthetic") is True:  # written by the runtime: no call (provider_calls)
            continue
        u = n.get("usage") if isinstance(n.get("usage"), dict) else {}
        at = n.get("at") or n.get("placed_at")  # no time of its own: its turn's recorded end, where known (kiro22b)
        at = at // QUARTER_MS * QUARTER_MS if isinstance(at, int) and at else NO_TIME_AT
        key = (at, n.get("model") if isinstance(n.get("model"), str) else "")
        t = out.setdefault(key, [0] * _WIDTH)
        _add_counts(t, 0, u)
        t[4] += len(n.get("requests") or ()) or 1  # a node holding two provider calls (issue 17) counts two
        # long-context calls (input above 200K): each provider call decides for itself, as Anthropic bills it
        for r in (n.get("requests") or ()) if n.get("requests") else (n,):
            ru = r.get("usage") if isinstance(r.get("usage"), dict) else None
            if ru is not None and r.get("long_context") is True:
                _add_counts(t, 6, ru)
                t[10] += 1
            for i, kind in ((13, RATE_KIND), (14, RATE_UNCHECKED_KIND)):  # fast mode, a priority or batch tier, a
                if ru is not None and isinstance(ru.get(kind), int):  # region; or landed before asz looked at a rate
                    t[i] += ru[kind]
    follow = credits_follow_calls(at != NO_TIME_AT for (at, _), v in out.items() if v[4])  # its calls' times
    for part in (doc.get("summary") or {}).get("credits_at") or ():  # what the runtime metered (Kiro): no call
        at = None if follow else part.get("at")
        key = (at // QUARTER_MS * QUARTER_MS if isinstance(at, int) and at else NO_TIME_AT, part.get("model") or "")
        t = out.setdefault(key, [0] * _WIDTH)
        t[12] += part.get("credits") or 0.0
    return out


#: The width of a usage_hours list: in, out, cache_read, cache_write, calls, cache_write_1h, then the same six for the
#: long-context calls among them (input above 200K tokens: :data:`~asz_core.view.usage.LONG_KIND`), then the credits
#: the runtime metered (a float; Kiro), then the calls run at a rate the price table does not hold, then those whose
#: rate was not checked when they landed.
_WIDTH = 15


def _narrow(hours: dict[tuple[int, str], list], model: str, exact: bool, since: int | None,
            until: int | None) -> dict[tuple[int, str], list]:
    """The buckets of one conversation's :func:`usage_hours` whose model matches ``model``
    (:func:`~asz_core.view.match.matches`) and, with ``since`` or ``until`` (unix ms), whose quarter hour starts in
    that window (the bucket of calls with no time is kept: :func:`_placed` places it by the conversation's range)."""
    if not model and since is None and until is None:
        return hours
    return {(at, m): v for (at, m), v in hours.items() if matches(m, model, exact) and (
        at == NO_TIME_AT or ((since is None or at >= since) and (until is None or at <= until)))}


def _sum_parts(parts: list[tuple], since: int | None, until: int | None) -> tuple[dict, dict, list, list]:
    """:meth:`BackgroundChecks.usage`'s buckets over ``parts`` (``(conversation, narrowed usage_hours, its range_span)``):
    ``total`` keyed as :func:`usage_hours`, ``placed`` by ``(day, model)`` (:func:`_placed`), then the
    ``no_time.conversations`` and ``credits`` entries."""
    from .usage_report import span_in_window, span_key

    total, placed, untimed, metered = {}, {}, [], []  # type: ignore[var-annotated]
    windowed = since is not None or until is not None
    for c, hours, span in parts:
        hours, on_day = _placed(hours, span_key("daily", span), not windowed or span_in_window(span, since, until) is True)
        for into, got in ((total, hours), (placed, on_day)):
            for key, v in got.items():
                _add_into(into.setdefault(key, [0] * _WIDTH), v)
        n = sum(v[4] for (at, _), v in hours.items() if at == NO_TIME_AT)
        left = sum(v[12] for (at, _), v in hours.items() if at == NO_TIME_AT and len(v) > 12)
        if n or left:
            untimed.append({"conversation": c, "calls": n, **({"credits": round(left, 6)} if left else {})})
        spent = sum(v[12] for v in (*hours.values(), *on_day.values()) if len(v) > 12)
        if spent:
            metered.append({"conversation": c, "credits": round(spent, 6)})
    return total, placed, untimed, metered


def _placed(hours: dict[tuple[int, str], list], day: str, inside: bool) -> tuple[dict, dict]:
    """One conversation's :func:`usage_hours` as ``(kept, on_day)``: ``on_day`` its calls with no time (:data:`NO_TIME_AT`)
    and credits keyed ``(day, model)`` when ``day`` (``usage_report.span_key`` of its range) places them, ``kept`` the
    rest; ``inside`` False (a window not holding the whole range) leaves out every bucket with no time."""
    from .usage_report import NO_TIME

    kept, on_day = {}, {}  # type: ignore[var-annotated]
    for (at, m), v in hours.items():
        if at != NO_TIME_AT or (inside and day == NO_TIME):
            kept[(at, m)] = v
        elif inside:
            on_day[(day, m)] = v
    return kept, on_day


def _add_counts(t: list[int], at: int, u: dict) -> None:
    """Add ``u``'s four counts into ``t[at:at + 4]`` and its ``cache_write_1h`` into ``t[at + 5]`` (integers only)."""
    for i, k in enumerate(_TOKENS):
        v = u.get(k)
        t[at + i] += v if isinstance(v, int) and not isinstance(v, bool) else 0
    h = u.get(SPLIT_KIND)
    t[at + 5] += h if isinstance(h, int) and not isinstance(h, bool) else 0


def _usage_of(v: list[int]) -> dict:
    """The usage object of a usage_hours list (its long-context part under ``long_context`` when it has one)."""
    u = dict(zip(_TOKENS, v[:4])) | ({SPLIT_KIND: v[5]} if len(v) > 5 and v[5] else {})
    if len(v) > 10 and v[10]:
        u[LONG_KIND] = dict(zip(_TOKENS, v[6:10]), calls=v[10]) | ({SPLIT_KIND: v[11]} if v[11] else {})
    if len(v) > 13 and v[13]:
        u[RATE_KIND] = v[13]
    if len(v) > 14 and v[14]:
        u[RATE_UNCHECKED_KIND] = v[14]
    return u


def hours_answer(total: dict[tuple[int, str], list[int]], *, counted: int, conversations: int, prices=None,
                 placed: dict[tuple[str, str], list] | None = None) -> dict:
    """The ``/api/usage`` answer from per-(quarter hour, model) sums (:func:`usage_hours`): ``hours`` per UTC hour and
    ``quarters`` per quarter hour; ``no_time`` the calls whose records carry no time (keyed :data:`NO_TIME_AT`: in no
    hour or quarter; ``{"in", "out", "cache_read", "cache_write", "calls", "cost"}``, zeros when none); ``models``
    one row per model (``(no model)`` for calls that name none) over every call, timed or not, with its ``calls``;
    ``placed`` (``[{"day": "YYYY-MM-DD", ...}]``, by day) the calls with no time of their own placed by their
    conversation's recorded range (``placed``: (day, model) sums, :func:`_placed`), in no hour or quarter;
    ``total`` the sum of the quarters, ``placed`` and ``no_time`` (so also of the hours, ``placed`` and
    ``no_time``, and of ``models``, to the micro-dollar). The cost comes from ``prices`` (asz.yaml's table, as every other reader prices with) or, when
    None, the shipped price table when it is installed."""
    try:
        from .prices import cost_of as table_cost  # issue 17's price table
    except ImportError:
        cost_of = None
    else:
        def cost_of(usage_by_model):
            return table_cost(usage_by_model, prices)
    timed = {k: v for k, v in total.items() if k[0] != NO_TIME_AT}
    per_hour: dict[tuple[int, str], list[int]] = {}
    for (at, model), v in timed.items():
        _add_into(per_hour.setdefault((at // HOUR_MS * HOUR_MS, model), [0] * len(v)), v)
    hours, unpriced = _bucket_rows(per_hour, "hour", cost_of)
    quarters, _ = _bucket_rows(timed, "at", cost_of)
    untimed, _ = _bucket_rows({k: v for k, v in total.items() if k[0] == NO_TIME_AT}, "at", cost_of)
    no_time = untimed[0] if untimed else _bucket_rows({(NO_TIME_AT, ""): [0] * _WIDTH}, "at", cost_of)[0][0]
    no_time.pop("at")
    on_day, _ = _bucket_rows(placed or {}, "day", cost_of)
    per_model: dict[tuple[str, str], list[int]] = {}
    for (_, model), v in [*total.items(), *(placed or {}).items()]:
        _add_into(per_model.setdefault((model or "(no model)", model), [0] * len(v)), v)
    models, more = _bucket_rows(per_model, "model", cost_of)
    return {"hours": hours, "counted": counted, "conversations": conversations, "unpriced": sorted(unpriced | more),
            "priced": cost_of is not None, "quarters": quarters, "no_time": no_time, "models": models,
            "placed": on_day, "total": _sum_rows(quarters + on_day + [no_time])}


def _add_into(t: list[int], v: list[int]) -> None:
    t.extend([0] * (len(v) - len(t)))
    for i, n in enumerate(v):
        t[i] += n


#: The counts of calls a bucket row carries where some (:func:`~asz_core.view.prices.cost_of`'s).
_CALL_COUNTS = ("long_context_calls", "rate_not_priced_calls", "rate_not_checked_calls")


def _sum_rows(rows: list[dict]) -> dict:
    """The sum of bucket rows (:func:`_bucket_rows`): each count, ``cost`` (None when unpriced) to the micro-dollar, and
    ``cache_write_1h``, ``long_context_calls``, ``rate_not_priced_calls``, ``rate_not_checked_calls`` and ``credits``
    (to 6 decimals) where some row has them."""
    out: dict = {k: 0 for k in ("in", "out", "cache_read", "cache_write", "calls")}
    out["cost"] = None if rows and rows[0]["cost"] is None else 0.0
    for r in rows:
        for k in ("in", "out", "cache_read", "cache_write", "calls", SPLIT_KIND, *_CALL_COUNTS):
            if r.get(k):
                out[k] = out.get(k, 0) + r[k]
        if r.get("credits"):
            out["credits"] = round(out.get("credits", 0.0) + r["credits"], 6)
        if out["cost"] is not None:
            out["cost"] = round(out["cost"] + r["cost"], 6)
    return out


def _bucket_rows(total: dict[tuple[int, str], list[int]], name: str, cost_of) -> tuple[list[dict], set[str]]:
    """One row per bucket key (a start, or a model: its name ``name``) summed over the models, in key order, and the
    unpriced models."""
    by_start: dict[int, dict] = {}
    unpriced: set[str] = set()
    for (start, model), v in sorted(total.items()):
        row = by_start.setdefault(start, {name: start, "in": 0, "out": 0, "cache_read": 0, "cache_write": 0, "calls": 0,
                                          "cost": 0.0 if cost_of else None})
        for i, k in enumerate(_TOKENS):
            row[k] += v[i]
        row["calls"] += v[4]
        if len(v) > 5 and v[5]:  # 1-hour writes: a key only where there are some, as in a usage object
            row[SPLIT_KIND] = row.get(SPLIT_KIND, 0) + v[5]
        if len(v) > 12 and v[12]:  # credits the runtime metered (Kiro): a key only where some, never tokens or USD
            row["credits"] = round(row.get("credits", 0.0) + v[12], 6)
        if cost_of is not None:
            c = cost_of({model or "(no model)": _usage_of(v)})
            row["cost"] = round(row["cost"] + c["usd"], 6)
            for k in _CALL_COUNTS:  # priced at long-context rates (input above 200K); run at a rate the table does not
                if c.get(k):  # hold, or landed before asz looked at one, priced at standard rates: as cost_of counts them
                    row[k] = row.get(k, 0) + c[k]
            unpriced.update(c["unpriced"])
    return list(by_start.values()), unpriced
