"""A Kiro-only machine (a HOME with ``.kiro`` and no ``.claude``) collects cleanly with no configuration (Kiro is
collected beside the default list: trial 34a F6) and with an asz.yaml listing both adapters (trial 29c F5: every pass said ``errors=1`` and exited 1 for the missing
``~/.claude/projects``, so ``asz collect --once && asz verify`` never reached verify). A missing default folder of an
adapter given no ``--source`` nor ``source_root``, collected beside another adapter, is a note; a folder the user
named, or the only adapter's, stays an error (docs/storage-root.md, Several source folders).

Real input: the Kiro corpus linked into a temporary HOME (the machine's own ~/.kiro and ~/.claude are never read),
collected by the real ``asz collect``; the sessions expected are counted from its files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
NO_ROOT = "no such source root for adapter claude-code-local"
NOTE = "note: {claude}: no such source root for adapter claude-code-local: none of its default folders exists"
ENV_OFF = {"KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None}


@pytest.fixture
def home(tmp_path) -> Path:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    h = tmp_path / "home"
    h.mkdir()
    os.symlink(KIRO, h / ".kiro")
    assert not (h / ".claude").exists() and not (h / ".config").exists()  # the premise: no Claude Code folder
    return h


def _sessions() -> set[str]:
    return {f.stem for f in KIRO.glob("sessions/cli/*.jsonl")} | {d.name for d in KIRO.glob("sessions/*/sess_*")}


def _asz(home: Path, cwd: Path, *args: str):
    return asz_in_process(*args, cwd=cwd, env={"HOME": str(home), **ENV_OFF})


def test_the_configuration_the_note_gives_passes_without_a_claude_folder(home, tmp_path):
    claude = home / ".claude" / "projects"
    p = _asz(home, tmp_path, "collect", "--once", "--root", "root")
    # no asz.yaml: Kiro is collected beside the default list, the missing Claude Code folder a note (trial 34a F6)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"note: {claude}: {NO_ROOT}" in p.stderr and " errors=0 " in p.stdout, p.stdout + p.stderr
    assert f"sessions={len(_sessions())} " in p.stdout, p.stdout
    yaml = "adapters:\n  - name: claude-code-local\n  - name: kiro\n"  # the same, chosen in asz.yaml
    (tmp_path / "asz.yaml").write_text(yaml, encoding="utf-8")
    for first in (True, False):  # every pass, not only the first
        p = _asz(home, tmp_path, "collect", "--once", "--root", "root")
        assert p.returncode == 0, p.stdout + p.stderr
        assert " errors=0 " in p.stdout and "error:" not in p.stderr, p.stdout + p.stderr
        assert p.stderr.count(NOTE.format(claude=claude)) == 1, p.stderr
        if first:
            assert f"sessions={len(_sessions())} " in p.stdout and " landed=0 " in p.stdout, p.stdout
    assert _asz(home, tmp_path, "verify", "--root", "root").returncode == 0
    rows = json.loads(_asz(home, tmp_path, "ls", "--json", "--root", "root").stdout)
    assert {r["id"] for r in rows} == _sessions()
    s = _asz(home, tmp_path, "sources", "--root", "root")
    assert s.returncode == 0 and NOTE.format(claude=claude) in s.stdout + s.stderr and "error:" not in s.stderr, s.stdout + s.stderr
    got = json.loads(_asz(home, tmp_path, "sources", "--json", "--root", "root").stdout)
    claude_row = next(a for a in got["adapters"] if a["adapter"] == "claude-code-local")
    assert claude_row["errors"] == [] and claude_row["missing"] == [str(claude)]


def test_two_adapters_named_on_the_command_line_pass_too(home, tmp_path):
    p = _asz(home, tmp_path, "collect", "--once", "--root", "root", "--adapter", "claude-code-local", "--adapter", "kiro")
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    assert NOTE.format(claude=home / ".claude" / "projects") in p.stderr


@pytest.mark.parametrize("how", ["named", "only"])
def test_a_folder_the_user_named_or_the_only_adapter_s_stays_an_error(home, tmp_path, how):
    claude = home / ".claude" / "projects"
    if how == "named":
        (tmp_path / "asz.yaml").write_text(f"adapters:\n  - name: claude-code-local\n    source_root: {claude}\n"
                                           "  - name: kiro\n", encoding="utf-8")
        args: tuple[str, ...] = ()
    else:
        args = ("--adapter", "claude-code-local")
    p = _asz(home, tmp_path, "collect", "--once", "--root", "root", *args)
    assert p.returncode == 1 and " errors=1 " in p.stdout, p.stdout + p.stderr
    assert f"error: {claude}: {NO_ROOT} (give --source DIR or set source_root)" in p.stderr
    assert "none of its default folders exists" not in p.stderr
