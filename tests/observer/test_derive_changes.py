"""``derive_changes``: the changes/1 record of Claude Code's own Edit/MultiEdit/Write/NotebookEdit results (§3.6; issue 8; trial 3 F17)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asz_adapters_claude.changes import apply_hunks, compute_hunks, derive_changes, relative_path

TOP = ("schema", "id", "captured_by", "session", "stream", "tool", "tool_name", "time", "basis", "root", "policy", "window",
       "outcome", "coverage", "gaps", "overlaps", "changed_files", "changes")
FILE = ("path", "operation", "before", "after", "diff", "attribution", "windows", "additions", "deletions", "hunks")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def in_order(keys, order) -> bool:
    idx = [order.index(k) for k in keys]
    return idx == sorted(idx)


EDITORS = ("Edit", "MultiEdit", "Write", "NotebookEdit")


def corpus_edits(corpus_dir: Path):
    """Every tool_result of an Edit, MultiEdit, Write or NotebookEdit call in the corpus transcripts, with its line."""
    for f in sorted((corpus_dir / "claude-code" / "projects").rglob("*.jsonl")):
        uses: dict[str, tuple[str, dict]] = {}
        for raw in f.read_bytes().split(b"\n"):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            msg = line.get("message") if isinstance(line, dict) else None
            content = msg.get("content") if isinstance(msg, dict) else None
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    uses[block.get("id")] = (block.get("name"), block.get("input"))
                elif block.get("type") == "tool_result" and uses.get(block.get("tool_use_id"), ("",))[0] in EDITORS:
                    name, inp = uses[block["tool_use_id"]]
                    yield f, line, block["tool_use_id"], name, inp


def test_corpus_edits_and_writes(corpus_dir: Path) -> None:
    """Every successful corpus Edit/Write gives a record; additions/deletions equal the structuredPatch's +/- lines."""
    made = skipped = checked = computed = multi = 0
    for f, line, tool_id, name, inp in corpus_edits(corpus_dir):
        tur = line.get("toolUseResult")
        rec = derive_changes(name, tool_id, inp, tur, line.get("cwd", ""), line["sessionId"], "main", line["timestamp"])
        if not isinstance(tur, dict):  # an error string, or a subagent result with no toolUseResult
            assert rec is None, f"{f.name} {tool_id}"
            skipped += 1
            continue
        assert rec is not None, f"{f.name} {tool_id}"
        made += 1
        assert in_order(list(rec), TOP) and rec["schema"] == "changes/1"
        assert (rec["id"], rec["tool"], rec["captured_by"], rec["basis"]) == (tool_id, tool_id, "claude-code", "runtime_reported")
        assert rec["time"] == line["timestamp"] and rec["changed_files"] == 1 and rec["root"] == {"path": line["cwd"]}
        (ch,) = rec["changes"]
        assert in_order(list(ch), FILE) and ch["diff"] == "available"
        cwd = line["cwd"].rstrip("/") + "/"
        assert not ch["path"].startswith(cwd) and "\\" not in ch["path"]
        if tur["filePath"].startswith(cwd):
            assert ch["path"] == tur["filePath"][len(cwd):]
        patch = tur.get("structuredPatch") or []
        if patch:
            plus = sum(1 for h in patch for l in h["lines"] if l.startswith("+"))
            minus = sum(1 for h in patch for l in h["lines"] if l.startswith("-"))
            assert (ch["additions"], ch["deletions"]) == (plus, minus), f"{f.name} {tool_id}"
            assert [h["lines"] for h in ch["hunks"]] == [h["lines"] for h in patch]
            assert [(h["old_start"], h["old_lines"], h["new_start"], h["new_lines"]) for h in ch["hunks"]] == [
                (h["oldStart"], h["oldLines"], h["newStart"], h["newLines"]) for h in patch]
            checked += 1
        else:  # a file created by Write: every line is an addition
            assert name == "Write" and ch["operation"] == "create"
            assert (ch["additions"], ch["deletions"]) == (len(tur["content"].splitlines()), 0)
            computed += 1
        before = tur.get("originalFileContents" if name == "MultiEdit" else "originalFile")
        if isinstance(before, str):
            assert ch["operation"] == "modify" and ch["before"]["sha256"] == sha(before)
            assert ch["before"]["bytes"] == len(before.encode("utf-8"))
        else:
            assert ch["operation"] == "create" and ch["before"] == {"present": False, "bytes": None}
        if name == "Write":
            assert ch["after"]["sha256"] == sha(tur["content"])
        elif name == "MultiEdit":  # the runtime's edits, applied one after the other
            new = before
            for e in tur["edits"]:
                new = new.replace(e["old_string"], e["new_string"]) if e.get("replace_all") else new.replace(e["old_string"], e["new_string"], 1)
            assert ch["after"]["sha256"] == sha(new) and rec["tool_name"] == "MultiEdit", f"{f.name} {tool_id}"
            multi += 1
        elif isinstance(before, str):
            new = before.replace(tur["oldString"], tur["newString"]) if tur.get("replaceAll") else before.replace(tur["oldString"], tur["newString"], 1)
            assert ch["after"]["sha256"] == sha(new), f"{f.name} {tool_id}"
    # 92 results carry a toolUseResult object: 85 with a runtime patch (5 of them MultiEdit), 7 created files diffed
    # here; 20 errors (3 of them MultiEdit rejections) or subagent results
    assert (made, checked, computed, skipped, multi) == (92, 85, 7, 20, 5)


def test_relative_paths_posix_and_windows() -> None:
    """Paths below cwd become relative with forward slashes; Windows compares case-insensitively; others stay whole."""
    assert relative_path("/work/p/src/a.py", "/work/p") == "src/a.py"
    assert relative_path("/work/p/src/a.py", "/work/p/") == "src/a.py"
    assert relative_path("/work/other/a.py", "/work/p") == "/work/other/a.py"
    assert relative_path("/work/pp/a.py", "/work/p") == "/work/pp/a.py"
    assert relative_path("C:\\Users\\Me\\proj\\src\\a.py", "c:\\users\\me\\proj") == "src/a.py"
    assert relative_path("D:\\x\\a.py", "C:\\proj") == "D:/x/a.py"
    assert relative_path("/a/b.txt", "") == "/a/b.txt"


def test_windows_edit_record() -> None:
    """An Edit on Windows: relative forward-slash path, computed after text and its digest."""
    tur = {"filePath": "C:\\proj\\src\\m.py", "oldString": "b", "newString": "B", "originalFile": "a\nb\nc\n", "replaceAll": False,
           "structuredPatch": [{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3, "lines": [" a", "-b", "+B", " c"]}]}
    rec = derive_changes("Edit", "toolu_w", {}, tur, "C:\\proj", "s", "a0123456789abcdef", "2026-01-01T00:00:00Z")
    ch = rec["changes"][0]
    assert rec["stream"] == "a0123456789abcdef" and ch["path"] == "src/m.py"
    assert ch["after"] == {"present": True, "bytes": 6, "sha256": sha("a\nB\nc\n")}
    assert (ch["additions"], ch["deletions"]) == (1, 1)


def test_notebook_edit_and_missing_before() -> None:
    """NotebookEdit reads original_file/updated_file and computes hunks; an Edit without originalFile keeps before unknown."""
    tur = {"notebook_path": "/w/n.ipynb", "original_file": '{"cells": []}\n', "updated_file": '{"cells": [1]}\n'}
    ch = derive_changes("NotebookEdit", "t", {}, tur, "/w", "s", "main", "T")["changes"][0]
    assert ch["path"] == "n.ipynb" and ch["operation"] == "modify" and (ch["additions"], ch["deletions"]) == (1, 1)
    assert ch["hunks"] == [{"old_start": 1, "old_lines": 1, "new_start": 1, "new_lines": 1, "lines": ['-{"cells": []}', '+{"cells": [1]}']}]
    old = {"filePath": "/w/a", "oldString": "x", "newString": "y",
           "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1, "lines": ["-x", "+y"]}]}
    ch = derive_changes("Edit", "t", {}, old, "/w", "s", "main", "T")["changes"][0]
    assert ch["operation"] == "modify" and ch["before"] == ch["after"] == {"present": True, "bytes": None}
    assert (ch["additions"], ch["deletions"]) == (1, 1)


@pytest.mark.parametrize(
    "name, tur",
    [
        ("Edit", "Error: File has not been read yet. Read it first before writing to it."),
        ("Edit", None),
        ("Read", {"filePath": "/w/a", "content": "x"}),
        ("MultiEdit", {"filePath": "/w/a", "structuredPatch": []}),
        ("Edit", {"oldString": "a", "newString": "b"}),
        ("Edit", {"filePath": "/w/a", "structuredPatch": []}),
    ],
)
def test_nothing_to_carry_gives_none(name, tur) -> None:
    """Errors, missing results, other tools, no path, and nothing known about the change give None."""
    assert derive_changes(name, "t", {}, tur, "/w", "s", "main", "T") is None


def test_hunks_round_trip_and_newline_markers() -> None:
    """Computed hunks apply back; '\\ No newline at end of file' lines add or drop the final newline."""
    a, b = "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\nthree\n4\n5\n6\n7\n8\n9\nten\n"
    assert apply_hunks(a, compute_hunks(a, b)) == b
    assert compute_hunks("", "x\ny\n") == [{"old_start": 0, "old_lines": 0, "new_start": 1, "new_lines": 2, "lines": ["+x", "+y"]}]
    add_nl = [{"old_start": 1, "old_lines": 1, "new_start": 1, "new_lines": 1, "lines": ["-b", "\\ No newline at end of file", "+b"]}]
    assert apply_hunks("b", add_nl) == "b\n"
    drop_nl = [{"old_start": 1, "old_lines": 1, "new_start": 1, "new_lines": 1, "lines": ["-b", "+b", "\\ No newline at end of file"]}]
    assert apply_hunks("b\n", drop_nl) == "b"
    assert apply_hunks("x\n", add_nl) is None
    rec = derive_changes("Write", "t", {}, {"type": "update", "filePath": "/w/f", "originalFile": "b", "content": "b\n",
                                            "structuredPatch": [dict(oldStart=1, oldLines=1, newStart=1, newLines=1, lines=add_nl[0]["lines"])]},
                         "/w", "s", "main", "T")
    ch = rec["changes"][0]
    assert ch["before"]["no_newline_at_end"] is True and "no_newline_at_end" not in ch["after"]
    assert (ch["additions"], ch["deletions"]) == (1, 1)


_file = st.lists(st.sampled_from(["a", "b", "c", "", "é", "x y"]), max_size=40).map(lambda ls: "".join(s + "\n" for s in ls))


@settings(max_examples=300, deadline=None)
@given(_file, _file, st.integers(0, 5), st.integers(0, 3))
def test_hunks_apply_back_however_far_the_file_runs_past_them(before, after, context, shift):
    """apply_hunks splits only the lines its hunks can reach and carries the rest whole: computed hunks (one or many,
    anywhere in the file, any context) still give the other side exactly, the same with more lines after them, and a
    hunk moved off its lines does not apply (a removed or context line no longer matches) or applies where it fits."""
    hunks = compute_hunks(before, after, context)
    assert apply_hunks(before, hunks) == after
    tail = "tail 1\ntail 2\n"
    if hunks and hunks[-1]["old_start"] + hunks[-1]["old_lines"] <= before.count("\n"):  # the last hunk ends before EOF
        assert apply_hunks(before + tail, hunks) == after + tail
    if hunks and shift:
        moved = [dict(hunks[0], old_start=hunks[0]["old_start"] + shift)] + hunks[1:]
        got = apply_hunks(before, moved)
        assert got is None or got.count("\n") == after.count("\n")
    assert apply_hunks(before, [dict(h, old_start=10**30) for h in hunks]) is None if hunks else True


def test_a_nul_character_makes_the_diff_binary() -> None:
    """A NUL in the text before, after (U+0000 beside other widths) or in a patch line says ``binary`` with no hunks
    and no counts; the endpoints still count and hash each side's UTF-8."""
    patch = [dict(oldStart=1, oldLines=1, newStart=1, newLines=1, lines=["-a", "+b"])]
    cases = [
        ({"type": "update", "filePath": "/w/f", "originalFile": "a\n", "content": "é\x00\u2028\n"}, "binary"),
        ({"type": "update", "filePath": "/w/f", "originalFile": "\x00a\n", "content": "b\n"}, "binary"),
        ({"type": "update", "filePath": "/w/f", "originalFile": "a\n", "content": "b\n",
          "structuredPatch": [dict(patch[0], lines=["-a", "+b\x00"])]}, "binary"),
        ({"type": "create", "filePath": "/w/f", "content": "\U0001F600\x00"}, "binary"),
        ({"type": "update", "filePath": "/w/f", "originalFile": "a\n", "content": "b\n", "structuredPatch": patch}, "available"),
        ({"type": "update", "filePath": "/w/f", "originalFile": "\\x00 is not a NUL\n", "content": "b\n"}, "available"),
    ]
    for tur, diff in cases:
        ch = derive_changes("Write", "t", {}, tur, "/w", "s", "main", "T")["changes"][0]
        assert ch["diff"] == diff, tur
        if diff == "binary":
            assert (ch["additions"], ch["deletions"], "hunks" in ch) == (None, None, False)
        after = tur["content"].encode("utf-8")
        assert (ch["after"]["bytes"], ch["after"]["sha256"]) == (len(after), hashlib.sha256(after).hexdigest())
    ch = derive_changes("Write", "t", {}, cases[1][0], "/w", "s", "main", "T")["changes"][0]
    assert ch["before"] == {"present": True, "bytes": 3, "sha256": sha("\x00a\n")}
