"""A session's own state files that do not read: ``session.state`` and ``index/entries.jsonl`` (with ``index.state``).

Neither is evidence: ``session.state`` is a cache of the next seq (the files on disk decide it), and the session
index is derived data a parse rebuilds from the landed files (storage-root.md). Readers take their figures from the
round chains, so neither file changes a number ``asz ls``, ``asz usage`` or the page shows. But one that does not
read (not UTF-8 or not JSON, cut short, a directory or a file without read permission in its place) makes the
collect and parse that need it fail or rebuild, and then a conversation's newest records may not reach its chain:
so ``asz verify`` warns of it naming the file and the line (:func:`session_file_warnings`), and the readers say so
in one line per file (:func:`session_file_lines`). Neither fails a run: the landed files are whole either way.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from ..sessiondata.compiled import load_compiled
from ..storage.layout import session_dirs
from ..storage.state_lines import parse_state
from .report import Problem

__all__ = ["UNREADABLE_STATE", "session_file_problems", "session_file_warnings", "session_file_lines"]

#: ``asz_core.storage.root.SESSION_STATE`` and ``asz_core.flow.index.index_dir``, named here so that ``asz view`` can
#: check them before it answers without loading the Session Data codec those modules import.
SESSION_STATE = "session.state"
INDEX_DIR = "index"

#: The warning's name (``warning: <file>:<line>: unreadable state file: …``).
UNREADABLE_STATE = "unreadable state file"

#: The optional compiled :mod:`asz_core.verify.jsonscan` (None where it was not built): the index's lines it vouches for
#: are not read by orjson (issue 22: 0.08 s of CPU a 25 MB index); its rules are in ``jsonscan.c``'s head.
jsonscan = load_compiled("asz_core.verify.jsonscan")

_WHAT = {SESSION_STATE: "the session's cache of its next seq, never trusted over the landed files; remove it if a "
                        "collect pass of this session fails on it",
         "entries.jsonl": "the session index; parse cannot extend it, so new landed files may not reach the "
                          "conversation's chain: delete the session's index/ directory and run asz parse to rebuild it",
         "index.state": "the session index's state; delete the session's index/ directory and run asz parse to rebuild it"}
#: Ends the reason of an ``entries.jsonl`` with no ``index.state`` (:func:`_stateless`), which :data:`_STATELESS` explains.
_NO_STATE = "; no index.state names it"
_STATELESS = ("a session index whose write did not finish: a full disk refused it or a kill stopped it, under an asz "
              "that wrote it in place; no figure comes from it, and the next asz parse of the session rebuilds it from "
              "the landed files")


def _read(path: str) -> tuple[bytes | None, str]:
    try:
        with open(path, "rb") as f:
            return f.read(), ""
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"


def session_file_problems(sdir: Path, marked: dict[str, bool] | None = None) -> list[tuple[Path, int, str]]:
    """``(file, line, what is wrong)`` for each of ``sdir``'s ``session.state``, ``index/index.state`` and
    ``index/entries.jsonl`` (its lines up to ``entries_bytes``) that is there and does not read; line 0 for the
    file as a whole. ``marked``, when given, receives for ``str(sdir)`` whether the index's bytes (read whole) hold
    :data:`asz_core.verify.untimed.MARK` (True too for an index an older asz began, whose state lacks
    :data:`~asz_core.sessiondata.untimed.UNTIMED_MARKED`), for the ``untimed`` check after it. The paths are joined as strings, a
    :class:`~pathlib.Path` made only for a file named (issue 22: four a session were a sixth of this check's CPU)."""
    out: list[tuple[Path, int, str]] = []
    base = os.fspath(sdir)
    st = os.path.join(base, SESSION_STATE)
    if os.path.lexists(st):
        data, why = _read(st)
        values, line, why, rows = parse_state(data) if data is not None else ({}, 0, why, {})
        if not why and "next_seq" in values and not values["next_seq"].isdigit():
            line, why = rows["next_seq"], f"next_seq: expected a whole number, got {values['next_seq'][:20]!r}"
        if why:
            out.append((Path(st), line, why))
    d = os.path.join(base, INDEX_DIR)
    state, entries = os.path.join(d, "index.state"), os.path.join(d, "entries.jsonl")
    if not os.path.lexists(state):
        return out + _stateless(entries)
    data, why = _read(state)
    values, line, why, _ = parse_state(data) if data is not None else ({}, 0, why, {})
    if why or not values.get("entries_bytes", "").isdigit():
        return out + [(Path(state), line, why or "entries_bytes: missing or not a whole number")]
    want = int(values["entries_bytes"])
    data, why = _read(entries) if os.path.lexists(entries) or want else (b"", "")
    if data is None:
        return out + [(Path(entries), 0, why)]
    if marked is not None:  # loaded here: asz view checks these files before it loads the Session Data modules
        from ..sessiondata.untimed import UNTIMED_MARKED
        from .untimed import MARK
    if len(data) < want:
        if marked is not None:
            marked[base] = MARK in data or values.get(UNTIMED_MARKED) != "1"
        return out + [(Path(entries), data.count(b"\n") + 1, f"cut short: index.state says {want} bytes, the file holds {len(data)}")]
    # the lines the compiled scan vouches for (orjson reads each as an object with an int seq) are not read again;
    # whether they hold the untimed mark is told by the same pass (index_lines_marked), the rest searched here
    if jsonscan is None:
        first = 1
    elif marked is None:
        first = jsonscan.index_lines(data, want)
    else:
        first, seen = jsonscan.index_lines_marked(data, want)
        marked[base] = seen or (data.find(MARK, want) >= 0 if first is None else MARK in data)
    if marked is not None and base not in marked:
        marked[base] = MARK in data
    if marked is not None and values.get(UNTIMED_MARKED) != "1":
        marked[base] = True  # an older asz's index: its lines are read again whatever they hold (verify/untimed.py)
    return out if first is None else out + _odd_line(entries, data[:want], first)


def _odd_line(entries: str, data: bytes, first: int = 1) -> list[tuple[Path, int, str]]:
    """The first of ``data``'s lines (from line ``first``) that is not a landed file's index line (a JSON object with
    a whole-number ``seq``), as ``[(entries, line, why)]``; [] when every one is."""
    for n, raw in enumerate(data.split(b"\n"), 1):
        if not raw or n < first:
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            return [(Path(entries), n, f"does not read as JSON: {exc}")]
        if not isinstance(obj, dict) or type(obj.get("seq")) is not int:
            return [(Path(entries), n, "not a landed file's index line (no whole-number seq)")]
    return []


def _stateless(entries: str) -> list[tuple[Path, int, str]]:
    """An ``entries.jsonl`` no ``index.state`` names, when it does not read whole: cut short (its last line has no
    newline) or a line that is not a landed file's. asz writes a whole index through a temporary and its state after
    it (:mod:`asz_core.flow.index`), so a whole file with no state is one whose state was not written yet (a kill);
    a cut one was left by an asz before session 42, whose write a full disk refused or a kill stopped (fix41k). The
    next parse rebuilds either from the landed files; the warning says what is there meanwhile."""
    if not os.path.lexists(entries):
        return []
    data, why = _read(entries)
    if data is None:
        return [(Path(entries), 0, why)]
    if data and not data.endswith(b"\n"):
        return [(Path(entries), data.count(b"\n") + 1, f"cut short: its last line has no newline ({len(data)} bytes)"
                 + _NO_STATE)]
    return [(path, line, why + _NO_STATE) for path, line, why in _odd_line(entries, data)]


def _sessions(root: Path, session: str | None) -> list[Path]:
    return [root / session] if session is not None else session_dirs(root)


def session_file_warnings(root: str | os.PathLike, shown_root: str, session: str | None = None,
                          marked: dict[str, bool] | None = None, found: dict[str, list] | None = None) -> list[Problem]:
    """The :data:`UNREADABLE_STATE` warnings of ``root`` (or of ``session`` alone), files shown under ``shown_root``;
    ``marked``: as :func:`session_file_problems` takes it; ``found``: :func:`session_file_problems` of some sessions
    already run (by ``asz verify``'s worker processes), by the session folder's path as ``str``, taken from it instead
    of reading their files again."""
    root = Path(root)
    out = []
    for sdir in _sessions(root, session):
        got = found.pop(os.fspath(sdir), None) if found else None
        for path, line, why in session_file_problems(sdir, marked) if got is None else got:
            shown = os.path.join(shown_root, os.path.relpath(path, root))
            what = _STATELESS if why.endswith(_NO_STATE) else _WHAT[path.name]
            out.append(Problem(shown, line, "", UNREADABLE_STATE, f"{why} ({what})"))
    return out


def session_file_lines(root: str | os.PathLike, sessions: set[str] | None = None) -> list[str]:
    """One ``warning:`` line per state file of ``root``'s sessions (only ``sessions`` when given) that does not read,
    for a reader (asz ls, asz usage, asz view) to print on stderr."""
    root = Path(root)
    return [f"warning: {w}" for w in session_file_warnings(root, str(root))
            if sessions is None or Path(os.path.relpath(w.file, str(root))).parts[0] in sessions]
