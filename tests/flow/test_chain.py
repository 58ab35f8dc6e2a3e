"""Chain publication (origin-digest §2.5) and the six chain checks of ``asz verify`` (§4.2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from asz_core.flow.chain import Chain, ChainBusy, ChainError, SessionChains, conversation_dir
from asz_core.flow.parse import parse_session
from asz_core.flow.round import RoundHeader, build_round, input_digest, landed_file_digest, read_round
from asz_core.flow.verify_chain import verify_chains
from asz_core.storage.layout import landed_files, session_dir

from test_parse_fixtures import SESSION, ToyEngine, land, toy_session

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def hdr(n, prev=None, from_seq=1, through=1, **kw):
    return RoundHeader(SESSION, SESSION, n, from_seq, through, "00" * 32, previous=prev.digest if prev else "", **kw)


# --------------------------------------------------------------------------- install and listing


def test_install_follows_the_head_and_lists(tmp_path):
    chain = Chain(tmp_path, SESSION)
    assert not chain.exists() and chain.round_files() == [] and chain.head_file() is None
    r1 = build_round(hdr(1))
    r2 = build_round(hdr(2, r1, 2, 2))
    with chain.lock():
        p1 = chain.install(r1)
        p2 = chain.install(r2)
    assert p1 == tmp_path / "_conversations" / SESSION / "rounds" / r1.file_name
    assert p1.read_bytes() == r1.data and p2.read_bytes() == r2.data
    assert oct(p1.stat().st_mode & 0o777) == "0o444"
    assert [f.number for f in chain.round_files()] == [1, 2] and chain.head_file().path == p2
    fold = chain.load()
    assert fold.rounds == 2 and fold.head_digest == r2.digest
    assert not [p for p in chain.rounds_dir.iterdir() if p.name.startswith(".")]  # no temporaries left


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda r1: build_round(hdr(3, r1, 2, 2)), "does not follow the head"),
        (lambda r1: build_round(RoundHeader(SESSION, SESSION, 2, 2, 2, "00" * 32, previous="ab" * 32)), "does not follow the head"),
        (lambda r1: build_round(hdr(1)), "does not follow the head"),
        (lambda r1: build_round(RoundHeader("other", SESSION, 2, 2, 2, "00" * 32, previous=r1.digest)), "names conversation 'other'"),
    ],
)
def test_install_refuses_a_round_that_does_not_follow(tmp_path, make, message):
    chain = Chain(tmp_path, SESSION)
    r1 = build_round(hdr(1))
    with chain.lock():
        chain.install(r1)
        with pytest.raises(ChainError, match=message):
            chain.install(make(r1))
    assert sorted(p.name for p in chain.rounds_dir.iterdir()) == [r1.file_name]


def test_install_needs_the_lock_and_an_empty_chain_starts_at_one(tmp_path):
    chain = Chain(tmp_path, SESSION)
    with pytest.raises(RuntimeError, match="needs the chain lock"):
        chain.install(build_round(hdr(1)))
    with chain.lock():
        with pytest.raises(ChainError, match="the chain is empty"):
            chain.install(build_round(RoundHeader(SESSION, SESSION, 2, 1, 1, "00" * 32, previous="ab" * 32)))


def test_install_never_replaces_a_file(tmp_path):
    """An empty reservation is not a round for the listing, but its name is never overwritten."""
    chain = Chain(tmp_path, SESSION)
    r1 = build_round(hdr(1))
    chain.rounds_dir.mkdir(parents=True)
    (chain.rounds_dir / r1.file_name).write_bytes(b"")
    assert chain.round_files() == []
    with chain.lock():
        with pytest.raises(ChainError, match="never replaces another"):
            chain.install(r1)
    assert (chain.rounds_dir / r1.file_name).read_bytes() == b""


def test_tidy_removes_stale_temporaries_and_old_reservations(tmp_path):
    chain = Chain(tmp_path, SESSION)
    chain.rounds_dir.mkdir(parents=True)
    tmp = chain.rounds_dir / ".r000001-aaaaaaaaaaaa.sf.999.tmp"
    tmp.write_bytes(b"partial")
    old = chain.rounds_dir / "r000001-bbbbbbbbbbbb.sf"
    old.write_bytes(b"")
    os.utime(old, (time.time() - 120, time.time() - 120))
    fresh = chain.rounds_dir / "r000001-cccccccccccc.sf"
    fresh.write_bytes(b"")
    with chain.lock():
        chain.tidy()
    assert sorted(p.name for p in chain.rounds_dir.iterdir()) == [fresh.name]


def test_state_is_only_a_cache(tmp_path):
    toy_session(tmp_path, files=3)
    parse_session(tmp_path, SESSION, 1, engine=ToyEngine(), fsync=False)
    chain = Chain(tmp_path, SESSION)
    chain.state_path.write_text("head 99\nthrough_seq 99\n")  # a stale or wrong cache is ignored
    land(tmp_path, [{"id": "more"}])
    rs = parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False)
    assert rs[0].header.round == 4 and rs[0].header.from_seq == 4
    assert chain.read_state()["head"] == "4"
    chain.state_path.unlink()
    assert chain.load().rounds == 4


def test_conversation_dir_names(tmp_path):
    assert conversation_dir(tmp_path, "a/b") == tmp_path / "_conversations" / "a_b"
    with pytest.raises(ValueError):
        conversation_dir(tmp_path, "..")


def test_read_rounds_reports_gaps_and_doubles(tmp_path):
    chain = Chain(tmp_path, SESSION)
    r1 = build_round(hdr(1))
    r2 = build_round(hdr(2, r1, 2, 2))
    r3 = build_round(hdr(3, r2, 3, 3))
    chain.rounds_dir.mkdir(parents=True)
    for r in (r1, r3):
        (chain.rounds_dir / r.file_name).write_bytes(r.data)
    with pytest.raises(ChainError, match="round 2 is missing"):
        chain.load()
    (chain.rounds_dir / r2.file_name).write_bytes(r2.data)
    assert chain.load().rounds == 3
    other = build_round(hdr(2, r1, 2, 3))
    (chain.rounds_dir / other.file_name).write_bytes(other.data)
    with pytest.raises(ChainError, match="a second file for round 2"):
        chain.load()


# --------------------------------------------------------------------------- one parser per chain


def test_second_lock_in_the_same_process_is_refused(tmp_path):
    a, b = Chain(tmp_path, SESSION), Chain(tmp_path, SESSION)
    with a.lock():
        with pytest.raises(ChainBusy) as ei:
            b.lock()
        assert f"conversation {SESSION}: another parser holds the chain lock" in str(ei.value)
        assert f"pid {os.getpid()}" in str(ei.value) and "nothing written" in str(ei.value)
    with b.lock():
        pass


def _python(code: str) -> tuple[list[str], dict]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(REPO), os.environ.get("PYTHONPATH", "")]))
    return [sys.executable, "-c", textwrap.dedent(code)], env


def test_parser_refused_while_another_process_holds_the_chain(tmp_path):
    toy_session(tmp_path, files=3)
    ready = tmp_path / "ready"
    release = tmp_path / "release"
    cmd, env = _python(f"""
        import time, pathlib
        from asz_core.flow.chain import Chain
        with Chain({str(tmp_path)!r}, {SESSION!r}).lock():
            pathlib.Path({str(ready)!r}).write_text("x")
            while not pathlib.Path({str(release)!r}).exists():
                time.sleep(0.02)
    """)
    holder = subprocess.Popen(cmd, env=env)
    try:
        deadline = time.time() + 20
        while not ready.exists():
            assert time.time() < deadline and holder.poll() is None, "holder did not start"
            time.sleep(0.02)
        with pytest.raises(ChainBusy, match="another parser holds the chain lock"):
            parse_session(tmp_path, SESSION, engine=ToyEngine())
        assert Chain(tmp_path, SESSION).round_files() == []
    finally:
        release.write_text("x")
        holder.wait(20)
    assert len(parse_session(tmp_path, SESSION, engine=ToyEngine(), fsync=False)) == 1


def test_two_parsers_at_once_one_writes_the_other_refuses(tmp_path):
    toy_session(tmp_path, files=6)
    go = tmp_path / "go"
    procs = []
    for i in range(2):
        cmd, env = _python(f"""
            import time, pathlib, sys
            from asz_core.flow.chain import ChainBusy
            from asz_core.flow.parse import parse_session
            from test_parse_fixtures import ToyEngine

            class Slow(ToyEngine):
                def assemble(self, handle, through_seq, conversation=""):
                    time.sleep(0.3)
                    return super().assemble(handle, through_seq, conversation)

            while not pathlib.Path({str(go)!r}).exists():
                time.sleep(0.005)
            try:
                rs = parse_session({str(tmp_path)!r}, {SESSION!r}, 2000, engine=Slow())
            except ChainBusy as exc:
                print("busy", exc)
                sys.exit(3)
            print("wrote", len(rs))
        """)
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    time.sleep(0.3)
    go.write_text("x")
    outs = [p.communicate(timeout=60) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 3], outs
    wrote = next(o for o, _ in outs if o.startswith("wrote"))
    busy = next(o for o, _ in outs if o.startswith("busy"))
    assert "another parser holds the chain lock" in busy and "nothing written" in busy
    n = int(wrote.split()[1])
    chain = Chain(tmp_path, SESSION)
    assert len(chain.round_files()) == n >= 2
    assert not [p for p in chain.rounds_dir.iterdir() if p.name.startswith(".")]
    report = verify_chains(tmp_path)
    assert report.ok, report.lines()
    assert chain.load().through_seq == 6


# --------------------------------------------------------------------------- verify: the six checks


@pytest.fixture
def parsed(tmp_path):
    toy_session(tmp_path, files=6)
    rs = parse_session(tmp_path, SESSION, 1, engine=ToyEngine(), fsync=False)
    assert len(rs) == 6
    return tmp_path, rs


def _writable(p: Path) -> Path:
    p.chmod(0o644)
    return p


def test_verify_clean_chain(parsed):
    root, rs = parsed
    rep = verify_chains(root)
    assert rep.ok and (rep.chains, rep.rounds) == (1, 6)
    assert rep.lines() == ["checked 1 conversation chain(s), 6 round(s)"]
    assert verify_chains(root, SESSION).chains == 1 and verify_chains(root, "someone-else").chains == 0


def test_session_chains_find_a_session_s_chains_by_name_and_by_round_1(parsed):
    """One look at the root's chains (SessionChains) selects what verify_chains(root, SESSION) always did: the chain
    its id names and each whose round 1 names it; a chain directory with no round only by its name."""
    root, rs = parsed
    base = root / "_conversations"
    shutil.copytree(base / SESSION, base / "aaa-copy")  # round 1 still names SESSION (its header, byte for byte)
    (base / "someone-else" / "rounds").mkdir(parents=True)
    chains = SessionChains(root)
    assert list(chains.named.items()) == [(SESSION, SESSION), ("aaa-copy", SESSION), ("someone-else", "")]  # by name
    assert [len(f) for f in chains.files.values()] == [6, 6, 0]
    assert chains.of(SESSION) == [base / SESSION, base / "aaa-copy"]
    assert chains.of("someone-else") == [base / "someone-else"] and chains.of("nobody") == []
    for who, counts in ((SESSION, (2, 12)), ("someone-else", (1, 0)), ("nobody", (0, 0))):
        with_map, without = verify_chains(root, who, chains=chains), verify_chains(root, who)
        assert (with_map.chains, with_map.rounds) == (without.chains, without.rounds) == counts
        assert with_map.lines() == without.lines()
    (base / "late").mkdir()  # a chain its id names, made after the look: found (its own name is looked up now)
    assert chains.of("late") == [base / "late"] and verify_chains(root, "late", chains=chains).chains == 1


def test_verify_missing_round(parsed):
    root, rs = parsed
    rs[2].path.unlink()
    rep = verify_chains(root)
    assert [(p.check, p.round) for p in rep.problems] == [(1, 3)]
    assert "round 3 is missing" in rep.lines()[1]


def test_verify_previous_digest(parsed):
    root, rs = parsed
    # replace round 4 with a well-formed round naming a wrong previous
    h = read_round(rs[3].path).header
    bad = build_round(RoundHeader(SESSION, SESSION, 4, h.from_seq, h.through_seq, h.input_digest, previous="ab" * 32))
    rs[3].path.unlink()
    (rs[3].path.parent / bad.file_name).write_bytes(bad.data)
    rep = verify_chains(root)
    assert (2, 4) in [(p.check, p.round) for p in rep.problems]
    assert any("is not the digest of round 3" in line for line in rep.lines())


def test_verify_own_digest_and_reader_rules(parsed):
    root, rs = parsed
    p = _writable(rs[1].path)
    p.write_bytes(p.read_bytes().replace(b'"t":"node"', b'"t":"nod"', 1))
    rep = verify_chains(root)
    probs = [(x.check, x.round) for x in rep.problems]
    assert (3, 2) in probs and any("unknown frame" in line for line in rep.lines())
    p.write_bytes(rs[1].data.replace(b"record", b"Record", 1))
    rep = verify_chains(root)
    assert [(x.check, x.round) for x in rep.problems] == [(3, 2)] and "does not match the bytes" in rep.lines()[1]


def test_verify_file_name_must_match(parsed):
    root, rs = parsed
    rs[5].path.rename(rs[5].path.with_name("r000006-000000000000.sf"))
    rep = verify_chains(root)
    assert [(x.check, x.round) for x in rep.problems] == [(3, 6)] and "file name" in rep.lines()[1]


def test_verify_contiguity(parsed):
    root, rs = parsed
    # round 3 rewritten to start one seq late, chained and digested correctly
    r2 = read_round(rs[1].path)
    h3 = read_round(rs[2].path).header
    bad = build_round(RoundHeader(SESSION, SESSION, 3, h3.from_seq + 1, h3.through_seq, h3.input_digest, previous=r2.digest))
    for r in rs[2:]:
        r.path.unlink()
    (rs[2].path.parent / bad.file_name).write_bytes(bad.data)
    rep = verify_chains(root)
    c4 = [x for x in rep.problems if x.check == 4]
    assert [(x.round, x.seq) for x in c4] == [(3, 4)]
    assert "from_seq 4 does not follow round 2's through_seq 2" in str(c4[0])


def test_verify_consumed_file_gone(parsed):
    root, rs = parsed
    files = landed_files(session_dir(root, SESSION))
    files[2][1].unlink()  # seq 3, consumed by round 3
    rep = verify_chains(root)
    assert [(x.check, x.round, x.seq) for x in rep.problems] == [(5, 3, 3)]
    assert "round 3 seq 3: a landed file this round consumed is no longer on disk" in rep.lines()[1]


def test_verify_recomputed_input_digest(parsed):
    root, rs = parsed
    p = _writable(landed_files(session_dir(root, SESSION))[4][1])
    p.write_bytes(p.read_bytes() + b"\n")
    rep = verify_chains(root)
    # the toy engine builds no session index: a second line says why no file is named (a3bd5f5)
    assert [(x.check, x.round) for x in rep.problems] == [(6, 5), (6, 5)]
    assert "input digest recomputed from the landed files of seq 5–5" in rep.lines()[1]
    assert f"which landed file changed cannot be told: the index of session {SESSION}" in str(rep.problems[1])
    assert "is gone" in str(rep.problems[1])


def test_verify_a_seq_never_landed_is_no_problem(tmp_path):
    """A window may hold a seq no file ever took (an abandoned landing): the input digest still matches."""
    land(tmp_path, [{"id": "a"}])
    chain = Chain(tmp_path, SESSION)
    files = landed_files(session_dir(tmp_path, SESSION))
    h = RoundHeader(SESSION, SESSION, 1, 1, 3, input_digest("", [landed_file_digest(files[0][1])]))
    with chain.lock():
        chain.install(build_round(h))
    assert verify_chains(tmp_path).ok


def test_verify_session_directory_gone(parsed):
    root, rs = parsed
    shutil.rmtree(root / SESSION)
    rep = verify_chains(root)
    assert {x.check for x in rep.problems} == {5} and len(rep.problems) == 6
    assert "the session directory" in rep.lines()[1]
