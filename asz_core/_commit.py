"""The git commit asz is built or run from, said as ``asz --version`` says it (trial 23b, F2).

Standard library only, and importing nothing of asz: ``setup.py`` loads this file by its path while it builds (no
dependency is installed then) to write :data:`GENERATED` into the built package, and ``asz --version`` asks it of a
checkout it runs from (an editable install).
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

__all__ = ["GENERATED", "checkout_commit", "generated_text", "recorded_commit", "source_commit"]

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


def recorded_commit(top: Path) -> str:
    """The commit a build recorded in ``top/asz_core/`` :data:`GENERATED` (its ``COMMIT``), '' when the file is not
    there, not readable or holds no string ``COMMIT``. Read as text, never imported. Never raises."""
    try:
        tree = ast.parse((top / "asz_core" / GENERATED).read_text(encoding="utf-8"))
    except (OSError, ValueError, SyntaxError):
        return ""
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["COMMIT"]:
            value = node.value
            return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else ""
    return ""


def source_commit(top: Path, timeout: float = 5) -> str:
    """What ``asz --version`` names for the copy of asz whose ``asz_core`` folder is in ``top``: a git checkout's
    (``top/.git`` there: an editable install) live :func:`checkout_commit`, and '' when git does not answer, never
    a :data:`GENERATED` left in the checkout (.gitignore hides it from ``git status``, so it would name an older
    commit unseen); else the commit the build recorded (:func:`recorded_commit`). Never raises."""
    if (top / ".git").exists():
        return checkout_commit(top, timeout)
    return recorded_commit(top)
