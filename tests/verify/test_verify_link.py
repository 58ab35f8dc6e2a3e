"""A landed file replaced by a symbolic link to an identical copy outside the root is not the landed file (trial 42a F4:
``asz verify`` exited 0, ``asz ls`` said ``verified`` and ``asz export`` read through the link, while the page answered
403, docs/view.md "No links"). Every reader opens a landed file with ``O_NOFOLLOW`` (asz_core/sessiondata/nolink.py):
verify fails with one ``symbolic link`` problem naming the link's target and the way back, and no gap is told of it
again; ``ls`` says ``mismatch`` and the export (exit 1) says the conversation does not verify. Put back as the problem says, the root verifies.

Real input: the collected corpus root (a copy); the link is made on the real file system, the file moved out whole."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from cli_helpers import asz_in_process as asz


def _one_conversation(root: Path) -> tuple[str, Path]:
    """A conversation named as its session, and the first landed file of its main stream."""
    for conv in sorted((root / "_conversations").iterdir()):
        landed = sorted((root / conv.name / "streams" / "main").glob("transcript-*.sd"))
        if landed:
            return conv.name, landed[0]
    raise AssertionError(f"no conversation with a main transcript under {root}")


def test_a_landed_file_that_is_a_link_fails_verify_and_is_read_by_no_reader(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "root")
    conv, landed = _one_conversation(root)
    outside = tmp_path / "outside" / landed.name
    outside.parent.mkdir()
    os.rename(landed, outside)  # the same bytes, the same inode: only where it is differs
    os.symlink(outside, landed)

    v = asz("verify", "--root", str(root), "--json")
    assert v.returncode == 1, v.stdout + v.stderr
    problems = json.loads(v.stdout)["problems"]
    linked = [p for p in problems if p["problem"] == "symbolic link"]
    assert [p["file"] for p in linked] == [str(landed)]
    assert linked[0]["detail"].startswith(f"the landed file is a link to {outside}, whose bytes were not read: asz "
                                          "follows no symbolic link inside a storage root")
    stream = str(landed.parent)
    assert not [p for p in problems if p["file"].startswith(stream) and p is not linked[0]]  # no gap told again
    chain = [p for p in problems if p["problem"] == "chain"]
    assert chain and all(f"_conversations/{conv}/" in p["file"] for p in chain)

    rows = {r["id"]: r for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}
    assert rows[conv]["state"] == "mismatch"

    md = asz("export", conv, "--root", str(root), "--format", "md")
    assert md.returncode == 1, md.stderr  # written without what does not verify, and said
    assert ", state mismatch\n" in md.stdout
    said = f"landed file {landed.relative_to(root).as_posix()} cannot be read: a symbolic link to {outside}, not the file"
    assert said in md.stdout and f"asz export: warning: {conv} does not verify: {said}" in md.stderr

    way_back = re.search(r"\((cp --remove-destination [^;]+; chmod a-w [^)]+)\)", linked[0]["detail"]).group(1)
    subprocess.run(way_back, shell=True, check=True)
    assert not landed.is_symlink()
    assert asz("verify", "--root", str(root)).returncode == 0
    rows = {r["id"]: r for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}
    assert rows[conv]["state"] == "verified"
