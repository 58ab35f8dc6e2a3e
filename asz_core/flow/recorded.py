"""Which whole-file SHA-256 a conversation's round chain recorded for each landed file it consumed (origin-digest §4.1).

A round keeps no digest per file: its ``input_digest`` is the SHA-256 of the
round before's input digest and the sorted whole-file digests of every landed
file of seq ``from_seq``..``through_seq``. Parse computes it from the session
index's ``digest`` of each file (``index/entries.jsonl``,
:mod:`asz_core.flow.index`), taken when the file was indexed. So the cheapest
exact answer per file hashes no other file: when the index's digests of a
round's window reproduce the round's input digest, they are the digests the
round consumed (any other set would be a SHA-256 collision), and a landed file
whose whole bytes hash to anything else is not the file the chain recorded,
even when its own closing line binds its bytes (the file was written again
whole, "re-sealed"). When they do not reproduce it (the index was rebuilt from
a file changed since, or lost an entry), the window is *unbound*: the round
says something in it changed, and which file cannot be told without another
copy; a reader then recomputes the round's input digest from the files on disk
(:meth:`Recorded.problem`).

Nothing here trusts the index: the round's input digest decides, the index only
says which file. Readers of evidence (``asz search``, ``asz show``, the
record API) and ``asz verify`` use it.
"""

from __future__ import annotations

import mmap
import os
import threading
from pathlib import Path
from typing import Callable, NamedTuple

import orjson

from ..storage.layout import session_dir
from ..storage.filekey import stat_key
from ..storage.root import read_state
from .chain import Chain
from .round import input_digest

__all__ = ["Window", "Recorded", "indexed_digests", "round_windows", "recorded"]

_DIGEST_KEY = b'"digest":"'
#: An ``entries.jsonl`` line names its file's digest within its first bytes (seq, path, kind, stream, batch,
#: session come before it); a line whose digest is not found this early is read whole.
_HEAD_BYTES = 4096


class Window(NamedTuple):
    """One round's inputs: its ``round`` number, the seqs ``from_seq``..``through_seq``, its ``input_digest`` and
    the round before's (``previous_input``, '' on round 1)."""

    round: int
    from_seq: int
    through_seq: int
    input_digest: str
    previous_input: str


def indexed_digests(sdir: str | os.PathLike) -> dict[int, str]:
    """seq -> the whole-file SHA-256 (hex) the session index at ``sdir/index`` kept of each landed file, from the
    valid prefix of ``entries.jsonl`` (``entries_bytes`` of ``index.state``); {} when there is no index.

    Reads only the front of each line (a line is one file, its records after the digest); never raises."""
    d = Path(sdir) / "index"
    try:
        valid = int(read_state(d / "index.state").get("entries_bytes", "0") or 0)
        with open(d / "entries.jsonl", "rb") as f:
            size = os.fstat(f.fileno()).st_size
            valid = min(valid, size)
            if valid <= 0:
                return {}
            with mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) as mm:
                return _scan(mm, valid)
    except (OSError, ValueError):
        return {}


def _scan(mm: mmap.mmap, valid: int) -> dict[int, str]:
    out: dict[int, str] = {}
    pos = 0
    while pos < valid:
        end = mm.find(b"\n", pos, valid)
        end = valid if end < 0 else end
        seq, digest = _seq_digest(mm[pos:min(end, pos + _HEAD_BYTES)])
        if seq is None and end - pos > _HEAD_BYTES:
            seq, digest = _seq_digest(mm[pos:end], whole=True)
        if seq is not None and digest:
            out[seq] = digest
        pos = end + 1
    return out


def _seq_digest(head: bytes, whole: bool = False) -> tuple[int | None, str]:
    """``(seq, digest)`` from the front of an ``entries.jsonl`` line (``(None, '')`` when not found there)."""
    if whole:
        try:
            line = orjson.loads(head)
        except orjson.JSONDecodeError:
            return None, ""
        seq, digest = (line.get("seq"), line.get("digest")) if isinstance(line, dict) else (None, None)
        return (seq, digest) if isinstance(seq, int) and isinstance(digest, str) else (None, "")
    if not head.startswith(b'{"seq":'):
        return None, ""
    comma = head.find(b",", 7)
    at = head.find(_DIGEST_KEY)
    if comma < 0 or at < 0 or len(head) < at + len(_DIGEST_KEY) + 64:
        return None, ""
    try:
        seq = int(head[7:comma])
    except ValueError:
        return None, ""
    digest = head[at + len(_DIGEST_KEY): at + len(_DIGEST_KEY) + 64].decode("ascii", "replace")
    return seq, digest


def round_windows(root: str | os.PathLike, conversation: str, files: list | None = None) -> tuple[str, list[Window]]:
    """``(session, windows)`` of a conversation's chain: each round's window read from its header line, in round
    order, up to the first missing or unreadable round (a later round's window is not bound to anything read).
    ``('', [])`` for no chain. ``files``: the chain's round files when already listed
    (:meth:`~asz_core.flow.chain.Chain.round_files`). Never raises for what it finds."""
    session = ""
    out: list[Window] = []
    previous = ""
    for rf in files if files is not None else Chain(root, conversation).round_files():
        if rf.number != len(out) + 1:
            break
        try:
            with open(rf.path, "rb") as f:
                h = orjson.loads(f.readline())
            w = Window(int(h["round"]), int(h["from_seq"]), int(h["through_seq"]), str(h["input_digest"]), previous)
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            break
        named = h.get("session")
        if w.round != rf.number or not isinstance(named, str) or named in ("", ".", "..") or session not in ("", named):
            break
        session = named
        out.append(w)
        previous = w.input_digest
    return session, out


class Recorded:
    """What one conversation's chain recorded of its session's landed files.

    ``digests``: seq -> ``(round, digest)`` for every seq of a window the index
    binds; ``unbound``: the windows it does not (see the module docstring)."""

    def __init__(self, session: str, windows: list[Window], indexed: dict[int, str]):
        self.session = session
        self.windows = windows
        self.digests: dict[int, tuple[int, str]] = {}
        self.unbound: list[Window] = []
        for w in windows:
            mine = {s: d for s, d in indexed.items() if w.from_seq <= s <= w.through_seq}
            if input_digest(w.previous_input, mine.values()) == w.input_digest:
                self.digests.update((s, (w.round, d)) for s, d in mine.items())
            else:
                self.unbound.append(w)

    def window(self, seq: int) -> Window | None:
        """The window that consumed ``seq``, or None (landed after the newest round, or never consumed)."""
        for w in self.windows:
            if w.from_seq <= seq <= w.through_seq:
                return w
        return None

    def problem(self, seq: int, digest: str, digest_of: Callable[[int], str | None]) -> str:
        """Why the landed file ``seq``, whose whole bytes hash to ``digest``, is not what the chain recorded ('' when
        it is, or when no round consumed ``seq``). ``digest_of(s)`` is the whole-file digest of the session's landed
        file ``s`` now (None when there is none); it is asked only in an unbound window, for each of its seqs."""
        bound = self.digests.get(seq)
        if bound is not None:
            if bound[1] == digest:
                return ""
            return (f"it is not the file round {bound[0]} consumed as seq {seq} (its SHA-256 is {digest[:12]}…, the "
                    f"round's input digest binds {bound[1][:12]}…): it was written again after it was parsed")
        w = self.window(seq)
        if w is None or w not in self.unbound:
            return ""
        now = [d for d in (digest_of(s) for s in range(w.from_seq, w.through_seq + 1)) if d]
        if input_digest(w.previous_input, now) == w.input_digest:
            return ""
        return (f"round {w.round}'s input digest over seq {w.from_seq}–{w.through_seq} does not match the landed files, "
                f"and the session index cannot tell which of them changed")


_cache: dict[tuple[str, str], tuple[tuple, Recorded]] = {}
_cache_lock = threading.Lock()


def _key(root: Path, conversation: str, sdir: Path, files: list | None = None) -> tuple:
    names = tuple(rf.path.name for rf in (files if files is not None else Chain(root, conversation).round_files()))
    stats = []
    for p in (sdir / "index" / "entries.jsonl", sdir / "index" / "index.state"):
        try:
            st = os.stat(p)
            stats.append(stat_key(st))
        except OSError:
            stats.append(None)
    return names, tuple(stats)


def recorded(root: str | os.PathLike, conversation: str) -> Recorded | None:
    """:class:`Recorded` of ``conversation`` (None when it has no readable round 1). Kept per process while its round
    files and its session's index are the same files (names, sizes, mtimes, change times, inodes): a reader pays one read of the
    index's line fronts and the round header lines per conversation, not one per file it serves. Thread-safe."""
    root = Path(root)
    k = (str(root), conversation)
    with _cache_lock:
        hit = _cache.get(k)
    if hit is not None and _key(root, conversation, session_dir(root, hit[1].session)) == hit[0]:
        return hit[1]
    files = Chain(root, conversation).round_files()
    session, windows = round_windows(root, conversation, files)  # a round file's name names its digest: never rewritten
    if not windows:
        return None
    sdir = session_dir(root, session)
    before = _key(root, conversation, sdir, files)
    rec = Recorded(session, windows, indexed_digests(sdir))
    if _key(root, conversation, sdir) == before:  # no round added, no index written while they were read
        with _cache_lock:
            _cache[k] = (before, rec)
    return rec
