"""``asz erase``: a session removed whole on request, recorded, provable (trial 29a F5; docs/storage-root.md, Erasure;
docs/verify.md, Sessions removed whole).

Real input: the Claude Code corpus and the Kiro corpus home (../shared/corpus) collected by the real ``asz collect
--once`` into one root, searched (the search index), counted (``asz verify --figures``: the summaries) and listed, as
a records officer's root is. Every command runs as a real ``asz`` process. What must be gone is read from the erased
sessions' own source files: every run of 20+ letters and spaces of their text that no other source file holds; the
whole root's bytes are read after the erasure, every file, SQLite ones included.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import forked
import pytest

from asz_core.reading.search import index_path  # the search index of this asz (its schema in the name)
from asz_core.storage.erased_list import read_erased

ASZ = [sys.executable, "-m", "asz_core.cli.main"]
CLAUDE_SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"  # "Write a shell script called hello.sh …"
KIRO_SID = "8e247382-c779-440f-b1db-ed9bad1afaee"  # Kiro CLI: its runtime title is its first prompt
REASON = "request 2026-114 (data subject)"


def asz(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """``asz ARGS`` as a real process forked from the pre-imported server (tests/forked.py), text captured."""
    return forked.run([*ASZ, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def _sources(corpus: Path) -> tuple[Path, Path]:
    return corpus / "claude-code" / "projects", corpus / "kiro" / "home"


def _session_files(corpus: Path, sid: str) -> list[Path]:
    """The source files of session ``sid`` in the corpus: named by its id, or under a folder named by it."""
    out = []
    for base in _sources(corpus):
        for p in base.rglob("*"):
            if p.is_file() and (p.name.startswith(sid) or sid in p.parent.parts):
                out.append(p)
    return sorted(out)


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


RUN = re.compile(r"[A-Za-z][A-Za-z ]{19,}")


@functools.lru_cache(maxsize=None)
def phrases(corpus: Path, sid: str) -> frozenset[str]:
    """Runs of 20+ letters and spaces in the text of ``sid``'s source files (every JSON string value) that no other
    source file of the corpus holds: what only this session brought into the root."""
    mine: set[str] = set()
    for f in _session_files(corpus, sid):
        for ln in f.read_text(errors="replace").splitlines():
            try:
                values = _strings(json.loads(ln))
            except json.JSONDecodeError:
                values = [ln]
            for v in values:
                mine.update(m.group(0).strip() for m in RUN.finditer(v))
    mine = {p for p in mine if len(p) >= 20}
    others = b"".join(p.read_bytes() for base in _sources(corpus) for p in base.rglob("*")
                      if p.is_file() and p not in set(_session_files(corpus, sid)))
    return frozenset(p for p in mine if p.encode() not in others)


def root_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def holding(root: Path, words: set[str]) -> dict[str, list[str]]:
    """Each file under ``root`` holding any of ``words`` (its bytes, UTF-8), with the first few it holds."""
    out = {}
    for rel, data in root_bytes(root).items():
        found = [w for w in words if w.encode() in data]
        if found:
            out[rel] = sorted(found)[:3]
    return out


@pytest.fixture(scope="module")
def officer_root(corpus_dir: Path, tmp_path_factory) -> Path:
    """The corpus collected (Claude Code, then Kiro), searched, counted and listed: the root every test copies."""
    claude, kiro = _sources(corpus_dir)
    if not claude.is_dir() or not kiro.is_dir():
        pytest.skip("the Claude Code or Kiro corpus is absent")
    root = tmp_path_factory.mktemp("officer") / "root"
    for args in (["--source", str(claude)], ["--adapter", "kiro", "--source", str(kiro)]):
        p = asz("collect", "--once", *args, "--root", str(root))
        assert p.returncode == 0, p.stderr
    for args in (["search", "the"], ["verify", "--figures"], ["ls"]):
        p = asz(*args, "--root", str(root))
        assert p.returncode == 0, p.stdout + p.stderr
    assert index_path(root).is_file() and (root / "_index" / "summaries.sqlite").is_file()
    return root


@pytest.fixture()
def root(officer_root: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "root"
    shutil.copytree(officer_root, dest, symlinks=True)
    return dest


def corpus_session_count(corpus: Path) -> int:
    claude, kiro = _sources(corpus)
    return (len([p for p in claude.glob("*/*.jsonl") if not p.name.startswith("agent-")])
            + len(list((kiro / ".kiro" / "sessions" / "cli").glob("*.jsonl")))
            + len([d for d in (kiro / ".kiro" / "sessions").glob("*/sess_*") if d.is_dir()]))


def assert_erased(root: Path, corpus: Path, sids: list[str]) -> None:
    """Nothing of ``sids`` anywhere under ``root`` but their ids in the two lists; verify exit 0 saying erased."""
    for sid in sids:
        words = phrases(corpus, sid)
        assert len(words) >= 3, (sid, words)
        assert holding(root, words) == {}, sid
        named = sorted(rel for rel, data in root_bytes(root).items() if sid.encode() in data)
        assert named == ["_erased.list", "_sessions.list"], named
        assert not (root / sid).exists() and not (root / "_conversations" / sid).exists()
    assert not (root / "_removed").exists()
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert "missing session" not in v.stdout + v.stderr
    for sid in sids:
        (line,) = [ln for ln in v.stdout.splitlines() if f"session {sid}" in ln]
        assert "erased on " in line and f"({REASON})" in line and "_erased.list:" in line, line
    j = json.loads(asz("verify", "--json", "--root", str(root)).stdout)
    assert j["ok"] is True and j["erased_sessions"] == len(sids)
    assert j["sessions"] == corpus_session_count(corpus) - len(sids)
    ls = asz("ls", "--root", str(root))
    assert ls.returncode == 0 and not any(sid[:8] in ls.stdout for sid in sids), ls.stdout
    assert "missing" not in ls.stderr, ls.stderr


@pytest.mark.slow
def test_erase_leaves_no_word_of_the_session_and_verify_says_erased(root: Path, corpus_dir: Path):
    words = {sid: phrases(corpus_dir, sid) for sid in (CLAUDE_SID, KIRO_SID)}
    before = holding(root, words[CLAUDE_SID] | words[KIRO_SID])
    # before: the landed files, the search index and the summaries hold them (trial 29a F5)
    assert {index_path(root).relative_to(root).as_posix(), "_index/summaries.sqlite"} <= set(before)
    assert any(rel.startswith(CLAUDE_SID + "/") for rel in before) and any(rel.startswith(KIRO_SID + "/") for rel in before)
    hello = asz("search", "shell script called hello", "--root", str(root))
    assert CLAUDE_SID[:8] in hello.stdout
    p = asz("erase", CLAUDE_SID[:8], KIRO_SID, "--root", str(root), "--reason", REASON, "--by", "officer@archive")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        f"erased {CLAUDE_SID}: 1 conversation(s): {CLAUDE_SID}; recorded in {root / '_erased.list'}",
        f"erased {KIRO_SID}: 1 conversation(s): {KIRO_SID}; recorded in {root / '_erased.list'}"]
    lines = [json.loads(ln) for ln in (root / "_erased.list").read_text().splitlines() if not ln.startswith("#")]
    assert [(d["session"], d["by"], d["reason"], d["conversations"]) for d in lines] == [
        (CLAUDE_SID, "officer@archive", REASON, [CLAUDE_SID]), (KIRO_SID, "officer@archive", REASON, [KIRO_SID])]
    assert_erased(root, corpus_dir, [CLAUDE_SID, KIRO_SID])
    again = asz("search", "shell script called hello", "--root", str(root))
    assert again.returncode == 0 and CLAUDE_SID[:8] not in again.stdout and "0 hit(s)" in again.stdout
    # what a search, a verify --figures and a list wrote since holds none of it either
    assert asz("verify", "--figures", "--root", str(root)).returncode == 0
    assert holding(root, words[CLAUDE_SID] | words[KIRO_SID]) == {}


@pytest.mark.slow
def test_a_session_removed_by_hand_is_erased_after_the_fact(root: Path, corpus_dir: Path):
    """The trial's by-hand removal (rm -rf of the directory and the chain) failed verify for ever: asz erase of the
    listed id records it and wipes what the derived files kept."""
    shutil.rmtree(root / CLAUDE_SID)
    shutil.rmtree(root / "_conversations" / CLAUDE_SID)
    assert asz("verify", "--root", str(root)).returncode == 1
    p = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON)
    assert p.returncode == 0, p.stderr
    assert_erased(root, corpus_dir, [CLAUDE_SID])


@pytest.mark.slow
def test_collect_does_not_land_an_erased_session_again(root: Path, corpus_dir: Path):
    claude, kiro = _sources(corpus_dir)
    assert asz("erase", CLAUDE_SID, KIRO_SID, "--root", str(root), "--reason", REASON).returncode == 0
    notes = []
    for args in (["--source", str(claude)], ["--adapter", "kiro", "--source", str(kiro)]):
        c = asz("collect", "--once", *args, "--root", str(root))
        assert c.returncode == 0, c.stderr
        assert "landed=0 " in c.stderr or "landed=0 " in c.stdout
        notes += [ln for ln in c.stderr.splitlines() if "erased on" in ln]
    assert len(notes) == 2, notes  # once each, naming the erasure and its record
    assert notes[0].startswith(f"note: {claude}/") and f"session {CLAUDE_SID} was erased on " in notes[0]
    assert f"({REASON}) with asz erase ({root / '_erased.list'}:2)" in notes[0]
    assert f"session {KIRO_SID} was erased on " in notes[1]
    # its source moved to another folder holding nothing else: still not landed, said by the note alone (no "no
    # session found under …; is --source the runtime's projects directory?": the folder is right)
    moved = root.parent / "moved"
    shutil.copytree(claude / "-home-user-claude-reliability", moved / "-home-user-claude-reliability")
    c = asz("collect", "--once", "--source", str(moved), "--root", str(root))
    assert c.returncode == 0 and "landed=0 " in c.stderr + c.stdout, c.stderr
    assert f"note: {moved}/-home-user-claude-reliability/{CLAUDE_SID}.jsonl: session {CLAUDE_SID} was erased on " \
        in c.stderr and "no session found" not in c.stderr, c.stderr
    assert_erased(root, corpus_dir, [CLAUDE_SID, KIRO_SID])


def test_erase_is_refused_while_a_collector_holds_the_root(root: Path):
    from asz_core.storage.root import collector_lock

    lock = "_collect/.lock"  # its holder's note is this test's
    before = {k: v for k, v in root_bytes(root).items() if k != lock}
    with collector_lock(root):
        p = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON)
    assert p.returncode == 1
    assert p.stderr.startswith(f"asz erase: another collector, server, push, prune or erase is running on {root} (pid ")
    assert {k: v for k, v in root_bytes(root).items() if k != lock} == before


def test_unknown_session_and_empty_reason(root: Path):
    p = asz("erase", "0000dead", "--root", str(root), "--reason", REASON)
    assert p.returncode == 1 and "no session is or starts with '0000dead'" in p.stderr
    starts = sorted(d.name for d in root.iterdir() if d.name.startswith("5"))  # the corpus's 55604662…, 5c0375b4…
    assert len(starts) == 2
    p = asz("erase", "5", "--root", str(root), "--reason", REASON)
    assert p.returncode == 2 and p.stderr == (f"asz erase: '5' is the start of 2 sessions: {', '.join(starts)}; type "
                                              f"more of it in {root}\n"), p.stderr
    p = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", "  ")
    assert p.returncode == 2 and "--reason is empty" in p.stderr
    for flag, text in (("--reason", "req 1\nerased by nobody"), ("--by", "\x1b]0;x\x07officer")):
        p = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON, flag, text)
        assert p.returncode == 2 and f"asz erase: {flag} holds a control character" in p.stderr, p.stderr
    assert not (root / "_erased.list").exists()


@pytest.mark.slow
def test_an_erasure_stopped_half_way_reads_as_erased_and_a_rerun_finishes_it(root: Path, corpus_dir: Path):
    """The state a kill leaves after the record and the moves, before the derived rows went (made by the same
    functions asz erase runs, in its order): no reader shows the session, verify exits 0 with a warning, and the
    same command run again finishes it."""
    from asz_core.retention.erase import _take_out, conversations_of
    from asz_core.storage.erased_list import record_erasure

    convs = conversations_of(root, CLAUDE_SID)
    assert convs == [CLAUDE_SID]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")  # after the files landed: a kill, not a relanding
    record_erasure(root, {"session": CLAUDE_SID, "conversations": convs, "erased": now,
                          "by": "officer@archive", "reason": REASON})
    ls = asz("ls", "--root", str(root))
    assert CLAUDE_SID[:8] not in ls.stdout  # recorded, not yet moved: already not shown
    v = asz("verify", "--root", str(root))  # nor walked: its directory still here is no damage, but not finished
    assert v.returncode == 0 and "erasure not finished" in v.stdout + v.stderr, v.stdout + v.stderr
    (root / "_removed" / CLAUDE_SID).mkdir(parents=True)
    _take_out(root, CLAUDE_SID, convs)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert "erasure not finished" in v.stdout + v.stderr and "missing session" not in v.stdout + v.stderr
    s = asz("search", "shell script called hello", "--root", str(root))
    assert CLAUDE_SID[:8] not in s.stdout and "0 hit(s)" in s.stdout
    p = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", "again")
    assert p.returncode == 0 and p.stdout.startswith(f"finished erasing {CLAUDE_SID}: "), p.stdout + p.stderr
    assert_erased(root, corpus_dir, [CLAUDE_SID])  # the first reason stays: a line is never rewritten


@pytest.mark.slow
def test_a_kill_at_any_point_then_a_rerun_finishes_it(officer_root: Path, corpus_dir: Path, tmp_path: Path):
    """A real SIGKILL of asz erase the moment each of its steps shows on disk (watched every millisecond: its
    ``_removed/<session>``, the record, the directory moved, then 0.05 s and 0.3 s into the derived rows): each root
    reads as erased (not listed, verify 0), never as damage, and the same command run again finishes it."""
    removed = lambda r: r / "_removed" / CLAUDE_SID  # noqa: E731
    points = {"marked": lambda r: removed(r).is_dir(), "recorded": lambda r: (r / "_erased.list").is_file(),
              "moved": lambda r: (removed(r) / "session").is_dir(), "derived 0.05 s": None, "derived 0.3 s": None}
    left = []
    for n, (point, seen) in enumerate(points.items()):
        root = tmp_path / f"r{n}"
        shutil.copytree(officer_root, root, symlinks=True)
        proc = forked.Popen([*ASZ, "erase", CLAUDE_SID, "--root", str(root), "--reason", REASON],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not (seen or points["moved"])(root) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        if seen is None:
            time.sleep(float(point.split()[1]))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        recorded = CLAUDE_SID in read_erased(root)  # the line written, not the file alone (a kill may fall between)
        left.append((point, recorded, removed(root).exists(), (root / CLAUDE_SID).exists()))
        v = asz("verify", "--root", str(root))
        assert v.returncode == 0, (point, v.stdout + v.stderr)
        assert "missing session" not in v.stdout + v.stderr
        ls = asz("ls", "--root", str(root))
        assert (CLAUDE_SID[:8] in ls.stdout) is (not recorded), point
        p = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON)
        assert p.returncode == 0, p.stderr
        assert_erased(root, corpus_dir, [CLAUDE_SID])
    print("(point, recorded, _removed left, directory left) after each kill:", left)
    # the kills fell inside the erasure: at least one left it recorded and unfinished
    assert any(rec and rem for _, rec, rem, _ in left), left


def test_verify_export_of_a_copy_made_before_says_erased(root: Path, tmp_path: Path):
    out = tmp_path / "hold"
    out.mkdir()
    for fmt in ("md", "text"):
        p = asz("export", CLAUDE_SID[:8], "--format", fmt, "--out", str(out / f"de.{fmt}"), "--root", str(root))
        assert p.returncode == 0, p.stderr
    assert asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON).returncode == 0
    for fmt in ("md", "text"):
        v = asz("verify", "--export", str(out / f"de.{fmt}"), "--root", str(root))
        assert v.returncode == 1, v.stdout
        problems = [ln for ln in v.stdout.splitlines() if ln.startswith(f"de.{fmt}: ")]
        assert len(problems) == 1 and f"{CLAUDE_SID}: erased: its session {CLAUDE_SID} was erased on " in problems[0]
        assert "not the landed text" not in v.stdout and "changed" not in problems[0].replace("not a change", "")
        assert v.stdout.splitlines()[-1] == "1 problem(s)"


def _calls(path: Path) -> int:
    """Model calls of a Claude Code source file, counted from its lines: distinct (message.id, requestId) with usage."""
    seen = set()
    for ln in path.read_text().splitlines():
        d = json.loads(ln)
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and m.get("usage") and m.get("model") != "<synthetic>":
            seen.add((m["id"], d.get("requestId")))
    return len(seen)


@pytest.mark.slow
def test_a_session_continuing_the_erased_one_counts_the_calls_it_repeats(corpus_dir: Path, tmp_path: Path):
    """A resumed session repeats the erased one's records; its chain drew them in the erased session only (counted
    there once). asz erase parses it again, so its calls are counted in it, once, never nowhere."""
    sid, copy = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "c0c0c0c0-2222-4333-8444-555566667777"
    src = corpus_dir / "claude-code" / "projects" / "-home-user-sample-project" / f"{sid}.jsonl"
    proj = tmp_path / "src" / "p"
    proj.mkdir(parents=True)
    shutil.copy(src, proj)
    head = [json.loads(ln) for ln in src.read_text().splitlines()[:30]]
    for d in head:
        if "sessionId" in d:
            d["sessionId"] = copy
    last = next(d for d in reversed(head) if d.get("uuid"))
    head.append({"parentUuid": last["uuid"], "isSidechain": False, "type": "user", "sessionId": copy,
                 "uuid": "b0b0b0b0-0000-4000-8000-000000000001", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p",
                 "message": {"role": "user", "content": "going on alone"}})
    (proj / f"{copy}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in head))
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(proj.parent), "--root", str(root)).returncode == 0
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    assert rows[copy]["continues"] == sid and rows[copy]["llm_calls"] == 0  # its repeated calls are counted in sid
    repeated = _calls(proj / f"{copy}.jsonl")
    assert repeated > 1
    p = asz("erase", sid, "--root", str(root), "--reason", REASON)
    assert p.returncode == 0, p.stderr
    assert f"parsed {copy} again: it repeated records of an erased session" in p.stdout
    # its list row and figures cached before named sid (continues) and counted no call: wiped with the erasure
    assert sid.encode() not in (root / "_index" / "summaries.sqlite").read_bytes()
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    assert list(rows) == [copy] and rows[copy]["llm_calls"] == repeated and not rows[copy].get("continues")
    total = json.loads(asz("usage", "--json", "--total-once", "--root", str(root)).stdout)["total"]
    assert total["calls"] == repeated
    assert asz("verify", "--root", str(root)).returncode == 0


def test_a_kill_before_the_record_and_a_torn_record_line_are_warned_at_their_place(root: Path, corpus_dir: Path):
    """A kill between ``_removed/<session>`` and the record, and a record line cut short as it was written: the
    session is not erased, and verify warns at the path and at the line (exit 0); the rerun writes the line whole and
    the warnings go (the torn line stays: the record is append-only)."""
    (root / "_removed" / CLAUDE_SID).mkdir(parents=True)
    (root / "_erased.list").write_text('# head\n{"session":"' + CLAUDE_SID[:20])
    v = asz("verify", "--json", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    warned = {(w["file"], w["line"], w["problem"]) for w in json.loads(v.stdout)["warnings"]}
    assert warned == {(str(root / "_erased.list"), 2, "unread erasure"),
                      (str(root / "_removed" / CLAUDE_SID), 0, "erasure not finished")}, warned
    assert CLAUDE_SID[:8] in asz("ls", "--root", str(root)).stdout  # not erased: listed as before
    assert asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON).returncode == 0
    v = asz("verify", "--json", "--root", str(root))
    assert v.returncode == 0 and not json.loads(v.stdout).get("warnings"), v.stdout
    assert_erased(root, corpus_dir, [CLAUDE_SID])


def test_an_erasure_that_cannot_be_recorded_says_not_erased(root: Path):
    """The record cannot be written (here a directory stands at its path): exit 1, the error says the session is not
    erased (it never claims a record it did not write), and the session is listed and verified as before."""
    (root / "_erased.list").mkdir()
    p = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON)
    assert p.returncode == 1 and p.stderr.startswith(f"error: {CLAUDE_SID}: ") and \
        p.stderr.rstrip().endswith("not erased (no record written): asz erase " + CLAUDE_SID +
                                   " again once the root can be written"), p.stderr
    assert "recorded as erased" not in p.stderr
    assert CLAUDE_SID[:8] in asz("ls", "--root", str(root)).stdout and (root / CLAUDE_SID).is_dir()


def test_sources_says_an_erased_session_is_erased_not_new(root: Path, corpus_dir: Path):
    """Trial 32b F6: ``asz sources`` lists an erased session's still-present source as ``erased`` (the pass leaves it
    out unread), not ``new``."""
    claude, _ = _sources(corpus_dir)
    assert asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON).returncode == 0
    p = asz("sources", "--root", str(root), "--source", str(claude))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = [ln.split() for ln in p.stdout.splitlines() if ln.startswith(CLAUDE_SID)]
    src = [f for f in _session_files(corpus_dir, CLAUDE_SID) if f.suffix == ".jsonl"]
    assert rows and len(rows) == len(src), p.stdout
    assert all(r[6] == "erased" and r[5] == "0" for r in rows), rows  # STATE erased, UNREAD 0
    assert sorted(int(r[3]) for r in rows) == sorted(f.stat().st_size for f in src)  # SIZE: the source files' bytes
    (said,) = [ln for ln in p.stdout.splitlines() if ln.startswith(f"erased: {CLAUDE_SID}: ")]
    assert f"session {CLAUDE_SID} was erased on " in said and f"({REASON})" in said and "not landed again" in said
    j = json.loads(asz("sources", "--json", "--root", str(root), "--source", str(claude)).stdout)
    (sess,) = [s for a in j["adapters"] for s in a["sessions"] if s["session"] == CLAUDE_SID]
    assert {s["state"] for s in sess["sources"]} == {"erased"} and "was erased on" in sess["erased"]
    others = [s for a in j["adapters"] for s in a["sessions"] if s["session"] != CLAUDE_SID]
    assert others and not any(r["state"] == "erased" for s in others for r in s["sources"])


def test_readers_say_an_erased_id_was_erased_with_the_same_exit(root: Path, corpus_dir: Path, tmp_path: Path):
    """Trial 32b F7: ``asz export``, ``asz conversation`` and ``asz show`` given an erased id (whole or a prefix) say
    it was erased (when, by whom, why; never content) with the exit code an unknown id has (1); a typo reads as before."""
    assert asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON).returncode == 0
    typo = {cmd: asz(*args, "--root", str(root)) for cmd, args in (
        ("export", ["export", "zzzzzzzz", "--out", str(tmp_path / "t.md")]), ("conversation", ["conversation", "zzzzzzzz"]),
        ("show", ["show", "zzzzzzzz", "x"]))}
    for given in (CLAUDE_SID, CLAUDE_SID[:8]):
        for cmd, args in (("export", ["export", given, "--out", str(tmp_path / "e.md")]), ("conversation", ["conversation", given]),
                          ("show", ["show", given, "x"])):
            p = asz(*args, "--root", str(root))
            assert p.returncode == typo[cmd].returncode == 1, (cmd, p.stderr, typo[cmd].stderr)
            assert f"session {CLAUDE_SID} was erased on " in p.stderr and f"({REASON}) with asz erase" in p.stderr, p.stderr
            assert "_erased.list:2" in p.stderr and "nothing of it is kept" in p.stderr, p.stderr
            assert p.stdout == "" and "was erased on" not in typo[cmd].stderr, (p.stdout, typo[cmd].stderr)
    assert not (tmp_path / "e.md").exists()


def test_erase_again_says_already_erased(root: Path):
    """Trial 32b F8: the same erasure run again once finished says ``already erased … (REASON)``, not ``finished
    erasing`` (which reads as if the first run had been incomplete); exit 0, the record unchanged."""
    first = asz("erase", CLAUDE_SID, "--root", str(root), "--reason", REASON)
    assert first.returncode == 0 and first.stdout.startswith(f"erased {CLAUDE_SID}: "), first.stdout + first.stderr
    record = (root / "_erased.list").read_bytes()
    again = asz("erase", CLAUDE_SID[:8], "--root", str(root), "--reason", "another reference")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"already erased {CLAUDE_SID}: erased on "), again.stdout
    assert f"({REASON}) with asz erase" in again.stdout and "nothing of it was left to remove" in again.stdout
    assert "finished erasing" not in again.stdout
    assert (root / "_erased.list").read_bytes() == record


def _erasing(root: Path, sids: list[str], reason: str = REASON, *, fresh: bool = False) -> subprocess.Popen:
    """A real ``asz erase`` of ``sids``, watched (every millisecond, at most 120 s) until its first session's
    directory is moved under ``_removed/`` (its record written: it holds the root's lock). Forked from the pre-imported
    server, or with ``fresh`` a fresh interpreter (a lock's holder is named from its ``/proc/PID/cmdline``, which a
    forked child shares with the server)."""
    start = subprocess.Popen if fresh else forked.Popen
    proc = start([*ASZ, "erase", *sids, "--root", str(root), "--reason", reason],
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (root / "_removed" / sids[0] / "session").is_dir() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    assert proc.poll() is None, "asz erase ended before it could be stopped"
    return proc


def _every_session(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


@pytest.mark.slow
def test_sigterm_says_what_was_recorded_and_to_run_it_again(root: Path):
    """Trial 32b F9: SIGTERM of ``asz erase`` (exit 143) says how many sessions are recorded as erased, which are not
    finished, and ``run the same command again to finish it``, as prune says its stop; the rerun finishes it."""
    sids = _every_session(root)
    assert len(sids) >= 10
    proc = _erasing(root, sids)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, (out, err)
    recorded = [s for s in sids if s in read_erased(root)]
    assert recorded, err
    (line,) = [ln for ln in err.splitlines() if ln.startswith("asz erase: stopped: ")]
    assert f"{len(recorded)} of {len(sids)} session(s) recorded as erased in {root / '_erased.list'}" in line, line
    assert line.endswith("; run the same command again to finish it"), line
    assert all(ln.startswith("erased ") for ln in out.splitlines()), out  # each session it ended, nothing else
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0 and "erasure not finished" in v.stdout + v.stderr, v.stdout + v.stderr
    p = asz("erase", *sids, "--root", str(root), "--reason", REASON)
    assert p.returncode == 0, p.stdout + p.stderr
    assert not (root / "_removed").exists() and _every_session(root) == []
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0 and "erasure not finished" not in v.stdout + v.stderr, v.stdout + v.stderr


@pytest.mark.slow
def test_a_second_erase_refused_names_the_erase_holding_the_root(root: Path):
    """Trial 32b F10: an ``asz erase`` refused because another one holds the root (that one stopped with SIGSTOP
    while it holds the lock) names ``asz erase`` as the holder, and so does ``asz collect``; exit 1, nothing changed."""
    sids = _every_session(root)
    proc = _erasing(root, sids, fresh=True)
    proc.send_signal(signal.SIGSTOP)
    try:
        record = (root / "_erased.list").read_bytes() if (root / "_erased.list").exists() else b""
        p = asz("erase", sids[0], "--root", str(root), "--reason", "second")
        (root.parent / "src").mkdir()
        c = asz("collect", "--once", "--source", str(root.parent / "src"), "--root", str(root))
    finally:
        proc.send_signal(signal.SIGCONT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stderr.startswith(f"asz erase: another asz erase is running on {root} (pid {proc.pid} since "), p.stderr
    assert c.returncode == 1 and f"(pid {proc.pid} since " in c.stderr and ": asz erase; lock " in c.stderr, c.stderr
    assert b"second" not in record and b"second" not in (root / "_erased.list").read_bytes()
