"""Fragments naming no request id beside two or more request ids (trial 23b F1's edge, member24).

claude-code-local before 0.3.0 landed no request id. A message whose first lines an old asz landed and whose later
lines a newer one landed, under two request ids (a second request answered under the same message id), has
fragments naming none beside two that do. Claude Code writes each block of a response as a line whose
``parentUuid`` is the line before it: fragments the record chain ties to exactly one of the requests are that
request's (the call is counted as the source counts it); fragments it ties to none or to both stay a call of their
own, and are marked (``requests`` entry ``unnamed: true``, a ``summary.problems`` line naming the node, a note from
``asz usage``).

Real-shaped: the corpus's spotter transcript (55604662, one message ``msg_01MKH1cc…`` written as five lines 5, 6,
7, 8, 10 under one request id), cut after line 6 and landed by asz at b294176 (claude-code-local 0.1.0, run from a
``git archive`` in a child), then whole, with a second request id written on some of its later lines, landed by this
asz. The expected calls and tokens are counted from the source file (one usage per message id + request id, its last
line), never from asz.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claude_lines import walk_nodes
from cli_helpers import asz_in_process, code_at

OLD = "b294176"  # claude-code-local 0.1.0: no request id landed
PROJECT, SID = "-home-user-spotter", "55604662-cf2a-4331-851a-ec234028f8ca"
RETRY = "req_011CY15QRETRYmember24xx"
KINDS = {"in": "input_tokens", "out": "output_tokens", "cache_write": "cache_creation_input_tokens",
         "cache_read": "cache_read_input_tokens"}


def _source_calls(lines: list[bytes]) -> dict:
    """``(message id, requestId) -> usage`` of the last assistant line of each, as the source has them."""
    out: dict = {}
    for x in lines:
        o = json.loads(x)
        if o.get("type") == "assistant" and o["message"].get("usage"):
            out[(o["message"]["id"], o.get("requestId"))] = o["message"]["usage"]
    return out


def _landed(tmp: Path, lines: list[bytes]) -> Path:
    """The first six lines collected by the old asz, then all of ``lines`` by this one; returns the root."""
    src, root = tmp / "src" / PROJECT, tmp / "root"
    src.mkdir(parents=True)
    (src / f"{SID}.jsonl").write_bytes(b"".join(x + b"\n" for x in lines[:6]))
    env = {**os.environ, "PYTHONPATH": str(code_at(OLD, tmp)), "HOME": str(tmp / "home")}
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(src.parent),
                        "--root", str(root)], capture_output=True, text=True, env=env, cwd=tmp, timeout=600)
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    (src / f"{SID}.jsonl").write_bytes(b"".join(x + b"\n" for x in lines))  # the agent went on writing
    p = asz_in_process("collect", "--once", "--source", str(src.parent), "--root", str(root), env={"HOME": str(tmp / "home")})
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    return root


def _edit(lines: list[bytes], n: int, **members) -> None:
    o = json.loads(lines[n - 1])
    o.update(members)
    lines[n - 1] = json.dumps(o, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.fixture()
def spotter(corpus_dir) -> list[bytes]:
    lines = (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_bytes().splitlines()
    uuids = [json.loads(x).get("uuid") for x in lines]
    assert [json.loads(x).get("parentUuid") for x in lines[5:8]] == uuids[4:7]  # lines 6, 7, 8 follow 5, 6, 7
    return lines


def _call(root: Path) -> tuple[dict, dict, list[str]]:
    c = asz_in_process("conversation", SID, "--json", "--root", str(root))
    assert c.returncode == 0, c.stderr
    doc = json.loads(c.stdout)
    (node,) = [n for n in walk_nodes(doc) if n.get("kind") == "llm.call" and n.get("requests")]
    u = asz_in_process("usage", "session", "--json", "--root", str(root))
    assert u.returncode == 0, u.stderr
    (row,) = json.loads(u.stdout)
    return node, row, [x for x in u.stderr.splitlines() if "no request id" in x] + [
        x for x in doc["summary"]["problems"] if x.startswith("calls counted from fragments naming no request id")]


def test_fragments_the_chain_ties_to_one_request_join_it(spotter, tmp_path):
    """Line 10 answered under a second request id: lines 5 and 6 (landed with none) are followed by line 7 (the
    first request's) and by nothing of the second, so they are the first request's: two calls, as the source has."""
    lines = list(spotter)
    _edit(lines, 10, requestId=RETRY)
    want = _source_calls(lines)
    assert len(want) == 2
    node, row, marks = _call(_landed(tmp_path, lines))
    assert [(q["request"], q.get("unnamed")) for q in node["requests"]] == [(k[1], None) for k in want]
    for q, u in zip(node["requests"], want.values()):
        assert {k: q["usage"][k] for k in KINDS} == {k: u[s] for k, s in KINDS.items()}
    assert row["calls"] == 2 and marks == []


def test_fragments_the_chain_ties_to_two_requests_are_marked(spotter, tmp_path):
    """Line 7 answered under a second request id, and line 8 (the first request's) also follows line 6 (a fork):
    lines 5 and 6 are followed by both requests, so the records cannot say whose they are. They stay a call of
    their own (three where the source has two), marked in the document and said by asz usage."""
    lines = list(spotter)
    _edit(lines, 7, requestId=RETRY)
    _edit(lines, 8, parentUuid=json.loads(lines[5])["uuid"])
    want = _source_calls(lines)
    assert len(want) == 2
    node, row, marks = _call(_landed(tmp_path, lines))
    got = [(q["request"], q.get("unnamed")) for q in node["requests"]]
    assert sorted(got, key=str) == sorted([("", True), *((k[1], None) for k in want)], key=str)
    assert row["calls"] == 3, row  # as documented: counted apart, and marked
    node_id = node["id"]
    assert len(marks) == 2 and marks[1].endswith(f"{node_id} (2 fragment(s): 1/5, 1/6)"), marks  # the old file's lines 5, 6
    assert marks[0].startswith(f"asz usage: note: {SID[:8]}") and "in 1 call node(s)" in marks[0]
