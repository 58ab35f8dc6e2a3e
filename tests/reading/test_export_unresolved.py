"""Exports say what is unresolved, as the page does (trial 27a F4: ``asz export --format md|html`` dropped a tool result
whose call is not in the transcript without a word, and drew a call with no result as a normal one).

The input is a real corpus transcript, de3b8b19 (its line 5 a Bash call, line 6 that call's result), with the call's
id changed on line 5 only: the call then has no result and the result no call. Every expected value is read from the
transcript's lines."""

from __future__ import annotations

import html
import json
from pathlib import Path

from reading_helpers import asz, planted_root

SRC = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
RENAMED = "toolu_renamed_never_answered"


def _plant(lines: list[dict]) -> None:
    (block,) = [b for b in lines[4]["message"]["content"] if b.get("type") == "tool_use"]
    block["id"] = RENAMED


def _root(corpus_dir: Path, tmp_path: Path) -> tuple[Path, str, str, str]:
    lines = [json.loads(x) for x in (corpus_dir / SRC).read_text().splitlines()]
    (call,) = [b for b in lines[4]["message"]["content"] if b.get("type") == "tool_use"]
    (result,) = [b for b in lines[5]["message"]["content"] if b.get("type") == "tool_result"]
    assert call["name"] == "Bash" and result["tool_use_id"] == call["id"]
    text = result["content"] if isinstance(result["content"], str) else "\n".join(p["text"] for p in result["content"])
    return planted_root(corpus_dir, tmp_path, SRC, _plant), call["id"], text, lines[5]["uuid"]


def test_markdown_says_the_call_with_no_result_and_draws_the_result_with_no_call(corpus_dir, tmp_path):
    root, orphan, text, uuid = _root(corpus_dir, tmp_path)
    assert text.strip()
    md = asz("export", "de3b8b19", "--root", str(root)).stdout
    # the call: its step, then (no result recorded), the page's words
    at = md.index(f"`tool/{RENAMED}`")
    step = md[at:md.index("**", md.index("\n", at) + 1)]
    assert "*(no result recorded)*" in step
    assert "- unresolved: 2 (listed at the end)" in md
    end = md[md.index("\n## Unresolved\n"):]
    assert f"- unres/tool_result/{RENAMED} (tool_result, open): no result landed for this tool use" in end
    assert f"- unres/tool_use/{orphan} (tool_use, open): a result arrived for a request that was never landed" in end
    assert f"record {uuid} (seq 1, row 6)" in end and text in end  # the result, whole, with where it landed
    # every other call got its result: no other step says it has none
    assert md.count("(no result recorded)") == 2  # the step, and the section's note on it


def test_html_says_them_too(corpus_dir, tmp_path):
    root, orphan, text, uuid = _root(corpus_dir, tmp_path)
    out = tmp_path / "c.html"
    asz("export", "de3b8b19", "--format", "html", "--out", str(out), "--root", str(root))
    page = out.read_text()
    at = page.index(f"id=\"tool/{RENAMED}\"")
    assert "<i>(no result recorded)</i>" in page[at:page.index("</details>", at)]
    # counted at the top, as the Markdown head counts them: the call with no result and the result with no call
    assert "<p class=\"meta\">unresolved: 2 (listed at the end)</p>" in page[:page.index("id=\"tool/")]
    end = page[page.index("<h2 id=\"unresolved\">Unresolved</h2>"):]
    assert html.escape(f"unres/tool_use/{orphan} (tool_use, open): a result arrived for a request that was never landed") in end
    assert html.escape(f"unres/tool_result/{RENAMED} (tool_result, open): no result landed for this tool use") in end
    assert html.escape(text) in end


def test_prose_audit_says_the_call_has_no_result(corpus_dir, tmp_path):
    """prose carries no tool block; its audit form gives each call a status: this one ``no_result``, and counts the
    result it leaves out, as it leaves every result out."""
    root, orphan, text, uuid = _root(corpus_dir, tmp_path)
    rows = [json.loads(x) for x in asz("export", "de3b8b19", "--format", "prose", "--audit", "--root", str(root)).stdout.splitlines()]
    calls = [r for r in rows if r.get("kind") == "tool_call"]
    assert [r["status"] for r in calls] == ["ok", "no_result"]
