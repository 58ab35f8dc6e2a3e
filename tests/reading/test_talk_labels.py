"""A talk's label and a conversation's title never come from text the runtime injected (trial 4, F15).

The corpus's ef958aa1 has three subagents per round; the teammate ``a52886dc180afb356`` loads a skill, and Claude
Code writes the skill's body as a ``user`` line with ``isMeta: true`` and ``sourceToolUseID`` (line 7 of its
transcript). That body named the talk (``Base directory for this skill: …``) and, with the main transcript absent,
the whole conversation. Its siblings are named by what the Agent call asked (``description``): so is it now.
"""

from __future__ import annotations

import json
import shutil
import time

from reading_helpers import asz, source_lines
from view_server_helpers import collect_and_parse

SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
PROJECT = "-experiments-worktrees"
CHILD = "a52886dc180afb356"


def _agent_descriptions(corpus_source) -> dict[str, str]:
    """tool_use id -> the Agent/Task call's ``description``, from the main transcript."""
    out = {}
    for d in source_lines(corpus_source / PROJECT / f"{SID}.jsonl"):
        content = (d.get("message") or {}).get("content") if d.get("type") == "assistant" else None
        for b in content if isinstance(content, list) else ():
            if b.get("type") == "tool_use" and b.get("name") in ("Agent", "Task"):
                out[b["id"]] = b["input"]["description"]
    return out


def test_the_skill_body_is_in_the_source_as_an_ismeta_line(corpus_source):
    line7 = source_lines(corpus_source / PROJECT / SID / "subagents" / f"agent-{CHILD}.jsonl")[6]
    assert line7["isMeta"] is True and line7["sourceToolUseID"]
    assert line7["message"]["content"][0]["text"].startswith("Base directory for this skill: ")


def test_a_subagent_talk_is_named_by_its_agent_call_not_by_a_skill_body(corpus_root, corpus_source):
    doc = json.loads(asz("export", SID[:8], "--root", str(corpus_root), "--format", "json").stdout)
    described = _agent_descriptions(corpus_source)
    streams = {s["name"]: s for s in doc["streams"]}
    children = [t for t in doc["talks"] if t.get("child")]
    assert len(children) == 6
    for t in children:
        assert "label" not in t, t["label"][:80]  # no child here starts with a typed or sidechain prompt
        opened = streams[t["stream"]]["opened_by"][0]["step"].split("/", 1)[1]
        assert streams[t["stream"]]["label"] == described[opened]
    assert streams[CHILD]["label"] == "Research Claude Code teammates"
    md = asz("export", SID[:8], "--root", str(corpus_root)).stdout
    heads = [ln for ln in md.splitlines() if ln.startswith("## Talk ")]
    assert heads[1:4] == ["## Talk 2: Subagent: Research Claude Code plan mode",
                          "## Talk 3: Subagent: Research Claude Code teammates",
                          "## Talk 4: Subagent: Research Steve Yegge Beads"]
    assert not any("Base directory" in h for h in heads)
    html = asz("export", SID[:8], "--root", str(corpus_root), "--format", "html").stdout
    assert f'<h2 id="talk/{CHILD}">Talk 3: <bdi>Subagent: Research Claude Code teammates</bdi></h2>' in html


def test_with_the_main_transcript_absent_no_injection_titles_the_conversation(corpus_source, tmp_path):
    src = tmp_path / "projects" / PROJECT / SID
    shutil.copytree(corpus_source / PROJECT / SID / "subagents", src / "subagents")
    root = tmp_path / "root"
    collect_and_parse(tmp_path / "projects", root)
    row = json.loads(asz("ls", "--json", "--root", str(root)).stdout)[0]
    # titled by what the earliest sub-agent was asked, marked as a sub-agent's (trial 41c F9), never by the skill body
    earliest = min((d["timestamp"], d["message"]["content"]) for d in
                   (source_lines(f)[0] for f in (src / "subagents").glob("*.jsonl")))[1]
    asked = earliest if isinstance(earliest, str) else earliest[0]["text"]
    assert row["id"] == SID and row["title"].startswith("(subagent) ") and asked.startswith(row["title"][11:].rstrip("…"))
    assert len(row["title"]) > 40 and "Base directory" not in asz("ls", "--root", str(root)).stdout


def test_html_export_folds_each_context_on_one_line_that_says_what_it_is(corpus_root, corpus_source, tmp_path, browser):
    """Trial 4, F11: a context step showed a lone triangle, then ``Context · time · id`` on the next line, nothing
    saying what it was. Now the triangle, ``Context``, a short label, the time and id share one line."""
    out = tmp_path / "one.html"
    asz("export", SID[:8], "--format", "html", "--out", str(out), "--root", str(corpus_root))
    drv = browser
    drv.get("about:blank")
    drv.get(out.as_uri())
    # under load the shared browser has once handed back a page still being parsed (31 of the file's 50 context
    # steps): wait until it holds every step the file holds, counted from the file's own text
    steps = out.read_text(encoding="utf-8").count('<details class="step ')
    deadline = time.monotonic() + 30
    while drv.execute_script("return document.readyState === 'complete' ? document.querySelectorAll('details.step').length : -1") != steps:
        assert time.monotonic() < deadline, f"the page never held the file's {steps} steps"
        time.sleep(0.1)
    got = drv.execute_script("""return Array.from(document.querySelectorAll('details.step > summary')).map(function (s) {
        const r = s.getBoundingClientRect(), lh = parseFloat(getComputedStyle(s).lineHeight);
        return [s.parentNode.id, s.textContent, r.height / lh]; });""")
    ctx = {i: t for i, t, _ in got if t.startswith("Context ")}
    assert len(ctx) >= 40 and all(lines < 1.5 for _, _, lines in got), [g for g in got if g[2] >= 1.5][:3]
    # the skill's body (line 7 of the teammate's transcript) is named by its skill, as its text says
    line7 = source_lines(corpus_source / PROJECT / SID / "subagents" / f"agent-{CHILD}.jsonl")[6]
    skill = line7["message"]["content"][0]["text"].split("\n", 1)[0].rsplit("/", 1)[1]
    assert skill == "my-worktree-actors"
    assert sum(t.startswith(f"Context skill {skill} · 2026-04-18 ") for t in ctx.values()) == 1
    # Claude Code's status notices say their own first words
    assert sum(t.startswith("Context Status set to busy: -experiments/worktrees · ") for t in ctx.values()) >= 10
    assert all(t.split(" · ")[0] != "Context" for t in ctx.values())  # none without a label
