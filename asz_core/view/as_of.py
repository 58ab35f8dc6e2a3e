"""Reading a conversation as of a round, or titled by a label pinned (``asz verify --export --root`` making a copy again):
the context every chain read of :mod:`asz_core.view.chain` (which re-exports these) obeys, alone, so a reader that only
asks whether one holds (``asz ls``'s and ``asz usage``'s kept rows and summaries) does not import the chain reader
(issue 22, each command's start)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

__all__ = ["as_of", "round_as_of", "in_as_of", "named_as_of", "named_pinned"]

#: conversation id -> the round every chain read of it stops at while :func:`as_of` holds (trial 31b F1)
_AS_OF: ContextVar[dict[str, int]] = ContextVar("asz_as_of", default={})


@contextmanager
def as_of(conversation: str, round_: int) -> Iterator[None]:
    """Within the block, every document, list row and prose reading of ``conversation`` is built as of its round
    ``round_`` (rounds are write-once: a later round changes none before it), as if the rounds after it were not yet
    written: what ``asz verify --export --root`` makes a copy again from when the root moved on since the export
    (trial 31b F1; docs/verify.md, "A masked export")."""
    token = _AS_OF.set({**_AS_OF.get(), conversation: int(round_)})
    try:
        yield
    finally:
        _AS_OF.reset(token)


def round_as_of(conversation: str) -> int | None:
    """The round :func:`as_of` stops ``conversation`` at, None (its head) outside one."""
    return _AS_OF.get().get(conversation)


def in_as_of() -> bool:
    """Whether an :func:`as_of` or a :func:`named_as_of` block holds: the kept list rows and summaries (of heads, titled
    by the root's labels now) are then not read or kept."""
    return bool(_AS_OF.get()) or bool(_NAMED_AS_OF.get())


#: () outside :func:`named_as_of`; within it, ``(named,)``: the label of another session's file that titles the
#: conversation being made again (a :class:`~asz_core.view.named_titles.Named`, or None: none does)
_NAMED_AS_OF: ContextVar[tuple] = ContextVar("asz_named_as_of", default=())


@contextmanager
def named_as_of(named: object) -> Iterator[None]:
    """Within the block, the one label of another session's landed file that may title a conversation (Claude Code's
    ``summary`` on resuming, its ``leafUuid`` one of the conversation's messages:
    :meth:`~asz_core.view.named_titles.NamedIn.title`) is ``named`` (a ``Named``, or None: no other session's label
    titles it), whatever the root's files hold now: what ``asz verify --export --root`` makes a copy again with, the
    title as the export found it (the manifest's ``title``; trial 43a F3: a summary landed later in another session
    retitled an archived export; docs/verify.md, "A masked export")."""
    token = _NAMED_AS_OF.set((named,))
    try:
        yield
    finally:
        _NAMED_AS_OF.reset(token)


def named_pinned() -> tuple:
    """``(named,)`` while :func:`named_as_of` holds, else ()."""
    return _NAMED_AS_OF.get()
