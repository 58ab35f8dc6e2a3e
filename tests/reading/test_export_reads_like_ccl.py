"""The md and html exports read like claude-code-log's (trial 41c F3, F4, F6, F7, F8; render 16, docs/reading.md).

F3: a prompt or reply ending inside an unclosed code fence turned the rest of an md export into one code block in a
CommonMark reader; every ``## Talk`` heading and every step's header line must survive, rendered here by markdown-it-py
(the reader GitHub's is built like). F4: each model call's tokens at its step, checked against the last usage each
message id's lines carry in the source transcript (a streamed call writes a growing snapshot on every line). F6: the
thinking blocks left out without ``--thinking`` are counted in the head and on stderr, against the source's count. F7:
the html's sub-agent call links its talk and back. F8: a stop hook's summary record reads as one md line.

Real input: the corpus's 55604662 (two talks, a streamed call, readable thinking) with an unclosed fence planted at
the end of its first prompt and of its first reply, and the collected corpus for the sub-agent and stop hook cases."""

from __future__ import annotations

import json
import re
from html import escape

import pytest
from markdown_it import MarkdownIt

from cli_helpers import asz_in_process
from reading_helpers import as_copy, main_transcripts, planted_root, source_lines

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
TRANSCRIPT = f"claude-code/projects/-home-user-spotter/{SID}.jsonl"
PROMPT_TAIL = "\n```python\nprint('left open')"
REPLY_TAIL = "\n````\nstill open, four ticks"


def _plant(lines: list[dict]) -> None:
    prompt = next(o for o in lines if o.get("type") == "user" and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] += PROMPT_TAIL
    reply = next(b for o in lines if o.get("type") == "assistant" for b in o["message"]["content"] if b.get("type") == "text")
    reply["text"] += REPLY_TAIL


@pytest.fixture(scope="module")
def planted(corpus_dir, tmp_path_factory):
    if not (corpus_dir / TRANSCRIPT).is_file():
        pytest.skip(f"the corpus lacks {TRANSCRIPT}")
    base = tmp_path_factory.mktemp("reads-like-ccl")
    return planted_root(corpus_dir, base, TRANSCRIPT, _plant), base / "projects" / "-home-user-spotter" / f"{SID}.jsonl"


def _export(root, cid: str, fmt: str, *more: str):
    p = asz_in_process("export", cid, "--format", fmt, "--root", str(root), *more)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def _survives(md_text: str) -> tuple[int, list[str]]:
    """``(talk headings rendered as <h2>, step ids of header lines NOT rendered as inline code)`` of an md export."""
    md = MarkdownIt("commonmark").enable("table")
    html = md.render(md_text)
    talks = re.findall(r"^## (Talk \d+: .*)$", md_text, re.M)
    tokens = md.parse(md_text)
    h2 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert [h for h in h2 if h.startswith("Talk ")] == talks
    heads = re.findall(r"^\*\*[^*\n]+\*\*.* · `([^`\n]+)`$", md_text, re.M)
    return len(talks), [i for i in heads if f"<code>{escape(i, quote=False)}</code>" not in html]


def test_an_open_fence_leaks_into_nothing_after_it(planted, corpus_root, corpus_source, tmp_path):
    root, _ = planted
    text = _export(root, SID[:8], "md").stdout
    assert PROMPT_TAIL in text and REPLY_TAIL in text  # the texts as written, a closing fence after each
    talks, lost = _survives(text)
    assert talks == 1 and not lost  # its interrupt notice is in the talk it interrupted (trial 43c F1)
    html = MarkdownIt("commonmark").render(text)
    # what follows the open fences is drawn as itself: the reply's header, and the interrupt notice's after the reply, labelled what it is (render 21)
    assert "<h2>Talk 1" in html and "<strong>Assistant</strong>" in html and "<strong>Interrupted by the person</strong>" in html
    # the collected corpus, every conversation: headings and step headers survive
    out = tmp_path / "all"
    p = asz_in_process("export", "--since", "2000-01-01", "--format", "md", "--root", str(corpus_root), "--out", f"{out}/")
    assert p.returncode == 0, p.stdout + p.stderr
    copies = sorted(out.glob("*-*-*.md"))
    listed = json.loads(asz_in_process("ls", "--json", "--root", str(corpus_root)).stdout)
    assert len(copies) == len(listed) > 1  # every conversation of the corpus
    for copy in copies:
        talks, lost = _survives(copy.read_text())
        assert talks >= 1 and not lost, copy.name
    # trial 43c F8: the thinking left out is one note for the folder, not one a conversation; counted from the source
    per_copy = [int(m.group(1).replace(",", "")) for c in copies
                for m in [re.search(r"^- ([\d,]+) thinking block\(s\) left out", c.read_text(), re.M)] if m]
    thoughts = sum(1 for f in sorted(corpus_source.rglob("*.jsonl")) for d in source_lines(f) if d.get("type") == "assistant"
                   for b in d["message"]["content"] if isinstance(b, dict) and b.get("type") == "thinking" and b.get("thinking"))
    notes = [x for x in p.stderr.splitlines() if "thinking block(s) left out" in x]
    assert thoughts and len(per_copy) > 1 and notes == [
        f"asz export: note: {len(per_copy)} of {len(copies)} conversation(s): {thoughts:,} thinking block(s) left out "
        "(--thinking shows them)"], p.stderr


def _calls_from_source(path) -> dict[str, dict]:
    """Each assistant message id -> the usage of its LAST line in the file (the final snapshot) and its model."""
    out: dict[str, dict] = {}
    for d in source_lines(path):
        m = d.get("message") if d.get("type") == "assistant" else None
        if isinstance(m, dict) and isinstance(m.get("usage"), dict) and m.get("id"):
            out[m["id"]] = {"usage": m["usage"], "model": m.get("model")}
    return out


def test_each_call_shows_its_tokens_and_the_thinking_left_out(planted):
    root, source = planted
    calls = _calls_from_source(source)
    assert calls
    md = _export(root, SID[:8], "md")
    html = _export(root, SID[:8], "html").stdout
    for mid, c in calls.items():
        u = c["usage"]
        said = (f"Model call {c['model']} · tokens in {u['input_tokens']:,} · out {u['output_tokens']:,} · cache read "
                f"{u['cache_read_input_tokens']:,} · cache write {u['cache_creation_input_tokens']:,}")
        line = next(x for x in md.stdout.splitlines() if x.startswith(f"*{said}"))
        assert line.endswith(f"* · `call/{mid}`") and (" · cost $" in line or " · cost <$0.01" in line)
        assert escape(said) in html and f'id="call/{mid}"' in html
    assert md.stdout.count("*Model call ") == len(calls)
    thoughts = sum(1 for d in source_lines(source) if d.get("type") == "assistant"
                   for b in d["message"]["content"] if b.get("type") == "thinking" and b.get("thinking"))
    assert thoughts
    said = f"{thoughts} thinking block(s) left out (--thinking shows them)"
    assert f"\n- {said}\n" in md.stdout and md.stderr.count(said) == 1 and f'<p class="meta">{said}</p>' in html
    shown = _export(root, SID[:8], "md", "--thinking")
    assert "left out (--thinking" not in shown.stdout + shown.stderr


def test_a_pruned_roots_thinking_is_said_removed_not_shown_by_thinking(planted, tmp_path):
    """close41: after asz prune the head said the thinking blocks were left out and that --thinking shows them; it
    shows only the removal mark. Every thinking block of the source (with a text or not: retention makes each state
    removed) is counted as removed, in the head, on stderr, and --thinking draws that many marks, no text."""
    import shutil

    root, source = planted
    pruned = tmp_path / "root"
    shutil.copytree(root, pruned)
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    p = asz_in_process("prune", "--root", str(pruned), "--config", str(tmp_path / "asz.yaml"))
    assert p.returncode == 0 and f"removed {SID}" in p.stdout, p.stdout + p.stderr
    blocks = [b for d in source_lines(source) if d.get("type") == "assistant"
              for b in d["message"]["content"] if b.get("type") == "thinking"]
    assert blocks
    said = f"{len(blocks)} thinking block(s) left out, removed by retention (--thinking shows only a mark where each was)"
    md, html = _export(pruned, SID[:8], "md"), _export(pruned, SID[:8], "html").stdout
    assert f"\n- {said}\n" in md.stdout and md.stderr.count(said) == 1 and f'<p class="meta">{said}</p>' in html
    assert "--thinking shows them" not in md.stdout + md.stderr + html
    shown = _export(pruned, SID[:8], "md", "--thinking").stdout
    marks = re.findall(r"^\*\*Thinking\*\* · [^\n]*\n\n```\n\[removed by retention: [\d,]+ bytes\]\n```$", shown, re.M)
    assert len(marks) == shown.count("**Thinking**") == len(blocks), shown.count("**Thinking**")
    assert not any(b["thinking"] and b["thinking"][:40] in shown for b in blocks)


def test_sub_agent_links_and_one_line_stop_hooks(corpus_root, corpus_source, tmp_path):
    sid = "cb2e607c-c758-415a-8b45-c49e4631906a"
    path = main_transcripts(corpus_source).get(sid)
    if path is None:
        pytest.skip(f"the corpus lacks {sid}")
    spawns = [b for d in source_lines(path) if d.get("type") == "assistant" for b in d["message"]["content"]
              if b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent")]
    assert len(spawns) == 1
    html = _export(corpus_root, sid[:8], "html").stdout
    link = re.search(r'<p class="meta sub">sub-agent: <a href="#([^"]+)">Talk (\d+):', html)
    back = re.search(r'<p class="meta">called by <a href="#([^"]+)">([^,<]+), in Talk (\d+)</a></p>', html)
    assert link and back
    assert f'<h2 id="{link.group(1)}">Talk {link.group(2)}:' in html  # the talk it names, as the talk list links it
    assert back.group(1) == f"tool/{spawns[0]['id']}" and back.group(2) == spawns[0]["name"]
    assert f'id="tool/{spawns[0]["id"]}"' in html
    # a stop hook summary: ef958aa1's, counted from its transcript, each one md line
    hooks_sid = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    hooks = [d for d in source_lines(main_transcripts(corpus_source)[hooks_sid]) if d.get("subtype") == "stop_hook_summary"]
    assert hooks
    md = _export(corpus_root, hooks_sid[:8], "md").stdout
    assert '"subtype": "stop_hook_summary"' not in md
    # each one's hooks' commands and run times as the source line gives them, as claude-code-log shows a hook (render 17)
    ran = [", ".join(f"`{i['command']}` ({i['durationMs']:,} ms)" for i in d["hookInfos"]) for d in hooks]
    folded = re.findall(r"^\*Ran (.+)\. The runtime's record: [\d,]+ bytes of JSON, folded: in [^*]+; whole in the json export\*$", md, re.M)
    assert folded == ran and "`\"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd\" actor idle` (102 ms)" in folded, folded
    # a copy render 16 drew (the record's keys, no command) still checks; the same bytes said to be render 17 do not
    from asz_core.reading.export_render import drawing

    copy = tmp_path / "r16.md"
    with drawing(16):
        assert asz_in_process("export", hooks_sid[:8], "--out", str(copy), "--root", str(corpus_root)).returncode == 0
    older = copy.read_bytes()
    assert older.count(b"*The runtime's record: ") >= len(hooks) and b"*Ran `" not in older
    body = json.loads((tmp_path / "r16.md.manifest.json").read_bytes())
    for render, code in ((16, 0), (17, 1)):
        got = asz_in_process("verify", "--export", as_copy(tmp_path, f"r{render}x.md", older, {**body, "render": render}),
                             "--root", str(corpus_root))
        assert got.returncode == code, got.stdout
    whole = json.loads(_export(corpus_root, hooks_sid[:8], "json").stdout)
    assert json.dumps(whole).count("stop_hook_summary") >= len(hooks)


def test_a_long_hook_command_is_one_code_span_cut_with_its_length():
    """A hook command holding a backtick, a newline, a tab, BEL and markup, longer than 200 characters: one line, its
    controls as escapes, cut at 200 with its length, in a code span a CommonMark reader shows as written (render 17)."""
    from asz_core.reading.export_calls import ran_said

    command = "echo `pwd` <script>x</script>\n\t\x07" + "y" * 300
    written = "echo `pwd` <script>x</script>\\n\\t\\x07" + "y" * 300  # as one line: newline, tab and BEL escaped
    assert len(written) == 29 + 2 + 2 + 4 + 300
    got = ran_said(command, 1234)
    assert got == f"``{written[:200]}…`` (337 characters) (1,234 ms)"
    tokens = MarkdownIt("commonmark").parseInline(f"*Ran {got}. rest*")[0].children
    spans = [t.content for t in tokens if t.type == "code_inline"]
    assert spans == [written[:200] + "…"] and not any(t.type == "html_inline" for t in tokens)

