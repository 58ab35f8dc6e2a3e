"""A small tmpfs for the tests of a full or read-only file system (a real one, never a mock): mounted at a folder it
makes, or the test skipped with the reason (not root, no ``mount`` command, the mount refused: a container without
the capability). The caller unmounts it (``umount -l``) in its ``finally``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

__all__ = ["mount_tmpfs"]


def mount_tmpfs(where: Path, size: str) -> Path:
    """Make the folder ``where`` and mount a tmpfs of ``size`` (``1m``, ``6m``: mount's words) on it; returns
    ``where``. Skips the test, naming why, where it cannot be mounted."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root and the mount command")
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {r.stderr.strip()}")
    return where
