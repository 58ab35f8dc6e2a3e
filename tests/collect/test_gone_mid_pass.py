"""Sources that vanish during a pass, between discovery and landing (trial 15 F16: ``rm -rf`` of the source folder
six seconds into a pass left 58 of 202 sessions unlanded, yet the pass said ``errors=0 gone=0`` and exited 0).

A source nothing of which ever landed (no cursor) is an ``error:`` naming it (:data:`asz_core.collect.vanished.VANISHED`),
counted in ``errors`` (a one-shot pass exits 1); a source that had landed is ``gone`` (its cursor becomes
``source_gone``). The removal is real, made at a real hook point of a real pass: ``on_session``, called after each
session lands. Real input: Claude Code corpus sessions.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from collect_helpers import Runner

from asz_core.collect.vanished import VANISHED
from asz_core.plugins import get_plugin_manager
from asz_core.storage.cursor import read_cursor

SAMPLE = "-Users-alex-workspace-claude-code-log-sample"  # three sessions, one main transcript each
HELPER = "-Users-alex-workspace-coderabbit-review-helper"  # a main transcript and three 2.0.x children beside it
MAIN = "cb2e607c-c758-415a-8b45-c49e4631906a"


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def _run(src: Path, root: Path) -> Runner:
    return Runner(root, src, get_plugin_manager().get("claude-code-local"), fsync=False)


def test_sessions_whose_files_vanish_mid_pass_are_errors_named_once(corpus_dir, tmp_path):
    src, root = tmp_path / "projects", tmp_path / "root"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / SAMPLE, src / SAMPLE)
    files = sorted((src / SAMPLE).glob("*.jsonl"))
    assert len(files) == 3
    run = _run(src, root)
    done: list[str] = []

    def remove_the_source_folder(session: str, n: int, total: int) -> None:
        done.append(session)
        if n == 1:
            shutil.rmtree(src)  # as the trial's rm -rf, after the first session landed

    c = run.collector.run_pass(remove_the_source_folder)
    first = src / SAMPLE / f"{done[0]}.jsonl"
    vanished = [f for f in files if f != first]
    assert (c.sessions, c.errors, c.gone, c.landed) == (3, 2, 0, 1) and c.failed
    assert c.records == _lines(corpus_dir / "claude-code" / "projects" / SAMPLE / first.name)
    assert sorted(run.err.splitlines()) == sorted(f"error: {f}: {VANISHED}" for f in vanished)
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith("_")) == [done[0]]  # no empty folder made


def test_a_new_stream_vanishing_is_an_error_and_a_landed_one_is_gone(corpus_dir, tmp_path):
    """The session has landed (its main transcript); its three children appear. Mid-pass one child and the main
    transcript vanish: the child that never landed is an error, the main one is gone, the other two children land."""
    corpus = corpus_dir / "claude-code" / "projects"
    src, root = tmp_path / "projects", tmp_path / "root"
    (src / SAMPLE).mkdir(parents=True)
    (src / HELPER).mkdir()
    first = sorted((corpus / SAMPLE).glob("*.jsonl"))[0]
    shutil.copy(first, src / SAMPLE)
    shutil.copy(corpus / HELPER / f"{MAIN}.jsonl", src / HELPER)
    run = _run(src, root)
    c = run()
    assert (c.sessions, c.landed, c.errors) == (2, 2, 0)
    children = sorted((corpus / HELPER).glob("agent-*.jsonl"))
    assert len(children) == 3
    for child in children:
        shutil.copy(child, src / HELPER)
    with (src / SAMPLE / first.name).open("ab") as f:  # the first session has something new too, so it is passed
        f.write((corpus / SAMPLE / first.name).read_bytes().splitlines(keepends=True)[0])
    child, main = src / HELPER / children[0].name, src / HELPER / f"{MAIN}.jsonl"

    def remove(session: str, n: int, total: int) -> None:
        if session == first.stem:
            child.unlink()
            main.unlink()

    c = run.collector.run_pass(remove)
    assert (c.sessions, c.errors, c.gone, c.landed) == (2, 1, 1, 3)
    assert c.records == 1 + sum(_lines(p) for p in children[1:])
    assert run.err.splitlines() == [f"error: {child}: {VANISHED}"]
    assert read_cursor(root / MAIN / "streams" / "main" / "transcript.cursor").state == "source_gone"
    again = run()  # discovery no longer lists either: nothing told or counted again
    assert (again.errors, again.gone) == (0, 0) and run.err.splitlines() == [f"error: {child}: {VANISHED}"]
