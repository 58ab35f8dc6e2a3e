"""The rest of a stream: the records a receiver lacks of a session it holds from another root (trial 24a F3).

A root lost after it collected more than it pushed, collected again: its files are cut otherwise, land at seqs the
receiver holds as the old root's files, and are refused (one seq of a session holds one file). The receiver says
which records it lacks when they are the rest of its stream (:data:`~.admit.REST_AT`: they continue its stream at
``ord``, byte ``off``; its highest seq of the session), and ``push.state`` keeps that (``rest`` lines).

A pass then makes, in this root, new landed files cut at ``max_delta_bytes`` (the configured budget of the adapter that
landed the stream, ``adapters[].collector.max_delta_bytes``, as its collector cuts: header, records and closing line)
holding the records
of that stream from that ``ord`` on, byte for byte, in order, each record once: the same kind, stream, ``src``,
``dialect`` and ``adapter`` as the file it takes the first of them from, under the session's lock, at a seq above the
highest of both roots (seed 000, Producing Session Data: a file is written once, read-only, numbered above the highest
sequence in the session). Here those records are landed again (``asz verify`` counts them re-landed; the index keeps
the first copy of a record id); on the receiver they continue the stream it holds, and land. Then the files the
receiver refused are sent once more, and it answers that it holds every record of them (``elsewhere … all``): nothing
is counted twice there, and the root that made the file holds it, so its receipts (``push.state``) name a file both
roots hold (docs/push.md, The rest of a stream).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import attrs
import orjson

from ..sessiondata.model import DEFAULT_MAX_DELTA_BYTES
from ..sessiondata.reader import SDError, SDReader
from ..sessiondata.writer import CLOSING_MAX
from ..storage.layout import parse_landed_name, session_listing
from ..storage.root import LockBusy, SessionWriter, session_lock, write_at_once
from .admit import HIGHEST_SEQ, REST_AT, landed_seq

__all__ = ["Rest", "Rests", "rest_said", "rests_due", "make_rest", "found_rest", "half_made", "RESTS_LIST", "rests_made",
           "list_rests"]

#: The rests of a stream this root made (root-relative paths, one a line), whatever endpoint they were made for: each
#: goes to every endpoint marked :data:`.wire.REST`.
RESTS_LIST = Path("_export") / "rests.list"


def rests_made(root: Path) -> set[str]:
    """The root-relative paths :data:`RESTS_LIST` holds (an empty set when it is absent or does not read)."""
    try:
        return {ln for ln in (root / RESTS_LIST).read_text(encoding="utf-8").splitlines() if ln}
    except (OSError, UnicodeDecodeError):
        return set()


def list_rests(root: Path, rels: list[str]) -> None:
    """Add ``rels`` to :data:`RESTS_LIST` (written whole under ``.rests.list.PID.tmp``, then renamed). Raises OSError."""
    have = rests_made(root)
    if set(rels) <= have:
        return
    path = root / RESTS_LIST
    path.parent.mkdir(parents=True, exist_ok=True)  # whole, its temporary removed whatever stops it (session 41)
    write_at_once(path, "".join(f"{r}\n" for r in sorted(have | set(rels))).encode("utf-8"), False)


_SAID = re.compile(re.escape(REST_AT) + r" (\d+), off (\d+) \(" + re.escape(HIGHEST_SEQ) + r" (\d+)\)")


def rest_said(why: str) -> tuple[int, int, int] | None:
    """``(ord, off, seq)`` of a refusal's :data:`~.admit.REST_AT` clause; None when it has none."""
    m = _SAID.search(why)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


@attrs.define
class Rest:
    """The rest of one stream a receiver lacks: ``session``, ``directory`` (root-relative, ``S/streams/main``), the
    ``kind``, where it goes on there (``ord``, ``off``), the receiver's highest ``seq`` of the session, and the refused
    ``files`` (root-relative) that said so."""

    session: str
    directory: str
    kind: str
    ord: int
    off: int
    seq: int
    files: list[str] = attrs.Factory(list)


def rests_due(root: Path, state) -> list[Rest]:
    """One :class:`Rest` per stream and kind of the files ``state`` holds a ``rest`` line of (the receiver's newest
    word: the highest seq it named), for files still in ``root`` and still held ``part`` elsewhere."""
    out: dict[tuple[str, str], Rest] = {}
    for rel, (o, off, seq) in sorted(state.rest.items()):
        at = landed_seq(rel)
        ln = parse_landed_name(rel.rsplit("/", 1)[-1])
        if at is None or ln is None or state.elsewhere.get(rel, ("",))[0] != "part" or not (root / rel).is_file():
            continue
        key = (rel.rsplit("/", 1)[0], ln.kind)
        r = out.get(key)
        if r is None or seq > r.seq:
            out[key] = r = Rest(at[0], key[0], ln.kind, o, off, seq, r.files if r else [])
        r.files.append(rel)
    return list(out.values())


def _stream(root: Path, r: Rest) -> list[tuple[int, Path]]:
    """``(seq, path)`` of this root's files of the rest's kind in its directory, in seq order (skeletons too)."""
    d = str(root / r.directory)
    return [(ln.seq, Path(p)) for ln, p in session_listing(root / r.session, skeletons=True).files
            if ln.kind == r.kind and str(Path(p).parent) == d]


def _ends(path: Path) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """``((ord, off) of a landed file's first record, (ord, off) where the record after its last one goes))``; None
    when it has none or does not read."""
    first = last = None
    try:
        for _, d in SDReader(path, decode=False):
            first = first or (d["ord"], d["off"])
            last = (d["ord"] + 1, d["off"] + d.get("bytes", 0) + 1)
    except (SDError, OSError):
        return None
    return (first, last) if first is not None else None


def found_rest(root: Path, r: Rest) -> list[str]:
    """The files of this root that already are the rest (made by an earlier pass): the first file of the stream above
    the receiver's seq that starts at the rest's ``ord`` and ``off``, and each file after it whose first record goes on
    where the one before ends (the rest cut in several files, a rest made after a pass was killed while making one,
    records collected since); [] when there is none."""
    got: list[str] = []
    goes = (r.ord, r.off)
    for _, p in [(seq, p) for seq, p in _stream(root, r) if seq > r.seq and p.suffix == ".sd"]:
        ends = _ends(p)
        if ends is not None and ends[0] == goes:
            got.append(p.relative_to(root).as_posix())
            goes = ends[1]
    return got


def half_made(root: Path, r: Rest, made: list[str]) -> Rest | None:
    """The :class:`Rest` the files ``made`` (:func:`found_rest`) lack when a pass was killed while making them
    (:func:`make_rest` lands its files one by one): it goes on after their last record, at their last seq, when the
    files the rest was made from (the stream's below the first of ``made``) hold that record; None when ``made`` is
    whole (or does not read: the receiver's next answer says what it lacks)."""
    ends = _ends(root / made[-1])
    first, last = landed_seq(made[0]), landed_seq(made[-1])
    if ends is None or first is None or last is None:
        return None
    tail = Rest(r.session, r.directory, r.kind, ends[1][0], ends[1][1], last[1], r.files)
    try:
        _records(root, tail, below=first[1])
    except RestError:
        return None
    return tail


class RestError(ValueError):
    """Why the rest of a stream cannot be made from this root (nothing was written)."""


def _records(root: Path, r: Rest, below: int | None = None) -> tuple[object, list[bytes]]:
    """The header of the file holding record ``r.ord`` and the record lines from it on, each ``ord`` once, in order,
    from the files of its stream (``below``: only those of a lower seq); RestError when they are not there, or do not
    follow one another (``ord`` + 1, ``off`` after the one before)."""
    header = None
    lines: list[bytes] = []
    want_ord, want_off = r.ord, r.off
    for seq, path in _stream(root, r):
        if below is not None and seq >= below:
            break
        if path.suffix == ".sk":
            raise RestError(f"{path.relative_to(root).as_posix()} was removed by retention: its records are not here")
        try:
            rows = path.read_bytes().split(b"\n")[1:-2]  # the header, the closing line and the last newline left out
        except OSError as exc:
            raise RestError(f"{path}: {exc.strerror or exc}") from None
        for line in rows:
            d = orjson.loads(line)
            if d["ord"] < want_ord:
                continue  # held by the receiver already, or landed again here
            if (d["ord"], d["off"]) != (want_ord, want_off):
                raise RestError(f"{path.relative_to(root).as_posix()}: record ord {d['ord']} at off {d['off']} where "
                                f"ord {want_ord} at off {want_off} goes on")
            if header is None:
                header = _header(path)
            lines.append(line)
            want_ord, want_off = d["ord"] + 1, d["off"] + d.get("bytes", 0) + 1
    if header is None:
        raise RestError(f"this root holds no record ord {r.ord} at off {r.off} of {r.directory} ({r.kind})")
    return header, lines


def _header(path: Path):
    """The header of a landed file (read by the reader, which sets it once the first line is read)."""
    rd = SDReader(path, decode=False)
    next(iter(rd), None)
    return rd.header


def make_rest(root: Path, r: Rest, budget: int = DEFAULT_MAX_DELTA_BYTES, fsync: bool = True,
              budget_of: Callable[[str], int] | None = None) -> list[str]:
    """Land the rest of ``r``'s stream in ``root`` (module doc): the root-relative paths of the files made, in seq order.

    Each file holds at most ``budget`` bytes, header and closing line included, as the collector cuts (a single larger
    record goes alone); ``budget_of`` (adapter name -> bytes: the configured ``max_delta_bytes``), when given, gives
    the budget of the adapter the rest's first record was landed by, in place of ``budget``.

    Holds the session's lock (none waited for: LockBusy when a collector holds it). Raises RestError saying why the
    rest cannot be made (nothing written), OSError. The session's index is brought up to date and its chain parsed,
    as collect does after landing."""
    with session_lock(root, r.session):
        header, lines = _records(root, r)
        if budget_of is not None:
            budget = budget_of(str(header.adapter or "").split("/", 1)[0])  # the header says name/version
        w = SessionWriter.open(root, r.session, fsync=fsync)
        w.next_seq = max(w.next_seq, r.seq + 1)
        sdw = w.start(header)
        for line in lines:
            if sdw.records and sdw.size + len(line) + 1 + CLOSING_MAX > budget:
                w.finish(sdw)
                sdw = w.start(header)
            sdw.write_encoded(line)
        w.finish(sdw)
        w.write_state()
    from ..flow.index import update_index
    from ..flow.parse import parse_root

    update_index(root / r.session)
    parse_root(root, [r.session])
    return [lf.path.relative_to(root).as_posix() for lf in w.landed]


class Rests:
    """A mixin of :class:`asz_core.export.push._Pass` (its ``root``, ``state``, ``notes``, ``rep``, ``err``): the
    rests a pass makes and sends first, then the files the receiver refused sent again (module doc)."""

    #: the rests of this pass and their files here (:meth:`make_rests`)
    rests: list[tuple[Rest, list[str]]]
    #: the root-relative files of :attr:`rests`, sent first
    rest_files: set[str]
    #: adapter name -> its configured ``max_delta_bytes`` (None: the default budget), what a rest is cut at
    budget_of: Callable[[str], int] | None

    def init_rests(self) -> None:
        """Give this pass its own (empty) rests: the mixin keeps nothing between passes, as ``asz collect --watch``
        and ``asz view`` push from one process pass after pass."""
        self.rests, self.rest_files = [], set()
        self.budget_of = None
        self.rests_listed: set[str] = set()  # every rest this root made (RESTS_LIST), read as a pass sends

    def rests_new(self) -> bool:
        """True when ``push.state`` names a rest this pass has not made or found yet (the receiver said it now)."""
        done = {(r.directory, r.kind, r.seq) for r, _ in self.rests}
        return any((r.directory, r.kind, r.seq) not in done for r in rests_due(self.root, self.state))

    def make_rests(self) -> None:
        """Find or make the rest of every stream ``push.state`` says the receiver lacks; ``self.rests`` (the
        :class:`Rest` s) and ``self.rest_files`` (their files here, root-relative) say what this pass sends first."""
        self.rests = []
        self.rest_files = set()
        for r in rests_due(self.root, self.state):
            made = found_rest(self.root, r)
            tail = half_made(self.root, r, made) if made else None
            if not made or tail is not None:
                try:
                    new = make_rest(self.root, tail or r, budget_of=self.budget_of)
                except LockBusy:
                    continue  # a collector lands the session now: the next pass makes it
                except (RestError, OSError) as exc:
                    self.notes.say(f"rest {r.directory} {r.kind}", f"{r.session}: the rest of {r.directory} "
                                   f"({r.kind}) from ord {r.ord} cannot be made here: {exc}")
                    continue
                made = made + new
                print(f"note: {r.session}: made {', '.join(new)}: the records {self.state.endpoint} lacks of "
                      f"{r.directory} ({r.kind}), from ord {(tail or r).ord} on, which it holds up to there from another root; "
                      "sent first, then the files it refused go again (docs/push.md, The rest of a stream)",
                      file=self.err, flush=True)
            self.rests.append((r, made))
            self.rest_files.update(made)
            try:
                list_rests(self.root, made)  # marked as a rest to every endpoint (wire.REST)
            except OSError as exc:
                self.notes.say(f"rests list {r.directory} {r.kind}", f"{r.session}: {self.root / RESTS_LIST}: cannot list "
                               f"{', '.join(made)}: {exc.strerror or exc}; another endpoint refuses it as held whole")

    def rests_taken(self) -> set[str]:
        """After the rests went: for each the receiver took, forget the lines of the files of its stream it had
        refused below the rest's seq (its ``part`` files and those it refused as not continuing its stream), so they
        are sent again now; the sessions of the files forgotten."""
        again: set[str] = set()
        for r, made in self.rests:
            if not made or any(m not in self.state.pushed or m in self.state.rejected for m in made):
                continue
            first = (landed_seq(made[0]) or ("", 0))[1]
            refused = [rel for rel in self.state.rejected if rel.rsplit("/", 1)[0] == r.directory
                       and (ln := parse_landed_name(rel.rsplit("/", 1)[-1])) is not None and ln.kind == r.kind
                       and ln.seq < first and (self.state.elsewhere.get(rel, ("part",))[0] == "part")]
            if refused:
                self.state.forget_files(refused)
                again.add(r.session)
        if again:
            self.state.save()
        return again
