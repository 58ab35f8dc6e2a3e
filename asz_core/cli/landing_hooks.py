"""What a pass that parses hands its collectors (:class:`asz_core.collect.CollectOptions`): ``before_landing`` and
``after_landing``, each importing the flow code it runs only once a session lands (``asz collect``'s and ``asz
server``'s start-up load none of it)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["to_parse", "index_landed"]


def to_parse(session_dir: Path) -> None:
    """``before_landing``: a session with no round yet is marked to be parsed (:func:`asz_core.flow.pending.mark_pending`)
    before the pass's first file of it lands, so a pass stopped before its parse (Ctrl-C, SIGTERM) leaves it said as
    stopped before it was parsed (``asz verify``, ``asz ls``), never as landed by ``asz collect --no-parse`` (trial 30d
    F6: the session a stop caught while it landed had no mark yet, its mark came with its index after landing)."""
    from ..flow.pending import mark_pending

    mark_pending(session_dir.parent, [session_dir.name])


def index_landed(session_dir: Path) -> None:
    """``after_landing``: the session's index, in the process that landed it, from what landing wrote
    (:func:`asz_core.flow.index.index_landed`)."""
    from ..flow.index import index_landed as index_now

    index_now(session_dir)
