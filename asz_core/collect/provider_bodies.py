"""The provider pass: land Claude Code's body files into their sessions (origin-digest §2.3, §5.3; seed 000, Provider bodies).

Body files are not streams of lines and have no cursors: one root-wide table,
``<root>/_provider/seen.state``, says for each body file what became of it —
one line ``<file name> <state> <size> <mtime ns> <sha256[:16]> <session|-> <join|->``
(``join``: a request's ``previous_request``, a response's ``call``) with state one of:

* ``landed``: it is in its session's provider_body files (trusted only while
  the session's ``provider_body/`` directory exists; otherwise it lands again);
* ``waiting``: a response whose session is not known yet (no request names its
  request id, and no single session's landed transcript holds its message id);
* ``excluded``: a request that names no session, or one the filters leave out;
* ``unreadable``: not one JSON value two minutes after its last write;
* ``changed``: a landed body file whose bytes now differ from what landed,
  last written less than two minutes ago (it may be in the middle of a
  rewrite): not landed again, looked at again by the next pass, which finds
  it back to what landed (``landed``) or still different and settled
  (``conflict``);
* ``conflict``: a landed body file whose bytes changed and stayed changed two
  minutes after its last write: never landed again, counted as a conflict on
  every pass until its bytes are restored.

A landed file is read again when its size or modification time differs from
the table's, or when its inode changed after its last write (``st_ctime``
more than ``CTIME_SLACK_NS`` past ``st_mtime``): a rewrite that put the old
size and modification time back still moves the change time, which no
program can set. A file whose metadata alone changed (a ``chmod``, a hard
link) is read again on each pass and found unchanged.

:func:`provider_pass` runs after the transcript adapter in each pass, holding
``_provider/.lock`` and each session's lock while it lands. A session's new
bodies are cut against what the session holds (:class:`asz_core.sessiondata.providerbody.Session`),
in the order they were written (mtime, then name), into provider_body files cut
at ``max_delta_bytes``; a body whose record is larger than the budget lands
alone with its largest pieces taken out. The file lands before its table lines.
The table can be rebuilt from landed manifests: a body whose record id the
session already holds is marked landed without landing again.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TextIO

import attrs

from ..sessiondata.providerbody import BodyMeta, Session
from ..sessiondata import Header, format_rfc3339
from ..sessiondata.codec import encode_header, encode_record
from ..storage.layout import landed_files, provider_files, session_dir, session_dirs
from ..storage.root import FileLock, LockBusy, SessionWriter, session_lock, write_at_once
from ..storage.session_list import SESSION_LIST, record_sessions

if TYPE_CHECKING:  # pragma: no cover
    from ..plugins.adapter import Adapter

__all__ = [
    "PROVIDER_DIR",
    "TABLE",
    "STATES",
    "UNREADABLE_AFTER_NS",
    "CTIME_SLACK_NS",
    "SESSION_WINDOW_NS",
    "SeenEntry",
    "ProviderCounters",
    "read_table",
    "write_table",
    "provider_pass",
    "body_adapter",
    "landed_share",
]

PROVIDER_DIR = "_provider"
TABLE = "seen.state"
#: The next step of a body file in conflict: the conflict clears at the next pass once either is done.
BODY_STEP = ("put its bytes back, or move it out of the body directory (what landed stays), and the next asz collect "
             "clears the conflict")
STATES = ("landed", "waiting", "excluded", "unreadable", "changed", "conflict")
#: A body file that is not JSON this long after its last write is unreadable (2 minutes).
UNREADABLE_AFTER_NS = 120 * 10**9
#: A landed file whose inode changed more than this after its last write is read again (1 s).
CTIME_SLACK_NS = 10**9
#: A response looks for its message id among sessions with a request within this window (24 h).
SESSION_WINDOW_NS = 24 * 3600 * 10**9
_CLOSING_MAX = 100


@attrs.define
class SeenEntry:
    """One line of the table: file ``name``, ``state``, ``size`` (bytes), ``mtime_ns``, ``digest`` (16 hex), ``session``,
    ``join`` (the join id: a request's previous request id, a response's message id)."""

    name: str
    state: str
    size: int = 0
    mtime_ns: int = 0
    digest: str = ""
    session: str = ""
    join: str = ""

    def line(self) -> str:
        """The table line, fields separated by one space; ``-`` for an empty digest, session or join id."""
        return f"{self.name} {self.state} {self.size} {self.mtime_ns} {self.digest or '-'} {self.session or '-'} {self.join or '-'}\n"


@attrs.define
class ProviderCounters:
    """What a provider pass did: sessions touched, ``landed`` files, ``records`` (bodies), ``bytes`` (body
    bytes read), ``waiting`` responses, ``unreadable`` files, ``changed`` (landed files changed less
    than two minutes ago), ``conflicts`` (landed files changed and settled), ``errors``, ``busy``
    sessions, ``landed_bytes`` (bytes of the landed files)."""

    sessions: int = 0
    landed: int = 0
    records: int = 0
    bytes: int = 0
    waiting: int = 0
    unreadable: int = 0
    changed: int = 0
    conflicts: int = 0
    errors: int = 0
    busy: int = 0
    landed_bytes: int = 0

    def add(self, other: "ProviderCounters") -> None:
        """Add ``other``'s counts to these (the passes over several body folders, one summary)."""
        for f in attrs.fields(ProviderCounters):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def extra(self) -> str:
        """`` bodies_waiting=N bodies_unreadable=N bodies_changed=N`` with only the non-zero ones (for the summary line)."""
        out = ""
        if self.waiting:
            out += f" bodies_waiting={self.waiting}"
        if self.unreadable:
            out += f" bodies_unreadable={self.unreadable}"
        if self.changed:
            out += f" bodies_changed={self.changed}"
        return out


def _table_path(root: Path) -> Path:
    return Path(root) / PROVIDER_DIR / TABLE


def read_table(root: str | os.PathLike) -> dict[str, SeenEntry]:
    """The table of ``root`` by file name; {} when absent. Lines that do not parse are ignored."""
    out: dict[str, SeenEntry] = {}
    try:
        text = _table_path(Path(root)).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return out
    for raw in text.splitlines():
        f = raw.split(" ")
        if len(f) not in (6, 7) or f[1] not in STATES:
            continue
        dash = lambda v: "" if v == "-" else v  # noqa: E731
        try:
            out[f[0]] = SeenEntry(f[0], f[1], int(f[2]), int(f[3]), dash(f[4]), dash(f[5]), dash(f[6]) if len(f) == 7 else "")
        except ValueError:
            continue
    return out


def write_table(root: str | os.PathLike, table: dict[str, SeenEntry], *, fsync: bool = True) -> None:
    """Replace the table atomically (:func:`~asz_core.storage.root.write_at_once`: temporary name, fsync, rename), lines
    sorted by file name."""
    path = _table_path(Path(root))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_at_once(path, "".join(table[k].line() for k in sorted(table)).encode("utf-8"), fsync)


@attrs.define
class _Body:
    name: str
    path: Path
    data: bytes
    st: os.stat_result
    meta: BodyMeta
    digest: str


def _holds_call(root: Path, session: str, call: str, cache: dict[str, bytes]) -> bool:
    """True when a landed transcript of ``session`` carries ``"call":"<call>"``."""
    blob = cache.get(session)
    if blob is None:
        chunks = []
        try:
            for ln, p in landed_files(session_dir(root, session)):
                if ln.kind == "transcript":
                    chunks.append(p.read_bytes())
        except (OSError, ValueError):
            pass
        blob = cache[session] = b"\n".join(chunks)
    return f'"call":"{call}"'.encode() in blob


def body_adapter() -> "Adapter":
    """The installed adapter of provider bodies (the first loaded one declaring ``body_suffixes``).

    Raises LookupError when none is installed.
    """
    from ..plugins.manager import get_plugin_manager

    for a in get_plugin_manager().adapters().values():
        if a.body_suffixes:
            return a
    raise LookupError("no installed adapter declares provider bodies (body_suffixes); see asz adapters list")


def provider_pass(
    root: str | os.PathLike,
    source_dir: str | os.PathLike,
    *,
    max_delta_bytes: int,
    lock_timeout: float = 30.0,
    fsync: bool = True,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    err: TextIO | None = None,
    adapter: "Adapter | None" = None,
    now_ns: Callable[[], int] = time.time_ns,
    stamp_ns: int | None = None,
) -> ProviderCounters:
    """One pass over Claude Code's body directory ``source_dir`` into storage root ``root``; returns its counters.

    Holds ``<root>/_provider/.lock`` (waiting up to ``lock_timeout`` s; busy →
    ``busy`` counted, nothing done) and each session's lock while landing its
    bodies. ``max_delta_bytes`` is the cut budget in bytes of a landed file.
    ``include``/``exclude`` are globs on the session id. ``adapter`` is the
    provider-body adapter (one declaring ``body_suffixes``): it names the body
    files and reads their identifiers (:meth:`Adapter.body_meta`), and its
    identity and first dialect go into the headers; None takes the installed
    one (:func:`body_adapter`). ``stamp_ns`` fixes the pass stamp (reproducible
    builds). Problems go to ``err`` (stderr) as ``error:``/``conflict:`` lines;
    never raises for a body file or a session. An absent ``source_dir`` is a
    pass that does nothing.
    """
    if adapter is None:
        adapter = body_adapter()
    request_suffix, response_suffix = adapter.body_suffixes or ("", "")
    body_meta, body_dialect, identity = adapter.body_meta, adapter.dialects[0], adapter.identity

    root = Path(root)
    src = Path(source_dir)
    out = err if err is not None else sys.stderr
    c = ProviderCounters()
    if not src.is_dir():
        return c
    lock = FileLock(root / PROVIDER_DIR / ".lock", lock_timeout)
    try:
        lock.acquire()
    except LockBusy:
        c.busy += 1
        return c
    try:
        table = read_table(root)
        names = sorted(n for n in os.listdir(src) if n.endswith((request_suffix, response_suffix)))
        now = now_ns()
        bodies = _read_new(root, src, names, table, c, out, now, body_meta)
        groups = _sessions_of(root, bodies, table, c, request_suffix, include, exclude)
        _leave_erased(root, groups, table)
        for sess, group in sorted(groups.items()):
            group.sort(key=lambda b: (b.st.st_mtime_ns, b.name))
            _land_session(root, sess, group, table, c, max_delta_bytes=max_delta_bytes, lock_timeout=lock_timeout,
                          fsync=fsync, out=out, adapter=identity, dialect=body_dialect, stamp_ns=stamp_ns)
        write_table(root, table, fsync=fsync)
        if groups:  # a session first landed by its bodies gets its line in the root's list (storage-root.md)
            try:
                record_sessions(root, [session_dir(root, sess).name for sess in groups], fsync=fsync)
            except OSError as exc:
                print(f"error: {root / SESSION_LIST}: cannot record the sessions landed: {exc.strerror or exc}; "
                      "the next pass tries again", file=out)
                c.errors += 1
    finally:
        lock.release()
    return c


def _read_new(root: Path, src: Path, names: list[str], table: dict[str, SeenEntry], c: ProviderCounters, out: TextIO,
              now: int, body_meta: Callable) -> list[_Body]:
    """The body files of ``names`` (in ``src``) that are new or changed since the table judged them, read whole.

    A file unchanged since it landed or was excluded is not read again; one
    whose bytes changed after landing is ``changed`` while it may still be
    being written (``UNREADABLE_AFTER_NS``), then a ``conflict`` said on
    ``out`` (what landed is kept); one the adapter cannot read is
    ``unreadable`` once it is that old. Updates ``table`` and the counters
    ``c`` in place; an unreadable file is an ``error:`` line and counted.
    """
    bodies: list[_Body] = []
    for n in names:
        p = src / n
        seen = table.get(n)
        try:
            st = p.stat()
            if seen is not None and seen.state in ("landed", "excluded") and seen.size == st.st_size \
                    and seen.mtime_ns == st.st_mtime_ns and st.st_ctime_ns <= st.st_mtime_ns + CTIME_SLACK_NS \
                    and (seen.state == "excluded" or (session_dir(root, seen.session) / "provider_body").is_dir()):
                continue  # unchanged since it was judged: not read again
            data = p.read_bytes()
        except OSError as exc:
            print(f"error: {p}: unreadable: {exc.strerror or exc}", file=out)
            c.errors += 1
            continue
        digest = hashlib.sha256(data).hexdigest()[:16]
        if seen is not None and seen.state in ("landed", "changed", "conflict"):
            if seen.digest == digest:
                seen.size, seen.mtime_ns = st.st_size, st.st_mtime_ns  # touched, same bytes
                if seen.state != "landed":
                    seen.state = "landed"  # its bytes are restored
                if (session_dir(root, seen.session) / "provider_body").is_dir():
                    continue
            elif seen.state != "conflict" and now - st.st_mtime_ns < UNREADABLE_AFTER_NS:
                seen.state = "changed"  # perhaps still being rewritten: looked at again next pass
                c.changed += 1
                continue
            else:
                if seen.state != "conflict":
                    print(f"conflict: {p}: a body file changed after it landed in session {seen.session}; "
                          f"what landed is kept and the file is not landed again: {BODY_STEP}", file=out)
                seen.state = "conflict"
                c.conflicts += 1
                continue
        if seen is not None and seen.state == "excluded" and seen.digest == digest:
            continue
        info = body_meta(n, data)
        if info.meta is None:
            if now - st.st_mtime_ns >= UNREADABLE_AFTER_NS:
                table[n] = SeenEntry(n, "unreadable", st.st_size, st.st_mtime_ns, digest)
                c.unreadable += 1
            continue  # still being written, perhaps
        bodies.append(_Body(n, p, data, st, info.meta, digest))

    return bodies


def _sessions_of(root: Path, bodies: list[_Body], table: dict[str, SeenEntry], c: ProviderCounters, request_suffix: str,
                 include: list[str] | None, exclude: list[str] | None) -> dict[str, list[_Body]]:
    """The bodies to land, by session id; those excluded by ``include``/``exclude`` (globs on the session id) or
    still waiting for their session go into ``table`` instead (``waiting`` counted in ``c``)."""
    from fnmatch import fnmatchcase

    # Sessions: requests name theirs; a response is named by a later request's cc_prev_req,
    # else it belongs to the single session (with a request within 24 h) whose transcript holds its id.
    # Requests landed in earlier passes count too (the table keeps their session and join id).
    by_prev: dict[str, str] = {}
    req_times: dict[str, list[int]] = {}
    for e in table.values():
        if e.state == "landed" and e.session and e.name.endswith(request_suffix):
            if e.join:
                by_prev.setdefault(e.join, e.session)
            req_times.setdefault(e.session, []).append(e.mtime_ns)
    for b in bodies:
        if b.meta.role == "request" and b.meta.session:
            if b.meta.previous_request:
                by_prev[b.meta.previous_request] = b.meta.session
            req_times.setdefault(b.meta.session, []).append(b.st.st_mtime_ns)
    calls_cache: dict[str, bytes] = {}
    groups: dict[str, list[_Body]] = {}
    for b in bodies:
        m = b.meta
        if m.role == "request":
            if not m.session or (include and not any(fnmatchcase(m.session, x) for x in include)) \
                    or any(fnmatchcase(m.session, x) for x in (exclude or ())):
                table[b.name] = SeenEntry(b.name, "excluded", b.st.st_size, b.st.st_mtime_ns, b.digest, m.session, m.previous_request)
                continue
        else:
            sess = by_prev.get(m.request, "")
            if not sess and m.call:
                near = [s for s, ts in req_times.items() if any(abs(t - b.st.st_mtime_ns) <= SESSION_WINDOW_NS for t in ts)]
                hits = [s for s in sorted(near) if _holds_call(root, s, m.call, calls_cache)]
                if len(hits) == 1:
                    sess = hits[0]
            if not sess:
                table[b.name] = SeenEntry(b.name, "waiting", b.st.st_size, b.st.st_mtime_ns, b.digest, "", m.call)
                c.waiting += 1
                continue
            m.session = sess
        groups.setdefault(m.session, []).append(b)

    return groups


def _land_session(root: Path, sess: str, group: list[_Body], table: dict[str, SeenEntry], c: ProviderCounters, *,
                  max_delta_bytes: int, lock_timeout: float, fsync: bool, out: TextIO, adapter: str, dialect: str,
                  stamp_ns: int | None) -> None:
    """Cut and land one session's new bodies under its lock; table lines follow each landed file."""
    lock = session_lock(root, sess, lock_timeout)
    try:
        lock.acquire()
    except (LockBusy, OSError) as exc:
        print(f"busy: {session_dir(root, sess)}: the session lock is held ({exc}); left for the next pass", file=out)
        c.busy += 1
        return
    try:
        c.sessions += 1
        sdir = session_dir(root, sess)
        try:
            held = Session.open(provider_files(sdir))
        except (OSError, ValueError) as exc:
            print(f"error: {sdir / 'provider_body'}: {exc}; its bodies are left for the next pass", file=out)
            c.errors += 1
            return
        writer: SessionWriter | None = None
        header = Header(kind="provider_body", session=sess, src="", dialect=dialect, adapter=adapter)
        pending: list[tuple[bytes, _Body]] = []
        size = 0
        overhead = len(encode_header(Header(kind="provider_body", session=sess, src="x" * 60, dialect=dialect, adapter=adapter,
                                            seq=10**9, at=format_rfc3339(0)))) + 1 + _CLOSING_MAX

        def flush() -> None:
            nonlocal writer, pending, size
            if not pending:
                return
            if writer is None:
                writer = SessionWriter.open(root, sess, stamp_ns=stamp_ns, fsync=fsync)
            w = writer.start(_file_header(header, pending))
            try:
                for line, _b in pending:
                    w.write_encoded(line)
                lf = writer.finish(w)
            except BaseException:
                writer.abort(w)
                raise
            c.landed += 1
            c.landed_bytes += lf.size
            for line, b in pending:
                c.records += 1
                c.bytes += len(b.data)
                table[b.name] = SeenEntry(b.name, "landed", b.st.st_size, b.st.st_mtime_ns, b.digest, sess, _join(b.meta))
            pending = []
            size = 0

        budget = max(1, max_delta_bytes - overhead)
        for b in group:
            if b.meta.record_id in held.records:
                table[b.name] = SeenEntry(b.name, "landed", b.st.st_size, b.st.st_mtime_ns, b.digest, sess, _join(b.meta))
                continue
            rec = held.cut(b.data, b.meta, max_bytes=budget)
            line = encode_record(rec)
            n = len(line) + 1
            if pending and size + n > budget:
                flush()
            pending.append((line, b))
            size += n
            if size >= budget:
                flush()
        flush()
        if writer is not None:
            writer.write_state()
    finally:
        lock.release()


def _leave_erased(root: Path, groups: dict[str, list[_Body]], table: dict[str, SeenEntry]) -> None:
    """Bodies of a session ``asz erase`` erased (``_erased.list``) are never landed: out of ``groups``, ``excluded``
    in the table (their id and digest only), so a later pass reads them no more (docs/storage-root.md, Erasure)."""
    from ..storage.erased_list import read_erased

    gone = read_erased(root)
    for sess in [s for s in groups if gone and session_dir(root, s).name in gone]:
        for b in groups.pop(sess):
            table[b.name] = SeenEntry(b.name, "excluded", b.st.st_size, b.st.st_mtime_ns, b.digest, sess, _join(b.meta))


def _join(meta: BodyMeta) -> str:
    """The join id a table line keeps: a request's previous request id, a response's message id."""
    return meta.previous_request if meta.role == "request" else meta.call


def _file_header(header: Header, pending: list) -> Header:
    """The file's header: ``src`` is the directory the bodies came from, named by its first body file."""
    return attrs.evolve(header, src=pending[0][1].name)


def landed_share(root: str | os.PathLike) -> tuple[int, int]:
    """``(landed provider_body bytes, body bytes they describe)`` over every session of ``root``."""
    landed = described = 0
    for sdir in session_dirs(Path(root)):
        for _seq, p in provider_files(sdir):
            landed += p.stat().st_size
            s = Session()
            s.load_file(p)
            for rid in s.order:
                described += max(0, s.manifest(rid).bytes)
    return landed, described
