"""Records asz could not describe are said by ``asz conversation``'s summary and listed by ``asz export``
(trial finding 8; seed 000: an unknown part's text is the dialect's reason, its bytes are every byte kept).

Real input: a session of the corpus (../shared/corpus/claude-code/projects/-home-user-claude-reliability) with two
lines that are not JSON added after its last line, as an interrupted writer leaves them, collected and parsed by
the real ``asz collect --once``.
"""

from __future__ import annotations

import json
import shutil

import pytest
from reading_helpers import asz

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
BROKEN = [b'{"type":"user","message":{"role":"user","content":"cut sh', b"not json at all"]
REASON = "the record is not valid JSON"  # the Claude Code dialect's reason (seed 000, Unknown parts)


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("undescribed")
    proj = corpus_dir / "claude-code" / "projects" / "-home-user-claude-reliability"
    src = base / "projects" / proj.name
    shutil.copytree(proj, src)
    path = src / f"{SID}.jsonl"
    data = path.read_bytes()
    lines = data.count(b"\n")
    path.write_bytes(data + b"\n".join(BROKEN) + b"\n")
    root = base / "root"
    p = asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    return root, lines


def test_the_summary_counts_and_names_them(root):
    root, lines = root
    out = asz("conversation", SID[:8], "--root", str(root)).stdout.splitlines()
    i = out.index("undescribed 2 record part(s) the dialect could not describe (kept whole; --json lists them under undescribed)")
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    rows = [u["ref"]["row"] for u in doc["undescribed"]]
    assert doc["summary"]["undescribed"] == 2 and len(rows) == 2
    assert out[i + 1:i + 3] == [f"  seq 1 row {row} block 0: {REASON} ({len(b):,} bytes)" for row, b in zip(rows, BROKEN)]


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_export_lists_them(root, fmt):
    root, _ = root
    p = asz("export", SID, "--format", fmt, "--root", str(root))
    assert p.returncode == 0 and "warning" not in p.stderr
    assert "undescribed records: 2 (bytes the dialect could not describe; listed at the end)" in p.stdout
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    for u, b in zip(doc["undescribed"], BROKEN):
        assert f"seq 1 row {u['ref']['row']} block 0 (main): {REASON}, {len(b):,} bytes" in p.stdout
