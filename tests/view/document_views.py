"""A conversation's :class:`~asz_core.view.summary.DocumentView` as ``build_view`` makes it, before drawing: for the
tests that compare a compiled part of the build with its Python."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from asz_core.view.chain import ChainReader
from asz_core.view.document import list_conversations
from asz_core.view.links import links_of
from asz_core.view.session_records import LandedSession
from asz_core.view.summary import DocumentView


def document_view(root, conv: str) -> DocumentView:
    """The head's view of conversation ``conv`` under storage root ``root`` (no hide, no price table)."""
    b = ChainReader(root, conv, (), None)
    fold, _, accepted = b.fold_chain()
    return DocumentView(b, fold, LandedSession(root, fold.head.session, fold.head.through_seq, accepted), links_of(fold))


#: The withholding each corpus drawing is compared under: none, and the withholdable flags with one that is not.
HIDES = (set(), {"system_prompt", "tool_schemas", "finished"})


def corpus_views(*roots) -> Iterator[tuple[str, DocumentView]]:
    """``(conversation, its view)`` of every conversation of each storage root, in ``roots``' order."""
    for r in roots:
        for conv in list_conversations(r):
            yield conv, document_view(r, conv)


#: :func:`busiest`'s answers, by the root, its conversations and the measure's name.
_BUSIEST: dict[tuple[str, tuple[str, ...], str], str] = {}


def busiest(root, name: str, measure: Callable[[DocumentView], int]) -> str:
    """The conversation of ``root`` whose view measures most by ``measure`` (the first in list order of those that
    tie), found once for a root, its list of conversations and the measure's ``name``: the tests that each built every
    conversation's view to pick the same one (11 over the corpus, in each of some 80 tests) build them once (session 48)."""
    convs = tuple(list_conversations(root))
    key = (str(root), convs, name)
    if key not in _BUSIEST:
        _BUSIEST[key] = max(convs, key=lambda c: measure(document_view(root, c)))
    return _BUSIEST[key]
