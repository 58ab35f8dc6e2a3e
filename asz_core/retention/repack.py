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
new chain that verifies (trial 2, finding 1).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import attrs

from ..sessiondata import SDWriter, read_file
from ..storage.aside import SET_ASIDE
from ..storage.layout import CONVERSATIONS, landed_files, landed_name, session_dir, session_dirs
from ..storage.root import read_state, write_state
from ..storage.session_list import read_list, record_sessions
from ..storage.state_lines import state_rows

__all__ = ["RepackRefused", "RepackRow", "repack"]


class RepackRefused(Exception):
    """The source does not verify: ``problems`` holds what ``asz verify`` found (:class:`asz_core.verify.report.Problem`)."""

    def __init__(self, root: Path, problems: list):
        self.root, self.problems = root, problems
        super().__init__(f"{root} does not verify ({len(problems)} problem(s)); nothing was written")


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


def _repack_session(src: Path, dest: Path, budget: int) -> tuple[RepackRow, dict[int, int]]:
    row = RepackRow(src.name)
    files = landed_files(src, skeletons=True)
    if any(p.suffix == ".sk" for _, p in files):
        row.problem = "holds skeletons (removed files cannot be re-cut); not repacked"
        return row, {}
    seq_map: dict[int, int] = {}
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
        if out is None or out.group != group:
            flush()
            out = _Out(group, header, ln.stamp)
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
    return row, seq_map


def moved_last_seq(path: Path, data: bytes, seq_map: dict[int, int]) -> bytes:
    """A cursor's bytes (``data``, read from ``path``) with its ``last_seq`` value moved by ``seq_map`` (old seq →
    new); every other byte kept, the key's padding and the line ends included. Raises ValueError naming the file,
    line and field for a cursor that does not read (:func:`~asz_core.storage.state_lines.state_rows`) or whose
    ``last_seq`` is not a seq (a root that verifies has neither)."""
    lines = data.split(b"\n")
    for n, key, value in state_rows(data, path):
        if key != "last_seq":
            continue
        if not value.isdigit():
            raise ValueError(f"{path}: line {n}: last_seq: expected an integer, got {value!r}")
        if int(value) in seq_map:
            raw = lines[n - 1]
            at = raw.rindex(value.encode())
            lines[n - 1] = raw[:at] + str(seq_map[int(value)]).encode() + raw[at + len(value):]
    return b"\n".join(lines)


def _copy_cursors(src: Path, dest: Path, seq_map: dict[int, int]) -> None:
    for cur in src.rglob("*.cursor"):
        rel = cur.relative_to(src)
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(moved_last_seq(cur, cur.read_bytes(), seq_map))
    st = read_state(src / "session.state")
    if st:
        top = max(seq_map.values(), default=0)
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
    in ``dest`` by a parse afterwards.
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
        row, seq_map = _repack_session(sdir, dest / sdir.name, budget)
        if not row.problem:
            _copy_cursors(sdir, dest / sdir.name, seq_map)
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
    return rows

