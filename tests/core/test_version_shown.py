"""What ``asz --version`` and ``asz adapters list`` say a user can compare (trial 23b, F2: every commit printed
``asz 0.1.0`` and every adapter 0.1.0, while landed headers named claude-code-local 0.1.0, 0.2.0 and 0.3.0)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

REPO = Path(__file__).resolve().parents[2]
#: The version pyproject.toml gives the package (what ``asz --version`` names first).
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_version_names_the_checkouts_commit():
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("asz does not run from a git checkout here")
    want = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h of %cs"], capture_output=True,
                          text=True).stdout.strip()
    p = asz_in_process("--version")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"asz {VERSION}, source {want}"), p.stdout
    assert "asz adapters list names the version each adapter writes" in p.stdout


def test_adapters_list_names_what_landed_headers_say(corpus_collected):
    heads = {json.loads(sd.read_bytes().split(b"\n", 1)[0])["adapter"] for sd in corpus_collected.rglob("*.sd")}
    (claude,) = [h for h in heads if h.startswith("claude-code-local/")]  # the version this tree lands with
    p = asz_in_process("adapters", "list", "--json")
    assert p.returncode == 0, p.stderr
    writes = {r["name"]: r["writes"] for r in json.loads(p.stdout)}
    assert heads <= set(writes.values()), (heads, writes)
    assert writes["claude-code-local"] == claude
    table = asz_in_process("adapters", "list").stdout.splitlines()
    assert "WRITES" in table[0].split()
    assert [x.split()[3] for x in table[1:] if x.split()[0] == "claude-code-local"] == [claude]


def _recorded(folder: Path, commit: str) -> None:
    """A build's ``asz_core/_version_info.py`` holding ``commit``, written as setup.py writes it."""
    from asz_core._commit import GENERATED, generated_text

    (folder / "asz_core").mkdir(parents=True)
    (folder / "asz_core" / GENERATED).write_text(generated_text(commit), encoding="utf-8")


def test_an_installed_copy_names_the_commit_its_build_recorded(tmp_path):
    """No ``.git`` beside ``asz_core`` (site-packages): the commit setup.py recorded, '' when it recorded none."""
    from asz_core._commit import source_commit

    _recorded(tmp_path / "site", "abc1234 of 2026-12-01")
    assert source_commit(tmp_path / "site") == "abc1234 of 2026-12-01"
    _recorded(tmp_path / "none", "")
    assert source_commit(tmp_path / "none") == ""
    assert source_commit(tmp_path / "empty") == ""


def test_a_checkout_never_names_a_stale_recorded_commit(tmp_path):
    """A ``_version_info.py`` left in a checkout (hidden by .gitignore) is never read there: git's answer, or ''
    when git gives none (here a ``.git`` folder git cannot read), not the older commit the file names."""
    from asz_core._commit import source_commit

    _recorded(tmp_path, "0000000 of 2020-01-01")
    (tmp_path / ".git").mkdir()
    assert source_commit(tmp_path) == ""
    if shutil.which("git") is not None and (REPO / ".git").exists():
        want = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h of %cs"], capture_output=True,
                              text=True).stdout.strip()
        assert source_commit(REPO).startswith(want)
