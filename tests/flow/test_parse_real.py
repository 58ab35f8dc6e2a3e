"""Parse with the real index and assembly over real Claude Code sessions collected from ../shared/corpus.

Holds the §4.3 invariant (fold of rounds 1..N = one full assembly through round
N's through_seq) at several budgets down to one landed file per round, checks
that a re-parse from the same landed files rebuilds the chain byte for byte, and
that every chain passes the six verify checks.
"""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

pytest.importorskip("asz_core.flow.assemble")
pytest.importorskip("asz_core.flow.index")
pytest.importorskip("asz_core.collect")

from asz_core.cli.main import app  # noqa: E402
from asz_core.flow.assemble import assemble  # noqa: E402
from asz_core.flow.chain import Chain  # noqa: E402
from asz_core.flow.fold import Fold  # noqa: E402
from asz_core.flow.index import load_index  # noqa: E402
from asz_core.flow.parse import IndexEngine, fold_matches_assembly, parse_outcome, parse_root  # noqa: E402
from asz_core.flow.verify_chain import verify_chains  # noqa: E402
from asz_core.storage.layout import landed_files, session_dir  # noqa: E402

from cli_helpers import fork_or_skip  # noqa: E402
from test_parse_fixtures import SESSION, land  # noqa: E402

PROJECTS = ("-experiments-worktrees", "-Users-alex-workspace-coderabbit-review-helper", "-src-deep-manifest")


@pytest.fixture(scope="module")
def landed_root(tmp_path_factory, corpus_dir):
    src = tmp_path_factory.mktemp("src") / "projects"
    for name in PROJECTS:
        p = corpus_dir / "claude-code" / "projects" / name
        if not p.is_dir():
            pytest.skip(f"{p} is absent")
        shutil.copytree(p, src / name)
    root = tmp_path_factory.mktemp("root")
    r = CliRunner().invoke(app, ["collect", "--once", "--source", str(src), "--root", str(root), "--max-delta-bytes", "30000"])
    assert r.exit_code == 0, r.output
    return root


def _copy(root, tmp_path):
    dest = tmp_path / "root"
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns("_conversations"))
    return dest


@pytest.mark.parametrize("budget", [2 * 1024 * 1024, 40000, 1])
def test_invariant_with_the_real_assembly(landed_root, tmp_path, budget):
    root = _copy(landed_root, tmp_path)
    report = parse_root(root, max_round_bytes=budget)
    assert report.ok, report.problems
    assert report.rounds >= len(report.outcomes)
    for o in report.outcomes:
        ix = load_index(session_dir(root, o.session))
        fold = Fold()
        for r in o.rounds:
            fold.accept(r)
            assert r.size <= budget or len(ix.files_in(r.header.from_seq, r.header.through_seq)) == 1
            asm = assemble(ix, r.header.through_seq, conversation=o.conversation)
            assert fold_matches_assembly(fold, asm) == [], (o.session, r.header.round)
        if budget == 1:
            assert len(o.rounds) == len(ix.files)
    rep = verify_chains(root)
    assert rep.ok, rep.lines()
    assert rep.rounds == report.rounds


def test_reparse_rebuilds_the_same_chain(landed_root, tmp_path):
    root = _copy(landed_root, tmp_path)
    first = parse_root(root, max_round_bytes=40000)
    names = {o.session: [(r.path.name, r.data) for r in o.rounds] for o in first.outcomes}
    shutil.rmtree(root / "_conversations")
    shutil.rmtree(session_dir(root, first.outcomes[0].session) / "index")  # the index is disposable too
    again = parse_root(root, max_round_bytes=40000)
    assert {o.session: [(r.path.name, r.data) for r in o.rounds] for o in again.outcomes} == names


def test_parse_in_two_worker_processes_writes_the_chains_one_process_writes(landed_root, tmp_path):
    fork_or_skip()
    one, two = _copy(landed_root, tmp_path / "one"), _copy(landed_root, tmp_path / "two")
    a = parse_root(one, max_round_bytes=40000, jobs=1)
    b = parse_root(two, max_round_bytes=40000, jobs=2)
    assert a.ok and b.ok and a.rounds == b.rounds > len(a.outcomes)
    assert [(o.session, o.conversation, o.watermark, [r.data for r in o.rounds]) for o in a.outcomes] == \
        [(o.session, o.conversation, o.watermark, [r.data for r in o.rounds]) for o in b.outcomes]

    def tree(root):
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.name.startswith(".")}

    ta, tb = tree(one), tree(two)
    assert sorted(ta) == sorted(tb) and [k for k in ta if ta[k] != tb[k]] == []
    assert verify_chains(two).ok


def test_parse_is_incremental_over_a_growing_session(landed_root, tmp_path):
    """The watermark held back, then released in stages: the fold equals one full assembly at every stage."""

    class Capped(IndexEngine):
        cap = 0

        def watermark(self, sdir):
            ix, seq = super().watermark(sdir)
            return ix, min(seq, self.cap)

    root = _copy(landed_root, tmp_path)
    eng = Capped()
    for stage in (3, 7, 10**9):
        eng.cap = stage
        rep = parse_root(root, engine=eng)
        assert rep.ok, rep.problems
        for o in rep.outcomes:
            ix = load_index(session_dir(root, o.session))
            through = min(stage, ix.indexed_seq)
            fold = Chain(root, o.conversation).load()
            assert fold.through_seq == through
            assert fold_matches_assembly(fold, assemble(ix, through, conversation=o.conversation)) == []
    assert verify_chains(root).ok


def test_unreadable_landed_file_stops_the_watermark_before_it(tmp_path):
    for i in range(3):
        land(tmp_path, [{"id": f"r{i}", "text": f"hello {i}", "time": f"2026-01-01T00:00:0{i}Z"}])
    bad = landed_files(session_dir(tmp_path, SESSION))[1][1]
    bad.chmod(0o644)
    bad.write_bytes(bad.read_bytes()[:-20])
    o = parse_outcome(tmp_path, SESSION, fsync=False)
    assert [r.header.through_seq for r in o.rounds] == [1]
    assert "index stops before a landed file it cannot read" in o.problem and bad.name in o.problem
    assert "rounds written through seq 1" in o.problem
