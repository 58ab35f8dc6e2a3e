"""``asz conversations`` / ``asz ls`` and id prefixes on the real corpus (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

from reading_helpers import asz, asz_json, main_transcripts, source_lines

from asz_core.sessiondata.times import parse_instant

CONTRACT = ("id", "title", "project", "from", "to", "talks", "llm_calls", "usage", "cost", "state")


def _times(source: Path) -> dict[str, list[int]]:
    """Session id -> every line's timestamp (unix ms) in all its source files (main, agent files, sub-agents)."""
    out: dict[str, list[int]] = {}
    for f in source.rglob("*.jsonl"):
        for d in source_lines(f):
            ns = parse_instant(d.get("timestamp")) if d.get("sessionId") else None
            if ns is not None:
                out.setdefault(d["sessionId"], []).append(ns // 1_000_000)
    return out


def test_the_list_holds_every_corpus_conversation_newest_first(corpus_root, corpus_source):
    rows = asz_json("conversations", "--json", "--root", str(corpus_root))
    assert sorted(r["id"] for r in rows) == sorted(main_transcripts(corpus_source))
    for r in rows:
        assert all(k in r for k in CONTRACT), r
        assert r["state"] == "verified"
    times = _times(corpus_source)
    for r in rows:  # first and last activity are the transcripts' own first and last timestamps
        assert (r["from"], r["to"]) == (min(times[r["id"]]), max(times[r["id"]]))
    assert [r["to"] for r in rows] == sorted((r["to"] for r in rows), reverse=True)
    # reader-anchors.md: the corpus holds 543 model calls
    assert sum(r["llm_calls"] for r in rows) == 543


def test_ls_is_the_same_command_and_prints_a_table(corpus_root):
    a = asz("ls", "--root", str(corpus_root)).stdout.splitlines()
    b = asz("conversations", "--root", str(corpus_root)).stdout.splitlines()
    assert a == b
    assert a[0].split()[:3] == ["ID", "TITLE", "PROJECT"] and a[-1] == "11 of 11 conversations"
    assert a[-4].startswith("(+N) in CHANGES: 14 editing tool call(s) in 1 conversation(s)")  # ef958aa1's subagents' edits
    assert a[-3].startswith("! problems in 8463c716 (1): missing companion file tool-results/")  # test_ls_problems.py
    assert a[-2].startswith("LAST ACTIVITY in ")  # the zone of the times, named (trial 12)
    assert len(a) == 16


def test_time_filters_narrow_the_list(corpus_root, corpus_source):
    times = _times(corpus_source)
    # de3b8b19 ran on 2026-01-21 (UTC) only; 8463c716 and 55604662 in February 2026
    rows = asz_json("conversations", "--json", "--root", str(corpus_root), "--since", "2026-01-21T00:00:00Z", "--until", "2026-01-21T23:59:59Z")
    assert [r["id"] for r in rows] == [s for s, t in times.items() if min(t) <= 1769039999000 and max(t) >= 1768953600000]
    assert [r["id"][:8] for r in rows] == ["de3b8b19"]
    since = asz_json("conversations", "--json", "--root", str(corpus_root), "--since", "2026-02-01T00:00:00Z")
    assert sorted(r["id"][:8] for r in since) == ["55604662", "8463c716", "ef958aa1"]
    kiro = asz("conversations", "--json", "--root", str(corpus_root), "--dialect", "kiro", check=False)
    assert kiro.returncode == 1 and json.loads(kiro.stdout) == []  # matched nothing: said, exit 1
    assert len(asz_json("conversations", "--json", "--root", str(corpus_root), "--dialect", "claude-code")) == 11
    bad = asz("ls", "--root", str(corpus_root), "--since", "last tuesday", check=False)
    assert bad.returncode == 2 and "--since" in bad.stderr
    # a dialect no installed adapter speaks is a usage error naming the installed ones, as asz glossary's (trial finding 12)
    assert len(asz_json("conversations", "--json", "--root", str(corpus_root), "--dialect", "claude-code/1")) == 11
    for cmd in (("ls",), ("search", "the")):
        bad = asz(*cmd, "--root", str(corpus_root), "--dialect", "bogus", check=False)
        assert bad.returncode == 2 and bad.stdout == "", bad.stdout
        assert "--dialect" in bad.stderr and "'bogus'" in bad.stderr
        assert "claude-code/1" in bad.stderr and "kiro/1" in bad.stderr


def test_a_unique_prefix_names_a_conversation_and_an_ambiguous_one_lists_its_matches(corpus_root):
    r = str(corpus_root)
    doc = json.loads(asz("conversation", "ef95", "--json", "--root", r).stdout)
    assert doc["conversation"] == "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    amb = asz("conversation", "5", "--root", r, check=False)
    assert amb.returncode == 2
    assert "55604662-cf2a-4331-851a-ec234028f8ca" in amb.stderr and "5c0375b4-57a5-4f26-b12d-d022ee4e51b7" in amb.stderr
    assert asz("show", "5", "x", "--root", r, check=False).returncode == 2
    assert asz("verify", "5", "--root", r, check=False).returncode == 2
    assert asz("parse", "5", "--root", r, check=False).returncode == 2
    ok = asz("verify", "de3b", "--root", r)
    assert "checked 1 session(s)" in ok.stdout
    assert asz("parse", "de3b", "--root", r).stdout.splitlines()[1].startswith("de3b8b19-5bc0-4a2a-934a-1b6806567e25")
    assert asz("conversation", "zz", "--root", r, check=False).returncode == 1


def test_show_takes_every_id_the_document_prints(corpus_root, corpus_source):
    r = str(corpus_root)
    sid = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    doc = json.loads(asz("conversation", sid, "--json", "--root", r).stdout)

    def walk(n):
        yield n
        for c in n.get("children", ()):
            yield from walk(c)

    nodes = [n for t in doc["talks"] for n in walk(t)]
    first_of_kind: dict[str, dict] = {}
    for n in nodes:
        first_of_kind.setdefault(n["id"].split("/", 1)[0], n)
    assert {"talk", "run", "call", "tool"} <= set(first_of_kind)
    for n in first_of_kind.values():
        out = asz("show", sid[:6], n["id"], "--root", r).stdout.splitlines()
        cited = [n["ref"]] if "ref" in n else []
        cited += n.get("refs", [])
        files = {f["seq"]: f["file"] for f in doc["files"] if f["seq"] is not None}
        shown = out[0::2]
        for c in cited:
            assert f"{files[c['seq']]}:{c['row']}" in shown, (n["id"], out)
    # a tool-use id and a record id straight from the source transcript
    lines = source_lines(main_transcripts(corpus_source)[sid])
    tool_use = next(b["id"] for d in lines if d.get("type") == "assistant" for b in d["message"]["content"] if b.get("type") == "tool_use")
    out = asz("show", sid, tool_use, "--root", r).stdout.splitlines()
    assert len(out) == 4 and tool_use in out[1] and tool_use in out[3]  # the call and its result
    first_user = next(d["uuid"] for d in lines if d.get("type") == "user")
    out = asz("show", sid, first_user, "--root", r).stdout.splitlines()
    assert len(out) == 2 and json.loads(out[1])["id"] == first_user


def _first_cwd(path: Path) -> str:
    return next(d["cwd"] for d in source_lines(path) if d.get("cwd"))


def test_project_and_model_filters_narrow_by_what_the_transcripts_recorded(corpus_root, corpus_source):
    r = str(corpus_root)
    rows = asz_json("conversations", "--json", "--root", r, "--project", "SPOTTER")
    expected = sorted(s for s, p in main_transcripts(corpus_source).items() if "spotter" in _first_cwd(p).lower())
    assert sorted(x["id"] for x in rows) == expected and len(expected) == 2
    for x in rows:
        assert x["project"] == _first_cwd(main_transcripts(corpus_source)[x["id"]])
    models = {s: {d["message"]["model"] for d in source_lines(p) if d.get("type") == "assistant" and d["message"].get("model")}
              for s, p in main_transcripts(corpus_source).items()}
    rows = asz_json("conversations", "--json", "--root", r, "--model", "opus-4-6")
    assert sorted(x["id"] for x in rows) == sorted(s for s, m in models.items() if any("opus-4-6" in x for x in m))


def test_a_row_kept_from_an_earlier_list_is_never_shown_once_a_file_changed(corpus_root, tmp_path):
    import os
    import shutil

    root = tmp_path / "root"
    shutil.copytree(corpus_root, root)
    first = {r["id"]: r for r in asz_json("conversations", "--json", "--root", str(root))}
    assert asz_json("conversations", "--json", "--root", str(root)) == sorted(first.values(), key=lambda r: -r["to"])
    sid = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    landed = sorted((root / sid / "streams" / "main").glob("*.sd"))[0]
    os.chmod(landed, 0o644)
    data = bytearray(landed.read_bytes())
    i = data.index(b"hello.sh")
    data[i] = ord("j")  # one byte of a prompt, the file's size unchanged
    landed.write_bytes(bytes(data))
    after = {r["id"]: r for r in asz_json("conversations", "--json", "--root", str(root))}
    assert first[sid]["state"] == "verified" and after[sid]["state"] == "mismatch"
    assert all(after[c]["state"] == "verified" for c in after if c != sid)
