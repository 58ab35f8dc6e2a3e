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

__all__ = ["DEFAULT_MASK", "UMASK_ENV", "private_umask"]

#: The bits asz takes away by default: every bit of the group and of others.
DEFAULT_MASK = 0o077
#: The environment variable that replaces the mask (octal digits, ``027``).
UMASK_ENV = "ASZ_UMASK"


def private_umask() -> int:
    """Set the process's umask (module docstring) and return it: ``ASZ_UMASK`` when set to an octal mask (``027``),
    else the user's umask with :data:`DEFAULT_MASK` added. A value that is no octal mask up to ``777`` is said on
    stderr, ``asz: warning: ASZ_UMASK='x' is not an octal mask such as 027; using 077 added to the umask``, and the
    default taken. Never raises."""
    raw = os.environ.get(UMASK_ENV, "").strip()
    if raw:
        try:
            mask = int(raw, 8)
        except ValueError:
            mask = -1
        if 0 <= mask <= 0o777:
            os.umask(mask)
            note_umask(mask)
            return mask
        sys.stderr.write(f"asz: warning: {UMASK_ENV}={raw!r} is not an octal mask such as 027; using "
                         f"{DEFAULT_MASK:03o} added to the umask\n")
    mask = os.umask(DEFAULT_MASK) | DEFAULT_MASK
    os.umask(mask)
    note_umask(mask)
    return mask
