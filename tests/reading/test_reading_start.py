"""What ``asz ls``, ``asz usage`` and ``asz search`` import when their root's kept rows, summaries and search index
answer (issue 22, each command's start: a command imports what it uses). The second run of each over a copy of the
parsed corpus builds no document, so it loads neither the document builder nor the chain reader, the document's
summary, the prose and export readers or ``asz conversation``'s command module; each module named here cost the
start of all three before session 47 (``asz_core.view.document`` and what it imports: some 50 ms of CPU a start).
Which modules a run loaded is read from ``sys.modules`` in a fresh process; no timing here (bench/command_start.py
measures the starts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: Loaded by a start before session 47, not by a run its root's kept data answers.
NOT_LOADED = ("asz_core.view.document", "asz_core.view.chain", "asz_core.view.summary", "asz_core.view.lists",
              "asz_core.reading.export", "asz_core.reading.prose", "asz_core.cli.view_cmd", "asz_core.view.render")

_LOADED = """
import sys
sys.argv = ["asz", *{args!r}]
from asz_core.cli.entry import _dispatch
try:
    _dispatch(sys.argv[1], "")
except SystemExit as exc:
    code = exc.code
print("LOADED:" + ",".join(m for m in {names!r} if m in sys.modules), "EXIT:" + str(code))
"""


def _loaded(args: list[str]) -> str:
    p = subprocess.run([sys.executable, "-c", _LOADED.format(args=args, names=NOT_LOADED)], capture_output=True,
                       text=True, cwd=REPO, timeout=300)
    return p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr


@pytest.mark.parametrize("args", [["ls"], ["usage"], ["usage", "daily", "--json"], ["search", "the"],
                                  ["conversations", "--json"]])
def test_a_reading_its_kept_data_answers_loads_no_document(corpus_copy, args):
    root = corpus_copy()
    first = subprocess.run([sys.executable, "-m", "asz_core.cli.entry", *args, "--root", str(root)], capture_output=True,
                           text=True, cwd=REPO, timeout=300)
    assert first.returncode == 0, first.stderr  # rows, summaries and the search index kept
    assert _loaded([*args, "--root", str(root)]) == "LOADED: EXIT:0"


USAGE_ARGS = [
    [],
    ["weekly"],
    ["--root", "r", "monthly", "--json"],
    ["tools", "--conversation", "a", "--conversation=b"],
    ["--since", "2026-11-01", "--until", "2026-11-30", "--tz", "UTC", "blocks", "--active"],
    ["--timezone", "Europe/Paris", "--format", "csv", "--out", "o.csv", "--breakdown", "--prices"],
    ["session", "--sort", "cost", "--order", "asc", "--total-once", "--project", "p", "--model", "m"],
    ["--instance", "dev@hostA", "--dialect", "kiro", "--config", "c.yaml"],
    ["daily", "--root=a", "--root", "b"],  # the last --root wins, as in Click
]


@pytest.mark.parametrize("args", USAGE_ARGS)
def test_usage_reads_its_arguments_as_typer_passes_them(args):
    """``asz usage`` runs without Typer (:data:`asz_core.cli.main.QUICK`) when its arguments are plain: the function
    gets what Typer would have passed it, the view ``daily`` when none is named."""
    sys.path.insert(0, str(REPO / "tests" / "verify"))
    from verify_landing import typer_passes

    from asz_core.cli import usage_cmd
    from asz_core.cli.quick import quick_kwargs

    assert quick_kwargs(usage_cmd.usage, args) == typer_passes(usage_cmd.usage, args)


@pytest.mark.parametrize("args", [["--help"], ["a", "b"], ["--", "-x"], ["--json=1"], ["-h"], ["--root"], ["--sort"]])
def test_anything_else_of_usage_is_left_to_typer(args):
    from asz_core.cli import usage_cmd
    from asz_core.cli.quick import quick_kwargs

    assert quick_kwargs(usage_cmd.usage, args) is None


def test_usage_loads_no_pydantic(corpus_copy):
    """Typer's pydantic (its plugin loader, ``importlib.metadata``) was a third of ``asz usage``'s start (perf47)."""
    root = corpus_copy()
    script = _LOADED.replace("{names!r}", repr(("pydantic", "typer._adapters")))
    p = subprocess.run([sys.executable, "-c", script.format(args=["usage", "--root", str(root)])],
                       capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.stdout.strip().splitlines()[-1] == "LOADED: EXIT:0", p.stdout + p.stderr


def _typer_passes_ls(args: list[str], typed: str) -> dict:
    """What Typer calls ``asz ls``'s function with for ``args`` when the command is typed ``typed`` (its context
    given as its ``info_name``)."""
    import functools

    import typer
    from typer.testing import CliRunner

    from asz_core.cli import conversations_cmd

    seen: dict = {}

    @functools.wraps(conversations_cmd.conversations)
    def record(**kwargs):
        seen.update(kwargs)

    app = typer.Typer()
    app.command(typed)(record)
    app.command("other")(lambda: None)  # two commands: the one run is named on the command line, as in asz
    got = CliRunner().invoke(app, [typed, *args])
    assert got.exit_code == 0, got.output
    return {**seen, "ctx": seen["ctx"].info_name}


LS_ARGS = [
    [],
    ["--json", "--root", "r"],
    ["-n", "5", "--sort", "cost"],
    ["--limit=3", "--project", "p", "--since", "7d", "--until", "2026-11-30", "--tz", "UTC"],
    ["--model", "opus", "--dialect", "claude-code", "--instance", "dev@hostA", "--config", "c.yaml"],
    ["--project", "a", "--project", "b", "-n", "1", "--limit", "2"],  # the last wins, as in Click
]


@pytest.mark.parametrize("typed", ["ls", "conversations"])
@pytest.mark.parametrize("args", LS_ARGS)
def test_ls_reads_its_arguments_as_typer_passes_them(args, typed):
    """``asz ls`` and ``asz conversations`` run without Typer when their arguments are plain, the context's
    ``info_name`` the command typed (every message of the command names it)."""
    from asz_core.cli import conversations_cmd
    from asz_core.cli.quick import quick_kwargs

    got = quick_kwargs(conversations_cmd.conversations, args, typed)
    assert {**got, "ctx": got["ctx"].info_name} == _typer_passes_ls(args, typed)


@pytest.mark.parametrize("args", [["--project", ""], ["--since="], ["-n5"], ["-n", "-1"], ["x"], ["--help"], ["-h"],
                                  ["--json=1"], ["--limit"]])
def test_anything_else_of_ls_is_left_to_typer(args):
    """A filter given empty is Typer's usage error (its callback says so); a short option glued to its value, a
    negative value, a word, help: Typer's too."""
    from asz_core.cli import conversations_cmd
    from asz_core.cli.quick import quick_kwargs

    assert quick_kwargs(conversations_cmd.conversations, args, "ls") is None
    assert quick_kwargs(conversations_cmd.conversations, [], "") is None  # no command name: no context to give


def test_ls_loads_no_pydantic_and_says_a_filter_given_empty_as_typer_did(corpus_copy):
    root = corpus_copy()
    script = _LOADED.replace("{names!r}", repr(("pydantic", "typer._adapters")))
    p = subprocess.run([sys.executable, "-c", script.format(args=["ls", "--root", str(root), "-n", "2"])],
                       capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.stdout.strip().splitlines()[-1] == "LOADED: EXIT:0", p.stdout + p.stderr
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.entry", "ls", "--project", "", "--root", str(root)],
                       capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.returncode == 2 and "--project" in p.stderr and p.stdout == "", p.stderr
