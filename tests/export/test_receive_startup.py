"""``asz receive`` that cannot start says why in one line, exit 1, and leaves no folder it made (trial 41a F3, F4;
docs/push.md, The receiver; docs/cli.md, asz receive).

Before: a port in use printed a traceback ending ``AttributeError: 'Server' object has no attribute '_stop'`` (the
``Address already in use`` hidden) and left the empty root it had made; a root on a read-only mount said ``cannot
listen on 127.0.0.1:47319: Read-only file system``, a root that is a file ``cannot listen …: File exists``, and an
existing root on a read-only mount started and refused every file. Real processes, a real bound socket; the read-only
mount is a real tmpfs mounted read-only (skipped with the reason where it cannot be mounted)."""

from __future__ import annotations

import os
import socket
import subprocess

from export_helpers import asz
from tmpfs import mount_tmpfs


def _lines(p: subprocess.CompletedProcess) -> list[str]:
    return [ln for ln in p.stderr.splitlines() if ln.strip()]


def test_a_port_in_use_is_one_line_and_no_folder_is_left(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for extra in ([], ["--own-token"]):  # --own-token makes the root's token file before the port is bound
            root = tmp_path / "new" / "team"
            p = asz("receive", "--listen", f"127.0.0.1:{port}", "--root", str(root), *extra, cwd=tmp_path)
            assert p.returncode == 1, p.stderr
            assert _lines(p) == [f"asz receive: cannot listen on 127.0.0.1:{port}: {os.strerror(98)}"], p.stderr
            assert not (tmp_path / "new").exists(), sorted(tmp_path.rglob("*"))


def test_a_root_that_is_a_file_is_named(tmp_path):
    root = tmp_path / "team"
    root.write_text("not a root\n")
    p = asz("receive", "--listen", "127.0.0.1:0", "--root", str(root), cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    assert _lines(p) == [f"asz receive: cannot receive into --root {root}: not a folder; nothing sent there could "
                         "land"], p.stderr
    assert root.read_text() == "not a root\n"


def test_a_root_on_a_read_only_mount_refuses_to_start(tmp_path):
    mnt = mount_tmpfs(tmp_path / "ro", "1m")
    try:
        (mnt / "team").mkdir()  # an existing root, then the mount made read-only
        r = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for root in (mnt / "team", mnt / "new"):
            p = asz("receive", "--listen", "127.0.0.1:0", "--root", str(root), cwd=tmp_path)
            assert p.returncode == 1, p.stderr
            assert _lines(p) == [f"asz receive: cannot receive into --root {root}: {os.strerror(30)}; nothing sent "
                                 "there could land"], p.stderr
        assert sorted(x.name for x in mnt.iterdir()) == ["team"]
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
