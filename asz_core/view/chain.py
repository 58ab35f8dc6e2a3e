"""Folding a conversation's chain for the view, and checking each round's inputs against the landed files (seed 004)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..flow.chain import Chain
from ..flow.fold import Fold, FoldError
from ..flow.round import Round, RoundError, input_digest, parse_round_file_name, read_round
from ..sessiondata.model import WITHHOLDABLE
from ..storage.layout import rounds_dir
from .session_records import LandedSession
from .as_of import as_of, in_as_of, named_as_of, named_pinned, round_as_of
from .view_error import ViewError

__all__ = ["ViewError", "ChainReader", "as_of", "round_as_of", "in_as_of", "named_as_of", "named_pinned"]


class ChainReader:
    """The rounds of one conversation folded in chain order, the problems met and the verification state."""

    def __init__(self, root: Path, conversation: str, hide: Iterable[str], through_round: int | None = None):
        if not conversation or "/" in conversation or "\\" in conversation or conversation in (".", "..") \
                or conversation.startswith((".", "_")) or "\x00" in conversation:
            raise ViewError(f"no rounds: {conversation!r} is not a conversation id (a name under _conversations/)")
        self.root = root
        self.through_round = through_round if through_round is not None else round_as_of(conversation)
        self.conversation = conversation
        self.hide = [h for h in WITHHOLDABLE if h in set(hide)]
        unknown = set(hide) - set(WITHHOLDABLE)
        if unknown:
            raise ValueError(f"not a withholdable flag: {', '.join(sorted(unknown))}")
        self.problems: list[str] = []
        self.state = "verified"
        #: the first round read from the landed records in memory, its chain being damaged there (0: none; trial 29a F8)
        self.in_memory = 0

    # ------------------------------------------------------------------ chain

    def fold_chain(self) -> tuple[Fold, list[dict], list[Round]]:
        try:
            rdir = rounds_dir(self.root, self.conversation)
        except ValueError as exc:  # an empty or dot id names no chain
            raise ViewError(f"no rounds: conversation {self.conversation!r}: {exc}") from None
        if not rdir.is_dir():
            raise ViewError(f"no rounds: conversation {self.conversation!r} has no chain under {rdir}")
        chain = Chain(self.root, self.conversation)
        try:
            chain.refuse_links()  # no round is read through a symbolic link (docs/storage-root.md, "No links")
        except OSError as exc:
            raise ViewError(f"no rounds: conversation {self.conversation!r}: {exc}") from None
        named = chain.named_head()  # before the listing (Chain.named_head)
        files: dict[int, Path] = {}
        for p in rdir.iterdir():
            parsed = parse_round_file_name(p.name)
            if parsed and p.stat().st_size > 0 and (self.through_round is None or parsed[0] <= self.through_round):
                files.setdefault(parsed[0], p)
        fold = Fold()
        rows: list[dict] = []
        accepted: list[Round] = []
        stopped = False
        for n in range(1, (max(files) if files else 0) + 1):
            path = files.get(n)
            if stopped or path is None:
                if path is None and not stopped:
                    self.problem("incomplete", f"round {n} is missing; the fold stops at round {n - 1}")
                    stopped = True
                if path is not None:
                    rows.append(self._round_row_unread(n, path))
                continue
            try:
                r = read_round(path)
                fold.accept(r)
            except (RoundError, FoldError, OSError) as exc:
                self.problem("mismatch", f"round {n} does not verify: {exc}")
                stopped = True
                rows.append(self._round_row_unread(n, path))
                continue
            accepted.append(r)
        last = max(files) if files else 0
        if self.through_round is not None:
            named = min(named, self.through_round)
        if named > last:  # rounds removed from the end of the chain: no digest inside the chain shows it
            self.problem("incomplete", f"round {last + 1} is missing: conversation.state names round {named} as the head")
            stopped = True
        if stopped and fold.rounds == 0 and self.through_round is None:  # seed 004: else the fold stops before it
            rows, accepted = self._read_in_memory(fold, rows, accepted)
        if fold.rounds == 0:
            raise ViewError(f"no usable round in conversation {self.conversation!r}: " + "; ".join(self.problems or ["no rounds"]))
        return fold, rows, accepted

    def _read_in_memory(self, fold: Fold, rows: list[dict], accepted: list[Round]) -> tuple[list[dict], list[Round]]:
        """A damaged chain (a round that does not read or verify, or is missing) read from its landed records (trial
        29a F8): the rounds after the last one that verifies are built in memory as parse would write them
        (:func:`~asz_core.flow.in_memory.rounds_in_memory`) and folded, replacing the unread rows; :attr:`in_memory`
        is then the first round built so and :data:`~asz_core.flow.in_memory.IN_MEMORY_NOTE` a problem line. The
        state stays the damage's (the chain does not verify). Nothing built (no landed file reads, another
        parser's chain): ``(rows, accepted)`` as they were, and said."""
        from ..flow.in_memory import IN_MEMORY_NOTE, rounds_in_memory
        from ..flow.model import PARSER, POLICY
        from ..storage.layout import session_dir

        if fold.first is not None and (fold.first.parser, fold.first.policy) != (PARSER, POLICY):
            return rows, accepted  # another parser's chain: this one's rounds would not be its rounds
        session = fold.first.session if fold.first is not None else self.conversation
        try:
            if fold.first is None and not session_dir(self.root, session).is_dir():
                return rows, accepted
            first = fold.rounds + 1
            built, why = rounds_in_memory(self.root, self.conversation, session, fold)
        except (OSError, ValueError, RuntimeError) as exc:  # FoldError is a ValueError
            self.problems.append(f"not read from the landed records either: {exc}")
            return rows, accepted
        if not built:
            if why:
                self.problems.append(f"not read from the landed records either: {why}")
            return rows, accepted
        self.in_memory = first
        self.problems.append(f"{IN_MEMORY_NOTE} (round {first} on built in memory as asz parse would write it"
                             f"{'; ' + why if why else ''})")
        return [], accepted + built

    def _round_row_unread(self, n: int, path: Path) -> dict:
        return {"round": n, "digest": None, "previous": None, "from_seq": None, "through_seq": None, "input_digest": None, "from_time": None, "through_time": None, "verified": False}

    def problem(self, state: str, line: str) -> None:
        self.problems.append(line)
        rank = {"verified": 0, "incomplete": 1, "mismatch": 2}
        if rank[state] > rank[self.state]:
            self.state = state

    def check_inputs(self, accepted: list[Round], sess: LandedSession) -> list[bool]:
        ok: list[bool] = []
        prev = ""
        for r in accepted:
            h = r.header
            # the files of the window that are here bind it (as asz verify reads it, flow.verify_chain): a seq this
            # root never held is no file the round read (a receiver's seq refused from a sending root, below the
            # rest of a stream that root made: docs/push.md); a file gone since is, and the digest says so
            window = range(h.from_seq, h.through_seq + 1)
            digests = [sess.files[seq]["digest"] for seq in window if seq in sess.files]
            good = input_digest(prev, digests) == h.input_digest
            if not good:
                missing = [seq for seq in window if seq not in sess.files]
                for seq in missing:
                    self.problem("incomplete", f"round {h.round}: landed file seq {seq} of session {h.session} is missing")
                if not missing:
                    self.problem("mismatch", f"round {h.round}: the landed files seq {h.from_seq}..{h.through_seq} do not match its input digest")
            prev = h.input_digest
            ok.append(good)
        return ok
