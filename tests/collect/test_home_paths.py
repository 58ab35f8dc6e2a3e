"""A leading ``~`` in a path a person gives is the home folder, never a folder named ``~`` in the working directory.

Trial finding (session 14): ``asz collect --root "~/nope"`` (quoted, so the shell leaves the ``~``) made ``./~/nope``.
Every ``Path`` option and argument goes through :func:`asz_core.config.user_path` (``asz_core.cli.quick.with_user_paths``,
for Typer and for the quick start alike), and so do ``storage.root``, ``adapters[].source_root`` and
``export.otlp.ca_file`` of ``asz.yaml`` and the ``--config`` path itself. ``HOME`` is a temporary folder here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from collect_helpers import REPO, asz, summary

from asz_core.config import load_config, user_path

EXAMPLE = REPO / "examples" / "claude-code" / "projects"
SESSION = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"


def _source_lines() -> int:
    """Records the example lands, counted from its files: one per complete JSONL line, one per ``.meta.json`` document."""
    return sum(f.read_bytes().count(b"\n") for f in EXAMPLE.rglob("*.jsonl")) + len(list(EXAMPLE.rglob("*.meta.json")))


def _home(tmp_path: Path) -> tuple[Path, Path]:
    home, work = tmp_path / "home", tmp_path / "work"
    shutil.copytree(EXAMPLE, home / "src")
    work.mkdir()
    return home, work


def test_collect_root_and_source_under_home(tmp_path):
    """A real ``asz collect --once`` child (the quick start, no Typer) with ``--root "~/x" --source "~/src"``."""
    home, work = _home(tmp_path)
    res = asz("collect", "--once", "--root", "~/x", "--source", "~/src", cwd=work, child=True, extra_env={"HOME": str(home)})
    assert res.returncode == 0, res.stderr
    assert summary(res.stdout)["records"] == str(_source_lines())
    assert (home / "x" / SESSION).is_dir()
    assert list(work.iterdir()) == []  # no ./~ (nor anything else) in the working directory
    # The same root read back through Typer's commands (not the quick start): --root "~/x" again.
    res = asz("verify", "--root", "~/x", cwd=work, extra_env={"HOME": str(home)})
    assert res.returncode == 0 and "all landed data is contiguous" in res.stdout, res.stdout + res.stderr
    res = asz("ls", "--json", "--root", "~/x", cwd=work, extra_env={"HOME": str(home)})
    assert res.returncode == 0, res.stderr
    assert [row["id"] for row in json.loads(res.stdout)] == [SESSION]
    landed = next((home / "x" / SESSION).rglob("*.sd")).relative_to(home)
    res = asz("verify", f"~/{landed}", cwd=work, extra_env={"HOME": str(home)})
    assert res.returncode == 0 and "the file is whole" in res.stdout, res.stdout + res.stderr
    assert list(work.iterdir()) == []


def test_config_paths_under_home(tmp_path):
    """``--config "~/asz.yaml"`` whose ``storage.root`` and ``source_root`` start with ``~``."""
    home, work = _home(tmp_path)
    (home / "asz.yaml").write_text("storage:\n  root: ~/y\nadapters:\n  - name: claude-code-local\n    source_root: ~/src\n"
                                   "export:\n  otlp:\n    ca_file: ~/roots.pem\n")
    res = asz("collect", "--once", "--jobs", "1", "--config", "~/asz.yaml", cwd=work, extra_env={"HOME": str(home)})
    assert res.returncode == 0, res.stderr
    assert summary(res.stdout)["records"] == str(_source_lines())
    assert (home / "y" / SESSION).is_dir()
    assert list(work.iterdir()) == []


def test_load_config_and_user_path(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "asz.yaml").write_text("storage:\n  root: ~/y\nadapters:\n  - name: claude-code-local\n    source_root: ~/src\n"
                                       "export:\n  otlp:\n    ca_file: ~/roots.pem\n")
    cfg = load_config("~/asz.yaml")
    assert cfg.path == tmp_path / "asz.yaml"
    assert cfg.root == f"{tmp_path}/y"
    assert cfg.adapters[0].source_root == f"{tmp_path}/src"
    assert cfg.export.ca_file == f"{tmp_path}/roots.pem"
    # Same type back; anything without a leading ~ unchanged, "./data" spelled as given.
    assert user_path("~/a") == f"{tmp_path}/a" and user_path(Path("~/a")) == tmp_path / "a"
    assert user_path("./data") == "./data" and user_path("a/~/b") == "a/~/b"
    assert isinstance(user_path(Path("x")), Path)
