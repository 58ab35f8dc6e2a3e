"""Chain publication: where a conversation's rounds live and how one is added (origin-digest §2.1, §2.5).

::

    <root>/_conversations/<conversation id>/
        .lock                 one parser per chain (fcntl.flock)
        conversation.state    head, head_digest, through_seq, input_digest, parser, policy (a cache)
        rounds/r000001-<first 12 hex of the commit digest>.sf

For Claude Code the conversation id is the session id. The chain's head is
found by listing ``rounds/``; ``conversation.state`` is only a cache of it. A
round is installed exclusively: written to a temporary name, synced, made
read-only (0444) and hard-linked to its final name, which never replaces an
existing file. A round that does not follow the head (next number, previous
= head digest) is refused. An empty round file is a reservation some other
writer left; the chain ignores it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import time
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

import orjson

from ..sessiondata import durable
from ..sessiondata.durable import fsync_dir as _fsync_dir
from ..sessiondata.filemode import read_only_mode
from ..sessiondata.nolink import refuse_links_in
from ..storage.layout import CONVERSATIONS, ROUNDS, conversation_dir, held_listing
from ..storage.root import FileLock, LockBusy, read_state, write_state
from .fold import Fold, FoldError
from .round import Round, RoundError, parse_round_file_name, read_round
from .unread import UNREAD

__all__ = [
    "chain_links",
    "ASSEMBLED_BY",
    "ASSEMBLED_ALSO",
    "ALSO_KEPT",
    "assembly_mark",
    "assembled_marks",
    "CONVERSATIONS",
    "CONVERSATION_STATE",
    "ChainBusy",
    "ChainError",
    "Chain",
    "RoundFile",
    "SessionChains",
    "conversation_dir",
    "conversation_dirs",
    "round_session",
]

#: A chain's state file, in its conversation directory (:attr:`Chain.state_path`): a cache of its head.
CONVERSATION_STATE = "conversation.state"

#: The ``conversation.state`` key naming the asz whose assembly wrote the chain last (:func:`assembly_mark`).
ASSEMBLED_BY = "assembled_by"
#: The ``conversation.state`` key naming, comma-separated, the other asz builds (their :func:`assembly_mark`) that
#: assembled the chain since something last landed in it, before the one :data:`ASSEMBLED_BY` names; absent when none.
ASSEMBLED_ALSO = "assembled_also"
#: How many marks :data:`ASSEMBLED_ALSO` keeps (the latest): more asz builds than that alternating on one root
#: assemble a chain again once per pass.
ALSO_KEPT = 8


@functools.cache
def assembly_mark() -> str:
    """12 hex digits naming how this asz assembles: its version, the source of ``asz_core/flow`` and the name and
    bytes of the installed adapter packages' files (their tool vocabularies and :meth:`read_today` answers shape an
    assembly: :func:`~asz_core.plugins.packages.hash_adapter_sources`; not their mtimes, so a ``touch`` or a ``git
    checkout`` leaves it as it is), read once per process. A chain whose state names another mark, or none (an asz
    before the key, an older asz that parsed it last: trial 23b, F4), is assembled again by the next parse, which
    writes a round only where this asz's assembly differs from the chain's fold
    (:func:`~asz_core.flow.parse.chain_is_current`), once per mark and landing: :func:`assembled_marks`."""
    from .. import __version__
    from ..plugins.packages import hash_adapter_sources

    h = hashlib.sha256(f"asz {__version__}\n".encode())
    here = Path(__file__).parent
    for path in sorted(here.glob("*.py")):
        try:
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            h.update(path.name.encode() + b"\0-\0")
    hash_adapter_sources(h)
    return h.hexdigest()[:12]


def assembled_marks(state: dict[str, str]) -> list[str]:
    """The :func:`assembly_mark` of each asz that assembled the chain since something last landed in it, from its
    ``conversation.state`` (a dict of :func:`~asz_core.storage.root.read_state`): :data:`ASSEMBLED_BY` first, then
    :data:`ASSEMBLED_ALSO`'s; [] for a state with neither (an asz before the keys). An asz whose mark is here does not
    assemble the chain again until something new lands: two asz builds alternating on one root, whose assemblies
    differ, would otherwise each assemble every chain the other wrote last on every pass and write a round back and
    forth each time, the chain growing with every pass (the last to assemble after a landing is the one the chain
    holds). Never raises."""
    marks = [state.get(ASSEMBLED_BY, "")] + state.get(ASSEMBLED_ALSO, "").split(",")
    return list(dict.fromkeys(m.strip() for m in marks if m.strip()))

#: Age in seconds after which an empty reservation file is removed by the lock holder.
_RESERVATION_TTL = 60.0


class ChainBusy(LockBusy):
    """Another parser holds the chain's lock; nothing was written. ``conversation`` names the chain."""

    def __init__(self, conversation: str, busy: LockBusy):
        self.conversation = conversation
        LockBusy.__init__(self, busy.path, busy.holder, busy.waited)
        who = f" ({busy.holder})" if busy.holder else ""
        self.args = (f"conversation {conversation}: another parser holds the chain lock {busy.path}{who}; nothing written",)


class ChainError(ValueError):
    """A chain that cannot be extended or read: a refused install, a broken round, a round the fold refuses."""


def conversation_dirs(root: str | os.PathLike) -> list[Path]:
    """Every chain directory under ``<root>/_conversations``, sorted by name; those of sessions ``asz erase`` erased
    (``_erased.list``) are left out."""
    return held_listing("chains", Path(root), lambda: _conversation_dirs(root))


def _conversation_dirs(root: str | os.PathLike) -> list[Path]:
    """:func:`conversation_dirs`, read from the root: one ``scandir``, each entry's type from the directory itself
    where it tells it (a symbolic link is no chain: never followed, :func:`chain_links` names it), the names sorted as strings (what sorting sibling
    Paths does), a Path made for each chain only (issue 22, session 40: 1,364 chains 11.7 ms)."""
    from ..storage.erased_list import erased_names

    d = Path(root) / CONVERSATIONS
    if not d.is_dir() or d.is_symlink():
        return []
    gone = erased_names(root)
    names = []
    with os.scandir(d) as entries:
        for e in entries:
            name = e.name
            if e.is_dir(follow_symlinks=False) and not name.startswith(".") and name not in gone:  # a link is none
                names.append(name)
    names.sort()
    return [d / name for name in names]


def chain_links(root: str | os.PathLike) -> list[str]:
    """The paths of the entries of ``<root>/_conversations`` that are symbolic links, sorted (none when that folder is
    itself one: then it is the only one, named): no reader lists them as chains (:func:`conversation_dirs`), parse
    writes no round through them, ``asz verify`` names each (docs/storage-root.md, "No links")."""
    from ..sessiondata.nolink import links_among

    d = os.path.join(os.fspath(root), CONVERSATIONS)
    return [d] if os.path.islink(d) else links_among(d)


def round_session(path: str | os.PathLike) -> str:
    """The ``session`` the header line (line 1) of round file ``path`` names; '' when the file does not read, its
    first line is no JSON object, or its ``session`` is no string (the chain check then names the round)."""
    try:
        with open(path, "rb") as f:
            d = orjson.loads(f.readline())
    except (OSError, orjson.JSONDecodeError):
        return ""
    s = d.get("session") if isinstance(d, dict) else None
    return s if isinstance(s, str) else ""


class SessionChains:
    """Which chains of a root belong to which session, from one look at every chain (origin-digest §2.5).

    ``SessionChains(root)`` lists ``<root>/_conversations`` once and, for each
    chain, its round files (``files``: directory name → the
    :class:`RoundFile` s listed then, in order) and the session its round 1
    names (``named``: directory name → that session, '' when it has no round
    or round 1's header does not read). Both keep the directories' sorted
    order. Whoever asks about many sessions builds it once (``asz push``,
    ``asz prune``): :meth:`of` then finds one session's chains without
    opening every chain's round 1. Never raises (an unreadable
    ``_conversations`` holds no chain).
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.files: dict[str, list[RoundFile]] = {}
        self.named: dict[str, str] = {}
        self._by_session: dict[str, list[str]] = {}  # round 1's session -> directory names, sorted
        from ..sessiondata.nolink import LinkRefused
        from ..storage.erased_list import erased_names

        gone = erased_names(self.root)
        for d in conversation_dirs(self.root):
            try:
                files = Chain.at(d).round_files()
            except LinkRefused:  # its rounds folder a symbolic link: never entered, no round of it read (asz verify names it)
                files = []
            session = round_session(files[0].path) if files else ""
            if session in gone:  # a chain of an erased session under another id: pushed or pruned never (33c F1)
                continue
            self.files[d.name] = files
            self.named[d.name] = session
            if session:
                self._by_session.setdefault(session, []).append(d.name)

    def of(self, session: str) -> list[Path]:
        """The chain directories of ``session``, sorted by name: the one its id names (``/`` and ``\\`` as ``_``),
        when it exists now, and each whose round 1 named it when this was built."""
        own = session.replace("/", "_").replace("\\", "_")
        names = set(self._by_session.get(session, ()))
        base = self.root / CONVERSATIONS
        if own in self.files or (own and not own.startswith(".") and (base / own).is_dir()):
            names.add(own)
        return [base / name for name in sorted(names)]


class RoundsListed(NamedTuple):
    """What one listing of a chain's ``rounds/`` tells besides its round files (:meth:`Chain.round_listing`): ``named``,
    whether any name there is a round file's name (:func:`~asz_core.flow.pending.has_chain`); ``head``, the highest
    round number a name gives (0: none above 0), and ``head_name`` the first name giving it in the listing's order (what
    :func:`~asz_core.verify.unparsed.lagging_sessions` reads as the head); ``temporaries``, the names of the
    ``.<name>.<pid>.tmp`` files a writer left there (:func:`~asz_core.verify.leftover.parse_temporaries`), in the
    listing's order."""

    named: bool
    head: int
    head_name: str
    temporaries: tuple[str, ...]


class RoundFile:
    """A listed round file: its ``number``, the 12-hex ``prefix`` of its digest from the name, and ``path``."""

    __slots__ = ("number", "prefix", "path")

    def __init__(self, number: int, prefix: str, path: Path):
        self.number = number
        self.prefix = prefix
        self.path = path

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"RoundFile({self.number}, {self.prefix!r}, {str(self.path)!r})"


class Chain:
    """One conversation's chain under a storage root (origin-digest §2.5).

    ``Chain(root, conversation)`` touches nothing on disk until :meth:`lock`
    or :meth:`install`. Methods that change the chain expect the caller to
    hold :meth:`lock`.
    """

    def __init__(self, root: str | os.PathLike, conversation: str):
        self.root = Path(root)
        self.conversation = conversation
        self.dir = conversation_dir(root, conversation)
        self.rounds_dir = self.dir / ROUNDS
        self.lock_path = self.dir / ".lock"
        self.state_path = self.dir / CONVERSATION_STATE
        self._lock: FileLock | None = None

    @classmethod
    def at(cls, directory: str | os.PathLike) -> "Chain":
        """The chain whose directory is ``directory`` (``<root>/_conversations/<id>``)."""
        directory = Path(directory)
        return cls(directory.parent.parent, directory.name)

    # -- lock ---------------------------------------------------------------

    def lock(self, timeout: float = 0.0) -> "Chain":
        """Take the chain's lock (one parser per chain); use as a context manager.

        ``timeout`` in seconds (0: one try). Raises :class:`ChainBusy` when
        another process holds it; the caller then writes nothing. Creates the
        chain directory when missing.
        """
        self.refuse_links()
        lk = FileLock(self.lock_path, timeout)
        try:
            lk.acquire()
        except LockBusy as busy:
            raise ChainBusy(self.conversation, busy) from None
        self._lock = lk
        return self

    def refuse_links(self) -> None:
        """Raise :class:`~asz_core.sessiondata.nolink.LinkRefused` (an OSError) when ``_conversations``, the chain's
        folder or its ``rounds`` is a symbolic link: no round is read or written through one (docs/storage-root.md,
        "No links"). Three ``lstat`` calls (:func:`~asz_core.sessiondata.nolink.refuse_links_in`)."""
        refuse_links_in(self.root, (CONVERSATIONS, self.dir.name, ROUNDS), "the chain folder asz wrote")

    def unlock(self) -> None:
        """Release the chain's lock (a no-op when not held)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    @property
    def locked(self) -> bool:
        """True while this object holds the chain's lock."""
        return self._lock is not None and self._lock.held

    def __enter__(self) -> "Chain":
        if not self.locked:
            self.lock()
        return self

    def __exit__(self, *exc) -> None:
        self.unlock()

    # -- listing and loading -------------------------------------------------

    def exists(self) -> bool:
        """True when the chain's directory exists."""
        return self.dir.is_dir()

    def round_files(self) -> list[RoundFile]:
        """Round files in ``rounds/`` ordered by number (then name); empty reservations and other names skipped."""
        return self.round_listing()[0]

    def round_listing(self) -> tuple[list[RoundFile], "RoundsListed"]:
        """:meth:`round_files`, and what the same listing of ``rounds/`` tells besides (:class:`RoundsListed`, for
        ``asz verify``'s checks after the chain checks, which listed it again each: issue 22, session 40); a
        ``rounds/`` that is not there gives ``([], RoundsListed(False, 0, "", ()))``. Raises OSError as
        :meth:`round_files` does (:class:`~asz_core.sessiondata.nolink.LinkRefused` for a link, :meth:`refuse_links`)."""
        out: list[RoundFile] = []
        self.refuse_links()
        try:
            entries = list(os.scandir(self.rounds_dir))
        except FileNotFoundError:
            return out, RoundsListed(False, 0, "", ())
        named, head, head_name, temporaries = False, 0, "", []
        for e in entries:
            name = e.name
            if name.startswith(".") and name.endswith(".tmp"):
                temporaries.append(name)
            parsed = parse_round_file_name(name)
            if parsed is None:
                continue
            named = True
            if parsed[0] > head:
                head, head_name = parsed[0], name
            if not e.is_file(follow_symlinks=False):
                continue
            try:
                if e.stat(follow_symlinks=False).st_size == 0:
                    continue  # a reservation, not a round
            except OSError:
                continue
            out.append(RoundFile(parsed[0], parsed[1], Path(e.path)))
        out.sort(key=lambda rf: (rf.number, rf.path.name))
        return out, RoundsListed(named, head, head_name, tuple(temporaries))

    def head_file(self) -> RoundFile | None:
        """The listed round with the highest number, or None for an empty chain."""
        files = self.round_files()
        return files[-1] if files else None

    def iter_rounds(self) -> Iterator[Round]:
        """Read the listed rounds one at a time, in order (a long chain is never held in memory whole).

        Raises ChainError for a gap, two files of one number, a round the
        reader refuses, or a file name that does not match its round.
        """
        expected = 1
        for rf in self.round_files():
            if rf.number != expected:
                if rf.number < expected:
                    raise ChainError(f"{rf.path}: a second file for round {rf.number}")
                raise ChainError(f"{self.rounds_dir}: round {expected} is missing (next file is {rf.path.name})")
            try:
                r = read_round(rf.path)
            except RoundError as exc:
                raise ChainError(str(exc)) from None
            if r.header.round != rf.number or r.digest[:12] != rf.prefix:
                raise ChainError(f"{rf.path}: file name does not match round {r.header.round}, digest {r.digest[:12]}")
            yield r
            expected += 1

    def read_rounds(self) -> list[Round]:
        """Every listed round in order (see :meth:`iter_rounds` for the errors raised)."""
        return list(self.iter_rounds())

    def load(self) -> Fold:
        """Fold the whole chain (rounds 1..head, §4.2). Raises ChainError when a round is unreadable or refused by the fold."""
        fold = Fold()
        for r in self.iter_rounds():
            try:
                fold.accept(r)
            except FoldError as exc:
                raise ChainError(str(exc)) from None
        return fold

    # -- installing ------------------------------------------------------------

    def _head_digest(self, rf: RoundFile) -> str:
        """The full commit digest of a listed round, from its last line."""
        data = rf.path.read_bytes()
        last = data.rstrip(b"\n").rsplit(b"\n", 1)[-1]
        try:
            d = orjson.loads(last)
            digest = d["digest"] if d.get("t") == "commit" else ""
        except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
            digest = ""
        if not isinstance(digest, str) or not digest.startswith(rf.prefix):
            raise ChainError(f"{rf.path}: the head round has no commit line matching its name")
        return digest

    def install(self, r: Round, *, fsync: bool = True) -> Path:
        """Publish ``r`` as the chain's next round; returns its path.

        Requires the chain lock (RuntimeError otherwise). Refuses with
        :class:`ChainError`, writing nothing, when ``r`` does not follow the head
        listed in ``rounds/`` (round number head+1, ``previous`` = head digest;
        round 1 on an empty chain with no ``previous``) or when its final name
        already exists. The bytes go to a temporary name, are synced, made 0444
        and hard-linked to the final name (never replacing a file); without
        hard links, a rename after an existence check under the lock.
        """
        if not self.locked:
            raise RuntimeError(f"{self.dir}: installing a round needs the chain lock")
        head = self.head_file()
        h = r.header
        if head is None:
            if h.round != 1 or h.previous:
                raise ChainError(f"{self.dir}: round {h.round} does not follow the head: the chain is empty")
        else:
            head_digest = self._head_digest(head)
            if h.round != head.number + 1 or h.previous != head_digest:
                raise ChainError(
                    f"{self.dir}: round {h.round} (previous {h.previous[:12] or '-'}) does not follow the head, "
                    f"round {head.number} ({head_digest[:12]})"
                )
        if h.conversation != self.conversation:
            raise ChainError(f"{self.dir}: round names conversation {h.conversation!r}, not {self.conversation!r}")
        self.rounds_dir.mkdir(parents=True, exist_ok=True)
        final = self.rounds_dir / r.file_name
        tmp = self.rounds_dir / f".{r.file_name}.{os.getpid()}.tmp"
        batched = fsync and durable.current() is not None  # one sync for the batch (sessiondata/durable.py)
        try:
            with open(tmp, "wb") as f:
                f.write(r.data)
                f.flush()
                if fsync and not batched:
                    os.fsync(f.fileno())
            os.chmod(tmp, read_only_mode())  # 0444 less the umask (trial 34c F5)
            self._link(tmp, final)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM up to the link: the round is not written, nor left as a .tmp
            # (session 41: a stop after the chmod, before the link, left it; a full disk's is said by asz verify and
            # swept by the next pass with room: tests/collect/test_parse_temporaries.py)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        if batched:
            durable.data(final, len(r.data))
        elif fsync:
            _fsync_dir(self.rounds_dir)
        r.path = final
        return final

    @staticmethod
    def _link(tmp: Path, final: Path) -> None:
        """``tmp`` (a whole round, read-only) hard-linked to ``final``, then removed; without hard links renamed to it
        after an existence check (under the chain lock). Raises ChainError when ``final`` exists (``tmp`` removed)."""
        try:
            os.link(tmp, final)
        except FileExistsError:
            os.unlink(tmp)
            raise ChainError(f"{final}: already exists; a round never replaces another") from None
        except OSError:
            if final.exists():
                os.unlink(tmp)
                raise ChainError(f"{final}: already exists; a round never replaces another") from None
            os.rename(tmp, final)
        else:
            os.unlink(tmp)

    def tidy(self) -> None:
        """Remove temporaries an interrupted parser left and reservations older than a minute (lock holder only)."""
        if not self.locked:
            return
        from ..storage.root import remove_stale_temporaries

        remove_stale_temporaries(self.rounds_dir)  # the lock is held: every temporary there is an interrupted writer's
        try:
            entries = list(os.scandir(self.rounds_dir))
        except FileNotFoundError:
            return
        now = time.time()
        for e in entries:
            try:
                if parse_round_file_name(e.name) and e.stat().st_size == 0 and now - e.stat().st_mtime > _RESERVATION_TTL:
                    os.unlink(e.path)
            except OSError:
                pass

    # -- state cache -----------------------------------------------------------

    def write_state(self, fold: Fold, *, fsync: bool = True, also: Iterable[str] = (), unread: Iterable[str] = ()) -> None:
        """Rewrite ``conversation.state`` from ``fold`` (head, head_digest, through_seq, input_digest, parser, policy),
        :data:`ASSEMBLED_BY`: this asz's :func:`assembly_mark`, so that a chain another asz parsed last is told apart
        (an asz before the key rewrites the state without it), :data:`ASSEMBLED_ALSO`: the marks of ``also``
        (the other asz builds that assembled it since something last landed: :func:`assembled_marks`), this one's
        left out, the last :data:`ALSO_KEPT`; the key is absent when none is left; and
        :data:`~asz_core.flow.unread.UNREAD`: the dialects of ``unread``, those of the session no installed adapter
        spoke at this assembly (:func:`~asz_core.flow.unread.unread_dialects`), absent when none."""
        if fold.head is None:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        mine = assembly_mark()
        others = [m for m in dict.fromkeys(also) if m and m != mine][:ALSO_KEPT]
        write_state(
            self.state_path,
            [
                ("head", fold.rounds),
                ("head_digest", fold.head_digest),
                ("through_seq", fold.through_seq),
                ("input_digest", fold.input_digest),
                ("parser", fold.head.parser),
                ("policy", fold.head.policy),
                (ASSEMBLED_BY, mine),
            ] + ([(ASSEMBLED_ALSO, ",".join(others))] if others else [])
            + ([(UNREAD, ",".join(unread))] if unread else []),
            fsync=fsync,
        )

    def read_state(self) -> dict[str, str]:
        """``conversation.state`` as a dict ({} when missing). A cache: the listing of ``rounds/`` is the authority."""
        return read_state(self.state_path)

    def named_head(self) -> int:
        """The head round ``conversation.state`` names; 0 when it names none or does not read. A cache of the
        chain, but one naming a round past the last one listed means rounds were removed from the chain's end,
        which no digest inside the chain can show. Read it before listing ``rounds/``: a parser writes a round's
        file before the state that names it, so a chain that grows meanwhile never looks cut short."""
        try:
            return int(self.read_state().get("head", "0") or 0)
        except ValueError:
            return 0

