"""Fold: a conversation as of round N is the fold of rounds 1..N in chain order (origin-digest §4.2).

Acceptance: a round is folded only when it has the next round number, its
``previous`` is the digest of the round before, it names the same
conversation, and it keeps round 1's session, parser and policy.

Supersession: an entity in a round replaces the entity of the same id whole
(no field merge), since its revision (the round number) is higher; an entity
a round does not mention is unchanged; only a tombstone removes one. An
unresolved entry that stopped being open is superseded with ``state:
resolved`` and stays in the fold.
"""

from __future__ import annotations

from typing import Iterable

import attrs

from .model import Node, Relation, Unresolved
from .round import Round, RoundHeader, entity_body

__all__ = ["FoldError", "Fold", "fold_rounds", "differing_ids"]


class FoldError(ValueError):
    """A round the fold cannot accept (§4.2): ``round`` is its number, ``message`` the acceptance rule it breaks, ``path`` its file ('' if none)."""

    def __init__(self, round_no: int, message: str, path: str = ""):
        self.round = round_no
        self.message = message
        self.path = path
        where = f"{path}: " if path else ""
        super().__init__(f"{where}round {round_no}: {message}")


@attrs.define
class Fold:
    """The folded state of a chain (origin-digest §4.2).

    ``rounds`` is how many rounds were accepted (0 for an empty chain);
    ``head`` the header of the last one and ``head_digest`` its commit
    digest; ``nodes``/``relations``/``unresolved`` map id → entity (the
    revision says which round wrote it; tombstoned entities are gone;
    resolved unresolved entries stay). ``first`` is round 1's header.
    """

    nodes: dict[str, Node] = attrs.Factory(dict)
    relations: dict[str, Relation] = attrs.Factory(dict)
    unresolved: dict[str, Unresolved] = attrs.Factory(dict)
    rounds: int = 0
    head: RoundHeader | None = None
    head_digest: str = ""
    first: RoundHeader | None = None

    @property
    def through_seq(self) -> int:
        """The last seq the chain covers; 0 for an empty chain."""
        return self.head.through_seq if self.head else 0

    @property
    def input_digest(self) -> str:
        """The head's input digest; '' for an empty chain (round 1 chains from '')."""
        return self.head.input_digest if self.head else ""

    @property
    def open_unresolved(self) -> int:
        """Unresolved entries whose state is ``open``."""
        return sum(1 for u in self.unresolved.values() if u.state == "open")

    def check(self, r: Round) -> None:
        """Raise :class:`FoldError` unless ``r`` may be folded next (the acceptance rules of §4.2)."""
        h = r.header
        path = str(r.path or "")
        if h.round != self.rounds + 1:
            raise FoldError(h.round, f"expected round {self.rounds + 1} next", path)
        if self.head is None:
            if h.previous:
                raise FoldError(h.round, "round 1 names a previous round", path)
            return
        if h.previous != self.head_digest:
            raise FoldError(h.round, f"previous {h.previous[:12]}… is not the digest of round {self.rounds} ({self.head_digest[:12]}…)", path)
        f = self.first
        assert f is not None
        if h.conversation != f.conversation:
            raise FoldError(h.round, f"conversation {h.conversation!r} is not the chain's {f.conversation!r}", path)
        for key in ("session", "parser", "policy"):
            if getattr(h, key) != getattr(f, key):
                raise FoldError(h.round, f"{key} {getattr(h, key)!r} differs from round 1's {getattr(f, key)!r}", path)

    def accept(self, r: Round) -> None:
        """Fold ``r`` in: check acceptance, then apply supersession and tombstones. Raises FoldError."""
        self.check(r)
        for group, items in ((self.nodes, r.nodes), (self.relations, r.relations), (self.unresolved, r.unresolved)):
            for e in items:
                old = group.get(e.id)
                if old is not None and old.revision > e.revision:
                    continue  # never happens in a valid chain: revisions grow with rounds
                if e.tombstone:
                    group.pop(e.id, None)
                else:
                    group[e.id] = e
        if self.first is None:
            self.first = r.header
        self.head = r.header
        self.head_digest = r.digest
        self.rounds = r.header.round

    def copy(self) -> "Fold":
        """A shallow copy whose entity maps can change without touching this fold."""
        return attrs.evolve(self, nodes=dict(self.nodes), relations=dict(self.relations), unresolved=dict(self.unresolved))


def fold_rounds(rounds: Iterable[Round]) -> Fold:
    """Fold rounds 1..N in chain order (§4.2); returns the :class:`Fold`. Raises :class:`FoldError` at the first round not accepted."""
    f = Fold()
    for r in rounds:
        f.accept(r)
    return f


def differing_ids(a: dict, b: dict) -> list[str]:
    """Ids whose entities differ between two id → entity maps (comparison ignores revision); sorted."""
    ids = set(a) | set(b)
    return sorted(i for i in ids if i not in a or i not in b or entity_body(a[i]) != entity_body(b[i]))
