"""plugin-template/: installs as a real distribution, asz finds it, and its own tests (the kit) pass."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

TEMPLATE = Path(__file__).resolve().parents[1] / "plugin-template"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment that sees the environment running these tests (asz, pytest, setuptools, wheel,
    pip), with a copy of the template installed into it.

    ``--system-site-packages`` would show it the *base* interpreter's packages instead (a venv's base is the
    interpreter it was made from), which on a fresh machine hold neither asz nor ``wheel``: the build then fails
    with ``invalid command 'bdist_wheel'``. So the new environment gets no packages of its own and one ``.pth``
    file adding this environment's site directories (their own ``.pth`` files, editable installs included, run).
    """
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    outer = [p for p in dict.fromkeys([*site.getsitepackages(), site.getusersitepackages()]) if os.path.isdir(p)]
    Path(purelib, "_asz_outer_env.pth").write_text("import site; " + "; ".join(f"site.addsitedir({p!r})" for p in outer) + "\n")
    copy = tmp_path_factory.mktemp("src") / "plugin-template"
    shutil.copytree(TEMPLATE, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", str(copy)],
        capture_output=True, text=True, env=_env(py),
    )
    assert proc.returncode == 0, proc.stderr
    return py


def _env(py: Path) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def test_template_is_found_and_collects(installed, tmp_path):
    rows = {r["name"]: r for r in orjson.loads(subprocess.run([str(installed), "-m", "asz_core.cli.main", "adapters", "list", "--json"], capture_output=True, text=True, env=_env(installed), check=True).stdout)}
    row = rows["example-codex"]
    assert row["distribution"] == "asz-adapter-example" and row["status"] == "ok" and row["dialects"] == ["example-codex/1"]
    root = tmp_path / "root"
    col = subprocess.run([str(installed), "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "example-codex", "--source", str(TEMPLATE / "samples"), "--root", str(root)], capture_output=True, text=True, env=_env(installed))
    assert col.returncode == 0, col.stdout + col.stderr
    last = col.stdout.strip().splitlines()[-1]
    assert "sessions=2" in last and "records=20" in last  # the two sample sessions: 15 lines and 5
    ver = subprocess.run([str(installed), "-m", "asz_core.cli.main", "verify", "--root", str(root)], capture_output=True, text=True, env=_env(installed))
    assert ver.returncode == 0, ver.stdout + ver.stderr


def test_template_names_cannot_collide_with_a_real_adapter():
    """Published unchanged, the template takes no real adapter's names: every name it declares says "example"."""
    text = (TEMPLATE / "pyproject.toml").read_text()
    assert 'name = "asz-adapter-example"' in text and 'example-codex = "asz_adapter_example.plugin"' in text
    plugin = (TEMPLATE / "asz_adapter_example" / "plugin.py").read_text()
    convert = (TEMPLATE / "asz_adapter_example" / "convert.py").read_text()
    assert 'name = "example-codex"' in plugin and 'DIALECT = "example-codex/1"' in convert


def test_template_own_tests_pass(installed):
    proc = subprocess.run([str(installed), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TEMPLATE / "tests")], capture_output=True, text=True, env=_env(installed), cwd=TEMPLATE)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "passed" in proc.stdout and "failed" not in proc.stdout


def test_plain_collect_on_a_machine_running_only_this_runtime(installed, tmp_path):
    """Trial 39b F5: with sessions at the template's default root (``~/.codex/sessions``) and no ``~/.claude``, plain
    ``asz collect --once`` collects them beside the default list (``has_default_sessions``), says so, and the missing
    Claude Code folder is a note, not an error (README: "with no Claude Code folder it is a note")."""
    home = tmp_path / "home"
    shutil.copytree(TEMPLATE / "samples" / "sessions", home / ".codex" / "sessions")
    env = {**_env(installed), "HOME": str(home)}
    for key in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "KIRO_HOME", "ASZ_CONFIG", "ASZ_ROOT"):
        env.pop(key, None)
    col = subprocess.run([str(installed), "-m", "asz_core.cli.main", "collect", "--once", "--root", str(tmp_path / "root")],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert col.returncode == 0, col.stdout + col.stderr
    files = sorted((TEMPLATE / "samples" / "sessions").rglob("rollout-*.jsonl"))  # one session a file, a record a line
    lines = sum(len(f.read_bytes().splitlines()) for f in files)
    assert f"sessions={len(files)}" in col.stdout and f"records={lines}" in col.stdout and "errors=0" in col.stdout, \
        col.stdout
    assert "example-codex" in col.stderr and "no such source root for adapter claude-code-local: none of its default " \
        "folders exists" in col.stderr and "error:" not in col.stderr, col.stderr
