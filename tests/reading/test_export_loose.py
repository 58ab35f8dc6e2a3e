"""``asz export --format md|html`` draws what the asz.view document has beyond the talks' steps (trial 16b): the
``loose`` nodes in place (a compaction's boundary and summary, injected context before the first talk; F1).
Expected values are read straight from the corpus's source .jsonl files."""

from __future__ import annotations

import html
import re
from pathlib import Path

from reading_helpers import asz, source_lines

from asz_core.reading.export_blocks import nested

#: The corpus session with a compaction: source row 714 is ``system/compact_boundary``, row 715 the
#: ``isCompactSummary`` user message the model continued from.
COMPACTED = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
COMPACTED_SRC = "-home-user-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
#: A session whose row 4 is the caveat Claude Code injects before a local command, under no talk (Talk 1 opens at row 5).
CAVEAT = "a7da6a22-facc-4fcd-8bab-f83c87862004"


def _row(corpus_source: Path, src: str, row: int) -> dict:
    return source_lines(corpus_source / src)[row - 1]


def test_markdown_draws_the_compaction_in_place(corpus_root, corpus_source):
    boundary, summary = _row(corpus_source, COMPACTED_SRC, 714), _row(corpus_source, COMPACTED_SRC, 715)
    assert boundary["subtype"] == "compact_boundary" and summary.get("isCompactSummary") is True
    meta = boundary["compactMetadata"]
    md = asz("export", COMPACTED, "--root", str(corpus_root)).stdout
    label = f"**Context compacted ({meta['trigger']}, {meta['preTokens']:,} tokens before)**"
    assert label == "**Context compacted (auto, 167,731 tokens before)**" and md.count(label) == 1
    text = summary["message"]["content"]
    assert isinstance(text, str) and len(text.encode()) > 2000 and md.count(text) == 1  # whole, not the document's 2,000 bytes
    # in record order: after the step of row 713 (the Edit's result), before the boundary the summary, then row 716 on
    at_boundary, at_summary = md.index(label), md.index("**Summary the model continued from**")
    assert md.index("`summary/1/715`") > at_boundary
    before = md.rfind("**Tool ", 0, at_boundary)
    edit = _row(corpus_source, COMPACTED_SRC, 713)["message"]["content"][0]
    assert edit["type"] == "tool_result" and md[before:at_boundary].count(f"`tool/{edit['tool_use_id']}`") == 1
    assert at_boundary < at_summary < md.index(text) < md.index(_next_said(corpus_source), at_summary)


def _next_said(corpus_source: Path) -> str:
    """The first assistant text after the compaction summary (source rows after 715)."""
    for d in source_lines(corpus_source / COMPACTED_SRC)[715:]:
        if d.get("type") == "assistant":
            texts = [b["text"] for b in d["message"]["content"] if b.get("type") == "text" and b["text"].strip()]
            if texts:
                return texts[0]
    raise AssertionError("no assistant text after row 715")


def test_html_draws_the_compaction_in_place(corpus_root, corpus_source, tmp_path):
    meta = _row(corpus_source, COMPACTED_SRC, 714)["compactMetadata"]
    out = tmp_path / "c.html"
    asz("export", COMPACTED, "--format", "html", "--out", str(out), "--root", str(corpus_root))
    page = out.read_text()
    head = f"Context compacted ({meta['trigger']}, {meta['preTokens']:,} tokens before)"
    assert page.count(html.escape(head)) == 1
    assert page.index('id="boundary/1/714"') < page.index('id="summary/1/715"')
    # its label says it in words, as md (trial 45b F5, render 28): the record's JSON is not drawn under it
    (step,) = re.findall(r'<(?:div|details) class="step other" id="boundary/1/714">.*', page)
    assert step.startswith('<div class="step other" id="boundary/1/714"><div class="meta"><b>') and step.endswith("</div></div>")
    assert '"compact_boundary"' not in page and "compactMetadata" not in page
    assert "Summary the model continued from" in page
    first_line = _row(corpus_source, COMPACTED_SRC, 715)["message"]["content"].split("\n", 1)[0]
    assert html.escape(first_line, quote=False) in page


def test_injected_context_before_the_first_talk_heads_it(corpus_root, corpus_source):
    src = next(p for p in corpus_source.glob(f"*/{CAVEAT}.jsonl"))
    caveat = source_lines(src)[3]
    assert caveat.get("isMeta") is True and caveat["message"]["content"].startswith("Caveat:")
    md = asz("export", CAVEAT, "--root", str(corpus_root)).stdout
    talk1 = md.index("## Talk 1:")
    assert talk1 < md.index("`inject/1/4`") < md.index("`input/1/5`") < md.index("## Talk 2:")  # row 4 before row 5
    assert caveat["message"]["content"] in md


#: A session with six subagents (new layout: ``<session>/subagents/agent-<id>.jsonl``, whose first line is the prompt).
TEAM = "ef958aa1-0e93-49f0-bb71-150f63befcd1"


def test_a_subagents_talk_opens_with_what_it_was_asked(corpus_root, corpus_source, tmp_path):
    agents = sorted(corpus_source.glob(f"*/{TEAM}/subagents/agent-*.jsonl"))
    assert len(agents) == 6
    md = asz("export", TEAM, "--root", str(corpus_root)).stdout
    out = tmp_path / "t.html"
    asz("export", TEAM, "--format", "html", "--out", str(out), "--root", str(corpus_root))
    page = out.read_text()
    long = 0
    for a in agents:
        first = source_lines(a)[0]
        asked = first["message"]["content"]
        assert first["type"] == "user" and isinstance(asked, str)
        long += len(asked.encode()) > 2000  # whole, where the document's prompt stops at 2,000 bytes
        head = md.index(f"`talk/{a.stem.removeprefix('agent-')}`")
        whole = nested(asked)  # its own headings under the talk's (test_export_headings.py), every other byte as written
        assert len(whole) - len(asked) == len(re.findall(r"^#{2,3} ", asked, re.M)) > 0  # one '#' more on each
        assert md.index("**Asked (the prompt this talk was given)**", head) < md.index(whole, head) < md.index("**Assistant**", head)
        at = page.index(f'id="talk/{a.stem.removeprefix("agent-")}"')
        assert page.index("Asked (the prompt this talk was given)", at) < page.index('class="step assistant"', at)
    assert long >= 1
    assert page.count("Asked (the prompt this talk was given)") == 6


def test_a_subagents_output_is_drawn_once_and_named(corpus_root, corpus_source):
    agents = sorted(corpus_source.glob(f"*/{TEAM}/subagents/agent-*.jsonl"))
    md = asz("export", TEAM, "--root", str(corpus_root)).stdout
    for a in agents:
        last = [d for d in source_lines(a) if d.get("type") == "assistant"][-1]
        text = "\n".join(b["text"] for b in last["message"]["content"] if b.get("type") == "text")
        assert text.strip()
        start = md.index(f"`talk/{a.stem.removeprefix('agent-')}`")
        end = md.find("\n## Talk ", start)
        talk = md[start:end if end > 0 else len(md)]
        text = nested(text)  # its headings under the talk's (test_export_headings.py)
        assert talk.count(text) == 1  # the last message; its agent.output names it instead of repeating it
        ao = talk.index(f"`output/{a.stem.removeprefix('agent-')}`")
        assert talk.index(text) < ao and "which its output repeats)*" in talk[ao:ao + 300]


#: A session whose source row 46 is a person's message with a 1 MB PNG ``image`` block and the text ``[Image #1]``.
IMAGED = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"


def test_an_image_a_step_carries_has_its_placeholder_and_html_draws_it(corpus_root, corpus_source, tmp_path):
    import base64
    import hashlib
    import json

    src = next(corpus_source.glob(f"*/{IMAGED}.jsonl"))
    row = source_lines(src)[45]
    image = next(b for b in row["message"]["content"] if b.get("type") == "image")["source"]
    data = image["data"]  # docs/view.md: bytes = the base64 text's length, digest = SHA-256 of the data as landed (a JSON string)
    png = base64.b64decode(data)  # the image file itself (fix32d: its size and digest follow)
    line = (f"[image: {image['media_type']}, {len(data):,} bytes, sha256 {hashlib.sha256(json.dumps(data).encode()).hexdigest()}; "
            f"decoded: {len(png):,} bytes, sha256 {hashlib.sha256(png).hexdigest()}]")
    assert line.startswith("[image: image/png, 1,046,384 bytes, sha256 1f77412e")
    md = asz("export", IMAGED, "--root", str(corpus_root)).stdout
    assert md.count(line) == 1 and md.index("`input/1/46`") < md.index(line) < md.index("`input/1/46`") + 400
    out = tmp_path / "i.html"
    asz("export", IMAGED, "--format", "html", "--out", str(out), "--root", str(corpus_root))
    page = out.read_text()
    assert page.count(html.escape(line)) == 2  # the caption, and the image's alt
    assert page.count(f'<img src="data:image/png;base64,{data}"') == 1


def test_a_runtime_notice_has_a_human_label_and_keeps_its_record(corpus_root, corpus_source, tmp_path):
    src = next(corpus_source.glob(f"*/{TEAM}.jsonl"))
    stops = [d for d in source_lines(src) if d.get("type") == "system" and d.get("subtype") == "stop_hook_summary"]
    recaps = [d for d in source_lines(src) if d.get("type") == "system" and d.get("subtype") == "away_summary"]
    assert len(stops) == 2 and len(recaps) == 2
    md = asz("export", TEAM, "--root", str(corpus_root)).stdout
    assert "**control.notice**" not in md
    at = 0
    for d in stops:  # in record order, each label followed by its record folded in one line (render 16, trial 41c F8)
        label = f"**Runtime notice (stop hooks: {d['hookCount']} ran, {len(d['hookErrors'])} errors)**"
        at = md.index(label, at) + 1
        folded = md[at:].split("\n\n", 2)[1]
        ran = ", ".join(f"`{i['command']}` ({i['durationMs']:,} ms)" for i in d["hookInfos"])  # render 17: its hooks
        assert folded.startswith(f"*Ran {ran}. The runtime's record: ") and "\n" not in folded and d["uuid"] not in md
    for d in recaps:
        assert d["content"][:60] in md[md.index("**Runtime notice (recap: " + d["content"][:60]):]
        assert md.count(json_text(d["content"])) == 1  # whole, in the fenced record
    out = tmp_path / "n.html"
    asz("export", TEAM, "--format", "html", "--out", str(out), "--root", str(corpus_root))
    page = out.read_text()
    assert "<b>control.notice</b>" not in page and page.count("<b>Runtime notice (stop hooks: 1 ran, 0 errors)</b>") == 2


def json_text(s: str) -> str:
    """``s`` as it reads inside an indented JSON string (orjson: quotes and backslashes escaped, non-ASCII as is)."""
    import json

    return json.dumps(s, ensure_ascii=False)[1:-1]


def test_json_export_says_its_texts_are_clipped(corpus_root, corpus_source):
    import json

    summary = _row(corpus_source, COMPACTED_SRC, 715)["message"]["content"]
    p = asz("export", COMPACTED, "--format", "json", "--root", str(corpus_root))
    doc = json.loads(p.stdout)
    node = next(n for n in doc["loose"] if n["id"] == "summary/1/715")
    whole = summary.encode("utf-8")
    assert len(whole) == 12197 and node["bytes"] == len(whole) and node["text"].encode("utf-8") == whole[:2000]  # unchanged

    def walk(nodes):
        for n in nodes:
            yield n
            yield from walk(n.get("children") or ())

    cut = 0
    for n in walk(doc["talks"] + doc["loose"]):
        for key, size in (("text", "bytes"), ("result", "result_bytes")):
            got = len(n.get(key, "").encode("utf-8"))
            cut += 1997 <= got <= 2000 and n.get(size, 0) > got
        cut += sum(1997 <= len(n.get(k, "").encode("utf-8")) <= 2000 for k in ("label", "reply", "prompt") if n["kind"] == "talk")
    assert cut >= 1
    assert (f"asz export: note: {COMPACTED}: {cut:,} text(s) of the asz.view document are clipped at 2,000 bytes "
            "(each node's bytes gives the whole size); --whole puts them back whole; --format md, html or prose give texts "
            "whole") in p.stderr
    cli = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()  # asz export --help (tests/docs: the same)
    assert "json (the asz.view document, whose texts are clipped at 2,000 bytes with bytes giving the whole size" in cli


#: A Claude Code 1.0.x session whose subagents' lines (``isSidechain``) are in the main transcript, no subagents folder.
SIDECHAINS = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
SIDECHAINS_SRC = "-home-user-sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"


def test_an_old_sidechains_talk_opens_with_what_it_was_asked(corpus_root, corpus_source, tmp_path):
    src = source_lines(corpus_source / SIDECHAINS_SRC)
    roots = [(row, d) for row, d in enumerate(src, 1) if d.get("isSidechain") is True and d.get("parentUuid") is None]
    assert [(row, d["type"]) for row, d in roots] == [(16, "user"), (26, "user")]
    md = asz("export", SIDECHAINS, "--root", str(corpus_root)).stdout
    out = tmp_path / "s.html"
    asz("export", SIDECHAINS, "--format", "html", "--out", str(out), "--root", str(corpus_root))
    page = out.read_text()
    for row, d in roots:
        head = md.index(f"`talk/main/{d['uuid']}`")
        said = "**Asked (the prompt this talk was given)** · "
        assert md.index(said, head) < md.index(f"`inject/1/{row}`", head) < md.index(nested(d["message"]["content"]), head)
        assert md.index(nested(d["message"]["content"]), head) < md.index("**Assistant**", head)
        assert f'<div class="step person" id="inject/1/{row}"><div class="meta"><b>Asked (the prompt this talk was given)</b>' in page


def test_an_agent_file_with_no_prompt_line_opens_with_what_its_call_asked(corpus_root, corpus_source, tmp_path):
    agent = source_lines(corpus_source / "-src-deep-manifest" / "agent-c8d9b115.jsonl")
    assert agent[0]["type"] == "assistant"  # Claude Code 2.0.55 wrote no prompt line: only the Task call holds it
    call = next(b for d in source_lines(corpus_source / "-src-deep-manifest" / f"{CAVEAT}.jsonl") if d.get("type") == "assistant"
                for b in d["message"]["content"] if b.get("type") == "tool_use" and b["name"] == "Task"
                and b["input"]["description"] == "Explore ZIP processing implementation")
    md = asz("export", CAVEAT, "--root", str(corpus_root), "--tz", "UTC").stdout
    head = md.index("`talk/c8d9b115`")
    said = f"**Asked (the prompt this talk was given)** · 2025-11-29 15:24:51 · `prompt/tool/{call['id']}`"
    assert md.index(said, head) < md.index(nested(call["input"]["prompt"]), head) < md.index("**Assistant**", head)
    assert md.count(said) == 1
    out = tmp_path / "d.html"
    asz("export", CAVEAT, "--format", "html", "--out", str(out), "--root", str(corpus_root), "--tz", "UTC")
    assert out.read_text().count(f'id="prompt/tool/{call["id"]}"') == 1
