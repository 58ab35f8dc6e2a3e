"""``asz push``'s token metrics count every call ``asz usage`` counts (trial 2, finding 14: a conversation pushed alone
sent ``metrics=0`` while ``asz usage`` counted its one call).

Current Claude Code writes ``stop_reason: null`` on every line of most calls; such a call is never "finished", and
the metrics counted finished calls only. The oracle is the rule of ../shared/spec/reader-anchors.md applied to the
source transcripts: one usage per (``message.id``, ``requestId``), from its last line in file order. Its corpus totals
are printed there: input 14,923, output 163,933, cache write 1,364,531, cache read 33,443,427.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from anchors import anchor_usage
from export_helpers import asz, capture, summary  # noqa: F401 - capture: a fixture

SPOTTER = "-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
LOG_SAMPLE = "-Users-alex-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"


def spec_usage(lines: list[str]) -> dict[str, int]:
    """Tokens per metric type of transcript ``lines`` by the reader-anchors rule (last line of each message id)."""
    tokens, _ = anchor_usage(lines)
    return {"input": tokens["in"], "output": tokens["out"], "cacheCreation": tokens["cache_write"],
            "cacheRead": tokens["cache_read"]}


def _collect(src: Path, root: Path, tmp: Path) -> None:
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp, env={"CLAUDE_CONFIG_DIR": str(tmp / "claude")},
            child=True)
    assert p.returncode == 0, p.stdout + p.stderr


def _push(root: Path, endpoint: str, tmp: Path) -> dict[str, str]:
    p = asz("push", "--root", str(root), "--endpoint", endpoint, cwd=tmp)
    assert p.returncode == 0, p.stdout + p.stderr
    return summary(p.stdout.strip().splitlines()[-1])


def test_a_conversation_pushed_alone_sends_its_one_call(corpus_dir, tmp_path):
    """The trial's case: one call, no stop reason on any of its five lines; pushed to asz receive on loopback."""
    from asz_core.export.receive import Receiver

    source = corpus_dir / "claude-code" / "projects" / SPOTTER
    src = tmp_path / "projects" / SPOTTER
    src.parent.mkdir(parents=True)
    shutil.copy(source, src)
    _collect(tmp_path / "projects", tmp_path / "root", tmp_path)
    r = Receiver(tmp_path / "received", "127.0.0.1:0").start().serve_in_thread()
    try:
        first = _push(tmp_path / "root", f"grpc://{r.address}", tmp_path)
        again = _push(tmp_path / "root", f"grpc://{r.address}", tmp_path)
    finally:
        r.stop()
    want = spec_usage(source.read_text(encoding="utf-8").splitlines())
    assert want == {"input": 3, "output": 13, "cacheCreation": 13835, "cacheRead": 11515}
    assert first["metrics"] == "4" and again["metrics"] == "0"  # one point per type, all in the call's minute; once


def test_the_corpus_s_metrics_add_up_to_the_spec_s_token_totals(corpus_copy, capture, tmp_path):
    root = corpus_copy(tmp_path / "root")
    assert int(_push(root, capture.endpoint, tmp_path)["metrics"]) > 0
    assert capture.totals() == {"input": 14_923, "output": 163_933, "cacheCreation": 1_364_531, "cacheRead": 33_443_427}
    assert _push(root, capture.endpoint, tmp_path)["metrics"] == "0"


def test_a_call_that_grows_after_a_push_sends_what_it_grew_by(corpus_dir, capture, tmp_path):
    """The source cut after the first line of a call whose later lines carry more output, pushed; then the rest
    appended (the bytes of the real file), collected and pushed again: each push sends what its prefix adds."""
    source = corpus_dir / "claude-code" / "projects" / LOG_SAMPLE
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    first_seen: dict[str, int] = {}
    cut = None
    for i, ln in enumerate(lines):
        d = json.loads(ln)
        if d.get("type") != "assistant":
            continue
        m = d["message"]
        out = (m.get("usage") or {}).get("output_tokens")
        if m["id"] in first_seen and out != first_seen[m["id"]]:
            cut = next(j for j in range(i) if json.loads(lines[j]).get("message", {}).get("id") == m["id"]) + 1
            break
        first_seen.setdefault(m["id"], out)
    assert cut is not None, "the corpus's claude-code-log session has a call whose usage grows"
    src = tmp_path / "projects" / LOG_SAMPLE
    src.parent.mkdir(parents=True)
    src.write_text("".join(lines[:cut]), encoding="utf-8")
    root = tmp_path / "root"
    _collect(tmp_path / "projects", root, tmp_path)
    _push(root, capture.endpoint, tmp_path)
    assert capture.totals() == spec_usage(lines[:cut])
    with open(src, "a", encoding="utf-8") as f:
        f.write("".join(lines[cut:]))
    _collect(tmp_path / "projects", root, tmp_path)
    _push(root, capture.endpoint, tmp_path)
    assert capture.totals() == spec_usage(lines) != spec_usage(lines[:cut])


HELD = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def test_a_conversation_that_does_not_verify_sends_no_metrics_and_is_named(corpus_dir, corpus_copy, capture, tmp_path):
    """One output count of a landed transcript changed in place (closing digest left as it was): its conversation's
    points are held back, the rest of the corpus adds up to the spec's totals without that session's source files,
    and stderr names it; sent.json is not written for it, so the next pass holds it back again."""
    import os
    import stat

    root = corpus_copy(tmp_path / "root")
    [path] = [p for p in sorted((root / HELD / "streams" / "main").glob("transcript-*.sd")) if b'"out":4658' in p.read_bytes()]
    data = path.read_bytes()
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(b'"out":4658', b'"out":9999'))
    os.chmod(path, stat.S_IRUSR)
    projects = corpus_dir / "claude-code" / "projects"
    lines = [ln for f in sorted(projects.rglob("*.jsonl")) if HELD in str(f) for ln in f.read_text(encoding="utf-8").splitlines()]
    held = spec_usage(lines)
    assert held["output"] > 0
    full = {"input": 14_923, "output": 163_933, "cacheCreation": 1_364_531, "cacheRead": 33_443_427}
    for _ in range(2):
        p = asz("push", "--root", str(root), "--endpoint", capture.endpoint, cwd=tmp_path)
        # its files are held back too (test_push_unverified.py): exit 1, the session named
        assert p.returncode == 1 and f"error: {HELD}: does not verify (" in p.stderr, p.stdout + p.stderr
        assert (f"note: the metrics of 1 conversation(s) held back, none of their points sent: they do not verify "
                f"({HELD[:8]} mismatch; asz verify names the problems)") in p.stderr.splitlines()
        assert capture.totals() == {k: full[k] - held[k] for k in full}
    assert not list((root / HELD / "metrics").glob("sent*.json"))  # per endpoint since trial 19 F23
