"""Which conversations ``asz usage`` (a ``note:`` on stderr) and ``/api/usage`` (``untimed``) name as holding records
whose time does not read (trial 30a F8; docs/view.md, "Calls with no time of their own"): one function for both, so a
``--since``/``--until`` window names only those its figures place such records in (fix41b: neither looked at the
window)."""

from __future__ import annotations

from typing import Iterable, Mapping

__all__ = ["untimed_noted"]


def untimed_noted(problems: Mapping[str, Iterable[str]], spans: Mapping[str, tuple | None],
                  since: int | None = None, until: int | None = None) -> list[dict]:
    """``[{"conversation", "note"}]``, by id, one per problem line of ``problems`` (id -> the ``summary.problems`` of a
    verified conversation the filters keep) that starts :data:`~asz_core.sessiondata.untimed.UNTIMED_PREFIX`, ``note``
    that line and :data:`~asz_core.sessiondata.untimed.UNTIMED_COUNTED`: what ``asz usage`` prints after ``asz usage:
    note: NAME: `` and ``/api/usage`` gives as ``untimed``.

    A record whose time does not read belongs to no day: a report is told of it where its figures place it, by its
    conversation's recorded range (``spans``: id -> ``(first, last)`` unix ms, None or either None: not known), as a
    call with no time of its own is placed (:func:`~asz_core.view.usage_report.range_in_window`). With no window
    (``since`` and ``until`` None) every such conversation is named, as the total counts its calls. With one, only a
    conversation whose whole range lies inside it: one wholly outside is of other days, and one whose range crosses an
    end of the window, or is not known, cannot be placed in it (its calls with no time are in no figure of the window,
    and the ``! no time, so not placed …`` line names them with their count)."""
    from ..sessiondata.untimed import UNTIMED_COUNTED, UNTIMED_PREFIX
    from .usage_report import range_in_window

    windowed = since is not None or until is not None
    out = []
    for cid, lines in sorted(problems.items()):
        said = [p for p in lines if isinstance(p, str) and p.startswith(UNTIMED_PREFIX)]
        span = spans.get(cid) or (None, None)
        if said and (not windowed or (all(span) and range_in_window(*span, since, until) is True)):
            out.extend({"conversation": cid, "note": p + UNTIMED_COUNTED} for p in said)
    return out
