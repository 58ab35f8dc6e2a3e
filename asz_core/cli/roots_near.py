"""Where a storage root usually is: what a command names when the root it looked at does not exist (trial 33a F4).

Every command reads the storage root ``./data`` of the folder it runs in (or ``--root DIR``, or ``storage.root`` of an
``asz.yaml`` there), so a reader run from another folder than the one ``asz collect`` ran in finds none. The line it
says (:func:`asz_core.cli.reading_common.no_root`) then names the roots found at the usual places
(:func:`usual_roots`): ``./example-data`` (the README's set-up line), ``./data`` and ``./example-data`` of the folder
above and of each folder beside this one, the ``storage.root`` of an ``asz.yaml`` in any of those, and ``~/asz/data``
(the README's folder for one's own history). Only a directory holding a session directory counts. Read only when a
root is missing: a few ``stat`` calls and directory listings, never a write.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ROOT_NAMES", "HOME_FOLDER", "MAX_BESIDE", "usual_roots"]

#: The folder names a root usually has: the default root and the README's example root.
ROOT_NAMES = ("data", "example-data")
#: The folder under the home the README keeps one's own root in (``mkdir -p ~/asz && cd ~/asz``).
HOME_FOLDER = "asz"
#: Folders beside the working one looked into at most (a home with many folders is not walked whole).
MAX_BESIDE = 256


def _holds_sessions(path: Path) -> bool:
    """True when ``path`` is a directory holding a session directory (:func:`~asz_core.storage.layout.session_dirs`)."""
    from ..storage.layout import session_dirs

    try:
        return path.is_dir() and bool(session_dirs(path))
    except (OSError, ValueError):
        return False


def _configured(folder: Path) -> list[Path]:
    """The ``storage.root`` of ``folder/asz.yaml`` when that file sets one; [] when there is none or it does not read."""
    from ..config import DEFAULT_CONFIG_NAME, load_config

    f = folder / DEFAULT_CONFIG_NAME
    if not f.is_file():
        return []
    try:
        cfg = load_config(f)
    except Exception:  # a file that does not read names no root here; the command that reads it says why
        return []
    return [Path(cfg.root)] if cfg.root_set else []


def _places(cwd: Path, home: Path | None) -> list[Path]:
    """Every usual place, in the order they are named (module docstring)."""
    out = [cwd / "example-data", *_configured(cwd)]
    up = cwd.parent
    if up != cwd:
        out += [up / n for n in ROOT_NAMES] + _configured(up)
        try:
            beside = sorted((e.path for e in os.scandir(up) if e.is_dir(follow_symlinks=False)), key=str)[:MAX_BESIDE]
        except OSError:
            beside = []
        for folder in map(Path, beside):
            if folder != cwd:
                out += [folder / n for n in ROOT_NAMES] + _configured(folder)
    if home is not None:
        out += [home / HOME_FOLDER / "data", *_configured(home / HOME_FOLDER)]
    return out


def usual_roots(looked_at: str | os.PathLike, cwd: str | os.PathLike | None = None, home: str | os.PathLike | None = None) -> list[Path]:
    """The storage roots found at the usual places (module docstring), absolute, each once, in the order named, the one
    ``looked_at`` left out. ``cwd``: the working folder (default the process's); ``home``: the home folder (default
    ``~``; none when it cannot be told). Never raises."""
    here = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
    if home is None:
        try:
            home = Path.home()
        except (KeyError, RuntimeError):
            home = None
    seen = {os.path.realpath(os.path.join(here, looked_at))}
    out = []
    for place in _places(here, Path(home) if home is not None else None):
        path = Path(os.path.abspath(here / place))
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        if _holds_sessions(path):
            out.append(path)
    return out
