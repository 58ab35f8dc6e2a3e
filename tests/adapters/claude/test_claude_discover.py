"""Discovery of dialect claude-code/1 over the conformance fixture tree, the real corpus and built trees.

The fixture tree's README says what each case expects: session-first grouping
across project directories, byte-exact uppercase ids, noise skipped.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core.collect.second_source import refuse_seconds
from asz_adapters_claude.discover import session_matches, slug_of

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
CORPUS = SHARED / "corpus" / "claude-code" / "projects"
FIXTURE = SHARED / "conformance" / "fixtures" / "claude-code-tree"
A = ClaudeCodeLocal()
S1 = "00000001-0000-4000-8000-000000000001"
S2 = "00000002-0000-4000-8000-00000000000A"

needs_fixture = pytest.mark.skipif(not FIXTURE.is_dir(), reason=f"{FIXTURE} is absent")
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent")


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A copy of the fixture tree plus the noise its README names."""
    if not FIXTURE.is_dir():
        pytest.skip(f"{FIXTURE} is absent")
    root = tmp_path / "projects"
    shutil.copytree(FIXTURE, root)
    (root / "README.md").unlink()
    p = root / "01-full-conversation"
    (p / "not-a-uuid.jsonl").write_text("{}\n")
    (p / "sessions-index.json").write_text("{}")
    (p / "tool-results").mkdir()
    (p / S1 / "tool-results").mkdir()
    return root


def _rows(d):
    return [(s.session, s.kind, s.stream, s.batch, s.mode, s.src) for s in d.sources]


@needs_fixture
def test_fixture_tree_sessions_and_sources(tree: Path) -> None:
    d = A.discover(tree)
    assert d.errors == []
    assert list(d.sessions()) == [S1, S2]  # uppercase id kept byte for byte
    main = f"01-full-conversation/{S1}"
    assert _rows(d) == [
        (S1, "transcript", "main", "", "append", f"01-full-conversation/{S1}.jsonl"),
        (S1, "transcript", "a0000001aaaa00001", "", "append", f"{main}/subagents/agent-a0000001aaaa00001.jsonl"),
        (S1, "transcript", "a0000001bbbb00002", "wf_buildcheck", "append", f"{main}/subagents/workflows/wf_buildcheck/agent-a0000001bbbb00002.jsonl"),
        (S1, "agent_meta", "a0000001aaaa00001", "", "snapshot", f"{main}/subagents/agent-a0000001aaaa00001.meta.json"),
        (S1, "journal", "", "wf_buildcheck", "append", f"{main}/subagents/workflows/wf_buildcheck/journal.jsonl"),
        (S1, "workflow_manifest", "", "wf_buildcheck", "snapshot", f"{main}/workflows/wf_buildcheck.json"),
        # filed under another project directory, grouped by session id; run id split on the last -wf_
        (S1, "workflow_script", "", "wf_buildcheck", "snapshot", f"01-script-filed-elsewhere/{S1}/workflows/scripts/build-check-wf_buildcheck.js"),
        (S2, "transcript", "main", "", "append", f"02-uppercase-session-id/{S2}.jsonl"),
    ]
    for s in d.sources:
        assert s.path.is_absolute() and s.path == tree / s.src and s.dialect == "claude-code/1"
    skipped = dict(d.skipped)
    # a project-level tool-results/ is noise; the session's own tool-results/ holds companion files (here none)
    for noise in ("memory", "not-a-uuid.jsonl", "sessions-index.json", "tool-results"):
        assert f"01-full-conversation/{noise}" in skipped, noise
    assert all(reason for reason in skipped.values())


@needs_fixture
def test_filters_key_on_the_primary_directory(tree: Path) -> None:
    assert list(A.discover(tree, include=["01-full-*"]).sessions()) == [S1]
    only2 = A.discover(tree, exclude=["01-*"])
    assert list(only2.sessions()) == [S2]
    assert any(S1 in reason for _, reason in only2.skipped)
    # the script filed elsewhere does not make its session match that other directory
    assert list(A.discover(tree, include=["01-script-*"]).sessions()) == []


def test_slug_filters() -> None:
    assert slug_of("/Users/me/my.project dir") == "-Users-me-my-project-dir"
    assert session_matches("-private-tmp", "/private/tmp/**")
    assert session_matches("-private-tmp-x-y", "/private/tmp/**")
    assert not session_matches("-private-tmpfoo", "/private/tmp/**")
    assert session_matches("-private-tmp", "/private/tmp")
    assert not session_matches("-private-tmp-x", "/private/tmp")
    assert session_matches("-Users-a-work-site", "-Users-*-work-*")


@needs_corpus
def test_corpus_has_eleven_sessions_and_four_child_layouts() -> None:
    d = A.discover(CORPUS)
    assert d.errors == [] and d.skipped == []
    sessions = d.sessions()
    assert len(sessions) == 11
    kids = {s.src: s for s in d.sources if s.stream not in ("", "main")}
    # 2.1 subagents/ with sidecars, 2.1.39 short ids, 2.0.x files beside the session file
    assert kids["-home-user-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl"].stream == "acompact-f46190"
    beside = kids["-src-deep-manifest/agent-c8d9b115.jsonl"]
    assert (beside.session, beside.stream) == ("a7da6a22-facc-4fcd-8bab-f83c87862004", "c8d9b115")
    assert [s.stream for s in sessions["cb2e607c-c758-415a-8b45-c49e4631906a"]] == ["main", "2b93909d", "645808c9", "ea02459f"]
    assert sum(s.kind == "agent_meta" for s in d.sources) == 6
    print(f"\ncorpus: {len(sessions)} sessions, {len(d.sources)} sources")


def test_errors_are_reported_and_discovery_continues(tmp_path: Path) -> None:
    missing = A.discover(tmp_path / "nope")
    assert missing.sources == [] and len(missing.errors) == 1
    root = tmp_path / "projects"
    proj = root / "-p"
    proj.mkdir(parents=True)
    sid = "11111111-2222-4333-8444-555555555555"
    (proj / f"{sid}.jsonl").write_text('{"type":"user"}\n')
    os.symlink(root / "gone.jsonl", proj / "agent-deadbeef.jsonl")  # a 2.0.x child that is a dangling link inside the root
    (proj / "agent-cafe0001.jsonl").write_text('{"type":"user"}\n')  # names no session yet
    (proj / "agent-cafe0002.jsonl").write_text(f'{{"type":"summary"}}\n{{"sessionId":"{sid}"}}\n')
    (proj / sid / "subagents" / "workflows" / "wf_r").mkdir(parents=True)
    (proj / sid / "subagents" / "agent-cafe0002.jsonl").write_text("")  # same stream twice: the newer layout wins
    (proj / sid / "workflows").mkdir()
    (proj / sid / "workflows" / "notes.txt").write_text("")
    d = A.discover(root)
    assert [(s.stream, s.src) for s in d.sources] == [  # the second into stream cafe0002 right after the first
        ("main", f"-p/{sid}.jsonl"),
        ("cafe0002", f"-p/{sid}/subagents/agent-cafe0002.jsonl"),
        ("cafe0002", "-p/agent-cafe0002.jsonl"),
    ]
    errors = dict(d.errors)
    assert str(proj / "agent-deadbeef.jsonl") not in errors  # issue 23: a link that leads nowhere is skipped, not an error
    assert str(proj / "agent-cafe0002.jsonl") not in errors
    refuse_seconds(tmp_path / "store", d)  # the collector refuses it as a conflict, not an error (origin-digest §5.1)
    assert [s.src for s in d.sources] == [f"-p/{sid}.jsonl", f"-p/{sid}/subagents/agent-cafe0002.jsonl"]
    assert dict(d.conflicts)[str(proj / "agent-cafe0002.jsonl")] == (
        f"transcript of stream 'cafe0002' in session {sid} already comes from -p/{sid}/subagents/agent-cafe0002.jsonl; "
        f"the second source is refused: move it out of its source folder (a stray copy), or move -p/{sid}/subagents/"
        "agent-cafe0002.jsonl away to land this one instead (the cursor follows a source that holds what landed); asz sources "
        "lists both")
    skipped = dict(d.skipped)
    assert skipped["-p/agent-deadbeef.jsonl"] == f"a symbolic link to {root / 'gone.jsonl'}, which leads nowhere"
    assert skipped["-p/agent-cafe0001.jsonl"] == "no line names its session yet"
    assert f"-p/{sid}/workflows/notes.txt" in skipped


def test_links_out_of_the_source_root_are_skipped_and_links_inside_followed(tmp_path: Path) -> None:
    """A symbolic link (file or directory) leading outside the source root lands nothing; one inside it is followed."""
    outside = tmp_path / "outside"
    (outside / "subagents").mkdir(parents=True)
    (outside / "secret.jsonl").write_text('{"type":"user","secret":true}\n')
    (outside / "subagents" / "agent-cafe0003.jsonl").write_text('{"type":"user"}\n')
    real = tmp_path / "projects"
    proj = real / "-p"
    (real / "_store").mkdir(parents=True)
    proj.mkdir()
    s7, s8, s9 = (f"7777777{i}-7777-4777-8777-777777777777" for i in (7, 8, 9))
    (real / "_store" / "kept.jsonl").write_text('{"type":"user"}\n')
    os.symlink(outside / "secret.jsonl", proj / f"{s7}.jsonl")  # a file out of the root
    os.symlink(outside, proj / s8)  # a session directory out of the root
    os.symlink("../_store/kept.jsonl", proj / f"{s9}.jsonl")  # a file inside the root, by a relative link
    os.symlink(outside, real / "-q")  # a project directory out of the root
    linked_root = tmp_path / "projects-link"  # the source root given through a link of its own
    os.symlink(real, linked_root)
    for root in (real, linked_root):
        d = A.discover(root)
        assert [(s.session, s.src) for s in d.sources] == [(s9, f"-p/{s9}.jsonl")]
        assert d.errors == []
        skipped = dict(d.skipped)
        assert skipped["-p/" + f"{s7}.jsonl"] == f"a symbolic link to {outside / 'secret.jsonl'}, outside the source root"
        assert skipped["-p/" + s8] == f"a symbolic link to {outside}, outside the source root"
        assert skipped["-q"] == f"a symbolic link to {outside}, outside the source root"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads directories whatever their mode")
def test_unreadable_project_directory_is_skipped(tmp_path: Path) -> None:
    """Issue 23: a folder of the source root that cannot be listed is skipped with why, not an error of every pass."""
    root = tmp_path / "projects"
    (root / "-locked").mkdir(parents=True)
    (root / "-open").mkdir()
    (root / "-open" / "11111111-2222-4333-8444-555555555555.jsonl").write_text("{}\n")
    os.chmod(root / "-locked", 0)
    try:
        d = A.discover(root)
    finally:
        os.chmod(root / "-locked", 0o755)
    assert len(d.sources) == 1 and d.errors == []
    assert dict(d.skipped)["-locked"] == "cannot be listed: permission denied"


def test_an_agent_file_named_main_never_takes_the_main_stream(tmp_path: Path) -> None:
    """``agent-main.jsonl`` (in subagents/ or beside the session file) would land as stream ``main`` and refuse the
    real transcript on every pass; it is skipped with the reason, and the session file keeps its stream."""
    root = tmp_path / "projects"
    sdir = root / "-p" / S1
    (sdir / "subagents").mkdir(parents=True)
    (root / "-p" / f"{S1}.jsonl").write_text('{"type":"user","sessionId":"%s"}\n' % S1)
    (sdir / "subagents" / "agent-main.jsonl").write_text('{"type":"user"}\n')
    (sdir / "subagents" / "agent-Main.meta.json").write_text("{}")
    (sdir / "subagents" / "agent-a1.jsonl").write_text('{"type":"user"}\n')
    (root / "-p" / "agent-main.jsonl").write_text('{"type":"user","sessionId":"%s"}\n' % S1)
    d = A.discover(root)
    assert [(s.stream, s.src) for s in d.sources] == [("main", f"-p/{S1}.jsonl"), ("a1", f"-p/{S1}/subagents/agent-a1.jsonl")]
    skipped = {Path(p).name: why for p, why in d.skipped}
    assert skipped["agent-main.jsonl"] == skipped["agent-Main.meta.json"] == (
        "its agent id is the name of the session's main stream, which the session file holds")
    assert sum(1 for p, _ in d.skipped if Path(p).name == "agent-main.jsonl") == 2
