"""After a pass finds sources gone (Claude Code's 30-day clean-up), every reader says which conversations are kept in
this root only (trial 23b, F3: only the cursor files held it). Real input: the corpus's 55604662 transcript and
cb2e607c's (with its sub-agent files) collected, then 55604662's moved away and collected again; the real collect,
sources, ls and conversation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from collect_helpers import asz

GONE = "55604662-cf2a-4331-851a-ec234028f8ca"
KEPT = "cb2e607c-c758-415a-8b45-c49e4631906a"


@pytest.fixture(scope="module")
def gone_root(corpus_dir: Path, tmp_path_factory) -> dict:
    projects, base = corpus_dir / "claude-code" / "projects", tmp_path_factory.mktemp("gone")  # skips with no corpus
    src, root = base / "src", base / "root"
    shutil.copytree(projects / "-home-user-spotter", src / "-p", ignore=shutil.ignore_patterns("8463c716*"))
    shutil.copytree(projects / "-Users-alex-workspace-coderabbit-review-helper", src / "-q")
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 0
    source = src / "-p" / f"{GONE}.jsonl"
    size, lines = source.stat().st_size, len(source.read_bytes().splitlines())
    source.rename(base / "away.jsonl")
    p = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert p.returncode == 0 and " gone=1 " in p.stdout, p.stdout + p.stderr
    return {"src": src, "root": root, "size": size, "lines": lines}


def test_ls_rows_name_the_gone_source(gone_root):
    root = gone_root["root"]
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    assert rows[KEPT]["sources_gone"] == []
    (g,) = rows[GONE]["sources_gone"]
    assert (g["file"], g["kept_lines"], g["kept_bytes"]) == (f"-p/{GONE}.jsonl", gone_root["lines"], gone_root["size"])
    cursor = (root / g["cursor"]).read_text()
    assert f"updated_at      {g['since']}\n" in cursor and "state           source_gone\n" in cursor
    assert rows[GONE]["state"] == "verified"  # what landed still verifies and reads as before
    table = asz("ls", "--root", str(root)).stdout.splitlines()
    assert [x.endswith("verified gone") for x in table if x.startswith("55604662 ")] == [True]
    assert not [x for x in table if x.startswith("cb2e607c ") and "gone" in x]
    assert ("gone: 1 conversation(s) whose sources a collect pass found gone are kept in this root only: 55604662 "
            "(asz sources lists the files; --json: sources_gone)") in table


def test_sources_and_conversation_say_it(gone_root):
    src, root = gone_root["src"], gone_root["root"]
    (g,) = [r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == GONE][0]["sources_gone"]
    since = g["since"].split(".")[0].replace("T", " ") + " UTC"
    said = (f"its source -p/{GONE}.jsonl was found gone at {since}; what landed of it is kept in this root only "
            f"({gone_root['lines']} lines, {gone_root['size']:,} bytes)")
    s = asz("sources", "--source", str(src), "--root", str(root))
    assert s.returncode == 0 and f"gone: {GONE}: {said}" in s.stdout.splitlines()
    js = json.loads(asz("sources", "--json", "--source", str(src), "--root", str(root)).stdout)
    assert js["gone"] == [{"session": GONE, **g}]
    c = asz("conversation", GONE, "--root", str(root))
    assert c.returncode == 0 and f"gone: {said}" in c.stdout.splitlines()
    doc = json.loads(asz("conversation", GONE, "--json", "--root", str(root)).stdout)
    assert doc["summary"]["sources_gone"] == [g]
    assert "sources_gone" not in json.loads(asz("conversation", KEPT, "--json", "--root", str(root)).stdout)["summary"]
