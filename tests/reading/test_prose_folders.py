"""``asz export --format prose`` reads a landed record's source line from Claude Code's folders as ``asz collect`` reads
them (session 18 left it reading one folder). A root collected from ``~/.config/claude/projects`` while it was the only
folder names its sources relative to it; once ``~/.claude/projects`` appears, that one is the default folder, and the
export looks in both, in order (docs/reading.md). ``--source`` is taken again for each further folder. Real files: a
corpus session under a temporary HOME (CLAUDE_CONFIG_DIR and XDG_CONFIG_HOME unset for the export), never the
machine's ~/.claude; the root is landed as claude-code-local 0.1.0 did, so prose needs the source lines."""

from __future__ import annotations

import shutil

from reading_helpers import asz, collect_as_claude_0_1

SID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"  # three interrupt notices written as one-text-block lists
OTHER = "-home-user-spotter"  # another project folder (SID is in -Users-alex-workspace-claude-code-log-sample)


def _copy(corpus_source, dest) -> None:
    for p in corpus_source.glob(f"*/{SID}*"):
        to = dest / p.relative_to(corpus_source)
        to.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if p.is_dir() else shutil.copy2)(p, to)


def test_prose_reads_the_source_line_from_every_claude_folder(corpus_source, tmp_path, monkeypatch):
    home = tmp_path / "home"
    xdg = home / ".config" / "claude" / "projects"
    _copy(corpus_source, xdg)
    root = tmp_path / "root"
    collect_as_claude_0_1(xdg, root)  # src relative to ~/.config/claude/projects, the only folder then
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    shutil.copytree(corpus_source / OTHER, home / ".claude" / "projects" / OTHER)  # now the default folder
    p = asz("export", SID, "--format", "prose", "--root", str(root))
    assert "read from their source lines" in p.stderr and "could not be checked" not in p.stderr, p.stderr
    dot = home / ".claude" / "projects"
    p2 = asz("export", SID, "--format", "prose", "--root", str(root), "--source", str(dot), "--source", str(xdg))
    assert p2.stdout == p.stdout and "could not be checked" not in p2.stderr, p2.stderr
    p3 = asz("export", SID, "--format", "prose", "--root", str(root), "--source", str(dot))  # the one folder only
    [note] = [ln for ln in p3.stderr.splitlines() if "could not be checked" in ln]
    assert f"whose transcript is not under {dot}, where this export looked" in note
    assert p3.stdout != p.stdout  # the interrupt notices kept as typed text: the source decided otherwise
    shutil.rmtree(xdg)
    p4 = asz("export", SID, "--format", "prose", "--root", str(root))
    [note] = [ln for ln in p4.stderr.splitlines() if "could not be checked" in ln]
    assert f"whose transcript is not under {dot}, where this export looked" in note  # only ~/.claude holds sessions now
