"""The turn a rollout line sits in: the model and working directory of the last ``turn_context`` line before it.

Codex names the model once a turn, on the turn's ``turn_context`` line, and on no line of the requests that follow
(their ``token_count`` lines, the model's messages, reasoning and tool calls). The readers price a call by the
``model`` of its own records (docs/adapters.md, A Record's fields), so :func:`convert_line` puts the turn's model on
them; a call whose records name none is ``(no model)``: ``models not recorded by the runtime``, unpriced (trial 46b F5).

``convert_line`` is handed one line, its ``Source`` and its byte offset ``off``; the public API keeps no state between
lines, and a pass may convert a file from the middle (a later pass goes on at its cursor, in another process when
``sessions_in_parallel``). An append source never changes the bytes before a line, so the turn a line sits in is read
from the file itself: backward from ``off`` to the nearest ``turn_context`` line. The answer is the same whenever the
line is converted. :data:`TURNS` remembers, per file, the turn open at the end of the last line converted, so a file
converted in order is read once; a line converted out of order, or after a restart, reads the file backward. A line
converted without its file (no ``path``, the bytes before ``off`` not a line end there) sits in no known turn.
"""

from __future__ import annotations

import os
from pathlib import Path

from asz_core import json_loads, past_bom

__all__ = ["Turn", "NO_TURN", "turn_of", "TURNS", "Turns"]

_BLOCK = 1 << 16
_REMEMBERED = 1024

#: ``(model, cwd)`` of a ``turn_context`` line.
Turn = tuple[str, str]
NO_TURN: Turn = ("", "")


def turn_of(obj: object) -> Turn | None:
    """``(model, cwd)`` a decoded rollout line sets, when it is a ``turn_context`` line ('' for what it does not
    name); None for any other line."""
    if not isinstance(obj, dict) or obj.get("type") != "turn_context" or not isinstance(obj.get("payload"), dict):
        return None
    p = obj["payload"]
    return tuple(v if isinstance(v := p.get(k), str) else "" for k in ("model", "cwd"))  # type: ignore[return-value]


def _scan_back(path: Path, off: int) -> Turn:
    """The turn of the last ``turn_context`` line ending before byte ``off`` of ``path``; :data:`NO_TURN` when none,
    or when ``off - 1`` is not a newline."""
    with open(path, "rb") as f:
        f.seek(off - 1)
        if f.read(1) != b"\n":
            return NO_TURN
        start, buf = off - 1, b""  # buf: the bytes [start, off - 1), the lines not read yet
        while True:
            while (i := buf.rfind(b"\n")) >= 0 or (start == 0 and buf):
                line, buf = (buf[i + 1:], buf[:i]) if i >= 0 else (buf, b"")
                if b'"turn_context"' in line:
                    try:
                        got = turn_of(json_loads(past_bom(line)[0]))  # a turn_context line may open with a mark too
                    except ValueError:
                        got = None
                    if got is not None:
                        return got
            if start == 0:
                return NO_TURN
            n = min(_BLOCK, start)
            start -= n
            f.seek(start)
            buf = f.read(n) + buf


class Turns:
    """The turn open at the end of the last line converted, per file: keyed by path, checked against its device,
    inode and offset (a file replaced, or a line converted out of order, is read backward instead)."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[tuple[int, int, int], Turn]] = {}

    def before(self, path: Path | None, off: int) -> Turn:
        """The turn a line at byte ``off`` of ``path`` sits in. Never raises."""
        at = _place(path, off) if off > 0 else None
        if at is None:
            return NO_TURN
        hit = self._open.get(str(path))
        if hit is not None and hit[0] == at[0]:
            return hit[1]
        try:
            return _scan_back(Path(path), off) if at[1] >= off else NO_TURN  # type: ignore[arg-type]
        except OSError:
            return NO_TURN

    def after(self, path: Path | None, next_off: int, turn: Turn) -> None:
        """Remember that ``turn`` is open at byte ``next_off`` of ``path`` (after a line and its newline)."""
        at = _place(path, next_off)
        if at is not None:
            if len(self._open) >= _REMEMBERED:
                self._open.pop(next(iter(self._open)))
            self._open[str(path)] = (at[0], turn)


def _place(path: Path | None, off: int) -> tuple[tuple[int, int, int], int] | None:
    """``((device, inode, off), size)`` of the file at ``path``; None without a path or a file to stat."""
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        return None
    return None if st is None else ((st.st_dev, st.st_ino, off), st.st_size)


#: The memory :func:`asz_adapter_example.convert.convert_line` uses.
TURNS = Turns()
