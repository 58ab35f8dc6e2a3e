"""A project folder whose name is not UTF-8 (trial 15 F13): its session failed every pass with ``TypeError: str is not
valid UTF-8: surrogates not allowed``. A landed file's ``src`` is a JSON string (seed 000, Header), which cannot hold
such bytes, so the source is left out with one ``error:`` naming the folder, told once per process and counted in
``errors=`` on every pass; the other sessions land. Real input: the corpus's hello session, with its id replaced as
the trial did, in a folder named ``bad\\xffdir``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
from collect_helpers import Runner

from asz_core.plugins import get_plugin_manager

PROJECT = "-home-user-claude-reliability"
HELLO = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
OTHER = "88888888-8888-4888-8888-888888888888"


def _tree(corpus_dir: Path, tmp_path: Path) -> tuple[Path, Path, bytes]:
    """(source root, the good session file, the bad folder's name as bytes)."""
    src = tmp_path / "projects"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, src / PROJECT)
    bad = os.fsencode(src) + b"/bad\xffdir"
    os.mkdir(bad)
    data = (src / PROJECT / f"{HELLO}.jsonl").read_bytes().replace(HELLO.encode(), OTHER.encode())
    with open(bad + f"/{OTHER}.jsonl".encode(), "wb") as f:
        f.write(data)
    return src, src / PROJECT / f"{HELLO}.jsonl", b"bad\xffdir"


def _asz(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_a_folder_named_with_bytes_that_are_not_utf8_is_one_error_and_the_rest_lands(corpus_dir, tmp_path):
    src, good, _ = _tree(corpus_dir, tmp_path)
    root = tmp_path / "root"
    why = (f"error: {src}/bad\\xffdir/{OTHER}.jsonl: the folder {src}/bad\\xffdir is named with bytes that are not "
           "UTF-8, and a landed file's src (a JSON string) cannot hold them: not landed; rename it to collect this source")
    p = _asz("collect", "--once", "--no-parse", "--source", str(src), "--root", str(root), cwd=tmp_path)
    fields = dict(f.split("=", 1) for f in p.stdout.split() if "=" in f)
    assert p.returncode == 1 and (fields["sessions"], fields["landed"], fields["errors"]) == ("1", "1", "1"), p.stdout + p.stderr
    assert fields["records"] == str(good.read_bytes().count(b"\n"))
    assert p.stderr.splitlines() == [why]
    assert sorted(n for n in os.listdir(root) if not n.startswith("_")) == [HELLO]  # no folder for the refused session
    s = _asz("sources", "--json", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert s.returncode == 1, s.stderr
    adapter = orjson.loads(s.stdout)["adapters"][0]
    assert adapter["errors"] == [{"path": f"{src}/bad\\xffdir/{OTHER}.jsonl", "message": why.split(".jsonl: ", 1)[1]}]
    assert [x["session"] for x in adapter["sessions"]] == [HELLO]


def test_it_is_told_once_and_counted_on_every_pass(corpus_dir, tmp_path):
    src, _, _ = _tree(corpus_dir, tmp_path)
    run = Runner(tmp_path / "root", src, get_plugin_manager().get("claude-code-local"), fsync=False)
    counts = [run() for _ in range(3)]
    assert [(c.errors, c.landed) for c in counts] == [(1, 1), (1, 0), (1, 0)]
    assert len(run.err.splitlines()) == 1 and "bad\\xffdir is named with bytes that are not UTF-8" in run.err
