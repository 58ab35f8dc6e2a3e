"""Storage root layout: where each landed file, cursor and lock lives (origin-digest §2.1).

::

    <root>/<session>/
        session.state
        .lock
        streams/<stream>/transcript.cursor   transcript-<stamp>-<seq>.sd
        streams/<stream>/meta.cursor         meta-<stamp>-<seq>.sd          (agent_meta)
        streams/<stream>/changes-…sd, execution-…sd
        runs/<run>/journal.cursor            journal-<stamp>-<seq>.sd
        runs/<run>/manifest.cursor           manifest-<stamp>-<seq>.sd
        runs/<run>/script.cursor             script-<stamp>-<seq>.sd
        provider_body/provider_body-<stamp>-<seq>.sd
    <root>/_conversations/<conversation>/rounds/r<round>-<digest12>.sf   a conversation's chain (session-flow.md)
    (names starting with "_" are not sessions)

``<stamp>`` is the UTC start of the session's pass in nanoseconds
(``20260831T091204.481523000Z``); ``<seq>`` is zero-padded to at least six
digits. Readers order by seq, never by stamp.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import re
import stat
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import attrs

from ..sessiondata.model import KIND_PREFIX
from ..sessiondata.nolink import NOFOLLOW_DIR, links_among
from ..termsafe import shell_word

__all__ = [
    "LandedName",
    "parse_landed_name",
    "landed_name",
    "kind_dir",
    "holding_dirs",
    "session_links",
    "root_links",
    "kind_dir_parts",
    "cursor_file",
    "dir_name",
    "session_dir",
    "session_path",
    "cursor_path",
    "session_dirs",
    "listings_held",
    "held_listing",
    "is_dir",
    "landed_files",
    "highest_landed_seq",
    "holds_landed",
    "cursor_files",
    "session_listing",
    "SessionListing",
    "DEFAULT_ROOT",
    "PREFIX_KIND",
    "provider_files",
    "CONVERSATIONS",
    "ROUNDS",
    "conversation_dir",
    "conversation_path",
    "rounds_dir",
]

#: Default storage root, relative to the working directory (``storage.root``).
DEFAULT_ROOT = "./data"

PREFIX_KIND = {v: k for k, v in KIND_PREFIX.items()}

_NAME_RE = re.compile(r"^(?P<prefix>[a-z_]+)-(?P<stamp>\d{8}T\d{6}\.\d{9}Z)-(?P<seq>\d{6,})\.(?P<ext>sd|sk)$")


@attrs.frozen
class LandedName:
    """The parts of a landed file name: kind (from the prefix), stamp, seq and extension."""

    kind: str
    stamp: str
    seq: int
    ext: str


def parse_landed_name(name: str) -> LandedName | None:
    """Parse ``<prefix>-<stamp>-<seq>.sd`` (or ``.sk``); None when the name is not a landed file's."""
    m = _NAME_RE.match(name)
    if m is None:
        return None
    prefix, stamp, seq, ext = m.groups()
    kind = PREFIX_KIND.get(prefix)
    return None if kind is None else LandedName(kind, stamp, int(seq), ext)


def landed_name(kind: str, stamp: str, seq: int) -> str:
    """The file name for a landed file of ``kind``: ``<prefix>-<stamp>-<seq:06d>.sd``."""
    return f"{KIND_PREFIX[kind]}-{stamp}-{seq:06d}.sd"


def dir_name(part: str) -> str:
    """A directory name from an id (a session, stream or batch): ``/`` and ``\\`` become ``_``.

    Raises ValueError for an empty or dot name.
    """
    part = part.replace("/", "_").replace("\\", "_")
    if part in ("", ".", ".."):
        raise ValueError(f"not usable as a directory name: {part!r}")
    return part


def session_dir(root: Path, session: str) -> Path:
    """``<root>/<session>``; ``/`` and ``\\`` in the id become ``_``. Raises ValueError for an empty or dot id."""
    return Path(session_path(root, session))


def session_path(root: str | os.PathLike, session: str) -> str:
    """:func:`session_dir` as a string, joined with no :class:`Path` made (a pass with nothing new, asz verify's chain
    checks: every session, issue 22). Raises ValueError as :func:`session_dir`."""
    return os.path.join(os.fspath(root), dir_name(session))


#: The directory of all chains, relative to the storage root (one ``<conversation>/`` each).
CONVERSATIONS = "_conversations"
#: A chain's round files, relative to its conversation directory.
ROUNDS = "rounds"


def conversation_dir(root: str | os.PathLike, conversation: str) -> Path:
    """``<root>/_conversations/<conversation>``: one conversation's chain (``/`` and ``\\`` in the id become ``_``).
    Raises ValueError for an empty or dot id."""
    return Path(conversation_path(root, conversation))


def conversation_path(root: str | os.PathLike, conversation: str) -> str:
    """:func:`conversation_dir` as a string, joined with no :class:`Path` made (a pass with nothing new asks every
    chain, issue 22). Raises ValueError as :func:`conversation_dir`."""
    return os.path.join(os.fspath(root), CONVERSATIONS, dir_name(conversation))


def rounds_dir(root: str | os.PathLike, conversation: str) -> Path:
    """``<root>/_conversations/<conversation>/rounds``: where a conversation's round files (``.sf``) live. The one
    place flow (which writes them) and collect (which may not import flow) learn it. Raises ValueError as
    :func:`conversation_dir`."""
    return conversation_dir(root, conversation) / ROUNDS


def kind_dir_parts(kind: str, stream: str = "", batch: str = "") -> tuple[str, ...]:
    """The directory names, under the session directory, that hold files of ``kind`` for a stream or run.

    transcript, agent_meta, changes, execution, tool_output: ``("streams", <stream>)``
    (``main`` when empty); journal, workflow_manifest, workflow_script:
    ``("runs", <batch>)``; provider_body: ``("provider_body",)``. Raises
    ValueError for a run kind without a batch, or a name that is not usable.
    """
    if kind in ("journal", "workflow_manifest", "workflow_script"):
        if not batch:
            raise ValueError(f"a {kind} file belongs to a workflow run: batch is required")
        return ("runs", dir_name(batch))
    if kind == "provider_body":
        return ("provider_body",)
    return ("streams", dir_name(stream or "main"))


def kind_dir(root: Path, session: str, kind: str, stream: str = "", batch: str = "") -> Path:
    """Directory that holds files of ``kind`` for a session's stream or run: the session directory and :func:`kind_dir_parts`.

    Raises ValueError for a run kind without a batch.
    """
    return session_dir(root, session).joinpath(*kind_dir_parts(kind, stream, batch))


def cursor_path(directory: Path, kind: str) -> Path:
    """The cursor file of ``kind`` in ``directory``: ``<prefix>.cursor`` (a dot, so a ``<prefix>-`` scan never picks it)."""
    return Path(directory) / f"{KIND_PREFIX[kind]}.cursor"


def cursor_file(session_dir: str | os.PathLike, kind: str, stream: str = "", batch: str = "") -> str:
    """``os.fspath(cursor_path(kind_dir(root, session, kind, stream, batch), kind))`` of the session directory
    ``session_dir`` (``session_dir(root, session)``), joined as a string with no :class:`Path` made: a pass with
    nothing new asks it of every source (issue 22). Raises ValueError as :func:`kind_dir_parts`, KeyError for a kind
    that is not one."""
    return os.path.join(os.fspath(session_dir), *kind_dir_parts(kind, stream, batch), f"{KIND_PREFIX[kind]}.cursor")


#: The root listings :func:`listings_held` holds, by ``(what, root)``; None outside it (every listing reads the root).
_HELD: contextvars.ContextVar[dict | None] = contextvars.ContextVar("asz_listings_held", default=None)


@contextlib.contextmanager
def listings_held() -> Iterator[None]:
    """Within the block, :func:`session_dirs` and :func:`asz_core.flow.chain.conversation_dirs` read each root once
    and give a copy of that listing each time after (:func:`held_listing`): for one command whose checks each list the
    root (``asz verify``: nine listings of its sessions and two of its chains, issue 22, session 40). Its checks then
    see the same sessions and chains, as they were at the first listing. Held in this thread's context only."""
    token = _HELD.set({})
    try:
        yield
    finally:
        _HELD.reset(token)


def held_listing(what: str, root: Path, listing: Callable[[], list[Path]]) -> list[Path]:
    """``listing()`` (a listing of ``root``, Paths under it), or within :func:`listings_held` a copy of the one made
    first there for ``what`` and ``root``."""
    held = _HELD.get()
    if held is None:
        return listing()
    key = (what, os.fspath(root))
    got = held.get(key)
    if got is None:
        got = held[key] = listing()
    return list(got)


def session_dirs(root: Path) -> list[Path]:
    """Session directories of a root, sorted by name; names starting with ``_`` or ``.`` are not sessions, nor those
    ``_erased.list`` names (``asz erase``: an erasure a kill stopped before it moved the directory reads as done).
    Within :func:`listings_held`, the root is read once."""
    root = Path(root)
    return held_listing("sessions", root, lambda: _session_dirs(root))


def _session_dirs(root: Path) -> list[Path]:
    """:func:`session_dirs`, read from the root."""
    from .erased_list import erased_names

    if not root.is_dir():
        return []
    gone = erased_names(root)
    # One scandir: an entry's type from the directory itself (a symbolic link is no session: never followed,
    # root_links names it), the names sorted as strings (what sorting sibling Paths does), a Path made for each
    # session only (issue 22: verify and every pass list the root; 143 sessions 3.3 ms -> 0.5 ms).
    names = []
    with os.scandir(root) as entries:
        for e in entries:
            name = e.name
            if name[:1] not in ("_", ".") and e.is_dir(follow_symlinks=False) and name not in gone:
                names.append(name)
    names.sort()
    return [root / name for name in names]


class SessionListing(NamedTuple):
    """What one listing of a session directory finds (origin-digest §2.1).

    ``files``: every landed ``.sd`` file (and ``.sk`` when asked) as
    ``(LandedName, path)``, ordered by seq, a landed file winning over its
    skeleton; ``dirs`` the directory of each of them, in the same order (one
    Path object per directory). Every path is a ``str`` instead when listed with ``strings``. ``cursors``: ``(directory, kind) -> cursor path`` for every
    ``<prefix>.cursor``. ``strays``: ``.sd`` / ``.sk`` files whose names are
    not ``<prefix>-<stamp>-<seq>``, which nothing reads. Names that start
    with a dot (a writer's temporary file, a lock) are left out.
    """

    files: list[tuple[LandedName, Path | str]]
    dirs: list[Path | str]
    cursors: dict[tuple[Path | str, str], Path | str]
    strays: list[Path | str]


def session_listing(session_dir: str | os.PathLike, *, skeletons: bool = False, strings: bool = False) -> SessionListing:
    """List a session's stream, run and provider_body directories once (see :class:`SessionListing`).

    A directory that is missing, or is a file, is taken as empty. With ``strings``, every path of the listing
    (files, dirs, cursor keys and values, strays) is a ``str`` (``os.path.join`` of ``session_dir`` and the names)
    instead of a :class:`Path`: what ``asz verify`` walks, without a Path object per file.
    """
    out: dict[tuple[int, str], tuple[LandedName, str, str, str]] = {}
    cursors: dict[tuple[str, str], str] = {}
    strays: list[str] = []
    sep, parse, prefix_kind = os.sep, parse_landed_name, PREFIX_KIND
    for d in holding_dirs(session_dir):
        try:
            entries = sorted((e.name, e.is_file()) for e in os.scandir(d))
        except (FileNotFoundError, NotADirectoryError):
            continue
        here = d + sep
        for name, is_file in entries:
            if name[0] == ".":
                continue
            ln = parse(name)
            if ln is None:
                if name.endswith(".cursor") and name[:-7] in prefix_kind:
                    cursors[(d, prefix_kind[name[:-7]])] = here + name
                elif name.endswith((".sd", ".sk")):
                    strays.append(here + name)
                continue
            if not is_file or (ln.ext == "sk" and not skeletons):
                continue
            key = (ln.seq, here + name[:-3])
            if key in out and out[key][0].ext == "sd":
                continue
            out[key] = (ln, here + name, d, name)
    found = [out[k] for k in sorted(out)]
    if strings:
        return SessionListing([(ln, path) for ln, path, _, _ in found], [here for _, _, here, _ in found], cursors, strays)
    as_path = {d: Path(d) for _, _, d, _ in found}
    as_path.update((d, Path(d)) for d, _ in cursors if d not in as_path)
    return SessionListing([(ln, as_path[here] / name) for ln, _, here, name in found],
                          [as_path[here] for _, _, here, _ in found],
                          {(as_path[d], kind): as_path[d] / os.path.basename(c) for (d, kind), c in cursors.items()},
                          [Path(p) for p in strays])


def holding_dirs(session_dir: str | os.PathLike) -> list[str]:
    """The directories of a session that can hold landed files and cursors, as strings: ``streams/<stream>`` and
    ``runs/<run>`` (each sorted by name) and ``provider_body`` (listed even when missing)."""
    return list(_holding_dirs(session_dir))


def _holding_dirs(session_dir: str | os.PathLike) -> Iterator[str]:
    """:func:`holding_dirs` one at a time: ``runs`` is read only once every stream was asked for.

    No symbolic link is entered (docs/storage-root.md, "No links"): a session folder, its ``streams``, ``runs`` or
    ``provider_body``, or a stream or run folder that is one holds nothing here (each opened with
    :data:`~asz_core.sessiondata.nolink.NOFOLLOW_DIR`, no extra system call per folder; :func:`session_links` names
    them for ``asz verify``). A session folder that is missing holds none either."""
    base = os.fspath(session_dir)
    try:
        top = os.open(base, NOFOLLOW_DIR)
    except OSError as exc:
        if exc.errno in _NOT_ENTERED:
            return
        raise
    try:
        if _is_link("index", top):  # a session whose index is a link holds nothing, as a linked session folder
            return
        for sub in ("streams", "runs"):
            try:
                fd = os.open(sub, NOFOLLOW_DIR, dir_fd=top)
            except OSError as exc:
                if exc.errno in _NOT_ENTERED:
                    continue
                raise
            try:
                with os.scandir(fd) as entries:
                    children = sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
            finally:
                os.close(fd)
            d = os.path.join(base, sub) + os.sep  # each child is d + name, as os.path.join makes it
            yield from (d + c for c in children)
        if not _is_link("provider_body", top):
            yield os.path.join(base, "provider_body")
    finally:
        os.close(top)


def _is_link(name: str, dir_fd: int) -> bool:
    """True when ``name`` in the folder open as ``dir_fd`` is a symbolic link (one ``fstatat``; missing: False)."""
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def refuse_linked_session(session_dir: str | os.PathLike) -> None:
    """Raise :class:`~asz_core.sessiondata.nolink.LinkRefused` when a session folder, or its ``index`` folder, is a
    symbolic link (``a symbolic link to T, not the session folder asz landed`` / ``the index folder asz landed``:
    the words ``asz collect`` says them in, :func:`session_links`); the one check of the session a writer makes
    before writing its index or rounds (``asz parse``; docs/storage-root.md, "No links"). Two ``lstat`` calls."""
    from ..sessiondata.nolink import LinkRefused

    base = os.fspath(session_dir)
    for path, what in ((base, "the session folder"), (os.path.join(base, "index"), "the index folder")):
        if os.path.islink(path):
            raise LinkRefused(path, f"{what} asz landed")


def open_index_file(session_dir: str | os.PathLike, name: str):
    """The session's ``index/<name>`` opened for reading (binary), through no symbolic link: a session folder, index
    folder or file that is one raises :class:`~asz_core.sessiondata.nolink.LinkRefused` (an OSError, as a missing one
    raises FileNotFoundError): what a reader of the index (the page's titles, search's gaps) opens it with."""
    from ..sessiondata.nolink import LinkRefused

    base = os.fspath(session_dir)
    refuse_linked_session(base)
    fd = os.open(os.path.join(base, "index"), NOFOLLOW_DIR)
    try:
        f = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkRefused(os.path.join(base, "index", name), "the index file asz wrote") from None
        raise
    finally:
        os.close(fd)
    return os.fdopen(f, "rb")


#: An ``errno`` of opening a folder a listing takes as holding nothing: missing, not a folder, a symbolic link.
_NOT_ENTERED = (errno.ENOENT, errno.ENOTDIR, errno.ELOOP)


def session_links(session_dir: str | os.PathLike, cursors: bool = True) -> list[tuple[str, str]]:
    """``(path, what)`` of each symbolic link in a session's layout that no listing enters (:func:`_holding_dirs`) or
    no reader opens: ``streams``, ``runs``, ``provider_body`` and ``index`` folders, a stream or run folder, a cursor
    (``what``: ``the streams folder``, ``the stream folder``, ``the cursor``…); the session folder itself when it is
    one (then nothing under it). For ``asz verify`` (its ``symbolic link`` problems) and a collect pass about to land
    into the session (``cursors`` False: its folders only, the cursors' reads refuse a link themselves); a landed file
    that is one is its reader's to refuse (:mod:`asz_core.sessiondata.nolink`)."""
    base = os.fspath(session_dir)
    if os.path.islink(base):
        return [(base, "the session folder")]
    found = [(p, f"the {os.path.basename(p)} folder") for p in links_among(base, _SESSION_FOLDERS)]
    for sub, what in (("streams", "the stream folder"), ("runs", "the run folder")):
        found += [(p, what) for p in links_among(os.path.join(base, sub))]
    for d in holding_dirs(base) if cursors else ():
        found += [(p, "the cursor") for p in links_among(d) if p.endswith(".cursor")]
    return found


#: The folders of a session folder (seed layout) :func:`session_links` looks at.
_SESSION_FOLDERS = ("streams", "runs", "provider_body", "index")


def root_links(root: str | os.PathLike) -> list[str]:
    """The paths of the root's entries in a session's place (a name not starting with ``_`` or ``.``) that are
    symbolic links, sorted: never listed as sessions (:func:`session_dirs`), named by ``asz verify``."""
    return [p for p in links_among(root) if os.path.basename(p)[:1] != "_"]


def highest_landed_seq(session_dir: str | os.PathLike) -> int:
    """The highest seq of any landed file (``.sd`` or skeleton ``.sk``) of a session; 0 when none.

    The same files :func:`session_listing` with ``skeletons=True`` lists (regular files whose names are
    ``<prefix>-<stamp>-<seq>``), without building its listing: a pass with nothing new asks this of every session.
    """
    return max(_landed_seqs(session_dir), default=0)


def holds_landed(session_dir: str | os.PathLike) -> bool:
    """True when the session holds a landed file (``.sd`` or skeleton ``.sk``, as :func:`highest_landed_seq` finds
    them): it stops at the first, so a session costs a few directory reads, not a listing of its files. False for a
    directory that is gone."""
    return any(True for _ in _landed_seqs(session_dir))


def _landed_seqs(session_dir: str | os.PathLike) -> Iterator[int]:
    """The seq of each landed file of a session, directory by directory (unordered)."""
    for d in _holding_dirs(session_dir):
        try:
            entries = os.scandir(d)
        except (FileNotFoundError, NotADirectoryError):
            continue
        with entries:
            for e in entries:
                m = _NAME_RE.match(e.name)
                if m is not None and m.group("prefix") in PREFIX_KIND and e.is_file():
                    yield int(m.group("seq"))


def cursor_files(session_dir: str | os.PathLike) -> list[Path]:
    """Every ``*.cursor`` entry of a session's stream, run and provider_body directories (a dot name too, as
    ``Path.glob`` finds it): directory by directory, each sorted by name."""
    return [Path(p) for p in cursor_paths(session_dir)]


def cursor_paths(session_dir: str | os.PathLike) -> list[str]:
    """:func:`cursor_files` as strings, no :class:`Path` made: a pass with nothing new asks this of every session."""
    out: list[str] = []
    for d in holding_dirs(session_dir):
        try:
            names = sorted(n for n in os.listdir(d) if n.endswith(".cursor"))
        except (FileNotFoundError, NotADirectoryError):
            continue
        out.extend(os.path.join(d, n) for n in names)
    return out


def landed_files(session_dir: Path, *, skeletons: bool = False) -> list[tuple[LandedName, Path]]:
    """Every landed ``.sd`` file of a session (and ``.sk`` when asked), ordered by seq.

    Where a landed file and its skeleton are both present, the landed file wins.
    """
    return session_listing(session_dir, skeletons=skeletons).files


def removed_count(session_dir: str | Path) -> int:
    """How many of a session's landed files retention replaced by their skeletons (``.sk`` with no ``.sd`` beside
    them; seed 000, Skeletons); 0 for a session that is not a directory."""
    d = Path(session_dir)
    return sum(1 for ln, _ in landed_files(d, skeletons=True) if ln.ext == "sk") if d.is_dir() else 0


def is_dir(path: str) -> bool:
    """``Path(path).is_dir()`` without making the Path: False for a path that is missing, not under a folder, a link
    to nothing or a loop, or not encodable (as pathlib says it); any other error raised, as pathlib raises it."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return False
        raise
    except ValueError:
        return False


def provider_files(session_dir: str | Path, upto_seq: int | None = None) -> list[tuple[int, Path]]:
    """The session's landed provider_body ``.sd`` files as ``(seq, path)`` in seq order, up to ``upto_seq``."""
    d = os.path.join(os.fspath(session_dir), "provider_body")
    out = []
    if is_dir(d) and not os.path.islink(d):  # no Path made for a session without one (issue 22, session 40); no link entered
        for f in Path(d).iterdir():
            ln = parse_landed_name(f.name)
            if ln is not None and ln.kind == "provider_body" and ln.ext == "sd" and (upto_seq is None or ln.seq <= upto_seq):
                out.append((ln.seq, f))
    out.sort()
    return out


#: What a session directory holds once anything has landed in it (origin-digest §2.1).
_SESSION_MARKS = ("streams", "runs", "provider_body", "session.state")


def refuse_what_is_no_root(root: Path, sessions: list[Path], session_command: str = "") -> None:
    """Raise FileNotFoundError when ``root`` holds directories but none is a session and nothing marks it a root.

    A session directory holds ``streams/``, ``runs/``, ``provider_body/`` or
    ``session.state``; a root that ``asz collect``, ``asz parse`` or ``asz receive`` used holds
    ``_collect/``, ``_conversations/`` or ``_received/`` (:data:`_ROOT_FOLDERS`). A session directory, or a Claude
    Code projects directory, given as the root would otherwise verify as
    sessions with nothing in them.
    """
    if not sessions:
        _refuse_files_only(root)
        return
    if any((root / d).is_dir() for d in _ROOT_FOLDERS):
        return
    if any((s / mark).exists() for s in sessions for mark in _SESSION_MARKS):
        return
    if any((root / mark).exists() for mark in _SESSION_MARKS):
        raise FileNotFoundError(f"{root}: not a storage root but a session directory in one: "
                                + (f"{session_command} {shell_word(root.name)} --root {shell_word(root.parent)}" if session_command else f"give --root {shell_word(root.parent)}"))
    names = ", ".join(s.name for s in sessions[:3]) + (", …" if len(sessions) > 3 else "")
    raise FileNotFoundError(f"{root}: not a storage root: none of its {len(sessions)} director{'y' if len(sessions) == 1 else 'ies'} "
                            f"({names}) holds streams/, runs/, provider_body/ or session.state; give the directory that "
                            f"holds the session directories")


#: Folders only a storage root holds: ``asz collect``'s, ``asz parse``'s, and ``asz receive``'s (made before a pushed
#: session's folder, which a reader may meet before anything has landed in it: review44).
_ROOT_FOLDERS = ("_collect", CONVERSATIONS, "_received")

#: Files a storage root holds beside its session directories (origin-digest §2.1: ``push.state``).
_ROOT_FILES = ("push.state",)


def _refuse_files_only(root: Path) -> None:
    """Raise FileNotFoundError when ``root`` holds no directory at all, only files none of which a root holds.

    An empty directory is an empty root; one that holds only other files (a
    transcript, notes) is a mistaken ``--root``, never a root with nothing landed.
    """
    try:
        entries = [e for e in os.scandir(root) if not e.name.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):
        return
    if not entries or any(e.name.startswith("_") or e.name in _ROOT_FILES or e.is_dir() for e in entries):
        return
    names = sorted(e.name for e in entries)
    shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
    raise FileNotFoundError(f"{root}: not a storage root: it holds {len(names)} file(s) ({shown}) and no session directory; "
                            f"give the directory that holds the session directories")


def require_storage_root(root: Path) -> None:
    """Raise FileNotFoundError unless ``root`` is a storage root a reader may use: a directory that is not
    a session directory and not a folder of other things (a Claude Code projects folder given as ``--root``).
    An empty directory is an empty root. Commands that write derived data under a root (the search index)
    call this first, so a mistaken ``--root`` never gains files."""
    if not root.is_dir():
        raise FileNotFoundError(f"no storage root at {root}")
    refuse_what_is_no_root(root, session_dirs(root))
