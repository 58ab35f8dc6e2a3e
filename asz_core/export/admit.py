"""What a receiver admits into its root: a file that is what its path says and fits what is there (issue 21).

:func:`admit` runs before :func:`.land.land` writes a received file, so a
receiving root stays an ordinary, consistent root (``asz verify`` clean):

- a landed file (``.sd``) must read whole as Session Data (the reader's own
  check, :class:`~asz_core.sessiondata.reader.SDReader`: header, every record
  line, the closing line's count and digest; seed 000, Closing line), and its
  header must agree with its path: kind prefix, seq, session directory, stream
  or run directory (:func:`asz_core.verify.walk.name_problems`; origin-digest
  §2.1);
- one seq of a session holds one file (§2.1): a file whose seq is already
  landed under another name (another collection of the same transcript) is
  refused, naming the file there;
- in its stream or run directory, for its kind, its records continue the file
  landed before it (``ord`` + 1, ``off`` after the previous record; seed 000,
  Record). Records landed again by an interrupted pass repeat the earlier
  ones exactly, from the first record of the file landed before (a pass
  lands again from where its file started; origin-digest §2.1, §2.2); the
  stream's first file starts at ord 1, off 0; a file of a source read again from its start (the sender's
  ``asz.reread``, ``_received/readings.list``: :mod:`asz_core.storage.readings`) continues the files of its new
  reading only, and the first of them starts at ord 1, off 0 (trial 34b F2). Snapshot kinds
  hold ord 1 at off 0; provider bodies are not contiguity-checked (as verify);
- a round (``.sf``) must decode as a round (:func:`~asz_core.flow.round_read.decode_round`),
  of the conversation its directory names, its number and digest the ones its
  name carries (§4.1); one round per number, and round N follows round N-1
  already there (its ``previous`` is that round's digest; §2.5). The landed
  files a round reads may still be on their way: they are not asked for.
  A different round 1 is taken only when its record's ``asz.chain.replaces``
  names this root's chain's last round, path and SHA-256: the pusher built
  its chain anew (``asz parse SESSION --anew``) after this root took the old
  one, which is then set aside here too (``_set_aside/<stamp>/``), never deleted.

A correct pusher sends session by session, files by seq, then rounds in chain
order (§8.4), which always fits. The same bytes again are a no-op (True); a
skeleton (``.sk``) the receiver's own retention left counts as its landed
file, by the digest its ``removed`` header keeps.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from ..flow.chain import Chain, conversation_dir
from ..flow.round import RoundError, landed_file_digest, parse_round_file_name
from ..flow.round_read import decode_round
from ..sessiondata import jsonbytes
from ..sessiondata.reader import SDError, SDReader
from ..storage.aside import set_aside
from ..storage.layout import CONVERSATIONS, dir_name, parse_landed_name, session_listing
from ..storage.readings import received_reread, same_reading
from ..verify.landed import Pos, check_landed_file
from ..verify.report import SNAPSHOT_KINDS, UNCHECKED_KINDS
from ..verify.walk import name_problems

__all__ = ["Refused", "admit", "removed_digest", "round_reads", "landed_seq", "RETRY", "RETRY_RECORD", "RETRYABLE", "ELSEWHERE", "HOLDS_ALL", "LACKS", "HELD_IN",
           "REST_AT", "HIGHEST_SEQ", "held_clause"]

#: What a refusal says when a landed file's seq is already landed as another file (another root's collection of the
#: same transcript), then :data:`HOLDS_ALL` or :data:`LACKS`: the pusher records the file as held from another root
#: (trial 19, F4; docs/push.md, The same session in two roots).
ELSEWHERE = "is already landed as"
#: This root holds every record of the refused file: the same ``ord``, ``off`` and ``sha`` in a landed file of the same
#: kind in the same stream or run directory (what a record is, seed 000: the source line's place and digest).
HOLDS_ALL = "this root holds every record of it"
#: This root lacks some of them (the other root collected further, or another transcript): ``lacks N of its M record(s)``.
LACKS = "this root lacks"
#: After :data:`HOLDS_ALL` and its count: `` in <path>``, the landed file of the refused file's stream holding its
#: first record (the pusher's ``elsewhere`` pointer; an older receiver names none, then the file at that seq stands).
HELD_IN = " in "
#: After :data:`LACKS`, when the records this root lacks of the refused file are those after the end of its stream
#: here (the ones it holds are that stream's): ``; REST_AT <ord>, off <off> (HIGHEST_SEQ <seq>)``. The pusher then
#: makes a file of the rest of its stream from that record on, under a seq above both roots' (docs/push.md, The rest
#: of a stream: trial 24a F3).
REST_AT = "the records it lacks continue this root's stream at ord"
#: In the :data:`REST_AT` clause: the highest seq of the session this root holds.
HIGHEST_SEQ = "this root's highest seq of the session is"
#: Ends the reason of a file the receiver could not store (its root could not write it: disk full, a file size limit),
#: and of the files after it in its session and the rounds reading it, refused with it: not a refusal of the file. The
#: pusher keeps such a file due (no ``rejected`` line) and sends it again on its next pass (trial 34b F1).
RETRY = "retryable: nothing of it was stored; send it again"
#: Ends the reason of a file that landed but whose landing this root could not record (its sender line, its session's
#: look for continuations in ``_index/ids.sqlite``: a full disk): not acknowledged, so the pusher sends it again, and
#: the file, then already there, gets what it lacks (trial 41a F1: answered as taken, its sender line was never written).
RETRY_RECORD = "retryable: it landed, but was not recorded; send it again"
#: What every retryable reason holds (:data:`RETRY`, :data:`RETRY_RECORD`): the pusher keeps such a file due.
RETRYABLE = "(retryable: "


class Refused(ValueError):
    """A file the receiver will not write; the message says why."""


def admit(root: Path, parts: tuple[str, ...], digest: str, data: bytes, replaces: str | None = None,
          instance: str | None = None, sent_now: frozenset[str] = frozenset(), rest: bool = False,
          reread: int = 0) -> bool:
    """Check a received file (``parts``: its checked path; ``digest``: the SHA-256 of ``data``) against ``root``.

    True when the same file is already there (nothing to write), False when it
    may be written. Raises :class:`Refused` saying why not (see the module doc).
    ``replaces`` (a round's ``asz.chain.replaces``: ``<path> <sha256>``) lets a
    round 1 replace the chain whose last round it names exactly: that chain is
    set aside (:func:`~asz_core.storage.aside.set_aside`), never deleted.
    ``instance``: the sending request's ``service.instance.id`` (None: unknown); a refusal says the
    :data:`REST_AT` clause only when this instance sent every file of the stream here (the same instance
    collected again after its root was lost, not a second live root of the transcript). ``sent_now``: the
    root-relative files the same request landed before this one, from the same instance (their sender lines are
    written after the request). ``rest``: the sender marked the file as the rest of a stream it made for a receiver
    (``asz.rest``): one every record of which is here already may then land as records landed again. ``reread``: the
    sender's ``asz.reread``, the seq its source's new reading starts at (0: none): the file continues the files of its
    stream from that seq on, or begins that reading (:func:`_reading_from`; trial 34b F2).
    """
    if parts[0] == CONVERSATIONS:
        return _admit_round(root, parts, data, replaces)
    return _admit_landed(root, parts, digest, data, instance, sent_now, rest, reread)


def landed_seq(rel: str) -> tuple[str, int] | None:
    """``(session directory, seq)`` of a landed file's path; None for a round or another name."""
    parts = rel.split("/")
    ln = parse_landed_name(parts[-1]) if len(parts) >= 3 and not parts[0].startswith("_") else None
    return (parts[0], ln.seq) if ln is not None else None


def round_reads(data: bytes) -> tuple[str, int, int] | None:
    """``(session directory, from_seq, through_seq)`` a round's header names: the landed files it reads; None when
    its first line does not say (the round's own check then refuses it)."""
    try:
        h = jsonbytes.loads(data.split(b"\n", 1)[0])
        return dir_name(str(h["session"])), int(h["from_seq"]), int(h["through_seq"])
    except (ValueError, KeyError, TypeError):
        return None


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _read_landed(rel: str, path: Path, data: bytes) -> tuple[object, list[Pos]]:
    """The header and record positions of a landed file's bytes, by the reader; Refused saying where it is not whole."""
    reader = SDReader(path, decode=False, data=data)
    positions: list[Pos] = []
    try:
        for row, d in reader:
            positions.append(Pos(row, d["ord"], d["off"], d.get("bytes", 0), d.get("sha") or ""))
    except SDError as exc:
        where = f"line {exc.line}: " if exc.line else ""
        raise Refused(f"{rel}: not a whole landed file: {where}{exc.field + ': ' if exc.field else ''}{exc.message}") from None
    return reader.header, positions


def _admit_landed(root: Path, parts: tuple[str, ...], digest: str, data: bytes, instance: str | None = None,
                  sent_now: frozenset[str] = frozenset(), rest: bool = False, reread: int = 0) -> bool:
    rel = "/".join(parts)
    path = root.joinpath(*parts)
    sdir = root / parts[0]
    ln = parse_landed_name(parts[-1])
    if ln is None or ln.ext != "sd":
        raise Refused(f"{rel}: not a landed file's name (<kind>-<stamp>-<seq>.sd)")
    header, positions = _read_landed(rel, path, data)
    probs = name_problems(rel, path, ln, header, root, sdir)
    if probs:
        raise Refused("; ".join(f"{rel}: line {p.line}: {p.field}: {p.problem}: {p.detail}" for p in probs))
    files = session_listing(sdir, skeletons=True).files if sdir.is_dir() else []
    for other_ln, other in files:
        if other_ln.seq != ln.seq:
            continue
        if other.parent == path.parent and other.name[:-3] == path.name[:-3]:
            return _same_file(root, rel, other, digest, data)
        held, total, holder = _held(path, ln, positions, files)
        raise Refused(f"{rel}: seq {ln.seq} of session {header.session} is already landed as {_rel(root, other)} "
                      "(a different file: one seq holds one file; was the same transcript collected into another root?); "
                      + (f"{HOLDS_ALL} ({total} record(s)){HELD_IN}{_rel(root, holder)}" if held == total and holder is not None
                         else f"{HOLDS_ALL} ({total} record(s))" if held == total
                         else f"{LACKS} {total - held} of its {total} record(s)"
                         + _rest_at(root, path, ln, positions, files, instance, sent_now)))
    if header.kind in UNCHECKED_KINDS:
        return False
    if header.kind in SNAPSHOT_KINDS:
        for p in positions:
            if (p.ord, p.off) != (1, 0):
                raise Refused(f"{rel}: line {p.row + 1}: ord: a one-document file holds ord 1 at off 0, found ord {p.ord} at off {p.off}")
        return False
    start = _reading_from(root, parts, rel, ln, files, path, reread)
    before = [p for o_ln, p in files if o_ln.seq < ln.seq and o_ln.kind == ln.kind and p.parent == path.parent
              and same_reading(o_ln.seq, ln.seq, start)]
    try:
        _follows(root, rel, positions, before[-1] if before else None)
    except Refused as exc:
        held, total, holder = _held(path, ln, positions, files)
        if not total or held != total or holder is None:
            raise
        if rest and _landed_again(root, path, ln, positions, files, before[-1] if before else None, instance, sent_now,
                                  data):
            return False  # the rest of a stream its sender made for another receiver: landed again, as on its root
        # every record is here already, in files of its stream another root sent (that root's cut, or the rest of the
        # stream this root's sender made: push.md, The rest of a stream): held here whole, as a taken seq would be
        raise Refused(f"{rel}: seq {ln.seq} of session {header.session}: every record of it is here already, its first "
                      f"{ELSEWHERE} {_rel(root, holder)} (ord {positions[0].ord}), so it cannot land beside them "
                      f"({str(exc)[len(rel) + 2:]}); {HOLDS_ALL} ({total} record(s)){HELD_IN}{_rel(root, holder)}") from None
    return False


def _reading_from(root: Path, parts: tuple[str, ...], rel: str, ln, files: list, path: Path, reread: int) -> int:
    """The seq the new reading of the file's stream and kind starts at here (0: one reading), as the sending root's
    cursor keeps it (``reread_seq``, :mod:`asz_core.storage.readings`): what ``_received/readings.list`` holds for the
    stream, else ``reread`` (the file's ``asz.reread``) when the file begins that reading: its seq from it on and no
    file of the stream here at or above it. Refused when ``reread`` names another seq than the list (a source is read
    again once) or the stream here holds files of that reading the list does not name."""
    listed = received_reread(root, parts, ln.kind)
    if not reread or reread == listed:
        return listed
    if listed:
        raise Refused(f"{rel}: its stream's new reading starts at seq {listed} here; this file says seq {reread} (a source "
                      "is read again from its start once: asz sources --reset-conflict --reread)")
    if ln.seq < reread:
        raise Refused(f"{rel}: asz.reread {reread} is above the file's own seq {ln.seq}: a new reading's files are from it on")
    after = [p for o_ln, p in files if o_ln.seq >= reread and o_ln.kind == ln.kind and p.parent == path.parent]
    if after:
        raise Refused(f"{rel}: begins a new reading of its stream from seq {reread}, but {_rel(root, after[0])} is here "
                      "at or above that seq already")
    return reread


def held_clause(root: Path, rel: str, data: bytes) -> str:
    """What ``root`` holds of the records of the landed file ``rel`` (its bytes ``data``) sent by a credential that
    cannot add to its session (:data:`.owners.OWNED`; trial 28a F2): ``HOLDS_ALL (N record(s)) in PATH`` or
    ``LACKS N of its M record(s)``, as a refusal at a taken seq says it (:func:`_held`: the same ``ord``, ``off`` and
    ``sha`` in a landed file of its stream); '' for a round, another name, or bytes that do not read whole."""
    parts = tuple(rel.split("/"))
    ln = parse_landed_name(parts[-1]) if len(parts) >= 3 and not parts[0].startswith("_") else None
    if ln is None or ln.ext != "sd":
        return ""
    path = root.joinpath(*parts)
    try:
        _, positions = _read_landed(rel, path, data)
    except Refused:
        return ""
    sdir = root / parts[0]
    files = session_listing(sdir, skeletons=True).files if sdir.is_dir() else []
    held, total, holder = _held(path, ln, positions, files)
    if held == total:
        return f"{HOLDS_ALL} ({total} record(s))" + (f"{HELD_IN}{_rel(root, holder)}" if holder is not None else "")
    return f"{LACKS} {total - held} of its {total} record(s)"


def _sent_by(root: Path, path: Path, ln, files: list, instance: str | None, sent_now: frozenset[str]) -> bool:
    """True when ``instance`` sent every landed file of ``path``'s kind in its directory here (the sender record; a line
    that does not verify names no sender, :data:`~asz_core.storage.senders.UNVERIFIED`, so it never stands for
    ``instance``), or landed it earlier in this request (``sent_now``); False for an unknown instance."""
    from ..storage.senders import file_senders

    if instance is None:
        return False
    same = [p for o_ln, p in files if o_ln.ext == "sd" and o_ln.kind == ln.kind and p.parent == path.parent]
    by = file_senders(root, path.parts[len(root.parts)])
    return all(_rel(root, p) in sent_now or by.get(_rel(root, p)) == instance for p in same)


def _landed_again(root: Path, path: Path, ln, positions: list[Pos], files: list, last: Path | None,
                  instance: str | None, sent_now: frozenset[str], data: bytes) -> bool:
    """True when a file every record of which this root holds (the same ``ord``, ``off`` and ``sha``) may land beside
    them as records landed again, as they are in its sending root: the rest of a stream that root made for another
    receiver (docs/push.md, The rest of a stream; its sender marks it ``asz.rest``), pushed here where the root's first
    file landed whole. It must repeat them byte for byte (``data``, the file's bytes, whole: each record line is one
    of the stream's here; a record under a held ``ord``, ``off`` and ``sha`` with other bytes, other usage say, would
    be counted), be the session's highest seq here (no round's window holds it), end where its stream ends here
    (``last``: the file of its stream before it; the next file goes on from there), and its sender must have sent
    every file of that stream here (:func:`_sent_by`): a file of another root is refused as held whole, as before.
    ``asz verify`` counts such records as landed more than once, not a problem."""
    if last is None or not positions or any(o_ln.seq > ln.seq for o_ln, _ in files):
        return False
    held: set[bytes] = set()
    for o_ln, other in files:
        if o_ln.ext == "sd" and o_ln.kind == ln.kind and other.parent == path.parent and other != path:
            try:
                held |= _record_lines(str(other), other.stat().st_size)
            except OSError:
                continue  # what does not read holds nothing here (asz verify names it)
    if not all(hashlib.sha256(line).digest() in held for line in data.split(b"\n")[1:1 + len(positions)]):
        return False
    res = check_landed_file(last)
    if res.errors or not res.positions:
        return False
    end, mine = res.positions[-1], positions[-1]
    if (mine.ord, mine.off, mine.bytes) != (end.ord, end.off, end.bytes):
        return False
    return _sent_by(root, path, ln, files, instance, sent_now)


def _rest_at(root: Path, path: Path, ln, positions: list[Pos], files: list, instance: str | None,
             sent_now: frozenset[str] = frozenset()) -> str:
    """The :data:`REST_AT` clause of a refusal with :data:`LACKS`: when every record of ``positions`` before the end
    of its stream here (the landed files of its kind in its directory) is held here and the next one is the one the
    stream lacks first (its ``ord`` and ``off`` follow the stream's last record), the records this root lacks are the
    rest of that stream, and the clause names where it goes on and the session's highest seq here; '' otherwise
    (another transcript under the same id, a stream here that does not read), and '' unless ``instance`` sent every
    file of that stream here (the sender record; a line that does not verify names no sender, :data:`UNVERIFIED`, so
    it never stands for ``instance``): a second root of the transcript that is alive (a synced ``~/.claude``) sends
    the rest of the stream itself, and a file of another root here would break its chain."""
    same = [p for o_ln, p in files if o_ln.ext == "sd" and o_ln.kind == ln.kind and p.parent == path.parent]
    if not _sent_by(root, path, ln, files, instance, sent_now):
        return ""
    exp_ord, exp_off = 1, 0
    if same:
        res = check_landed_file(same[-1])
        if res.errors or not res.positions:
            return ""
        last = max(res.positions, key=lambda p: p.ord)
        exp_ord, exp_off = last.ord + 1, last.off + last.bytes + 1
    after = [p for p in positions if p.ord >= exp_ord]
    if not after or (after[0].ord, after[0].off) != (exp_ord, exp_off):
        return ""
    before = [p for p in positions if p.ord < exp_ord]
    if before and _held(path, ln, before, files)[0] != len(before):
        return ""
    return f"; {REST_AT} {exp_ord}, off {exp_off} ({HIGHEST_SEQ} {max(o_ln.seq for o_ln, _ in files)})"


def _held(path: Path, ln, positions: list[Pos], files: list) -> tuple[int, int, Path | None]:
    """``(records of positions this root holds, records, the file holding the first of them)``: a record is held when
    a landed file (not a skeleton: its records are gone) of the same kind in ``path``'s directory has one with the
    same ``ord``, ``off`` and ``sha``. The file is of that stream, whatever its seq (trial 24a F5: the refused file's
    seq names a file of another stream when the two roots numbered their files in another order); None when none
    holds the first."""
    have: set[tuple[int, int, str]] = set()
    first = (positions[0].ord, positions[0].off, positions[0].sha) if positions else None
    holder: Path | None = None
    for o_ln, other in files:
        if o_ln.ext != "sd" or o_ln.kind != ln.kind or other.parent != path.parent:
            continue
        try:
            got = _records_of(str(other), other.stat().st_size)
        except (SDError, OSError):
            continue  # what does not read holds nothing here (asz verify names it)
        have |= got
        if holder is None and first in got:
            holder = other
    return sum((p.ord, p.off, p.sha) in have for p in positions), len(positions), holder


@functools.lru_cache(maxsize=64)
def _records_of(path: str, size: int) -> frozenset[tuple[int, int, str]]:
    """``(ord, off, sha)`` of every record of the landed file at ``path`` (``size`` bytes: a landed file is written
    once, so the pair names its content), kept for the next refusal of the same session: a second root's pass is
    refused seq by seq, and each refusal reads the stream's files (without it, a session of N files read N times)."""
    return frozenset((d["ord"], d["off"], d.get("sha") or "") for _, d in SDReader(Path(path), decode=False))


@functools.lru_cache(maxsize=64)
def _record_lines(path: str, size: int) -> frozenset[bytes]:
    """The SHA-256 digests (32 bytes) of the record lines of the whole landed file at ``path`` (``size`` bytes: the
    pair names its content, as for :func:`_records_of`): its lines but the header, the closing line and the last
    newline's empty tail. Raises OSError."""
    return frozenset(hashlib.sha256(line).digest() for line in Path(path).read_bytes().split(b"\n")[1:-2])


def _follows(root: Path, rel: str, positions: list[Pos], prev: Path | None) -> None:
    """Refused unless the records continue ``prev`` (the file landed before in the stream, None: the first)."""
    exp_ord, exp_off, seen, after = 1, 0, {}, "the stream's first file starts at ord 1, off 0"
    if prev is not None:
        res = check_landed_file(prev)
        if res.errors or not res.positions:
            return  # a damaged or empty file there says nothing of where the stream stands (verify names it)
        last = res.positions[-1]
        exp_ord, exp_off, seen = last.ord + 1, last.off + last.bytes + 1, {p.ord: p for p in res.positions}
        after = f"{_rel(root, prev)}, landed before it in the stream, ends at ord {last.ord}: next is ord {exp_ord} at off {exp_off}"
    if prev is not None and positions and positions[0].ord < exp_ord and positions[0].ord != res.positions[0].ord:
        first = positions[0]
        raise Refused(f"{rel}: line 2: ord: record ord {first.ord} repeats a record from inside {_rel(root, prev)}, which starts at "
                      f"ord {res.positions[0].ord}: a pass lands records again from where its file started, so this file "
                      "comes from another collection of the stream")
    leading = True
    for p in positions:
        if leading and p.ord < exp_ord:
            was = seen.get(p.ord)
            if was is not None and (was.off, was.bytes) == (p.off, p.bytes) and (not was.sha or not p.sha or was.sha == p.sha):
                continue  # landed again by an interrupted pass (origin-digest §2.1)
        leading = False
        if (p.ord, p.off) != (exp_ord, exp_off):
            raise Refused(f"{rel}: line {p.row + 1}: ord: record ord {p.ord} at off {p.off} does not continue its stream ({after})")
        exp_ord, exp_off = p.ord + 1, p.off + p.bytes + 1
        after = f"the record before it ends at off {exp_off - 1}: next is ord {exp_ord} at off {exp_off}"


def removed_digest(skeleton: Path) -> str:
    """The ``removed.digest`` a skeleton's header keeps (the SHA-256 of the landed file it replaced, as
    :func:`~asz_core.flow.round.landed_file_digest` reads it); '' when unreadable."""
    try:
        return landed_file_digest(skeleton)
    except (OSError, EOFError, ValueError):
        return ""


def _same_file(root: Path, rel: str, there: Path, digest: str, data: bytes) -> bool:
    """True when ``there`` (the file at the path, or its skeleton) is the received file; Refused when it is another."""
    if there.suffix == ".sk":
        if removed_digest(there) == digest:
            return True
        raise Refused(f"{rel}: a different file was landed there and removed by retention (its skeleton {_rel(root, there)} "
                      "keeps another digest)")
    if there.read_bytes() == data:
        return True
    raise Refused(f"{rel}: a different file is already there (files are write-once)")


def _replaced_head(root: Path, rounds: list, replaces: str | None) -> bool:
    """True when ``replaces`` (``<root-relative path> <sha256 hex>``) names the last round of ``rounds`` (this root's
    chain) and its bytes: the pusher set that chain aside (``asz parse SESSION --anew``) after this root took it."""
    path, _, digest = (replaces or "").partition(" ")
    if not rounds or not digest:
        return False
    head = max(rounds, key=lambda rf: rf.number).path
    try:
        return _rel(root, head) == path and hashlib.sha256(head.read_bytes()).hexdigest() == digest.strip().lower()
    except OSError:
        return False


def _admit_round(root: Path, parts: tuple[str, ...], data: bytes, replaces: str | None = None) -> bool:
    rel = "/".join(parts)
    try:
        r = decode_round(data, rel)
    except RoundError as exc:
        raise Refused(f"not a whole round: {exc}") from None
    h = r.header
    try:
        cdir_name = conversation_dir(root, h.conversation).name
    except ValueError as exc:
        raise Refused(f"{rel}: {exc}") from None
    if cdir_name != parts[1]:
        raise Refused(f"{rel}: the round belongs to conversation {h.conversation!r}, the path names {parts[1]!r}")
    number, prefix = parse_round_file_name(parts[3]) or (0, "")
    if (h.round, r.digest[:12]) != (number, prefix):
        raise Refused(f"{rel}: the name says round {number}, digest {prefix}; the round is round {h.round}, digest {r.digest[:12]}")
    rounds = Chain.at(root / parts[0] / parts[1]).round_files()
    for rf in rounds:
        if rf.number == number:
            if rf.path.name == parts[3]:
                if rf.path.read_bytes() == data:
                    return True
                raise Refused(f"{rel}: a different file is already there (files are write-once)")
            if number == 1 and _replaced_head(root, rounds, replaces):  # a chain built anew: the old one is kept aside
                set_aside(root, root / parts[0] / parts[1])
                return False
            raise Refused(f"{rel}: round {number} of conversation {h.conversation} is already there as {_rel(root, rf.path)} "
                          "(a different round: one round per number)")
    if number > 1:
        prev = [rf for rf in rounds if rf.number == number - 1]
        if not prev:
            raise Refused(f"{rel}: round {number - 1} of conversation {h.conversation} is not here: a round follows the one before it")
        try:
            prev_digest = decode_round(prev[0].path.read_bytes(), prev[0].path).digest
        except (OSError, RoundError):
            prev_digest = ""
        if prev_digest != h.previous:
            raise Refused(f"{rel}: its previous round is {h.previous[:12]}…, round {number - 1} here is "
                          f"{_rel(root, prev[0].path)}: it does not follow the chain there")
    return False

