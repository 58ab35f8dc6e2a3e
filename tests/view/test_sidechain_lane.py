"""A sub-agent's lines inside its parent's transcript count in the ``subagent`` lane (trial 31b F5).

Claude Code 1.0.x wrote a sub-agent's lines (``"isSidechain": true``) into the main transcript. From
``claude-code-local/0.8.0`` such a line of the main stream's file lands with the record's ``sidechain`` (docs/adapters/
claude-code.md), and the view counts its calls as the sub-agent's (docs/view.md, ``usage_by_lane``). Real input: the
corpus's 5c0375b4 (22 such lines, 10 calls), every figure counted straight from its source lines. A root landed before
0.8.0 keeps no such fact and reads as it did: every call of the main file in ``main``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from asz_core.sessiondata.codec import decode_record, encode_record, encode_record_py
from asz_core.view.document import build_view, conversation_calls
from cli_helpers import asz_in_process
from document_views import document_view

SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
SRC = Path("-home-user-sample-project") / f"{SID}.jsonl"
COUNTS = {"in": "input_tokens", "out": "output_tokens", "cache_read": "cache_read_input_tokens",
          "cache_write": "cache_creation_input_tokens"}


def _source(corpus_dir: Path) -> list[dict]:
    path = corpus_dir / "claude-code" / "projects" / SRC
    if not path.is_file():
        pytest.skip(f"the corpus file is absent ({path})")
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _usage(lines: list[dict]) -> tuple[dict, int]:
    """The four counts over the assistant lines' calls, one usage a message id (its last line's), and the calls."""
    last: dict[str, dict] = {}
    for d in lines:
        if d.get("type") == "assistant":
            last[d["message"]["id"]] = d["message"]["usage"]
    return {k: sum(u.get(src, 0) for u in last.values()) for k, src in COUNTS.items()}, len(last)


def _collect(corpus_dir: Path, base: Path, *extra: str) -> Path:
    src = base / "src"
    (src / SRC.parent).mkdir(parents=True)
    shutil.copyfile(corpus_dir / "claude-code" / "projects" / SRC, src / SRC)
    root = base / "root"
    p = asz_in_process("collect", "--once", *extra, "--source", str(src), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return root


@pytest.fixture(scope="module")
def landed(corpus_dir, tmp_path_factory) -> Path:
    return _collect(corpus_dir, tmp_path_factory.mktemp("sidechain"))


def _landed_file(root: Path) -> Path:
    (f,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    return f


def test_the_flagged_lines_and_their_calls_counted_from_the_source(corpus_dir):
    src = _source(corpus_dir)
    side = [d for d in src if d.get("isSidechain") is True]
    assert len(src) == 53 and len(side) == 22
    assert sum(d["type"] == "user" for d in side) == 10 and sum(d["type"] == "assistant" for d in side) == 12
    usage, calls = _usage(side)
    assert calls == 10 and usage == {"in": 65, "out": 1626, "cache_read": 133998, "cache_write": 21673}


def test_each_flagged_line_lands_with_sidechain_and_no_other(corpus_dir, landed):
    src = _source(corpus_dir)
    lines = _landed_file(landed).read_bytes().splitlines()
    header, records = json.loads(lines[0]), [json.loads(x) for x in lines[1:-1]]
    assert header["adapter"] == "claude-code-local/0.9.0" and header["stream"] == "main"
    assert [r["ord"] for r in records if r.get("sidechain") is True] == \
        [row for row, d in enumerate(src, 1) if d.get("isSidechain") is True]
    assert all(r.get("sidechain", True) is True for r in records)  # written only when true
    for raw in lines[1:-1]:  # the compiled encoder writes the bytes the Python does, field included
        rec = decode_record(raw)
        assert encode_record(rec) == encode_record_py(rec) == raw


def test_the_sidechain_calls_count_in_the_subagent_lane(corpus_dir, landed):
    src = _source(corpus_dir)
    total, all_calls = _usage(src)
    side, side_calls = _usage([d for d in src if d.get("isSidechain") is True])
    main = {k: total[k] - side[k] for k in COUNTS}
    s = build_view(landed, SID)["summary"]
    lanes = {lane: {k: u[k] for k in COUNTS} for lane, u in s["usage_by_lane"].items()}
    assert {k: s["usage"][k] for k in COUNTS} == total
    assert lanes == {"main": main, "subagent": side}
    assert main["out"] == 3629 - 1626 == 2003 and side["out"] == 1626
    _, calls = conversation_calls(landed, SID)
    assert len(calls) == all_calls == 20
    assert sum(c.lane == "subagent" for c in calls) == side_calls == 10
    p = asz_in_process("conversation", SID, "--root", str(landed))
    assert p.returncode == 0, p.stderr
    assert ("tokens in 129, out 3,629, cache read 324,259, cache write 47,747 (of which subagents: in 65, out 1,626, "
            "cache read 133,998, cache write 21,673)") in p.stdout


def test_the_compiled_and_python_reads_agree(landed):
    v = document_view(landed, SID)
    assert list(v._call_usages(True).items()) == list(v._call_usages(False).items())
    assert sum(c.lane == "subagent" for c in v.call_usage.values()) == 10


def _as_landed_before(path: Path) -> None:
    """Rewrite the landed file as ``claude-code-local/0.7.0`` wrote it: no ``sidechain``, its header's version, its
    closing digest over those bytes (the one difference between the two versions' lines of this source)."""
    lines = path.read_bytes().splitlines(keepends=True)
    body = [lines[0].replace(b"claude-code-local/0.9.0", b"claude-code-local/0.7.0")]
    body += [x.replace(b',"sidechain":true', b"") for x in lines[1:-1]]
    closing = json.loads(lines[-1])
    closing["digest"] = hashlib.sha256(b"".join(body)).hexdigest()
    os.chmod(path, 0o644)
    path.write_bytes(b"".join(body) + json.dumps(closing, separators=(",", ":")).encode() + b"\n")
    os.chmod(path, 0o444)


def test_a_root_landed_before_reads_as_it_did(corpus_dir, tmp_path):
    root = _collect(corpus_dir, tmp_path, "--no-parse")
    _as_landed_before(_landed_file(root))
    assert b"sidechain" not in _landed_file(root).read_bytes()
    p = asz_in_process("parse", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    src = _source(corpus_dir)
    total, _ = _usage(src)
    s = build_view(root, SID)["summary"]
    assert {k: s["usage_by_lane"]["main"][k] for k in COUNTS} == total  # every call in main, as before 0.8.0
    assert not any(s["usage_by_lane"]["subagent"].values())
    out = asz_in_process("conversation", SID, "--root", str(root)).stdout
    assert "tokens in 129, out 3,629, cache read 324,259, cache write 47,747\n" in out
    assert ("landed by claude-code-local/0.7.0 (1 of 1 file(s)), an earlier version than the installed "
            "claude-code-local/0.9.0, which did not keep or read as it does: whether a line of the main transcript was "
            "a sub-agent's (isSidechain, Claude Code 1.0.x): its calls count in the main lane") in out
    v = asz_in_process("verify", "--root", str(root))
    assert v.returncode == 0 and "all landed data is contiguous and matches its digests" in v.stdout


def test_verify_is_clean_on_the_new_root(landed):
    for extra in ((), ("--deep",)):
        v = asz_in_process("verify", *extra, "--root", str(landed))
        assert v.returncode == 0, v.stdout + v.stderr
        assert "all landed data is contiguous and matches its digests" in v.stdout


def test_a_skeleton_keeps_the_lane(corpus_dir, tmp_path):
    """Retention's skeleton keeps each record's ``sidechain`` (its usage stays, and so does the lane it counts in)."""
    from asz_core.sessiondata.skeleton import write_skeleton

    root = _collect(corpus_dir, tmp_path)
    landed = _landed_file(root)
    sk = write_skeleton(landed, at="2026-12-05T21:00:00Z", generation=1, receiver="accepted", owner="dev")
    os.chmod(landed.parent, 0o755)
    landed.unlink()
    kept = [json.loads(x) for x in gzip.decompress(sk.read_bytes()).splitlines()[1:-1]]
    assert [r["ord"] for r in kept if r.get("sidechain") is True] == \
        [row for row, d in enumerate(_source(corpus_dir), 1) if d.get("isSidechain") is True]
    s = build_view(root, SID)["summary"]
    assert s["removed"]["files"] == 1
    assert {k: s["usage_by_lane"]["subagent"][k] for k in COUNTS} == {"in": 65, "out": 1626, "cache_read": 133998,
                                                                       "cache_write": 21673}
