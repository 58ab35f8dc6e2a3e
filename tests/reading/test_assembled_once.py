"""Two asz builds that both name their assembly in ``conversation.state`` (``assembled_by``), alternating on one root,
assemble a chain the other wrote last once per build and landing, not on every pass (docs/storage-root.md, "A round an
older asz wrote"): each would otherwise assemble every session the other parsed last on each of its passes, and where
their assemblies differ write a round back and forth every time, the chain growing with each pass. The mark is the
code's bytes, not the files' mtimes or their place: a ``touch``, a ``git checkout`` or the same code installed in
another venv assembles nothing again.

The other build is this code copied elsewhere, one file of ``asz_core/flow`` edited (so another mark), run in a
child; the conversation is the corpus's 326189cf, its first half landed first, then the whole."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reading_helpers import asz

from asz_core.flow.chain import assembly_mark
from asz_core.storage.root import read_state

BASH = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")
PACKAGES = ("asz_core", "asz_adapters_claude", "asz_adapters_kiro", "asz_adapters_langchain")
REPO = Path(__file__).resolve().parents[2]


def _copy(dest: Path) -> Path:
    for name in PACKAGES:
        shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _run(code: Path, *args: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(code), "CLAUDE_CONFIG_DIR": str(cwd / "none")}
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def _mark(code: Path, cwd: Path) -> str:
    return _run(code, "-c", "from asz_core.flow.chain import assembly_mark; print(assembly_mark())", cwd=cwd).strip()


def test_the_same_code_elsewhere_or_touched_is_the_same_mark(tmp_path):
    code = _copy(tmp_path / "elsewhere")
    assert _mark(code, tmp_path) == assembly_mark()  # another place (another venv), the same bytes
    later = 2_000_000_000
    for top in PACKAGES:
        for path in (code / top).rglob("*.py"):
            os.utime(path, (later, later))  # a touch, a git checkout
    assert _mark(code, tmp_path) == assembly_mark()
    (code / "asz_adapters_claude" / "plugin.py").open("a").write("\n# another build\n")
    assert _mark(code, tmp_path) != assembly_mark()


@pytest.mark.slow  # five collect passes, three in a child: 11-13 s at a load of 2
def test_two_builds_alternating_assemble_each_others_chain_once_per_landing(corpus_source, tmp_path):
    src = corpus_source / BASH[0] / f"{BASH[1]}.jsonl"
    raw = src.read_bytes().splitlines(keepends=True)
    projects = tmp_path / "projects" / BASH[0]
    projects.mkdir(parents=True)
    (projects / src.name).write_bytes(b"".join(raw[: len(raw) // 2]))
    root = tmp_path / "root"
    collect = ("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    other = _copy(tmp_path / "other")
    (other / "asz_core" / "flow" / "reread.py").open("a").write("\n# another build\n")
    theirs, mine = _mark(other, tmp_path), assembly_mark()
    assert theirs != mine

    def state() -> tuple[str, str, str]:
        (path,) = root.glob("_conversations/*/conversation.state")
        st = read_state(path)
        return st["assembled_by"], st.get("assembled_also", ""), st["through_seq"]

    def pass_theirs() -> str:
        return _run(other, "-m", "asz_core.cli.main", *collect, cwd=tmp_path)

    asz(*collect)
    first = state()
    assert first[:2] == (mine, "")
    assert " rounds=0 " in pass_theirs()  # nothing new landed: assembled again, the same draw, no round
    assert state() == (theirs, mine, first[2])
    # each has assembled it since the landing: neither again
    assert " rounds=0 " in asz(*collect).stdout
    assert state() == (theirs, mine, first[2])
    pass_theirs()
    assert state() == (theirs, mine, first[2])
    said = asz("conversation", BASH[1][:8], "--root", str(root)).stdout  # this asz reads the other's rounds: said
    assert (f"\nrounds last assembled by another asz build (assembled_by {theirs}; this one is {mine}), whose reading "
            f"may differ: asz parse {BASH[1]} --anew --root {root} builds them by this one\n") in said

    (projects / src.name).write_bytes(b"".join(raw))  # the rest lands, by the other build: its own landing
    assert " rounds=1 " in pass_theirs()
    second = state()
    assert second[:2] == (theirs, "") and int(second[2]) > int(first[2])
    asz(*collect)
    assert state() == (mine, theirs, second[2])
    pass_theirs()
    assert " rounds=0 " in asz(*collect).stdout
    assert state() == (mine, theirs, second[2])
    assert "rounds last assembled" not in asz("conversation", BASH[1][:8], "--root", str(root)).stdout
    chains = list(root.glob("_conversations/*/rounds/*.sf"))
    assert len(chains) == 2  # the first half's round and the rest's: none written back and forth
