"""``asz server``'s passes say sources gone as ``asz collect`` does (session 39; trial 36b F8): up to three ``gone:``
lines a pass, more as one line counting them, once, by the pass that found them; later passes say nothing more of
them. Real input: the corpus's spotter project (its two transcripts and one's two sub-agent files) landed by the
server's own pass (:func:`~asz_core.cli.server_pass.run_pass`, in this process), then removed."""

from __future__ import annotations

import shutil

import pytest

from asz_core.cli.server_pass import PassSpec, make_collectors, run_pass
from asz_core.config import load_config


def test_a_pass_says_its_gone_sources_in_one_line_and_later_passes_none(corpus_dir, tmp_path, capsys, monkeypatch):
    project = corpus_dir / "claude-code" / "projects" / "-home-user-spotter"
    if not project.is_dir():
        pytest.skip(f"{project} is absent")
    monkeypatch.chdir(tmp_path)  # no ./asz.yaml of the checkout's
    src, root = tmp_path / "src", tmp_path / "root"
    shutil.copytree(project, src / project.name)
    files = sorted(p for p in (src / project.name).rglob("*.jsonl"))
    assert len(files) == 4  # the sources the pass will find gone, counted from the folder
    collectors = make_collectors(PassSpec(str(root), None, "claude-code-local", (str(src),), "30s", 1))
    cfg = load_config(None)
    assert run_pass(collectors, root, cfg, 1)["sessions"] == 2
    capsys.readouterr()
    shutil.rmtree(src / project.name)
    said = []
    for _ in range(3):  # the pass that finds them, then two more
        run_pass(collectors, root, cfg, 1)
        out = capsys.readouterr()
        said.append([x for x in (out.out + out.err).splitlines() if x.startswith("gone:")])
    assert [len(x) for x in said] == [1, 0, 0], said
    assert said[0][0].startswith(f"gone: {len(files)} source(s) of 2 session(s) are gone since the last pass (")
    named = said[0][0].split("since the last pass (", 1)[1].split("); what ", 1)[0]
    assert sorted(f for f in map(str, files) if f in named) == sorted(named.removesuffix(" and 1 more").split(", "))
