"""Which prompt a Kiro CLI transcript line answers: the run of 3.x and 2.x lines (``docs/adapters/kiro.md``, Runs).

Kiro writes a turn as consecutive lines of one append-only transcript, and
writes on no line but the prompt an id naming the prompt:

* 3.x ``messages.jsonl``: a ``user`` line whose ``source`` is not ``hook``
  opens a turn; ``turn_start`` … ``turn_end`` follow it, and the ``turn_end``
  line is the last line of the turn. The ``user`` line carries no
  ``executionId``, and the ``turn_end`` names a different ``executionId``
  from the ``turn_start``, so no id the lines carry joins a turn.
* 2.x ``<id>.jsonl``: a ``Prompt`` entry opens a turn that lasts until the
  next ``Prompt`` (2.x writes no turn end in its log).

So the run of a line is the id of the prompt line that opened the turn it
sits in (:func:`turn_edge` says what a line does to the turn).

Model requests (3.x) follow the same way, by :func:`request_edge`: Kiro
writes no request id, and a model request is answered by the runtime
executing its tool calls and handing the results back. So a request is a
stretch of the model's lines (``assistant``, ``tool_call``,
``sub_agent_start``) with no result or prompt between them (``tool_result``,
``sub_agent_complete``, ``user``, ``turn_start``, ``turn_end``,
``tombstone``); approvals and ``session_metadata`` lines neither open nor
close one. Its ``call`` is the id of its first line. The state a line sees
is therefore a pair ``(prompt id, open request id)``. Working that
out needs the lines before it: :class:`TurnTracker` remembers, per source
file, the turn open after the last line converted, and otherwise reads the
file backward from the line's offset until it meets a prompt or a turn end.
The answer depends only on the source's bytes before the line, which an
append source never changes, so it is the same whenever the line is
converted. A line converted without its file (no ``path``, or the bytes
before ``off`` are not a line end in that file) has no known turn.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterator

from .spans import parse

__all__ = ["OPENS", "CLOSES", "MODEL", "HANDBACK", "turn_edge", "request_edge", "TurnTracker", "TRACKER"]

#: :func:`turn_edge` when the line opens a turn.
OPENS = "opens"
#: :func:`turn_edge` when the line is the last line of a turn.
CLOSES = "closes"

#: :func:`request_edge` of a line the model wrote (a request's text, tool call or sub-agent call).
MODEL = "model"
#: :func:`request_edge` of a line that ends the open request: a result handed back, a prompt, a turn edge, a reset.
HANDBACK = "handback"
_MODEL_TYPES = frozenset({"assistant", "tool_call", "sub_agent_start"})
_HANDBACK_TYPES = frozenset({"tool_result", "sub_agent_complete", "user", "turn_start", "turn_end", "tombstone"})

_BLOCK = 1 << 16
_REMEMBERED = 4096


def turn_edge(value: Any) -> tuple[str, str]:
    """What a decoded transcript line does to the turn: ``(OPENS, prompt id)``, ``(CLOSES, "")`` or ``("", "")``.

    Opens: a 3.x line whose ``payload.type`` is ``user`` and whose
    ``payload.source`` is not ``hook`` (the same rule that sets
    ``external_input``), its top-level ``id``; a 2.x entry of ``kind``
    ``Prompt``, its ``data.message_id``. The id is '' when the line has none
    (the turn then has no run id). Closes: a 3.x ``turn_end`` line. Never raises.
    """
    if not isinstance(value, dict):
        return "", ""
    p = value.get("payload")
    if isinstance(p, dict):
        t = p.get("type")
        if t == "user" and p.get("source") != "hook":
            pid = value.get("id")
            return OPENS, pid if isinstance(pid, str) else ""
        if t == "turn_end":
            return CLOSES, ""
        return "", ""
    if value.get("kind") == "Prompt" and "data" in value:
        d = value.get("data")
        mid = d.get("message_id") if isinstance(d, dict) else None
        return OPENS, mid if isinstance(mid, str) else ""
    return "", ""


def request_edge(value: Any) -> tuple[str, str]:
    """What a decoded 3.x line does to the open model request: ``(MODEL, line id)``, ``(HANDBACK, "")`` or ``("", "")``.

    2.x entries and lines of other types give ``("", "")`` (a 2.x
    ``AssistantMessage`` is one request by itself). Never raises.
    """
    p = value.get("payload") if isinstance(value, dict) else None
    if not isinstance(p, dict):
        return "", ""
    t = p.get("type")
    if t in _MODEL_TYPES:
        lid = value.get("id")
        return MODEL, lid if isinstance(lid, str) else ""
    if t in _HANDBACK_TYPES:
        return HANDBACK, ""
    return "", ""


def _lines_back(f, off: int) -> Iterator[bytes]:
    """The lines of binary file ``f`` that end before byte ``off``, last first (``off - 1`` is a newline)."""
    start = off - 1  # buf holds the bytes [start, end) before the newline at end
    buf = b""
    while True:
        while True:
            i = buf.rfind(b"\n")
            if i < 0:
                break
            yield buf[i + 1:]
            buf = buf[:i]
        if start == 0:
            yield buf
            return
        n = min(_BLOCK, start)
        start -= n
        f.seek(start)
        buf = f.read(n) + buf


def _scan_back(path: Path, off: int) -> tuple[str, str]:
    """``(prompt id, open request id)`` at byte ``off`` of ``path``: lines read backward from ``off`` until a
    prompt (its id) or a turn end ('') or the start of the file (''); the open request is the first of the
    model's lines met before any hand-back. ``("", "")`` when ``off - 1`` is not a newline."""
    with open(path, "rb") as f:
        f.seek(off - 1)
        if f.read(1) != b"\n":
            return "", ""
        request, settled = "", False
        for raw in _lines_back(f, off):
            value, reason = parse(raw)
            if reason:
                continue
            if not settled:
                kind, lid = request_edge(value)
                if kind == MODEL:
                    request = lid
                elif kind == HANDBACK:
                    settled = True
            edge, pid = turn_edge(value)
            if edge:
                return pid, request
        return "", request


class TurnTracker:
    """The turn open before each line of a transcript file, remembered between lines.

    :meth:`before` gives ``(prompt id, open request id)`` at a line's offset
    ('' when none), :meth:`after` records what the line left open. Entries are
    keyed by the file's path and checked against its device, inode and the
    offset, so a line converted out of order, or after a restart, reads the
    file backward instead. At most 4096 files are remembered. Thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: OrderedDict[str, tuple[int, int, int, tuple[str, str]]] = OrderedDict()

    def before(self, path: Path | None, off: int) -> tuple[str, str]:
        """``(prompt id, open request id)`` just before the line at byte ``off`` of ``path``; ``("", "")`` when
        ``off`` is 0, and when the file cannot be read or holds no line end before ``off``."""
        if path is None or off <= 0:
            return "", ""
        try:
            st = os.stat(path)
            key = str(path)
            with self._lock:
                hit = self._open.get(key)
            if hit is not None and hit[:3] == (st.st_dev, st.st_ino, off):
                return hit[3]
            if st.st_size < off:
                return "", ""
            return _scan_back(Path(path), off)
        except OSError:
            return "", ""

    def after(self, path: Path | None, next_off: int, prompt: tuple[str, str]) -> None:
        """Remember that ``(prompt id, open request id)`` ('' for none) is the state at byte ``next_off`` of
        ``path`` (the offset after a converted line and its newline). Does nothing without a readable ``path``."""
        if path is None:
            return
        try:
            st = os.stat(path)
        except OSError:
            return
        key = str(path)
        with self._lock:
            self._open[key] = (st.st_dev, st.st_ino, next_off, prompt)
            self._open.move_to_end(key)
            while len(self._open) > _REMEMBERED:
                self._open.popitem(last=False)


#: The tracker :func:`asz_adapters_kiro.convert.convert_line` uses.
TRACKER = TurnTracker()
