"""The landed ``.sd`` files :mod:`asz_core.view.named_titles` reads labels from, listed again only where they may
have changed (close42: a warm ``asz ls`` at 1 GB listed every session's files and stat'ed each, 0.10 s CPU, in every
process and again every :data:`~asz_core.view.named_titles.KEPT_S` seconds).

A session's *stamp* is the modification time and inode of the session's directory, its ``streams`` and each
directory there that can hold its landed files (``streams/<stream>``, ``runs`` and ``runs/<run>``, ``provider_body``,
:func:`~asz_core.storage.layout.holding_dirs`): a file landed, removed, renamed or replaced by a skeleton there changes
its directory's, and one of those directories made changes its parent's. A session whose stamp is the one kept when it was last listed (in ``_index/named.sqlite``'s table
``dirs``, or in this process) keeps the files and stat keys that listing found (the store's ``files`` rows); any other
is listed and each file stat'ed. A stamp is taken before its listing (a file landing meanwhile changes it again) and
kept only when every time in it is :data:`SETTLED_NS` old (a file landing in the same clock tick as a look changes no
time). A landed file changed in place (damage) changes no directory: the labels it held are checked by their files'
stat keys before each use (:meth:`~asz_core.view.named_titles.NamedIn.unchanged`), which reads the root again whole.
1 GB, 1,342 sessions: 0.03 s CPU where the listing took 0.10 s.
"""

from __future__ import annotations

import os
import time

from ..storage.filekey import stat_key
from ..storage.layout import holding_dirs, parse_landed_name, session_dirs, session_listing

__all__ = ["SETTLED_NS", "listed_root"]

#: How old (ns) every time of a stamp must be for the stamp to be kept.
SETTLED_NS = 2_000_000_000
#: The directories of a session every stamp holds, before those holding its files: itself and ``streams``.
_TOPS = ("", "streams")


def listed_root(root: str | os.PathLike, names: list[str], stamps: dict[str, tuple[str, str]],
                rows: dict[str, tuple[str, str]]) -> tuple[dict[str, tuple[str, int, tuple]], dict[str, tuple[str, str]]]:
    """``(landed, stamps now)``: path under the root -> (session, seq, stat key) of every landed ``.sd`` file of the
    root's sessions, and session -> (its directories, one a line; its stamp) for each session whose stamp is settled.
    ``stamps``: those kept (the ``dirs`` table); ``rows``: the store's ``files`` rows (path -> (stat key as JSON,
    labels)), where a session whose stamp is unchanged takes its files from. Each session's name is added to ``names``.
    Never raises for a session or file gone meanwhile."""
    by_session: dict[str, list[str]] = {}
    for rel in rows:
        by_session.setdefault(rel.split("/", 1)[0], []).append(rel)
    out: dict[str, tuple[str, int, tuple]] = {}
    now: dict[str, tuple[str, str]] = {}
    settled = time.time_ns() - SETTLED_NS
    for sdir in session_dirs(root):
        name, base = sdir.name, os.fspath(sdir)
        names.append(name)
        kept = stamps.get(name)
        if kept is not None and _stamp(base, kept[0].split("\n"), 0) == kept[1]:
            for rel in by_session.get(name, ()):
                ln = parse_landed_name(rel.rsplit("/", 1)[-1])
                if ln is not None:
                    k = rows[rel][0]
                    out[rel] = (name, ln.seq, tuple(map(int, k[1:-1].split(", "))))
            now[name] = kept
            continue
        base_sep = base + os.sep
        dirs = [*_TOPS, *(["runs"] if os.path.isdir(base_sep + "runs") else []),
                *(d[len(base_sep):] for d in holding_dirs(base) if os.path.isdir(d))]
        stamp = _stamp(base, dirs, settled)  # before the listing: a file landing meanwhile changes it again
        out.update(_files(base, name))
        if stamp is not None:
            now[name] = ("\n".join(dirs), stamp)
    return out, now


def _stamp(base: str, dirs: list[str], settled: int) -> str | None:
    """The stamp of the session directory ``base``: ``mtime_ns inode`` of each of ``dirs`` (``-`` for one not there),
    one text; None when a time is later than ``settled`` (ns since the epoch; 0 asks nothing of the times)."""
    got = []
    stat, prefix = os.stat, base + os.sep
    for d in dirs:
        try:
            st = stat(prefix + d if d else base)
        except OSError:
            got.append("-")
            continue
        if settled and st.st_mtime_ns > settled:
            return None
        got.append("%d %d" % (st.st_mtime_ns, st.st_ino))
    return ",".join(got)


def _files(base: str, name: str) -> dict[str, tuple[str, int, tuple]]:
    """path under the root -> (``name``, seq, stat key) of each landed ``.sd`` file of the session directory ``base``."""
    out = {}
    cut, sep = len(base) + 1, os.sep
    try:
        listing = session_listing(base, strings=True)  # plain strings: no Path object a file (review 42: 2x)
    except OSError:
        return out
    for ln, path in listing.files:
        if ln.ext != "sd":
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        rel = path[cut:] if sep == "/" else path[cut:].replace(sep, "/")
        out[f"{name}/{rel}"] = (name, ln.seq, stat_key(st))
    return out
