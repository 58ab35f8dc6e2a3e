"""A folder export's copies drawn in worker processes, one per CPU (session 49, trial 49b F3: ``asz export --since
2000-01-01 --format html --out DIR/`` of 176 conversations took 60 s, all of it in one process, drawing).

:class:`Drawer` gives each conversation's copy in the folder's order, as :func:`~asz_core.cli.export_made.render` gives
it; the command writes each (its file, its manifest, the folder's) itself, in that order, as before. Only md, html and
json copies of a new folder are drawn ahead (a resumed folder's kept copies are looked at one by one, and the prose
forms gather their turns and source lines across conversations): each worker, forked from the command, draws with its
own copy of the export's :class:`~asz_core.cli.export_cmd.Prose` and hands back the bytes, the problems, what it said on
stderr and what the drawing changed of ``Prose`` (:data:`REPLACED`, :data:`APPENDED`, its ``evidence`` entry), which
the command takes in order. A drawing that changed any other part of ``Prose``, raised (a conversation with no usable
round: said by the command), or whose worker died, is drawn again by the command itself, so what is written and said is
what one process writes and says (tests/reading/test_export_drawn_apart.py)."""

from __future__ import annotations

import contextlib
import io
import os
import pickle
from pathlib import Path
from typing import Optional

__all__ = ["Drawer", "APPENDED", "REPLACED"]

#: What drawing one copy sets anew on ``Prose`` (:func:`~asz_core.cli.export_made.render`): where its masks stand,
#: what the masking saw, the folder's ids it linked.
REPLACED = ("masks", "seen", "linked_used")
#: What drawing one copy appends to (the credentials counted, json's clipped texts, the thinking left out).
APPENDED = ("redacted", "clips", "thinking_left")
#: ``Prose``'s parts compared apart (``masker`` holds ``redacted``; ``lines`` and ``stats``: the prose forms' readers;
#: ``table``: the prices, read before the workers start).
APART = frozenset(REPLACED + APPENDED + ("evidence", "masker", "lines", "stats", "table"))
#: The forms drawn ahead.
AHEAD = ("md", "html", "json")
#: What the workers draw with, set before they fork (:meth:`Drawer.__init__`).
_HELD: dict = {}


def _rest(prose) -> bytes:
    """Every other part of ``prose``, pickled: a drawing that changes one is drawn again by the command."""
    return pickle.dumps(sorted(((k, v) for k, v in vars(prose).items() if k not in APART), key=lambda kv: kv[0]))


def _drawn_there(cid: str) -> Optional[tuple]:
    """Conversation ``cid`` drawn in a worker: ``(data, bad, stderr, replaced, appended, evidence)``, or None for one the
    command draws itself (module docstring; also when run in the command's own process, a dead worker's job)."""
    if os.getpid() == _HELD.get("pid"):
        return None
    from .export_made import render

    prose, (r, fmt, hide, thinking) = _HELD["prose"], _HELD["how"]
    ids = {k: id(getattr(prose, k)) for k in REPLACED + APPENDED}
    sizes = {k: len(getattr(prose, k) or ()) for k in APPENDED}
    said = io.StringIO()
    try:
        rest = _rest(prose)
        with contextlib.redirect_stderr(said):
            data, bad = render(r, cid, fmt, hide, thinking, prose)
        if _rest(prose) != rest or any(id(getattr(prose, k)) != ids[k] for k in APPENDED):
            return None
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - the command draws it again and says what it raised
        return None
    return (data, bad, said.getvalue(), {k: getattr(prose, k) for k in REPLACED if id(getattr(prose, k)) != ids[k]},
            {k: list((getattr(prose, k) or [])[sizes[k]:]) for k in APPENDED}, prose.evidence.get(cid))


class Drawer:
    """``draw(cid)``: ``(data, bad)`` of the next conversation of ``ids`` (asked in their order), drawn ahead in worker
    processes when the form and the folder allow (module docstring), else here, as
    :func:`~asz_core.cli.export_made.render` draws it."""

    def __init__(self, r: Path, ids: list[str], fmt: str, hide: list[str], thinking: bool, prose, resume) -> None:
        from ..collect.workers import can_fork, default_jobs

        self.how, self.prose, self.ahead, self.left = (r, fmt, hide, thinking), prose, None, len(ids)
        jobs = min(default_jobs(), len(ids))
        if fmt in AHEAD and jobs > 1 and can_fork() and (resume is None or not resume.entries):
            from ..collect.workers import each_in_order

            prose.table  # noqa: B018 - read once here (a bad asz.yaml said by the command), not in each worker
            _HELD.update(pid=os.getpid(), prose=prose, how=self.how)
            self.ahead = each_in_order(_drawn_there, ids, jobs)
            self.ids = iter(ids)

    def __call__(self, cid: str) -> tuple[bytes, list[str]]:
        from .export_made import render

        got = None
        if self.ahead is not None:
            there, got = next(self.ids, None), next(self.ahead, None)
            if there != cid:  # asked out of the order given: the rest drawn here
                self.ahead, got = None, None
            else:
                self.left -= 1
                if self.left == 0:  # the last: the workers end now (the pool shut), not when the command exits
                    next(self.ahead, None)
        if got is None:
            r, fmt, hide, thinking = self.how
            return render(r, cid, fmt, hide, thinking, self.prose)
        return self._took(cid, got)

    def _took(self, cid: str, got: tuple) -> tuple[bytes, list[str]]:
        """What a worker drew of ``cid``, taken into the command's ``Prose`` as drawing it here would have changed it."""
        import typer

        data, bad, said, replaced, appended, evidence = got
        if said:
            typer.echo(said, err=True, nl=False)
        for k, v in replaced.items():
            setattr(self.prose, k, v)
        for k, v in appended.items():
            if v:
                getattr(self.prose, k).extend(v)
        if evidence is not None:
            self.prose.evidence[cid] = evidence
        return data, bad

