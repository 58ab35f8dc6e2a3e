"""When the background checker looks again at every conversation's files (trial 42c F5).

The checker (:meth:`~asz_core.view.background.BackgroundChecks.check_all`) finds the verification state of each
conversation whose files changed; finding that none did costs the fingerprint of every conversation (its rounds
listed, its session's landed files stat'ed): about 10k system calls on a 150 MB root. Run every 2 s, an idle
server spent ~4 % of a core on it (trial 42c F5; docs/view.md says idle is under 0.5 %). It now runs again when
something may have changed: a pass of ``asz server`` landed files or wrote rounds (its generation), the conversations
listed or any of their rounds folders changed (one ``stat`` of ``_conversations`` and one of each ``rounds`` folder:
a new round is a new file there; what another collector writes under ``asz view`` too), the rows' withholding
changed, or :data:`FULL_EVERY` seconds passed (a file changed in place outside any pass, a damaged byte: told as
before, within that time).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from ..storage.layout import CONVERSATIONS, ROUNDS

__all__ = ["FULL_EVERY", "wake_mark", "wait_for_news"]

#: Seconds after which the checker looks at every conversation's files again whatever the marks say.
FULL_EVERY = 30.0


def _rounds_mark(root: Path) -> int:
    """A hash of the modification times (ns) of ``root``'s ``_conversations`` and of each conversation's ``rounds``
    folder (no link followed, nothing listed below them). Never raises: what cannot be read counts as absent."""
    d = os.path.join(root, CONVERSATIONS)
    try:
        out = [os.stat(d).st_mtime_ns]
        with os.scandir(d) as it:
            names = [e.name for e in it]
    except OSError:
        return 0
    for name in names:
        try:
            out.append(os.lstat(os.path.join(d, name, ROUNDS)).st_mtime_ns)
        except OSError:
            out.append(-1)
    return hash((tuple(sorted(names)), tuple(out)))


def wake_mark(checks) -> tuple:
    """What, changed, makes the checker look again: the server's pass generation, the withholding, the rounds marks."""
    return checks._unchained_gen, tuple(checks.hide), _rounds_mark(checks.root)


def wait_for_news(checks, stop: threading.Event, every: float, mark: tuple, full: float = FULL_EVERY) -> None:
    """Wait until :func:`wake_mark` of ``checks`` (a :class:`~asz_core.view.background.BackgroundChecks`) differs from
    ``mark`` (taken before its last check), looking every ``every`` s, :data:`FULL_EVERY` s at most, or ``stop``."""
    started = time.monotonic()
    while not stop.wait(every):
        if time.monotonic() - started >= full or wake_mark(checks) != mark:
            return
