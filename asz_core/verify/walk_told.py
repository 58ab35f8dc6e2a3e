"""What the landed walk's own listing of each session already tells the notes after it (issue 22, session 32).

``asz verify``'s landed section ends with notes that once listed every session again in the main process: landing
stamps that go backwards (:func:`asz_core.verify.stamps.stamp_notes`) and the temporaries writers left
(:func:`asz_core.verify.leftover.leftover_notes`). A session checked in one C call
(:func:`asz_core.verify.clean.clean_session`) has just been listed, in the worker that checked it, by
:mod:`asz_core.verify.linescan`'s ``session``: it answers, from that listing, whether the session's stamps go back in
seq order, and the paths of its temporaries (in the session folder, ``provider_body/``, each ``streams/<d>`` and
``runs/<d>``; in ``index/``), or that it could not tell. :class:`Told` carries those answers from the workers; the
notes then look again, the Python way, only at the sessions it names (stamps going back, a session checked the
Python way, a folder the C could not read as the Python does) and the conversation chains' ``rounds/``. The notes
are the same: the same files found, the same order, the same wording.
"""

from __future__ import annotations

__all__ = ["Told"]


class Told:
    """What the walk's listings told, for the notes: ``stamps``, the session names whose landing stamps must be
    looked at (the C found a step back, or the session was checked the Python way); ``temporaries`` and
    ``index_temporaries``, the paths (str) of the writers' and the parses' temporaries the C found; ``unseen`` and
    ``index_unseen``, the session names whose temporaries (in the session's folders; in its ``index/``) the Python
    must look for; ``unheld``, the paths (str) of the landed files, in sessions holding an ``execution`` file, whose
    bytes the C read whole and found no :data:`~asz_core.verify.clean.CALL_NAME` in (the arguments check reads them
    for no MCP call: issue 22, session 34). Picklable: a worker hands it back."""

    __slots__ = ("stamps", "temporaries", "index_temporaries", "unseen", "index_unseen", "unheld")

    def __init__(self) -> None:
        self.stamps: list[str] = []
        self.temporaries: list[str] = []
        self.index_temporaries: list[str] = []
        self.unseen: list[str] = []
        self.index_unseen: list[str] = []
        self.unheld: list[str] = []

    def __getstate__(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __setstate__(self, state) -> None:
        for k, v in zip(self.__slots__, state):
            setattr(self, k, v)

    def answered(self, name: str, back: bool, temporaries: list[str] | None, index_temporaries: list[str] | None,
                 unheld: list[str] | None = None) -> None:
        """Session ``name`` was checked in one C call, which told ``back``, its temporaries (None: not told) and its
        files holding no MCP call's name (``unheld``; None: not searched)."""
        if unheld:
            self.unheld += unheld
        if back:
            self.stamps.append(name)
        if temporaries is None:
            self.unseen.append(name)
        else:
            self.temporaries += temporaries
        if index_temporaries is None:
            self.index_unseen.append(name)
        else:
            self.index_temporaries += index_temporaries

    def by_python(self, name: str) -> None:
        """Session ``name`` was checked the Python way: every note looks at it as before."""
        self.stamps.append(name)
        self.unseen.append(name)
        self.index_unseen.append(name)

    def add(self, other: "Told") -> None:
        """Take in what another worker's walk told."""
        for k in self.__slots__:
            getattr(self, k).extend(getattr(other, k))
