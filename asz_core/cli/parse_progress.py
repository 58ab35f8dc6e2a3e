"""What a parse's progress says before its first session is parsed (trial 47d F1).

Before any session is assembled, parse brings the root's ids table up to date (issue 18,
:func:`~asz_core.flow.shared_ids.prepare`): seconds in which no session ends, so the line read
``parse: 0 of 262 session(s), 5 s``. :class:`IdsFirst`, given to :func:`~asz_core.flow.parse.parse_root` as ``told``
and to the :class:`~asz_core.reading.progress.Bar` as ``more``, says that phase while it lasts:
``parse: 0 of 262 session(s), their record ids first: 120 of 262, 5 s`` (on a terminal, the bar's text).
"""

from __future__ import annotations

from typing import Any

__all__ = ["IdsFirst", "parsed_under_bar"]


class IdsFirst:
    """``told(done, of)`` of a parse and ``more()`` of its bar (:attr:`bar`, set once the bar is made)."""

    def __init__(self) -> None:
        self.done = self.of = 0
        self.bar: Any = None

    def more(self) -> str:
        """The figure while the ids are read, else nothing."""
        return f"their record ids first: {self.done} of {self.of}" if self.done < self.of else ""

    def __call__(self, done: int, of: int) -> None:
        self.done, self.of = done, of
        if self.bar is not None:
            self.bar.advance(f"record ids {done}/{of}", 0)  # n 0: a line comes when due (piped), the text on a terminal


def parsed_under_bar(root, total: int | None, **kwargs: Any):
    """:func:`~asz_core.flow.parse.parse_root` of ``root`` (``kwargs`` its own) under a ``parse`` progress bar over
    ``total`` sessions (None: not known, as after a collect pass), saying the ids phase (:class:`IdsFirst`); the report
    and the bar's seconds. On a terminal the bar; piped, ``parse: N[ of M] session(s)[, their record ids first: …], T s``
    once it runs long (:class:`~asz_core.reading.progress.Bar`), sessions counted as the workers finish them."""
    from ..flow.parse import parse_root
    from ..reading.progress import Bar

    ids = IdsFirst()
    with Bar("parse", total, unit="session(s)", more=ids.more) as bar:
        ids.bar = bar
        report = parse_root(root, step=lambda name, n: bar.advance(name[:8], n), told=ids, **kwargs)
        return report, bar.elapsed()
