"""Seed 003's string/list test decided by the landed record (``asz export --format prose``; docs/reading.md).

A string and a list of one text block both land as one ``text`` part. From ``claude-code-local/0.2.0`` on, the
adapter states such a list of a ``user`` line under the record's ``dropped`` (``what`` ``content list``; an
``assistant`` line is the API message shape, a list: seed 003 §2), so the export gives the same
turns whether the Claude Code transcripts are still there or not (Claude Code deletes them after 30 days). A file an
earlier version landed keeps reading the source line, and says how many it could not check.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest
from reading_helpers import asz, collect_as_claude_0_1, source_lines

from asz_adapters_claude.blocks import CONTENT_LIST_WHAT
from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files, session_dirs


def _one_text_block(content) -> bool:
    return (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str))


def _compact(v) -> int:
    """Size of ``v`` as Claude Code writes JSON (JSON.stringify: no spaces, non-ASCII as is)."""
    return len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def lists_of_one_text_block(source: Path) -> dict[tuple[str, int], tuple[str, int]]:
    """``{(src, ord): (type, wrapper bytes)}`` of every user/assistant line under ``source`` whose message content is a
    list of one text block, read straight from the .jsonl: the wrapper is the list's bytes less the text's string."""
    out = {}
    for path in sorted(source.rglob("*.jsonl")):
        src = path.relative_to(source).as_posix()
        for ord_, raw in enumerate(path.read_bytes().split(b"\n"), 1):
            try:
                d = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            msg = d.get("message") if isinstance(d, dict) else None
            if d.get("type") in ("user", "assistant") and isinstance(msg, dict) and _one_text_block(msg.get("content")):
                c = msg["content"]
                out[(src, ord_)] = (d["type"], _compact(c) - _compact(c[0]["text"]))
    return out


def landed_content_lists(root: Path) -> dict[tuple[str, int], tuple[str, int, list]]:
    """``{(src, ord): (from, bytes, parts kinds)}`` of every landed record that lists a ``content list`` under dropped."""
    out = {}
    for sdir in session_dirs(root):
        for ln, path in landed_files(sdir):
            if ln.kind != "transcript":
                continue
            r = SDReader(path, decode="dict")
            for _, rec in r:
                for d in rec.get("dropped") or ():
                    if d["what"] == CONTENT_LIST_WHAT:
                        out[(r.header.src, rec["ord"])] = (rec["from"], d["bytes"], [p["k"] for p in rec["parts"]])
    return out


def test_each_user_list_of_one_text_block_is_stated_under_dropped(corpus_root, corpus_source):
    every = lists_of_one_text_block(corpus_source)
    want = {k: n for k, (t, n) in every.items() if t == "user"}
    got = landed_content_lists(corpus_root)
    # user lines only: an assistant line is the API shape, a list (seed 003 §2), and its one-block replies say nothing
    assert want and len(want) < len(every)
    assert {k: (v[0], v[1]) for k, v in got.items()} == {k: ("external", n) for k, n in want.items()}
    assert all(kinds == ["text"] for _, _, kinds in got.values())
    # the interrupt notice's list is `[{"type":"text","text":` and `}]` around its text: 25 bytes
    notice = [k for k, (src, o) in zip(want, want) if b"[Request interrupted by user for tool use]\"}]"
              in (corpus_source / src).read_bytes().split(b"\n")[o - 1]]
    assert notice and all(got[k][1] == 25 for k in notice)


def _sessions_with_user_lists(source: Path) -> dict[str, list[tuple[str, str]]]:
    """``{session: [(timestamp, text)]}`` of the main transcripts with user lines of one text block (seed 003 drops them)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(source.glob("*/*.jsonl")):
        for d in source_lines(path):
            if d.get("type") == "user" and _one_text_block(d.get("message", {}).get("content")):
                out.setdefault(path.stem, []).append((d.get("timestamp"), d["message"]["content"][0]["text"]))
    return out


def _copy_sessions(source: Path, dest: Path, sessions) -> None:
    """The sessions' transcripts (``<slug>/<id>.jsonl`` and ``<slug>/<id>/``) copied from ``source`` to ``dest``."""
    for sid in sessions:
        for p in source.glob(f"*/{sid}*"):
            to = dest / p.relative_to(source)
            to.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if p.is_dir() else shutil.copy2)(p, to)


def _prose(root: Path, sid: str, *extra: str):
    p = asz("export", sid, "--format", "prose", "--root", str(root), *extra)
    return p.stdout, p.stderr


def test_prose_is_the_same_with_the_source_folder_present_and_removed(corpus_source, tmp_path):
    lists = _sessions_with_user_lists(corpus_source)
    assert sum(map(len, lists.values())) == sum(1 for k, (t, _) in lists_of_one_text_block(corpus_source).items()
                                                if t == "user" and "/" not in k[0].split("/", 1)[1])
    src, root = tmp_path / "projects", tmp_path / "root"
    _copy_sessions(corpus_source, src, lists)
    asz("collect", "--once", "--source", str(src), "--root", str(root))
    before = {sid: _prose(root, sid, "--source", str(src)) for sid in lists}
    shutil.rmtree(src)
    after = {sid: _prose(root, sid) for sid in lists}
    gone = {sid: _prose(root, sid, "--source", str(src)) for sid in lists}
    assert before == after == gone
    for sid, (out, err) in before.items():
        turns = [json.loads(line) for line in out.splitlines()]
        assert turns and "could not be checked" not in err and "source lines" not in err
        # seed 003 drops each user line of one text block: none is a turn
        assert not [t for t in turns if t["role"] == "user" and (t["ts"], t["text"]) in lists[sid]], sid
    # pruned: a skeleton keeps the header and each record's dropped, so the same turns stand (their text removed)
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    assert not list(root.rglob("*.sd"))
    for sid, (out, _) in before.items():
        pruned = [json.loads(line) for line in _prose(root, sid)[0].splitlines()]
        assert [(t["role"], t["ts"]) for t in pruned] == [(t["role"], t["ts"]) for t in map(json.loads, out.splitlines())]
        assert all(t["text"].startswith("[removed by retention: ") for t in pruned)


def test_a_file_landed_before_keeps_reading_the_source_line(corpus_source, tmp_path):
    sid = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"  # three interrupt notices written as one-text-block lists
    lists = _sessions_with_user_lists(corpus_source)[sid]
    assert len(lists) == 3
    src, root = tmp_path / "projects", tmp_path / "root"
    _copy_sessions(corpus_source, src, [sid])
    collect_as_claude_0_1(src, root)
    assert not landed_content_lists(root)
    out, err = _prose(root, sid, "--source", str(src))
    turns = [json.loads(line) for line in out.splitlines()]
    assert not [t for t in turns if t["role"] == "user" and (t["ts"], t["text"]) in lists]
    assert "content shape of" in err and "read from their source lines" in err
    shutil.rmtree(src)
    out2, err2 = _prose(root, sid, "--source", str(src))
    kept = [json.loads(line) for line in out2.splitlines()]
    # the source gone, each notice is kept as typed text and the count is said (docs/reading.md)
    assert [(t["ts"], t["text"]) for t in kept if t not in turns] == lists
    path = next(corpus_source.glob(f"*/{sid}.jsonl"))
    one_part = [d for d in source_lines(path) if d.get("type") in ("user", "assistant")
                and (isinstance(d["message"]["content"], str) or _one_text_block(d["message"]["content"]))]
    [note] = [ln for ln in err2.splitlines() if "could not be checked" in ln]
    # the transcripts are only not where the export looked: said so, not "gone" (trial 15, F6)
    assert note.startswith(f"{len(one_part)} user/assistant record(s) could not be checked against their source "
                           f"transcripts ({len(one_part)} whose transcript is not under {src}, where this export "
                           "looked (the root does not record the folder they were collected from)), so each was kept "
                           "as typed text")
    assert note.endswith("pass --source DIR where the transcripts now are to check them")


@pytest.mark.parametrize("adapter,shape", [("claude-code-local/0.1.0", None), ("claude-code-local/0.2.0", "string"),
                                           ("claude-code-local/1.0.0", "string"), ("claude-code-local/0.2.0-dev", None),
                                           ("other/9.9.9", None)])
def test_the_rule_by_the_header_adapter_version(adapter, shape):
    rec = {"from": "external", "parts": [{"k": "text", "text": "x", "state": "available", "bytes": 1}]}
    a = ClaudeCodeLocal()
    assert a.content_shape("claude-code/1", adapter, rec) == shape
    listed = {**rec, "dropped": [{"what": CONTENT_LIST_WHAT, "bytes": 25, "why": "w"}]}
    assert a.content_shape("claude-code/1", adapter, listed) == (None if shape is None else "list")
    reply = {**rec, "from": "agent"}  # an assistant line: the API message shape, a list (seed 003 §2)
    assert a.content_shape("claude-code/1", adapter, reply) == (None if shape is None else "list")
    assert a.content_shape("claude-code/1", adapter, {**rec, "from": "runtime"}) is None
