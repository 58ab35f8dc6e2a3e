"""``asz --version`` of a copy installed without the checkout (trial 23b, F2: a non-editable install named no commit).

Real installs into a new virtual environment: ``pip install .`` of a git clone of this checkout with its tracked
files as they are now committed on top, and ``pip install`` of a wheel built (``pip wheel``) from those files copied
without ``.git``, which no build can name a commit for. Dependencies are not installed again: a ``.pth`` file gives the new environment this
interpreter's site-packages after its own (where setuptools is too, for the build), and the installed ``asz_core``
is checked to be the new environment's own. Each build compiles the C helpers: slow.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: The version pyproject.toml gives the package (what ``asz --version`` names first).
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(),
                                                    reason="asz does not run from a git checkout here")]


def run(*args: str, cwd: Path | None = None, timeout: float = 600) -> str:
    p = subprocess.run(list(args), capture_output=True, text=True, cwd=cwd, timeout=timeout)
    assert p.returncode == 0, f"{args} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def new_env(at: Path) -> Path:
    """A virtual environment without pip whose ``sys.path`` ends with this interpreter's site-packages; its python."""
    run(sys.executable, "-m", "venv", "--without-pip", str(at))
    py = at / "bin" / "python"
    own = Path(run(str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    (own / "zz_asz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return py


def pip(py: Path, *args: str, cwd: Path | None = None) -> None:
    run(sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", *args, cwd=cwd)


def version(py: Path, tmp: Path) -> str:
    """What the environment's own ``asz --version`` prints, run outside any checkout; checks its ``asz_core`` is its own."""
    where = run(str(py), "-c", "import asz_core; print(asz_core.__file__)", cwd=tmp)
    assert where.startswith(str(py.parents[1])), where  # the installed copy, not the editable checkout
    return run(str(py.parent / "asz"), "--version", cwd=tmp)


def tracked_files(dest: Path) -> None:
    """This checkout's tracked files as they are in the work tree (uncommitted changes too) copied under ``dest``."""
    for name in run("git", "-C", str(REPO), "ls-files", "-z").split("\0"):
        if name and (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)


def test_pip_install_dot_names_the_commit_it_was_built_from(tmp_path):
    clone = tmp_path / "clone"
    run("git", "clone", "-q", "--no-local", str(REPO), str(clone))
    tracked_files(clone)
    run("git", "-C", str(clone), "add", "-A")
    run("git", "-C", str(clone), "-c", "user.name=asz test", "-c", "user.email=test@example.invalid", "commit", "-q",
        "--allow-empty", "-m", "the work tree as it is")
    want = run("git", "-C", str(clone), "log", "-1", "--format=%h of %cs").strip()
    py = new_env(tmp_path / "env")
    pip(py, "--no-build-isolation", ".", cwd=clone)
    assert not (clone / "asz_core" / "_version_info.py").exists()  # written into the build, not the checkout
    got = version(py, tmp_path)
    assert got.startswith(f"asz {VERSION}, source {want} (Python "), got


def test_a_wheel_from_a_tree_without_git_says_unknown_commit(tmp_path):
    tree = tmp_path / "tree"
    tracked_files(tree)
    assert (tree / "setup.py").is_file() and not (tree / ".git").exists()
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist"), str(tree))
    (wheel,) = (tmp_path / "dist").glob("asz-*.whl")
    py = new_env(tmp_path / "env")
    pip(py, str(wheel))
    got = version(py, tmp_path)
    assert got.startswith(f"asz {VERSION}, unknown commit (Python "), got
