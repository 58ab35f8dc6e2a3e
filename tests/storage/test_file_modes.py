"""What asz writes is its user's alone by default (trial 34c F5: a 0600 transcript in 0700 folders landed in a 0755
root as a 0444 file, the search index 0644, an html export 0644: on a shared machine every local user read every
transcript and the credentials in it).

The real console script (``asz``, beside this Python) collects a real corpus transcript kept private (0600 in 0700
folders), builds the search index and exports html; every mode is read with ``stat``. ``ASZ_UMASK=027`` lets the
group read; a root that was there already keeps its mode and stays readable by its owner."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"


def console(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The installed ``asz`` console script run with ``args`` (the environment's ``ASZ_UMASK`` left out, ``env`` added);
    the test skips where there is no console script beside the interpreter."""
    script = Path(sys.executable).with_name("asz")
    if not script.is_file():
        pytest.skip(f"no console script at {script}")
    run = {k: v for k, v in os.environ.items() if k != "ASZ_UMASK"}
    return subprocess.run([str(script), *args], capture_output=True, text=True, env={**run, **(env or {})}, timeout=600)


def _asz(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    p = console(*args, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def _private_source(corpus_dir: Path, base: Path) -> Path:
    folder = base / "projects" / "-private"
    folder.mkdir(parents=True)
    for d in (base, base / "projects", folder):
        d.chmod(0o700)
    target = folder / Path(TRANSCRIPT).name
    shutil.copyfile(corpus_dir / TRANSCRIPT, target)
    target.chmod(0o600)
    return base / "projects"


def _modes(root: Path) -> dict[str, set[int]]:
    """The modes under ``root`` (itself included): folders, landed files (.sd), every other file."""
    out: dict[str, set[int]] = {"dirs": set(), "landed": set(), "other": set()}
    for p in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(p.lstat().st_mode)
        out["dirs" if p.is_dir() else "landed" if p.suffix == ".sd" else "other"].add(mode)
    return out


def _work(source: Path, root: Path, out: Path, env: dict | None = None) -> None:
    _asz("collect", "--once", "--source", str(source), "--root", str(root), env=env)
    _asz("search", "--root", str(root), "the", env=env)  # builds _index/search.sqlite
    _asz("export", "de3b8b19", "--root", str(root), "--format", "html", "--out", str(out), env=env)


def test_a_new_root_and_its_exports_are_the_users_alone(corpus_dir, tmp_path):
    source = _private_source(corpus_dir, tmp_path / "src")
    root, out = tmp_path / "root", tmp_path / "c.html"
    _work(source, root, out)
    modes = _modes(root)
    assert stat.S_IMODE(root.stat().st_mode) == 0o700 and modes["dirs"] == {0o700}
    assert modes["landed"] == {0o400}  # write-once: read-only, for its user
    assert modes["other"] >= {0o600, 0o400} and all(m & 0o077 == 0 for m in modes["other"])  # index, cursors, rounds
    assert any(p.name.endswith(".sqlite") for p in (root / "_index").iterdir())
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_asz_umask_lets_a_group_read_and_an_older_root_keeps_its_mode(corpus_dir, tmp_path):
    source = _private_source(corpus_dir, tmp_path / "src")
    root, out = tmp_path / "team", tmp_path / "c.html"
    _work(source, root, out, {"ASZ_UMASK": "027"})
    modes = _modes(root)
    assert modes["dirs"] == {0o750} and modes["landed"] == {0o440} and stat.S_IMODE(out.stat().st_mode) == 0o640
    older = tmp_path / "older"
    older.mkdir(mode=0o755)
    older.chmod(0o755)
    _work(source, older, tmp_path / "d.html")
    assert stat.S_IMODE(older.stat().st_mode) == 0o755  # not changed behind its owner's back
    assert (older / "_README.txt").read_text().startswith("This folder is an asz storage root")
    bad = _asz("ls", "--root", str(older), env={"ASZ_UMASK": "rw-r"})
    assert "asz: warning: ASZ_UMASK='rw-r' is not an octal mask such as 027; using 077" in bad.stderr
