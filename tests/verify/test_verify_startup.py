"""``asz verify``'s start (issue 22: the command against SHA-256 of the same files): its arguments are read without
Typer exactly as Typer reads them (:mod:`asz_core.cli.quick`), so the command loads no pydantic; anything else still
goes through Typer. No timing here (bench/verify.py measures it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from verify_landing import typer_passes

from asz_core.cli import verify_cmd
from asz_core.cli.quick import quick_kwargs

REPO = Path(__file__).resolve().parents[2]

ARGS = [
    [],
    ["--root", "r"],
    ["abc", "--json"],
    ["--json", "abc"],
    ["--receipts", "a", "--receipts=b", "--deep", "x"],
    ["--figures", "--config", "c", "--export", "e", "--manifest", "m", "--sha256", "ab"],
    ["data/s/streams/main/transcript-x-000001.sd", "--root=r", "--root", "q"],  # the last --root wins, as in Click
    [""],
]


@pytest.mark.parametrize("args", ARGS)
def test_quick_arguments_are_what_typer_passes(args):
    assert quick_kwargs(verify_cmd.verify, args) == typer_passes(verify_cmd.verify, args)


@pytest.mark.parametrize("args", [
    ["--help"], ["a", "b"], ["--", "-x"], ["--receipts"], ["-"], ["--root"], ["--json=1"], ["--no-deep"], ["-h"],
])
def test_anything_else_is_left_to_typer(args):
    assert quick_kwargs(verify_cmd.verify, args) is None


_SCRIPT = """
import sys
sys.argv = ["asz", "verify", "--json", "--root", {root!r}]
from asz_core.cli import main
try:
    main.main()
except SystemExit as exc:
    code = exc.code
print("LOADED:" + ",".join(m for m in ("pydantic", "typer._adapters") if m in sys.modules), "EXIT:" + str(code))
"""


def test_verify_loads_no_pydantic_and_says_what_typer_said(tmp_path):
    root = tmp_path / "root"
    (root / "x").mkdir(parents=True)
    (root / "x" / "note.txt").write_text("not landed data\n")
    p = subprocess.run([sys.executable, "-c", _SCRIPT.format(root=str(root))], capture_output=True, text=True,
                       cwd=REPO, timeout=120)
    out = p.stdout.strip().splitlines()
    assert out[-1] == "LOADED: EXIT:2", p.stdout + p.stderr  # exit 2: no landed data, the usage error
    assert "not a storage root" in p.stderr
    # the same through Typer (an argument the quick path leaves to it): the same answer
    p2 = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "verify", "--json", "--root", str(root), "--"],
                        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p2.returncode == 2 and p2.stderr == p.stderr


def test_a_second_word_is_typers_usage_error(tmp_path):
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "verify", "a", "b", "--root", str(tmp_path)],
                       capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 2 and "unexpected extra argument(s) (b)" in p.stderr, p.stderr


def test_the_quick_start_verifies_a_root(corpus_copy):
    """The collected corpus with one landed byte changed: the quick path's report is the one Typer's path gives (``--``
    sends the command to Typer), exit 1 and the changed file named."""
    from verify_landing import change_byte

    from asz_core.storage import landed_files, session_dirs

    root = corpus_copy()
    _, path = landed_files(session_dirs(root)[0])[0]
    change_byte(path, path.read_bytes().index(b"\n") + 40, ord("#"))
    quick = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "verify", "--json", "--root", str(root)],
                           capture_output=True, text=True, cwd=REPO, timeout=300)
    slow = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "verify", "--json", "--root", str(root), "--"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert quick.returncode == slow.returncode == 1, quick.stderr + slow.stderr
    assert json.loads(quick.stdout) == json.loads(slow.stdout) and quick.stderr == slow.stderr
    assert path.name in quick.stdout


_LOADED = """
import sys
sys.argv = ["asz", "verify", "--root", {root!r}]
from asz_core.cli import main
try:
    main.main()
except SystemExit as exc:
    code = exc.code
print("LOADED:" + ",".join(m for m in {names!r} if m in sys.modules), "EXIT:" + str(code))
"""


def test_verifying_a_whole_root_loads_no_collector(corpus_collected):
    """A whole check of the parsed corpus (landed files in worker processes, chains, hints) loads neither the collector
    nor the document builder (issue 22: modules the command's start would import for nothing), nor the plugin manager
    and its adapters (asked for their staging's notes only where the root holds ``_ingest/``: session 30), nor, in a
    root with no tool execution record, the modules that hold one against its call (session 47); the worker
    pool of ``asz_core.collect.workers`` is loaded, so the check does look."""
    assert not (corpus_collected / "_ingest").exists()
    names = ("asz_core.collect.collector", "asz_core.collect.report", "asz_core.view.document", "asz_core.plugins.manager",
             "asz_adapters_claude", "asz_core.view.arguments_check", "asz_core.view.execution_words",
             "asz_core.view.chain", "asz_core.collect.workers")
    p = subprocess.run([sys.executable, "-c", _LOADED.format(root=str(corpus_collected), names=names)], capture_output=True,
                       text=True, cwd=REPO, timeout=300)
    assert p.stdout.strip().splitlines()[-1] == "LOADED:asz_core.collect.workers EXIT:0", p.stdout + p.stderr
