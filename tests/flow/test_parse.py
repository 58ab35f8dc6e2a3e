"""Parse (origin-digest §2.5, §4.3): watermark, whole-session diff, budgets, reproduction, refusals."""

from __future__ import annotations

import io
import shutil

import pytest

from asz_core.flow.chain import ASSEMBLED_BY, Chain, ChainError, assembly_mark
from asz_core.flow.unread import UNREAD
from asz_core.flow.fold import Fold
from asz_core.flow.parse import ParseError, diff_assembly, fold_matches_assembly, parse_outcome, parse_root, parse_session
from asz_core.flow.round import RoundHeader, build_round, input_digest, landed_file_digest, read_round
from asz_core.flow.verify_chain import verify_chains
from asz_core.storage.layout import landed_files, session_dir

from test_parse_fixtures import SESSION, ToyEngine, land, toy_assembly, toy_session


def rounds_dir(root):
    return Chain(root, SESSION).rounds_dir


def check_invariant(root, rounds):
    """fold(1..N) == full assembly through round N's through_seq, for every N."""
    fold = Fold()
    sdir = session_dir(root, SESSION)
    for r in rounds:
        fold.accept(read_round(r.path))
        assert fold_matches_assembly(fold, toy_assembly(sdir, r.header.through_seq)) == [], f"round {r.header.round}"


def test_session_with_nothing_landed_creates_nothing(tmp_path):
    (tmp_path / SESSION).mkdir()
    assert parse_session(tmp_path, SESSION, engine=ToyEngine()) == []
    assert parse_session(tmp_path, "no-such-session", engine=ToyEngine()) == []
    assert not (tmp_path / "_conversations").exists()


def test_first_parse_covers_everything_then_nothing_new(tmp_path):
    toy_session(tmp_path, files=4)
    rs = parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False)
    assert len(rs) == 1
    h = rs[0].header
    assert (h.round, h.from_seq, h.through_seq, h.previous) == (1, 1, 4, "")
    assert h.conversation == h.session == SESSION and h.parser == "v1" and h.policy == "v1+idle=10m0s"
    assert h.from_time == "2026-01-01T00:00:01.5Z" and h.through_time == "2026-01-01T00:00:12.5Z"
    files = [p for _, p in landed_files(session_dir(tmp_path, SESSION))]
    assert h.input_digest == input_digest("", [landed_file_digest(p) for p in files])
    assert rs[0].path.parent == tmp_path / "_conversations" / SESSION / "rounds"
    assert rs[0].path.stat().st_mode & 0o777 == 0o444
    assert parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False) == []
    state = Chain(tmp_path, SESSION).read_state()
    assert state == {"head": "1", "head_digest": rs[0].digest, "through_seq": "4", "input_digest": h.input_digest, "parser": "v1", "policy": "v1+idle=10m0s",
                     ASSEMBLED_BY: assembly_mark(),  # the asz whose assembly wrote it (trial 23b, F4)
                     UNREAD: "toy/1"}  # the toy files' dialect, which no installed adapter speaks (trial 49c F1)
    check_invariant(tmp_path, rs)


def test_staged_landing_writes_deltas_with_tombstones_and_resolved(tmp_path):
    eng = ToyEngine()
    land(tmp_path, [{"id": "a", "text": "one"}, {"id": "b", "parent": "later", "text": "two"}])
    r1 = parse_session(tmp_path, SESSION, engine=eng, fsync=False)
    land(tmp_path, [{"id": "later", "text": "three"}])
    r2 = parse_session(tmp_path, SESSION, engine=eng, fsync=False)
    assert [r.header.round for r in r1 + r2] == [1, 2]
    h2 = r2[0].header
    assert (h2.from_seq, h2.through_seq, h2.previous) == (2, 2, r1[0].digest)
    assert h2.input_digest == input_digest(r1[0].header.input_digest, [landed_file_digest(landed_files(session_dir(tmp_path, SESSION))[1][1])])
    rels = {x.id: x for x in r2[0].relations}
    assert rels["rel/ends_with/stream_main/input_1_2"].tombstone  # vanished relation → tombstone
    assert not rels["rel/ends_with/stream_main/input_2_1"].tombstone
    assert [(u.id, u.state) for u in r2[0].unresolved] == [("unres/parent/later", "resolved")]
    assert [n.id for n in r2[0].nodes] == ["input/2/1"]  # unchanged nodes are left out
    assert h2.session_from_time == r1[0].header.session_from_time
    check_invariant(tmp_path, r1 + r2)
    fold = Chain(tmp_path, SESSION).load()
    assert fold.unresolved["unres/parent/later"].state == "resolved"  # resolved entries stay


def test_round_written_when_evidence_advances_without_entity_change(tmp_path):
    eng = ToyEngine()
    land(tmp_path, [{"id": "a"}])
    parse_session(tmp_path, SESSION, engine=eng, fsync=False)
    land(tmp_path, [])  # a landed file with no records: evidence moves, structure does not
    rs = parse_session(tmp_path, SESSION, engine=eng, fsync=False)
    assert len(rs) == 1 and rs[0].counts == {"nodes": 0, "relations": 0, "unresolved": 0}
    assert (rs[0].header.from_seq, rs[0].header.through_seq) == (2, 2)


@pytest.mark.parametrize("budget", [2 * 1024 * 1024, 9000, 4000, 2600, 1])
def test_budget_invariant(tmp_path, budget):
    toy_session(tmp_path, files=9)
    rs = parse_session(tmp_path, SESSION, budget, engine=ToyEngine(), fsync=False)
    seqs = [s.seq for s, _ in landed_files(session_dir(tmp_path, SESSION))]
    assert rs[0].header.from_seq == 1 and rs[-1].header.through_seq == seqs[-1]
    for a, b in zip(rs, rs[1:]):
        assert b.header.from_seq == a.header.through_seq + 1 and b.header.previous == a.digest
    for r in rs:
        covered = [s for s in seqs if r.header.from_seq <= s <= r.header.through_seq]
        assert covered, "every window holds a landed file"
        assert r.size <= budget or len(covered) == 1  # too large only when it covers one file
    if budget == 1:
        assert len(rs) == len(seqs)  # one file per round
    if budget >= 2 * 1024 * 1024:
        assert len(rs) == 1
    check_invariant(tmp_path, rs)
    assert verify_chains(tmp_path).ok


def test_narrowing_takes_the_widest_window_that_fits(tmp_path):
    toy_session(tmp_path, files=9)
    full = build_full_size(tmp_path)
    rs = parse_session(tmp_path, SESSION, full - 1, engine=ToyEngine(), fsync=False)
    assert len(rs) == 2 and rs[0].size <= full - 1
    assert rs[0].header.through_seq == 8  # everything but the last file fits


def build_full_size(root) -> int:
    """Size of the single round the whole session would make."""
    other = root / "copy"
    shutil.copytree(root, other)
    rs = parse_session(other, SESSION, engine=ToyEngine(), fsync=False)
    shutil.rmtree(other)
    return rs[0].size


def test_staged_parses_at_one_file_per_round(tmp_path):
    eng = ToyEngine()
    all_rounds = []
    for step in range(4):
        land(tmp_path, [{"id": f"s{step}a", "parent": f"s{step + 1}a"}, {"id": f"s{step}b"}], stream="main" if step % 2 == 0 else "kid")
        land(tmp_path, [{"id": f"s{step}c"}])
        all_rounds += parse_session(tmp_path, SESSION, 1, engine=eng, fsync=False)
    assert [r.header.round for r in all_rounds] == list(range(1, 9))
    check_invariant(tmp_path, all_rounds)


def test_same_landed_files_give_byte_identical_rounds(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        toy_session(root, files=7)
    ra = parse_session(a, SESSION, 3000, engine=ToyEngine(), fsync=False)
    rb = parse_session(b, SESSION, 3000, engine=ToyEngine(), fsync=False)
    assert [r.data for r in ra] == [r.data for r in rb] and [r.path.name for r in ra] == [r.path.name for r in rb]
    # deleting the rounds and parsing again rebuilds the same chain
    shutil.rmtree(a / "_conversations")
    again = parse_session(a, SESSION, 3000, engine=ToyEngine(), fsync=False)
    assert [r.data for r in again] == [r.data for r in ra]


def test_refuses_when_chain_covers_more_than_the_index(tmp_path):
    toy_session(tmp_path, files=4)
    parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False)
    before = sorted(p.name for p in rounds_dir(tmp_path).iterdir())
    with pytest.raises(ParseError, match="already covers seq 4 but the index holds only through seq 2"):
        parse_session(tmp_path, SESSION, engine=ToyEngine(cap=2), fsync=False)
    assert sorted(p.name for p in rounds_dir(tmp_path).iterdir()) == before
    o = parse_outcome(tmp_path, SESSION, engine=ToyEngine(cap=2), fsync=False)
    assert not o.ok and "already covers" in o.problem and o.rounds == []


def test_watermark_is_the_index_not_the_disk(tmp_path):
    toy_session(tmp_path, files=5)
    rs = parse_session(tmp_path, SESSION, engine=ToyEngine(cap=3), fsync=False)
    assert rs[-1].header.through_seq == 3
    rs = parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False)
    assert (rs[0].header.from_seq, rs[0].header.through_seq) == (4, 5)


def test_refuses_a_chain_of_another_parser(tmp_path):
    toy_session(tmp_path, files=2)
    chain = Chain(tmp_path, SESSION)
    with chain.lock():
        chain.install(build_round(RoundHeader(SESSION, SESSION, 1, 1, 1, "00" * 32, parser="v0")))
    with pytest.raises(ParseError, match="parser 'v0'.*delete"):
        parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False)


def test_refuses_a_broken_chain(tmp_path):
    toy_session(tmp_path, files=3)
    rs = parse_session(tmp_path, SESSION, 1, engine=ToyEngine(), fsync=False)
    p = rs[1].path
    p.chmod(0o644)
    p.write_bytes(p.read_bytes().replace(b'"round":2', b'"round":3'))
    land(tmp_path, [{"id": "new"}])
    with pytest.raises(ChainError):
        parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False)
    assert len(list(rounds_dir(tmp_path).iterdir())) == 3


def test_parse_root_reports_per_session(tmp_path):
    toy_session(tmp_path, files=2)
    other = "22222222-2222-4333-8444-555555555555"
    land(tmp_path, [{"id": "x"}], session=other)
    (tmp_path / "empty-session").mkdir()
    rep = parse_root(tmp_path, engine=ToyEngine())
    assert [o.session for o in rep.outcomes] == sorted([SESSION, other, "empty-session"])
    assert rep.ok and rep.rounds == 2 and rep.problems == []
    rep = parse_root(tmp_path, [other], engine=ToyEngine())
    assert [o.session for o in rep.outcomes] == [other] and rep.rounds == 0


def test_parse_root_keeps_going_after_a_failure(tmp_path):
    class Boom(ToyEngine):
        def assemble(self, handle, through_seq, conversation=""):
            if handle.sdir.name == SESSION:
                raise RuntimeError("assembly exploded")
            return super().assemble(handle, through_seq, conversation)

    toy_session(tmp_path, files=1)
    other = "22222222-2222-4333-8444-555555555555"
    land(tmp_path, [{"id": "x"}], session=other)
    err = io.StringIO()
    rep = parse_root(tmp_path, engine=Boom(), err=err)
    assert not rep.ok and rep.rounds == 1
    assert rep.problems == [f"{SESSION}: RuntimeError: assembly exploded"]
    assert err.getvalue() == f"error: {SESSION}: RuntimeError: assembly exploded\n"


def test_diff_against_fold_ignores_revision():
    from asz_core.flow.model import Assembly, Node

    fold = Fold()
    fold.nodes["n"] = Node("n", kind="k", revision=4)
    a = Assembly(nodes={"n": Node("n", kind="k")})
    assert diff_assembly(fold, a) == ([], [], [])


@pytest.mark.parametrize("budget", [2300, 2700, 3500, 5000, 8000, 12000])
def test_each_round_is_the_widest_window_that_fits(tmp_path, budget):
    """No round could have taken one more landed file and stayed within the budget."""
    from asz_core.flow.windows import SessionParse, Window

    toy_session(tmp_path, files=10, per_file=2)
    rs = parse_session(tmp_path, SESSION, budget, engine=ToyEngine(), fsync=False)
    sdir = session_dir(tmp_path, SESSION)
    seqs = [ln.seq for ln, _ in landed_files(sdir)]
    ctx = SessionParse(tmp_path, SESSION, SESSION, ToyEngine(), budget)
    ctx.handle, watermark = ctx.engine.watermark(sdir)
    ctx.start(sdir, watermark)
    fold = Fold()
    for r in rs[:-1]:
        wider = next(s for s in seqs if s > r.header.through_seq)
        c = Window(ctx, fold).candidate(wider)
        assert c.size > budget and c.build().size == c.size  # weighed without writing, to the byte
        fold.accept(read_round(r.path))


def test_changed_only_skips_a_session_whose_chain_covers_every_landed_file(tmp_path):
    from asz_core.flow.parse import chain_is_current

    toy_session(tmp_path, files=2)
    other = "22222222-2222-4333-8444-555555555555"
    land(tmp_path, [{"id": "x"}], session=other)
    assert not chain_is_current(tmp_path, SESSION)  # no chain yet
    rep = parse_root(tmp_path, engine=ToyEngine(), changed_only=True)
    assert rep.rounds == 2
    assert chain_is_current(tmp_path, SESSION) and chain_is_current(tmp_path, other)
    rep = parse_root(tmp_path, engine=ToyEngine(), changed_only=True)
    assert rep.outcomes == []  # nothing new: no lock taken, no index or round read
    land(tmp_path, [{"id": "y"}])  # seq 3 lands in SESSION: its chain is behind, the other's is not
    assert not chain_is_current(tmp_path, SESSION) and chain_is_current(tmp_path, other)
    rep = parse_root(tmp_path, engine=ToyEngine(), changed_only=True)
    assert [o.session for o in rep.outcomes] == [SESSION] and rep.rounds == 1


def test_changed_only_parses_a_chain_of_another_parser_to_report_it(tmp_path):
    from asz_core.flow.parse import chain_is_current

    toy_session(tmp_path, files=1)
    chain = Chain(tmp_path, SESSION)
    with chain.lock():
        chain.install(build_round(RoundHeader(SESSION, SESSION, 1, 1, 1, "00" * 32, parser="v0")))
    (chain.dir / "conversation.state").write_text("head 1\nthrough_seq 1\nparser v0\npolicy v1+idle=10m0s\n")
    assert not chain_is_current(tmp_path, SESSION)
    rep = parse_root(tmp_path, engine=ToyEngine(), changed_only=True)
    assert "parser 'v0'" in rep.outcomes[0].problem


def test_keep_rounds_false_keeps_only_headers_and_problems(tmp_path):
    toy_session(tmp_path, files=2)
    rep = parse_root(tmp_path, engine=ToyEngine(), keep_rounds=False)
    (o,) = rep.outcomes
    assert rep.rounds == 1 and o.fold is None and o.rounds[0].header.through_seq == 2
    assert o.rounds[0].nodes == [] and o.rounds[0].data == b""
