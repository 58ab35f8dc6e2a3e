"""``asz export --brief``: Markdown short enough to hand a model (trial 21, "Exports": the md of the corpus's ef958aa1,
a two-hour conversation, is ~284 KB with 52 raw JSON context blocks; docs/reading.md, "The brief form").

Checked against the source transcripts (the session's file and its six subagents' files): every tool call is one
line, every person's prompt and every reply's text is there whole, no tool result and no injected context is, and
the header and each talk say what was left out. And ``--format json --whole``: the texts the asz.view document clipped
put back whole. Real input collected by ``asz collect --once``."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from reading_helpers import asz

SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
PROJECT = "-experiments-worktrees"


@pytest.fixture(scope="module")
def brief(corpus_source, tmp_path_factory):
    base = tmp_path_factory.mktemp("export-brief")
    shutil.copytree(corpus_source / PROJECT, base / "projects" / PROJECT)
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    files = [corpus_source / PROJECT / f"{SID}.jsonl", *sorted((corpus_source / PROJECT / SID).rglob("*.jsonl"))]
    lines = [json.loads(x) for f in files for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
    return {"md": asz("export", SID, "--brief", "--root", str(root)).stdout, "root": root,
            "full": asz("export", SID, "--format", "md", "--result-limit", "0", "--root", str(root)).stdout,  # whole (49b F2)
            "lines": lines}


def _blocks(lines: list[dict], role: str, kind: str) -> list[dict]:
    return [b for d in lines if d.get("type") == role and isinstance(d["message"]["content"], list)
            for b in d["message"]["content"] if isinstance(b, dict) and b.get("type") == kind]


def test_every_tool_call_is_one_line_with_no_result(brief):
    md, uses = brief["md"], {b["id"]: b for b in _blocks(brief["lines"], "assistant", "tool_use")}
    assert len(uses) == 117
    tool_lines = [x for x in md.splitlines() if x.startswith("- Tool **")]
    assert len(tool_lines) == len(uses)
    assert sum(x.startswith("- Tool **Bash** `git status && git log --oneline -5") for x in tool_lines) == 1
    results = [c for b in _blocks(brief["lines"], "user", "tool_result") for c in (
        [b["content"]] if isinstance(b["content"], str) else [x.get("text", "") for x in b["content"]])]
    said = {b["text"] for b in _blocks(brief["lines"], "assistant", "text")}  # a subagent's report: its last message
    long = [t for t in results if len(t) > 400 and t not in said]
    assert len(long) > 20 and not [t for t in long if t in md]  # no result is drawn
    assert sum(t in brief["full"] for t in long) == len(long)  # the full form draws each


def test_the_persons_words_and_every_reply_are_there_whole(brief):
    md, lines = brief["md"], brief["lines"]
    prompts = [d["message"]["content"] for d in lines if d.get("type") == "user" and not d.get("isMeta")
               and isinstance(d["message"]["content"], str) and not d["message"]["content"].startswith("<")]
    texts = [b["text"] for b in _blocks(lines, "assistant", "text") if b["text"].strip()]
    assert len(prompts) == 8 and len(texts) == 40
    for text in prompts + texts:  # a heading moved down is a heading still: the lines that are no heading are there whole
        assert all(x in md for x in text.splitlines() if x.strip() and not x.lstrip().startswith("#")), text[:80]


def test_injected_context_is_left_out_and_counted(brief):
    md, full = brief["md"], brief["full"]
    assert full.count("**Context**") == 52 and "**Context**" not in md
    assert "deferred_tools_delta" in full and "deferred_tools_delta" not in md
    [head] = [x for x in md.splitlines() if x.startswith("- brief form: ")]
    said = dict((k, (int(n.replace(",", "")), int(b.replace(",", "")))) for n, k, b in
                re.findall(r"([\d,]+) ([a-z ]+?) \(([\d,]+) bytes\)", head))
    assert said["injected context texts"][0] == 52 and said["tool results"][0] == 117  # six of them the lines after a report
    talks = [re.findall(r"([\d,]+) ([a-z ]+?) \(([\d,]+) bytes\)", x) for x in md.splitlines() if x.startswith("*Left out of this talk: ")]
    for kind, (n, b) in said.items():  # the talks' lines add up to the header's
        assert sum(int(x[0].replace(",", "")) for t in talks for x in t if x[1] == kind) == n
        assert sum(int(x[2].replace(",", "")) for t in talks for x in t if x[1] == kind) == b
    assert len(md.encode()) * 4 < len(full.encode())  # 50,425 of 284,535 bytes


def test_brief_is_a_form_of_md_only(brief, tmp_path):
    for args in (("--format", "html"), ("--format", "prose"), ("--audit",)):
        got = asz("export", SID, "--brief", *args, "--root", str(tmp_path), check=False)
        assert got.returncode == 2 and "--brief" in got.stderr


def test_json_whole_puts_back_the_texts_the_document_clipped(brief, tmp_path):
    """``--format json --whole`` (trial 21: the json export cut texts at 2,000 bytes, documented but surprising): each
    tool input and result the document clipped is whole, equal to the source's; the document's other keys stay."""
    root = brief["root"]
    clipped = json.loads(asz("export", SID, "--format", "json", "--root", str(root)).stdout)
    got = asz("export", SID, "--format", "json", "--whole", "--root", str(root))
    whole = json.loads(got.stdout)
    uses = {b["id"]: b["input"] for b in _blocks(brief["lines"], "assistant", "tool_use")}
    results = {b["tool_use_id"]: b["content"] if isinstance(b["content"], str) else "\n".join(
        x.get("text", "") for x in b["content"] if x.get("type") == "text") for b in _blocks(brief["lines"], "user", "tool_result")}

    def nodes(doc):
        todo, out = [*doc["talks"], *(doc.get("loose") or ())], {}
        while todo:
            n = todo.pop()
            out[n["id"]] = n
            todo += n.get("children") or ()
        return out

    before, after = nodes(clipped), nodes(whole)
    assert before.keys() == after.keys()
    put = 0
    for nid, n in before.items():
        for key, size in (("text", "bytes"), ("result", "result_bytes")):
            if isinstance(n.get(key), str) and isinstance(n.get(size), int) and n[size] > len(n[key].encode()):
                text = after[nid][key]
                assert len(text.encode()) == n[size] and text.startswith(n[key]), (nid, key)
                if nid.startswith("tool/") and key == "text":
                    assert json.loads(text) == uses[nid[5:]]
                elif nid.startswith("tool/"):
                    assert text == results[nid[5:]]
                put += 1
        assert {k: v for k, v in after[nid].items() if k not in ("text", "result", "children")} == \
            {k: v for k, v in n.items() if k not in ("text", "result", "children")}
    assert put == 34
    assert f"{SID}: 34 text(s) the asz.view document clipped at 2,000 bytes are whole (--whole)" in got.stderr
    assert f"{SID}: 6 text(s) of the asz.view document are clipped" in got.stderr  # six subagents' prompts (talks)
    assert asz("export", SID, "--whole", "--root", str(root), check=False).returncode == 2
