"""plugin-template/: installs as a real distribution, asz finds it, and its own tests (the kit) pass."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

TEMPLATE = Path(__file__).resolve().parents[1] / "plugin-template"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment beside asz (it sees asz's own install) with a copy of the template installed into it."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, capture_output=True)
    copy = tmp_path_factory.mktemp("src") / "plugin-template"
    shutil.copytree(TEMPLATE, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    py = venv / "bin" / "python"
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", str(copy)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return py


def _env(py: Path) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def test_template_is_found_and_collects(installed, tmp_path):
    rows = {r["name"]: r for r in orjson.loads(subprocess.run([str(installed), "-m", "asz_core.cli.main", "adapters", "list", "--json"], capture_output=True, text=True, env=_env(installed), check=True).stdout)}
    assert rows["codex"]["distribution"] == "asz-adapter-codex" and rows["codex"]["status"] == "ok" and rows["codex"]["dialects"] == ["codex/1"]
    root = tmp_path / "root"
    col = subprocess.run([str(installed), "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "codex", "--source", str(TEMPLATE / "samples"), "--root", str(root)], capture_output=True, text=True, env=_env(installed))
    assert col.returncode == 0, col.stdout + col.stderr
    last = col.stdout.strip().splitlines()[-1]
    assert "sessions=2" in last and "records=18" in last  # the two sample sessions: 15 lines and 3
    ver = subprocess.run([str(installed), "-m", "asz_core.cli.main", "verify", "--root", str(root)], capture_output=True, text=True, env=_env(installed))
    assert ver.returncode == 0, ver.stdout + ver.stderr


def test_template_own_tests_pass(installed):
    proc = subprocess.run([str(installed), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TEMPLATE / "tests")], capture_output=True, text=True, env=_env(installed), cwd=TEMPLATE)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "passed" in proc.stdout and "failed" not in proc.stdout
