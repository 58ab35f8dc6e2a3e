"""Hosts pushing to one receiver, one of whose roots is re-made or lost (trial 24a F4, F1, F2, F3, F5).

A real receiver on loopback (in a thread), real ``asz push`` children (and the collect that pushes after its pass),
``asz collect`` / ``asz parse`` in the test's process, corpus transcripts. Counts are made from the source lines: one
model call per (message.id, requestId) of an assistant line with ``message.usage``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from asz_core.export.receive import Receiver

from cli_helpers import write_secret
from export_helpers import asz, sent_files, summary, token_points

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
DE3 = ("-home-user-claude-reliability", "de3b8b19-5bc0-4a2a-934a-1b6806567e25")
C5 = ("-home-user-sample-project", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")


def _source(project: str, sid: str) -> Path:
    p = CORPUS / project / f"{sid}.jsonl"
    if not p.is_file():
        pytest.skip(f"the corpus is absent ({p})")
    return p


def calls(lines: list[bytes]) -> dict[tuple, int]:
    """(message.id, requestId) -> tokens (input + output + cache write + cache read) of the last line seen."""
    out = {}
    for ln in lines:
        try:
            d = json.loads(ln)
        except ValueError:
            continue
        m = d.get("message") if isinstance(d, dict) else None
        if d.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("usage"), dict):
            u = m["usage"]
            out[(m.get("id"), d.get("requestId"))] = sum(int(u.get(k) or 0) for k in (
                "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return out


def _collect(src: Path, root: Path, tmp: Path, *extra: str) -> None:
    """``asz collect --once`` of ``src`` into ``root`` in this process (what is tested is the push and the receiver;
    with the receiver's threads running the pass lands its sessions here, as it does when it may not fork)."""
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), *extra, cwd=tmp)
    assert p.returncode == 0, p.stdout + p.stderr


def _push(root: Path, r: Receiver, tmp: Path, *extra: str):
    return asz("push", "--root", str(root), "--endpoint", f"grpc://{r.address}", *extra, cwd=tmp)


def _usage_total(root: Path, tmp: Path) -> tuple[int, int]:
    """(calls, tokens) of ``asz usage --json`` over the whole root."""
    p = asz("usage", "--root", str(root), "--json", "--since", "2000-01-01", cwd=tmp)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    if not rows:
        return 0, 0
    tot = rows[-1]["total"]  # every row carries the whole window's total
    return int(tot["calls"]), sum(int(v) for v in tot["usage"].values())


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(tmp_path / "team", "127.0.0.1:0").start().serve_in_thread()
    yield r
    r.stop()


def _rounds(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "_conversations").rglob("*.sf"))}


def _copy_hosts(r: Receiver, tmp: Path, de3: Path, copy_id: str, more: dict[str, tuple[str, bytes]]) -> dict[str, Path]:
    """Host h1 holds de3b8b19, h2 a copy under ``copy_id`` (the same record uuids), each of ``more`` (host -> (file
    name, bytes)) its file; each collects and pushes to ``r`` (exit 0). Host -> its source project folder."""
    srcs = {h: tmp / h / "-p" for h in ("h1", "h2", *more)}
    for s in srcs.values():
        s.mkdir(parents=True)
    shutil.copy(de3, srcs["h1"] / de3.name)
    (srcs["h2"] / f"{copy_id}.jsonl").write_bytes(de3.read_bytes().replace(DE3[1][:13].encode(), copy_id[:13].encode()))
    for h, (name, data) in more.items():
        (srcs[h] / name).write_bytes(data)
    for h, s in srcs.items():
        _collect(s.parent, tmp / f"{h}.data", tmp)
        p = _push(tmp / f"{h}.data", r, tmp)
        assert p.returncode == 0, p.stderr
    return srcs


def test_parse_of_one_session_writes_only_its_rounds_on_a_receiving_root(receiver, tmp_path):
    """F4: three hosts push de3b8b19, a copy of it under another id (the same record uuids, as a copied or resumed
    session has) and the first 20 lines of 5c0375b4. ``asz parse 5c0375b4`` on the team root wrote the copy's round
    too, and host 2's next round was refused (one round per number). Now it writes only 5c0375b4's, and both hosts'
    next pushes land."""
    de3, c5 = _source(*DE3), _source(*C5)
    copy_id = "d03b8b19" + DE3[1][8:]
    c5_lines = c5.read_bytes().splitlines(keepends=True)
    srcs = _copy_hosts(receiver, tmp_path, de3, copy_id, {"h3": (c5.name, b"".join(c5_lines[:20]))})
    team = receiver.root
    before = _rounds(team)
    assert {k.split("/")[1] for k in before} == {DE3[1], copy_id, C5[1]}
    p = asz("parse", C5[1][:8], "--root", str(team), "--jobs", "1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = [ln.split()[0] for ln in p.stdout.splitlines()[1:]]
    assert rows == [C5[1]], p.stdout  # one row: the session named
    after = _rounds(team)
    assert {k: v for k, v in after.items() if f"/{C5[1]}/" not in k} == {k: v for k, v in before.items() if f"/{C5[1]}/" not in k}
    # host 3's session goes on: its next round lands (its chain was the team's); host 2's too
    (srcs["h3"] / c5.name).write_bytes(c5.read_bytes())
    _collect(srcs["h3"].parent, tmp_path / "h3.data", tmp_path)
    p3 = _push(tmp_path / "h3.data", receiver, tmp_path)
    last = json.loads(de3.read_bytes().splitlines()[-1])
    more = {"type": "user", "uuid": "h2-more", "parentUuid": last.get("uuid"), "sessionId": copy_id,
            "timestamp": "2026-01-22T00:05:00.000Z", "cwd": "/tmp/x", "message": {"role": "user", "content": "one more on host 2"}}
    with open(srcs["h2"] / f"{copy_id}.jsonl", "a") as f:
        f.write(json.dumps(more) + "\n")
    _collect(srcs["h2"].parent, tmp_path / "h2.data", tmp_path)
    p2 = _push(tmp_path / "h2.data", receiver, tmp_path)
    assert p3.returncode == 0 and p2.returncode == 0, p3.stderr + p2.stderr
    assert summary(p2.stdout.strip().splitlines()[-1])["errors"] == "0"
    # every host's rounds are the team's, byte for byte
    for h in ("h1", "h2", "h3"):
        mine = _rounds(tmp_path / f"{h}.data")
        assert mine and all(after_bytes == _rounds(team).get(k) for k, after_bytes in mine.items()), h
    # and the team counts what the sources hold
    want = calls(de3.read_bytes().splitlines()) | {}
    n_de3 = len(calls(de3.read_bytes().splitlines()))
    n_c5, t_c5 = len(calls(c5_lines)), sum(calls(c5_lines).values())
    # host 2's copy holds de3's provider calls (the same message and request ids): counted once root-wide, as ccusage
    # counts a message id and request id once (trial 35a F5, 12b55315; docs/view.md, One provider call, one count)
    assert _usage_total(team, tmp_path) == (n_de3 + n_c5, sum(want.values()) + t_c5)


def _more_lines(src: Path, sid: str) -> None:
    """Append one user line and one assistant call (7 in, 40 out, 1,000 cache write, 20,000 cache read) to ``src``."""
    last = json.loads(src.read_bytes().splitlines()[-1])
    u = {"type": "user", "uuid": "day4-u", "parentUuid": last.get("uuid"), "sessionId": sid,
         "timestamp": "2026-01-22T00:05:00.000Z", "cwd": "/tmp/x", "message": {"role": "user", "content": "Now make it print Goodbye too."}}
    a = {"type": "assistant", "uuid": "day4-a", "parentUuid": "day4-u", "sessionId": sid, "timestamp": "2026-01-22T00:05:03.000Z",
         "cwd": "/tmp/x", "requestId": "req_day4", "message": {"id": "msg_day4", "type": "message", "role": "assistant",
         "model": "claude-opus-4-5-20251101", "content": [{"type": "text", "text": "Done: hello.sh prints Goodbye too."}],
         "usage": {"input_tokens": 7, "output_tokens": 40, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 20000}}}
    with open(src, "a") as f:
        f.write(json.dumps(u) + "\n" + json.dumps(a) + "\n")


def _de3_host(tmp: Path) -> tuple[Path, Path, Path, Path]:
    """(the corpus transcript, the host's source folder, its copy there, the host's root) for de3b8b19."""
    src_file = _source(*DE3)
    src = tmp / "src" / DE3[0]
    src.mkdir(parents=True)
    shutil.copy(src_file, src / src_file.name)
    return src_file, src, src / src_file.name, tmp / "data"


def test_a_remade_root_goes_on_and_the_team_counts_it(receiver, tmp_path):
    """F1, F2: a host's root is re-made (moved away, collected again) and its session goes on. The new file landed on
    the team root but its round never came (the re-made root's rounds read a file the team holds from the old root),
    so no reader there counted the new call; with retention the session was pruned right after the refusal and every
    later pass exited 1. Now the pusher marks the new file and the receiver writes its round: the team counts every
    call of the source, verify is clean, and push, prune and push again agree (exit 0, nothing sent twice)."""
    src_file, src, f, data = _de3_host(tmp_path)
    (tmp_path / "ret.yaml").write_text(f'storage: {{retention: {{after: "0"}}}}\nexport: {{otlp: {{endpoint: "grpc://{receiver.address}"}}}}\n')
    _collect(src.parent, data, tmp_path)
    assert _push(data, receiver, tmp_path).returncode == 0
    data.rename(tmp_path / "data.old")  # the host's root is re-made
    _collect(src.parent, data, tmp_path)
    first = _push(data, receiver, tmp_path)
    # the receiver holds every record of the re-made root's file: held=, no failure (trial 30d F2; it exited 1 before)
    assert first.returncode == 0 and "holds this session from another root" in first.stderr, first.stdout + first.stderr
    held = len(sent_files(data))  # the re-made root's landed file and its round, counted from the root
    assert summary(first.stdout.strip().splitlines()[-1])["held"] == str(held), first.stdout
    pr = asz("prune", "--root", str(data), "--config", str(tmp_path / "ret.yaml"), cwd=tmp_path)
    assert pr.returncode == 0 and f"removed {DE3[1]}" in pr.stdout, pr.stdout + pr.stderr  # received: every record there
    again = _push(data, receiver, tmp_path)
    assert again.returncode == 0 and "error:" not in again.stderr, again.stderr  # F2: not "removed before received"
    _more_lines(f, DE3[1])
    _collect(src.parent, data, tmp_path)
    cont = _push(data, receiver, tmp_path)
    assert cont.returncode == 0, cont.stderr
    assert summary(cont.stdout.strip().splitlines()[-1])["files"] == "1"  # the new file; its round is the receiver's
    want = calls(f.read_bytes().splitlines())
    assert len(want) == len(calls(src_file.read_bytes().splitlines())) + 1
    assert _usage_total(receiver.root, tmp_path) == (len(want), sum(want.values()))
    v = asz("verify", "--root", str(receiver.root), cwd=tmp_path)
    assert v.returncode == 0 and "read by no round" not in v.stdout + v.stderr, v.stdout + v.stderr
    ls = asz("ls", "--root", str(receiver.root), cwd=tmp_path)
    assert "read by no round" not in ls.stdout + ls.stderr
    # retention removes the new file too (the receiver took it), and later passes stay clean
    pr = asz("prune", "--root", str(data), "--config", str(tmp_path / "ret.yaml"), cwd=tmp_path)
    assert pr.returncode == 0 and f"removed {DE3[1]}" in pr.stdout, pr.stdout + pr.stderr
    for extra in ((), ("--retry-elsewhere",)):  # --retry-elsewhere: a removed file cannot go again, nor its metrics
        p = _push(data, receiver, tmp_path, *extra)
        assert p.returncode == 0 and "error:" not in p.stderr, p.stderr
        got = summary(p.stdout.strip().splitlines()[-1])
        assert (got["files"], got["metrics"], got["errors"]) == ("0", "0", "0"), p.stdout
    assert _usage_total(receiver.root, tmp_path) == (len(want), sum(want.values()))


def test_a_landed_file_no_round_reads_is_said(tmp_path):
    """F1: a chain behind its session's landed files (here ``asz collect --no-parse`` after a parse) is said by asz
    verify (a note, ``unread`` counted) and asz ls, naming the session and the seqs; asz parse SESSION reads them."""
    src_file, src, f, data = _de3_host(tmp_path)
    _collect(src.parent, data, tmp_path)
    _more_lines(f, DE3[1])
    p = asz("collect", "--once", "--no-parse", "--source", str(src.parent), "--root", str(data), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    v = asz("verify", "--root", str(data), "--json", cwd=tmp_path)
    assert v.returncode == 0 and json.loads(v.stdout)["unread"] == 1, v.stdout + v.stderr
    v = asz("verify", "--root", str(data), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    assert f"{DE3[1]} seq 2 (its chain reads through seq 1)" in v.stdout and "read by no round" in v.stdout, v.stdout
    ls = asz("ls", "--root", str(data), cwd=tmp_path)
    assert "1 landed file(s) of 1 session(s) are read by no round" in ls.stdout + ls.stderr, ls.stdout + ls.stderr
    want = calls(src_file.read_bytes().splitlines())
    assert _usage_total(data, tmp_path) == (len(want), sum(want.values()))  # the new call is in no figure yet
    assert asz("parse", DE3[1][:8], "--root", str(data), cwd=tmp_path).returncode == 0
    want = calls(f.read_bytes().splitlines())
    assert _usage_total(data, tmp_path) == (len(want), sum(want.values()))
    assert "read by no round" not in asz("verify", "--root", str(data), cwd=tmp_path).stdout


def _records_of(path: Path) -> list[dict]:
    """The record lines of a landed file, decoded (header and closing line left out)."""
    return [json.loads(ln) for ln in path.read_bytes().split(b"\n")[1:-2]]


@pytest.mark.slow  # ~30 s: four collects, five pushes, every reader on both roots
def test_a_root_lost_after_collecting_more_than_it_pushed(receiver, tmp_path):
    """F3: the first 30 lines of 0d3a8e6f pushed, the other 38 collected and not pushed, the root lost and collected
    again. The receiver refuses the new file (seq 1 is landed as the old root's), says it lacks 38 of its 68 records
    and that they continue its stream at ord 31. The same pass makes the rest of the stream (push.md, The rest of a
    stream): a new file at seq 2 of the new root holding records ord 31-68, the source's lines 31-68 byte for byte at
    their offsets; the receiver lands it and writes its round; the refused file goes again and is held whole. Every
    reader of the team root then counts what the host counts, each call once (calls and tokens from the source's 68
    lines), verify is clean against the host's receipts (which name the rest) and says nothing short; the next line
    appended lands too."""
    sid, project = "0d3a8e6f-290f-4105-a327-a2496e5e2a83", "-Users-alex-workspace-claude-code-log-sample"
    src_file = _source(project, sid)
    lines = src_file.read_bytes().splitlines(keepends=True)
    src = tmp_path / "src" / project
    src.mkdir(parents=True)
    f = src / src_file.name
    f.write_bytes(b"".join(lines[:30]))
    data = tmp_path / "data"
    _collect(src.parent, data, tmp_path)
    assert _push(data, receiver, tmp_path).returncode == 0
    before = calls(lines[:30])
    assert _usage_total(receiver.root, tmp_path) == (len(before), sum(before.values()))
    f.write_bytes(b"".join(lines))
    _collect(src.parent, data, tmp_path)  # collected, not pushed
    data.rename(tmp_path / "data.lost")
    _collect(src.parent, data, tmp_path)
    first = _push(data, receiver, tmp_path)
    # the receiver's answer (the refusal, said in its own log) made the rest; once held whole the pass says the rest
    assert (f"lacks of {sid}/streams/main (transcript), from ord 31 on, which it holds up to there from another root"
            in first.stderr), first.stderr
    # the rest taken and the refused file held whole in the same pass: a recovery that worked exits 0 (trial 34b F4)
    assert first.returncode == 0 and "errors=0" in first.stdout and "rejected=0" in first.stdout, first.stdout + first.stderr
    assert "rejected:" not in first.stderr, first.stderr
    (rest,) = [p for p in data.rglob("*.sd") if p.name.endswith("-000002.sd")]
    recs = _records_of(rest)
    offs = [sum(len(ln) for ln in lines[:i]) for i in range(30, len(lines))]
    assert [(r["ord"], r["off"]) for r in recs] == list(zip(range(31, len(lines) + 1), offs))
    there = receiver.root / rest.relative_to(data)
    assert there.read_bytes() == rest.read_bytes()
    whole = calls(lines)
    assert (len(whole), sum(whole.values())) == (15, 439_280)
    assert _usage_total(receiver.root, tmp_path) == (len(whole), sum(whole.values()))
    assert _usage_total(data, tmp_path) == (len(whole), sum(whole.values()))  # the host's: nothing counted twice
    for root in (receiver.root, data):
        ls = asz("ls", "--root", str(root), "--json", cwd=tmp_path)
        (row,) = json.loads(ls.stdout)
        assert (row["calls_with_usage"], sum(row["usage"].values())) == (len(whole), sum(whole.values())), ls.stdout
        assert "short of" not in ls.stderr, ls.stderr
    want = sum(b"No MCP servers configured" in ln for ln in lines[30:])  # only in the records the team lacked
    hits = [json.loads(asz("search", "MCP servers configured", "--root", str(root), "--json", cwd=tmp_path).stdout)
            for root in (receiver.root, data)]
    assert len(hits[0]) == len(hits[1]) == want >= 1, hits
    prose = [[{k: v for k, v in json.loads(ln).items() if k not in ("file", "row")}  # the roots' own file names
              for ln in asz("export", sid[:8], "--format", "prose", "--root", str(root), cwd=tmp_path).stdout.splitlines()]
             for root in (receiver.root, data)]
    assert prose[0] == prose[1] and "No MCP servers configured" in json.dumps(prose[0])
    v = asz("verify", "--root", str(receiver.root), "--receipts", str(data), "--json", cwd=tmp_path)
    assert v.returncode == 0 and "short of" not in v.stdout, v.stdout + v.stderr
    p = _push(data, receiver, tmp_path)
    assert p.returncode == 0 and "files=0" in p.stdout, p.stdout + p.stderr
    new = json.loads(lines[-1])  # one more line: a person's prompt, continuing the stream
    new["uuid"], new["parentUuid"] = "00000000-0000-4000-8000-000000000025", new["uuid"]
    f.write_bytes(b"".join(lines) + json.dumps(new).encode() + b"\n")
    _collect(src.parent, data, tmp_path)
    p = _push(data, receiver, tmp_path)
    assert p.returncode == 0 and "files=1 " in p.stdout and "rejected=0" in p.stdout, p.stdout + p.stderr
    assert len(list((receiver.root / sid / "streams" / "main").glob("*.sd"))) == 3
    c = asz("conversation", sid[:8], "--root", str(receiver.root), cwd=tmp_path)
    assert "landed through seq 3" in c.stdout, c.stdout


def _lost_after_pushing_30(receiver, tmp: Path, project: str, sid: str, lines: list[bytes], *extra: str
                           ) -> tuple[Path, Path]:
    """Trial 24a F3's root: the first 30 ``lines`` collected and pushed (exit 0), all of them collected and not pushed,
    the root lost (renamed ``data.lost``) and collected again (``extra``: options of every collect and push, such as
    ``--config``). ``(the source file, the new root)``."""
    src = tmp / "src" / project
    src.mkdir(parents=True)
    f = src / f"{sid}.jsonl"
    f.write_bytes(b"".join(lines[:30]))
    data = tmp / "data"
    _collect(src.parent, data, tmp, *extra)
    assert _push(data, receiver, tmp, *extra).returncode == 0
    f.write_bytes(b"".join(lines))
    _collect(src.parent, data, tmp, *extra)
    data.rename(tmp / "data.lost")
    _collect(src.parent, data, tmp, *extra)
    return f, data


@pytest.mark.slow
def test_the_rest_takes_a_file_collected_before_the_first_push(receiver, tmp_path):
    """F3 with one more line collected by the re-made root before its first push (its seq 2, ord 69): the receiver
    refuses seq 1 (lacks 38) and seq 2 (does not continue ord 30); the rest is made at seq 3 (ord 31-69) and lands,
    the receiver holding seq 1 and 3 (no seq 2: a seq it never got is no file its round read); seq 1 and 2 go again
    and are held whole. The team counts the host's calls, its conversation verifies, and the next pass is clean."""
    sid, project = "0d3a8e6f-290f-4105-a327-a2496e5e2a83", "-Users-alex-workspace-claude-code-log-sample"
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    new = json.loads(lines[-1])
    new["uuid"], new["parentUuid"] = "00000000-0000-4000-8000-000000000026", new["uuid"]
    f, data = _lost_after_pushing_30(receiver, tmp_path, project, sid, lines)
    f.write_bytes(b"".join(lines) + json.dumps(new).encode() + b"\n")
    _collect(f.parent.parent, data, tmp_path)
    first = _push(data, receiver, tmp_path)
    assert first.returncode == 0 and "errors=0" in first.stdout, first.stdout + first.stderr  # trial 34b F4
    # seq 1 and 2 sent again after the rest, held whole, and the rounds refused with them first, which the receiver
    # holds every record of now: one held line for the session (the reasons are the receiver's log's; 31a F5)
    assert (f"held: 2 file(s) and 2 round(s) the receiver refused because it holds every record of them already (not a failure), "
            f"of session {sid}: ") in first.stderr, first.stderr
    # before 2026-12-06 the first answer's refusals of seq 1 and 2 and their 2 rounds stayed rejected=4, exit 1
    got = summary(first.stdout.strip().splitlines()[-1])
    assert (got["held"], got["rejected"]) == ("4", "0"), first.stdout
    assert "rejected:" not in first.stderr, first.stderr
    (rest,) = [p for p in data.rglob("*.sd") if p.name.endswith("-000003.sd")]
    assert [r["ord"] for r in _records_of(rest)] == list(range(31, len(lines) + 2))
    main = receiver.root / sid / "streams" / "main"
    assert sorted(p.name[-9:-3] for p in main.glob("*.sd")) == ["000001", "000003"]
    whole = calls(lines)
    assert _usage_total(receiver.root, tmp_path) == (len(whole), sum(whole.values())) == _usage_total(data, tmp_path)
    ls = asz("ls", "--root", str(receiver.root), "--json", cwd=tmp_path)
    assert json.loads(ls.stdout)[0]["state"] == "verified" and "short of" not in ls.stderr, ls.stdout + ls.stderr
    v = asz("verify", "--root", str(receiver.root), "--receipts", str(data), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    p = _push(data, receiver, tmp_path)
    assert p.returncode == 0 and "files=0" in p.stdout, p.stdout + p.stderr


#: ``asz push`` (run with an asz.yaml whose ``max_delta_bytes`` is 20,000: the rest of a stream is cut there), killed (``os._exit(9)``, no
#: clean-up) as it closes the rest's second file: the first file landed, the second a temporary left behind.
_KILLED_MAKING_THE_REST = """
import os, sys
from asz_core.storage.root import SessionWriter
finish, closed = SessionWriter.finish, []
def killed(self, w):
    closed.append(w)
    if len(closed) == 2:
        os._exit(9)
    return finish(self, w)
SessionWriter.finish = killed
from asz_core.cli.entry import main
sys.argv[0] = "asz"
sys.exit(main())
"""


@pytest.mark.slow
def test_a_pass_killed_while_making_the_rest(receiver, tmp_path):
    """F3, the pass killed while it lands the rest of the stream (its first file landed, the second not): the next
    pass finds that file, makes the rest of it (its records from where that file ends, read from the files the rest
    is made from), sends both and the refused file again, held whole: it exits 0, and the team counts the calls of the
    68 source lines, verify clean against the host's receipts; one more pass sends nothing. (Before, that pass sent
    the half rest only and exited 1 saying the receiver lacked records of 'another transcript'.)"""
    sid, project = "0d3a8e6f-290f-4105-a327-a2496e5e2a83", "-Users-alex-workspace-claude-code-log-sample"
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    f, data = _lost_after_pushing_30(receiver, tmp_path, project, sid, lines)
    cfg = tmp_path / "cut.yaml"
    cfg.write_text("adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: 20000\n")
    k = subprocess.run([sys.executable, "-c", _KILLED_MAKING_THE_REST, "push", "--config", str(cfg), "--root", str(data), "--endpoint",
                        f"grpc://{receiver.address}"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert k.returncode == 9, k.stdout + k.stderr
    (half,) = [p for p in data.rglob("*.sd") if p.name.endswith("-000002.sd")]
    assert _records_of(half)[0]["ord"] == 31 and _records_of(half)[-1]["ord"] < len(lines)  # a half-made rest
    p = _push(data, receiver, tmp_path)
    assert p.returncode == 0 and "errors=0" in p.stdout, p.stdout + p.stderr
    rest = sorted(data.rglob("*.sd"))[1:]
    assert [r["ord"] for q in rest for r in _records_of(q)] == list(range(31, len(lines) + 1))  # each record once
    whole = calls(lines)
    assert _usage_total(receiver.root, tmp_path) == (len(whole), sum(whole.values())) == (15, 439_280)
    v = asz("verify", "--root", str(receiver.root), "--receipts", str(data), cwd=tmp_path)
    assert v.returncode == 0 and "short of" not in v.stdout, v.stdout + v.stderr
    p = _push(data, receiver, tmp_path)
    assert p.returncode == 0 and "files=0" in p.stdout, p.stdout + p.stderr


@pytest.mark.slow
def test_a_sender_line_that_does_not_verify_gives_no_rest(receiver, tmp_path):
    """F3, but the first 30 lines pushed by another instance (dev@hostA, a second root of the transcript) and the
    team's sender line of that file changed afterwards to name the re-made root's instance (dev@hostB; its digest left:
    it does not verify, so it names no sender, trial 25b F6): the receiver cannot tell that dev@hostB sent that stream,
    so it refuses hostB's file saying it lacks 38 of 68 records and says no rest; no rest is made, the pass exits 1,
    and the team still counts the first 30 lines' calls."""
    sid, project = "0d3a8e6f-290f-4105-a327-a2496e5e2a83", "-Users-alex-workspace-claude-code-log-sample"
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    src = tmp_path / "src" / project
    src.mkdir(parents=True)
    f = src / f"{sid}.jsonl"
    f.write_bytes(b"".join(lines[:30]))
    data = tmp_path / "data"
    cfg = {h: tmp_path / f"{h}.yaml" for h in ("hostA", "hostB")}
    for h, c in cfg.items():
        c.write_text(f"export:\n  otlp:\n    instance_id: dev@{h}\n")
    _collect(src.parent, data, tmp_path)
    assert _push(data, receiver, tmp_path, "--config", str(cfg["hostA"])).returncode == 0
    rec = receiver.root / "_received" / f"{sid}.senders"
    (line,) = rec.read_bytes().splitlines(keepends=True)
    assert json.loads(line)["instance"] == "dev@hostA" and json.loads(line)["file"].endswith("-000001.sd"), line
    rec.chmod(0o644)
    rec.write_bytes(line.replace(b'"dev@hostA"', b'"dev@hostB"'))
    assert json.loads(rec.read_bytes())["instance"] == "dev@hostB"
    data.rename(tmp_path / "data.hostA")
    f.write_bytes(b"".join(lines))
    _collect(src.parent, data, tmp_path)
    p = _push(data, receiver, tmp_path, "--config", str(cfg["hostB"]))
    assert p.returncode == 1 and f"this root lacks {len(lines) - 30} of its {len(lines)} record(s)" in p.stderr, p.stderr
    assert "continue this root's stream" not in p.stderr, p.stderr
    assert [q.name[-9:] for q in data.rglob("*.sd")] == ["000001.sd"]  # no rest made
    before = calls(lines[:30])
    assert _usage_total(receiver.root, tmp_path) == (len(before), sum(before.values()))


def test_elsewhere_names_the_file_of_the_same_stream(receiver, tmp_path):
    """F5: the receiver's ``elsewhere`` answer (push.state, skeletons) names the landed file that holds the refused
    file's records, of the same stream, not the file at the refused file's seq. 8463c716 has a main stream and two
    subagent streams; the first root collects half the main transcript, then all of it, so its files are numbered
    otherwise than a root that collects it at once."""
    from asz_core.export.state import PushState

    project, sid = "-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    main = _source(project, sid)
    lines = main.read_bytes().splitlines(keepends=True)
    a_src, c_src = tmp_path / "a" / project, tmp_path / "c" / project
    a_src.mkdir(parents=True)
    (a_src / main.name).write_bytes(b"".join(lines[:len(lines) // 2]))
    _collect(a_src.parent, tmp_path / "rootA", tmp_path)
    (a_src / main.name).write_bytes(main.read_bytes())
    shutil.copytree(main.parent / sid, a_src / sid)
    _collect(a_src.parent, tmp_path / "rootA", tmp_path)
    assert _push(tmp_path / "rootA", receiver, tmp_path).returncode == 0
    c_src.mkdir(parents=True)
    shutil.copy(main, c_src / main.name)
    shutil.copytree(main.parent / sid, c_src / sid)
    _collect(c_src.parent, tmp_path / "rootC", tmp_path)
    assert _push(tmp_path / "rootC", receiver, tmp_path).returncode == 0  # held whole: no failure (trial 30d F2)
    st = PushState.load(tmp_path / "rootC")
    assert st.elsewhere and {held for held, _ in st.elsewhere.values()} == {"all"}
    streams = lambda rel: rel.rsplit("/", 1)[0]  # noqa: E731 - <session>/streams/<stream>
    assert any("/streams/a7be2f0/" in rel for rel in st.elsewhere)  # a subagent stream's file among them
    moved = 0
    for rel, (_, other) in st.elsewhere.items():
        assert streams(other) == streams(rel), (rel, other)
        first = json.loads((tmp_path / "rootC" / rel).read_bytes().split(b"\n")[1])
        held = [json.loads(ln) for ln in (receiver.root / other).read_bytes().split(b"\n")[1:] if ln.startswith(b'{"ord"')]
        assert any((d["ord"], d["off"], d.get("sha")) == (first["ord"], first["off"], first.get("sha")) for d in held)
        moved += rel.rsplit("-", 1)[1] != other.rsplit("-", 1)[1]
    assert moved  # the roots numbered their files otherwise: a pointer by seq would have named another stream's


def test_an_interrupted_pause_counts_the_time_waited(receiver, tmp_path):
    """F6: Ctrl-C while ``max_bytes_per_minute`` holds the pass back: the summary's ``paused=`` is the time waited,
    never more than the pass took (it said the whole planned wait: ``paused=1m`` in a 4.0 s pass)."""
    import re
    import signal
    import subprocess
    import time

    from export_helpers import ASZ

    src_file, src, _, data = _de3_host(tmp_path)
    _collect(src.parent, data, tmp_path)
    sizes = [p.stat().st_size for p in data.rglob("*.s[df]")]
    assert len(sizes) >= 2
    cfg = tmp_path / "rate.yaml"  # one file per request, and a minute's budget taken by the first
    cfg.write_text(f"export:\n  otlp:\n    endpoint: grpc://{receiver.address}\n    batch_bytes: 1\n"
                   f"    max_bytes_per_minute: {min(sizes) + 1024}\n")
    proc = subprocess.Popen([*ASZ, "push", "--root", str(data), "--config", str(cfg)], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not list(receiver.root.rglob("*.sd")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)  # the first request went: the pass now waits for the minute to pass
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    m = re.search(r"paused=(\S+) .*\((\d+\.\d)s\)", out + err)
    assert m, out + err
    paused = m.group(1)
    secs = sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in re.findall(r"(\d+)([hms])", paused))
    assert 0 < secs <= float(m.group(2)) + 1, (paused, m.group(2))


def test_a_wrong_token_is_said_on_a_day_with_nothing_to_send(tmp_path):
    """F8: a root with nothing due, pushed with a wrong token, made no request and exited 0. Now an idle pass sends
    one empty request: a wrong token is an error (exit 1) that day; the right one is a clean pass."""
    token = "s3cret-token-24"
    r = Receiver(tmp_path / "team", "127.0.0.1:0", token=token).start().serve_in_thread()
    try:
        _, src, _, data = _de3_host(tmp_path)
        _collect(src.parent, data, tmp_path)
        write_secret(tmp_path / "good.tok", token + "\n")
        write_secret(tmp_path / "wrong.tok", "not-the-token\n")
        assert _push(data, r, tmp_path, "--token-file", str(tmp_path / "good.tok")).returncode == 0
        idle = _push(data, r, tmp_path, "--token-file", str(tmp_path / "good.tok"))
        got = summary(idle.stdout.strip().splitlines()[-1])
        assert idle.returncode == 0 and (got["files"], got["requests"], got["errors"]) == ("0", "1", "0"), idle.stderr
        wrong = _push(data, r, tmp_path, "--token-file", str(tmp_path / "wrong.tok"))
        assert wrong.returncode == 1 and "the bearer token does not match" in wrong.stderr, wrong.stdout + wrong.stderr
        assert summary(wrong.stdout.strip().splitlines()[-1])["files"] == "0"
    finally:
        r.stop()


def test_receiver_assembles_only_seqs_landed_by_the_request(tmp_path: Path) -> None:
    """A session whose chain lags behind a file landed before (its sending root's round may still come: a push stopped
    between its files and its rounds) is not assembled by the receiver for a later request: a round written here over
    other windows would take the number of that root's round, refused to it for good. Once every seq the chain lacks
    landed by the request answered, it is."""
    from asz_core.export.receive import assemble_held
    from asz_core.verify.unparsed import lagging_sessions

    project, sid = DE3
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    src = tmp_path / "src" / project
    src.mkdir(parents=True)
    root = tmp_path / "root"
    half = len(lines) // 2
    (src / f"{sid}.jsonl").write_bytes(b"".join(lines[:half]))
    _collect(tmp_path / "src", root, tmp_path)  # seq 1, its round
    (src / f"{sid}.jsonl").write_bytes(b"".join(lines))
    p = asz("collect", "--once", "--no-parse", "--source", str(tmp_path / "src"), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    rounds = root / "_conversations" / sid / "rounds"
    assert len(list(rounds.iterdir())) == 1
    assert lagging_sessions(root) == [(sid, 1, 2)]
    assemble_held(root, [sid], None, {sid: set()})  # seq 2 landed before this request: left for its sender's round
    assert len(list(rounds.iterdir())) == 1
    assemble_held(root, [sid], None, {sid: {2}})
    assert len(list(rounds.iterdir())) == 2
    assert lagging_sessions(root) == []


def test_a_named_parse_writes_no_round_into_a_senders_chain(receiver, tmp_path):
    """Recheck of F4 (N1): host 1 pushes de3b8b19, host 2 a copy under another id (the same record uuids). The copy
    changes de3b8b19's relations on the team root, and ``asz parse de3b8b19 --root team`` wrote round 2 into host 1's
    chain; host 1's own round 2 was then refused on every later push. A chain with rounds and no conversation.state on
    a receiving root is the sending root's: no parse writes into it, named or the whole root."""
    de3 = _source(*DE3)
    copy_id = "d03b8b19" + DE3[1][8:]
    srcs = _copy_hosts(receiver, tmp_path, de3, copy_id, {})
    team = receiver.root
    before = _rounds(team)
    assert len(before) == 2 and {k.split("/")[1] for k in before} == {DE3[1], copy_id}
    for named in (["de3b8b19"], []):
        p = asz("parse", *named, "--root", str(team), "--jobs", "1", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        assert "0 round(s) written" in p.stdout + p.stderr, p.stdout + p.stderr
        assert _rounds(team) == before
    last = json.loads(de3.read_bytes().splitlines()[-1])
    more = {"type": "user", "uuid": "h1-more", "parentUuid": last.get("uuid"), "sessionId": DE3[1],
            "timestamp": "2026-01-22T00:05:00.000Z", "cwd": "/tmp/x", "message": {"role": "user", "content": "one more on host 1"}}
    with open(srcs["h1"] / de3.name, "a") as f:
        f.write(json.dumps(more) + "\n")
    _collect(srcs["h1"].parent, tmp_path / "h1.data", tmp_path)
    for _ in range(2):  # the round lands, and the next pass is clean too
        p1 = _push(tmp_path / "h1.data", receiver, tmp_path)
        assert p1.returncode == 0, p1.stdout + p1.stderr
        assert summary(p1.stdout.strip().splitlines()[-1])["errors"] == "0"
    for h in ("h1", "h2"):  # every host's rounds are the team's, byte for byte
        mine = _rounds(tmp_path / f"{h}.data")
        assert mine and all(b == _rounds(team).get(k) for k, b in mine.items()), h
    assert len(_rounds(tmp_path / "h1.data")) == 2  # host 1's round 2, read from its new line, is the team's
    want = calls(de3.read_bytes().splitlines())
    assert _usage_total(team, tmp_path) == (len(want), sum(want.values()))  # the copy's calls counted once


LOG_SAMPLE = ("-Users-alex-workspace-claude-code-log-sample", "0d3a8e6f-290f-4105-a327-a2496e5e2a83")


@pytest.mark.slow
def test_the_rest_is_cut_at_the_configured_max_delta_bytes(receiver, tmp_path):
    """push26 (3): the rest of a stream was cut at a fixed 2 MiB whatever ``adapters[].collector.max_delta_bytes``
    said: one file of ord 31-68 (1.16 MB of source lines). With the budget at 1,100,000 bytes (the same asz.yaml for
    every collect and push) each file of the rest holds at most that many bytes, header and closing line included, as
    the collector cuts, so the rest is more than one file; together they hold ord 31-68 once, and the team counts the
    calls of the 68 source lines."""
    project, sid = LOG_SAMPLE
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    budget = 1_100_000
    assert sum(len(ln) for ln in lines[30:]) > budget  # the rest does not fit one file
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: {budget}\n")
    f, data = _lost_after_pushing_30(receiver, tmp_path, project, sid, lines, "--config", str(cfg))
    top = max(int(q.name[-9:-3]) for q in data.rglob("*.sd"))
    first = _push(data, receiver, tmp_path, "--config", str(cfg))
    assert first.returncode == 0 and "errors=0" in first.stdout and "rejected=0" in first.stdout, first.stdout + first.stderr
    rest = sorted(q for q in data.rglob("*.sd") if int(q.name[-9:-3]) > top)
    assert len(rest) >= 2, [q.name for q in rest]
    assert all(q.stat().st_size <= budget for q in rest), [q.stat().st_size for q in rest]
    assert [r["ord"] for q in rest for r in _records_of(q)] == list(range(31, len(lines) + 1))
    for q in rest:  # each landed on the team root, byte for byte
        assert (receiver.root / q.relative_to(data)).read_bytes() == q.read_bytes()
    whole = calls(lines)
    assert _usage_total(receiver.root, tmp_path) == (len(whole), sum(whole.values())) == (15, 439_280)
    v = asz("verify", "--root", str(receiver.root), "--receipts", str(data), cwd=tmp_path)
    assert v.returncode == 0 and "short of" not in v.stdout, v.stdout + v.stderr
    p = _push(data, receiver, tmp_path, "--config", str(cfg))
    assert p.returncode == 0 and "files=0" in p.stdout, p.stdout + p.stderr


@pytest.mark.slow
def test_the_push_after_collect_cuts_the_rest_at_its_max_delta_bytes_flag(receiver, tmp_path):
    """The push ``asz collect --max-delta-bytes N`` runs after its pass (``export.otlp.endpoint`` set) cuts the rest of
    a stream at N, as that pass cut its own files, where it cut at the asz.yaml value (here the default 2 MiB: one
    file of ord 31-68, 1.16 MB). With N = 1,100,000 the rest is two or more files of at most N bytes each, holding ord
    31-68 once, and the team counts the calls of the 68 source lines."""
    project, sid = LOG_SAMPLE
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    budget = 1_100_000
    assert sum(len(ln) for ln in lines[30:]) > budget  # the rest does not fit one file
    f, data = _lost_after_pushing_30(receiver, tmp_path, project, sid, lines)
    top = max(int(q.name[-9:-3]) for q in data.rglob("*.sd"))
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"export:\n  otlp:\n    endpoint: grpc://{receiver.address}\n")
    p = asz("collect", "--once", "--max-delta-bytes", str(budget), "--source", str(f.parent.parent), "--root", str(data),
            "--config", str(cfg), cwd=tmp_path, child=True)
    assert "errors=0" in p.stdout, p.stdout + p.stderr
    rest = sorted(q for q in data.rglob("*.sd") if int(q.name[-9:-3]) > top)
    assert len(rest) >= 2, [q.name for q in rest]
    assert all(q.stat().st_size <= budget for q in rest), [q.stat().st_size for q in rest]
    assert [r["ord"] for q in rest for r in _records_of(q)] == list(range(31, len(lines) + 1))
    whole = calls(lines)
    assert _usage_total(receiver.root, tmp_path) == (len(whole), sum(whole.values())) == (15, 439_280)


@pytest.mark.slow
def test_the_rest_pushed_to_a_second_endpoint_lands_there(receiver, tmp_path):
    """push26 (4): the host of F3, its rest made for the first receiver, pushed to a second receiver that holds none of
    the session. Its seq 1 (ord 1-68) lands there whole, and the rest (seq 2, ord 31-68, every record of it there
    already) was refused as held whole, with the rounds reading it: that pass exited 1 and every later one noted that
    the receiver held the session "from another root", though the root was this one. Now the second receiver takes the
    rest as records landed again, as the host holds them (this instance sent every file of that stream there, and the
    rest ends where the stream ends): the pass exits 0 with nothing rejected and no note, the second root holds the
    host's files and rounds byte for byte, counts the calls of the 68 source lines, and verifies clean against the
    host's receipts; a second pass sends nothing, and the first receiver is still clean."""
    project, sid = LOG_SAMPLE
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    f, data = _lost_after_pushing_30(receiver, tmp_path, project, sid, lines)
    first = _push(data, receiver, tmp_path)
    # the rest made and sent, the refused held whole: a recovery that worked exits 0 (trial 34b F4)
    assert first.returncode == 0 and "errors=0" in first.stdout and "rejected=0" in first.stdout, first.stdout + first.stderr
    (rest,) = [q for q in data.rglob("*.sd") if q.name.endswith("-000002.sd")]
    r2 = Receiver(tmp_path / "team2", "127.0.0.1:0").start().serve_in_thread()
    try:
        p = _push(data, r2, tmp_path)
        assert p.returncode == 0, p.stdout + p.stderr
        got = summary(p.stdout.strip().splitlines()[-1])
        assert (got["rejected"], got["errors"]) == ("0", "0"), p.stdout + p.stderr
        assert "another root" not in p.stderr and "rejected" not in p.stderr, p.stderr
        team2 = r2.root
        assert (team2 / rest.relative_to(data)).read_bytes() == rest.read_bytes()
        assert _rounds(team2) == _rounds(data)  # the host's chain, byte for byte
        whole = calls(lines)
        assert _usage_total(team2, tmp_path) == (len(whole), sum(whole.values())) == (15, 439_280)
        v = asz("verify", "--root", str(team2), "--receipts", str(data), cwd=tmp_path)
        assert v.returncode == 0 and "short of" not in v.stdout, v.stdout + v.stderr
        again = _push(data, r2, tmp_path)
        assert again.returncode == 0 and "files=0" in again.stdout and "note:" not in again.stderr, again.stdout + again.stderr
    finally:
        r2.stop()
    back = _push(data, receiver, tmp_path)
    assert back.returncode == 0 and "files=0" in back.stdout, back.stdout + back.stderr


@pytest.mark.slow
def test_a_session_whose_old_root_sent_no_round_is_assembled(receiver, tmp_path):
    """push26 (2): the old root pushed a session's files and no round (collected with --no-parse, or its push stopped
    between its files and its rounds), then was lost and collected again. The re-made root holds its rounds back (they
    read files the receiver refused), so the team root held the files and no chain: no reader there counted them until
    someone ran ``asz parse SESSION`` on it by hand. Now the receiver assembles the session when every seq no round
    reads was sent by the re-made root's instance or landed by the request: 0d3a8e6f (30 lines pushed, 68 collected
    again: the rest of its stream) and de3b8b19 (pushed whole, collected again: held whole, nothing new lands) both
    count what their source lines hold on the team root, which verifies clean."""
    project, sid = LOG_SAMPLE
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    de3 = _source(*DE3)
    src = tmp_path / "src"
    (src / project).mkdir(parents=True)
    (src / DE3[0]).mkdir(parents=True)
    f = src / project / f"{sid}.jsonl"
    f.write_bytes(b"".join(lines[:30]))
    shutil.copy(de3, src / DE3[0] / de3.name)
    data = tmp_path / "data"
    _collect(src, data, tmp_path, "--no-parse")
    assert _push(data, receiver, tmp_path).returncode == 0
    assert not (receiver.root / "_conversations").exists()  # the old root sent no round
    data.rename(tmp_path / "data.lost")
    f.write_bytes(b"".join(lines))
    _collect(src, data, tmp_path)
    first = _push(data, receiver, tmp_path)
    # the refusals held whole once the rest landed: a recovery that worked exits 0 (trial 34b F4)
    assert first.returncode == 0 and "errors=0" in first.stdout and "rejected=0" in first.stdout, first.stdout + first.stderr
    for s in (sid, DE3[1]):
        assert list((receiver.root / "_conversations" / s / "rounds").glob("*.sf")), s
    whole, d = calls(lines), calls(de3.read_bytes().splitlines())
    assert _usage_total(receiver.root, tmp_path) == (len(whole) + len(d), sum(whole.values()) + sum(d.values()))
    v = asz("verify", "--root", str(receiver.root), "--receipts", str(data), cwd=tmp_path)
    assert v.returncode == 0 and "read by no round" not in v.stdout and "no conversation chain" not in v.stdout, v.stdout
    p = _push(data, receiver, tmp_path)
    assert p.returncode == 0 and "files=0" in p.stdout, p.stdout + p.stderr


_TYPES = {"input_tokens": "input", "output_tokens": "output", "cache_creation_input_tokens": "cacheCreation",
          "cache_read_input_tokens": "cacheRead"}


def _tokens_by_type(lines: list[bytes]) -> dict[str, int]:
    """The source's tokens per metric type: each call (message.id, requestId) by the last line of it with usage."""
    last: dict[tuple, dict] = {}
    for ln in lines:
        d = json.loads(ln)
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("usage"), dict):
            last[(m.get("id"), d.get("requestId"))] = m["usage"]
    return {t: sum(int(u.get(k) or 0) for u in last.values()) for k, t in _TYPES.items()}


class _Counting(Receiver):
    """``asz receive`` on loopback that also sums the ``agent.token.usage`` points it answers, per ``type``: what an
    OTLP metrics backend sums of monotonic delta sums."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tokens = dict.fromkeys(_TYPES.values(), 0)

    def metrics_said(self, req) -> None:
        for kind, value in token_points(req):
            self.tokens[kind] += int(value)
        super().metrics_said(req)


@pytest.mark.slow
def test_the_metrics_of_the_rest_are_sent_once(tmp_path):
    """push26 (1): F3's host, the old root's push having sent the metrics of the calls of its 30 lines. The re-made
    root's session has a refused file, so it sent no metrics at all: the OTLP backend never counted the calls of the
    38 lines only the rest holds. Now it sends, for each call, what its usage grew by over what the records the
    receiver holds from the old root give (those were counted by that root): the receiver's sums per type are the 68
    source lines' tokens (439,280 in all), each token once; the next pass sends no point."""
    project, sid = LOG_SAMPLE
    lines = _source(project, sid).read_bytes().splitlines(keepends=True)
    r = _Counting(tmp_path / "team", "127.0.0.1:0").start().serve_in_thread()
    try:
        f, data = _lost_after_pushing_30(r, tmp_path, project, sid, lines)
        assert r.tokens == _tokens_by_type(lines[:30])  # the old root's points: the calls of the lines it pushed
        first = _push(data, r, tmp_path)
        assert first.returncode == 0 and "errors=0" in first.stdout and "rejected=0" in first.stdout, first.stdout + first.stderr
        assert r.tokens == _tokens_by_type(lines), (r.tokens, _tokens_by_type(lines))
        assert sum(r.tokens.values()) == 439_280
        again = _push(data, r, tmp_path)
        assert again.returncode == 0 and "metrics=0" in again.stdout and "files=0" in again.stdout, again.stdout + again.stderr
        assert r.tokens == _tokens_by_type(lines)
    finally:
        r.stop()
