"""A root an older asz made, open to other users, is said by ``asz verify`` once, with the command that closes it
(fix36c item 4; trial 34c F5, left open by f2d21d21, which writes new roots private but changes no mode already
there).

The real console script collects a real corpus transcript and builds the search index under ``ASZ_UMASK=022`` (as
every asz did before: folders 0755, files 0644, landed files 0444); ``asz verify`` under the default mask says on
stderr how many entries are open (counted here with ``os.walk`` and ``lstat``), names the first and gives ``chmod -R
go-rwx ROOT``; that command, pasted into a real shell, closes them, and ``asz verify`` then says nothing of modes.
Under ``ASZ_UMASK=022`` (a root kept open on purpose) nothing is said. The report on stdout and the exit code are
the same either way."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from test_file_modes import TRANSCRIPT
from test_file_modes import console as _asz


def _open(root: Path) -> list[str]:
    """Every entry under ``root`` (itself included; links not followed, not counted) whose mode gives the group or
    others any bit."""
    got = [] if not stat.S_IMODE(root.lstat().st_mode) & 0o077 else [str(root)]
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.lstat(os.path.join(top, name))
            if not stat.S_ISLNK(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077:
                got.append(os.path.join(top, name))
    return got


def test_an_open_root_is_said_once_and_closed_by_the_command_given(corpus_dir, tmp_path):
    src = tmp_path / "src" / "-home-user-claude-reliability"
    src.mkdir(parents=True)
    shutil.copyfile(corpus_dir / TRANSCRIPT, src / Path(TRANSCRIPT).name)
    root = tmp_path / "old root"  # a space: the command's root is one shell word
    old = {"ASZ_UMASK": "022"}  # what every asz wrote before f2d21d21
    assert _asz("collect", "--once", "--source", str(src.parent), "--root", str(root), env=old).returncode == 0
    assert _asz("search", "--root", str(root), "the", env=old).returncode == 0
    assert stat.S_IMODE(root.stat().st_mode) == 0o755
    kept_open = _asz("verify", "--root", str(root), env=old)  # a root its owner keeps open: nothing said
    assert kept_open.returncode == 0 and "open to more users" not in kept_open.stderr, kept_open.stderr

    before = _open(root)
    assert len(before) > 10  # the root, its folders, landed files, the index
    p = _asz("verify", "--root", str(root))
    assert p.returncode == 0 and p.stdout == kept_open.stdout, p.stdout  # the report is the same
    (note,) = [x for x in p.stderr.splitlines() if "open to more users" in x]  # once
    command = f"chmod -R go-rwx '{root}'"
    assert note == (f"asz verify: note: {len(before):,} file(s) and folder(s) of {root} are open to more users than asz "
                    f"allows now (the first: {root}; umask 077): made by an older asz or under a looser umask; "
                    f"{command} closes them (docs/storage-root.md, Who can read a root)"), note
    js = _asz("verify", "--json", "--root", str(root))
    assert js.returncode == 0 and "open to more users" in js.stderr and js.stdout.startswith("{")

    pasted = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)
    assert pasted.returncode == 0, pasted.stderr
    assert _open(root) == []  # closed: no entry open to the group or others
    again = _asz("verify", "--root", str(root))
    assert again.returncode == 0 and "open to more users" not in again.stderr and again.stdout == p.stdout
    assert _asz("ls", "--root", str(root)).returncode == 0  # still the user's to read
