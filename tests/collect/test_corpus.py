"""End to end: the shared Claude Code corpus collected by the default adapter (claude-code-local)."""

from __future__ import annotations

import shutil

import pytest

from asz_core.plugins import get_plugin_manager
from asz_core.sessiondata import SDReader
from asz_core.storage.layout import kind_dir, landed_files

from collect_helpers import all_files_ok, asz, source_lines, summary


@pytest.fixture
def claude_home(corpus_dir, tmp_path):
    """A CLAUDE_CONFIG_DIR holding a copy of ../shared/corpus/claude-code/projects."""
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    try:
        get_plugin_manager().get("claude-code-local")
    except KeyError as exc:
        pytest.skip(f"the Claude Code adapter is not usable: {exc}")
    home = tmp_path / "claude"
    shutil.copytree(projects, home / "projects")
    return home


def test_the_corpus_lands_every_line_exactly_once(claude_home, tmp_path):
    root = tmp_path / "data"
    env = {"CLAUDE_CONFIG_DIR": str(claude_home)}
    p = asz("collect", "--once", "--root", str(root), cwd=tmp_path, extra_env=env, child=True)  # default adapter, default source
    assert p.returncode == 0, p.stderr
    s = summary(p.stdout)
    assert s["errors"] == s["conflicts"] == s["pending"] == "0"
    adapter = get_plugin_manager().get("claude-code-local")
    disc = adapter.discover(claude_home / "projects")
    assert disc.sources and int(s["sources"]) == len(disc.sources)
    # bytes= is every source byte read, a snapshot's trailing newline included (a trial user found the
    # .meta.json files' final newlines missing from it: 3 bytes short over this corpus)
    assert int(s["bytes"]) == sum(src.path.stat().st_size for src in disc.sources)
    lines = 0
    for src in disc.sources:
        d = kind_dir(root, src.session, src.kind, src.stream, src.batch)
        files = [f for ln, f in landed_files(root / d.relative_to(root).parts[0]) if f.parent == d and ln.kind == src.kind]
        got = [(r.ord, r.off, r.bytes, r.sha) for f in files for _, r in SDReader(f)]
        if src.mode == "append":
            want = source_lines(src.path)
            assert got == want, src.src  # exactly once, in order, no gap
            lines += len(want)
        else:
            assert [g[:2] for g in got] == ([(1, 0)] if src.path.read_bytes().strip(b"\n") else []), src.src
    assert lines > 1000
    assert all_files_ok(root) == []
    again = asz("collect", "--once", "--root", str(root), cwd=tmp_path, extra_env=env, child=True)
    assert again.returncode == 0 and summary(again.stdout)["landed"] == "0"
    v = asz("verify", "--root", str(root), cwd=tmp_path, extra_env=env)
    assert v.returncode == 0, v.stdout + v.stderr
