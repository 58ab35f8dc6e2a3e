"""After ``asz prune`` the audit form never relabels a person's turn (trial 27b F2: 73 commands, 43 interrupt notices
and 65 command outputs of a day read as typed prompts, text and prompt_blocks once retention removed their text).

A skeleton keeps each record's flags but not its text (docs/push.md), and whether a person's line is a typed prompt
or a slash command, an interrupt notice or a list of parts, command output or text is read from that text: such a
line says ``removed``. What the flags alone decide (a reply, a tool call, injected context) keeps its kind, and so
does an interrupt notice, Claude Code's fixed wording, which the skeleton keeps whole (trial 47a F2)

Real input: the corpus project -src-deep-manifest (a7da6a22 and its sub-agent), collected, exported, pruned by
``asz prune`` (retention ``after: 0``), exported again. The person turns are counted from the source transcript."""

from __future__ import annotations

import json
import shutil
from collections import Counter

from asz_core.reading.export_render import drawing
from cli_helpers import asz_in_process
from reading_helpers import asz, checks_as_render

PROJECT = "-src-deep-manifest"
SID = "a7da6a22-facc-4fcd-8bab-f83c87862004"
BY_TEXT = {"prompt", "command", "interrupt", "prompt_blocks", "command_output", "text"}  # kinds read from the text


def _audit(root) -> list[dict]:
    return [json.loads(x) for x in asz("export", SID, "--audit", "--root", str(root)).stdout.splitlines()]


def test_a_pruned_person_turn_says_removed_never_another_kind(corpus_source, tmp_path):
    src = [json.loads(x) for x in (corpus_source / PROJECT / f"{SID}.jsonl").read_text().splitlines()]
    person = [d for d in src if d.get("type") == "user" and not d.get("isMeta") and not d.get("isCompactSummary")
              and (isinstance(d["message"]["content"], str)
                   or all(b.get("type") in ("text", "image") for b in d["message"]["content"]))]
    assert len(person) == 12  # 7 typed prompts, 2 slash commands, 2 command outputs, 1 interrupt notice
    assert sum("[Request interrupted by user" in json.dumps(d["message"]["content"]) for d in person) == 1
    assert sum(isinstance(d["message"]["content"], str) and "<command-name>" in d["message"]["content"] for d in person) == 2
    shutil.copytree(corpus_source / PROJECT, tmp_path / "projects" / PROJECT)
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    before = _audit(root)
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    after = _audit(root)
    kinds = Counter(x["kind"] for x in before[1:])
    assert {k: kinds[k] for k in ("prompt", "command", "command_output", "interrupt")} == {
        "prompt": 7, "command": 2, "command_output": 2, "interrupt": 1}
    assert sum(kinds[k] for k in BY_TEXT) == len(person)
    was = {(x["stream"], x["ts"], x["row"]): x["kind"] for x in before[1:] if x["kind"] != "tool_call"}
    for x in after[1:]:
        if x["kind"] == "tool_call":
            continue
        old = was[(x["stream"], x["ts"], x["row"])]
        assert x["kind"] == old or (x["kind"] == "removed" and old in BY_TEXT), (old, x)
    got = after[0]["lines"]
    # the interrupt notice is Claude Code's fixed wording, which its skeleton keeps whole (trial 47a F2): it stays
    assert got["removed"] == len(person) - 1 and BY_TEXT & set(got) == {"interrupt"} and got["interrupt"] == 1
    kept = ("reply", "tool_call", "injected", "subagent_prompt")
    assert {k: got[k] for k in kept} == {k: kinds[k] for k in kept} and kinds["subagent_prompt"] == 1
    # the sub-agent's prompt was its Task call's input, which retention took: its line stays and says so
    (ask,) = [x for x in after[1:] if x["kind"] == "subagent_prompt"]
    assert ask["text"].startswith("[removed by retention: ") and ask["stream"] == "c8d9b115"
    # the text form keeps the person's label (trial 39a F4: it read `[TS] removed`), so a pruned day is counted
    copy = tmp_path / "day.txt"
    asz("export", SID, "--format", "text", "--root", str(root), "--out", str(copy))
    heads = [x for x in copy.read_text(encoding="utf-8").splitlines() if x.startswith("[")]
    # from render 36 by what the skeleton tells (trial 47a F2): a typed prompt or a command (7 + 2, both flagged
    # external_input), command output (2, no flag); render 35 said `prompt, removed by retention` of all 11
    said = Counter(x.split("] ", 1)[1] for x in heads if x.endswith("removed by retention"))
    assert said == {"prompt or command, removed by retention": 9, "command_output or text, removed by retention": 2}
    assert sum(x.endswith("] interrupt") for x in heads) == 1
    assert not any(x.endswith("] removed") for x in heads)
    assert asz("verify", "--export", str(copy), "--root", str(root)).stdout.splitlines()[-1] == \
        "the copy checks against the root"
    was = tmp_path / "was.txt"
    with drawing(35):  # the copy render 35 made: every such turn `prompt, removed by retention`
        assert asz_in_process("export", SID, "--format", "text", "--root", str(root), "--out", str(was)).returncode == 0
    assert sum(x.endswith("] prompt, removed by retention") for x in was.read_text(encoding="utf-8").splitlines()) == 11
    checks_as_render(was, root, 35, 36)
    old = tmp_path / "old.txt"
    with drawing(13):  # the copy render 13 made: `[TS] removed`
        assert asz_in_process("export", SID, "--format", "text", "--root", str(root), "--out", str(old)).returncode == 0
    old_lines = old.read_text(encoding="utf-8").splitlines()
    # the interrupt notice this root's adapter (claude-code-local 0.9.0) flags notice is the runtime's notice line in
    # a copy an earlier render makes of it, as fbe44e18 drew such a record (fix43m); the 11 others say removed
    assert sum(x.endswith("] removed") for x in old_lines) == len(person) - 1
    assert sum(x.endswith("] notice") for x in old_lines if x.startswith("[")) == 1
    checks_as_render(old, root, 13, 14)
