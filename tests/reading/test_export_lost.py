"""``asz export`` says in place where a text is not in the root: too large to land, or removed by retention (issue 20/21).

Real input: one corpus project collected with the smallest cut budget the configuration allows (1024 bytes), so
the collector takes payloads out of records that do not fit (seed 000, Too large to land), then pruned (seed 000,
Skeletons). Every format (md, html, prose; json is the document, whose nodes carry ``state`` and ``bytes``) must
show ``[too large to land: N bytes, sha256 H]`` / ``[removed by retention: N bytes]`` with the part's own ``bytes``
(and ``sha256``, what was taken out: trial 24b F1).
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import orjson
import pytest

from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files, session_dirs

from reading_helpers import asz_process

pytestmark = pytest.mark.slow  # a collect, a prune and six exports in child processes

PROJECT = "-home-user-sample-project"


def _agent_texts(root: Path, state: str) -> list[tuple[str, int, int, str]]:
    """``(file, row, bytes, sha256)`` of each main-transcript record from ``agent`` whose only part is a text part in ``state``."""
    out = []
    for s in session_dirs(root):
        for ln, path in landed_files(s, skeletons=True):
            if ln.kind != "transcript":
                continue
            for row, rec in SDReader(path, decode="dict"):
                parts = rec.get("parts", ())
                if rec.get("from") == "agent" and len(parts) == 1 and parts[0].get("k") == "text" and parts[0].get("state") == state:
                    out.append((path.relative_to(root).as_posix(), row, parts[0]["bytes"], parts[0].get("sha256", "")))
    return out


def _exports(root: Path, cid: str) -> tuple[str, str, list[dict]]:
    md = asz_process("export", cid, "--root", str(root), "--format", "md").stdout
    page = asz_process("export", cid, "--root", str(root), "--format", "html").stdout
    prose = [orjson.loads(x) for x in asz_process("export", cid, "--root", str(root), "--format", "prose").stdout.splitlines() if x]
    return md, page, prose


@pytest.fixture(scope="module")
def cut_root(corpus_source: Path, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("export-lost")
    shutil.copytree(corpus_source / PROJECT, base / "projects" / PROJECT)
    (base / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: 1024\n")
    asz_process("collect", "--once", "--config", str(base / "asz.yaml"), "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def _check(root: Path, state: str, words: str) -> None:
    lost = _agent_texts(root, state)
    assert lost, f"no assistant text in state {state} in {root}"
    cid = session_dirs(root)[0].name
    md, page, prose = _exports(root, cid)
    turns = {(t["file"], t["row"]): t for t in prose}
    for rel, row, size, sha in lost:
        marker = f"[{words}: {size:,} bytes, sha256 {sha}]" if state == "too_large" else f"[{words}: {size:,} bytes]"
        assert state != "too_large" or len(sha) == 64
        assert marker in md and html.escape(marker) in page
        t = turns[(rel, row)]  # the turn stays in its place, with its role (seed 003: an assistant list)
        assert t["role"] == "assistant" and t["text"] == marker


def test_exports_mark_text_too_large_to_land(cut_root):
    _check(cut_root, "too_large", "too large to land")


def test_exports_mark_text_removed_by_retention(cut_root, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(cut_root, root, symlinks=True)
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz_process("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    assert not list(root.rglob("*.sd"))
    _check(root, "removed", "removed by retention")
    # a part too large to land held nothing to remove: a skeleton keeps it too_large, and the export says so
    _check(root, "too_large", "too large to land")
