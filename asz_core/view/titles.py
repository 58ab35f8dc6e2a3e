"""The title a runtime wrote for a conversation, read from its landed records (issue 17; trial 6, reading gaps 1 and 5).

Assembly puts the last label on a record with no id of its own into the round header
(:func:`asz_core.flow.asm_streams.latest_title`: Claude Code's ``ai-title`` and older ``summary`` records, Kiro's
session title). The index it reads holds no content, so it cannot tell two things a reader must:

- a label written for a record of another session. Claude Code writes a ``summary`` record, on resuming, into
  the transcript it resumes in, naming the message whose conversation it names, and that message is often one of
  another session's. Only the adapter knows where its records say so (seed 000: a runtime's vocabulary stops at
  its adapter): :meth:`asz_core.plugins.adapter.Adapter.label_target` gives the id, asked of the adapter of the
  landed file's dialect (:func:`asz_core.plugins.manager.adapter_for_dialect`);
- a label in a landed file that does not verify, which is no evidence of anything;
- a label written for a record that names none (a ``summary`` record with no ``leafUuid``: ``label_target`` answers
  None), which names no conversation.

:class:`RuntimeTitle` gathers, record by record, the labels the header's rule takes and the ids of the session's
stream records, and gives the header's title unchanged unless one of those labels names a record the
conversation does not hold or sits in a file that does not verify, or no landed record there carries it (its file
was deleted); then the last label that does neither, or '' (the reader falls back to the first talk's label, as for a conversation the runtime gave no title).

No role field of seed 000 says which record a label was written for, so the core never reads it: with no adapter
installed for a file's dialect, its labels name the conversation they are in, as the header's rule takes them.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Sequence

from ..flow.index import SET_ASIDE_KINDS
from ..storage.layout import session_listing

__all__ = ["BLOCK_KINDS", "BLOCK_STEPS", "OUTPUT_KINDS", "NO_ANSWER", "SHORT_FORM_KINDS", "ask_adapter", "LandedTitles", "PromptTitle", "RuntimeTitle", "call_gist", "child_label", "child_prompt", "CONTINUED_SHORT", "CONTINUED_UNMARKED", "COMPACTION_UNSAID", "CHILD_LABEL_FIRST", "continued_title", "copy_marked", "dialect_of", "given_title", "label_for_record", "landed_title", "named_for",
           "talk_headings", "step_blocks", "prompt_blocks", "prompt_names_work", "prompt_text", "subagent_title", "too_large_title", "lost_prompt_title"]
#: File kinds whose labels name a run or a workflow, never the conversation (as :func:`latest_title` skips them).
_NOT_TITLES = frozenset({"workflow_manifest", "workflow_script", "journal"}) | SET_ASIDE_KINDS


#: What :func:`ask_adapter` gives when no adapter speaks the dialect or the one that does raised: neither a str, nor
#: None, nor any value an adapter's hook answers, so each caller's own check of the answer turns it into its default.
NO_ANSWER = object()


def ask_adapter(dialect: str, hook: str, *args: Any) -> Any:
    """The answer of the adapter that speaks ``dialect`` to its ``hook`` (``adapter.<hook>(dialect, *args)``), or
    :data:`NO_ANSWER` when none speaks it or the hook raises: an adapter's bug takes nothing from the reader. The
    plugins are loaded on the first call (:func:`asz_core.plugins.manager.adapter_for_dialect`). Never raises."""
    from ..plugins.manager import adapter_for_dialect

    adapter = adapter_for_dialect(dialect) if dialect else None
    if adapter is None:
        return NO_ANSWER
    try:
        return getattr(adapter, hook)(dialect, *args)
    except Exception:  # an adapter's bug: the caller's default stands
        return NO_ANSWER


def prompt_text(text: str, dialect: str) -> str:
    """What of a typed prompt's ``text`` names the conversation, as the adapter of ``dialect`` reads its runtime's
    markup (:meth:`~asz_core.plugins.adapter.Adapter.prompt_title`); ``text`` as written when no adapter speaks
    ``dialect``, or it fails or gives no text."""
    got = ask_adapter(dialect, "prompt_title", text) if text else NO_ANSWER
    return got if isinstance(got, str) and got.strip() else text


def too_large_title(size: int) -> str:
    """The title of a conversation whose first typed prompt was too large to land (its text not in the root, ``size``
    its original bytes; trial 24b F1: it read ``(no prompt)``): ``(prompt too large to land: 6.2 MB)`` (powers of
    1000, one decimal)."""
    for unit, step in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= step:
            return f"(prompt too large to land: {size / step:.1f} {unit})"
    return f"(prompt too large to land: {size:,} bytes)"


def lost_prompt_title(parts: Any) -> str:
    """:func:`too_large_title` of a prompt record's ``parts`` (a record's ``parts`` list) when they hold no text and
    a text part of theirs was too large to land (its original ``bytes`` summed over such parts); '' otherwise. What a
    talk's label and a conversation's title are where the typed prompt's text did not land (docs/view.md)."""
    if not isinstance(parts, list) or any(isinstance(p, dict) and p.get("k") == "text" and p.get("text") for p in parts):
        return ""
    lost = [p.get("bytes") for p in parts if isinstance(p, dict) and p.get("k") == "text" and p.get("state") == "too_large"]
    return too_large_title(sum(b for b in lost if isinstance(b, int))) if lost else ""


def prompt_names_work(text: str, dialect: str) -> bool:
    """Whether a typed prompt's ``text`` names the work of its conversation, as the adapter of ``dialect`` reads it
    (:meth:`~asz_core.plugins.adapter.Adapter.prompt_names_work`: not Claude Code's ``/context``, its caveat about
    local commands, nor their output); True when no adapter speaks ``dialect``, or it fails or answers no bool."""
    got = ask_adapter(dialect, "prompt_names_work", text) if text else NO_ANSWER
    return got if isinstance(got, bool) else True


def child_label(dialect: str, stream: str, call: dict | None, prompt: str = "") -> str:
    """What a child stream with no ``label`` was started to do, as the adapter of ``dialect`` reads the call that
    started it (:meth:`~asz_core.plugins.adapter.Adapter.child_label`: Claude Code's Task ``description``), or, given
    ``prompt`` (the child's own first prompt, asked only when no call and no rule named it), that prompt; '' when no
    adapter speaks ``dialect``, or it fails or gives no text."""
    got = ask_adapter(dialect, "child_label", stream, call, *((prompt,) if prompt else ()))
    return got.strip() if isinstance(got, str) else ""


def child_prompt(dialect: str, stream: str, call: dict) -> str:
    """What the call that started a child stream asked it, as the adapter of ``dialect`` reads the call
    (:meth:`~asz_core.plugins.adapter.Adapter.child_prompt`: Claude Code's Task ``prompt``); '' when no adapter speaks
    ``dialect``, or it fails or gives no text."""
    got = ask_adapter(dialect, "child_prompt", stream, call)
    return got if isinstance(got, str) and got.strip() else ""


def call_gist(dialect: str, name: str, data: Any) -> str:
    """What a tool call named ``name`` with input ``data`` (decoded JSON) acts on, as the adapter of ``dialect``
    sums it up (:meth:`~asz_core.plugins.adapter.Adapter.call_gist`: Kiro's ``write`` reads ``create /w/notes.md``);
    '' when no adapter speaks ``dialect``, or it fails or gives no text (the caller then reads the input's fields)."""
    got = ask_adapter(dialect, "call_gist", name, data) if dialect else NO_ANSWER
    return got if isinstance(got, str) and got.strip() else ""


def dialect_of(root: str | os.PathLike, session: str, listing: Any = None) -> str:
    """The dialect of a session's first landed file, a skeleton's too ('' when it has none or its header does not
    read): a skeleton's header is the landed file's whole (seed 000), so a pruned session keeps its dialect. The one
    rule of a conversation's ``dialect`` (``asz ls --json``, ``asz ls --dialect``, ``asz usage --dialect``, search,
    export; trial 19: a pruned row said ``dialect ""``). ``listing``: the session's
    :func:`~asz_core.storage.layout.session_listing` with skeletons, when the caller has it."""
    sdir = Path(root) / session
    if listing is None:
        listing = session_listing(sdir, skeletons=True) if sdir.is_dir() else None
    return first_dialect([path for _, path in listing.files] if listing is not None else [])


def first_dialect(paths: Sequence[Path]) -> str:
    """The ``dialect`` of the header line of the first of ``paths`` (landed ``.sd`` files in seq order); '' when there
    is none or its header does not read."""
    from ..sessiondata.reader import landed_header

    for path in paths:
        try:
            return landed_header(path).dialect
        except (OSError, ValueError, EOFError):
            return ""
    return ""


#: The kinds of block a prompt is read in (:func:`prompt_blocks`, :meth:`~asz_core.plugins.adapter.Adapter.prompt_blocks`).
BLOCK_KINDS = frozenset({"text", "command", "stdout", "stderr"})
#: The blocks that are a command's output, drawn preformatted.
OUTPUT_KINDS = frozenset({"stdout", "stderr"})
#: The step kinds whose text a human rendering reads in blocks: what a person typed and what the runtime injected.
BLOCK_STEPS = frozenset({"message.external", "context.injection"})


def prompt_blocks(text: str, dialect: str) -> list[tuple[str, str]]:
    """A typed prompt's or injected text's ``text`` as a person reads it, ``[(kind, text), ...]`` with ``kind`` in
    :data:`BLOCK_KINDS`, as the adapter of ``dialect`` reads its runtime's markup
    (:meth:`~asz_core.plugins.adapter.Adapter.prompt_blocks`: Claude Code's ``/model sonnet``, ``! ls`` and their
    output); ``[("text", text)]`` when no adapter speaks ``dialect``, or it fails or answers no such list. Display only
    (docs/view.md, "Commands and their output"): the document keeps the text as it landed."""
    got = ask_adapter(dialect, "prompt_blocks", text) if text else NO_ANSWER
    if isinstance(got, list) and got and all(isinstance(b, (tuple, list)) and len(b) == 2 and b[0] in BLOCK_KINDS
                                             and isinstance(b[1], str) for b in got):
        return [(b[0], b[1]) for b in got]
    return [("text", text)]


#: The step kinds that stand for a runtime's own record, each labelled with the short form :func:`record_line` gives it
#: (md's and html's step label, the page's row: ``/api/c/{id}/headings`` ``lines``; trial 43c F3: the page drew a
#: Claude Code ``informational`` notice as its record's JSON).
SHORT_FORM_KINDS = frozenset({"epoch.boundary", "control.notice", "runtime.notification", "error.api", "control.interrupt",
                              "control.permission", "control.command"})


def record_line(record: dict | None, dialect: str) -> str:
    """The short form the adapter of ``dialect`` gives a runtime's own landed ``record``
    (:meth:`~asz_core.plugins.adapter.Adapter.record_line`: Claude Code's compaction boundary reads ``auto, 167,731
    tokens before``), on one line; '' when there is no record, no adapter speaks ``dialect``, or it fails or gives
    none. Display only: the document keeps the record as it landed."""
    got = ask_adapter(dialect, "record_line", record) if record else NO_ANSWER
    return " ".join(got.split()) if isinstance(got, str) else ""


def record_commands(record: dict | None, dialect: str) -> list[tuple[str, int | None]]:
    """The commands the adapter of ``dialect`` reads a runtime's own landed ``record`` as having run, each with its run
    time in ms or None (:meth:`~asz_core.plugins.adapter.Adapter.record_commands`: a Claude Code stop hook summary's
    hooks); [] when there is no record, no adapter speaks ``dialect``, or it fails or answers anything but such a
    list. Display only: the document keeps the record as it landed."""
    got = ask_adapter(dialect, "record_commands", record) if record else NO_ANSWER
    if not isinstance(got, list):
        return []
    return [(c, ms if isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0 else None) for item in got
            if isinstance(item, tuple) and len(item) == 2 and isinstance(c := item[0], str) and c.strip()
            for ms in (item[1],)]


def step_blocks(doc: dict, dialect: str, record: Callable[[dict], dict | None] | None = None) -> dict[str, list[tuple[str, str]]]:
    """``{step id: blocks}`` for each step of an asz.view document ``doc`` of a :data:`BLOCK_STEPS` kind whose text
    the adapter of ``dialect`` reads in blocks other than the text as written (:func:`prompt_blocks`): what the page
    draws in its place (``/api/c/{id}/headings``). A text the document clipped (its ``bytes`` more than the text's) is
    read whole from its record through ``record`` (a ``ref`` dict -> the landed record, or None) when it gives one,
    so the blocks are whole. Display only: the document's ``text`` stays the record's."""
    out: dict[str, list[tuple[str, str]]] = {}
    todo = [t for t in doc.get("talks") or () if isinstance(t, dict)]
    while todo:
        n = todo.pop()
        todo.extend(c for c in n.get("children") or () if isinstance(c, dict))
        text = n.get("text")
        if n.get("kind") not in BLOCK_STEPS or not isinstance(text, str) or not text:
            continue
        blocks = prompt_blocks(text, dialect)
        if blocks == [("text", text)]:
            continue
        if record is not None and isinstance(n.get("bytes"), int) and n["bytes"] > len(text.encode("utf-8", "surrogatepass")):
            whole = _part_text(record(n["ref"]) if isinstance(n.get("ref"), dict) else None, n.get("ref") or {})
            blocks = prompt_blocks(whole, dialect) if whole else blocks
        out[n["id"]] = blocks
    return out


def _part_text(rec: dict | None, ref: dict) -> str:
    """The text of the part ``ref`` names in ``rec`` (its ``block``), else of every text part joined by newlines; ''
    when there is none (a withheld record has none)."""
    parts = rec.get("parts") if isinstance(rec, dict) else None
    if not isinstance(parts, list):
        return ""
    block = ref.get("block")
    if isinstance(block, int):
        parts = parts[block:block + 1]
    return "\n".join(p["text"] for p in parts if isinstance(p, dict) and p.get("k") == "text" and isinstance(p.get("text"), str))


def talk_headings(doc: dict, dialect: str, limit: int = 0, record: Callable[[dict], dict | None] | None = None,
                  clean: Callable[[str], str] | None = None, subagents: bool = True) -> dict[str, str]:
    """``{talk id: heading}`` for each talk of an asz.view document ``doc`` (its ``talks`` list) that has a label: the
    label read as a title is (:func:`~asz_core.view.summary.short_title` for ``dialect``; cut to ``limit``
    characters when ``limit`` is above 0, else whole): Claude Code's command markup reads ``/context``. A label that
    is only a command's output (:func:`prompt_blocks` gives only :data:`OUTPUT_KINDS`: Claude Code's
    bash-mode output) is headed by the command of the talk before it in its stream when ``record`` (a ``ref`` dict ->
    the landed record, or None) shows its record's ``parent`` is that talk's record, else by the output's text.
    ``clean`` is applied to each text first (the exports remove terminal formatting). With ``subagents``, a sub-agent's
    talk no call started is headed as :func:`~asz_core.view.subagent_heads.subagent_heading` says, labelled or not
    (``Subagent: <its opening line>``, else ``Subagent: parent call not found``; trial 45b F4). Display only: the
    document's ``label`` stays the text the record holds (seed 004)."""
    from .subagent_heads import subagent_heading
    from .summary import short_title

    clean = clean or (lambda text: text)
    out: dict[str, str] = {}
    before: dict = {}  # stream -> the talk before, in the document's order (time order)
    for t in doc.get("talks") or ():
        if not isinstance(t, dict):
            continue
        prev, before[t.get("stream")] = before.get(t.get("stream")), t
        label = t.get("label")
        said = subagent_heading(doc, t, lambda text: short_title(clean(text), dialect, max(limit - 10, 1) if limit > 0
                                                                 else len(text))) if subagents else ""
        if said:
            out[t["id"]] = said
            continue
        if not isinstance(label, str) or not label:
            continue
        cut = limit if limit > 0 else len(label)
        blocks = prompt_blocks(label, dialect)
        if all(kind in OUTPUT_KINDS for kind, _ in blocks):
            text = _command_before(t, prev, dialect, record) or " ".join(text for _, text in blocks)
            out[t["id"]] = short_title(clean(text), "", cut) or short_title(clean(label), dialect, cut)
        else:
            out[t["id"]] = short_title(clean(label), dialect, cut)
    return out


def _command_before(talk: dict, prev: dict | None, dialect: str, record: Callable[[dict], dict | None] | None) -> str:
    """The command (:func:`prompt_blocks`' first ``command`` block) of ``prev``'s label when the record of ``talk``
    names the record of ``prev`` as its ``parent`` (read through ``record``); else ''."""
    if prev is None or record is None or not isinstance(prev.get("label"), str) or not talk.get("ref") or not prev.get("ref"):
        return ""
    mine, theirs = record(talk["ref"]), record(prev["ref"])
    if not mine or not theirs or not mine.get("parent") or mine.get("parent") != theirs.get("id"):
        return ""
    return next((text for kind, text in prompt_blocks(prev["label"], dialect) if kind == "command"), "")


class PromptTitle:
    """The title a conversation takes from its prompts (docs/view.md, ``summary.title``), the one rule the document's
    summary, the landed-file fallback and the search index follow: prompts are offered (:meth:`offer`) in the order
    they would title it; the first that names work (:func:`prompt_names_work`) titles it; when none does, the first
    one offered (``/context``) does. Each title is the prompt read by :func:`~asz_core.view.summary.short_title`.
    """

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        #: The first non-empty title of a prompt that names no work ('' until one is offered).
        self.fallback = ""
        #: The title of the first prompt that names work ('' until one is offered).
        self.found = ""
        #: How many prompts were offered; the 0-based place of the one :attr:`found` and :attr:`fallback` came from.
        self.offered, self._found_at, self._fallback_at = 0, -1, -1

    def offer(self, text: str) -> bool:
        """Consider one prompt's ``text``; True once a prompt naming work has titled the conversation (stop offering)."""
        if self.found:
            return True
        from .summary import short_title

        at, self.offered = self.offered, self.offered + 1
        title = short_title(text, self.dialect)
        if not title:
            return False
        if prompt_names_work(text, self.dialect):
            self.found, self._found_at = title, at
            return True
        if not self.fallback:
            self.fallback, self._fallback_at = title, at
        return False

    def title(self) -> str:
        """The title: the first prompt naming work, else the first offered, else ''."""
        return self.found or self.fallback

    def chosen(self) -> int:
        """The 0-based place, in the order offered, of the prompt :meth:`title` comes from; -1 when none titles it.
        What a reader that must know that prompt's record (its flags: search's withholding) asks: the title itself is
        masked and cut, so it is no longer the text the record holds."""
        return self._found_at if self.found else self._fallback_at


def label_for_record(rec: dict, dialect: str) -> str | None:
    """The id of the record ``rec``'s label was written for, as the adapter of ``dialect`` reads it
    (:meth:`~asz_core.plugins.adapter.Adapter.label_target`); None when the adapter says it was written for a record
    and names none (so no conversation); '' when no adapter speaks ``dialect``, the adapter says the label names no
    other record, or it fails."""
    got = ask_adapter(dialect, "label_target", rec)  # NO_ANSWER is neither: '' (its label is read as naming it)
    return got if isinstance(got, str) or got is None else ""


def given_title(rec: dict, dialect: str) -> str:
    """The title a person gave the conversation in the landed record ``rec`` (no ``id``, no ``label``), as the adapter
    of ``dialect`` reads it (:meth:`~asz_core.plugins.adapter.Adapter.given_title`: Claude Code's ``custom-title``,
    written by ``/rename``); '' when no adapter speaks ``dialect``, or it fails or gives no text."""
    got = ask_adapter(dialect, "given_title", rec) if dialect else NO_ANSWER
    return got if isinstance(got, str) and got.strip() else ""


class RuntimeTitle:
    """The runtime's title of one conversation, from its landed records seen in seq and row order (:meth:`see`)."""

    __slots__ = ("ids", "labels", "given", "doubt", "named", "pruned")

    def __init__(self, named: Any = None) -> None:
        self.ids: set[str] = set()
        #: the root's labels naming a record (:class:`~asz_core.view.named_titles.NamedIn`) and this conversation's
        #: session, or None: a label in another session's file naming one of :attr:`ids` titles it when nothing of its
        #: own does (:meth:`named_title`; trial 41c F2)
        self.named: tuple[Any, str] | None = named
        #: a skeleton was seen: retention removed the session's text, and no other session's label names it
        self.pruned = False
        #: each title a person gave the conversation (:func:`given_title`: Claude Code's ``/rename``), in order: the
        #: last one titles it, before any label the runtime wrote
        self.given: list[str] = []
        #: (label, the id its record names, '' or None: :func:`label_for_record`) of each record the header's rule
        #: takes, in order
        self.labels: list[tuple[str, str | None]] = []
        #: a label the header's rule takes sits in a landed file that does not verify
        self.doubt = False

    def see(self, rec: dict, kind: str, stream: str, verified: bool = True, dialect: str = "") -> None:
        """One landed record of a file of ``kind`` on ``stream`` in ``dialect`` (its header's); ``verified`` False for
        a file that does not verify."""
        if kind in SET_ASIDE_KINDS:
            return  # changes, executions, bodies, companion files: another id space, never a title
        rid = rec.get("id")
        if isinstance(rid, str) and rid:
            self.ids.add(rid)
            return
        label = rec.get("label")
        if kind in _NOT_TITLES or (kind == "agent_meta" and (stream != "main" or rec.get("child"))):
            return  # a run's or a workflow's name; a child's sidecar names what the child was asked, not the session
        given = "" if isinstance(label, str) and label else given_title(rec, dialect)
        if not given and (not isinstance(label, str) or not label):
            return
        if not verified:
            self.doubt = True
            return
        if given:
            self.given.append(given)
        else:
            self.labels.append((label, label_for_record(rec, dialect)))

    def see_file(self, recs: list[dict], ids: list, kind: str, stream: str, verified: bool = True, dialect: str = "") -> None:
        """Every record of one landed file, in row order, as :meth:`see` sees them; ``ids`` is each record's ``id``
        (gathered while the file was read): the ids are added at once, and only the records without one are looked at."""
        if kind in SET_ASIDE_KINDS:
            return
        named = [i for i in ids if isinstance(i, str) and i]
        self.ids.update(named)
        if len(named) < len(recs):
            for rec, rid in zip(recs, ids):
                if not isinstance(rid, str) or not rid:
                    self.see(rec, kind, stream, verified, dialect)

    def see_landed(self, sess, seq: int) -> None:
        """The landed file of ``seq`` of ``sess`` (a :class:`~asz_core.view.session_records.LandedSession`), as
        :meth:`see_file` sees it with its header's kind, stream and dialect; a skeleton (``seq`` in
        ``sess.removed_at``) gives its records' ids and none of their labels: retention keeps a label in the skeleton,
        the session's index and the rounds for the structure, never for a reader to show (trial 32b F1), so a pruned
        conversation's title is ``(removed by retention)`` and no derived file under ``_index/`` holds it."""
        if seq in sess.removed_at:  # a skeleton: its labels are kept for the structure alone and name nothing shown
            self.pruned = True
            self.ids.update(i for i in sess.ids[seq] if isinstance(i, str) and i)  # (trial 32b F1; docs/push.md)
            return
        h = sess.headers.get(seq)
        kind, stream, verified = (h.kind if h else ""), (h.stream if h else ""), seq not in sess.unverified
        self.see_file(sess.records[seq], sess.ids[seq], kind, stream, verified, h.dialect if h else "")

    def title(self, header_title: str) -> str:
        """``header_title`` (the round header's) while every label it could come from is this conversation's and
        verifies, and a record seen carries it; else the last label that is, or ''. The last title a person gave it
        (:attr:`given`) comes before both."""
        if self.given:
            return self.given[-1]
        if not self.doubt and all(map(self._names_it, self.labels)) and (not header_title or self.holds(header_title)):
            return header_title or self.named_title()
        return self.last()

    def holds(self, label: str) -> bool:
        """Whether ``label`` is on a record seen that names this conversation (the header's title is evidence only
        while the landed file it came from is there: assembly read it from a file since deleted otherwise)."""
        return any(seen[0] == label for seen in self.labels if self._names_it(seen))

    def _names_it(self, seen: tuple[str, str | None]) -> bool:
        """Whether a label seen names this conversation: it names no other record, or one the conversation holds."""
        leaf = seen[1]
        return leaf == "" or (leaf is not None and leaf in self.ids)

    def last(self) -> str:
        """The last title a person gave it (:attr:`given`), else the last label seen that names this conversation
        and verifies, or ''."""
        if self.given:
            return self.given[-1]
        for seen in reversed(self.labels):
            if self._names_it(seen):
                return seen[0]
        return self.named_title()

    def named_title(self) -> str:
        """The label another session's landed file wrote for one of this conversation's records (Claude Code's
        ``summary`` on resuming, its ``leafUuid`` a message here), the last in (session, seq, row) order
        (:meth:`~asz_core.view.named_titles.NamedIn.title`); '' without :attr:`named`, for a pruned conversation
        (its title went with its text, docs/reading.md) or when none names it."""
        if self.named is None or self.pruned:
            return ""
        found, session = self.named
        return found.title(session, self.ids)


class LandedTitles:
    """A session's landed files read once (:class:`~asz_core.view.session_records.LandedSession`), for the title its
    files that are there and verify give through a seq (:meth:`title`): what ``asz push`` carries as a round's
    ``asz.conversation.title``, and what names a conversation whose round chain gives no document."""

    def __init__(self, root: Path, session: str, sess=None) -> None:
        from .session_records import LandedSession

        #: the session's landed files: ``sess`` when given (a LandedSession already read), else read here
        self.sess = sess if sess is not None else LandedSession(Path(root), session, 1 << 62)
        #: the landed seqs in order, and a RuntimeTitle that has seen the files of the first ``_fed`` of them: each
        #: round's title feeds it only the files after (:meth:`_runtime_title`)
        self._seqs = sorted(self.sess.records)
        self._named = named_for(root, session)
        self._got = RuntimeTitle(self._named)
        self._fed = 0

    def _runtime_title(self, through_seq: int) -> RuntimeTitle:
        """A :class:`RuntimeTitle` that has seen the landed files through ``through_seq``: the one kept, fed the files
        after those it saw, or a new one when it saw a file past ``through_seq``."""
        seqs = self._seqs
        if self._fed and seqs[self._fed - 1] > through_seq:
            self._got, self._fed = RuntimeTitle(self._named), 0
        sess, got = self.sess, self._got
        while self._fed < len(seqs) and seqs[self._fed] <= through_seq:
            got.see_landed(sess, seqs[self._fed])
            self._fed += 1
        return got

    def runtime_title(self, through_seq: int = 1 << 62, hide: Sequence[str] = ()) -> str:
        """The runtime's title (:meth:`RuntimeTitle.last`) of the landed files through ``through_seq``, '' when none
        or when it is found in a record ``hide`` withholds: what :meth:`title` gives first."""
        from .session_records import title_withheld

        title = self._runtime_title(through_seq).last()
        if title and any(hide) and any(seq <= through_seq for seq in self.sess.unreadable):
            return ""  # a withheld record may hold it in a landed file not read (title_unread)
        if title and hide and title_withheld(self.sess.record_lines(hide), title, hide):
            return ""
        return title

    def title(self, through_seq: int = 1 << 62, hide: Sequence[str] = ()) -> str:
        """The runtime's title (:meth:`RuntimeTitle.last`) of the landed files through ``through_seq``, else the first
        typed prompt (a record flagged ``external_input``) of the main stream, else of any stream, in landed order,
        that names work, else the first of them (:class:`PromptTitle`), shortened as a talk's label is, else ''. A title found in a withheld record, and a prompt carrying a withheld
        flag, name nothing. Its credentials are masked (:func:`~asz_core.view.secret_forms.shown_title`)."""
        from .secret_forms import shown_title  # here, not at the top: a reader that only lists never masks a title

        sess = self.sess
        if any(hide) and any(seq <= through_seq for seq in sess.unreadable):  # a withheld record may hold it there
            return ""
        title = self.runtime_title(through_seq, hide)
        hidden = set(hide)
        pick = PromptTitle(sess.dialect())
        for seq in sess._transcripts() if not title else ():
            if seq in sess.unverified or seq > through_seq:
                continue
            for rec in sess.records[seq]:
                flags = set(rec.get("flags") or ())
                if "external_input" not in flags or flags & {"context_reset", "reset_summary"} or flags & hidden:
                    continue
                text = "\n".join(p["text"] for p in rec.get("parts", ()) if p.get("k") == "text" and isinstance(p.get("text"), str))
                text = text or lost_prompt_title(rec.get("parts"))  # its text too large to land (trial 24b F1)
                pick.dialect = sess.headers[seq].dialect
                if pick.offer(text):
                    return pick.title()
        return shown_title(title) or pick.title()


def named_for(root: str | os.PathLike, session: str) -> tuple[Any, str] | None:
    """What :class:`RuntimeTitle` asks for the labels of other sessions' files naming ``session``'s records
    (:func:`~asz_core.view.named_titles.named_in` of ``root``, and ``session``); None without a session."""
    from .named_titles import named_in

    return (named_in(root), session) if session else None


#: True while a copy of render 25 or before is made again (:func:`~asz_core.reading.export_render.drawing`): those
#: asz named the conversation a resumed copy continues by its id's first 8 characters (:func:`continued_title`).
CONTINUED_SHORT: ContextVar[bool] = ContextVar("asz_continued_short", default=False)
#: True while a copy of render 29 or before is made again (:func:`~asz_core.reading.export_render.drawing`): those
#: asz titled a conversation whose records hold a compaction summary and no talk ``(no prompt)``
#: (:data:`~asz_core.view.summary.COMPACTION_ONLY`).
COMPACTION_UNSAID: ContextVar[bool] = ContextVar("asz_compaction_unsaid", default=False)
#: True while a copy of render 31 or before is made again: those asz titled a resumed copy holding no talk of its own
#: by its runtime's title alone, unmarked (``asz_core.view.summary``; trial 46b F6: Kiro's copies).
CONTINUED_UNMARKED: ContextVar[bool] = ContextVar("asz_continued_unmarked", default=False)
#: True while a copy of render 30 or before is made again: those asz labelled a child stream no call and no name
#: labelled by the text of the record its first talk starts at, a reply too (``asz_core.view.lists``; fix46c).
CHILD_LABEL_FIRST: ContextVar[bool] = ContextVar("asz_child_label_first", default=False)


def continued_title(earlier: str, title: str) -> str:
    """The title of a conversation that continues the conversation ``earlier`` (``summary.continues``: it opens by
    repeating its records, a resumed copy) and that no talk of its own names (docs/view.md, ``summary.title``):
    ``(continues 326189cf-5676-4237-8cde-1ce80aae4a9f) TITLE`` with the whole of ``earlier``, or ``(continues ID)``
    when ``title`` is ''. The whole id, as a title is one conversation's and kept (the summary cache, the search
    index, an export's heading, a pushed round's ``asz.conversation.title``): it holds no table of the root's ids to
    shorten it by (:func:`~asz_core.storage.ids.shown_names`), and a prefix unique today may name two conversations
    once another lands (close44: the first 8 characters did). TITLE is what the landed records of its session give
    (:meth:`LandedTitles.title`: the records repeated from ``earlier``, so the earlier conversation's own title as far
    as they reach). The one rule the document's summary (and so ``asz ls`` and the page's list) and search follow;
    while :data:`CONTINUED_SHORT` (an export of render 25 or before made again), the first 8 characters."""
    return f"(continues {earlier[:8] if CONTINUED_SHORT.get() else earlier}) {title}".rstrip()


def copy_marked(title: str, earlier: Sequence[str], talked: bool) -> str:
    """``title`` (its runtime's) of a conversation that continues ``earlier[0]`` and holds no talk of its own
    (``talked`` False) marked as any copy's title is, :func:`continued_title`, in every dialect: the mark comes from the
    link, not the runtime (trial 46b F6: a Kiro copy's title is its own session document's, and it read as the
    original's duplicate); else ``title``, and unmarked while a copy of render 31 or before is made again
    (:data:`CONTINUED_UNMARKED`). The one rule of the document's summary and the search index."""
    return continued_title(earlier[0], title) if title and earlier and not talked and not CONTINUED_UNMARKED.get() else title


#: What a title taken from a sub-agent's prompt starts with (:func:`subagent_title`).
SUBAGENT_MARK = "(subagent)"


def subagent_title(title: str) -> str:
    """The title of a conversation whose only talks are a sub-agent's (a session folder holding a ``subagents/`` file
    alone: its main transcript never landed), ``title`` the sub-agent's first prompt as a title: ``(subagent) TITLE``,
    so no reader takes it for what a person typed (docs/view.md, ``summary.title``; trial 41c F9)."""
    return f"{SUBAGENT_MARK} {title}".rstrip()


def landed_title(root: Path, session: str, hide: Sequence[str] = ()) -> tuple[str, str, dict | None]:
    """``(title, project, runtime)`` of a conversation whose round chain gives no document (its first round does not
    verify), from its session's landed files that verify: :meth:`LandedTitles.title`, else (nothing withheld)
    ``NOT_VERIFIED``: its round chain does not verify; the project is the first ``cwd``; the runtime
    ``{"name", "version"}`` names the dialect of its first transcript whose header is what landed
    (:meth:`~asz_core.view.session_records.LandedSession.runtime_name`; version ''), None when none names one."""
    from .summary import NOT_VERIFIED

    got = LandedTitles(root, session)
    name = got.sess.runtime_name()
    return (got.title(hide=hide) or ("" if hide else NOT_VERIFIED), got.sess.first_field("cwd"),
            {"name": name, "version": ""} if name else None)
