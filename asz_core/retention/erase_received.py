"""What ``asz erase`` (:mod:`.erase`) takes out beside the search index, the summaries and the id table: a receiving
root's lists naming the session (docs/push.md, Erasure in a receiving root), and what a repair set aside of it.

``_received/<session>.senders`` (who sent each landed file: it names only files of the session) is deleted whole.
``_received/twice.list`` loses every pair naming the session, as the later or the earlier one: the later session's
calls its readers counted in the earlier one only are then counted in the later one, once (the earlier one erased),
or gone with it (the later one erased), never nowhere nor twice. ``_received/short.list`` loses the lines of the
session, ``_received/seen.list`` its ``held`` lines (who else sent its files), ``_received/readings.list`` the lines of
its streams' new readings. Each list is written anew beside (``.<name>.<pid>.tmp``, fsynced) and renamed over: a kill leaves it whole,
old or new. ``_received/before.list`` stays: it is chained evidence (each line holds the digest of the one before), and
names files by path and digest only, never their text. ``_set_aside/<stamp>/<session>/`` and
``_set_aside/<stamp>/_conversations/<conversation>/`` (moved aside by a repair, never deleted before) are deleted.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson

__all__ = ["forget_received", "forget_set_aside"]


def _rewrite_without(path: Path, sessions: set[str], keys: tuple[str, ...]) -> None:
    """``path`` (JSON lines) without the lines whose ``keys`` name one of ``sessions``; lines that do not read stay."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    kept = []
    for ln in data.splitlines(keepends=True):
        try:
            d = orjson.loads(ln)
        except orjson.JSONDecodeError:
            kept.append(ln)
            continue
        if isinstance(d, dict) and any(d.get(k) in sessions for k in keys):
            continue
        kept.append(ln)
    out = b"".join(kept)
    if out == data:
        return
    from ..sessiondata.durable import fsync_dir
    from ..storage.root import write_at_once

    write_at_once(path, out, fsync=True)  # the root's one atomic replace (no temporary left when it fails)
    fsync_dir(path.parent)


def forget_received(root: Path, sessions: list[str]) -> None:
    """A receiving root's sender records of ``sessions`` deleted and their lines taken out of ``twice.list``,
    ``short.list``, ``seen.list`` (its ``held`` lines; the module doc) and ``readings.list``. Raises OSError."""
    from ..storage.readings import READINGS_LIST
    from ..storage.seen_list import SEEN
    from ..storage.senders import RECEIVED, senders_path
    from ..storage.short_list import SHORT_LIST
    from ..storage.twice_list import TWICE_LIST

    if not (root / RECEIVED).is_dir():
        return
    names = set(sessions)
    for s in sessions:
        senders_path(root, s).unlink(missing_ok=True)
    _rewrite_without(root / RECEIVED / TWICE_LIST, names, ("session", "continues"))
    _rewrite_without(root / RECEIVED / SHORT_LIST, names, ("session",))
    _rewrite_without(root / RECEIVED / SEEN, names, ("session",))  # its held lines (trial 32c F2)
    _rewrite_without(root / RECEIVED / READINGS_LIST, names, ("session",))  # where its new readings start (34b F2)


def forget_set_aside(root: Path, sessions: list[str], convs: list[str]) -> None:
    """What a repair set aside of ``sessions`` and of their conversations ``convs`` (``_set_aside/<stamp>/…``),
    deleted. Raises OSError."""
    from ..storage.aside import SET_ASIDE
    from ..storage.layout import CONVERSATIONS

    base = root / SET_ASIDE
    try:
        stamps = [e.path for e in os.scandir(base) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for stamp in stamps:
        for rel in [*sessions, *(os.path.join(CONVERSATIONS, c) for c in convs)]:
            p = os.path.join(stamp, rel)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            elif os.path.lexists(p):
                os.unlink(p)
