"""A command whose standard output is a pipe its reader closed exits 0 with nothing on stderr (``git log | head``).

Real pipes, no mocks: the reader's end is closed before the command writes, so every write meets EPIPE
however fast the machine is; and a shell pipeline ``asz ls | head -1`` under ``pipefail``. The commands writing into a
closed pipe are forked from the pre-imported server (tests/forked.py: SIGPIPE ignored as the interpreter leaves it, and
its exit flushes stdout as the interpreter's does, 120 when that fails); the shell pipeline's is a fresh interpreter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import forked
import pytest

ASZ = [sys.executable, "-m", "asz_core.cli.main"]


def _run_into_closed_pipe(args: list[str]) -> subprocess.CompletedProcess:
    r, w = os.pipe()
    os.close(r)  # nobody will read: the command's first write to stdout fails with EPIPE
    try:
        return forked.run([*ASZ, *args], stdout=w, stderr=subprocess.PIPE, timeout=300)
    finally:
        os.close(w)


@pytest.mark.parametrize("args", [
    ["ls"], ["ls", "--json"], ["usage", "daily"], ["usage", "session", "--json"], ["search", "the"],
    ["export", "--format", "md", "--since", "2000-01-01"], ["--help"],
])
def test_a_closed_pipe_ends_the_command_quietly_with_exit_0(corpus_root, args):
    if args[0] == "search":  # collect --once leaves the index to the first search, which says on stderr what it indexed
        from asz_core.reading.search import update_index

        update_index(corpus_root)
    p = _run_into_closed_pipe([*args, "--root", str(corpus_root)] if args != ["--help"] else args)
    assert p.returncode == 0 and p.stderr == b"", (p.returncode, p.stderr.decode(errors="replace")[-2000:])


def test_ls_piped_to_head_exits_0(corpus_root):
    if shutil.which("bash") is None or shutil.which("head") is None:
        pytest.skip("bash and head are needed for a shell pipeline")
    cmd = " ".join(ASZ) + f" ls --root '{corpus_root}' | head -1"
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert len(p.stdout.splitlines()) == 1


def test_a_real_error_keeps_its_exit_code_with_a_closed_pipe(tmp_path):
    """Not every failure becomes 0: a root that does not exist is still exit 1 with its message."""
    p = _run_into_closed_pipe(["ls", "--root", str(tmp_path / "nowhere")])
    assert p.returncode == 1 and b"nowhere" in p.stderr


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_an_export_to_a_file_is_written_whole_with_its_manifest_when_stderr_is_closed(corpus_root, tmp_path, fmt):
    """Trial 39c F3: ``asz export ID --format json --out a.json 2>&1 | head -1`` ended at its first stderr line (the
    clipped-texts note), exit 0, and no ``a.json.manifest.json``. Both streams a pipe nobody reads: the copy and its
    manifest are written, the exit is the export's, and the copy checks against the root."""
    cid = sorted(p.name for p in (corpus_root / "_conversations").iterdir() if not p.name.startswith("."))[0]
    out = tmp_path / f"a.{fmt}"
    r, w = os.pipe()
    os.close(r)
    try:
        p = forked.run([*ASZ, "export", cid, "--format", fmt, "--out", str(out), "--root", str(corpus_root)],
                       stdout=w, stderr=w, timeout=300)
    finally:
        os.close(w)
    assert p.returncode == 0 and out.is_file() and out.with_name(out.name + ".manifest.json").is_file(), p.returncode
    v = forked.run([*ASZ, "verify", "--export", str(out), "--root", str(corpus_root)], capture_output=True, text=True,
                   timeout=300)
    assert v.returncode == 0 and v.stdout.splitlines()[-1] == "the copy checks against the root", v.stdout + v.stderr
