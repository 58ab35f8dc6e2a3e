"""A storage root that is the source root, lies inside it or holds it is refused before anything is written (exit 2).

asz writes ``.lock``, ``index/``, ``_index/``, ``_conversations/`` and session folders into its storage root;
``--root ~/.claude/projects`` would write them into Claude Code's own folder. ``asz collect``, ``asz server`` and
``asz sources --reland`` refuse such a pair, naming both paths with symlinks resolved
(asz_core.cli.root_overlap.refuse_overlap). Real folders under tmp_path, commands run in process.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from collect_helpers import append, asz, collect_once, line, mini_args


def _tree(d: Path) -> list[str]:
    """Every path under ``d`` (relative, sorted), with each file's size: what a refused command must leave as it was."""
    return sorted(f"{p.relative_to(d)}:{p.stat().st_size if p.is_file() else 'dir'}" for p in d.rglob("*"))


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "projects"
    append(src / "s1" / "main.jsonl", *(line(i) for i in range(3)))
    return src


@pytest.mark.parametrize("where", ["same", "root inside source", "source inside root"])
def test_collect_refuses_a_root_overlapping_the_source(tmp_path, where):
    src = _source(tmp_path)
    root = {"same": src, "root inside source": src / "asz-data", "source inside root": tmp_path}[where]
    before, top = _tree(src), _tree(tmp_path)
    p = collect_once(src, root)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("asz collect: the storage root ")
    assert str(root) in p.stderr and str(src) in p.stderr
    assert p.stdout == ""  # no pass ran
    assert _tree(src) == before and _tree(tmp_path) == top  # nothing written: no .lock, index/, session folder
    assert not (src / "asz-data").exists()


def test_collect_resolves_symlinks_and_names_the_real_paths(tmp_path):
    src = _source(tmp_path)
    link = tmp_path / "link-to-projects"
    link.symlink_to(src, target_is_directory=True)
    before = _tree(src)
    p = collect_once(src, link / "data")  # the root is inside the source through the link
    assert p.returncode == 2, p.stderr
    assert str(link / "data") in p.stderr and f"({src.resolve() / 'data'})" in p.stderr and str(src) in p.stderr
    assert _tree(src) == before


def test_collect_into_a_root_beside_the_source_still_lands(tmp_path):
    src = _source(tmp_path)
    p = collect_once(src, tmp_path / "projects-data")  # a sibling whose name starts like the source's is no overlap
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "projects-data" / "s1").is_dir()


def test_default_adapter_refuses_root_inside_its_projects_folder(tmp_path):
    """The slip of the report: the default adapter (claude-code-local) with --root inside the projects folder."""
    src = tmp_path / "claude" / "projects"
    (src / "-tmp-x").mkdir(parents=True)
    (src / "-tmp-x" / "a.jsonl").write_text('{"type":"user","sessionId":"a","uuid":"u1","message":{"role":"user","content":"hi"}}\n')
    before = _tree(src)
    p = asz("collect", "--once", "--source", str(src), "--root", str(src), cwd=tmp_path,
            extra_env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    assert p.returncode == 2, p.stderr
    assert "claude-code-local" in p.stderr and str(src) in p.stderr
    assert _tree(src) == before


def test_server_refuses_before_it_writes_or_listens(tmp_path):
    src = tmp_path / "claude" / "projects"
    (src / "-tmp-x").mkdir(parents=True)
    root = src / "data"
    p = asz("server", "--source", str(src), "--root", str(root), "--port", "8799", cwd=tmp_path,
            extra_env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("asz server: the storage root ") and str(root) in p.stderr and str(src) in p.stderr
    assert not root.exists()


def test_sources_reland_refuses_but_sources_lists(tmp_path):
    src = _source(tmp_path)
    p = asz("sources", *mini_args(src, src), "--reland", "s1")
    assert p.returncode == 2 and p.stderr.startswith("asz sources: the storage root "), p.stderr
    assert asz("sources", *mini_args(src, src)).returncode == 0  # listing reads only
