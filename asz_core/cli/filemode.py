"""Who can read what asz writes: its user alone, by default (trial 34c F5: on a shared machine a 0600 transcript
landed in a 0755 root, its search index 0644 and every export 0644, so any local user read every conversation and
the credentials in it).

Every ``asz`` command sets the process's umask before it writes anything (:func:`private_umask`, from the console
script's entry and :func:`asz_core.cli.entry.run_command`): ``077`` added to the user's own, so a root, a session's
folder, the index, the cursors and every export asz creates are its user's alone (folders ``0700``, files ``0600``).
A write-once file (a landed file, a round, a skeleton, ``_README.txt``) is read-only, ``0444`` less the mask:
``0400`` (:func:`~asz_core.sessiondata.filemode.read_only_mode`). ``ASZ_UMASK`` (octal, e.g. ``027``) replaces the mask, for a root a group shares on purpose (a team's
receiving root read by its group: folders ``0750``, files ``0640``). A root or file that is there already keeps
its mode (``chmod 700 ROOT`` closes an older root). docs/storage-root.md, "Who can read a root".
"""

from __future__ import annotations

import os
import sys

from ..sessiondata.filemode import note_umask

__all__ = ["DEFAULT_MASK", "MUST_MASK", "OWNER_BITS", "UMASK_ENV", "private_umask", "umask_refusal"]

#: The bits asz takes away by default: every bit of the group and of others.
DEFAULT_MASK = 0o077
#: The environment variable that replaces the mask (octal digits, ``027``).
UMASK_ENV = "ASZ_UMASK"


#: The mask :func:`private_umask` set in this process (empty until it ran).
_taken: list[int] = []
#: The bits a mask must take away: others' write (a root any local account could rewrite: cursors, lists, the index).
MUST_MASK = 0o002
#: The bits a mask must leave: the owner's own read, write and search (without them asz cannot read what it made).
OWNER_BITS = 0o700


def umask_refusal(raw: str, mask: int) -> str:
    """Why ``ASZ_UMASK=raw`` (``mask``, 0 to 0o777) is refused, '' when it is taken (trial 42a F6): a mask that does not
    take others' write bit away (``000``: folders ``0777``, the index and state files ``0666``), or that takes any of
    the owner's bits (``0777``: everything mode 0, and asz cannot read its own root). Group write may stay (a root a
    group shares on purpose: ``007``, ``027``)."""
    if mask & OWNER_BITS:
        return (f"{UMASK_ENV}={raw} takes the owner's own bits away ({mask & OWNER_BITS:03o}): the folders asz makes "
                f"would be {0o777 & ~mask:04o}, and asz needs to read, write and open all it writes")
    if not mask & MUST_MASK:
        return (f"{UMASK_ENV}={raw} lets every local account write what asz writes (folders {0o777 & ~mask:04o}, the "
                f"index, cursors and lists {0o666 & ~mask:04o}): a mask must take others' write bit (002) away")
    return ""


def private_umask(refuse: bool = True) -> int:
    """Set the process's umask (module docstring) and return it: ``ASZ_UMASK`` when set to an octal mask (``027``),
    else the user's umask with :data:`DEFAULT_MASK` added. A value that is no octal mask up to ``777`` is said on
    stderr, ``asz: warning: ASZ_UMASK='x' is not an octal mask such as 027; using 077 added to the umask``, and the
    default taken. A mask :func:`umask_refusal` refuses (others may write, or the owner's bits taken) stops the
    command before it writes anything: ``asz: ASZ_UMASK=000 lets every local account write …; unset it (077 …) or
    set 027 …`` on stderr and ``SystemExit(2)``, as every setting that does not hold is refused; with ``refuse``
    False (``asz hook``, never in the agent's way: Claude Code takes exit 2 as a block) it is said as a warning and
    the default taken. Raises nothing else. Once a process: a second call (the console script's entry, then
    :func:`asz_core.cli.entry.run_command`) returns the mask the first set, saying nothing again. docs/storage-root.md,
    "Who can read a root"."""
    if _taken:
        return _taken[0]
    mask = _private_umask(refuse)
    _taken.append(mask)
    return mask


def _private_umask(refuse: bool) -> int:
    """:func:`private_umask`'s work, each time it is called."""
    raw = os.environ.get(UMASK_ENV, "").strip()
    if raw:
        try:
            mask = int(raw, 8)
        except ValueError:
            mask = -1
        why = umask_refusal(raw, mask) if 0 <= mask <= 0o777 else ""
        if why:
            fix = (f"unset {UMASK_ENV} (the default: {DEFAULT_MASK:03o} added to the umask) or set 027 for a root a "
                   "group reads (docs/storage-root.md, Who can read a root)")
            if refuse:
                sys.stderr.write(f"asz: {why}; {fix}\n")
                raise SystemExit(2)
            sys.stderr.write(f"asz: warning: {why}; using {DEFAULT_MASK:03o} added to the umask\n")
        elif 0 <= mask <= 0o777:
            os.umask(mask)
            note_umask(mask)
            return mask
        else:
            sys.stderr.write(f"asz: warning: {UMASK_ENV}={raw!r} is not an octal mask such as 027; using "
                             f"{DEFAULT_MASK:03o} added to the umask\n")
    mask = os.umask(DEFAULT_MASK) | DEFAULT_MASK
    os.umask(mask)
    note_umask(mask)
    return mask
