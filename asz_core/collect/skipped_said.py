"""What a pass says of the entries its adapter skipped that a person would otherwise lose without a word (trial 24b F8,
trial 27a F8, trial 41b F4). ``skipped=`` counts every skipped entry and ``asz sources`` lists each with its reason;
these few are said on stderr too, once per process:

* a file whose name is not a session id (a transcript renamed, a copy saved as ``notes.jsonl``): ``warning: PROJECT/NAME:
  file name is not a session id; not collected: none of its N line(s) (B bytes) lands under this name (…)``, its lines
  counted in the file itself (a renamed transcript's lines written after the rename land nowhere): lines left out of
  the root are a warning, as a link out of the source root is (trial 45a F1: it was a ``note:``), still counted in
  ``skipped=`` and never an exit 1; an empty such file (0 bytes: nothing left out) stays a ``note:``;
* a symbolic link leading outside the source root (a transcript replaced by a link to a copy elsewhere): ``warning:
  PROJECT/NAME: a symbolic link to TARGET, outside the source root: not followed (…)``: what is written through the
  link never lands, while the stream's cursor still names the file (``asz sources`` shows it active);
* the MCP events ``asz hook`` refused or could not write (an observer data directory's ``log/plugin.log``), the
  adapter's reason as it is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from ..plugins.adapter import REFUSED_EVENTS, UNWRITTEN_EVENTS

__all__ = ["skipped_said", "OUTSIDE"]

#: How the adapters' discovery ends the reason of a symbolic link it does not follow (asz_core/plugins/sourcedir.py).
OUTSIDE = ", outside the source root"
#: What the warning adds to it.
NOT_FOLLOWED = (": not followed, so nothing written through it lands (a link is never a way to land a file from "
                "elsewhere on the machine); what landed from this name before is kept, and its cursor stays where it "
                "was; put the file itself back in the source root, or collect the folder it is in with --source")


def _lines(roots: Sequence[Path], rel: str) -> tuple[int, int] | None:
    """``(lines, bytes)`` of the file ``rel`` names under the first of ``roots`` holding it; None when none does or it
    does not read. Read in 1 MiB pieces (once per process and file: the note is said once)."""
    for root in roots:
        try:
            with open(os.path.join(os.fspath(root), rel), "rb") as f:
                n = size = 0
                while piece := f.read(1 << 20):
                    n, size = n + piece.count(b"\n"), size + len(piece)
                return n, size
        except (OSError, ValueError):
            continue
    return None


def skipped_said(roots: Sequence[Path], rel: str, reason: str) -> tuple[str, str] | None:
    """``(level, message)`` (level ``note`` or ``warning``) for the skipped entry ``rel`` (as discovery named it,
    relative to one of the source ``roots``) with ``reason``, when a pass says it (module docstring); else None."""
    if reason.startswith((REFUSED_EVENTS, UNWRITTEN_EVENTS)):
        return "note", reason
    if reason.endswith(OUTSIDE):
        return "warning", reason + NOT_FOLLOWED
    if reason.endswith("is not a session id"):
        held = _lines(roots, rel)
        what = (f"none of its {held[0]:,} line(s) ({held[1]:,} bytes) lands under this name" if held is not None
                else "nothing of it lands under this name")
        level = "note" if held is not None and held[1] == 0 else "warning"  # lines left out of the root (trial 45a F1)
        return level, f"{reason}; not collected: {what} (asz sources lists what is skipped)"
    return None
