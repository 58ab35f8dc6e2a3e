"""What ``asz collect --once`` does around a pass with nothing new (issue 22: < 2 % of a full pass, as a command).

No timing here (bench/collect.py measures it). These tests hold what makes that command cheap: its options are
read without Typer exactly as Typer reads them (:mod:`asz_core.cli.quick`; anything else still goes through
Typer), and a pass that finds nothing new forks no worker and loads neither pydantic nor the landing code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer

from collect_helpers import ADAPTER_FILE, REPO, append, asz, env, line, summary
from asz_core.cli import collect_cmd
from asz_core.cli.main import build_app
from asz_core.cli.quick import quick_kwargs

ARGS = [
    [],
    ["--once"],
    ["--once", "--once", "--no-parse", "--jobs", "2"],
    ["--root", "r", "--source=s", "--adapter", "mini-jsonl", "--lock-timeout", "2.5", "--max-delta-bytes", "4096"],
    ["--lock-timeout=3", "--interval", "30s", "--config", "c.yaml", "--jobs=+1"],
    ["--lock-timeout", ".5", "--lock-timeout", "7."],  # the last wins, as in Click
    ["--adapter-file", "a.py", "--once", "--adapter-file=b.py"],  # given twice: both, in order
]


def _typer_params(args: list[str]) -> dict:
    """The keyword arguments Typer itself parses ``args`` into for ``collect`` (Click's context, nothing run)."""
    group = typer.main.get_command(build_app(("collect_cmd",)))
    return group.commands["collect"].make_context("collect", list(args)).params


@pytest.mark.parametrize("args", ARGS)
def test_quick_arguments_are_what_typer_passes(args):
    assert quick_kwargs(collect_cmd.collect, args) == _typer_params(args)


@pytest.mark.parametrize("args", [
    ["--help"], ["--once=1"], ["--no-once"], ["--jobs", "1.0"], ["--lock-timeout", "1e3"], ["--lock-timeout", "inf"],
    ["--lock-timeout", "-1"], ["--adapter-file"], ["stray"], ["--", "--once"],
])
def test_anything_else_is_left_to_typer(args):
    assert quick_kwargs(collect_cmd.collect, args) is None


def test_typer_still_answers_what_the_quick_path_leaves(tmp_path):
    p = asz("collect", "--once", "--lock-timeout", "-1", "--root", str(tmp_path), child=True)
    assert p.returncode == 2 and "--lock-timeout must not be negative" in p.stderr  # the command's own check, via Typer
    p = asz("collect", "--once", "--jobs", "x", child=True)
    assert p.returncode == 2 and "--jobs" in p.stderr  # Typer's usage error
    p = asz("collect", "--once", "--jobs", "-1", "--root", str(tmp_path), child=True)
    assert p.returncode == 2 and "--jobs must not be negative" in p.stderr


_SCRIPT = """
import sys
sys.argv = ["asz", "collect", "--once", "--adapter", "mini-jsonl", "--adapter-file", {adapter!r}, "--source", {src!r},
            "--root", {root!r}, "--jobs", "2"]
from asz_core.cli import main
try:
    main.main()
except SystemExit as exc:
    code = exc.code
loaded = ("pydantic", "asz_core.collect.session_pass", "asz_core.collect.parallel")
print("LOADED:" + ",".join(m for m in loaded if m in sys.modules), "EXIT:" + str(code))
"""


def _pass(src: Path, root: Path) -> tuple[dict, list[str]]:
    p = subprocess.run([sys.executable, "-c", _SCRIPT.format(adapter=str(ADAPTER_FILE), src=str(src), root=str(root))],
                       capture_output=True, text=True, env=env(), cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr
    tail = p.stdout.strip().splitlines()
    assert tail[-1].endswith("EXIT:0"), p.stdout + p.stderr
    return summary("\n".join(tail[:-1])), tail[-1].split()[0].removeprefix("LOADED:").split(",")


def test_a_pass_with_nothing_new_forks_no_worker_and_loads_no_landing_code(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    for s in ("s1", "s2", "s3"):
        append(src / s / "main.jsonl", *(line(i) for i in range(5)))
    first, loaded = _pass(src, root)
    assert (first["sessions"], first["landed"], first["records"]) == ("3", "3", "15")
    assert "asz_core.collect.session_pass" in loaded and "asz_core.collect.parallel" in loaded  # landed in workers
    again, loaded = _pass(src, root)
    assert (again["sessions"], again["sources"], again["landed"], again["records"]) == ("3", "3", "0", "0")
    assert loaded == [""]  # no pydantic (Typer's option coercion), no landing code, no worker pool
    append(src / "s2" / "main.jsonl", line(5))  # one session grew: it lands as before
    grown, loaded = _pass(src, root)
    assert (grown["sessions"], grown["landed"], grown["records"]) == ("3", "1", "1")
    assert "asz_core.collect.session_pass" in loaded
