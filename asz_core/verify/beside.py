"""What ``asz verify``'s workers check of their sessions beside the landed files (issue 22, sessions 38 and 49).

A worker that has just checked a session's landed files (:func:`asz_core.verify.walk.verify_root`, a whole root
shared by session) checks its state files and its conversation's chain there too, and walks the modes of what the
session's folder and its chain's folder hold for the note on entries open to others
(:func:`asz_core.storage.modes.modes_note`), so the main process reads none of them again.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable

__all__ = ["beside_sessions"]


def beside_sessions(root: Path, sdirs: list[Path], digests: dict[str, str] | None, listed: dict[str, list] | None = None,
                    root_shown: str | None = None) -> tuple[dict, dict, dict, dict, dict, dict]:
    """What ``asz verify``'s main process checks after the landed check, done for sessions ``sdirs`` in the worker
    process that just checked their landed files (issue 22, session 38: the round files and state files read and
    hashed beside the landed ones, in as many processes): each session's state files
    (:func:`~asz_core.verify.session_files.session_file_problems`) and the chain of the conversation named as the
    session, where there is one (:func:`~asz_core.flow.verify_chain.verify_chain`, with the whole-file ``digests``
    the landed check found, and the sessions' listings it made, ``listed``, by the session folder's path as ``str``:
    not listed again), and the modes of what each session folder and chain folder holds (:func:`_open_below`, by the
    folder's path spelt from ``root_shown`` as the modes note's walk spells it). Returns the
    :class:`~asz_core.flow.verify_chain.Seen` fields ``(state_files, marked, chained, listed, rounds, open_below)``
    (:func:`~asz_core.verify.walk.verify_root` puts them in the caller's ``seen``; the checks in the main process take
    them instead of checking again: the same findings in the same order)."""
    from ..flow.chain import Chain
    from ..flow.verify_chain import ChainReport, Seen, verify_chain
    from ..storage.layout import CONVERSATIONS
    from .chains import chain_readers
    from .session_files import session_file_problems

    seen = Seen(listed={} if listed is None else listed)
    state: dict[str, list] = {}
    chained: dict[str, tuple[int, list, dict]] = {}
    frames, listing = chain_readers()
    chains = os.fspath(root / CONVERSATIONS)  # each chain folder's path joined to it as a string: no Path made a session
    below = _open_below(seen.open_below)
    shown = os.fspath(root) if root_shown is None else root_shown
    for sdir in sdirs:
        state[os.fspath(sdir)] = session_file_problems(sdir, seen.marked)
        if below is not None:
            below(os.path.join(shown, sdir.name))
        d = os.path.join(chains, sdir.name)
        try:
            if not stat.S_ISDIR(os.lstat(d).st_mode):  # a chain folder that is a link: chain_section names it, nothing read
                continue
        except OSError:  # no chain
            continue
        if below is not None:
            below(os.path.join(shown, CONVERSATIONS, sdir.name))
        report = ChainReport()
        verify_chain(Chain(root, sdir.name), report, digests=digests, seen=seen, frames=frames, listing=listing)
        chained[d] = (report.rounds, report.problems, dict(seen.heads))
        seen.heads.clear()
    return state, seen.marked, chained, seen.listed, seen.rounds, seen.open_below


def _open_below(into: dict[str, tuple[int, str]]) -> Callable[[str], None] | None:
    """A function that puts :func:`asz_core.storage.modes.open_below` of a folder (the bits this process's umask takes
    from the group and others; in C where :mod:`asz_core.verify.linescan` was built) in ``into`` by its path; None
    when the umask takes no such bit (the modes note then walks nothing)."""
    from ..storage.modes import open_below, umask_bits
    from .clean import linescan

    bits = umask_bits()
    if not bits:
        return None
    walk = linescan.open_below if linescan is not None else open_below

    def below(path: str) -> None:
        into[path] = walk(path, bits)

    return below
