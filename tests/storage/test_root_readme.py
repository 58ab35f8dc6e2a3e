"""A root describes itself: ``<root>/_README.txt`` (trial 29a F10: no README, no format description, no record of the
asz that wrote it). docs/storage-root.md, "The root's description".

Real input: the corpus's Claude Code sessions collected by the real ``asz collect --once``; the version and the
formats expected are asz's own constants and the landed files' headers (``schema`` sd/1, rounds' sf/1)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import orjson
import pytest

from cli_helpers import asz_in_process as asz


@pytest.fixture
def projects(corpus_dir, tmp_path) -> Path:
    src = corpus_dir / "claude-code" / "projects"
    if not src.is_dir():
        pytest.skip(f"{src} is absent")
    one = sorted(p for p in src.iterdir() if p.is_dir())[0]
    dest = tmp_path / "projects" / one.name
    shutil.copytree(one, dest)
    return tmp_path / "projects"


def test_a_new_root_describes_itself_and_verify_counts_it_as_nothing(projects, tmp_path):
    from asz_core import __version__

    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(projects), "--root", str(root))
    readme = root / "_README.txt"
    assert stat.S_IMODE(readme.stat().st_mode) == 0o444
    text = readme.read_text(encoding="utf-8")
    sd = next(root.glob("*/streams/main/*.sd"))
    sf = next(root.glob("_conversations/*/rounds/*.sf"))
    assert orjson.loads(sd.read_bytes().split(b"\n", 1)[0])["schema"] == "sd/1" and "Session Data, schema sd/1" in text
    assert orjson.loads(sf.read_bytes().split(b"\n", 1)[0])["schema"] == "sf/1" and "Session Flow, schema sf/1" in text
    for said in (f"asz {__version__}", "docs/session-data.md", "docs/session-flow.md", "docs/storage-root.md",
                 "asz verify --root <this folder>",
                 "_erased.list", "_removed/", "(gzip, sd/1", "zcat"):  # erasure, skeletons to zcat (trial 32b F11)
        assert said in text, said
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0 and "README" not in v.stdout + v.stderr
    # the same build writes the same file into another root
    other = tmp_path / "other"
    asz("collect", "--once", "--source", str(projects), "--root", str(other))
    assert (other / "_README.txt").read_bytes() == readme.read_bytes()


def test_it_is_written_again_when_missing_and_never_over_one_there(projects, tmp_path):
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(projects), "--root", str(root))
    readme = root / "_README.txt"
    first = readme.read_bytes()
    readme.unlink()
    asz("collect", "--once", "--source", str(projects), "--root", str(root))  # nothing new to land
    assert readme.read_bytes() == first
    os.chmod(readme, 0o644)
    readme.write_text("kept as the archivist wrote it\n")
    asz("collect", "--once", "--source", str(projects), "--root", str(root))
    assert readme.read_text() == "kept as the archivist wrote it\n"


def test_never_into_a_read_only_root(projects, tmp_path):
    from asz_core.storage.describe import describe_root

    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(projects), "--root", str(root))
    (root / "_README.txt").unlink()
    for d in (root, root / "_index"):
        os.chmod(d, stat.S_IMODE(d.stat().st_mode) & ~0o222)
    try:
        assert describe_root(root) is None and not (root / "_README.txt").exists()
    finally:
        for d in (root, root / "_index"):
            os.chmod(d, stat.S_IMODE(d.stat().st_mode) | 0o200)
    assert describe_root(root) == root / "_README.txt"
