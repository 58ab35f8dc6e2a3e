"""After ``asz prune`` every reader says the conversation was removed by retention (trial 15, F5): ``asz conversation``
and ``asz export`` (md, html) title it ``(removed by retention)`` as ``asz ls`` does, place it ``(removed by
retention)`` instead of "no working directory recorded", and say when and what the skeletons keep; ``asz search``
notes the pruned sessions are not searchable.

Real input: the corpus project -home-user-claude-reliability (one session), collected by ``asz collect --once`` and
pruned by ``asz prune`` (retention ``after: 0``). The expected figures are read from the landed files before the
prune (their count and bytes) and from the skeletons' own headers (``removed.at``).
"""

from __future__ import annotations

import gzip
import shutil

import orjson
import pytest
from reading_helpers import asz

from asz_core.storage.layout import landed_files, session_dirs

PROJECT = "-home-user-claude-reliability"


@pytest.fixture(scope="module")
def pruned(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("pruned")
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, base / "projects" / PROJECT)
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    (sdir,) = session_dirs(root)
    before = [p for _, p in landed_files(sdir)]
    size = sum(p.stat().st_size for p in before)
    (base / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(base / "asz.yaml"))
    skeletons = [p for ln, p in landed_files(sdir, skeletons=True) if ln.ext == "sk"]
    assert len(skeletons) == len(before)
    at = max(orjson.loads(gzip.open(p).readline())["removed"]["at"] for p in skeletons)
    return root, sdir.name, len(before), size, at


def test_conversation_says_it(pruned):
    root, cid, n, size, at = pruned
    out = asz("conversation", cid, "--root", str(root)).stdout.splitlines()
    assert out[0] == f"conversation {cid}: (removed by retention)"
    assert out[1].startswith(f"removed by retention at {at}: {n} of {n} landed file(s) ({size:,} bytes) are skeletons")
    assert out[2].startswith("project (removed by retention), claude-code")
    assert not any("no prompt" in x or "no working directory" in x for x in out)


def test_export_says_it(pruned):
    root, cid, n, size, at = pruned
    md = asz("export", cid, "--root", str(root), "--format", "md").stdout
    assert md.startswith("# (removed by retention)\n")
    assert f"- removed by retention at {at}: {n} of {n} landed file(s) ({size:,} bytes)" in md
    assert "- project (removed by retention), claude-code" in md and "no working directory" not in md
    page = asz("export", cid, "--root", str(root), "--format", "html").stdout
    assert f"removed by retention at {at}: {n} of {n} landed file(s)" in page and "(no prompt)" not in page


def test_search_notes_the_pruned_sessions(pruned):
    root, cid, _, _, _ = pruned
    r = asz("search", "the", "--root", str(root))
    assert r.returncode == 0
    want = (f"1 session(s) in this root were removed by retention (asz prune): their skeletons keep no text, so they "
            f"are not searchable: {cid[:8]}")
    assert f"asz search: note: {want}" in r.stderr.splitlines() and f"! {want}" in r.stdout.splitlines()
