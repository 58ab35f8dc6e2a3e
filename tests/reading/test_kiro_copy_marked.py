"""A Kiro copy that continues a conversation is titled ``(continues ID) TITLE`` as a Claude Code copy is (trial 46b F6).

The mark comes from the continuation link, in every dialect. A Kiro session's title is its own session document's
(2.x: ``<id>.json``; 3.x: ``session.json``), which a copy holds too, so the runtime's title titled the copy and the
mark was never given: ``asz ls`` showed the copy (0 talks, 0 calls, all counted in the original) under the
original's title, a duplicate to the eye. Real input: the Kiro corpus's CLI 2.x session 8e247382 and IDE 3.x session
sess_5e804080, each copied under another id (every byte's old id replaced, as trial 46b made them), collected by the
real ``asz collect``. A copy of render 31 (the title unmarked) still checks; the same bytes said render 32 do not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kiro_copies import writable_kiro_home
from reading_helpers import asz, checks_as_render

V2, COPY2 = "8e247382-c779-440f-b1db-ed9bad1afaee", "bbbbbbbb-0000-4000-8000-000000000046"
V3, COPY3 = "sess_5e804080-466c-4f65-bde9-f6133b7068f6", "sess_cccccccc-0000-4000-8000-000000000046"
IDE = "2f1c0d9e8b7a6f5e"  # the 3.x workspace folder


@pytest.fixture(scope="module")
def landed(corpus_dir: Path, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("kiro_copy_marked")
    home = writable_kiro_home(corpus_dir, base / ".kiro")  # skips when the corpus is absent
    cli = home / "sessions" / "cli"
    for ext in ("json", "jsonl"):
        (cli / f"{COPY2}.{ext}").write_text((cli / f"{V2}.{ext}").read_text(encoding="utf-8").replace(V2, COPY2))
    old, new = home / "sessions" / IDE / V3, home / "sessions" / IDE / COPY3
    new.mkdir()
    for f in old.iterdir():
        (new / f.name).write_text(f.read_text(encoding="utf-8").replace(V3[5:], COPY3[5:]), encoding="utf-8")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(base / "root"))
    return base / "root"


def test_a_kiro_copy_says_what_it_continues_in_every_reader(landed):
    root = str(landed)
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", root).stdout)}
    text = asz("ls", "--root", root).stdout
    for original, copy in ((V2, COPY2), (V3, COPY3)):
        first, then = rows[original], rows[copy]
        assert (then["continues"], then["talks"], then["llm_calls"], first["continues"]) == (original, 0, 0, None)
        assert first["llm_calls"] > 0 and first["title"] and not first["title"].startswith("(continues")
        assert then["title"] == f"(continues {original}) {first['title']}", then["title"]
        table = text.splitlines()[1:5]  # four rows; the ID column: the root's shortest unique names
        (name,) = [x.split()[0] for x in table if original.startswith(x.split()[0])]
        (line,) = [x for x in table if copy.startswith(x.split()[0])]
        assert f"(continues {name})" in line, text
        summary = json.loads(asz("conversation", copy, "--json", "--root", root).stdout)["summary"]
        assert summary["title"] == then["title"]
        md = asz("export", copy, "--format", "md", "--root", root).stdout
        assert md.startswith(f"# (continues {original}) "), md[:200]
    hits = json.loads(asz("search", "Nimble", "--json", "--root", root).stdout)
    assert {(h["conversation"], h["title"]) for h in hits if h["conversation"] == COPY3} <= {(COPY3, rows[COPY3]["title"])}


def test_a_copy_of_render_31_titled_unmarked_still_checks(landed, tmp_path):
    from asz_core.reading.export_render import drawing

    with drawing(31):
        asz("export", COPY2, "--format", "md", "--out", str(tmp_path / "old.md"), "--root", str(landed))
    assert not (tmp_path / "old.md").read_text(encoding="utf-8").startswith("# (continues")
    checks_as_render(tmp_path / "old.md", landed, 31, 32)
