"""A storage root whose file system is full (trial 26a F2, F3, F5): the pass line counts every file and record the pass
landed, one ``error:`` line says the file system refused a write (naming the root), the pass stops there, and the
next pass with room says why the cursors it finds behind are behind (the cursor could not be written).

Two real ways to make writes fail: ``RLIMIT_FSIZE`` in the child (a write past the limit fails with EFBIG; no root
needed), and a small tmpfs (ENOSPC; needs root and ``mount``, skipped with the reason otherwise).
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import uuid
from pathlib import Path

import forked
import pytest

from collect_helpers import ASZ, append, env, line, mini_args, summary
from tmpfs import mount_tmpfs
from asz_core.storage.layout import landed_files, session_dirs


def _sources(src: Path, sizes: list[tuple[int, int]]) -> list[str]:
    """One session per ``(lines, bytes per line)``, named so discovery takes them in this order; their names."""
    names = []
    for k, (n, size) in enumerate(sizes):
        name = f"{k:02d}{uuid.UUID(int=k + 1).hex[2:]}"
        append(src / name / "main.jsonl", *(line(i, size) for i in range(n)))
        names.append(name)
    return names


def _landed(root: Path) -> tuple[int, int]:
    """(landed ``.sd`` files, record lines in them) counted from the files: each has a header and a closing line."""
    files = records = 0
    for sdir in session_dirs(root):
        for _, f in landed_files(sdir):
            if f.suffix == ".sd":
                files += 1
                records += len(f.read_bytes().rstrip(b"\n").split(b"\n")) - 2
    return files, records


def _run(src: Path, root: Path, limit: int | None = None) -> subprocess.CompletedProcess:
    """``asz collect --once --jobs 1`` with the mini adapter in a child; ``limit``: its RLIMIT_FSIZE in bytes (and
    SIGXFSZ ignored, so a write past it fails with EFBIG instead of killing the child)."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([*ASZ, "collect", "--once", "--jobs", "1", *mini_args(src, root)], env=env(),
                          capture_output=True, text=True, timeout=120, preexec_fn=limited if limit else None)


def test_a_file_too_large_stops_the_pass_once_and_counts_what_landed(tmp_path):
    """RLIMIT_FSIZE of 64 KiB: sessions 0-3 land (4 KiB each), session 4's one file (about 200 KiB) cannot be written.
    Before: one ``error: …: read failed: File too large`` per failing source, every session after it tried."""
    src, root = tmp_path / "src", tmp_path / "root"
    sizes = [(20, 200)] * 4 + [(100, 2000)] + [(20, 200)] * 5
    _sources(src, sizes)
    r = _run(src, root, limit=64 * 1024)
    assert r.returncode == 1, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, r.stderr
    assert errors[0].startswith(f"error: {root}: the storage root's file system refused a write (File too large)")
    assert "5 of 10 session(s) not collected this pass" in errors[0]
    s = summary(r.stdout)
    files, records = _landed(root)
    assert (files, records) == (4, 80)  # what landed: sessions 0-3 whole
    assert (int(s["landed"]), int(s["records"]), int(s["errors"]), int(s["sessions"])) == (files, records, 1, 5)

    r2 = _run(src, root)  # room again: the rest lands, nothing twice
    assert r2.returncode == 0, r2.stderr
    s2 = summary(r2.stdout)
    files2, records2 = _landed(root)
    assert records2 == sum(n for n, _ in sizes) == int(s["records"]) + int(s2["records"])
    assert files2 == int(s["landed"]) + int(s2["landed"])
    assert not (root / "_collect" / "full").exists()


@pytest.mark.slow
def test_a_full_file_system_is_said_once_and_the_next_pass_says_why(tmp_path):
    """A 1 MiB tmpfs and 40 sessions of 60 KiB: the disk fills part way. Before: the pass line counted a fraction of
    what landed (or nothing, when the last sync failed), an error line or two per session, and the next pass's notes
    blamed a pass killed."""
    mnt = tmp_path / "small"
    mount_tmpfs(mnt, "1m")
    try:
        src, root = tmp_path / "src", mnt / "root"
        sizes = [(30, 2000)] * 40
        _sources(src, sizes)
        r = subprocess.run([*ASZ, "collect", "--once", *mini_args(src, root)], env=env(), capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 1, r.stderr
        errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
        assert len(errors) == 1 and errors[0].startswith(f"error: {root}: the storage root's file system refused a "
                                                         "write (No space left on device)"), r.stderr
        s = summary(r.stdout)
        files, records = _landed(root)
        assert files > 0
        assert (int(s["landed"]), int(s["records"]), int(s["errors"])) == (files, records, 1)
        assert "a pass killed" not in r.stderr

        subprocess.run(["mount", "-o", "remount,size=20m", str(mnt)], check=True)
        r2 = subprocess.run([*ASZ, "collect", "--once", *mini_args(src, root)], env=env(), capture_output=True,
                            text=True, timeout=120)
        assert r2.returncode == 0, r2.stderr
        s2 = summary(r2.stdout)
        files2, records2 = _landed(root)
        assert records2 == sum(n for n, _ in sizes) == int(s["records"]) + int(s2["records"])
        assert files2 == int(s["landed"]) + int(s2["landed"])
        notes = [ln for ln in r2.stderr.splitlines() if ln.startswith("note:")]
        assert all("the cursor could not be written: the storage root's file system was full" in n for n in notes), notes
        assert "a pass killed" not in r2.stderr
        assert not list(root.rglob("*.tmp"))  # no temporary file left (trial 26a F5)
        v = forked.run([*ASZ, "verify", "--root", str(root)], env=env(), capture_output=True, text=True, timeout=120)
        assert v.returncode == 0, v.stdout + v.stderr
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_cursor_temporaries_left_are_said_by_verify_and_removed_by_the_next_pass(tmp_path):
    """Trial 26a F5: ``.transcript.cursor.PID.tmp`` left by a writer refused by a full disk (or killed) stayed for good
    and verify said nothing. Now verify notes them, and the next pass that takes the session's lock removes them."""
    src, root = tmp_path / "src", tmp_path / "root"
    (name,) = _sources(src, [(5, 100)])
    assert _run(src, root).returncode == 0
    left = root / name / "streams" / "main" / ".transcript.cursor.99999999.tmp"
    left.write_bytes(b"ord             3\n")  # what a write cut short leaves
    v = forked.run([*ASZ, "verify", "--root", str(root)], env=env(), capture_output=True, text=True, timeout=120)
    assert v.returncode == 0
    assert (f"1 temporary file(s) a writer left (.<name>.<pid>.tmp, e.g. {name}/streams/main/.transcript.cursor."
            "99999999.tmp: a writer killed, or refused by a full disk): they never landed and are not checked; the next "
            "asz collect that takes their session's lock removes them") in v.stdout
    append(src / name / "main.jsonl", line(5, 100))  # something new: the pass takes the session's lock
    r = _run(src, root)
    assert r.returncode == 0 and summary(r.stdout)["landed"] == "1"
    assert not left.exists()
    v = forked.run([*ASZ, "verify", "--root", str(root)], env=env(), capture_output=True, text=True, timeout=120)
    assert "temporary file(s)" not in v.stdout


def test_a_parse_that_meets_the_full_file_system_says_it_once(tmp_path):
    """Landing fits, the parse does not (recheck 26, N1: 236 lines of ``error: <id>: No space left on device`` and
    ``errors=236``, and no line saying the file system is full). Six sessions land with ``--no-parse``; the next pass,
    with RLIMIT_FSIZE below a round's size, says one ``error:`` on the root and counts it once; a pass with room then
    writes every session's round."""
    src, root = tmp_path / "src", tmp_path / "root"
    names = _sources(src, [(30, 300)] * 6)
    landed = subprocess.run([*ASZ, "collect", "--once", "--no-parse", "--jobs", "1", *mini_args(src, root)], env=env(),
                            capture_output=True, text=True, timeout=120)
    assert landed.returncode == 0, landed.stderr
    r = _run(src, root, limit=4000)
    assert r.returncode == 1, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: {root}: the storage root's file system refused a write (File too large) while parsing: "
                      f"6 session(s) not parsed this pass; what landed is kept, and a pass with room parses them"]
    s = summary(r.stdout)
    assert (int(s["errors"]), int(s["rounds"])) == (1, 0)
    again = _run(src, root)
    assert again.returncode == 0, again.stderr
    assert int(summary(again.stdout)["rounds"]) == len(names)


def test_a_root_made_read_only_during_a_pass_is_one_line_and_the_next_pass_lands_the_rest(tmp_path):
    """Trial 41b F3: the root made read-only mid-pass printed 207 ``error:`` lines (one a session, ``Permission
    denied``) where a full file system gives one. The root bound read-only over itself (``mount --bind``, then
    ``remount,bind,ro``: the collector's open files stay, every path in the root refuses writes) after the second of
    five sessions landed: one ``error:`` line naming the root and why, the pass stops there; writable again (the bind
    gone), the next pass lands the rest, every source line once (counted in the sources)."""
    from collect_helpers import Runner

    from asz_core.plugins import get_plugin_manager

    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a read-only bind mount needs root and the mount command")
    src, root = tmp_path / "src", tmp_path / "root"
    for k in range(5):
        append(src / "-p" / f"{uuid.UUID(int=k + 1)}.jsonl", *(line(i, 300) for i in range(20)))
    total = sum(f.read_bytes().count(b"\n") for f in src.rglob("*.jsonl"))
    run = Runner(root, src, get_plugin_manager().get("claude-code-local"), fsync=False)
    bound: list[bool] = []

    def read_only_after_two(session: str, n: int, of: int) -> None:
        if n == 2:
            for how in (["--bind"], ["-o", "remount,bind,ro"]):
                r = subprocess.run(["mount", *how, str(root), str(root)], capture_output=True, text=True)
                if r.returncode != 0:
                    pytest.skip(f"cannot bind the root read-only here: {r.stderr.strip()}")
                bound.append(True)

    try:
        c = run.collector.run_pass(read_only_after_two)
        said = [ln for ln in run.err.splitlines() if ln.startswith("error:")]
        assert said == [f"error: {root}: the storage root can no longer be written (Read-only file system): the pass "
                        "stopped there, 3 of 5 session(s) not collected this pass; what landed is kept and counted on "
                        "the pass line; once the root is writable again the next pass goes on from each source's cursor "
                        "(nothing lands twice)"], run.err
        assert (c.errors, c.sessions, c.records) == (1, 2, _landed(root)[1])
    finally:
        if bound:
            subprocess.run(["umount", "-l", str(root)], capture_output=True)
    again = run()
    assert again.errors == 0 and _landed(root)[1] == total == c.records + again.records
