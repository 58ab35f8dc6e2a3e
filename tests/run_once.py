"""A folder made once a test run and shared by every process of it (each xdist worker, or the one pytest process):
:func:`made_once`. For session fixtures whose making costs seconds of CPU and whose result nobody writes into (the
once-collected corpus roots, the C helpers compiled for the install tests); docs/testing.md, "Shared fixtures"."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path


def made_once(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """``BASE/name``, made by ``make(BASE/name)`` once a run: ``BASE`` is the run's base temporary folder (the parent
    of every xdist worker's own, pytest's ``basetemp`` without xdist), so every process of the run finds the same
    folder. The first process to ask makes it under an ``flock`` of ``BASE/name.lock``; the others wait for the lock
    and take what it made. ``name`` names what is made (a digest of its inputs where they can differ within a run).
    Whatever ``make`` raises is raised here; what it left is removed and the next process to ask makes it again."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    target, made = root / name, root / f"{name}.made"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            shutil.rmtree(target, ignore_errors=True)
            try:
                make(target)
            except BaseException:
                shutil.rmtree(target, ignore_errors=True)
                raise
            made.touch()
    return target
