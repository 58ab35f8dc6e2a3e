"""``asz --version`` of a copy installed without the checkout (trial 23b, F2: a non-editable install named no commit).

Real installs into a new virtual environment: ``pip install .`` of a git clone of this checkout (``--depth 1``: the
commit it names is the one the test makes) with its tracked files as they are now committed on top, and ``pip
install`` of a wheel built (``pip wheel``) from those files copied without ``.git``, which no build can name a commit
for. Dependencies are not installed again: a ``.pth`` file gives the new environment this interpreter's site-packages
after its own (where setuptools is too, for the build), and the installed ``asz_core`` is checked to be the new
environment's own. Both builds run every build step but the compiling of the C helpers, the same sources for both:
:func:`compiled_build` compiles them once a run (shared by the xdist workers) and each build's ``build/`` starts
with that ``build_ext`` output, newer than its sources, which setuptools then takes as up to date; each installed copy
is checked to hold exactly those compiled modules. Slow.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

from run_once import made_once

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


@pytest.fixture(scope="session")
def compiled_build(tmp_path_factory) -> Path:
    """The ``build/`` folder of one ``setup.py build_ext`` over this checkout's tracked files (the C helpers compiled as
    every build of them compiles them), made once a run and shared by its xdist workers (:func:`run_once.made_once`),
    named by the SHA-256 of the tracked C sources, headers, ``setup.py`` and this interpreter's version. Raises
    AssertionError when the build fails."""
    h = hashlib.sha256(sys.version.encode())
    for name in sorted(run("git", "-C", str(REPO), "ls-files", "-z", "setup.py", "*.c", "*.h").split("\0")):
        if name:
            h.update(name.encode() + b"\0" + (REPO / name).read_bytes() + b"\0")

    def make(tree: Path) -> None:
        tracked_files(tree)
        run(sys.executable, "setup.py", "-q", "build_ext", cwd=tree)

    return made_once(tmp_path_factory, f"asz-compiled-{h.hexdigest()[:16]}", make) / "build"


def compiled_names(folder: Path) -> list[str]:
    """The compiled modules under ``folder`` (``asz_core/verify/linescan.cpython-311-x86_64-linux-gnu.so``...)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*" + sysconfig.get_config_var("EXT_SUFFIX")))


def built_already(tree: Path, compiled: Path) -> list[str]:
    """``compiled``'s ``build_ext`` output copied to ``tree/build``, every file newer than ``tree``'s sources (written
    before), as an earlier build of this tree would have left it; the compiled modules, relative to ``build/lib.*``."""
    shutil.copytree(compiled, tree / "build")
    for p in (tree / "build").rglob("*"):
        os.utime(p)
    (lib,) = [p for p in (tree / "build").iterdir() if p.name.startswith("lib.")]
    return compiled_names(lib)


def installed_compiled(py: Path) -> list[str]:
    """The compiled modules the environment of ``py`` has installed, relative to its site-packages."""
    return compiled_names(Path(run(str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])").strip()))


def test_pip_install_dot_names_the_commit_it_was_built_from(tmp_path, compiled_build):
    clone = tmp_path / "clone"
    run("git", "clone", "-q", "--depth", "1", f"file://{REPO}", str(clone))
    tracked_files(clone)
    want_compiled = built_already(clone, compiled_build)
    run("git", "-C", str(clone), "add", "-A")
    run("git", "-C", str(clone), "-c", "user.name=asz test", "-c", "user.email=test@example.invalid", "commit", "-q",
        "--allow-empty", "-m", "the work tree as it is")
    want = run("git", "-C", str(clone), "log", "-1", "--format=%h of %cs").strip()
    py = new_env(tmp_path / "env")
    pip(py, "--no-build-isolation", ".", cwd=clone)
    assert not (clone / "asz_core" / "_version_info.py").exists()  # written into the build, not the checkout
    assert installed_compiled(py) == want_compiled
    got = version(py, tmp_path)
    assert got.startswith(f"asz {VERSION}, source {want} (Python "), got


def test_a_wheel_from_a_tree_without_git_says_unknown_commit(tmp_path, compiled_build):
    tree = tmp_path / "tree"
    tracked_files(tree)
    assert (tree / "setup.py").is_file() and not (tree / ".git").exists()
    want_compiled = built_already(tree, compiled_build)
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist"), str(tree))
    (wheel,) = (tmp_path / "dist").glob("asz-*.whl")
    py = new_env(tmp_path / "env")
    pip(py, str(wheel))
    assert installed_compiled(py) == want_compiled
    got = version(py, tmp_path)
    assert got.startswith(f"asz {VERSION}, unknown commit (Python "), got
