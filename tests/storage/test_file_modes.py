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


def test_a_mask_that_lets_others_write_or_takes_the_owners_bits_is_refused(corpus_dir, tmp_path):
    """Trial 42a F6: ``ASZ_UMASK=000`` made folders 0777 and the index and state files 0666 (any local account could
    rewrite cursors, lists, the index); ``0777`` made everything mode 0 and collect failed with a misleading line. Such
    a mask stops every command before it writes anything (exit 2); ``007`` (a group that writes on purpose) is taken;
    ``asz hook`` (never exit 2: Claude Code takes it as a block) says it and writes under the default."""
    source = _private_source(corpus_dir, tmp_path / "src")
    root = tmp_path / "root"
    for mask, why in (("000", "lets every local account write what asz writes (folders 0777, the index, cursors and "
                               "lists 0666): a mask must take others' write bit (002) away"),
                      ("020", "lets every local account write what asz writes (folders 0757"),
                      ("0777", "takes the owner's own bits away (700): the folders asz makes would be 0000")):
        p = console("collect", "--once", "--source", str(source), "--root", str(root), env={"ASZ_UMASK": mask})
        assert p.returncode == 2 and p.stdout == "", p.stdout + p.stderr
        assert p.stderr.startswith(f"asz: ASZ_UMASK={mask} {why}") and p.stderr.count("\n") == 1, p.stderr
        assert "unset ASZ_UMASK (the default: 077 added to the umask) or set 027" in p.stderr
        assert not root.exists()
    run = {k: v for k, v in os.environ.items() if k != "ASZ_UMASK"}
    m = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "ls", "--root", str(root)], capture_output=True,
                       text=True, env={**run, "ASZ_UMASK": "000"}, timeout=600)
    assert m.returncode == 2 and m.stderr.startswith("asz: ASZ_UMASK=000 lets every local account write"), m.stderr
    data = tmp_path / "hookdata"
    event = '{"hook_event_name": "PostToolUse", "tool_name": "mcp__x__y", "session_id": "s1"}'  # no tool_use_id: logged
    h = subprocess.run([str(Path(sys.executable).with_name("asz")), "hook", "--data", str(data)], input=event,
                       capture_output=True, text=True, env={**run, "ASZ_UMASK": "000"}, timeout=600)
    assert h.returncode == 0 and h.stdout == "", h.stderr
    assert h.stderr.startswith("asz: warning: ASZ_UMASK=000 lets every local account write") and "using 077" in h.stderr
    written = _modes(data)
    assert (data / "log" / "plugin.log").is_file() and written["dirs"] == {0o700} and written["other"] == {0o600}
    _asz("collect", "--once", "--source", str(source), "--root", str(root), env={"ASZ_UMASK": "007"})
    assert _modes(root)["dirs"] == {0o770}
