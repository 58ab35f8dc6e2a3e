"""A tool result whose call never landed, too large to land, is drawn in every export as a joined one is:
``[too large to land: N bytes, sha256 H]``, and the md and html heads say ``landed without its text: …`` as ``asz
conversation`` does (trial 47c F1: md and html drew it ``(no text)``, with no size and no sha256, and their heads
said nothing). Render 35; a copy drawn by render 34 still checks, and so does a json copy written without the new
``not_drawn`` keys (``export_later``).

Real input: the corpus transcript de3b8b19 (its line 5 a Bash call, line 6 that call's result), its call's id changed
on line 5 only (so the result's call is absent), the result grown to 120,000 bytes of the shell's output and its
``toolUseResult`` taken out (so what is taken out first is the text: the part's sha256 is the text's, UTF-8), landed
by the real ``asz collect --once --max-delta-bytes 32768``. Size and digest are computed here from the source line's
bytes; no other source line is over the budget (checked), so the head's count is 1.
"""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path

import pytest

from reading_helpers import asz, checks_as_render

SRC = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
RENAMED = "toolu_renamed_never_answered"
BUDGET = 32768
BIG = "Hello world\n" * 10_000


@pytest.fixture(scope="module")
def landed(corpus_dir: Path, tmp_path_factory) -> tuple[Path, dict]:
    base = tmp_path_factory.mktemp("orphan-cut")
    lines = [json.loads(x) for x in (corpus_dir / SRC).read_text(encoding="utf-8").splitlines()]
    (call,) = [b for b in lines[4]["message"]["content"] if b.get("type") == "tool_use"]
    (result,) = [b for b in lines[5]["message"]["content"] if b.get("type") == "tool_result"]
    assert result["tool_use_id"] == call["id"]
    call["id"] = RENAMED  # the result's call is not in the transcript
    result["content"] = BIG
    del lines[5]["toolUseResult"]
    written = [json.dumps(d) + "\n" for d in lines]
    assert [len(x.encode()) > BUDGET for x in written] == [i == 5 for i in range(len(written))]
    folder = base / "projects" / Path(SRC).parent.name
    folder.mkdir(parents=True)
    (folder / Path(SRC).name).write_text("".join(written), encoding="utf-8")
    asz("collect", "--once", "--max-delta-bytes", str(BUDGET), "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root", {"uuid": lines[5]["uuid"], "of": result["tool_use_id"], "bytes": len(BIG.encode()),
                           "sha256": hashlib.sha256(BIG.encode()).hexdigest(), "at": _landed_at(base / "root", lines[5]["uuid"])}


def _landed_at(root: Path, rid: str) -> tuple[int, int]:
    """``(seq, row)`` of the landed record ``rid``, read from the landed files (the record too large lands in a file
    of its own)."""
    from asz_core.sessiondata import SDReader
    from asz_core.storage.layout import landed_files

    (at,) = [(ln.seq, row) for ln, path in landed_files(root / SID) for row, rec in SDReader(path, decode="dict")
             if rec.get("id") == rid]
    return at


def _marker(src: dict) -> str:
    return f"[too large to land: {src['bytes']:,} bytes, sha256 {src['sha256']}]"


def _head_line(src: dict) -> str:
    return f"landed without its text: 1 part too large to land ({src['bytes']:,} bytes as written)"


def test_md_and_html_draw_the_result_with_its_size_and_sha256_and_say_it_in_the_head(landed):
    root, src = landed
    md = asz("export", SID, "--format", "md", "--root", str(root)).stdout
    head, _, rest = md.partition("\n## ")
    assert f"- {_head_line(src)}" in head.splitlines()
    end = md[md.index("\n## Unresolved\n"):]
    at = end.index(f"record {src['uuid']} (seq {src['at'][0]}, row {src['at'][1]})")
    assert f"- unres/tool_use/{src['of']} (tool_use, open)" in end[:at]
    assert end[at:].split("```\n", 2)[1] == _marker(src) + "\n" and "(no text)" not in md
    page = asz("export", SID, "--format", "html", "--root", str(root)).stdout
    assert html.escape(_head_line(src)) in page[:page.index("<h2")]
    tail = page[page.index('<h2 id="unresolved">'):]
    assert f"<pre>{html.escape(_marker(src))}</pre>" in tail
    # asz conversation says it under its cut line, by the record id asz show takes
    said = asz("conversation", SID[:8], "--root", str(root)).stdout.splitlines()
    at = said.index(_head_line(src))
    assert said[at + 1] == (f"  record {src['uuid']} (seq {src['at'][0]}, row {src['at'][1]}; its call never landed): result too large to land: "
                            f"{src['bytes']:,} bytes, sha256 {src['sha256']}")


def test_json_says_it_in_the_not_drawn_entry_and_a_copy_without_those_keys_still_checks(landed):
    from asz_core.reading.export_later import as_earlier

    root, src = landed
    again = asz("export", SID, "--format", "json", "--root", str(root)).stdout.encode()
    doc = json.loads(again)
    (entry,) = [e for e in doc["not_drawn"] if e.get("why") == "unresolved"]
    assert entry["ref"] == dict(zip(("seq", "row"), src["at"])) and entry["id"] == src["uuid"] and "text" not in entry
    assert (entry["result_state"], entry["result_bytes"], entry["result_sha256"]) == ("too_large", src["bytes"], src["sha256"])
    # an earlier asz's copy: the same document without the keys (written as the json form writes it)
    from asz_core.reading.termtext import json_visible
    from asz_core.view.render import to_json

    for k in ("result_state", "result_bytes", "result_sha256"):
        del entry[k]
    copy = json_visible(to_json(doc)) + b"\n"
    made, said = as_earlier(copy, again)
    assert made == copy and len(said) == 1 and "not_drawn entries have no result_state key" in said[0]


def test_a_render_34_copy_still_checks(landed, tmp_path):
    from asz_core.reading.export_render import drawing

    root, src = landed
    old = tmp_path / "old.md"
    with drawing(34):  # render 34 drew the result (no text) and said nothing in the head
        asz("export", SID, "--format", "md", "--out", str(old), "--root", str(root))
    text = old.read_text(encoding="utf-8")
    assert "```\n(no text)\n```" in text and _head_line(src) not in text and _marker(src) not in text
    checks_as_render(old, root, 34, 35)
