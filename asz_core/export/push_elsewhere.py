"""What a push pass says of files the receiver did not take from this root: those it rejected on an earlier pass,
and those it holds from another root (trial 19, F4; trial 24a F1, F3, F5; docs/push.md, The same session in two roots)."""

from __future__ import annotations

from ..storage.layout import CONVERSATIONS
from .admit import ELSEWHERE, HELD_IN, HOLDS_ALL, landed_seq, round_reads
from .owners import CANNOT_ADD, OWNED_AT
from .push_refusals import EACH, sessions_named
from .push_rest import rest_said

__all__ = ["NOT_TAKEN", "Elsewhere"]

#: How a pass ends its line for files an earlier pass had rejected (trial 19, F4: "the receiver lacks them" was wrong
#: where the receiver holds the same session, landed from another root).
NOT_TAKEN = ("; the receiver did not take them from this root (when it answered that a seq is already landed as "
             "another file, it holds the session from another root: docs/push.md, Known limits, the same session "
             "in two roots; when it answered that the session was first sent with another credential, only that "
             "credential's token adds to it: docs/push.md, One session, one credential; when it could not write "
             "them, as a receiver out of disk answered before 2026-12-06, asz push --retry-rejected sends them again "
             "once it can)")


#: How the line of :meth:`Elsewhere._owned_said` ends when nothing is missing at the receiver (a note, not an error).
NOT_AN_ERROR = "; not an error"


class Elsewhere:
    """A mixin of :class:`asz_core.export.push._Pass` (its ``root``, ``state`` :class:`~asz_core.export.state.PushState`,
    ``refused``, ``held_rounds``, ``held_elsewhere``, ``rejected_before``, ``problem``, ``notes``, ``each``, ``probe`` and
    ``rep``): files the receiver answered are held from another root, and the lines a pass says of them, of files
    rejected before and of sessions retention removed before the receiver got them."""

    def still_rejected(self, held: set[str]) -> None:
        """One problem per session holding files an earlier pass had the receiver reject and that it has not accepted
        since (the same bytes are never sent again, so the receiver stays short of them; trial 4, F19): every pass
        exits 1 while the root holds them. Files removed by retention are told by :func:`held_back` instead. First, the
        files the receiver could not store this pass (:meth:`.push_refusals.Refusals.unstored_said`: they stay due)."""
        for line in self.refusals.unstored_said(self.state.endpoint):
            self.problem(line)
        by: dict[str, list[str]] = {}
        elsewhere: dict[str, list[str]] = {}
        owned: dict[str, list[str]] = {}
        owners = {r.split("/", 1)[0] for r in self.state.owned}  # sessions another credential's there (trial 28a F2)
        rounds = {r for r in self.state.rejected if r.startswith(CONVERSATIONS + "/") and r.split("/")[1] in owners}
        for rel in sorted((self.rejected_before & self.state.rejected) | set(self.state.elsewhere) | set(self.state.owned)
                          | rounds):
            parts = rel.split("/")  # a round is under _conversations/<conversation>/rounds/: named by its conversation
            session = parts[1] if parts[0] == CONVERSATIONS and len(parts) > 1 else parts[0]
            if session in owners and (rel in self.state.owned or parts[0] == CONVERSATIONS) and (self.root / rel).is_file():
                owned.setdefault(session, []).append(rel)  # its files, and the rounds refused with them
            elif session not in held and (self.root / rel).is_file():
                there = self._reads_elsewhere(rel) if parts[0] == CONVERSATIONS else (session if rel in self.state.elsewhere else "")
                (elsewhere if there else by).setdefault(there or session, []).append(rel)
        whole: list[tuple[str, list[str], int]] = []  # sessions held there whole: one note for all (trial 28a F12)
        for session, rels in elsewhere.items():
            files = [r for r in rels if not r.startswith(CONVERSATIONS + "/")]
            rounds = self.held_rounds.get(session, 0) + len(rels) - len(files)
            # files retention removed since (skeletons): the receiver's answer is still what push.state records
            files = files or sorted(r for r in self.state.elsewhere if r.startswith(session + "/"))
            if any(self.state.elsewhere.get(r, ("",))[0] == "part" for r in files):  # records only this root holds
                self.problem(f"{session}: {self._elsewhere_said(files, rounds)}")  # every pass: the receiver is short
            else:
                whole.append((session, files, rounds))
        if len(whole) == 1 or self.each:
            for session, files, rounds in whole:
                self.notes.say(session, f"{session}: {self._elsewhere_said(files, rounds)}")
        elif whole:
            self.notes.say("held elsewhere", self._elsewhere_whole(whole))
        held_whole: dict[str, tuple[list[str], str]] = {}  # another credential's there, every record held: notes
        for session, rels in owned.items():
            # files retention removed since (skeletons): the receiver's answer is still what push.state records
            rels = rels + sorted(r for r in self.state.owned if r.startswith(session + "/") and r not in rels)
            said = self._owned_said(rels)
            if said.endswith(NOT_AN_ERROR):
                held_whole[session] = (rels, said)
            else:  # every pass, with the true cause and what to do (trial 28a F2: from the second pass on, it named
                self.problem(f"{session}: {said}")  # another root and nothing to do)
        if len(held_whole) == 1 or self.each:
            for session, (_, said) in held_whole.items():
                self.notes.say(session, f"{session}: {said}")
        elif held_whole:  # one note for all (trial 41a F5: 81 of them, 32 KB, on every pass, burying the one error)
            self.notes.say("held from another credential", self._owned_whole(held_whole))
        for session, rels in by.items():
            self.problem(f"{session}: {len(rels)} file(s) rejected by {self.state.endpoint} on an earlier pass and not "
                         f"accepted since: {', '.join(rels)}{NOT_TAKEN}")

    def _removed_said(self, held: dict[str, list[str]]) -> bool:
        """The error of the sessions retention removed landed files of before this endpoint received them (``held``:
        :func:`.push.held_back`): a line per session, or one for two or more (their count, first ids and files; trial
        41a F7: 83-98 such lines), counting an error per session either way. With any, the receiver is reached first
        (:meth:`.push._Pass.probe`): one that is not (a mistyped port, nothing listening) is the one error said, and
        False is returned (the pass stops); True otherwise."""
        if held and (ans := self.probe()) is not None:
            self.problem(f"push to {self.state.endpoint}: {ans.error} (nothing sent; what is due goes on the next pass)")
            return False
        if len(held) == 1 or self.each:
            for session, rels in held.items():
                self.problem(f"{session}: its landed files were removed by retention before {self.state.endpoint} "
                             f"received them ({len(rels)} file(s), first {rels[0]}); none of its files or rounds is "
                             "sent (skeletons stay local)")
        elif held:
            self.problem(f"{sessions_named(list(held))}: their landed files were removed by retention before "
                         f"{self.state.endpoint} received them ({sum(map(len, held.values())):,} file(s)); none of their "
                         f"files or rounds is sent (skeletons stay local; {EACH})")
            self.rep.errors += len(held) - 1
        return True

    def settled(self, sessions: set[str]) -> None:
        """After the receiver took the rest of a stream and the files it had refused went again (``sessions``, from
        :meth:`.push_rest.Rests.rests_taken`): this pass's refusals of those sessions that it now holds whole are no
        failure (trial 34b F4: a re-imaged host's pass that recovered said ``rejected=2`` and exited 1, the next one 0).
        A file refused, then held when sent again, counts once, in ``held=``; a round refused with it counts as held."""
        for session in sessions:
            kept = []
            for rel, why in self.refusals.rejected.get(session, []):
                is_round = rel.startswith(CONVERSATIONS + "/")
                path = self.root / rel
                if is_round and path.is_file() and self.held_whole(rel, path.read_bytes()):
                    self.rep.held += 1
                    self.refusals.held.setdefault(session, []).append(rel)
                elif is_round or not self._whole(rel):
                    kept.append((rel, why))
                    continue
                self.rep.rejected -= 1
            if kept:
                self.refusals.rejected[session] = kept
            else:
                self.refusals.rejected.pop(session, None)

    def held_whole(self, rel: str, data: bytes) -> bool:
        """True when the receiver refused ``rel`` (its bytes ``data``), just answered, only because it holds every
        record of it already: a landed file recorded ``elsewhere … all`` (from another root) or ``owned … all`` (from
        another credential's files); a round reading (or reading after) a landed file of its session the receiver
        refused, when every such file this root had refused at or below the round's last seq is held so. What the
        summary line counts in ``held=``, not ``rejected=`` (trial 30d F2: ``rejected=42`` and exit 1 beside a note
        saying "not an error")."""
        if not rel.startswith(CONVERSATIONS + "/"):
            return self._whole(rel)
        reads = round_reads(data)
        if reads is None or reads[0] not in self.refused or reads[2] < self.refused[reads[0]][0]:
            return False
        mine = [r for r in self.state.rejected if not r.startswith(CONVERSATIONS + "/")
                and (at := landed_seq(r)) is not None and at[0] == reads[0] and at[1] <= reads[2]]
        return bool(mine) and all(self._whole(r) for r in mine)

    def _whole(self, rel: str) -> bool:
        return self.state.elsewhere.get(rel, ("",))[0] == "all" or self.state.owned.get(rel, ("", ""))[1] == "all"

    def _elsewhere(self, rel: str, message: str) -> None:
        """Record ``rel`` as held from another root (:meth:`PushState.mark_elsewhere`) when the receiver's reason for
        rejecting it (``rejected <rel>: …`` in ``message``) says its seq is already landed there as another file
        (:data:`~asz_core.export.admit.ELSEWHERE`), and whether it holds every record of it."""
        start = message.find(f"rejected {rel}: ")
        if start < 0:
            return
        end = message.find("; rejected ", start + 1)
        why = message[start:end if end >= 0 else None]
        at = why.find(f" {ELSEWHERE} ")
        if at < 0:
            return
        other = why[at + len(ELSEWHERE) + 2:].split(" ", 1)[0]
        held_at = why.find(") " + HELD_IN.strip() + " ", why.find(HOLDS_ALL)) if HOLDS_ALL in why else -1
        if held_at >= 0:  # the file of the same stream holding its records (trial 24a F5), not the one at its seq
            other = why[held_at + len(HELD_IN) + 1:].split(" ", 1)[0].rstrip(";")
        self.state.mark_elsewhere(rel, "all" if HOLDS_ALL in why else "part", other)
        rest = rest_said(why) if HOLDS_ALL not in why else None
        if rest is not None:  # the records it lacks are the rest of its stream: a pass makes them a file (push_rest)
            self.state.rest[rel] = rest
        if HOLDS_ALL in why:
            self.held_elsewhere.add(rel.split("/", 1)[0])  # the pass's later batches ask the receiver to assemble

    def _elsewhere_whole(self, whole: list[tuple[str, list[str], int]]) -> str:
        """The one note for two or more sessions the receiver holds every record of from another root (``(session,
        files, rounds)`` each): their count and the first of them, where each file is listed (push.state's
        ``elsewhere`` lines), not a line per session (trial 28a F12: 82 of them on every push)."""
        rounds = sum(n for _, _, n in whole)
        return (f"{sessions_named([s for s, _, _ in whole])}: {self.state.endpoint} holds them from another root: it "
                "answered that their seqs are already "
                f"landed there as other files and that it holds every record of this root's "
                f"{sum(len(f) for _, f, _ in whole)} file(s) of them, so they are not sent again and count as received "
                "for retention" + (f"; {rounds} round(s) reading them not sent either" if rounds else "")
                + f"; not an error (the elsewhere lines of {self.root / 'push.state'} name each file and the receiver's "
                f"file holding it; {EACH}; asz push --retry-elsewhere sends them again; docs/push.md, The same session "
                "in two roots)")

    def _owned_whole(self, held: dict[str, tuple[list[str], str]]) -> str:
        """The one note for two or more sessions the receiver holds as another credential's, every record of this
        root's files of them among that credential's (``held``: session -> (its files and rounds refused, its own
        line)): their count and first ids, the credentials, the files and rounds, and where each is listed (trial 41a
        F5)."""
        rels = [r for got, _ in held.values() for r in got]
        files = [r for r in rels if r in self.state.owned]
        owners = ", ".join(sorted({self.state.owned[r][0] for r in files}))
        mine = ", ".join(sorted({self.state.owned[r][2] for r in files}))
        return (f"{sessions_named(list(held))}: {self.state.endpoint} holds them from credential {owners}, which sent "
                f"their first files, and refuses what credential {mine} sends of them: {len(files):,} file(s) and "
                f"{len(rels) - len(files):,} round(s) of this root; it holds every record of those files from that "
                "credential's, so nothing is missing there; they are not sent again and count as received for "
                "retention; not an error (the owned lines of "
                f"{self.root / 'push.state'} name each file; {EACH}; docs/push.md, One session, one credential)")

    def _owned(self, rel: str, message: str) -> None:
        """Record ``rel`` as refused because its session is another credential's at the receiver (``owned`` in
        push.state) when the receiver's reason (``rejected <rel>: …`` in ``message``) says so (:data:`.owners.OWNED`),
        with whether it holds every record of it (trial 28a F2)."""
        start = message.find(f"rejected {rel}: ")
        if start < 0:
            return
        end = message.find("; rejected ", start + 1)
        why = message[start:end if end >= 0 else None]
        at = why.find(OWNED_AT)
        stop = why.find(CANNOT_ADD, at + len(OWNED_AT)) if at >= 0 else -1
        if stop < 0:
            return
        owner = why[at + len(OWNED_AT):stop]
        if not owner or " " in owner:
            return
        mine = why[stop + len(CANNOT_ADD):].split(" ", 1)[0]
        if not rel.startswith(CONVERSATIONS + "/") and mine:  # a round's refusal: said with its session's files
            self.state.mark_owned(rel, owner, "all" if HOLDS_ALL in why else "part", mine)

    def _owned_said(self, rels: list[str]) -> str:
        """The one line a pass says of a session whose files the receiver refused as another credential's session
        (trial 28a F2): the true cause on every pass, and what to do; ends with :data:`NOT_AN_ERROR` when the receiver
        holds every record of them (from that credential's files)."""
        files = [r for r in rels if r in self.state.owned]
        owners = sorted({self.state.owned[r][0] for r in files})
        part = [r for r in files if self.state.owned[r][1] == "part"]
        mine = ", ".join(sorted({self.state.owned[r][2] for r in files}))
        said = (f"{self.state.endpoint} holds this session from credential {', '.join(owners)}, which sent its first "
                f"file, and refuses what credential {mine} sends of it: {len(files)} file(s) and {len(rels) - len(files)} round(s) "
                "of this root (docs/push.md, One session, one credential)")
        if not part:
            return said + ("; it holds every record of those files from that credential's, so nothing is missing "
                           "there; they are not sent again and count as received for retention" + NOT_AN_ERROR)
        return said + (f"; it lacks records of {len(part)} of them ({', '.join(part[:3])}"
                       + (f" and {len(part) - 3} more" if len(part) > 3 else "")
                       + "): the team root is short of records only this root holds (its asz verify and asz ls name the "
                       f"session), an error on every pass while this root holds them. What to do: push this root with "
                       f"the token of credential {owners[0]} (asz push --token-file FILE; one person's hosts share one "
                       "token), then asz push --retry-elsewhere sends them again; or, if this copy need not reach the "
                       "team, leave its project out of this root's collection (exclude in asz.yaml)")

    def _reads_elsewhere(self, rel: str) -> str:
        """The session of round ``rel`` when it reads (or reads after) a landed file the receiver holds from another
        root (the receiver refused the round with it); '' otherwise."""
        try:
            reads = round_reads((self.root / rel).read_bytes())
        except OSError:
            return ""
        refused = self.refused.get(reads[0]) if reads is not None else None
        return reads[0] if refused is not None and refused[1] in self.state.elsewhere and reads[2] >= refused[0] else ""

    def _elsewhere_said(self, rels: list[str], rounds: int) -> str:
        """The one line a pass says of a session whose files the receiver holds from another root (trial 19, F4)."""
        held = {self.state.elsewhere[r][0] for r in rels}
        first = min(rels, key=lambda r: (landed_seq(r) or ("", 0))[1])
        seq = (landed_seq(first) or ("", 0))[1]
        said = (f"{self.state.endpoint} holds this session from another root: it answered that seq {seq} is already landed "
                f"there as {self.state.elsewhere[first][1]}")
        if held == {"all"}:
            said += (f" and that it holds every record of this root's {len(rels)} file(s), so they are not sent again "
                     "and count as received for retention")
        else:
            part = [r for r in rels if self.state.elsewhere[r][0] == "part"]
            said += (f" and that it lacks records of {len(part)} of this root's {len(rels)} file(s) (this root collected "
                     f"further, or another transcript): {', '.join(part)}; so the receiver is short of records only this "
                     "root holds (the receiving root's asz verify names the session), they are not sent again and "
                     "retention keeps them")
        said += f"; {rounds} round(s) reading them not sent either" if rounds else ""
        if held == {"all"}:  # receive.assemble_held (trial 24a F1)
            said += "; the files of it landed there since are sent, and an asz receiver writes their rounds itself"
        if held != {"all"}:  # trial 24a F3: a pass that exits 0 here leaves the team short for good, unsaid
            return said + ("; an error on every pass while this root holds them (asz push --retry-elsewhere sends them "
                           "again; docs/push.md, Known limits, A session folder lost and collected again)")
        return said + "; not an error (asz push --retry-elsewhere sends them again; docs/push.md, The same session in two roots)"
