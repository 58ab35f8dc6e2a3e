"""What changed in a source found rewritten or cut shorter, said in lines, not only in bytes (trial 34a F1).

A conflict's reason says where the source stopped holding what landed (``rewritten: the N bytes before offset O
changed``, ``truncated: the source has N bytes, O already landed``). A person wants to know what happened to the
file: a line put in (an IDE that rewrites its session file), a line taken out, one line edited, or the file cut
short. The landed records say what each landed line was (seed 000, Record: ``ord``, ``off``, ``bytes``, ``sha``, the
first 12 hex characters of the SHA-256 of its bytes), so comparing them with the source's lines now tells it:

- the first landed line (in ``ord`` order) whose bytes the source no longer holds at that line is where it changed;
- when the source's next line(s) are that landed line, lines were inserted there (``2 line(s) inserted at line 11``);
- when that source line is a later landed line, landed lines were removed (``1 landed line(s) removed at line 11``);
- otherwise the line itself was changed (``line 11 changed``);
- a source whose lines are the landed ones but for the CR before each newline was converted (``the same lines, only
  their line endings differ (CRLF in what landed, LF in the source now: …)``; trial 36c F6);
- a source that holds every landed line it still has and ends before the last is shorter
  (``the file is shorter: it ends after line 14 of the 67 lines that landed``).

Read only when a conflict is found (once per source: a conflict is sticky), of the reading the cursor follows (the
files of the cursor's stream and kind from its ``reread_seq`` on, when set). Never raises: '' when it cannot tell.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import orjson

from ..storage.cursor import AppendCursor
from ..storage.layout import parse_landed_name

__all__ = ["endings_only", "what_changed", "only_landed_lines"]

#: The most lines looked ahead for an insertion or a removal.
LOOK_AHEAD = 64
#: The most source bytes read to tell it (a conflict over a bigger file says its bytes only).
MAX_READ = 256 << 20


def _landed_lines(kind_dir: Path, kind: str, from_seq: int) -> list[tuple[int, int, int, str]]:
    """``(ord, off, bytes, sha)`` of every record landed in ``kind_dir`` of ``kind`` from seq ``from_seq`` on, in
    ``ord`` order; [] when a file does not read."""
    out: list[tuple[int, int, int, str]] = []
    names = sorted((ln.seq, name) for name in os.listdir(kind_dir)
                   if (ln := parse_landed_name(name)) is not None and ln.kind == kind and ln.ext == "sd" and ln.seq >= from_seq)
    for _, name in names:
        lines = (kind_dir / name).read_bytes().rstrip(b"\n").split(b"\n")
        for raw in lines[1:-1]:  # header and closing line left out
            rec = orjson.loads(raw)
            out.append((rec["ord"], rec["off"], rec["bytes"], rec["sha"]))
    out.sort()
    return out


def _source_lines(path: str | os.PathLike, upto: int) -> list[bytes]:
    """Each complete line (without its ``\\n``) among the source's first ``upto`` bytes (and the one line running past)."""
    with open(path, "rb") as f:
        data = f.read(upto)
    return data.split(b"\n")[:-1]  # the last piece has no newline yet


def _sha(line: bytes) -> str:
    """A record's ``sha`` of a line's bytes: the first 12 hex characters of their SHA-256."""
    return hashlib.sha256(line).hexdigest()[:12]


def endings_only(shas: list[str], lines: list[bytes]) -> str:
    """``CRLF in what landed, LF in the source now`` (or the other way) when every landed line the source still has
    differs from it at most by the CR before its newline, and some do (trial 36c F6: a copy made again through git's
    ``core.autocrlf``, ``dos2unix`` or an editor that converts line endings); '' otherwise."""
    crlf = lf = 0
    for sha, line in zip(shas, lines):
        if sha == _sha(line):
            continue
        if sha == _sha(line + b"\r"):
            crlf += 1
        elif line.endswith(b"\r") and sha == _sha(line[:-1]):
            lf += 1
        else:
            return ""
    if crlf and not lf:
        return "CRLF in what landed, LF in the source now"
    return "LF in what landed, CRLF in the source now" if lf and not crlf else ""


def what_changed(path: str | os.PathLike, kind_dir: Path, kind: str, cur: AppendCursor) -> str:
    """What changed in the source at ``path`` against the lines landed from it (module docstring), as a phrase:
    ``a line inserted at line 11``, ``2 line(s) inserted at line 11``, ``1 landed line(s) removed at line 11``,
    ``line 11 changed``, ``the file is shorter: it ends after line 14 of the 67 lines that landed``, ``the same lines,
    only their line endings differ (CRLF in what landed, LF in the source now: …)`` (:func:`endings_only`); '' when the
    landed lines or the source cannot be read, or nothing of the landed lines differs."""
    try:
        landed = _landed_lines(kind_dir, kind, cur.reread_seq or 0)
        if not landed or cur.offset > MAX_READ:
            return ""
        lines = _source_lines(path, min(MAX_READ, cur.offset + (1 << 20)))
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    shas = [sha for _, _, _, sha in landed]
    if ends := endings_only(shas, lines):  # the one fact a Windows user needs (trial 36c F6)
        return (f"the same lines, only their line endings differ ({ends}: converted by git's core.autocrlf, dos2unix or "
                "an editor); copy the file again as it was written, byte for byte")
    src = [_sha(x) for x in lines]
    for i, sha in enumerate(shas):
        line = landed[i][0]
        if i >= len(src):
            return f"the file is shorter: it ends after line {i:,} of the {len(shas):,} lines that landed"
        if src[i] == sha:
            continue
        for k in range(1, LOOK_AHEAD + 1):
            if i + k < len(src) and src[i + k] == sha:
                return "a line inserted at line {:,}".format(line) if k == 1 else f"{k} lines inserted at line {line:,}"
            if i + k < len(shas) and shas[i + k] == src[i]:
                return f"{k} landed line{'s' if k > 1 else ''} removed at line {line:,}"
        return f"line {line:,} changed"
    return ""


def only_landed_lines(path: str | os.PathLike, cursor_file: str | os.PathLike, cur: AppendCursor) -> bool:
    """True when the source at ``path``, shorter than the ``cur.offset`` bytes that landed (``cursor_file``: the
    cursor's file, beside the landed files of its kind), holds landed lines alone: it ends with a newline, and each of
    its lines is the landed line at its place (its ``sha``), so no line of it is left out of a figure (trial 50d F2: a
    transcript cut to 60 of its 111 landed lines made ``asz ls`` and ``asz usage`` exit 1 saying the lines it holds past
    what landed are in no figure). False when it holds another line, ends inside a line (what follows the last newline
    cannot be told from a landed line's start), is not shorter, or cannot be read. Never raises."""
    from ..storage.layout import PREFIX_KIND

    try:
        kind = PREFIX_KIND.get(Path(cursor_file).name.removesuffix(".cursor"))
        size = os.stat(path).st_size
        if kind is None or not 0 < size < cur.offset or size > MAX_READ:
            return False
        landed = _landed_lines(Path(cursor_file).parent, kind, cur.reread_seq or 0)
        with open(path, "rb") as f:
            data = f.read(size)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if not data.endswith(b"\n"):
        return False
    lines = data[:-1].split(b"\n")
    return len(lines) <= len(landed) and all(_sha(x) == landed[i][3] for i, x in enumerate(lines))
