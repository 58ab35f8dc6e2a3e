"""``asz verify``'s light start (issue 22: the command against SHA-256 of the same files): the ``asz`` console script
runs ``asz verify [SESSION] [--root R] [--json] [--jobs N]`` without loading Typer (:func:`asz_core.cli.verify_run.light`),
and must print the same bytes on stdout and stderr and exit with the same code as the Typer application does, on
real roots: the collected corpus clean, with a changed byte, with a record line taken out, with MCP execution records
(their warnings), received from a host by the real push and receiver, and holding ``_ingest/`` (the LangSmith
receiver's gap note). Any other form goes to the Typer application. No timing here (bench/verify.py measures it)."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import forked
import pytest
from verify_landing import change_byte, edit_records, land_executions, typer_passes

from asz_core.cli import verify_cmd, verify_run
from asz_core.cli.quick import read_options
from asz_core.storage import landed_files, session_dirs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))

REPO = Path(__file__).resolve().parents[2]

#: Runs ``asz ARGS`` as the console script does (:func:`asz_core.cli.entry.main`) and writes, at exit, whether Typer
#: was loaded to the file named by ``ASZ_LOADED`` (nothing of it on stdout or stderr).
_ENTRY = """
import atexit, os, sys
atexit.register(lambda: open(os.environ["ASZ_LOADED"], "w").write("typer" if "typer" in sys.modules else "no typer"))
sys.argv = ["asz", *sys.argv[1:]]
from asz_core.cli.entry import main
main()
"""


def _light(args: list[str], cwd: Path, loaded: Path) -> subprocess.CompletedProcess:
    """``asz ARGS`` through the console script's dispatch, as bytes."""
    env = {**os.environ, "ASZ_LOADED": str(loaded)}
    return subprocess.run([sys.executable, "-c", _ENTRY, *args], capture_output=True, cwd=cwd, env=env, timeout=300)


#: Runs ``asz ARGS`` through :func:`asz_core.cli.main.main` (the Typer application, or its quick path for plain options),
#: named ``asz`` as the console script is (Typer's usage lines name the program).
_MAIN = """
import sys
sys.argv = ["asz", *sys.argv[1:]]
from asz_core.cli.main import main
main()
"""


def _main(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``asz ARGS`` through :func:`asz_core.cli.main.main`, as bytes: forked from the pre-imported server
    (:func:`forked.run`), since the side compared against is the Typer application's output, not its start-up (the
    light side, whose start without Typer is tested, keeps a fresh interpreter)."""
    return forked.run([sys.executable, "-c", _MAIN, *args], capture_output=True, cwd=cwd, timeout=300)


def _typer(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``asz ARGS --`` through the Typer application (``--`` is a form only Typer reads), as bytes."""
    return _main([*args, "--"], cwd)


def _same(args: list[str], cwd: Path, tmp_path: Path, light: bool | None = True) -> subprocess.CompletedProcess:
    """Run ``args`` both ways; assert stdout, stderr and exit code are the same bytes and that the console script's
    way loaded Typer exactly when ``light`` is False (None: either). The light run's result."""
    loaded = tmp_path / "loaded.txt"
    a, b = _light(args, cwd, loaded), _typer(args, cwd)
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr), (args, a.stderr[-2000:], b.stderr[-2000:])
    assert light is None or loaded.read_text() == ("no typer" if light else "typer"), args
    return a


def _forms(root: Path) -> list[list[str]]:
    """The light forms run on ``root``: the whole root, as JSON, one session by id and by prefix, ``--jobs``."""
    session = session_dirs(root)[0].name
    return [["verify", "--root", str(root)], ["verify", "--json", f"--root={root}"],
            ["verify", session, "--root", str(root), "--jobs", "1"], ["verify", "--jobs=2", session[:8], "--root", str(root), "--json"]]


def _check(root: Path, tmp_path: Path, code: int, forms: int = 4) -> list[subprocess.CompletedProcess]:
    """The first ``forms`` of :func:`_forms` run both ways: every form on the clean root (each way of naming the root,
    a session and --jobs); a root that differs in what it holds needs only the whole root as text and as JSON (the
    forms parse alike whatever the root holds), a damaged one also its damaged session by id."""
    got = [_same(args, tmp_path, tmp_path) for args in _forms(root)[:forms]]
    assert got[0].returncode == code, got[0].stdout.decode()[-2000:]
    report = json.loads(got[1].stdout)
    assert report["ok"] is (code == 0)
    return got


def test_a_clean_root(corpus_copy, tmp_path):
    root = corpus_copy()
    got = _check(root, tmp_path, 0)
    assert got[0].stdout.decode().splitlines()[-1] == "all landed data is contiguous and matches its digests"


def test_a_changed_byte(corpus_copy, tmp_path):
    root = corpus_copy()
    _, path = landed_files(session_dirs(root)[0])[0]
    change_byte(path, path.read_bytes().index(b"\n") + 40, ord("#"))
    got = _check(root, tmp_path, 1, forms=3)
    assert path.name in got[0].stdout.decode()


def test_a_record_line_taken_out(corpus_copy, tmp_path):
    root = corpus_copy()
    _, path = landed_files(session_dirs(root)[0])[0]
    lines = path.read_bytes().splitlines()
    assert len(lines) > 4, path  # header, records, closing: a record between two others goes
    edit_records(path, lambda records: records[:1] + records[2:], fix_closing=True)
    got = _check(root, tmp_path, 1, forms=3)
    assert path.name in got[0].stdout.decode()


@pytest.mark.slow  # 20-34 s under load (review31)
def test_a_root_with_mcp_execution_records(corpus_copy, tmp_path):
    """One execution record per session that holds a tool call (the real ``asz hook``, collected by the ``changes``
    adapter and parsed): the arguments check's warnings come out the same both ways."""
    root = corpus_copy()
    assert land_executions(root, tmp_path, REPO, run=forked.run) >= 2  # real hooks, collect and parse, forked
    assert sum(1 for s in session_dirs(root) for name, _ in landed_files(s) if name.kind == "execution") >= 2
    got = _check(root, tmp_path, 0, forms=2)
    assert b"execution record row 1" in got[0].stdout + got[0].stderr


def test_a_receiving_root(corpus_dir, tmp_path):
    from export_helpers import pushed_team

    (tmp_path / "hosts").mkdir()
    team = pushed_team(corpus_dir, tmp_path / "hosts", {"a": ("-home-user-sample-project", "host-a", "alice", "tok-a", "http")})
    _check(team["team"], tmp_path, 0, forms=2)
    _same(["verify", "--root", str(team["team"]), "--receipts", str(team["roots"]["a"])], tmp_path, tmp_path, light=False)


def test_a_root_holding_ingest(corpus_copy, tmp_path):
    """``_ingest/langsmith/gaps.jsonl`` (a time no LangSmith receiver listened, as the receiver appends it): the
    adapters' staging note comes out the same both ways."""
    root = corpus_copy()
    ingest = root / "_ingest" / "langsmith"
    ingest.mkdir(parents=True)
    (ingest / "gaps.jsonl").write_text(json.dumps({"from": "2026-12-05T10:00:00.000000Z", "to": "2026-12-05T10:02:00.000000Z",
                                                   "seconds": 120}) + "\n")
    got = _check(root, tmp_path, 0, forms=2)
    assert b"2026-12-05T10:00:00.000000Z" in got[0].stdout + got[0].stderr


@pytest.mark.slow  # 20-34 s under load (review31)
def test_usage_errors_and_other_forms(corpus_copy, tmp_path):
    """A missing root, a session no root holds, a root given in asz.yaml (no option at all): light, the same; --help,
    --deep, --config, a negative --jobs and a second word: Typer's, through the console script too."""
    root = corpus_copy()
    # the hint of a missing root comes from the readers' module, which loads Typer: light=None
    assert _same(["verify", "--root", str(tmp_path / "nowhere")], tmp_path, tmp_path, light=None).returncode == 2
    assert _same(["verify", "no-such-session", "--root", str(root)], tmp_path, tmp_path).returncode == 2
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "asz.yaml").write_text(f"storage:\n  root: {root}\n")
    assert _same(["verify"], conf, tmp_path).returncode == 0
    (conf / "asz.yaml").write_text("storage:\n  rot: x\n")
    assert _same(["verify", "--json"], conf, tmp_path).returncode == 2
    for args in (["verify", "--help"], ["verify", "--deep", "--root", str(root)], ["verify", "--config", str(conf / "asz.yaml")],
                 ["verify", "--jobs", "-1", "--root", str(root)], ["verify", "a", "b", "--root", str(root)]):
        loaded = tmp_path / "loaded.txt"
        a, b = _light(args, tmp_path, loaded), _main(args, tmp_path)
        assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr) and loaded.read_text() == "typer", args
    assert b"--jobs must not be negative, got -1" in _light(["verify", "--jobs", "-1", "--root", str(root)], tmp_path, loaded).stderr


LIGHT = [[], ["--root", "r"], ["--json"], ["abc", "--json", "--root=r"], ["--jobs", "2", "x"], ["--jobs=0", "--root", "a", "--root", "b"]]


@pytest.mark.parametrize("args", LIGHT)
def test_the_light_forms_read_what_typer_passes(args):
    defaults = {name: p.default for name, p in inspect.signature(verify_run.run).parameters.items()}
    assert {**defaults, **read_options(verify_run.LIGHT_OPTIONS, args)} == typer_passes(verify_cmd.verify, args)


@pytest.mark.parametrize("args", [["--help"], ["--deep"], ["--config", "c"], ["--jobs", "-1"], ["--jobs", "x"], ["a", "b"],
                                  ["--"], ["--root"], ["--json=1"], ["--receipts", "r"], ["--figures"], ["-h"]])
def test_any_other_form_is_left_to_typer(args):
    assert read_options(verify_run.LIGHT_OPTIONS, args) is None


def test_run_takes_the_declared_defaults():
    """:func:`verify_run.run`'s defaults are the Typer declaration's, parameter for parameter (the light start passes
    only what was given)."""
    declared = {name: p.default.default for name, p in inspect.signature(verify_cmd.verify).parameters.items()}
    assert declared == {name: p.default for name, p in inspect.signature(verify_run.run).parameters.items()}


_ECHO = """
import sys
from {module} import echo
for text in ("plain", "caf\\u00e9 \\u2028", "\\x1b[31mred\\x1b[0m \\x1b[?25l", ""):
    echo(text)
    echo(text, err=True)
"""


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_echo_writes_what_typer_echo_writes(encoding):
    """:func:`asz_core.cli.echo.echo` against ``typer.echo`` on pipes (ANSI codes removed), under a stream encoding of
    UTF-8 and of ASCII (Click then writes UTF-8 bytes)."""
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    ours, theirs = (subprocess.run([sys.executable, "-c", _ECHO.format(module=m)], capture_output=True, env=env, timeout=60)
                    for m in ("asz_core.cli.echo", "typer"))
    assert ours.returncode == theirs.returncode == 0, ours.stderr + theirs.stderr
    assert (ours.stdout, ours.stderr) == (theirs.stdout, theirs.stderr)
    assert ours.stdout == "plain\ncafé \u2028\nred \n\n".encode()
