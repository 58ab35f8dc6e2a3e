"""A tool result whose structured copy (Claude Code's ``toolUseResult``) and text are both too large to land loses the
copy first, then the text (seed 000, Too large to land: data goes before text), so its part's ``bytes`` is the text's
size and its ``sha256`` the copy's digest, the copy's size in the record's ``dropped``. Every reader pairs each size
with its own object's digest and names which is which (trial 47d F7: the md export wrote ``[too large to land:
3,228,902 bytes, sha256 8f59646b…]``, the text's size beside the 3,273,970-byte copy's digest). Render 39; a copy
drawn by render 38 still checks, and so does a json copy written without the new keys (``export_later``).

Real input: a Claude Code transcript written here (a failed Bash call whose result is over the budget, and a result
of that size whose call never landed), landed by the real collect with the smallest budget the configuration allows
(1,024 bytes). Every size and digest is computed here from the bytes written to the source file.
"""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import checks_as_render, collected_at_budget

SESSION = "47d00000-0000-4000-8000-0000000000f7"
TEXT = "résumé ✓ line of the shell's output\n" * 120  # not ASCII: its UTF-8 size is not its length
OTHER = "an answer to a call that never landed\n" * 80


def _asz(*args: str, base: Path):
    p = asz_in_process(*args, cwd=base, env={"CLAUDE_CONFIG_DIR": str(base / "claude-home")})
    assert p.returncode == 0, p.stdout + p.stderr
    return p


@pytest.fixture(scope="module")
def landed(tmp_path_factory) -> tuple[Path, Path, dict]:
    """The root, the test's folder and, for each result (``toolu_5``, its call landed; ``toolu_9``, never), the sizes
    and digests of its text and structured copy computed from the source line's bytes."""
    base = tmp_path_factory.mktemp("copy-and-text")
    collected_at_budget(base, SESSION, [
        {"tool": "toolu_5", "content": TEXT, "is_error": True,
         "copy": {"stdout": TEXT, "stderr": "", "interrupted": False, "isImage": False}},
        {"tool": "toolu_9", "content": OTHER, "copy": {"stdout": OTHER, "stderr": "", "interrupted": False, "isImage": False}},
    ], call=("Bash", {"command": "cat log"}))
    proj = base / "projects" / "-home-me-x"
    src = {}
    for line in (proj / f"{SESSION}.jsonl").read_bytes().splitlines()[2:]:
        rec = json.loads(line)
        (block,) = rec["message"]["content"]
        text = block["content"].encode("utf-8")
        copy = json.dumps(rec["toolUseResult"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        src[block["tool_use_id"]] = {"uuid": rec["uuid"], "text": len(text), "copy": len(copy),
                                     "copy_sha": hashlib.sha256(copy).hexdigest()}
    return base / "root", base, src


def _said(s: dict) -> str:
    return (f"text {s['text']:,} bytes (its sha256 not recorded); the runtime's structured copy {s['copy']:,} bytes, "
            f"sha256 {s['copy_sha']}")


def _walk(n: dict):
    yield n
    for c in n.get("children") or ():
        yield from _walk(c)


def test_the_record_keeps_the_texts_size_and_the_copys_digest(landed):
    root, _, src = landed
    for tool, s in src.items():
        [rec] = [json.loads(x) for f in root.rglob("*.sd") for x in f.read_bytes().splitlines()
                 if f'"of":"{tool}"'.encode() in x]
        (part,) = rec["parts"]
        assert (part["state"], part["bytes"], part["sha256"]) == ("too_large", s["text"], s["copy_sha"])
        assert [(d["what"], d["bytes"]) for d in rec["dropped"]] == [("data of part 1", s["copy"])]


def test_the_document_and_asz_conversation_pair_each_size_with_its_digest(landed):
    root, base, src = landed
    doc = json.loads(_asz("conversation", SESSION[:8], "--json", "--root", str(root), base=base).stdout)
    tool = next(n for t in doc["talks"] for n in _walk(t) if n.get("kind") == "tool")
    s = src["toolu_5"]
    assert {k: v for k, v in tool.items() if k.startswith("result")} == {
        "result_state": "too_large", "result_bytes": s["text"], "result_sha256": s["copy_sha"], "result_taken": "data",
        "result_taken_bytes": s["copy"], "result_taken_said": f"result too large to land: {_said(s)}"}
    (orphan,) = [e for e in doc["not_drawn"] if e.get("why") == "unresolved"]
    o = src["toolu_9"]
    assert {k: v for k, v in orphan.items() if k.startswith("result")} == {
        "result_state": "too_large", "result_bytes": o["text"], "result_sha256": o["copy_sha"], "result_taken": "data",
        "result_taken_bytes": o["copy"], "result_taken_said": f"result too large to land: {_said(o)}"}
    said = _asz("conversation", SESSION[:8], "--root", str(root), base=base).stdout.splitlines()
    assert f"  tool/toolu_5 (tool): result too large to land: {_said(s)}" in said
    assert f"  record {o['uuid']} (seq 4, row 1; its call never landed): result too large to land: {_said(o)}" in said


def test_every_export_and_asz_show_name_which_is_which(landed):
    root, base, src = landed
    s, o = src["toolu_5"], src["toolu_9"]
    marker, other = f"[too large to land: {_said(s)}]", f"[too large to land: {_said(o)}]"
    md = _asz("export", SESSION[:8], "--root", str(root), "--format", "md", base=base).stdout
    assert f"```\n{marker}\n```" in md and other in md
    page = _asz("export", SESSION[:8], "--root", str(root), "--format", "html", base=base).stdout
    assert html.escape(marker) in page and html.escape(other) in page
    text = _asz("export", SESSION[:8], "--root", str(root), "--format", "text", base=base).stdout
    assert f"| {marker}" in text.splitlines()  # the failed call's error
    shown = _asz("show", SESSION[:8], "toolu_5", "--root", str(root), base=base).stdout.splitlines()
    assert f"part 0 (result): result too large to land: {_said(s)}" in shown


def test_a_render_38_copy_and_a_json_copy_without_the_keys_still_check(landed, tmp_path):
    from asz_core.reading.export_later import as_earlier
    from asz_core.reading.export_render import drawing
    from asz_core.reading.termtext import json_visible
    from asz_core.view.render import to_json

    root, base, src = landed
    s = src["toolu_5"]
    old = tmp_path / "old.md"
    with drawing(38):  # render 38 gave the text's size beside the copy's digest
        _asz("export", SESSION[:8], "--format", "md", "--out", str(old), "--root", str(root), base=base)
    assert f"```\n[too large to land: {s['text']:,} bytes, sha256 {s['copy_sha']}]\n```" in old.read_text(encoding="utf-8")
    checks_as_render(old, root, 38, 39)

    again = _asz("export", SESSION, "--format", "json", "--root", str(root), base=base).stdout.encode()
    doc = json.loads(again)
    for n in [*(n for t in doc["talks"] for n in _walk(t)), *doc["not_drawn"]]:
        for k in ("result_taken", "result_taken_bytes", "result_taken_said"):
            n.pop(k, None)
    copy = json_visible(to_json(doc)) + b"\n"  # an earlier asz's copy: as the json form writes it, without the keys
    made, said = as_earlier(copy, again)
    assert made == copy and len(said) == 1 and "its 2 such result(s) compared as that asz wrote them" in said[0]


def test_the_brief_and_text_forms_say_the_results_own_size(landed, tmp_path):
    """fix48l, fix48b: the brief md said the failed call's result by its marker's size, and the text form its error
    ``179 bytes, whole``, the marker's; from render 48 both say the text's size computed from the source line (not its
    marker's), the error ``too large to land``. A text copy of the render before still checks, as that render drew it."""
    from asz_core.reading.audit_errors import CUT_ERRORS_RENDER
    from asz_core.reading.export_render import drawing

    root, base, src = landed
    s = src["toolu_5"]
    marker = f"[too large to land: {_said(s)}]"
    brief = _asz("export", SESSION[:8], "--root", str(root), "--format", "md", "--brief", base=base).stdout
    assert f"- Tool **Bash** `cat log` · failed · result {s['text']:,} bytes left out" in brief.splitlines()
    text = _asz("export", SESSION[:8], "--root", str(root), "--format", "text", base=base).stdout.splitlines()
    at = text.index(f"| {marker}")
    assert text[at - 1] == f"error: {s['text']:,} bytes, too large to land"
    audit = [json.loads(x) for x in _asz("export", SESSION[:8], "--root", str(root), "--audit", base=base).stdout.splitlines()]
    (call,) = [x for x in audit if x.get("kind") == "tool_call"]
    assert call["error"] == {"text": marker, "bytes": s["text"], "left_out": s["text"], "too_large": True}
    old = tmp_path / "old.txt"
    with drawing(CUT_ERRORS_RENDER - 1):
        _asz("export", SESSION[:8], "--format", "text", "--out", str(old), "--root", str(root), base=base)
    assert f"error: {len(marker.encode()):,} bytes, whole" in old.read_text(encoding="utf-8").splitlines()
    body = json.loads((tmp_path / "old.txt.manifest.json").read_text())
    for render, code in ((CUT_ERRORS_RENDER - 1, 0), (CUT_ERRORS_RENDER, 1)):  # the same bytes said to be the later: the error's size is a changed line
        (tmp_path / "old.txt.manifest.json").write_text(json.dumps({**body, "render": render}))
        p = asz_in_process("verify", "--export", str(old), "--root", str(root), cwd=base,
                           env={"CLAUDE_CONFIG_DIR": str(base / "claude-home")})
        assert p.returncode == code, p.stdout


def test_the_summarys_cut_bytes_are_the_texts_sizes(landed):
    """fix48b: ``summary.cut.bytes`` of results whose structured copy and text both went counts each text's size as
    written, not the copies' (their sizes are each step's ``result_taken_bytes``), as docs/view.md says; both from
    the source lines."""
    root, base, src = landed
    doc = json.loads(_asz("conversation", SESSION[:8], "--json", "--root", str(root), base=base).stdout)
    assert doc["summary"]["cut"]["too_large"] == 2
    assert doc["summary"]["cut"]["bytes"] == src["toolu_5"]["text"] + src["toolu_9"]["text"]
    said = _asz("conversation", SESSION[:8], "--root", str(root), base=base).stdout
    assert f"landed without its text: 2 parts too large to land ({src['toolu_5']['text'] + src['toolu_9']['text']:,} bytes as written)" in said
