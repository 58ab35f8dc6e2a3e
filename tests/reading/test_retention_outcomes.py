"""After ``asz prune`` a refused tool call still reads refused (trial 47a F1: after retention ``asz usage tools`` read
``Bash 1,672 228 4`` where the whole root read ``1,672 216 16``, and the text form ``tool_call, error`` where it read
``tool_call, refused``): a refusal is read from its result's text, Claude Code's fixed answer, and a skeleton keeps
that text when it is, whole, the runtime's fixed wording (``Adapter.fixed_wording``; docs/push.md, Retention and
skeletons). An answer carrying the person's reason for the rejection holds the person's words: retention takes it,
and the call reads failed, as docs/reading.md says.

Real input: the corpus's four projects that hold refused calls (8 refusals: 7 the fixed answer whole, 1 with a
reason), collected, pruned (retention ``after: 0``). Every figure is counted from the source JSONL."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter

import pytest

from reading_helpers import asz

PROJECTS = ("-Users-alex-workspace-claude-code-log-sample", "-home-user-spotter",
            "-Users-alex-workspace-coderabbit-review-helper", "-src-deep-manifest")
REFUSED = "The user doesn't want to proceed with this tool use."  # Claude Code's answer when the person rejected a call
WHOLE = (REFUSED + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). "
         "STOP what you are doing and wait for the user to tell you how to proceed.")


def _source(projects) -> dict[str, list]:
    """``{tool use id: [name, is_error, result text or None]}`` from the transcripts themselves."""
    calls: dict[str, list] = {}
    for f in sorted(projects.rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                content = (json.loads(line).get("message") or {}).get("content")
            except (json.JSONDecodeError, AttributeError):
                continue
            for b in content if isinstance(content, list) else ():
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    calls.setdefault(b["id"], [b["name"], False, None])[0] = b["name"]
                elif isinstance(b, dict) and b.get("type") == "tool_result":
                    c = b.get("content")
                    text = c if isinstance(c, str) else "\n".join(x.get("text", "") for x in c or () if isinstance(x, dict))
                    got = calls.setdefault(b["tool_use_id"], ["", False, None])
                    got[1:] = [b.get("is_error") is True, text]
    return calls


def _rows(calls: dict[str, list], pruned: bool) -> dict[str, list[int]]:
    """``{tool: [calls, failed, refused]}`` as ``asz usage tools`` counts them; ``pruned``: a refusal whose answer is
    not the fixed wording whole (the person's reason follows) counts failed, its text gone."""
    rows: dict[str, list[int]] = {}
    for name, failed, text in calls.values():
        r = rows.setdefault(name, [0, 0, 0])
        said_no = isinstance(text, str) and text.removeprefix("Error: ").startswith(REFUSED)
        if pruned and said_no and text.removeprefix("Error: ") != WHOLE:
            said_no = False
        r[0] += 1
        r[1] += failed and not said_no
        r[2] += said_no
    return rows


def _errors(text: str) -> Counter:
    """The sizes the ``error: N bytes, …`` lines of a text-form export say, with what follows the size."""
    return Counter((int(m.group(1).replace(",", "")), m.group(2)) for m in re.finditer(r"^error: ([0-9,]+) bytes, (.*)$", text, re.M))


def _statuses(text: str) -> list[tuple[str, str, str]]:
    """``(conversation, ts, status)`` of each ``tool_call`` line of a text-form export, in order."""
    out, conv = [], ""
    for line in text.splitlines():
        if m := re.fullmatch(r"=== conversation (\S+) ===", line):
            conv = m.group(1)
        elif m := re.fullmatch(r"\[([^\]]*)\] tool_call(?:, .*)?, (\w+)", line):
            out.append((conv, m.group(1), m.group(2)))
    return out


@pytest.mark.slow  # about 11 s: a collect, two exports and a prune of 6 MB of transcripts
def test_a_refused_call_reads_refused_after_retention(corpus_source, tmp_path):
    for p in PROJECTS:
        shutil.copytree(corpus_source / p, tmp_path / "projects" / p)
    calls = _source(tmp_path / "projects")
    said = [t for _, _, t in calls.values() if isinstance(t, str) and t.removeprefix("Error: ").startswith(REFUSED)]
    assert (len(said), sum(t == WHOLE for t in said)) == (8, 7)
    root = str(tmp_path / "root")
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root)

    def figures() -> tuple[dict, list]:
        rows = {r["tool"]: [r["calls"], r["failed"], r["refused"]]
                for r in json.loads(asz("usage", "tools", "--root", root, "--json").stdout)["tools"]}
        text = asz("export", "--since", "2000-01-01", "--format", "text", "--root", root).stdout
        return rows, _statuses(text), text

    rows, before, text = figures()
    kinds = Counter(x.split("] ", 1)[1] for x in text.splitlines() if re.match(r"\[[^\]]*\] [a-z_]+$", x))
    assert rows == _rows(calls, pruned=False) and Counter(s for *_, s in before)["refused"] == 8
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", root, "--config", str(tmp_path / "asz.yaml"))
    rows, after, text = figures()
    assert rows == _rows(calls, pruned=True)
    assert rows["ExitPlanMode"] == [6, 1, 1]  # its refusal with the person's reason: that text went
    assert [a for a, b in zip(before, after) if a != b] == [
        (c, ts, "refused") for c, ts, s in before if s == "refused" and c.startswith("cb2e607c")
        and ts == "2025-11-17T11:24:43.840Z"]
    assert [b[2] for b in after if b[2] != "refused"].count("error") == Counter(s for *_, s in before)["error"] + 1
    # a failed call's error whose text went says the size of that text, as the source holds it, all of it removed
    # (render 36; trial 47a F1: `error: 33 bytes, whole`, the size of the marker standing for it)
    failed = [t for _, err, t in calls.values() if err and not (t or "").removeprefix("Error: ") == WHOLE]
    assert _errors(text) == Counter((len(t.encode("utf-8")), "removed by retention") for t in failed)
    # a person's turn is labelled by what its skeleton tells (render 36; trial 47a F2: all read `prompt`): a typed
    # prompt or a command, command output, a list of parts; an interrupt notice, kept whole, keeps its kind
    now = Counter(x.split("] ", 1)[1] for x in text.splitlines() if re.match(r"\[[^\]]*\] [a-z_ ]+(, removed by retention)?$", x))
    assert (now["prompt or command, removed by retention"], now["command_output or text, removed by retention"],
            now["prompt_blocks, removed by retention"], now["interrupt"]) == (
        kinds["prompt"] + kinds["command"], kinds["command_output"], kinds["prompt_blocks"], kinds["interrupt"])
    assert kinds["command"] and kinds["command_output"] and kinds["prompt_blocks"] and kinds["interrupt"]
