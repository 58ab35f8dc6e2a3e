"""A damaged cursor whose source is gone, set aside as a pass sets aside the damaged cursor of a present source.

Session 14: :func:`asz_core.collect.session_pass.cursor_or_set_aside` moves a cursor that does not read to
``ROOT/_set_aside/<UTC stamp>/`` when the pass reads its source; a source discovery no longer lists was never read,
so its damaged cursor stayed, and ``asz verify`` said ``bad cursor`` for ever (docs/storage-root.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.aside import set_aside
from ..storage.layout import PREFIX_KIND, parse_landed_name

__all__ = ["newest_header", "set_aside_gone"]


def newest_header(directory: Path, kind: str):
    """The header (:class:`asz_core.sessiondata.codec` ``Header``) of the newest landed file of ``kind`` in
    ``directory``; None when there is none or it does not read."""
    best = None
    try:
        for e in os.scandir(directory):
            ln = parse_landed_name(e.name)
            if ln is not None and ln.kind == kind and ln.ext == "sd" and (best is None or ln.seq > best[0]):
                best = (ln.seq, e.path)
    except OSError:
        return None
    if best is None:
        return None
    from ..sessiondata.reader import landed_header

    try:
        return landed_header(best[1])
    except (OSError, ValueError):
        return None


def set_aside_gone(col, sdir: Path, cp: Path, exc: Exception, c) -> None:
    """For :meth:`asz_core.collect.collector.Collector._check_gone` (``col`` the collector, ``c`` its Counters): a
    cursor that does not read (``exc``), of a source discovery did not list: when the newest landed file of
    its stream and kind names this adapter and that file's ``src`` is gone (``source_exists``), the cursor is
    moved to ``ROOT/_set_aside/<UTC stamp>/`` as a pass moves the damaged cursor of a present source
    (:func:`asz_core.collect.session_pass.cursor_or_set_aside`; docs/storage-root.md) and said in a
    ``warning:``. No cursor is written in its place: there is nothing to read, and should the source come back
    a pass reads it as one with no cursor (its landed files say how far it landed, nothing lands twice).
    A source that still exists, or cannot be told, or lies in no folder this pass was given
    (:mod:`asz_core.collect.looked_at`), leaves the cursor where it is (the pass that reads the source sets it aside);
    so does a cursor whose files name another adapter or none."""
    kind = PREFIX_KIND.get(cp.stem)
    header = newest_header(cp.parent, kind) if kind else None
    if header is None or header.adapter.rsplit("/", 1)[0] != col.adapter.name or not header.src:
        return
    try:
        mode = "document" if "#" in header.src else "snapshot"  # append or snapshot: both a file's existence
        if col.adapter.source_exists(col._source_at(sdir, cp, header.src, mode, kind)):
            return
        if not col.looks_at(header.src, mode):  # in no folder this pass was given: not gone (collect/looked_at.py)
            return
    except Exception:  # cannot tell (OSError), or an adapter's failure, said when it reads a cursor: leave it
        return
    why = exc.strerror if isinstance(exc, OSError) else str(exc)
    try:
        aside = set_aside(col.root, cp)
    except (OSError, ValueError) as err:
        col.report.error(cp, f"damaged cursor: {why}; its source {header.src} is gone, and the cursor could not be "
                             f"set aside ({err})")
        c.errors += 1
        return
    col.report.warning(cp, f"damaged cursor: {why}; its source {header.src} is gone: set aside as {aside}, no "
                           "cursor written in its place (should the source come back, a pass reads it on from the "
                           "landed files)")
    c.gone += 1
