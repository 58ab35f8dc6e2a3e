"""Tool calls in ``asz export``'s md and html as the page draws them (session 18; docs/reading.md, ``asz export``; the
rules are ``asz_core.view.placing``'s, tests/view_server/test_tool_fields.py checks the page):

- a subagent's report is drawn once: the Agent call's result names the subagent's last message, which its talk
  draws, and shows only what follows the report (Claude Code's ``agentId: …`` and ``<usage>`` lines); it was drawn
  whole twice (the corpus's ef958aa1, six agents);
- a Bash call reads as its description, its command as code and its other keys, and its empty result as ``(no
  output)`` with what its ``toolUseResult`` holds, not as JSON (the corpus's a7da6a22);
- any other input reads as its fields: a Kiro IDE ``create``'s ``file`` listed and ``originalContent``,
  ``modifiedContent`` as blocks; an Edit's as a unified diff of old_string to new_string under its file_path (render
  20; a7da6a22's first Edit);
- a subagent's prompt is drawn once, at the head of its talk, as the page draws it (session 20): the Agent or Task
  call's input names that talk under its ``prompt`` key instead of drawing the prompt again (ef958aa1's six agents,
  each prompt in the agent's own file; a7da6a22's Task, whose agent file holds no prompt, so its talk shows the
  Task's);
- a compaction boundary reads as its line in md, ``Context compacted (auto, 167,731 tokens before)``, not followed by
  its record's JSON (8463c716, source row 714); html keeps the record folded under that line.

Real input collected by ``asz collect --once``; expected texts read from the source transcripts."""

from __future__ import annotations

import html
import json
import re
import shutil

import pytest
from reading_helpers import asz

SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
PROJECT = "-experiments-worktrees"
DEEP = ("-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004")
BASH = "toolu_01QgxYgQqNJ5vXGLgtUn7z1B"
EDIT = "toolu_01RqRWH7DtS7wGfTFoshkd3k"  # .gitignore  # git diff --cached, which printed nothing
STEP = "toolu_01GmrK6tgdD9D5xD6W5X9UUy"  # the first Agent call: "Research Claude Code plan mode", agent a4ca7529859c158c2


@pytest.fixture(scope="module")
def collected(corpus_source, tmp_path_factory):
    base = tmp_path_factory.mktemp("export-report")
    shutil.copytree(corpus_source / PROJECT, base / "projects" / PROJECT)
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    lines = [json.loads(x) for x in (corpus_source / PROJECT / f"{SID}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    [block] = [b for d in lines if d.get("type") == "user" and isinstance(d["message"]["content"], list)
               for b in d["message"]["content"] if isinstance(b, dict) and b.get("tool_use_id") == STEP]
    texts = [b["text"] for b in block["content"] if b.get("type") == "text"]
    assert len(texts) == 2 and texts[1].startswith("agentId: a4ca7529859c158c2 ")
    return {"root": base / "root", "report": texts[0], "rest": texts[1]}


def test_markdown_draws_a_subagents_report_once(collected):
    md = asz("export", SID, "--format", "md", "--root", str(collected["root"])).stdout
    report, rest = collected["report"], collected["rest"]
    first = report.splitlines()[0]
    assert md.count(first) == 1  # in the subagent's talk only (was twice: the Agent result too)
    at = md.index(f"`tool/{STEP}`")
    tail = md[at:at + 6000]
    assert "*(the subagent's report: the same text as its last message `msg/3/56:0`, in Talk 2)*" in tail
    assert f"```\n{rest}\n```" in tail
    assert "## Talk 2: Subagent: Research Claude Code plan mode" in md
    assert md.index("· `msg/3/56:0`") > md.index("## Talk 2: ")  # the message itself, drawn in that talk


def test_html_draws_a_subagents_report_once(collected):
    page = asz("export", SID, "--format", "html", "--root", str(collected["root"])).stdout
    first = html.escape(collected["report"].splitlines()[0].split("`")[0])
    assert page.count(first) == 1
    assert "<i>(the subagent&#x27;s report: the same text as its last message msg/3/56:0, in Talk 2)</i>" in page
    assert f"<pre>{html.escape(collected['rest'])}</pre>" in page


def _agent_uses(source, project: str, sid: str) -> list[dict]:
    """The Task/Agent tool_use blocks of a session's own file, in order."""
    lines = [json.loads(x) for x in (source / project / f"{sid}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    return [b for d in lines if d.get("type") == "assistant" for b in d["message"]["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use" and b["name"] in ("Task", "Agent")]


def _prompt_drawn_once(md: str, page: str, use: dict, others: list[dict]) -> None:
    """``use``'s prompt (its longest run of plain words that no prompt of ``others`` holds) drawn once in md and html: under
    the talk it started, whose number the call's input names, and not in the call's input."""
    first = max((x for x in re.findall(r"[A-Za-z][A-Za-z ,.]{30,}[A-Za-z]", use["input"]["prompt"])  # no Markdown
                 if not any(x in o["input"]["prompt"] for o in others if o is not use)), key=len)
    at = md.index(f"`tool/{use['id']}`")
    block = md[at:md.index("\n**", at + 10)]
    talk = re.search(r"\*\(the subagent's prompt, drawn once: what Talk (\d+) was asked, at its head\)\*", block)
    assert talk and "*prompt*" in block and first not in block
    assert md.count(first) == 1  # was twice: the call's input too
    head = md.index(f"## Talk {talk.group(1)}: ")
    end = md.find("\n## ", head + 1)
    assert head < md.index("**Asked (the prompt this talk was given)**", head) < md.index(first) < (end if end > 0 else len(md))
    at = page.index(f'id="tool/{use["id"]}"')
    block = page[at:page.index("</details>", at)]
    assert (f"<p class=\"meta\">prompt</p><p><i>(the subagent&#x27;s prompt, drawn once: what Talk {talk.group(1)} was "
            "asked, at its head)</i></p>") in block
    assert first not in block and page.count(first) == 1


def test_a_subagents_prompt_is_drawn_once_in_its_talk(collected, corpus_source):
    md = asz("export", SID, "--format", "md", "--root", str(collected["root"])).stdout
    page = asz("export", SID, "--format", "html", "--root", str(collected["root"])).stdout
    uses = _agent_uses(corpus_source, PROJECT, SID)
    assert len(uses) == 6 and uses[0]["id"] == STEP
    for use in uses:
        _prompt_drawn_once(md, page, use, uses)
    assert md.count("was asked, at its head)*") == 6


def test_a_prompt_read_from_its_call_is_drawn_once_too(deep, corpus_source):
    """a7da6a22's agent file holds no prompt line: its talk opens with the Task's prompt (``prompt/tool/…``)."""
    md = asz("export", DEEP[1], "--format", "md", "--root", str(deep["root"])).stdout
    page = asz("export", DEEP[1], "--format", "html", "--root", str(deep["root"])).stdout
    (use,) = _agent_uses(corpus_source, *DEEP)
    assert f"· `prompt/tool/{use['id']}`" in md
    _prompt_drawn_once(md, page, use, [use])


@pytest.fixture(scope="module")
def deep(corpus_source, tmp_path_factory):
    base = tmp_path_factory.mktemp("export-bash")
    shutil.copytree(corpus_source / DEEP[0], base / "projects" / DEEP[0])
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    lines = [json.loads(x) for x in (corpus_source / DEEP[0] / f"{DEEP[1]}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    [(use, used_at)] = [(b, d["timestamp"]) for d in lines if d.get("type") == "assistant" for b in d["message"]["content"]
                        if b.get("id") == BASH]
    [tur] = [d["toolUseResult"] for d in lines if d.get("type") == "user" and isinstance(d["message"]["content"], list)
             and any(isinstance(b, dict) and b.get("tool_use_id") == BASH for b in d["message"]["content"])]
    assert use["name"] == "Bash" and tur["stdout"] == "" and tur["stderr"] == ""
    [(edit, edited_at)] = [(b, d["timestamp"]) for d in lines if d.get("type") == "assistant" for b in d["message"]["content"]
                           if b.get("id") == EDIT]
    return {"root": base / "root", "input": use["input"], "result": tur, "edit": edit["input"],
            "at": {BASH: _utc(used_at), EDIT: _utc(edited_at)}}


def _utc(stamp: str) -> str:
    """A source line's ``timestamp`` as the exports print a time with ``--tz UTC`` (trial 30a F3: a tool call's time)."""
    return stamp[:10] + " " + stamp[11:19]


def test_markdown_draws_a_bash_call_as_its_command_and_no_output(deep):
    md = asz("export", DEEP[1], "--format", "md", "--tz", "UTC", "--root", str(deep["root"])).stdout
    inp, tur = deep["input"], deep["result"]
    at = md.index(f"**Tool Bash** · {deep['at'][BASH]} · `tool/{BASH}`")
    facts = [f"- {k}: `{json.dumps(v)}`" for k, v in tur.items() if k not in ("stdout", "stderr")]
    expected = ["", inp["description"], "", "```sh", inp["command"], "```", "", "*(no output)*", "", *facts]
    assert md[at:].split("\n")[1:1 + len(expected)] == expected
    assert "- interrupted: `false`" in facts
    block = md[at:md.index("**", at + 40)]
    assert '"stdout"' not in block and '"command"' not in block


def test_html_draws_a_bash_call_as_its_command_and_no_output(deep):
    page = asz("export", DEEP[1], "--format", "html", "--root", str(deep["root"])).stdout
    inp = deep["input"]
    at = page.index(f'id="tool/{BASH}"')
    block = page[at:page.index("</details>", at)]
    assert f"<p>{html.escape(inp['description'])}</p><pre class=\"command\">{html.escape(inp['command'])}</pre>" in block
    assert "<p><i>(no output)</i></p><ul><li>interrupted: <code>false</code></li>" in block
    assert "stdout" not in block


def test_an_edits_input_reads_as_a_diff(deep):
    """Render 20 (trial 43c F7): an Edit's input is a unified diff of old_string to new_string headed by its file's
    path, every line of both texts in it (render 19 drew the two texts as blocks: tests/reading/test_tools_drawn.py)."""
    md = asz("export", DEEP[1], "--format", "md", "--tz", "UTC", "--root", str(deep["root"])).stdout
    page = asz("export", DEEP[1], "--format", "html", "--root", str(deep["root"])).stdout
    inp = deep["edit"]
    assert set(inp) == {"file_path", "old_string", "new_string"}
    at = md.index(f"**Tool Edit** · {deep['at'][EDIT]} · `tool/{EDIT}`")
    lines = md[at:].split("\n")[1:]
    assert lines[:4] == ["", "```diff", f"--- {inp['file_path']}", f"+++ {inp['file_path']}"] and lines[4].startswith("@@ -1,")
    body = lines[5:lines.index("```", 5)]
    assert [x[1:] for x in body if x[:1] in " -"] == inp["old_string"].splitlines()
    assert [x[1:] for x in body if x[:1] in " +"] == inp["new_string"].splitlines()
    at = page.index(f'id="tool/{EDIT}"')
    block = page[at:page.index("</details>", at)]
    assert f'<pre class="diff"><span class="head">--- {html.escape(inp["file_path"])}</span>' in block
    assert all(f'<span class="del">-{html.escape(x)}</span>' in block for x in inp["old_string"].splitlines()
               if x not in inp["new_string"].splitlines())
    assert "&quot;old_string&quot;" not in block and "old_string" not in block


def test_a_kiro_create_reads_as_its_fields(corpus_dir, tmp_path):
    kiro = corpus_dir / "kiro" / "home" / ".kiro"
    if not kiro.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({kiro})")
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(kiro), "--root", str(root))
    [session] = [p.name for p in root.iterdir() if p.name.startswith("sess_")]
    md = asz("export", session, "--format", "md", "--root", str(root)).stdout
    at = md.index("**Tool create** · ")
    step = md[at:md.index("**", md.index("**", at + 4) + 2)]
    # since render 22 (fix44j) an IDE create reads as the diff of its originalContent ('') to its modifiedContent,
    # headed by its file, the input's other fields kept above it
    assert "```diff\n--- test-scripts/hello.sh\n+++ test-scripts/hello.sh\n@@ -0,0 +1,2 @@\n" in step
    assert '\n+#!/bin/sh\n+echo "Hello World"\n```' in step
    assert "- local: `file:///private/tmp/kiro-fixture-workspace2/test-scripts/hello.sh`" in step
    assert '"originalContent"' not in step and "*modifiedContent*" not in step


SPOTTER = ("-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20")


def test_a_compaction_boundary_reads_as_its_line(corpus_source, tmp_path):
    shutil.copytree(corpus_source / SPOTTER[0], tmp_path / "projects" / SPOTTER[0])
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root"))
    lines = [json.loads(x) for x in (corpus_source / SPOTTER[0] / f"{SPOTTER[1]}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    meta = lines[713]["compactMetadata"]
    md = asz("export", SPOTTER[1], "--format", "md", "--root", str(tmp_path / "root")).stdout
    label = f"**Context compacted ({meta['trigger']}, {meta['preTokens']:,} tokens before)** · "
    at = md.index(label)
    assert md[at:].split("\n")[1:3] == ["", md[md.index("**Summary the model continued from**", at):].split("\n")[0]]
    assert "compactMetadata" not in md and '"compact_boundary"' not in md
    page = asz("export", SPOTTER[1], "--format", "html", "--root", str(tmp_path / "root")).stdout
    at = page.index('id="boundary/1/714"')
    assert page[at - 24:at] == '<div class="step other" ' and "compactMetadata" not in page  # its line alone, as md (render 28)


def _lines_changed(old: str, new: str) -> tuple[int, int]:
    """The lines an edit takes away and adds, line by line (difflib's matching blocks over the two texts' lines)."""
    import difflib

    a, b = old.splitlines(), new.splitlines()
    same = sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return len(a) - same, len(b) - same


def test_html_names_what_each_folded_call_ran(corpus_source, corpus_root, tmp_path):
    """Each folded tool call of an HTML export shows what it ran on its line (trial 18: every call read ``Tool Bash``
    and its id): the command of a Bash call, the file of a Read or an Edit, a Grep's path, a Glob's pattern, as the
    source wrote them."""
    sid = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    src = next(corpus_source.glob(f"*/{sid}.jsonl"))
    calls = [(b, _utc(d["timestamp"])) for d in map(json.loads, src.read_text(encoding="utf-8").splitlines())
             if d.get("type") == "assistant" and not d.get("isSidechain") for b in d["message"]["content"]
             if isinstance(b, dict) and b.get("type") == "tool_use"]
    out = tmp_path / "c.html"
    asz("export", sid, "--format", "html", "--tz", "UTC", "--result-limit", "0", "--root", str(corpus_root), "--out", str(out))
    page = out.read_text(encoding="utf-8")
    order = ("command", "file_path", "notebook_path", "path", "pattern")  # the first one there names the call
    seen = 0
    for b, when in calls:  # each with the time of the line that holds it (trial 30a F3)
        said = next((b["input"][k] for k in order if isinstance(b["input"].get(k), str) and b["input"][k].strip()), "")
        if said and len(said) < 120 and "\n" not in said and b["name"] in ("Bash", "Read", "Glob", "Grep", "Edit"):
            if b["name"] == "Edit":  # since render 23 (fix44j) an edit's line also says the lines it takes and adds
                said += " (-%d +%d)" % _lines_changed(b["input"]["old_string"], b["input"]["new_string"])
            head, tail = (f"<summary>Tool <b>{b['name']}</b>", f" <code class=\"gist\"><bdi>{html.escape(said)}</bdi>"
                          f"</code> <span class=\"when\">{when}</span> <span class=\"id\">tool/{b['id']}</span></summary>")
            assert head + tail in page or head + ' <span class="failed">failed</span>' + tail in page, tail
            seen += 1
    assert seen > 100  # the conversation's main-stream Bash, Read, Glob, Grep and Edit calls
