"""Which files a conversation's summary and document depend on: the one rule of the page's caches and ``asz ls``'s.

:func:`files_key` names them; the page's document cache, found records and known states compare it as it is
(:func:`~asz_core.view.state.files_fingerprint`, refusing a symbolic link), the summary store of ``asz ls``,
``asz usage`` and the server's rows keeps a versioned digest of it (:func:`~asz_core.view.summary_cache.fingerprint`).
Before session 26 each made its own list (the page walked the conversation and session folders, ``asz ls`` listed the
rounds and the session's holding folders): they agreed, by care, not by construction.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from ..storage.filekey import stat_key
from ..storage.layout import CONVERSATIONS, PREFIX_KIND, parse_landed_name
from ..storage.root import SESSION_LOCK
from ..storage.torn import cursor_torn
from .landed import first_link

__all__ = ["FilesKey", "files_key", "torn_of"]


@attrs.frozen
class FilesKey:
    """``keys``: a sorted tuple of ``(name, size, mtime_ns, ctime_ns, inode)``, one per file (file names, not paths),
    then the torn tails, ``("", "torn", src, bytes)``, sorted; ``links``: the symbolic links met on the way (paths), in
    the order met; empty when links were followed."""

    keys: tuple
    links: tuple[str, ...]


def _tree(top: str, follow: bool) -> tuple[list[tuple[str, os.stat_result]], list[str]]:
    """Every file under ``top`` with its stat, and every symbolic link met (paths). Without ``follow`` no link is
    followed (a file's stat is its lstat); with it a link is read as what it names (a directory walked once, by its
    real path: a loop ends), one that names nothing left out."""
    files: list[tuple[str, os.stat_result]] = []
    links: list[str] = []
    stack = [top]
    seen: set[str] = {os.path.realpath(top)} if follow else set()
    while stack:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_symlink():
                    links.append(e.path)
                    if not follow:
                        continue
                    if e.is_dir():
                        real = os.path.realpath(e.path)
                        if real not in seen:
                            seen.add(real)
                            stack.append(e.path)
                    else:
                        files.append((e.path, e.stat()))
                elif e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                else:
                    files.append((e.path, e.stat(follow_symlinks=False)))
            except OSError:
                continue
    return files, links


def files_key(root: str | os.PathLike, conversation: str, session: str, *, follow: bool = False) -> FilesKey:
    """What a build of ``conversation`` (whose head round names ``session``, '' for none) reads, and so what its
    document, its summary and what a found record keeps of it depend on (found25, issue 22).

    That is the name and stat key (:func:`~asz_core.storage.filekey.stat_key`) of every file under the conversation's
    directory (its round files and ``conversation.state``), of every landed file (``.sd``, skeleton ``.sk``) under the
    session's directory, and the torn tails the session's append cursors record (the build's ``summary.problems``
    says them); in a receiving root, the calls ``_received/twice.list`` counts in an earlier session
    (:func:`~asz_core.storage.twice_list.there_key`) and the lines ``_received/short.list`` gives the session
    (:func:`~asz_core.storage.short_list.short_problems`), which the build's figures and problems read; the labels in
    other sessions' files that may title it (:func:`~asz_core.view.named_titles.named_key`: a summary landing in a
    later pass names it, trial 41c F2). Not the cursors' files themselves: a collect pass that finds a session's sources gone (or back)
    rewrites them and lands nothing, and what it changes (a source gone, in conflict) is read at each answer
    (:func:`~asz_core.view.conflicts.stopped_and_gone`), never kept. Nor the session's ``session.state``, ``index/`` or
    locks (``.lock``), which no build reads: a conflicted session's lock is taken by every pass (trial 19, F6).

    ``conversation`` is taken as given (never renamed by ``dir_name``): one that names no directory under
    ``<root>/_conversations`` has none. Without ``follow`` no symbolic link is followed and each one met (under either
    directory, or a component of their paths below ``root``) is in ``links`` (the page refuses it, and a link in the conversation's own path: :func:`~asz_core.view.state.files_fingerprint`); with ``follow``
    they are read as what they name and still listed in ``links`` (``asz ls``'s key: its readers follow none, a landed
    file that is one is read as one that cannot be read, :mod:`asz_core.sessiondata.nolink`). Never raises for a file
    gone meanwhile."""
    root = Path(root)
    ok = conversation not in ("", ".", "..") and "/" not in conversation and "\0" not in conversation
    conv = root / CONVERSATIONS / conversation if ok else None
    files, links = _tree(str(conv), follow) if conv is not None else ([], [])
    out = [(name, *stat_key(st)) for name, st in ((os.path.basename(p), st) for p, st in files) if name != SESSION_LOCK]
    torn: list[tuple] = []
    if session and "/" not in session and "\0" not in session and session not in (".", ".."):
        sdir = root / session
        bad = None if follow else first_link(root, sdir)
        if bad is not None and os.path.lexists(bad):
            links.append(str(bad))
        elif bad is None:
            more, more_links = _tree(str(sdir), follow)
            links += more_links
            for p, st in more:
                name = os.path.basename(p)
                if parse_landed_name(name) is not None:
                    out.append((name, *stat_key(st)))
                elif name.endswith(".cursor") and name[:-7] in PREFIX_KIND:
                    tail = torn_of(p, st)
                    if tail is not None:
                        torn.append(("", "torn", *tail))
    from ..storage.short_list import short_problems
    from ..storage.twice_list import there_key

    from .named_titles import named_key

    there = there_key(root, session) if session else ()  # a receiving root's calls counted in an earlier session
    short = tuple(short_problems(root, session)) if session else ()  # and the records it is short of (summary.problems)
    return FilesKey(tuple(sorted(out)) + tuple(sorted(torn)) + ((there,) if there else ())
                    + ((("", "short", *short),) if short else ()) + named_key(root, session), () if follow else tuple(links))


#: cursor path -> (its stat key when read, the torn tail it records or None): each cursor read once while unchanged
_TORN_READ: dict[str, tuple[tuple, tuple[str, int] | None]] = {}


def torn_of(path: str, st: os.stat_result) -> tuple[str, int] | None:
    """``(src, bytes)`` of the torn tail the append cursor at ``path`` (its stat ``st``) records
    (:func:`~asz_core.storage.torn.cursor_torn`, the rule of every reader), None for none or a cursor that does not
    read. Read once per file state (its stat key), kept in memory."""
    key = stat_key(st)
    hit = _TORN_READ.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    tail = cursor_torn(path)
    _TORN_READ[path] = (key, tail)
    return tail
