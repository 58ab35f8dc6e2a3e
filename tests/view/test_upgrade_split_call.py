"""A root kept through an upgrade counts each call once (trial 23b, F1 HIGH).

The user's run (trial 23b's splitrun.sh): the real corpus cut at 60 % of each file's lines and collected by
asz at b294176 (claude-code-local 0.1.0, which landed no request id); the whole files put back, as an agent
appending, and collected by this asz (which lands Claude Code's ``requestId`` as the record field ``request``).
A message whose lines lie on both sides of the cut has fragments without a request id and fragments with
one: before the fix the readers took them for two provider calls (546 calls instead of 543). Here the old
code runs from a ``git archive`` of that commit in a child process; the figures are counted from the source
files (one usage per message id + request id, its last line, counted once), never from asz."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import asz_in_process, code_at

OLD = "b294176"  # trial 23b's old1: claude-code-local 0.1.0, before 6a36e09 landed the request id
KINDS = {"in": "input_tokens", "out": "output_tokens", "cache_write": "cache_creation_input_tokens",
         "cache_read": "cache_read_input_tokens"}


def _files(d: Path) -> list[Path]:
    return sorted(p for p in d.rglob("*.jsonl"))


def _assistant(line: bytes) -> tuple | None:
    """``(message id, requestId, usage)`` of an assistant line carrying usage, else None."""
    try:
        o = json.loads(line)
    except ValueError:
        return None
    m = o.get("message") if isinstance(o, dict) and o.get("type") == "assistant" else None
    if not isinstance(m, dict) or not m.get("id") or not m.get("usage"):
        return None
    return m["id"], o.get("requestId"), m["usage"]


def own_count(d: Path) -> dict:
    """The user's count (trial 23b w/count.py): one usage per (message id, requestId), the last line of it in its
    file, a key seen in an earlier file counted once; ``calls`` and the four counts and their ``total``."""
    seen: dict = {}
    for p in sorted(d.rglob("*.jsonl"), key=lambda p: str(p.relative_to(d)).split(os.sep)):
        local = {}
        for line in p.read_bytes().splitlines():
            if (a := _assistant(line)) is not None:
                local[a[:2]] = a[2]
        for k, u in local.items():
            seen.setdefault(k, u)
    out = {"calls": len(seen)} | {k: sum(u.get(s) or 0 for u in seen.values()) for k, s in KINDS.items()}
    out["total"] = sum(out[k] for k in KINDS)
    return out


@pytest.fixture(scope="module")
def upgraded(corpus_dir, tmp_path_factory):
    """``(source dir, root, ids cut)``: the corpus cut at 60 % collected by the old code, then whole by this asz;
    ``ids cut`` the message ids whose lines lie on both sides of a cut."""
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"no Claude Code corpus at {projects}")
    base = tmp_path_factory.mktemp("upgrade")
    src, root = base / "src", base / "root"
    shutil.copytree(projects, src)
    straddle = set()
    for p in _files(src):
        lines = p.read_bytes().splitlines(keepends=True)
        n = max(1, int(len(lines) * 0.6))
        before = {a[0] for x in lines[:n] if (a := _assistant(x))}
        straddle |= before & {a[0] for x in lines[n:] if (a := _assistant(x))}
        p.write_bytes(b"".join(lines[:n]))
    env = {**os.environ, "PYTHONPATH": str(code_at(OLD, base)), "HOME": str(base / "home")}
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(src),
                        "--root", str(root)], capture_output=True, text=True, env=env, cwd=base, timeout=600)
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    shutil.rmtree(src)
    shutil.copytree(projects, src)  # the whole files back, as the agent went on writing
    p = asz_in_process("collect", "--once", "--source", str(src), "--root", str(root), env={"HOME": str(base / "home")})
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    return src, root, straddle


def test_the_old_code_landed_no_request_and_the_new_one_does(upgraded):
    _, root, straddle = upgraded
    assert len(straddle) == 3  # the user's three: msg_01MKH1cc…, msg_01FXMMeJ…, msg_01JevZ46…
    heads, requests = set(), {}
    for sd in root.rglob("*.sd"):
        lines = sd.read_bytes().split(b"\n")
        heads.add(json.loads(lines[0])["adapter"])
        for x in lines[1:]:
            rec = json.loads(x) if x.startswith(b"{") else {}
            if rec.get("call") in straddle and rec.get("usage"):
                requests.setdefault(rec["call"], set()).add(rec.get("request"))
    assert "claude-code-local/0.1.0" in heads and len(heads) == 2
    assert set(requests) == straddle and all(None in r and len(r) == 2 for r in requests.values())


def test_usage_counts_the_sources_calls_once(upgraded):
    src, root, _ = upgraded
    want = own_count(src)
    assert (want["calls"], want["total"]) == (543, 34_986_814)  # the user's own count of the real corpus
    u = asz_in_process("usage", "--json", "--root", str(root), "--tz", "UTC")
    assert u.returncode == 0, u.stderr
    total = json.loads(u.stdout)[-1]["total"]
    assert total["calls"] == want["calls"]
    assert {k: total["usage"][k] for k in KINDS} == {k: want[k] for k in KINDS}


def test_every_row_and_document_counts_its_source(upgraded):
    src, root, _ = upgraded
    rows = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)}
    assert sum(r["llm_calls"] for r in rows.values()) == 543
    spotter = own_count(_one(src, "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"))
    row = rows["55604662-cf2a-4331-851a-ec234028f8ca"]
    assert row["llm_calls"] == spotter["calls"] == 1
    assert {k: row["usage"][k] for k in KINDS} == {k: spotter[k] for k in KINDS}
    c = asz_in_process("conversation", "55604662", "--json", "--root", str(root))
    assert c.returncode == 0, c.stderr
    assert json.loads(c.stdout)["summary"]["llm_calls"] == 1


def _one(src: Path, name: str) -> Path:
    """A directory holding only the source file ``name`` (copied), for :func:`own_count`."""
    (p,) = src.rglob(name)
    d = src.parent / f"only-{name}"
    d.mkdir(exist_ok=True)
    shutil.copy(p, d / name)
    return d
