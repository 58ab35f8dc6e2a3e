"""``asz parse`` (origin-digest §8.1): the table, exit codes and options."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import asz_core.flow.parse as parse_mod
from asz_core.cli.main import app
from asz_core.cli.parse_cmd import COLUMNS, format_table
from asz_core.flow.chain import Chain

from test_parse_fixtures import SESSION, ToyEngine, land, toy_session


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(parse_mod, "IndexEngine", lambda *a, **k: ToyEngine())


def run(*args):
    return CliRunner().invoke(app, ["parse", *args])


def cells(line: str) -> list[str]:
    return line.split()


def test_table_after_first_and_second_parse(tmp_path, toy):
    toy_session(tmp_path, files=4)
    r = run("--root", str(tmp_path))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert cells(lines[0]) == list(COLUMNS)
    row = cells(lines[1])
    # toy: 12 records + 2 streams + session; relations: 10 follows + 2 ends_with; one parent still open (r15)
    assert row == [SESSION, "1", "4", "15", "12", "1", "0", "0", "12", "0/0", "0/1"]
    r = run("--root", str(tmp_path))
    assert r.exit_code == 0 and cells(r.stdout.splitlines()[1])[:6] == [SESSION, "-", "4", "0", "0", "0"]


def test_budget_option_cuts_rounds(tmp_path, toy):
    toy_session(tmp_path, files=4)
    r = run(SESSION, "--root", str(tmp_path), "--max-round-bytes", "1024")
    assert r.exit_code == 0, r.output
    assert cells(r.stdout.splitlines()[1])[1:3] == ["1-4", "4"]
    assert len(Chain(tmp_path, SESSION).round_files()) == 4


def test_config_supplies_root_and_budget(tmp_path, toy):
    root = tmp_path / "data"
    toy_session(root, files=3)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"storage: {{root: {root}}}\nparse: {{max_round_bytes: 1024}}\n")
    r = run("--config", str(cfg))
    assert r.exit_code == 0, r.output
    assert cells(r.stdout.splitlines()[1])[1] == "1-3"


def test_problems_exit_one(tmp_path, toy):
    toy_session(tmp_path, files=2)
    with Chain(tmp_path, SESSION).lock():
        r = run("--root", str(tmp_path), "--lock-timeout", "0")  # the lock is held throughout: waiting would only cost time
    assert r.exit_code == 1
    assert f"error: {SESSION}: conversation {SESSION}: another parser holds the chain lock" in r.stderr
    assert cells(r.stdout.splitlines()[1])[1] == "-"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--root", "/nonexistent/asz-root"], "asz parse: no storage root at /nonexistent/asz-root (give --root DIR or set storage.root)"),
        (["nosuch", "--root", "{root}"], "nosuch: no such session"),
        (["--root", "{root}", "--max-round-bytes", "0"], "--max-round-bytes must be at least 1024, got 0"),
        (["--root", "{root}", "--max-round-bytes", "10"], "--max-round-bytes must be at least 1024, got 10"),
        (["--config", "{root}/missing.yaml"], "configuration"),
    ],
)
def test_usage_exits_two(tmp_path, toy, args, message):
    land(tmp_path, [{"id": "a"}])
    r = run(*[a.format(root=tmp_path) for a in args])
    assert r.exit_code == 2 and message in r.stderr, r.output


def test_empty_root_prints_the_header_only(tmp_path, toy):
    r = run("--root", str(tmp_path))
    assert r.exit_code == 0 and r.stdout.splitlines() == [format_table([COLUMNS])[0]]


def test_round_budget_below_1024_is_refused_like_the_configuration_key(tmp_path):
    """``--max-round-bytes`` has the floor of ``parse.max_round_bytes`` (1024), worded the same; a real process."""
    import subprocess
    import sys

    asz = [sys.executable, "-m", "asz_core.cli.main", "parse", "--root", str(tmp_path)]
    got = subprocess.run([*asz, "--max-round-bytes", "10"], capture_output=True, text=True, timeout=120)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr == "asz parse: --max-round-bytes must be at least 1024, got 10\n"
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("parse: {max_round_bytes: 10}\n")
    got = subprocess.run([*asz[:-2], "--config", str(cfg)], capture_output=True, text=True, timeout=120)
    assert got.returncode == 2
    assert got.stderr == f"asz parse: configuration: {cfg}: parse.max_round_bytes: must be at least 1024, got 10\n"
    got = subprocess.run([*asz, "--max-round-bytes", "1024"], capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
