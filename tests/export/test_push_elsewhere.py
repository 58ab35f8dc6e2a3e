"""The same session collected into two roots, both pushing to one receiver (trial 19, F4).

hostA's files land; hostC's are refused (one seq, one file). Before, hostC's ``asz push`` exited 1 on every later pass
("the receiver lacks them", false: it holds the same records) and ``asz prune`` kept the session forever. Now the
receiver says whether it holds every record of the refused file, the pusher records that once (``elsewhere`` in
push.state), says it in one note and exits 0 (``held=`` in the summary line, not ``rejected=``: trial 30d F2), and retention counts the files as received only when the
receiver holds every record. A real receiver on loopback; the transcript is a corpus session's.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from asz_core.export.push import Notes
from asz_core.export.push_refusals import files_and_rounds
from asz_core.export.receive import Receiver
from asz_core.export.state import PushState
from asz_core.storage.layout import landed_files, session_dirs

from export_helpers import ASZ, asz, free_port, sent_files, summary

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
PROJECT = "-home-user-claude-reliability"
SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"


@pytest.fixture
def collect(tmp_path):
    """``collect(name, extra)`` collecting a copy of the session's transcript (with ``extra`` lines appended: the other
    root collected further) into ``tmp_path/name``."""
    source = CORPUS / PROJECT / f"{SESSION}.jsonl"
    if not source.is_file():
        pytest.skip(f"the corpus is absent ({source})")

    def collect(name: str, extra: int = 0) -> Path:
        projects = tmp_path / f"{name}-projects" / PROJECT
        projects.mkdir(parents=True)
        data = source.read_bytes()
        last = data.rstrip(b"\n").rsplit(b"\n", 1)[-1] + b"\n"
        (projects / source.name).write_bytes(data + last * extra)
        root = tmp_path / name
        p = asz("collect", "--once", "--source", str(projects.parent), "--root", str(root), cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        return root

    return collect


@pytest.fixture
def hosts(tmp_path, collect):
    """``(receiver, collect)``: a receiver on loopback, and :func:`collect`."""
    r = Receiver(tmp_path / "team", "127.0.0.1:0").start().serve_in_thread()
    yield r, collect
    r.stop()


def _push(root: Path, r: Receiver, *extra: str):
    """``asz push`` of ``root`` as its own host, ``dev@<root's name>`` (``export.otlp.instance_id``): two live roots
    of one transcript on two machines (a root lost and collected again by the same instance is
    test_push_remade_root.py's)."""
    cfg = root.parent / f"{root.name}-push.yaml"
    cfg.write_text(f"export:\n  otlp:\n    instance_id: dev@{root.name}\n")
    return asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", f"grpc://{r.address}", *extra, cwd=root.parent)


def _records(root: Path) -> set[tuple]:
    """(stream directory, ord, off, sha) of every landed record of the root's one session."""
    import orjson

    (sdir,) = session_dirs(root)
    out = set()
    for _, p in landed_files(sdir):
        for line in p.read_bytes().split(b"\n")[1:]:
            if line.startswith(b'{"ord"'):
                d = orjson.loads(line)
                out.add((p.parent.relative_to(sdir).as_posix(), d["ord"], d["off"], d["sha"]))
    return out


def test_a_session_held_from_another_root_is_said_once_and_counts_as_received(hosts, tmp_path):
    r, collect = hosts
    host_a, host_c = collect("hostA"), collect("hostC")
    assert _records(host_a) == _records(host_c) and sent_files(host_a).keys() != sent_files(host_c).keys()
    assert _push(host_a, r).returncode == 0
    first = _push(host_c, r)  # the receiver refuses it, and says it holds every record: no failure (trial 30d F2)
    got = summary(first.stdout.strip().splitlines()[-1])
    held = len(sent_files(host_c))  # its one landed file and the round reading it, counted from the root
    assert (got["files"], got["held"], got["rejected"], got["errors"]) == (str(held), str(held), "0", "0"), first.stdout
    assert first.returncode == 0, first.stderr
    assert "rejected:" not in first.stderr and "error:" not in first.stderr, first.stderr
    assert f"held: {files_and_rounds(list(sent_files(host_c)))} the receiver refused because it holds every record of them already" in first.stderr
    assert f"note: {SESSION}: grpc://{r.address} holds this session from another root" in first.stderr, first.stderr
    files = sorted(rel for rel in sent_files(host_c) if rel.endswith(".sd"))
    st = PushState.load(host_c)
    assert set(st.elsewhere) == set(files) and {held for held, _ in st.elsewhere.values()} == {"all"}
    assert {other for _, other in st.elsewhere.values()} <= set(sent_files(r.root))  # the receiver's own file names
    again = _push(host_c, r)  # later passes: one note, no error, exit 0
    assert again.returncode == 0, again.stderr
    notes = [ln for ln in again.stderr.splitlines() if ln.startswith("note: ")]
    assert not [ln for ln in again.stderr.splitlines() if ln.startswith("error: ")]
    assert [ln for ln in notes if "holds this session from another root" in ln] == [
        ln for ln in notes if ln.startswith(f"note: {SESSION}: grpc://{r.address} holds this session from another root")]
    assert len([ln for ln in notes if "holds this session from another root" in ln]) == 1
    assert "holds every record of this root's" in again.stderr and "--retry-elsewhere" in again.stderr
    assert summary(again.stdout.strip().splitlines()[-1])["files"] == "0"
    # retention: the receiver holds every record, so the session is removed (skeletons stay)
    (tmp_path / "prune.yaml").write_text(f'storage: {{retention: {{after: "0"}}}}\nexport: {{otlp: {{endpoint: "grpc://{r.address}"}}}}\n')
    p = asz("prune", "--root", str(host_c), "--config", str(tmp_path / "prune.yaml"), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    (sdir,) = session_dirs(host_c)
    assert not landed_files(sdir) and landed_files(sdir, skeletons=True)
    # each skeleton says what the receiver answered: it holds every record, as the other root's file it names
    for rel in files:
        with gzip.open(host_c / (rel[:-len(".sd")] + ".sk"), "rb") as f:
            removed = json.loads(f.readline())["removed"]
        assert removed["receiver"] == "accepted" and removed["elsewhere"] == st.elsewhere[rel][1], removed
    assert asz("verify", "--root", str(host_c), cwd=tmp_path).returncode == 0  # the key checked, and whole
    # the receiver's root still verifies: it holds hostA's collection
    assert asz("verify", "--root", str(r.root), cwd=tmp_path).returncode == 0


#: The §8.1 push summary line, its keys in its order, and ``held=`` after them (trial 30d F2).
SUMMARY = re.compile(r"^\[\d\d:\d\d:\d\d\] files=(\d+) metrics=\d+ bytes=\S+ wire=\S+ requests=\d+ paused=\S+ "
                     r"rejected=(\d+) errors=(\d+) held=(\d+) \(\d+\.\ds\)$")


def test_the_summary_counts_files_held_elsewhere_apart_from_refusals(collect, tmp_path):
    """Trial 30d F2: a push of sessions ``asz receive`` already holds from another root said ``rejected=42`` and exited
    1 while its note said "not an error". Now they count in ``held=`` and the pass exits 0; a root whose files the
    receiver lacks records of (it collected further) is still a refusal, ``rejected=`` and exit 1. A real ``asz
    receive`` process on loopback; each count is the pushing root's own files (its landed file and its round)."""
    host_a, host_c, host_d = collect("hostA"), collect("hostC"), collect("hostD", extra=2)
    port = free_port()
    rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--listen", f"127.0.0.1:{port}", "--root", str(tmp_path / "team")],
                           cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving: "), "asz receive did not start"
        r = SimpleNamespace(address=f"127.0.0.1:{port}")
        pushed = {name: _push(root, r) for name, root in (("A", host_a), ("C", host_c), ("D", host_d))}
    finally:
        rcv.send_signal(signal.SIGINT)
        said = rcv.communicate(timeout=60)[1]
    lines = {k: SUMMARY.match(p.stdout.strip().splitlines()[-1]) for k, p in pushed.items()}
    assert all(lines.values()), {k: p.stdout for k, p in pushed.items()}
    got = {k: tuple(int(x) for x in m.groups()) for k, m in lines.items()}  # files, rejected, errors, held
    n = len(sent_files(host_c))
    assert n == 2 and len(sent_files(host_d)) == 2 and len(sent_files(host_a)) == 2
    assert got == {"A": (2, 0, 0, 0), "C": (n, 0, 0, n), "D": (2, 2, 1, 0)}, got  # D: its error line says the shortfall
    assert [p.returncode for p in pushed.values()] == [0, 0, 1], {k: p.stderr for k, p in pushed.items()}
    assert "rejected:" not in pushed["C"].stderr and "not an error" in pushed["C"].stderr, pushed["C"].stderr
    assert f"rejected: {files_and_rounds(list(sent_files(host_d)))}: rejected " in pushed["D"].stderr, pushed["D"].stderr
    # the receiver says held as the pusher does, in its line and its per-file lines (trial 32c F5: "N rejected")
    logs = [x[11:] for x in said.splitlines() if " logs: " in x and "landed" in x]
    assert f"logs: {n} file(s): 0 landed, 0 already there, 0 rejected, {n} held; from dev@hostC" in logs, said
    assert "logs: 2 file(s): 0 landed, 0 already there, 2 rejected, 0 held; from dev@hostD" in logs, said
    assert sum(x.startswith("held ") for x in said.splitlines()) == n  # the file, and the round reading it
    assert sum(x.startswith("held ") and "this root holds every record of it" in x for x in said.splitlines()) == 1
    # and so does the receipts check: hostC's files are held, not "rejected, not looked for"
    v = asz("verify", "--root", str(tmp_path / "team"), "--receipts", str(host_c), cwd=tmp_path)
    assert (f"0 file(s) the receiver accepted: 0 in the root with that SHA-256, 0 changed, 0 missing; "
            f"{n} held (the receiver holds every record of them from another root)") in v.stdout, v.stdout
    assert "it rejected" not in v.stdout and v.returncode == 0, v.stdout
    d = json.loads(asz("verify", "--root", str(tmp_path / "team"), "--receipts", str(host_c), "--json", cwd=tmp_path).stdout)
    assert (d["receipts_held"], d["receipts_rejected"]) == (n, 0), d
    d = asz("verify", "--root", str(tmp_path / "team"), "--receipts", str(host_d), cwd=tmp_path)
    assert "; 2 it rejected, not looked for" in d.stdout + d.stderr and " held (" not in d.stdout + d.stderr


def test_a_root_that_collected_further_is_said_and_kept(hosts, tmp_path):
    r, collect = hosts
    host_a, host_c = collect("hostA"), collect("hostC", extra=2)
    lacking = _records(host_c) - _records(host_a)
    assert len(lacking) == 2  # the two lines hostC collected further, counted from the landed files
    assert _push(host_a, r).returncode == 0
    first = _push(host_c, r)
    assert first.returncode == 1 and f"this root lacks {len(lacking)} of its" in first.stderr
    got = summary(first.stdout.strip().splitlines()[-1])  # the receiver is short: a real refusal, held= counts none
    assert (got["rejected"], got["held"]) == (str(len(sent_files(host_c))), "0"), first.stdout
    assert {held for held, _ in PushState.load(host_c).elsewhere.values()} == {"part"}
    again = _push(host_c, r)  # the receiver is short of records only this root holds: an error every pass (trial 24a F3)
    assert again.returncode == 1 and "lacks records of 1 of this root's 1 file(s)" in again.stderr, again.stderr
    assert [ln for ln in again.stderr.splitlines() if ln.startswith("error: ")] == [
        ln for ln in again.stderr.splitlines() if ln.startswith(f"error: {SESSION}: ") and "lacks records of 1" in ln]
    (tmp_path / "prune.yaml").write_text(f'storage: {{retention: {{after: "0"}}}}\nexport: {{otlp: {{endpoint: "grpc://{r.address}"}}}}\n')
    dry = asz("prune", "--root", str(host_c), "--config", str(tmp_path / "prune.yaml"), "--dry-run", cwd=tmp_path)
    (landed,) = [rel for rel in sent_files(host_c) if rel.endswith(".sd")]
    assert f"kept {SESSION}: 2 file(s) grpc://{r.address} (export.otlp.endpoint) has not accepted (first: {landed})" in dry.stdout, dry.stdout
    asz("prune", "--root", str(host_c), "--config", str(tmp_path / "prune.yaml"), cwd=tmp_path)
    (sdir,) = session_dirs(host_c)
    assert landed_files(sdir)  # kept: the receiver lacks records of it
    # --retry-elsewhere sends them again: refused again, and recorded again
    retry = _push(host_c, r, "--retry-elsewhere")
    assert retry.returncode == 1 and "--retry-elsewhere: 1 file(s)" in retry.stderr
    assert summary(retry.stdout.strip().splitlines()[-1])["files"] == "1"
    assert {held for held, _ in PushState.load(host_c).elsewhere.values()} == {"part"}


def test_a_watching_collector_says_it_once(hosts, tmp_path):
    """A watching ``asz collect`` with an endpoint pushes after every pass: the note of a session the receiver holds
    from another root is said on the first pass that finds it, then not again while its words stay the same (trial 19,
    F4 leftover: one note every pass, every 10 minutes, for ever). Its metrics count as sent by that root (push26:
    the receiver holds every record of it from there), so no note of metrics not sent."""
    r, collect = hosts
    host_a, host_c = collect("hostA"), collect("hostC")
    assert _push(host_a, r).returncode == 0
    assert _push(host_c, r).returncode == 0  # held whole: a note, no failure (trial 30d F2)
    cfg = tmp_path / "hostC.yaml"
    cfg.write_text(f"export:\n  otlp: {{endpoint: 'grpc://{r.address}'}}\n")
    proc = subprocess.Popen([*ASZ, "collect", "--interval", "1s", "--source", str(tmp_path / "hostC-projects"),
                             "--root", str(host_c), "--config", str(cfg)], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        passes = 0
        while passes < 4 and time.monotonic() < deadline:  # each pass prints one line on stdout
            line = proc.stdout.readline()
            passes += line.startswith("[")
    finally:
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert passes == 4, (passes, err)
    notes = [ln for ln in err.splitlines() if ln.startswith("note: ")]
    held = [ln for ln in notes if "holds this session from another root" in ln]
    assert len(held) == 1 and held[0].startswith(f"note: {SESSION}: grpc://{r.address} holds"), err
    assert not [ln for ln in notes if ln.startswith("note: the metrics of")], err
    assert not [ln for ln in err.splitlines() if ln.startswith("error: ")], err


def test_notes_are_said_again_only_when_they_change_or_come_back():
    """:class:`Notes` across a watching collector's passes: the same words are said once; changed words, and a state
    that went away and came back, are said again; without a record (asz push) every pass says them."""
    import io

    said: dict[str, str] = {}
    passes = [{"S": "S: held"}, {"S": "S: held"}, {"S": "S: held, 2 rounds"}, {}, {"S": "S: held, 2 rounds"}]
    out = []
    for notes_of_pass in passes:
        err = io.StringIO()
        n = Notes(err, said)
        for subject, text in notes_of_pass.items():
            n.say(subject, text)
        n.done()
        out.append(err.getvalue())
    assert out == ["note: S: held\n", "", "note: S: held, 2 rounds\n", "", "note: S: held, 2 rounds\n"]
    err = io.StringIO()
    for _ in range(2):
        Notes(err, None).say("S", "S: held")
    assert err.getvalue() == "note: S: held\n" * 2


def test_sessions_held_from_another_root_are_one_note(tmp_path):
    """Trial 28a F12: a second root whose sessions the receiver holds whole from another root said one ``note:`` per
    session on every ``asz push`` (82 lines). Now one note gives their count and where each file is listed. Two corpus
    sessions (de3b8b19, 55604662) collected into two roots, both pushed to a real receiver on loopback."""
    picked = [CORPUS / PROJECT / f"{SESSION}.jsonl", CORPUS / "-home-user-spotter" / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"]
    if not all(p.is_file() for p in picked):
        pytest.skip(f"the corpus is absent ({CORPUS})")
    r = Receiver(tmp_path / "team", "127.0.0.1:0").start().serve_in_thread()
    try:
        roots = []
        for name in ("hostA", "hostC"):
            for src in picked:
                (tmp_path / f"{name}-projects" / src.parent.name).mkdir(parents=True)
                shutil.copy(src, tmp_path / f"{name}-projects" / src.parent.name)
            roots.append(tmp_path / name)
            p = asz("collect", "--once", "--source", str(tmp_path / f"{name}-projects"), "--root", str(roots[-1]), cwd=tmp_path)
            assert p.returncode == 0, p.stderr
        assert _push(roots[0], r).returncode == 0
        first = _push(roots[1], r)
        again = _push(roots[1], r)
    finally:
        r.stop()
    landed = [rel for rel in sent_files(roots[1]) if not rel.startswith("_")]
    assert first.returncode == 0 and summary(first.stdout.strip().splitlines()[-1])["held"] == str(len(sent_files(roots[1])))
    assert again.returncode == 0, again.stderr
    notes = [ln for ln in again.stderr.splitlines() if ln.startswith("note: ")]
    assert len(notes) == 1, again.stderr
    assert notes[0].startswith(f"note: 2 session(s) ({sorted(p.stem for p in picked)[0][:8]}, "), notes[0]
    assert f"holds every record of this root's {len(landed)} file(s) of them" in notes[0], notes[0]
    state = PushState.load(roots[1])
    assert sorted(state.elsewhere) == sorted(landed) and {h for h, _ in state.elsewhere.values()} == {"all"}
