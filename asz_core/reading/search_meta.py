"""What the search index's ``conv`` table keeps of a conversation, gathered while its records are read for the index
(:func:`asz_core.reading.search.update_index`)."""

from __future__ import annotations

from ..sessiondata.model import WITHHOLDABLE
from ..view.titles import RuntimeTitle, prompt_names_work

__all__ = ["Meta"]


class Meta:
    """What the ``conv`` table keeps of a conversation, gathered while its records are read (as the document's summary
    finds them: the first ``cwd`` and first typed prompt of the main stream, else of any stream; every model named)."""

    def __init__(self, named: tuple | None = None) -> None:
        self.cwd = {True: "", False: ""}
        #: Every typed prompt of the main stream (True) and of the others, in landed order, until one names work:
        #: ``(text, the withholdable flags of its record)``.
        self.prompt: dict[bool, list[tuple[str, tuple[str, ...]]]] = {True: [], False: []}
        #: Whether the last prompt kept in :attr:`prompt` names work (no more are kept then).
        self.has_work = {True: False, False: False}
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
        self.not_read = False  #: a landed file not read: every withholdable flag withholds the title (title_unread)

    def see(self, rec: dict, main: bool, prompt: str) -> None:
        cwd = rec.get("cwd")
        if isinstance(cwd, str) and cwd and not self.cwd[main]:
            self.cwd[main] = cwd
        if prompt and not self.has_work[main]:
            flags = rec.get("flags") or ()
            self.prompt[main].append((prompt, tuple(n for n in WITHHOLDABLE if n and n in flags)))
            self.has_work[main] = prompt_names_work(prompt, self.dialect)
        model = rec.get("model")
        if isinstance(model, str) and model and model not in self.models:
            self.models.append(model)
