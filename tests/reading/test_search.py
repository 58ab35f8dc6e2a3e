"""``asz search`` and ``GET /api/search`` on the real corpus and the canary session (issue 20)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import orjson
import pytest
from cli_helpers import land_again
from reading_helpers import asz, asz_json, main_transcripts, source_lines

from asz_core.reading.search import INDEX_PATH, MARK_END, MARK_START, fts_query



def first_prompt_phrase(path: Path) -> str:
    """The first six words of the session's first person prompt, as the source transcript holds it.

    The first ``user`` line whose content is text a person typed (a string, or
    text blocks when no block is a tool result), skipping the runtime's
    ``Caveat:`` notices and ``<local-command-…>`` output; of a slash command
    only what the person typed after it (``<command-args>``) counts, and an
    ``<ide_…>`` selection is not part of the prompt.
    """
    for d in source_lines(path):
        if d.get("type") != "user" or d.get("isMeta"):
            continue
        c = d["message"]["content"]
        texts = [c] if isinstance(c, str) else [b.get("text", "") for b in c if b.get("type") == "text"] \
            if not any(b.get("type") == "tool_result" for b in c) else []
        for t in texts:
            if t.startswith(("Caveat:", "<local-command")):
                continue
            if t.startswith("<command-"):
                m = re.search(r"<command-args>(.*?)</command-args>", t, flags=re.S)
                t = m.group(1) if m else ""
            t = re.sub(r"<ide_[a-z_]+>.*?</ide_[a-z_]+>", " ", t, flags=re.S)
            words = t.split()
            if words:
                return " ".join(words[:6])
    raise AssertionError(f"{path}: no person prompt")


def test_every_corpus_conversation_is_found_by_a_phrase_from_its_first_prompt(corpus_root, corpus_source):
    found = 0
    sessions = main_transcripts(corpus_source)
    for sid, path in sessions.items():
        phrase = first_prompt_phrase(path)
        hits = asz_json("search", '"' + phrase.replace('"', " ") + '"', "--json", "--limit", "100", "--root", str(corpus_root))
        mine = [h for h in hits if h["conversation"] == sid]
        assert mine, (sid, phrase, hits[:3])
        h = next((x for x in mine if x["kind"] == "prompt"), mine[0])
        assert MARK_START in h["snippet"] and MARK_END in h["snippet"]
        marked = " ".join(re.findall(f"{MARK_START}(.*?){MARK_END}", h["snippet"]))
        assert marked and set(re.findall(r"\w+", marked.lower())) <= set(re.findall(r"\w+", phrase.lower())), (h["snippet"], phrase)
        assert set(h) >= {"conversation", "title", "step", "at", "snippet", "file", "row"}
        assert h["step"], (sid, phrase, h)
        assert h["at"] > 0 and (corpus_root / h["file"]).is_file() and h["row"] >= 1
        found += 1
    assert found == len(sessions) == 11


def test_a_hit_names_the_landed_record_that_holds_it(corpus_root):
    hits = asz_json("search", '"Write a shell script called hello"', "--json", "--root", str(corpus_root))
    assert [h["conversation"][:8] for h in hits] == ["de3b8b19"]
    h = hits[0]
    shown = asz("show", h["conversation"], h["step"], "--root", str(corpus_root)).stdout.splitlines()
    assert shown[0] == f"{h['file']}:{h['row']}"
    assert "Write a shell script called hello.sh" in shown[1]
    assert h["kind"] == "prompt" and h["step"].startswith("input/") and h["talk"].startswith("talk/")


def test_prefix_kind_and_time_filters(corpus_root):
    r = str(corpus_root)
    pre = asz_json("search", "hel*", "--json", "--limit", "200", "--root", r, "--kind", "prompt")
    assert any("hello" in h["snippet"].lower() for h in pre)
    assert {h["kind"] for h in pre} == {"prompt"}
    # de3b8b19 ran on 2026-01-21 only
    none = asz_json("search", '"called hello"', "--json", "--root", r, "--until", "2026-01-20T00:00:00Z")
    assert none == []
    assert len(asz_json("search", '"called hello"', "--json", "--root", r, "--since", "2026-01-21T00:00:00Z")) == 1
    assert asz("search", "hello", "--kind", "tools", "--root", r, check=False).returncode == 2
    assert asz("search", '" "', "--root", r, check=False).returncode == 2


def test_the_query_language_never_reaches_sqlite_raw():
    # OR, AND, NOT and -word are the query's own (docs/reading.md), written by asz as FTS5 operators; the rest literal
    assert fts_query('hello.sh AND "two words" pre*') == '"hello" "sh" "two words" "pre"*'
    assert fts_query('NEAR(a b) -x ^y "') == '("NEAR" AND "a" AND "b" AND "y") NOT "x"'


def test_the_index_is_derived_data_verify_ignores_it(corpus_root, tmp_path):
    import shutil

    root = tmp_path / "root"
    shutil.copytree(corpus_root, root)
    asz("search", "hello", "--root", str(root))
    db = root / INDEX_PATH
    assert db.is_file()
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM hit").fetchone()[0]
    con.close()
    ok = asz("verify", "--root", str(root))
    assert "all landed data is contiguous" in ok.stdout
    db.write_bytes(b"not a database")  # damage to derived data is not damage to the evidence
    assert asz("verify", "--root", str(root)).returncode == 0
    assert asz("search", "hello", "--reindex", "--root", str(root)).returncode == 0
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM hit").fetchone()[0] == n  # rebuilt from the landed files, the same rows
    con.close()


def test_parse_updates_the_index_and_a_search_after_collect_once_builds_it(tmp_path, corpus_source):
    import shutil

    src = tmp_path / "projects"
    shutil.copytree(corpus_source / "-home-user-claude-reliability", src / "-home-user-claude-reliability")
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert (root / INDEX_PATH).exists()  # collect --once keeps the index after its list rows (trial 49d F2)
    (root / INDEX_PATH).unlink()  # gone (derived data): the next search builds it
    hits = asz_json("search", "hello", "--json", "--root", str(root))  # brought up to date before it answers
    assert hits and all(h["conversation"] == "de3b8b19-5bc0-4a2a-934a-1b6806567e25" for h in hits)
    con = sqlite3.connect(root / INDEX_PATH)
    assert con.execute("SELECT id FROM conv").fetchall() == [("de3b8b19-5bc0-4a2a-934a-1b6806567e25",)]
    con.close()
    (root / INDEX_PATH).unlink()
    assert asz("parse", "--root", str(root)).returncode == 0
    con = sqlite3.connect(root / INDEX_PATH)
    assert con.execute("SELECT id FROM conv").fetchall() == [("de3b8b19-5bc0-4a2a-934a-1b6806567e25",)]
    con.close()
    assert asz_json("search", "hello", "--json", "--root", str(root)) == hits


@pytest.mark.parametrize("via", ["cli", "api"])
def test_withheld_text_is_never_matched_counted_or_snippeted(canary_root, tmp_path, via):
    from view_server_helpers import MARKER, Served, write_config

    cfg = write_config(tmp_path / "asz.yaml", hide=["system_prompt", "tool_schemas"])
    open_hits = asz_json("search", MARKER, "--json", "--root", str(canary_root))
    assert open_hits, "the canary is searchable when nothing is withheld"
    if via == "cli":
        out = asz("search", MARKER, "--json", "--root", str(canary_root), "--config", str(cfg)).stdout
        assert out.strip() == "[]" and MARKER not in out
        table = asz("search", MARKER, "--root", str(canary_root), "--config", str(cfg)).stdout
        assert MARKER not in table and "0 hit(s)" in table
        return
    s = Served(["view", "--root", str(canary_root), "--config", str(cfg)], tmp_path)
    try:
        r = s.get(f"/api/search?q={MARKER}")
        assert r.status == 200 and r.json() == [] and MARKER.encode() not in r.body  # issue 20's Contract: the same list
        r = s.get(f"/api/search?q={MARKER}&held_back=1")
        assert r.status == 200 and r.json() == {"hits": [], "held_back": {"hits": 0, "files": [], "not_searched": []},
                                                 "partial": False, "indexing": 0, "across": 0, "total": 0, "total_capped": False,
                                                 "offset": 0, "limit": 50, "next": None} and MARKER.encode() not in r.body
        ok = s.get("/api/search?q=deploy")
        assert ok.status == 200 and ok.json() and all(MARKER not in h["snippet"] for h in ok.json())
        cli = asz("search", "deploy", "--json", "--root", str(canary_root), "--config", str(cfg)).stdout
        assert [(h["conversation"], h["step"]) for h in ok.json()] == [(h["conversation"], h["step"]) for h in orjson.loads(cli)]
        assert s.get("/api/search?q=deploy&held_back=2").status == 400
        assert s.get("/api/search?q=deploy&limit=0").status == 400
        assert s.get("/api/search").status == 400
        assert s.get("/api/search?q=x&bogus=1").status == 400
    finally:
        s.stop()


def test_hits_carry_the_lists_titles_and_the_filters_narrow_by_conversation(corpus_root):
    r = str(corpus_root)
    titles = {x["id"]: x["title"] for x in asz_json("conversations", "--json", "--root", r)}
    hits = asz_json("search", "the", "--json", "--limit", "200", "--root", r)
    assert len({h["conversation"] for h in hits}) >= 5
    for h in hits:
        assert h["title"] == titles[h["conversation"]]
    spotter = {x["id"] for x in asz_json("conversations", "--json", "--root", r, "--project", "spotter")}
    narrowed = asz_json("search", "the", "--json", "--limit", "200", "--root", r, "--project", "spotter")
    assert narrowed and {h["conversation"] for h in narrowed} <= spotter
    kiro = asz("search", "the", "--json", "--root", r, "--dialect", "kiro", check=False)  # keeps no conversation: exit 1
    assert kiro.returncode == 1 and json.loads(kiro.stdout) == [] and "no conversation matched --dialect kiro" in kiro.stderr


def test_a_record_landed_twice_by_an_interrupted_pass_is_one_hit(tmp_path):
    """Records landed again (same stream, ord, off, sha: an interrupted pass of an older asz, a third-party writer);
    search, like assembly, takes them once."""
    from view_server_helpers import collect_and_parse, write_session

    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s-twice", "timestamp": "2026-11-01T10:00:00Z",
         "cwd": "/w", "message": {"role": "user", "content": "please translate the quarterly zebrafish report"}},
    ]
    src = tmp_path / "projects"
    path = write_session(src, lines)
    root = tmp_path / "root"
    collect_and_parse(src, root)
    [session] = [d.name for d in root.iterdir() if not d.name.startswith("_")]
    land_again(root, session)  # as a pass killed after landing, before its cursor, did before 2026-12-02
    collect_and_parse(src, root)
    landed_twice = asz("verify", "--root", str(root)).stdout
    assert "landed more than once" in landed_twice, landed_twice
    hits = asz_json("search", '"quarterly zebrafish"', "--root", str(root), "--reindex", "--json")
    assert len(hits) == 1 and hits[0]["step"], hits
    assert path.exists()


def test_reading_commands_refuse_a_folder_that_is_no_root_and_write_nothing_into_it(tmp_path):
    (tmp_path / "proj-a").mkdir()
    (tmp_path / "proj-a" / "s.jsonl").write_text("{}\n")
    for args in (["ls"], ["search", "hello"], ["usage"]):
        r = asz(*args, "--root", str(tmp_path), check=False)
        assert r.returncode == 2 and "not a storage root" in r.stderr, (args, r.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["proj-a"]
    r = asz("usage", "--root", str(tmp_path / "typo"), check=False)
    assert r.returncode == 1 and "no storage root" in r.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    assert asz("ls", "--root", str(empty)).returncode == 0
    assert list(empty.iterdir()) == []
    # a receiving root as its first push lands: _received/ made, the session's folder made, nothing in it yet (review44:
    # a reader's asz ls said "not a storage root" there); a root all the same
    receiving = tmp_path / "receiving"
    (receiving / "_received").mkdir(parents=True)
    (receiving / "9f1e2d3c-0000-4000-8000-000000000001").mkdir()
    r = asz("ls", "--json", "--root", str(receiving), check=False)
    assert r.returncode == 0 and json.loads(r.stdout) == [], r.stderr


def test_rows_read_in_worker_processes_are_the_rows_read_in_one(corpus_root, tmp_path):
    # The 11 corpus conversations indexed by two forked workers and by this process alone: the same conversations,
    # titles and hits, each hit on the same landed record with the same text.
    import shutil

    from asz_core.reading.search import update_index

    tables = []
    for jobs in (1, 2):
        root = tmp_path / f"jobs{jobs}"
        shutil.copytree(corpus_root, root)
        for f in (root / INDEX_PATH).parent.glob(INDEX_PATH.name + "*"):
            f.unlink()
        rep = update_index(root, jobs=jobs)
        assert (rep.indexed, rep.removed, rep.unchanged) == (11, 0, 0)
        con = sqlite3.connect(root / INDEX_PATH)
        tables.append((con.execute("SELECT * FROM conv ORDER BY id").fetchall(),
                       con.execute("SELECT h.conversation, h.step, h.talk, h.kind, h.at, h.file, h.row, h.flags, f.text "
                                   "FROM hit h JOIN fts f ON f.rowid = h.rowid ORDER BY h.rowid").fetchall()))
        con.close()
    assert len(tables[0][0]) == 11 and len(tables[0][1]) > 1000
    assert tables[0] == tables[1]


def test_the_count_line_says_how_many_texts_matched(corpus_root):
    """Trial 4, F3: ``5 hit(s) (the first 5)`` told no total; now ``5 of N hit(s)``, N what a limit past it returns."""
    every = asz_json("search", "worktree", "--root", str(corpus_root), "--json", "--limit", "10000")
    n = len(every)
    assert 5 < n < 10000
    last = asz("search", "worktree", "--root", str(corpus_root), "--limit", "5").stdout.splitlines()[-1]
    assert re.fullmatch(rf"5 of {n:,} hit\(s\) in \d+ ms", last), last
    last = asz("search", "worktree", "--root", str(corpus_root), "--limit", str(n)).stdout.splitlines()[-1]
    assert re.fullmatch(rf"{n:,} hit\(s\) in \d+ ms", last), last  # all of them shown: no "of"
    # the filters narrow the count as they narrow the hits
    # (prompt,text: one person's prompt holds the word; sub-agents' asks, kind text, hold it too, trial 16b F6)
    kind = asz_json("search", "worktree", "--root", str(corpus_root), "--json", "--limit", "10000", "--kind", "prompt,text")
    last = asz("search", "worktree", "--root", str(corpus_root), "--limit", "1", "--kind", "prompt,text").stdout.splitlines()[-1]
    assert 1 < len(kind) < n and last.startswith(f"1 of {len(kind):,} hit(s) in "), last
    # --json stays the list it was
    assert isinstance(asz_json("search", "worktree", "--root", str(corpus_root), "--json", "--limit", "5"), list)


def test_past_the_count_limit_the_line_says_more_than(corpus_root, monkeypatch):
    """The count stops at COUNT_LIMIT + 1 texts (10,000 in use; 3 here, so the corpus passes it)."""
    from asz_core.reading import search as s

    assert s.COUNT_LIMIT == 10_000
    monkeypatch.setattr(s, "COUNT_LIMIT", 3)
    last = asz("search", "worktree", "--root", str(corpus_root), "--limit", "2").stdout.splitlines()[-1]
    assert re.fullmatch(r"2 of more than 3 hit\(s\) in \d+ ms", last), last
