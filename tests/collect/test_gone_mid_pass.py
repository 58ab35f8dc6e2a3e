"""Sources that vanish during a pass, between discovery and landing (trial 15 F16: ``rm -rf`` of the source folder
six seconds into a pass left 58 of 202 sessions unlanded, yet the pass said ``errors=0 gone=0`` and exited 0).

A source nothing of which ever landed (no cursor) is an ``error:`` naming it (:data:`asz_core.collect.vanished.VANISHED`),
counted in ``errors`` (a one-shot pass exits 1); a source that had landed is ``gone`` (its cursor becomes
``source_gone``), unless this pass's listing saw it grown or changed since: then the bytes since are lost with it, an
``error:`` naming how many (:func:`asz_core.collect.vanished.unlanded`). The removal is real, made at a real hook point of a real pass: ``on_session``, called after each
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


def _land_then_grow(corpus_dir, tmp_path, head: int | None):
    """SAMPLE's first session whole and HELPER's main transcript's first ``head`` lines (None: all) landed; then the rest of the
    main transcript appended. Returns (runner, first session's file, main transcript, its landed bytes, its size)."""
    corpus = corpus_dir / "claude-code" / "projects"
    src, root = tmp_path / "projects", tmp_path / "root"
    (src / SAMPLE).mkdir(parents=True)
    (src / HELPER).mkdir()
    first = sorted((corpus / SAMPLE).glob("*.jsonl"))[0]
    shutil.copy(first, src / SAMPLE)
    lines = (corpus / HELPER / f"{MAIN}.jsonl").read_bytes().splitlines(keepends=True)
    head = len(lines) if head is None else head
    main = src / HELPER / f"{MAIN}.jsonl"
    main.write_bytes(b"".join(lines[:head]))
    run = _run(src, root)
    c = run()
    assert (c.sessions, c.landed, c.errors, c.records) == (2, 2, 0, _lines(first) + head)
    with main.open("ab") as f:
        f.write(b"".join(lines[head:]))
    return run, src / SAMPLE / first.name, main, len(b"".join(lines[:head])), len(b"".join(lines))


def test_a_new_stream_vanishing_is_an_error_and_a_landed_one_is_gone(corpus_dir, tmp_path):
    """The session has landed (its main transcript); its three children appear. Mid-pass one child and the main
    transcript vanish: the child that never landed is an error, the main one is gone, the other two children land."""
    corpus = corpus_dir / "claude-code" / "projects"
    run, first, main, _, _ = _land_then_grow(corpus_dir, tmp_path, head=None)  # the main transcript whole
    src, root = run.collector.source_root, run.collector.root
    children = sorted((corpus / HELPER).glob("agent-*.jsonl"))
    assert len(children) == 3
    for child in children:
        shutil.copy(child, src / HELPER)
    with first.open("ab") as f:  # the first session has something new too, so it is passed
        f.write((corpus / SAMPLE / first.name).read_bytes().splitlines(keepends=True)[0])
    child = src / HELPER / children[0].name

    def remove(session: str, n: int, total: int) -> None:
        if session == first.stem:
            child.unlink()
            main.unlink()

    c = run.collector.run_pass(remove)
    assert (c.sessions, c.errors, c.gone, c.landed) == (2, 1, 1, 3)
    assert c.records == 1 + sum(_lines(p) for p in children[1:])
    gone = f"gone: {main}: the source is gone since the last pass"  # named once (trial 19, F18), the error as before
    said = run.err.splitlines()
    assert len(said) == 2 and said[0].startswith(gone) and said[1] == f"error: {child}: {VANISHED}"
    assert read_cursor(root / MAIN / "streams" / "main" / "transcript.cursor").state == "source_gone"
    again = run()  # discovery no longer lists either: nothing told or counted again
    assert (again.errors, again.gone) == (0, 0) and run.err.splitlines() == said


def test_a_landed_source_grown_then_gone_mid_pass_is_an_error_naming_the_bytes_not_landed(corpus_dir, tmp_path):
    """The main transcript landed its first 100 lines, then grew to its 292; this pass's listing saw it grown, and it
    is deleted (after the session before it) before the pass reads it: the lines since are lost with it, so that is an
    error naming the file and the bytes that never landed, not ``gone`` (a deletion with nothing new)."""
    run, first, main, landed, size = _land_then_grow(corpus_dir, tmp_path, head=100)
    cp = run.collector.root / MAIN / "streams" / "main" / "transcript.cursor"
    assert read_cursor(cp).offset == landed

    def remove(session: str, n: int, total: int) -> None:
        if session == first.stem:
            main.unlink()

    c = run.collector.run_pass(remove)
    assert (c.sessions, c.errors, c.gone, c.landed) == (2, 1, 0, 0) and c.failed  # --once exits 1
    [err] = run.err.splitlines()
    assert err.startswith(f"error: {main}: gone before its new bytes landed: ")
    assert f"saw {size:,} bytes, its cursor had landed {landed:,}" in err
    assert f"the {size - landed:,} bytes after were not collected" in err
    assert read_cursor(cp).state == "source_gone"
    again = run()  # discovery no longer lists it, its cursor says source_gone: nothing told or counted again
    assert (again.errors, again.gone) == (0, 0) and run.err.splitlines() == [err]


def test_a_landed_source_with_nothing_new_gone_mid_pass_stays_gone(corpus_dir, tmp_path):
    """The same deletion of a main transcript whose every byte landed (the listing saw it at its cursor): ``gone``."""
    run, first, main, landed, size = _land_then_grow(corpus_dir, tmp_path, head=100)
    assert run().errors == 0  # the rest lands: the cursor is at the file's size

    def remove(session: str, n: int, total: int) -> None:
        if session == first.stem:
            main.unlink()

    c = run.collector.run_pass(remove)
    assert (c.errors, c.gone) == (0, 1) and not c.failed
    [said] = run.err.splitlines()  # one line naming it (trial 19, F18): a source gone with nothing lost is no error
    assert said.startswith(f"gone: {main}: the source is gone since the last pass; what landed is kept")


def test_a_landed_snapshot_rewritten_then_gone_mid_pass_is_an_error(corpus_dir, tmp_path):
    """A companion file (``tool-results/<name>``, a snapshot) landed, is rewritten, then deleted between the pass's
    listing and its read: the version listed never landed, an error naming its size."""
    run, first, main, landed, size = _land_then_grow(corpus_dir, tmp_path, head=None)
    doc = main.parent / MAIN / "tool-results" / "out.txt"
    doc.parent.mkdir(parents=True)
    doc.write_bytes(b"first version\n")
    assert run().landed == 1
    doc.write_bytes(b"the second, longer version\n")

    def remove(session: str, n: int, total: int) -> None:
        if session == first.stem:
            doc.unlink()

    c = run.collector.run_pass(remove)
    assert (c.errors, c.gone) == (1, 0) and c.failed
    [err] = run.err.splitlines()
    assert err.startswith(f"error: {doc}: gone before its change was read: this pass's listing saw 27 bytes")
    assert "size 14 -> 27" in err and "those 27 bytes were not collected" in err


def test_a_source_renamed_mid_pass_is_said_renamed_and_its_new_name_is_noted_with_its_lines(corpus_dir, tmp_path):
    """Trial 41b F4: a file renamed during the pass (to a name that is no session id) was ``gone before any of it
    landed`` though it was there under its new name: the error names the new name, and the next pass's note says how
    many lines the file holds that land under no name (counted in the file itself)."""
    src, root = tmp_path / "projects", tmp_path / "root"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / SAMPLE, src / SAMPLE)
    files = sorted((src / SAMPLE).glob("*.jsonl"))
    run = _run(src, root)
    done: list[str] = []

    def rename_one(session: str, n: int, total: int) -> None:
        done.append(session)
        if n == 1:
            last = [f for f in files if f.stem not in done][-1]
            last.rename(last.with_name(last.stem + "-renamed.jsonl"))

    c = run.collector.run_pass(rename_one)
    moved = [f for f in files if not f.exists()]
    assert len(moved) == 1 and (c.errors, c.gone) == (1, 0)
    new = moved[0].with_name(moved[0].stem + "-renamed.jsonl")
    assert run.err.splitlines() == [f"error: {moved[0]}: renamed to {new.name} before any of it landed: discovery listed "
                                    "it this pass, then it was in its folder under that name when the pass came to read "
                                    "it; nothing of it was collected under its old name (the next pass takes it under "
                                    "the new one when that is a name its adapter collects; asz sources lists what it skips)"]
    again = run()
    held = new.read_bytes()
    n = held.count(b"\n")
    assert again.skipped == 1 and run.err.splitlines()[-1] == (
        f"warning: {SAMPLE}/{new.name}: file name is not a session id; not collected: none of its {n:,} "
        f"line(s) ({len(held):,} bytes) lands under this name (asz sources lists what is skipped)")
