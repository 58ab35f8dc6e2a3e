"""The reading hooks of the adapter contract: what the readers ask an adapter about records it landed.

:class:`ReadingHooks` is the mixin :class:`asz_core.plugins.adapter.Adapter` takes them from (a conversation's title,
a prompt's blocks, a child stream's label, the content shape, the credits and turns a record gives, a tool call's
gist, a notice's fixed wording; from :class:`RecordHooks` what a runtime's own record says: its short line, its
commands, its words to search). Each has a default that says nothing, so an adapter overrides only what its runtime
needs; the readers call them only with a dialect the adapter speaks, and none may raise (an
exception, or an answer of another type, is taken as the default: docs/adapters.md). What the collector asks (the
sources, their conversion, the source roots) stays on :class:`~asz_core.plugins.adapter.Adapter`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

__all__ = ["AddedCredits", "ReadingHooks", "RecordHooks"]


class AddedCredits(float):
    """A figure :meth:`Adapter.credits` gives for what one record alone metered (one prompt's credits), added to the
    session's, where a plain number is a running total that replaces the one before. A float in every other way."""

    __slots__ = ()


class RecordHooks:
    """The hooks that read a runtime's own record (a notice, a compaction boundary) as a person reads it: its short
    form, the commands it says ran, its words to search (:class:`ReadingHooks` derives from this class)."""

    def record_line(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """A short form of a runtime's own record of ``dialect`` (a compaction's boundary, a runtime notice), one line
        a person reads beside the step's label: Claude Code's compaction boundary ``auto, 167,731 tokens before``,
        a stop hook summary ``2 hooks ran``. What a human rendering draws (``asz export``'s Markdown and HTML,
        docs/reading.md); the record itself is still drawn whole. ``record`` as for :meth:`ReadingHooks.label_target`. Default
        None (no short form). Must not raise (an exception, or an answer that is not a string with text: None)."""
        return None

    def record_commands(self, dialect: str, record: Mapping[str, Any]) -> list[tuple[str, int | None]]:
        """The commands a runtime's own record of ``dialect`` says it ran, each with its run time in ms (None when the
        record gives none), in the record's order: Claude Code's stop hook summary, each hook's ``command`` and
        ``durationMs``. The md export draws them on the record's folded line, as claude-code-log draws a hook summary
        (render 17, docs/reading.md). ``record`` as for :meth:`ReadingHooks.label_target`. Default [] (none). Must not raise (an
        exception, or an answer that is not such a list, is taken as [])."""
        return []

    def record_words(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """The words of a runtime's own record of ``dialect`` (one a notice or a compaction boundary cites) that a
        reader reads, one piece a line: what ``asz search`` indexes for the record (kind ``notice``, docs/reading.md),
        never its field names nor metadata (trial 50b F2: ``external`` found Claude Code's notices by
        ``"userType":"external"``). Claude Code: a ``system`` line's ``content``, its :meth:`record_line`, a stop hook
        summary's commands. ``record`` as for :meth:`ReadingHooks.label_target`. '' : the record says nothing to find. Default None:
        the index holds the string values of the record's data, one a line (no key, no JSON punctuation). Must not
        raise (an exception, or an answer that is not a string, is taken as None)."""
        return None


class ReadingHooks(RecordHooks):
    """The hooks the readers call on an adapter (:class:`~asz_core.plugins.adapter.Adapter` derives from this class)."""

    def label_target(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """The id of the record a label was written for, when the label names another record than the conversation.

        ``record`` is one landed record of ``dialect`` as its JSON object (seed 000, Record: ``label`` set, no ``id``
        of its own, ``parts`` a list of ``{"k": ..., ...}``), as the readers see it. A runtime that writes a label for
        one message, such as Claude Code's older ``summary`` records naming a message in ``leafUuid``, returns that
        message's id, read from wherever the adapter put it (its own data part); the readers then take the label as
        the conversation's title only when the conversation holds that record (docs/view.md, ``summary.title``).
        None: the label was written for a record and names none (such a ``summary`` record with no ``leafUuid``),
        so it names no conversation. Default: '' (the label names the conversation it is in). Called by the readers, only for label records, with
        a dialect the adapter speaks; must not raise (an exception is taken as '')."""
        return ""

    def given_title(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """The title a person gave the conversation, read from one landed record that carries no ``label``.

        ``record`` as for :meth:`label_target` (no ``id`` of its own). A runtime that lets a person rename a
        conversation, such as Claude Code's ``/rename`` (a ``custom-title`` record, landed whole as one data part),
        returns the name given; the readers then title the conversation with the last such name, before any label
        the runtime wrote (docs/view.md, ``summary.title``). Default None (the record gives no title). Called by the
        readers with a dialect the adapter speaks, only for records with no ``id`` and no ``label``; must not raise
        (an exception, or an answer that is not a string with text, is taken as None)."""
        return None

    def prompt_title(self, dialect: str, text: str) -> str:
        """What of a prompt's text names a conversation when its title is taken from a prompt.

        ``text`` is the text of one typed prompt of ``dialect`` (its ``text`` parts joined by newlines), as it landed.
        A runtime that wraps markup around what the person typed (commands, context an IDE adds, reminders) returns
        the prompt as the person typed it, read from that markup; the readers then make whitespace runs one space and
        cut it to :data:`asz_core.view.summary.TITLE_LIMIT` characters (docs/view.md, ``summary.title``). Default:
        ``text`` unchanged (the prompt as written names the conversation). Called by the readers with a dialect the
        adapter speaks; must not raise (an exception, or an answer that is not a string with text, is taken as
        ``text``)."""
        return text

    def prompt_blocks(self, dialect: str, text: str) -> list[tuple[str, str]]:
        """A typed prompt or an injected text as a person reads it, in blocks: ``[(kind, text), ...]`` in the text's
        order, ``kind`` one of ``text`` (prose, drawn as written), ``command`` (a command as the person typed it,
        read from the runtime's markup: Claude Code's ``/model sonnet``, ``! ls``), ``stdout`` and ``stderr`` (a
        command's output, drawn preformatted). What a human rendering draws (``asz export``'s Markdown and HTML, the
        page's talk body: docs/view.md, "Commands and their output"); the document and the JSON outputs keep the text
        as it landed. ``text`` as for :meth:`prompt_title`. Default ``[("text", text)]``. Must not raise (an
        exception, or an answer that is not such a list, is taken as the default)."""
        return [("text", text)]

    def child_label(self, dialect: str, stream: str, call: Mapping[str, Any] | None, prompt: str = "") -> str:
        """What a child stream of ``dialect`` was started to do, for a child whose records carry no ``label`` (Claude
        Code's older ``agent-<id>.jsonl`` with no ``.meta.json``). ``stream`` is the child stream's name (its agent id);
        ``call`` the landed ``call`` part (``{"k": "call", "name": ..., "data": ...}``) of the step that started it by an
        ``exact_unique`` ``starts`` relation, or None (none, or withheld); named ``Subagent: <label>`` (docs/view.md,
        "Subagents' names"). When that is '' and no call started it, readers ask again with ``prompt``, the child's own
        first prompt (``Warmup``). Default ''. Called with a dialect it speaks; never raises (else, or not a str: '')."""
        return ""

    def child_prompt(self, dialect: str, stream: str, call: Mapping[str, Any]) -> str:
        """What ``call`` (as in :meth:`child_label`) asked a child whose records hold no prompt (Claude Code 2.0.x); ''."""
        return ""

    def content_shape(self, dialect: str, adapter: str, record: Mapping[str, Any]) -> str | None:
        """``"string"`` or ``"list"``: the shape of the message content a landed record of ``dialect`` whose parts are
        one ``text`` part was read from, as the record itself states it, for a runtime whose messages hold either a
        string or a list of blocks (a string and a list of one text block land alike, origin-digest §5.1; seed 003
        tells a person's prompt from the runtime's notice by it). ``adapter`` is the ``adapter`` value of the record's
        file header (``name/version``), so an adapter answers by an exact rule only for the versions that state the
        shape (Claude Code: ``claude-code-local/0.2.0`` on lists a ``content list`` under ``dropped``). None: the record
        cannot tell (an earlier file); ``asz export --format prose`` then reads the source line (docs/reading.md).
        ``record`` as for :meth:`label_target`. Default None. Called by the readers with a dialect the adapter speaks;
        must not raise (an exception, or any other answer, is taken as None)."""
        return None

    def relayed_calls(self, dialect: str, records: Sequence[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any]]] | None:
        """Another stream's model calls a transcript's records copy (Claude Code 2.1.x: a sub-agent's replies as
        ``progress`` records; 48a F1), ``[(row, {"call", "request", "agent", "model", "usage", "tool", "tools"})]``."""
        return None

    def relayed_results(self, dialect: str, records: Sequence[Mapping[str, Any]]) -> list[tuple[int, list[Mapping[str, Any]]]] | None:
        """``[(row, [{"tool", "failed", "text", "by"}, …])]``: the copied results of :meth:`relayed_calls`' tool calls."""
        return None

    def rates_stated(self, dialect: str, adapter: str) -> bool | None:
        """Whether a file of ``dialect`` whose header names ``adapter`` (``name/version``) lists every call run at a rate
        other than standard under ``dropped`` (Claude Code: ``claude-code-local/0.3.0`` on). False: its calls are counted
        ``rate_not_checked`` (docs/view.md, Usage). Default None (no mark); must not raise (taken as None)."""
        return None

    def read_today(self, dialect: str, adapter: str, record: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The flags and trigger a landed record of ``dialect`` reads with under this adapter's rules of today, when an
        earlier version of it (``adapter``: the record's file header, ``name/version``) set them by an earlier rule and
        the record itself holds what today's rule reads (docs/storage-root.md, "A root several asz versions read").
        Flags are set when a file lands and a landed file is never rewritten (seed 000), so without this hook a
        conversation keeps the reading of the version that landed it for good.

        ``record`` as for :meth:`label_target`; asked only for a record flagged ``external_input`` (the flag that
        opens a talk) of a file whose header names another version than this adapter's own. Returns
        ``{"flags": [...], "trigger": str, "why": str}`` (``why``: what today's rule reads differently, one phrase a
        person reads: ``a bash-mode command's output is no typed prompt``), or None: the record reads as it landed.
        Claude Code: a bash-mode command's output landed before ``claude-code-local/0.3.0``. The
        assembly reads the record with the answer's flags and trigger (asz_core.flow.reread); the landed file, the
        record endpoint and ``asz show`` keep the bytes as they landed. Default None; must not raise (an exception,
        or an answer not of that shape, is taken as None)."""
        return None

    def calls_grouped(self, dialect: str, src: str) -> str:
        """How the adapter grouped the records of a transcript landed from source ``src`` (its header's ``src``) into
        model calls when the runtime records no call id there, in a few words (Kiro CLI 3.x's ``messages.jsonl``:
        ``Kiro 3.x records no call id: …``); '' when their ``call`` is the runtime's own id. The readers then say the
        conversation's model calls are asz's grouping (``summary.calls_grouped``; docs/view.md). Default ''; must not
        raise (an exception, or an answer that is not a string, is taken as '')."""
        return ""

    def runs_without_end(self, dialect: str, records: Sequence[Mapping[str, Any]]) -> list[tuple[str, bool]] | None:
        """The runs of a conversation's ``records`` (its transcript records of ``dialect``, landed order) that started
        and whose end no record carries, as ``(run id, is a model call)`` in the order they started: an app that
        stopped mid-run (a crashed LangGraph app), or ends that have not arrived yet. The readers then say so
        (``summary.problems``: ``never ended: …``, :func:`asz_core.view.usage.unended_lines`; trial 27a F5).
        Default None: the runtime records no end of its runs to tell. Must not raise (an exception, or another
        answer, is taken as None)."""
        return None

    def runs_landed_partly(self, dialect: str, records: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]] | None:
        """The runs of a conversation's ``records`` (its transcript records of ``dialect``, landed order) that landed
        with what is known because a part of them never arrived, as ``(run id, what never came)``: a LangSmith run
        patched but never posted (``post``), or whose parent run never arrived (``parent run``), traffic the app's client
        sent while the receiver was down (trial 28c F3), or whose parent links form a cycle (``parent cycle``: every run
        of it arrived, none has a parent to land under; trial 37b F2). The readers say so (``summary.problems``: ``landed with what is
        known: …``, :func:`asz_core.view.unended.partly_lines`). Default None. Must not raise (an exception, or another
        answer, is taken as None)."""
        return None

    def steps_failed_caught(self, dialect: str, records: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, str]] | None:
        """The steps of a conversation's ``records`` (its transcript records of ``dialect``, landed order) that ended with
        an error while the work above them went on (caught, retried, a fallback taken), which no error step draws, as
        ``(run id, step name, the error's first line)``: a LangGraph chain step (trial 37b: a chain step's own error).
        The readers say so (``summary.problems``: ``steps failed and the app went on: …``,
        :func:`asz_core.view.unended.caught_lines`). Default None. Must not raise (an exception, or another answer, is
        taken as None)."""
        return None

    def questions_not_landed(self, dialect: str, records: Sequence[Mapping[str, Any]]) -> list[tuple[str, int, int]] | None:
        """What a conversation's ``records`` (its transcript records of ``dialect``, landed order) say of questions
        whose whole trace never arrived, as ``[(run id, n, of)]``: the run whose end state holds ``of`` person
        messages, ``n`` of which no landed run was given (a LangGraph thread with a checkpointer whose earlier
        invocations were sent while the receiver was down; trial 28c F3). The readers say so (``summary.problems``:
        ``questions never arrived: …``, :func:`asz_core.view.unended.lost_lines`). Default None. Must not raise."""
        return None

    def root_gaps(self, dialect: str, storage: Any) -> list[tuple[str, str, str]] | None:
        """The times the storage root ``storage`` knows that what was sent for conversations of ``dialect`` may have
        been lost whole (LangSmith: no receiver listened, or a request was refused unread; trial 32a F3), as ``[(from,
        to, sentence)]`` (RFC 3339 UTC; a refusal is one instant, from = to). A conversation whose span holds one says
        it (``summary.problems``: ``may lack what was sent then: …``, :func:`asz_core.view.unended.gap_lines`). Asked
        only of a root holding ``_ingest/``. Default None. Must not raise."""
        return None

    def tool_timed(self, dialect: str) -> bool:
        """True when a tool step of ``dialect`` times the tool with no person in between: its ``request_to_result_ms``
        runs from the end of the model call that asked for it to the end of the tool's run, as the runtime recorded
        both (LangSmith's run ``end_time``s: the tool's run and the graph's step into it), so ``asz usage tools``
        counts it where no execution record measured the call (trial 32a F5; docs/reading.md, Tool use). Default
        False: Claude Code's call and result are transcript lines, and a permission prompt may wait between them.
        Must not raise (an exception, or another answer, is taken as False)."""
        return False

    def tool_run_ms(self, dialect: str, record: Mapping[str, Any]) -> int | None:
        """The tool's own run time in whole ms as the runtime recorded it on ``record``, a tool step's landed result
        record of ``dialect`` (LangSmith: the tool run's ``end_time`` less its ``start_time``, which langsmith-ingest
        0.12.0 on lands beside the result; trial 37b F4), None when the record says none. The document gives the step
        ``duration_ms`` with ``duration_measured_by: runtime``, and ``asz usage tools`` counts it where no execution
        record measured the call, before the step's ``request_to_result_ms`` (:meth:`tool_timed`; docs/reading.md,
        Tool use). Asked only of an adapter that overrides it. Default None. Must not raise (an exception, or an answer
        that is not a non-negative int, is taken as None)."""
        return None

    def error_failed(self, dialect: str) -> str:
        """What an error step (``error.api``) of ``dialect`` records as failed when it ends no model call (a call's own
        end that carries an error is a failed model request, whatever the dialect): ``"request"``, a model request
        (Claude Code's ``system/api_error``), or ``"run"``, an app's run that ended with an error (a LangGraph trace
        whose tool raised; trial 32a F7). The readers name each error step so (``summary.failed_runs``,
        :func:`asz_core.view.rate_words.error_words`, the step's ``failed`` key; docs/view.md). Default
        ``"request"``. Must not raise (an exception, or another answer, is taken as ``"request"``)."""
        return "request"

    def landed_in_arrival_order(self, dialect: str) -> bool:
        """True when records of ``dialect`` land in the order they reached asz rather than the order of the work: a
        LangSmith client posts a run when it starts and patches it when it ends, in batches, so a thread's questions
        land before the ends that carry its replies. The prose, audit and text exports then read each stream in the
        asz.view document's order (its talks, runs and steps; :mod:`asz_core.reading.doc_order`; recheck 28 N1).
        Default False (file order is the work's order). Must not raise (an exception, or an answer that is not True,
        is taken as False)."""
        return False

    def landed_without(self, dialect: str, adapter: str) -> list[str]:
        """What a file of ``dialect`` whose header names ``adapter`` (an earlier version of this adapter, ``name/version``)
        did not keep or read as this version does, one phrase each, for the reader of a root several versions wrote
        (docs/storage-root.md, "A root several asz versions read"): Claude Code's ``claude-code-local/0.3.0`` did
        not keep a line member it did not describe. ``asz conversation`` lists them under the versions that landed
        the conversation. Default [] (nothing said); must not raise (an exception or another answer is taken as [])."""
        return []

    def call_gist(self, dialect: str, name: str, data: Any) -> str | None:
        """What a tool call ``name`` with input ``data`` acts on, for the audit prose's ``tool_call`` line (docs/adapters.md)."""
        return None

    def failed_word(self, dialect: str) -> str:
        """What of a tool result the runtime writes makes the adapter land its ``result`` part ``failed``, in a few
        words naming the runtime's own field (Claude Code: ``is_error: true`` on its tool_result), for the readers that
        count failed calls (``asz usage tools``' line under its table; trial 35a F9: it said Claude Code's word for
        every runtime). Default '': the readers say the adapter's rule without its word. Must not raise (an exception,
        or an answer that is not a string, is taken as '')."""
        return ""

    def fixed_notice(self, dialect: str, text: str) -> str | None:
        """``"interrupt"`` or ``"refused"``, read from the runtime's fixed wording in ``text`` (docs/adapters.md), or None."""
        return None

    def fixed_wording(self, dialect: str, text: str) -> bool:
        """True when ``text`` (a part's whole text, a landed record of ``dialect``) is, whole, a fixed wording of the
        runtime that :meth:`fixed_notice` reads (an interrupt notice, the answer to a call the person refused) with no
        person's or model's words in it: a skeleton keeps such a text (``asz prune``; docs/push.md, Retention and
        skeletons), so the readers' ``interrupt`` and ``refused`` read the same after retention (trial 47a F1, F2: 12
        refused calls read failed). Called by ``asz prune`` for each text and result part, only when the adapter
        overrides this method. Default False; must not raise (an exception, or any other answer, is taken as
        False)."""
        return False

    def fixed_prefix(self, dialect: str, text: str) -> str | None:
        """The leading part of ``text`` (a part's whole text, not :meth:`fixed_wording` whole) that is the runtime's
        own fixed wording, when what follows is a person's or the model's words (Claude Code's answer to a refused call
        followed by the person's reason for the rejection), else None. A skeleton keeps that lead and says the size
        of the rest (no digest of it), which retention takes (``asz prune``; docs/push.md, Retention and skeletons), so the
        readers still read ``refused`` from it and say the reason was removed (trial 47a F1's other half: 32 of 256
        refusals read failed after retention). Called by ``asz prune`` for each text and result part whose text is
        not fixed wording whole, only when the adapter overrides this method. Default None; must not raise (an
        exception, or an answer that is not a non-empty leading part of ``text``, keeps nothing)."""
        return None

    def prompt_names_work(self, dialect: str, text: str) -> bool:
        """False when a typed prompt of ``dialect`` is the runtime's own business rather than the work: a command with
        nothing typed beside it (Claude Code's ``/context``, ``/clear``, ``/model``), the runtime's caveat about such
        commands, or their output. A conversation's title passes over such a prompt to the first one that names work,
        and takes it (read by :meth:`prompt_title`) only when no prompt does (docs/view.md, ``summary.title``).

        ``text`` as for :meth:`prompt_title`. Default True (every prompt names work). Must not raise (an exception
        or an answer that is not a bool is taken as True)."""
        return True

    def credits(self, dialect: str, record: Mapping[str, Any]) -> float | None:
        """The credits the runtime metered, as this landed record of ``dialect`` gives them, in one of two forms:

        - a plain number: a running total of the session so far, which replaces any earlier record's (Kiro CLI 2.x's
          session document, whose ``metering_usage`` lists every request's);
        - an :class:`AddedCredits`: what this record alone metered (one prompt's, Kiro's ``usage_summary`` line), added
          to the session's;

        or None when the record gives none. The session's credits are the last running total (0 when none) plus every
        added figure; ``asz usage`` and ``/api/usage`` put each record's part (an added figure, or a running total's
        rise over the one before) on the record's own ``time`` and ``model`` (docs/view.md, ``summary.credits_at``).
        Credits are a runtime's own unit: never tokens, never USD; the readers show them as ``credits`` beside the
        token figures (docs/view.md, ``summary.credits``). ``record`` as for :meth:`label_target`. Default None.
        Called by the readers, for every record of a dialect the adapter speaks, only when the adapter overrides this
        method; must not raise (an exception, or an answer that is not a finite number of 0 or more, is taken as None).
        """
        return None

    def turns(self, dialect: str, record: Mapping[str, Any]) -> list[tuple[str | None, tuple, float | None]] | None:
        """The turns this record lists, in order, as ``(end: RFC 3339 or None, reply record ids, credits or None)``, or
        None: a reply with no time is placed at its turn's recorded end, with the turn's credits (docs/view.md,
        ``placed_at``; Kiro CLI 2.x's session document). ``record`` as for :meth:`label_target`. Default None."""
        return None

    def metered_data(self, dialect: str, data: Any) -> Any:
        """What of a data part's decoded ``data`` (a landed record of ``dialect``) a skeleton keeps so that
        :meth:`credits` and :meth:`turns` give the same figures after retention (docs/push.md, Retention and
        skeletons; trial 29a F2: Kiro's credits went with the text, and with them the model the credits were metered
        under): the figures alone and what places them (units, numbers, turn ends, reply ids), never text; None to keep
        nothing (the default: an adapter whose figures are the records' ``usage`` and ``model`` keeps them there).
        Called by ``asz prune`` for each data part that decodes and is none of the kinds a skeleton keeps already
        (seed 000, Skeletons), only when the adapter overrides this method; must not raise (an exception keeps
        nothing)."""
        return None
