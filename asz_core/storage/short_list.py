"""``_received/short.list``: sessions a receiving root is short of, as sending roots told it (trial 24a F3).

``asz receive`` refuses a landed file whose seq it already holds as another file (one seq of a session holds one
file), or one sent with a credential other than its session's (docs/push.md, One session, one credential: the line then
has ``"owner"`` and ``"credential"``, trial 28a F2); when the refused file holds records the landed one lacks (``this root lacks N of its M record(s)``: the sending
root collected further, a root lost after collecting more than it pushed), the records exist only on that root. One
JSON line per such refusal (a file refused again is not listed again)::

    {"session":"<session dir>","file":"<the refused file's root-relative path>","lacks":38,"of":68,
     "instance":"dev@hostF","at":"2026-12-04T18:00:00.000000000Z"}

``asz verify`` and ``asz ls`` on the receiving root name each session it lists (a warning, a note), and the session's
own document lists its lines under ``summary.problems`` (:func:`short_problems`: the page's problems box, ``asz
conversation``, the exports; trial 28a F2, the credential line). The list is
derived from answers, never evidence: a line that does not read is skipped. When the same file is refused later
because this root now holds every record of it (the sending root sent the rest of its stream: docs/push.md, The rest
of a stream), one more line says so, ``{"session":…,"file":…,"held":true,"at":…}``, and the file is no longer listed
by :func:`read_short` (the list is only appended to).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable

import orjson

from .senders import RECEIVED

__all__ = ["short_problems", "SHORT_LIST", "record_short", "record_held", "read_short", "short_line", "json_lines", "append_line", "read_once"]

SHORT_LIST = "short.list"
#: How a short line ends (:func:`short_line`): a held answer to the file sent again ends it (trial 43a F1).
RETRY_SAID = ("asz push --retry-rejected sends the file again, and the answer that this root holds every record of "
              "it ends this line")
_lock = threading.Lock()


def read_short(root: str | os.PathLike) -> list[dict]:
    """The lines of ``root``'s short list (``[]`` when there is none), in order, but those of a file a later ``held``
    line names (this root holds its records since); lines that do not read are left out."""
    got = _lines(root)
    held = {d["file"] for d in got if d.get("held") is True}
    return [d for d in got if d.get("held") is not True and d["file"] not in held]


def _lines(root: str | os.PathLike) -> list[dict]:
    return json_lines(root, SHORT_LIST, ("session", "file"))


def json_lines(root: str | os.PathLike, name: str, keys: tuple[str, ...]) -> list[dict]:
    """The JSON object lines of ``_received/NAME`` whose ``keys`` are strings, in order (``[]`` when there is no such
    file); lines that do not read are left out (the lists under ``_received/`` are derived from answers)."""
    try:
        data = (Path(root) / RECEIVED / name).read_bytes()
    except OSError:
        return []
    out = []
    for ln in data.splitlines():
        try:
            d = orjson.loads(ln)
        except orjson.JSONDecodeError:
            continue
        if isinstance(d, dict) and all(isinstance(d.get(k), str) for k in keys):
            out.append(d)
    return out


def record_short(root: str | os.PathLike, session: str, file: str, lacks: int, of: int, instance: str | None, at: str,
                 owner: tuple[str, str] | None = None) -> None:
    """Append one line (unless ``file`` is listed already). ``owner``: ``(the credential the session is, the credential
    that sent the refused file)`` when it was refused for that (``"owner"`` and ``"credential"`` keys; trial 28a F2).
    Raises OSError when it cannot be written."""
    with _lock:
        if any(d["file"] == file for d in _lines(root)):
            return
        d = {"session": session, "file": file, "lacks": lacks, "of": of, "instance": instance, "at": at}
        if owner is not None:
            d["owner"], d["credential"] = owner
        _append(root, d)


def record_held(root: str | os.PathLike, session: str, file: str, at: str) -> bool:
    """Append a ``held`` line for ``file`` when it is listed short and not held yet (this root now holds every record
    of it); True when written. Raises OSError when it cannot be written."""
    with _lock:
        if file not in {d["file"] for d in read_short(root)}:
            return False
        _append(root, {"session": session, "file": file, "held": True, "at": at})
        return True


def _append(root: str | os.PathLike, d: dict, name: str = SHORT_LIST) -> None:
    """Append ``d`` as one line of ``_received/NAME``, fsynced. Raises OSError."""
    base = Path(root) / RECEIVED
    base.mkdir(exist_ok=True)
    with open(base / name, "ab") as f:
        f.write(orjson.dumps(d) + b"\n")
        f.flush()
        os.fsync(f.fileno())


append_line = _append


def read_once(root: str | os.PathLike, name: str, cache: dict, build: Callable[[], dict]) -> dict | None:
    """``build()``, what a reader makes of ``root``'s ``_received/NAME``, kept in ``cache`` (path -> (stat key,
    answer)) while the file's stat key is unchanged; None when there is no such file. Never raises for the file."""
    from .filekey import stat_key

    path = os.path.join(os.fspath(root), RECEIVED, name)
    try:
        key = stat_key(os.stat(path))
    except OSError:
        return None
    hit = cache.get(path)
    if hit is None or hit[0] != key:
        cache[path] = hit = (key, build())
    return hit[1]


def short_line(d: dict) -> str:
    """What readers say of one line: ``session S is short of N record(s): INSTANCE holds them in FILE (M record(s)),
    refused here because its seq is landed here as another root's file`` (or ``… because the session is credential
    OWNER's …`` for a line with ``owner``), and the way to end it: ``asz push --retry-rejected`` on that root sends the
    file again, and an answer that this root holds every record of it ends the line (:func:`record_held`). A line an
    older receiver wrote (one that compared while the session's first file was still landing, trial 43a F1) stays until
    then."""
    from .senders import instance_word, sender_label

    who = sender_label({"instance": d.get("instance") or None})
    if isinstance(d.get("owner"), str):  # refused for its credential (trial 28a F2)
        return (f"session {d['session']} is short of {d.get('lacks')} record(s): {who} (credential "
                f"{instance_word(str(d.get('credential')))}) "
                f"holds them in {d['file']} ({d.get('of')} record(s)), refused here because the session is credential "
                f"{d['owner']}'s (it sent its first file) and credential {d.get('credential')} cannot add to it; that "
                f"root's asz push says what to do, and once this root holds them its {RETRY_SAID} (docs/push.md, One "
                "session, one credential)")
    return (f"session {d['session']} is short of {d.get('lacks')} record(s): {who} "
            f"holds them in {d['file']} ({d.get('of')} record(s)), refused here because its seq is landed here as "
            f"another root's file; that root's asz push names them, and once this root holds them its {RETRY_SAID} "
            "(docs/push.md, Known limits)")


#: path of a root's list -> (its stat key when read, session -> the lines naming it as :func:`short_line` says them)
_BY_SESSION: dict[str, tuple[tuple, dict[str, list[str]]]] = {}


def short_problems(root: str | os.PathLike, session: str) -> list[str]:
    """:func:`short_line` of each line of ``root``'s list naming ``session`` (:func:`read_short`'s), in order: what the
    session's document lists under ``summary.problems`` (a session held under another credential names both
    credentials: trial 28a F2); ``[]`` when none. Read once per state of the list's file (its stat key), kept in memory.
    Never raises."""
    from .filekey import stat_key

    path = os.path.join(os.fspath(root), RECEIVED, SHORT_LIST)
    try:
        key = stat_key(os.stat(path))
    except OSError:
        return []
    hit = _BY_SESSION.get(path)
    if hit is None or hit[0] != key:
        by: dict[str, list[str]] = {}
        for d in read_short(root):
            by.setdefault(d["session"], []).append(short_line(d))
        _BY_SESSION[path] = hit = (key, by)
    return list(hit[1].get(session, ()))
