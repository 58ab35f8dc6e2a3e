"""The git commit asz is built or run from, said as ``asz --version`` says it (trial 23b, F2).

Standard library only, and importing nothing of asz: ``setup.py`` loads this file by its path while it builds (no
dependency is installed then) to write :data:`GENERATED` into the built package, and ``asz --version`` asks it of a
checkout it runs from (an editable install).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["GENERATED", "checkout_commit", "generated_text"]

#: The module a build writes beside this one (``asz_core/_version_info.py``; never in the checkout: .gitignore).
GENERATED = "_version_info.py"


def checkout_commit(top: Path, timeout: float = 5) -> str:
    """``<short commit id> of <commit date>`` (``+ local changes`` when tracked files differ from it) of the git
    checkout ``top`` (a folder holding ``.git``, a worktree's ``.git`` file too), '' when it is none or git does
    not answer within ``timeout`` seconds (or is not installed). Never raises."""
    if not (top / ".git").exists():
        return ""
    try:
        log = subprocess.run(["git", "-C", str(top), "log", "-1", "--format=%h of %cs"], capture_output=True, text=True,
                             timeout=timeout)
        if log.returncode != 0 or not log.stdout.strip():
            return ""
        st = subprocess.run(["git", "-C", str(top), "status", "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return ""
    return log.stdout.strip() + (" + local changes" if st.returncode == 0 and st.stdout.strip() else "")


def generated_text(commit: str) -> str:
    """The text of :data:`GENERATED` holding ``commit`` (:func:`checkout_commit`'s answer; '' for none known)."""
    return ('"""Written by setup.py when this copy of asz was built (asz_core/_commit.py): the commit it was built from,\n'
            "'' when the build knew none (no git checkout, or git did not answer).\"\"\"\n\n"
            f"COMMIT = {commit!r}\n")
