"""What the search index's ``conv`` table keeps of a conversation, gathered while its records are read for the index
(:func:`asz_core.reading.search.update_index`)."""

from __future__ import annotations

from ..sessiondata.model import WITHHOLDABLE
from ..view.titles import RuntimeTitle
from ..view.time_order import happened_key

__all__ = ["Meta"]


class Meta:
    """What the ``conv`` table keeps of a conversation, gathered while its records are read (as the document's summary
    finds them: the first ``cwd`` and first typed prompt of the main stream, else of any stream; every model named)."""

    def __init__(self, named: tuple | None = None) -> None:
        self.cwd = {True: "", False: ""}
        #: Every typed prompt of the main stream (True) and of the others, in landed order: ``(order, text, the
        #: withholdable flags of its record)``, ``order`` its talk's place (:meth:`prompts`).
        self.prompt: dict[bool, list[tuple[tuple, str, tuple[str, ...]]]] = {True: [], False: []}
        #: The conversation's dialect, to ask whether a prompt names work (:class:`~asz_core.view.titles.PromptTitle`).
        self.dialect = ""
        self.models: list[str] = []
        #: Landed files naming a withholdable flag (the only ones the title is looked for in, :func:`~asz_core.reading.search_labels.withheld_by`).
        self.flagged: list[Path] = []
        #: (place in the rows, label) of each label row (:func:`asz_core.reading.search._label_flags`)
        self.labels: list[tuple[int, str]] = []
        #: The runtime's title as the document checks it (never another session's, nor one in a file that does not
        #: verify); ``named`` (:func:`~asz_core.view.titles.named_for`, None for a pruned conversation, whose title went
        #: with its text): another session's summary naming one of its messages titles it (trial 41c F2).
        self.titles = RuntimeTitle(named)
        #: ``(file, problem)`` of each landed file that could not be read: not searched, and said (:mod:`.search_gaps`).
        self.unread: list[tuple[str, str]] = []
        #: ``(file, stat before it was read, 1 when it verified)`` of each landed file read (:func:`~.search_gaps.suspects`).
        self.read: list[tuple[str, str, int]] = []
        #: The conversation this one continues (the document's ``summary.continues``), '' when none.
        self.continues = ""
        #: It holds a talk of its own: a copy holding none marks its runtime's title (``(continues ID) TITLE``).
        self.talked = False
        self.not_read = False  #: a landed file not read: every withholdable flag withholds the title (title_unread)

    def prompts(self) -> list[tuple[str, tuple[str, ...]]]:
        """``(text, flags)`` of every typed prompt in the order the document's title offers its talks
        (:meth:`~asz_core.view.summary.DocumentView.title`): the main stream's first, each stream's in the order they
        happened (by time, a timed one before an untimed one, at one time by where each was read), never the landed
        order alone: a prompt appended with an earlier time titles the conversation in ``asz ls``, and so here
        (trial 42c F2: search titled 6127f426 by its first line while ``asz ls`` named the 2001 prompt)."""
        return [(text, flags) for main in (True, False) for _, text, flags in sorted(self.prompt[main], key=lambda p: p[0])]

    def see(self, rec: dict, main: bool, prompt: str, at_ns: int | None = None, where: tuple[int, int] = (0, 0)) -> None:
        """Note what ``rec`` says of the conversation: its ``cwd``, its model, and ``prompt``, the typed prompt it
        opens a talk with ('' when none), timed ``at_ns`` (ns, None: untimed) and read at ``where`` (file seq, row)."""
        cwd = rec.get("cwd")
        if isinstance(cwd, str) and cwd and not self.cwd[main]:
            self.cwd[main] = cwd
        if prompt:
            flags = rec.get("flags") or ()
            order = happened_key(at_ns, *where)
            self.prompt[main].append((order, prompt, tuple(n for n in WITHHOLDABLE if n and n in flags)))
        model = rec.get("model")
        if isinstance(model, str) and model and model not in self.models:
            self.models.append(model)
