"""``asz repack DEST [SESSION]``: re-cut a root's landed files under the configured budget into a new root (origin-digest §2.6).

Each session's landed files are read in seq order; consecutive files of one
stream or run and kind are joined, and cut again so that a file's record
lines take at most ``max_delta_bytes`` (a single larger record goes alone).
Record lines are carried byte for byte and in order; headers are written
again with the new seq; file names keep the first source file's stamp.
Cursors are copied with ``last_seq`` moved to the new file that holds the
old file's last record; ``session.state`` gets the new ``next_seq``. Then
each session's index and every chain are built afresh in DEST (a parse), so
rows and seqs change and the structure does not. What was set aside
(``_set_aside/``, :mod:`asz_core.storage.aside`) is copied into DEST byte for
byte: it is evidence, and DEST replaces the root. A session holding
skeletons is not repacked (a skeleton cannot be re-cut); it is reported.

A root (or SESSION) that does not verify is not repacked at all: the
checks of ``asz verify`` (:func:`asz_core.verify.verify`) run first, and
any problem raises :class:`RepackRefused` before DEST is made. A repack
parses DEST afresh, so it would otherwise seal a changed landed file into a
new chain that verifies (trial 2, finding 1). DEST is verified the same way
once written (the repacked sessions), and a problem raises
:class:`RepackUnverified`: a repack never says it is done with a DEST that
does not verify.

A source read again from its start (``asz sources --reset-conflict --reread``,
the cursor's ``reread_seq``) holds two readings, each with ord from 1 and off
from 0; the first file of the new reading starts a new file in DEST too, and
the cursor's ``reread_seq`` moves to that file's seq, so verify walks each
reading on its own in DEST as in the root (trial 17, F15).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import attrs

from ..sessiondata import SDWriter, read_file
from ..storage.aside import SET_ASIDE
from ..storage.cursor import AppendCursor, read_cursor, rechecked
from ..storage.layout import CONVERSATIONS, cursor_path, landed_files, landed_name, session_dir, session_dirs
from ..storage.root import read_state, write_state
from ..storage.session_list import read_list, record_sessions
from ..storage.state_lines import state_rows

__all__ = ["RepackRefused", "RepackRow", "RepackUnverified", "repack"]


class RepackRefused(Exception):
    """The source does not verify: ``problems`` holds what ``asz verify`` found (:class:`asz_core.verify.report.Problem`)."""

    def __init__(self, root: Path, problems: list):
        self.root, self.problems = root, problems
        super().__init__(f"{root} does not verify ({len(problems)} problem(s)); nothing was written")


class RepackUnverified(Exception):
    """DEST was written but does not verify: ``problems`` holds what ``asz verify`` found in it, ``rows`` the
    repack's rows (:class:`RepackRow`). DEST is left as written, to be looked at; it must not replace the root."""

    def __init__(self, dest: Path, problems: list, rows: list):
        self.dest, self.problems, self.rows = dest, problems, rows
        super().__init__(f"{dest} was written but does not verify ({len(problems)} problem(s)); "
                         "keep the root as it is and do not use DEST in its place")


@attrs.define
class RepackRow:
    """One session: ``files_in``, ``files_out``, ``records`` and ``bytes`` (record bytes carried); ``problem`` when refused."""

    session: str
    files_in: int = 0
    files_out: int = 0
    records: int = 0
    bytes: int = 0
    problem: str = ""


def _record_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    return data.split(b"\n")[1:-2]


class _Out:
    """The file being filled: its group, header (of the first source), stamp and lines."""

    def __init__(self, group: tuple, header, stamp: str):
        self.group, self.header, self.stamp = group, header, stamp
        self.lines: list[bytes] = []
        self.size = 0


def _reread_seq(src: Path, group: tuple[str, str]) -> int:
    """The ``reread_seq`` of the cursor of ``group`` (folder relative to the session ``src``, kind): the first seq of
    the source's reading from its start (:mod:`asz_core.collect.reset`); 0 when it has none (or no append cursor)."""
    cur = read_cursor(cursor_path(src / group[0], group[1]))
    return cur.reread_seq if isinstance(cur, AppendCursor) else 0


def _repack_session(src: Path, dest: Path, budget: int) -> tuple[RepackRow, dict[int, int], dict[str, int]]:
    """Re-cut the session ``src`` into ``dest``: (its row, old seq → new seq of the file holding that old file's
    last record, cursor path relative to ``src`` → its new ``reread_seq``). A reading from the source's start
    (``reread_seq``) begins a file of its own, as verify walks it on its own (ord from 1, off from 0)."""
    row = RepackRow(src.name)
    files = landed_files(src, skeletons=True)
    if any(p.suffix == ".sk" for _, p in files):
        row.problem = "holds skeletons (removed files cannot be re-cut); not repacked"
        return row, {}, {}
    seq_map: dict[int, int] = {}
    rereads: dict[tuple, int] = {}  # group -> its cursor's reread_seq
    moved: dict[tuple, int] = {}  # group -> the new seq its re-read files start at
    out: _Out | None = None
    next_seq = 1

    def flush() -> None:
        nonlocal out, next_seq
        if out is None or not out.lines:
            return
        h = attrs.evolve(out.header, seq=next_seq)
        rel_dir = out.group[0]
        target_dir = dest / rel_dir
        target_dir.mkdir(parents=True, exist_ok=True)
        with SDWriter(target_dir / landed_name(h.kind, out.stamp, next_seq), h) as w:
            for line in out.lines:
                w.write_encoded(line)
            w.close()
        row.files_out += 1
        next_seq += 1
        out.lines, out.size = [], 0

    for ln, path in files:
        header, _, _ = read_file(path)
        group = (path.parent.relative_to(src).as_posix(), ln.kind)
        if group not in rereads:
            rereads[group] = _reread_seq(src, group)
        reread = rereads[group] and ln.seq >= rereads[group] and group not in moved
        if out is None or out.group != group or reread:
            flush()
            out = _Out(group, header, ln.stamp)
        if reread:
            moved[group] = next_seq
        row.files_in += 1
        for line in _record_lines(path):
            n = len(line) + 1
            if out.lines and out.size + n > budget:
                flush()
                out = _Out(group, header, ln.stamp)
            out.lines.append(line)
            out.size += n
            row.records += 1
            row.bytes += n
        seq_map[ln.seq] = next_seq  # the file that holds (so far) this source file's last record
    flush()
    # A re-read source with no file landed yet from its new reading: it lands after everything DEST holds.
    news = {cursor_path(Path(g[0]), g[1]).as_posix(): moved.get(g, next_seq) for g, r in rereads.items() if r}
    return row, seq_map, news


def moved_last_seq(path: Path, data: bytes, seq_map: dict[int, int], reread: int = 0) -> bytes:
    """A cursor's bytes (``data``, read from ``path``) with its ``last_seq`` value moved by ``seq_map`` (old seq →
    new) and, given ``reread`` (a seq), a ``reread_seq`` it holds set to it; every other byte kept, the key's padding
    and the line ends included. Raises ValueError naming the file, line and field for a cursor that does not read
    (:func:`~asz_core.storage.state_lines.state_rows`) or whose ``last_seq`` is not a seq (a root that verifies has
    neither)."""
    lines = data.split(b"\n")
    for n, key, value in state_rows(data, path):
        if key == "reread_seq" and reread and value.isdigit() and int(value):
            new = reread
        elif key != "last_seq":
            continue
        elif not value.isdigit():
            raise ValueError(f"{path}: line {n}: last_seq: expected an integer, got {value!r}")
        elif int(value) in seq_map:
            new = seq_map[int(value)]
        else:
            continue
        raw = lines[n - 1]
        at = raw.rindex(value.encode())
        lines[n - 1] = raw[:at] + str(new).encode() + raw[at + len(value):]
    return rechecked(data, b"\n".join(lines))  # an append cursor's check made again over the moved values


def _copy_cursors(src: Path, dest: Path, seq_map: dict[int, int], rereads: dict[str, int]) -> None:
    """Copy the session ``src``'s cursors and ``session.state`` into ``dest``, their seqs moved: ``last_seq`` by
    ``seq_map``, ``reread_seq`` to ``rereads`` (cursor path relative to ``src`` → new seq; one past DEST's files for
    a cursor not in it), ``next_seq`` one past DEST's files. Raises ValueError, OSError."""
    top = max(seq_map.values(), default=0)
    for cur in src.rglob("*.cursor"):
        rel = cur.relative_to(src)
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(moved_last_seq(cur, cur.read_bytes(), seq_map, rereads.get(rel.as_posix(), top + 1)))
    st = read_state(src / "session.state")
    if st:
        write_state(dest / "session.state", [(k, str(top + 1) if k == "next_seq" else v) for k, v in st.items()])


def _carry_set_aside(root: Path, dest: Path, session: str | None) -> None:
    """Copy ``<root>/_set_aside/`` into ``dest`` byte for byte, modes kept (:mod:`asz_core.storage.aside`): what a repair
    set aside is evidence, and DEST replaces the root. With ``session``, only what was set aside of it: its folder's
    files (``<stamp>/<session>/…``) and its chain (``<stamp>/_conversations/<session>``). Raises OSError."""
    src = root / SET_ASIDE
    if not src.is_dir():
        return
    for stamp in sorted(src.iterdir()):
        for top in ([stamp] if session is None else [stamp / session, stamp / CONVERSATIONS / session]):
            if top.is_dir():
                shutil.copytree(top, dest / top.relative_to(root), symlinks=True, dirs_exist_ok=True)
            elif top.exists() or top.is_symlink():
                (dest / top.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(top, dest / top.relative_to(root), follow_symlinks=False)


def repack(root: str | os.PathLike, dest: str | os.PathLike, session: str | None = None, *, budget: int,
           max_round_bytes: int | None = None) -> list[RepackRow]:
    """Re-cut ``root`` (or one ``session``) into ``dest``, which must be missing or empty; returns one row per session.

    Raises ValueError when ``dest`` holds anything or ``session`` is not in
    the root, FileNotFoundError when ``root`` is no storage root (an empty
    folder, a projects folder: :func:`asz_core.verify.walk.verify_root`), and
    :class:`RepackRefused` when the root (or ``session``) does not verify; each
    before anything is written. Index and chains are built
    in ``dest`` by a parse afterwards; then ``dest`` (or ``session`` in it) is
    verified, and :class:`RepackUnverified` raised when it does not verify.
    """
    from ..flow.parse import parse_root
    from ..verify import verify

    root, dest = Path(root), Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ValueError(f"{dest}: DEST must be a new or empty directory")
    sessions = session_dirs(root)
    if session is not None:
        sessions = [s for s in sessions if s.name == session_dir(root, session).name]
        if not sessions:
            raise ValueError(f"{session}: no such session in {root}")
    report = verify(root, session)  # the same checks as asz verify: a repack must not launder a changed file
    if not report.ok:
        raise RepackRefused(root, report.problems)
    dest.mkdir(parents=True, exist_ok=True)
    rows = []
    for sdir in sessions:
        row, seq_map, rereads = _repack_session(sdir, dest / sdir.name, budget)
        if not row.problem:
            _copy_cursors(sdir, dest / sdir.name, seq_map, rereads)
        rows.append(row)
    _carry_set_aside(root, dest, session and sessions[0].name)
    # DEST's list of landed sessions: each session it holds, with the time and adapter the root's list gave it
    record_sessions(dest, [sdir.name for sdir in sessions], given=read_list(root))
    table = root / "_provider" / "seen.state"
    if table.is_file() and session is None:
        (dest / "_provider").mkdir(exist_ok=True)
        shutil.copy2(table, dest / "_provider" / "seen.state")
    kwargs = {"max_round_bytes": max_round_bytes} if max_round_bytes else {}
    parse_root(dest, **kwargs)
    # DEST is checked as asz verify would before the repack says it is done (trial 17, F15: a re-read source once
    # joined its two readings into one file, and DEST failed verify after a repack that said nothing).
    after = verify(dest, session and sessions[0].name)
    if not after.ok:
        raise RepackUnverified(dest, after.problems, rows)
    return rows

