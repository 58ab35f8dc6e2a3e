"""``asz usage session`` says why a resumed conversation's row counts only its own calls (trial 48a F5: 9f769560 read
80 calls, its file holding 160, and neither the table nor the ``--json`` row said why).

A resumed copy made as trial 48a's scripts/extra.py made 9f769560: the corpus transcript b25638d7 under a new session id
with every id kept (Claude Code's ``--resume``), then the same lines again under new ids a day later (its own work).
Every count is made from the source lines (one call per message id and request id of an assistant line), never from
asz; issue 17's usage keys stay as they are."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

PROJECT = "-Users-alex-workspace-personal-site-next"
A = "b25638d7-b104-4f06-a797-70ac33d069ed"
B = "0b0b0b0b-0000-4000-8000-00000000004f"  # the resumed copy


def _own(r: dict, sid: str = B, tag: str = "r", days: int = 1) -> dict:
    """``r`` (a source line of A) as ``sid``'s own: new uuids, message, request and tool ids (``tag``), ``days`` later."""
    text = json.dumps(r).replace("toolu_", f"toolu_{tag}")
    r = json.loads(text)
    for k in ("uuid", "parentUuid"):
        if r.get(k):
            r[k] = str(uuid.uuid5(uuid.NAMESPACE_URL, ("48a-f5:" if tag == "r" else f"{tag}:") + r[k]))
    if isinstance(m := r.get("message"), dict) and m.get("id"):
        m["id"] += f"_{tag}"
    if r.get("requestId"):
        r["requestId"] += f"_{tag}"
    if r.get("timestamp"):
        t = dt.datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")) + dt.timedelta(days=days)
        r["timestamp"] = t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return dict(r, sessionId=sid)


def _calls(lines: list[dict]) -> set:
    return {(d["message"]["id"], d.get("requestId") or "") for d in lines if d.get("type") == "assistant"}


def test_a_resumed_conversations_row_says_where_its_repeated_calls_are_counted(corpus_dir, tmp_path: Path):
    f = corpus_dir / "claude-code" / "projects" / PROJECT / f"{A}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    a = [json.loads(x) for x in f.read_bytes().splitlines() if x.strip()]
    b = [dict(r, sessionId=B) if "sessionId" in r else r for r in a] + [_own(r) for r in a]
    proj = tmp_path / "projects" / PROJECT
    proj.mkdir(parents=True)
    (proj / f"{A}.jsonl").write_bytes(f.read_bytes())
    (proj / f"{B}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in b))
    root = str(tmp_path / "root")
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root)
    assert p.returncode == 0, p.stdout + p.stderr

    repeated, in_file = _calls(a), _calls(b)
    own = in_file - repeated
    assert (len(repeated), len(in_file), len(own)) == (18, 36, 18)
    rows = {r["conversation"]: r for r in json.loads(asz_in_process("usage", "session", "--json", "--tz", "UTC",
                                                                    "--root", root).stdout)}
    assert (rows[A]["calls"], rows[B]["calls"]) == (len(repeated), len(own))
    assert rows[B]["continues"] == {"conversation": A, "calls": len(repeated),
                                    "counted_in": [{"conversation": A, "calls": len(repeated)}]}
    assert "continues" not in rows[A]
    assert set(rows[B]["usage"]) >= {"in", "out", "cache_read", "cache_write"}  # issue 17's keys kept
    text = asz_in_process("usage", "session", "--tz", "UTC", "--root", root).stdout.splitlines()
    assert (f"{B[:8]} continues {A[:8]}: the {len(repeated)} model call(s) of its file that repeat {A[:8]}'s are counted "
            f"in that conversation's row; its own row counts its own {len(own)} (--json: the row's continues)") in text
    # another view says nothing of it: its rows are days, not conversations
    assert not any(" continues " in line for line in asz_in_process("usage", "--tz", "UTC", "--root", root).stdout.splitlines())


def test_a_resume_of_a_resume_names_each_row_its_repeated_calls_are_counted_in(corpus_dir, tmp_path: Path):
    """Trial 50a F3: 0a5a7102 resumes 95e490c1, which resumes 1ef72a71; the line said its 30 repeated calls were counted
    in 1ef72a71's row and ``continues`` named that one alone, where 15 are in each. Here B resumes A (A's lines, then its
    own) and C resumes B (B's whole file, then its own): C's row names A and B, each with its count from the lines."""
    f = corpus_dir / "claude-code" / "projects" / PROJECT / f"{A}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    c_id = "0c0c0c0c-0000-4000-8000-0000000050f3"
    a = [json.loads(x) for x in f.read_bytes().splitlines() if x.strip()]
    b_own = [_own(r) for r in a]
    b = [dict(r, sessionId=B) if "sessionId" in r else r for r in a] + b_own
    c_own = [_own(r, c_id, "c", 2) for r in a]
    c = [dict(r, sessionId=c_id) if "sessionId" in r else r for r in b] + c_own
    proj = tmp_path / "projects" / PROJECT
    proj.mkdir(parents=True)
    for sid, lines in ((A, a), (B, b), (c_id, c)):
        (proj / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    root = str(tmp_path / "root")
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root).returncode == 0
    in_a, in_b_own, in_c_own = _calls(a), _calls(b_own), _calls(c_own)
    assert (len(in_a), len(in_b_own), len(in_c_own), len(_calls(c))) == (18, 18, 18, 54)
    rows = {r["conversation"]: r for r in json.loads(asz_in_process("usage", "session", "--json", "--tz", "UTC",
                                                                    "--root", root).stdout)}
    assert [rows[x]["calls"] for x in (A, B, c_id)] == [len(in_a), len(in_b_own), len(in_c_own)]
    assert rows[c_id]["continues"]["calls"] == len(in_a) + len(in_b_own)
    assert rows[c_id]["continues"]["counted_in"] == [{"conversation": B, "calls": len(in_b_own)},  # by id
                                                     {"conversation": A, "calls": len(in_a)}]
    text = asz_in_process("usage", "session", "--tz", "UTC", "--root", root).stdout.splitlines()
    assert (f"{c_id[:8]} continues {B[:8]} and {A[:8]}: the {len(in_a) + len(in_b_own)} model call(s) of its file that "
            f"repeat theirs are counted in their rows, {B[:8]} ({len(in_b_own)}) and {A[:8]} ({len(in_a)}); its own "
            f"row counts its own {len(in_c_own)} (--json: the row's continues)") in text


def test_a_claude_code_folder_name_given_as_project_says_how_asz_names_projects(corpus_dir, tmp_path: Path):
    """Trial 48a F6: ``--project -home-user-spotter`` (ccusage's name, the ``~/.claude/projects`` folder) matched
    nothing and the error said only ``asz ls lists the projects``. The working directory is read from the source lines."""
    f = corpus_dir / "claude-code" / "projects" / PROJECT / f"{A}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    cwds = {d["cwd"] for d in map(json.loads, f.read_bytes().splitlines()) if d.get("cwd")}
    assert len(cwds) == 1  # /Users/alex/workspace/personal-site.example-next: not the folder's name made back
    (tmp_path / "projects" / PROJECT).mkdir(parents=True)
    (tmp_path / "projects" / PROJECT / f.name).write_bytes(f.read_bytes())
    root = str(tmp_path / "root")
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root).returncode == 0
    p = asz_in_process("usage", "--project", PROJECT, "--root", root)
    assert p.returncode == 1 and not p.stdout
    cwd, calls = cwds.pop(), len(_calls([json.loads(x) for x in f.read_bytes().splitlines()]))
    assert p.stderr.splitlines()[-1] == (
        f"asz usage: no model call in {root} matches --project '{PROJECT}' (asz ls lists the projects and models; asz "
        "names a project by its conversations' working directory, not by the ~/.claude/projects folder ccusage names it "
        f"by; the sessions read from that folder are of {cwd} ({calls} call(s)); docs/ccusage.md, Projects)")
    # a folder name no session was read from: the nearest by the folder form (trial 48a F6)
    p = asz_in_process("usage", "--project", PROJECT[:-2], "--root", root)
    assert p.returncode == 1 and p.stderr.splitlines()[-1].endswith(f"by; nearest: {cwd}; docs/ccusage.md, Projects)")
    # a project that matches, left out by another filter: no word of folders
    p = asz_in_process("usage", "--project", "personal-site", "--model", "no-such-model", "--root", root)
    assert p.returncode == 1 and "ccusage" not in p.stderr and "matches --project 'personal-site'" in p.stderr


def test_a_copy_holding_the_last_line_of_a_call_it_repeats_counts_it_and_says_no_line(tmp_path: Path):
    """Trial 48a's hand-made pair 66666666-…-a and -b (field report shape of trial 33a F1): -b repeats -a's two
    snapshots of a call and holds its last one, so the call goes on in -b and is counted there; -b's row counts every
    call its file holds, its ``continues`` counts 0 calls counted in -a, and no line says otherwise."""
    a_id, b_id = "66666666-ffff-4fff-8fff-00000000000a", "66666666-ffff-4fff-8fff-00000000000b"

    def line(sid: str, uid: str, parent: str | None, at: str, msg: str | None = None, out: int = 0) -> dict:
        d = {"parentUuid": parent, "isSidechain": False, "sessionId": sid, "uuid": uid, "cwd": "/home/me/handmade",
             "timestamp": at, "type": "user", "message": {"role": "user", "content": "go"}}
        if msg:
            d.update(type="assistant", requestId="req_" + msg, message={
                "id": msg, "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
                "content": [{"type": "text", "text": uid}], "stop_reason": "end_turn" if out >= 60 else None,
                "usage": {"input_tokens": 3, "output_tokens": out, "cache_creation_input_tokens": 100,
                          "cache_read_input_tokens": 1000}})
        return d

    def opening(sid: str) -> list[dict]:
        return [line(sid, "u6-a-1", None, "2026-11-25T20:00:00.000Z"),
                line(sid, "a6-a-1", "u6-a-1", "2026-11-25T20:00:01.000Z", "msg_split", 10),
                line(sid, "a6-a-2", "a6-a-1", "2026-11-25T20:00:02.000Z", "msg_split", 20)]
    a = opening(a_id)
    b = opening(b_id) + [line(b_id, "a6-b-3", "a6-a-2", "2026-11-26T09:00:03.000Z", "msg_split", 500),
                         line(b_id, "u6-b-2", "a6-b-3", "2026-11-26T09:01:00.000Z"),
                         line(b_id, "a6-b-4", "u6-b-2", "2026-11-26T09:01:05.000Z", "msg_newer", 60)]
    proj = tmp_path / "projects" / "-home-me-handmade"
    proj.mkdir(parents=True)
    for sid, lines in ((a_id, a), (b_id, b)):
        (proj / f"{sid}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    root = str(tmp_path / "root")
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root).returncode == 0
    rows = {r["conversation"]: r for r in json.loads(asz_in_process("usage", "session", "--json", "--tz", "UTC",
                                                                    "--root", root).stdout)}
    assert rows[b_id]["calls"] == len(_calls(b)) == 2 and rows[b_id]["usage"]["out"] == 500 + 60
    assert rows[b_id]["continues"] == {"conversation": a_id, "calls": 0}  # none counted there: no counted_in
    text = asz_in_process("usage", "session", "--tz", "UTC", "--root", root).stdout
    assert " continues " not in text
