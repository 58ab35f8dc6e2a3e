"""Two exports to one file at once: the second is refused, exit 1 (trial 39a F1). Two folder exports into one folder
at once (trial 35b F5: both exited 0, but the second said it "resumed an interrupted export" of the first's partial manifest, though nothing was interrupted, and each removes a ``.part``
the other is writing): the folder is locked (``flock`` on the folder itself, no file added), the second waits for the
first, says so, then finds the first's copies and leaves them as they are.

Real processes (``python -m asz_core.cli.main``, forked from the pre-imported server: tests/forked.py) on the Claude
Code corpus collected; the lock the first holds is taken here with the same ``flock`` where the order must be known."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import forked
from reading_helpers import REPO, asz, stopped_itself

WAIT = "another asz export is writing into"


#: Two windows of the corpus (UTC): de3b8b19 alone (2,852 bytes of text), and 55604662 with 8463c716.
ONE, OTHER = ("2026-01-21", "2026-01-22"), ("2026-02-10", "2026-02-11")


def _export(root, out, err=subprocess.PIPE, window: tuple[str, ...] = ("2000-01-01",)) -> subprocess.Popen:
    """``asz export`` of ``window`` (--since, and --until when given; the whole corpus by default) into ``out/``."""
    bounds = ["--since", window[0], *(["--until", window[1]] if len(window) > 1 else [])]
    return forked.Popen([sys.executable, "-m", "asz_core.cli.main", "export", *bounds, "--tz", "UTC",
                         "--format", "text", "--root", str(root), "--out", f"{out}/"],
                        stdout=subprocess.PIPE, stderr=err, text=True, cwd=REPO)


def test_an_export_waits_for_the_one_writing_into_its_folder(corpus_root, tmp_path):
    out = tmp_path / "day"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as an export at work holds it
    with open(tmp_path / "err", "w") as err:
        p = _export(corpus_root, out, err, ONE)  # what it waits for is the folder, whatever it exports
        try:
            deadline = time.monotonic() + 120
            while WAIT not in (tmp_path / "err").read_text() and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert p.poll() is None and WAIT in (tmp_path / "err").read_text()
            assert list(out.iterdir()) == []  # waiting: nothing written or removed while the folder is held
        finally:
            os.close(fd)
        p.communicate(timeout=300)
    said = (tmp_path / "err").read_text()
    assert p.returncode == 0, said
    assert f"asz export: {WAIT} {out}: waiting for it to end" in said
    assert "resumed an interrupted export" not in said
    v = asz("verify", "--export", f"{out}/", "--root", str(corpus_root), check=False)
    assert v.returncode == 0, v.stdout


def test_two_at_once_write_one_folder_and_neither_says_resumed(corpus_root, tmp_path):
    out = tmp_path / "both"
    out.mkdir()
    a, b = _export(corpus_root, out), _export(corpus_root, out)
    errs = [p.communicate(timeout=600)[1] for p in (a, b)]
    assert [a.returncode, b.returncode] == [0, 0], errs
    assert not any("resumed an interrupted export" in e for e in errs), errs
    assert sum(WAIT in e for e in errs) <= 1
    alone = tmp_path / "alone"
    p = _export(corpus_root, alone)
    p.communicate(timeout=600)
    names = sorted(x.name for x in out.iterdir())
    assert names == sorted(x.name for x in alone.iterdir())
    for n in names:
        if n.endswith(".txt"):
            assert (out / n).read_bytes() == (alone / n).read_bytes(), n
    v = asz("verify", "--export", f"{out}/", "--root", str(corpus_root), check=False)
    assert v.returncode == 0, v.stdout


def _to_file(root, out: Path, window: tuple[str, str], stop: str = "") -> subprocess.Popen:
    env = {**os.environ, "ASZ_TEST_EXPORT_STOP": stop} if stop else dict(os.environ)
    return forked.Popen([sys.executable, "-m", "asz_core.cli.main", "export", "--since", window[0], "--until", window[1],
                         "--tz", "UTC", "--format", "text", "--root", str(root), "--out", str(out)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)


def test_a_second_export_to_the_same_file_is_refused_and_the_first_writes_it_whole(corpus_root, tmp_path):
    """Trial 39a F1: two ``--out same.txt`` at once shared ``same.txt.part``; one said ``wrote`` while the file mixed
    both windows, the other failed. The first, stopped with its stream whole in ``same.txt.part``, holds
    ``same.txt.lock``; the second writes nothing and exits 1 naming the first's pid; the first then writes exactly the
    file it says, its manifest matching (asz verify --export). A kill -9 leaves the lock file, not the lock."""
    out = tmp_path / "same.txt"
    first = stopped_itself(_to_file(corpus_root, out, ONE, "stream:1"), "stream")
    try:
        part = out.with_name("same.txt.part").read_bytes()
        assert b"de3b8b19" in part and b"55604662" not in part
        second = _to_file(corpus_root, out, OTHER)
        said = second.communicate(timeout=300)[1]
        assert second.returncode == 1, said
        assert f"asz export: another asz export (pid {first.pid}, started " in said and f"is writing {out}" in said
        assert not out.exists() and out.with_name("same.txt.part").read_bytes() == part  # nothing touched
    finally:
        os.kill(first.pid, signal.SIGCONT)
    said = first.communicate(timeout=300)[1]
    assert first.returncode == 0, said
    assert f"wrote {out} ({len(part):,} bytes)" in said and out.read_bytes() == part
    assert sorted(p.name for p in tmp_path.iterdir()) == ["same.txt", "same.txt.manifest.json"]  # the lock gone
    v = asz("verify", "--export", str(out), "--root", str(corpus_root), check=False)
    assert v.returncode == 0, v.stdout
    killed = stopped_itself(_to_file(corpus_root, out, ONE, "stream:1"), "stream")
    killed.kill()
    killed.communicate()
    assert out.with_name("same.txt.lock").read_text().startswith(f"pid {killed.pid}, ")  # left, its lock released
    again = _to_file(corpus_root, out, ONE)
    assert again.communicate(timeout=300) and again.returncode == 0
    assert out.read_bytes() == part and not out.with_name("same.txt.lock").exists()


def test_a_link_planted_at_the_part_or_the_lock_is_never_written_through(corpus_root, tmp_path):
    """Review 40: ``OUT.part`` and ``OUT.lock`` were opened following a symbolic link, so a link planted there in a
    writable folder had its target truncated (``.part``) or written over (``.lock``). Now each is opened with
    ``O_NOFOLLOW``: the export writes nothing, exits 1 naming the link, and the target keeps its bytes."""
    target = tmp_path / "precious"
    target.write_bytes(b"kept bytes\n" * 100)
    for suffix in (".part", ".lock"):
        out = tmp_path / f"day{suffix[1:]}.txt"
        link = out.with_name(out.name + suffix)
        link.symlink_to(target)
        p = asz("export", "--since", ONE[0], "--until", ONE[1], "--tz", "UTC", "--format", "text",
                "--root", str(corpus_root), "--out", str(out), check=False)
        assert p.returncode == 1, (suffix, p.stderr)
        assert f"asz export: {link} is a symbolic link: nothing written" in p.stderr, p.stderr
        assert target.read_bytes() == b"kept bytes\n" * 100 and link.is_symlink() and not out.exists(), suffix
