"""Landed files an earlier (or other) version of an installed adapter wrote: what ``asz conversation`` says per
conversation (:func:`~asz_core.cli.conversation_summary.landed_by_lines`) and ``asz collect`` says root-wide once an
upgrade made it assemble sessions again (:func:`upgrade_notes`; trial 47c F6: the upgrade was said per conversation
only, and collect's note was generic).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import attrs

__all__ = ["Older", "older_landed", "which_version", "upgrade_notes", "UPGRADE_SAID"]


@attrs.frozen
class Older:
    """``files`` landed files (of ``total`` read) in ``sessions`` session(s) whose header names ``adapter``
    (``goose/0.1.0``) for ``dialect``, where the installed adapter is ``today`` (``goose/0.2.0``); ``said``: what that
    version did not keep or read as today's does (:meth:`~asz_core.plugins.adapter.Adapter.landed_without`), []
    when the adapter says nothing."""

    dialect: str
    adapter: str
    today: str
    files: int
    total: int
    sessions: int
    said: tuple[str, ...]


def older_landed(root: Path, sessions: Iterable[object], *, unspoken: bool = False) -> list[Older]:
    """One :class:`Older` for each other version of an installed adapter whose files ``sessions`` of ``root`` hold
    (their headers' ``adapter``, skeletons included), by dialect and adapter; [] when every file is of the installed
    version. ``unspoken``: also one, its ``today`` '', for each adapter whose files are of a dialect no installed
    adapter speaks. Never raises for a file or an adapter: a header that does not read is not counted, an adapter whose
    ``landed_without`` raises says nothing."""
    from collections import Counter

    from ..plugins.manager import adapter_for_dialect
    from ..sessiondata.reader import landed_header
    from ..storage.layout import landed_files, session_dir

    seen: Counter = Counter()
    where: dict[tuple[str, str], set] = {}
    total = 0
    for sid in sessions:
        if not isinstance(sid, str):
            continue
        for _, path in landed_files(session_dir(root, sid), skeletons=True):
            try:
                h = landed_header(path)
            except (OSError, EOFError, ValueError):
                continue
            total += 1
            seen[(h.dialect, h.adapter)] += 1
            where.setdefault((h.dialect, h.adapter), set()).add(sid)
    out = []
    for (dialect, adapter), n in sorted(seen.items()):
        a = adapter_for_dialect(dialect) if dialect else None
        today = f"{a.name}/{a.version}" if a is not None else ""
        if a is None:  # no installed adapter speaks it: today '' (trial 49c F3: said by nothing)
            if dialect and unspoken:
                out.append(Older(dialect, adapter, "", n, total, len(where[(dialect, adapter)]), ()))
            continue
        if adapter == today or adapter.rpartition("/")[0] != a.name:
            continue
        try:
            said = a.landed_without(dialect, adapter)
        except Exception:  # an adapter's bug: nothing more said
            said = []
        ok = isinstance(said, list) and all(isinstance(x, str) for x in said)
        out.append(Older(dialect, adapter, today, n, total, len(where[(dialect, adapter)]), tuple(said) if ok else ()))
    return out


#: What ``asz collect`` says, once an upgrade made it assemble sessions again, of the landed files an earlier version
#: of an installed adapter wrote that did not keep what the installed one keeps (trial 47c F6).
UPGRADE_SAID = ("note: {files:,} landed file(s) in {sessions:,} session(s) were written by {adapter}, {which} version "
                "than the installed {today}, which did not keep or read as it does: {said}; they stay as landed (asz "
                "conversation ID says which of its files; collecting the same sources into a new root, asz collect "
                "--once --root NEW, while the runtime keeps them, lands them by {today})")


def which_version(adapter: str, today: str) -> str:
    """How a landed file header's ``adapter`` (``goose/0.1.0``) stands to the installed ``today`` (``goose/0.2.0``):
    ``a later`` or ``an earlier`` where both versions are dotted numbers (``0.10.0`` is later than ``0.9.1``:
    :func:`~asz_core.plugins.adapter.adapter_version`), else ``another`` (``0.3.0rc1``: no rule orders them, so none
    is claimed). Never raises."""
    from ..plugins.adapter import adapter_version

    a, b = adapter_version(adapter), adapter_version(today)
    return "another" if a is None or b is None else "a later" if a > b else "an earlier"


def upgrade_notes(root: Path, sessions: Iterable[object]) -> list[str]:
    """:data:`UPGRADE_SAID` for each :class:`Older` of ``sessions`` whose adapter says what that version did not keep;
    [] when none does."""
    return [UPGRADE_SAID.format(files=o.files, sessions=o.sessions, adapter=o.adapter, today=o.today,
                                which=which_version(o.adapter, o.today), said="; ".join(o.said))
            for o in older_landed(root, sessions) if o.said]
