"""``asz show SESSION STREAM``: a plain stream name (one the document names only as an unresolved entry's ``ref``,
``unres/spawn_of_child/acompact-f46190``) shows that stream's records; a name that is no stream, no id, still exits 1.

Real input: Claude Code session 8463c716 of the corpus with its subagents folder, collected by the real
``asz collect --once``; the truth is the compaction agent's own transcript (one record per line)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reading_helpers import asz, source_lines

PROJECT = "-home-user-spotter"
SESSION = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
STREAM = "acompact-f46190"


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory) -> Path:
    src = corpus_source / PROJECT / SESSION / "subagents" / f"agent-{STREAM}.jsonl"
    if not src.is_file():
        pytest.skip(f"the corpus lacks {src}")
    base = tmp_path_factory.mktemp("show-stream")
    dest = base / "projects" / PROJECT
    dest.mkdir(parents=True)
    shutil.copy(corpus_source / PROJECT / f"{SESSION}.jsonl", dest)
    shutil.copytree(corpus_source / PROJECT / SESSION, dest / SESSION)
    r = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(r))
    return r


def test_a_plain_stream_name_shows_that_streams_records(root, corpus_source):
    doc = json.loads(asz("conversation", SESSION, "--json", "--root", str(root)).stdout)
    assert f"unres/spawn_of_child/{STREAM}" in json.dumps(doc)  # the document names it so
    truth = [d["uuid"] for d in source_lines(corpus_source / PROJECT / SESSION / "subagents" / f"agent-{STREAM}.jsonl")]
    p = asz("show", SESSION, STREAM, "--root", str(root))
    lines = p.stdout.splitlines()
    places, records = lines[0::2], [json.loads(x) for x in lines[1::2]]
    assert all(f"/streams/{STREAM}/" in place for place in places), places
    assert [r["id"] for r in records] == truth and len(truth) == 7


def test_a_name_that_is_no_stream_and_no_id_still_exits_1(root):
    p = asz("show", SESSION, "acompact-000000", "--root", str(root), check=False)
    assert p.returncode == 1 and not p.stdout and "no landed record" in p.stderr
