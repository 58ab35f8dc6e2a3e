"""After ``asz prune`` a refused tool call still reads refused (trial 47a F1: after retention ``asz usage tools`` read
``Bash 1,672 228 4`` where the whole root read ``1,672 216 16``, and the text form ``tool_call, error`` where it read
``tool_call, refused``): a refusal is read from its result's text, Claude Code's fixed answer. A skeleton keeps that
text when it is, whole, the runtime's fixed wording (``Adapter.fixed_wording``), and when the person's reason for the
rejection follows it, the fixed lead alone (``Adapter.fixed_prefix``), with the reason's size and no digest of it
(``removed_bytes``; docs/push.md, Retention and skeletons): the reason is the person's words, which
retention takes, and every reader says it went (47a F1's other half: 32 of 256 refusals read failed).

Real input: the corpus's four projects that hold refused calls (8 refusals: 7 the fixed answer whole, 1 with a
reason), collected, pruned (retention ``after: 0``). Every figure is counted from the source JSONL."""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from asz_core.view.placing import walk
from reading_helpers import asz

PROJECTS = ("-Users-alex-workspace-claude-code-log-sample", "-home-user-spotter",
            "-Users-alex-workspace-coderabbit-review-helper", "-src-deep-manifest")
REFUSED = "The user doesn't want to proceed with this tool use."  # Claude Code's answer when the person rejected a call
WHOLE = (REFUSED + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). "
         "STOP what you are doing and wait for the user to tell you how to proceed.")
#: Claude Code's answer before the person's reason for the rejection (the corpus's Claude Code 2.0.37 wording).
LEAD = (REFUSED + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). "
        "The user provided the following reason for the rejection: ")


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
    """``{tool: [calls, failed, refused]}`` as ``asz usage tools`` counts them; ``pruned``: as a skeleton written
    before the fixed lead was kept (session 47) reads them, a refusal whose answer is not the fixed wording whole
    (the person's reason follows) counted failed, its text gone."""
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


def _reasons(calls: dict[str, list]) -> dict[str, str]:
    """``{tool use id: the person's reason}`` of each refusal whose answer carries one, from the transcripts."""
    return {k: t.removeprefix("Error: ")[len(LEAD):] for k, (_, _, t) in calls.items()
            if isinstance(t, str) and t.removeprefix("Error: ").startswith(LEAD)}


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


def _prune(root: Path, work: Path) -> None:
    (work / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(work / "asz.yaml"))


def _figures(root: Path) -> tuple[dict, list, str]:
    """``asz usage tools``' ``{tool: [calls, failed, refused]}``, the text form's statuses, and the text form."""
    rows = {r["tool"]: [r["calls"], r["failed"], r["refused"]]
            for r in json.loads(asz("usage", "tools", "--root", str(root), "--json").stdout)["tools"]}
    text = asz("export", "--since", "2000-01-01", "--format", "text", "--root", str(root)).stdout
    return rows, _statuses(text), text


@pytest.fixture(scope="module")
def roots(corpus_source, tmp_path_factory) -> dict:
    """The four projects collected (``whole``), a copy pruned (``pruned``), and a copy pruned as session 47's asz
    wrote skeletons (``s47``: a fixed wording kept whole, never a lead; its rule run in this process), with the
    calls counted from the transcripts (``calls``)."""
    work = tmp_path_factory.mktemp("refusals")
    for p in PROJECTS:
        shutil.copytree(corpus_source / p, work / "projects" / p)
    asz("collect", "--once", "--source", str(work / "projects"), "--root", str(work / "whole"))
    out = {"work": work, "calls": _source(work / "projects"), "whole": work / "whole"}
    for name in ("pruned", "s47"):
        shutil.copytree(work / "whole", work / name, symlinks=True)
        out[name] = work / name
    _prune(out["pruned"], work)
    with pytest.MonkeyPatch.context() as mp:
        from asz_adapters_claude.blocks import fixed_wording as whole_only
        from asz_core.retention import prune

        mp.setattr(prune, "fixed_wording", lambda dialect, text: whole_only(text))  # session 47's writer's rule
        _prune(out["s47"], work)
    return out


@pytest.mark.slow  # about 15 s: a collect, two prunes and exports of 6 MB of transcripts
def test_a_refused_call_reads_refused_after_retention(roots):
    calls = roots["calls"]
    said = [t for _, _, t in calls.values() if isinstance(t, str) and t.removeprefix("Error: ").startswith(REFUSED)]
    reasons = _reasons(calls)
    assert (len(said), sum(t == WHOLE for t in said), len(reasons)) == (8, 7, 1)
    rows, before, text = _figures(roots["whole"])
    kinds = Counter(x.split("] ", 1)[1] for x in text.splitlines() if re.match(r"\[[^\]]*\] [a-z_]+$", x))
    assert rows == _rows(calls, pruned=False) and Counter(s for *_, s in before)["refused"] == 8
    assert "reason: " not in text  # the text form leaves tool results out: no reason is said of a whole root
    rows, after, text = _figures(roots["pruned"])
    assert rows == _rows(calls, pruned=False)  # every refusal, with a reason or not, still reads refused
    assert rows["ExitPlanMode"] == [6, 0, 2]  # one with the person's reason (47a F1's other half: [6, 1, 1])
    assert after == before
    # the reason is said gone, by its size as the source holds it, under its call (one line a refusal with a reason)
    said = re.findall(r"^\[([^\]]*)\] tool_call, refused\n\| .*\nreason: ([0-9,]+) bytes, removed by retention$", text, re.M)
    assert said == [("2025-11-17T11:24:43.840Z", f"{len(r.encode('utf-8')):,}") for r in reasons.values()]
    # a failed call's error whose text went says the size of that text, as the source holds it, all of it removed
    # (render 36; trial 47a F1: `error: 33 bytes, whole`, the size of the marker standing for it)
    failed = [t for _, err, t in calls.values() if err and not (t or "").removeprefix("Error: ").startswith(REFUSED)]
    assert _errors(text) == Counter((len(t.encode("utf-8")), "removed by retention") for t in failed)
    # a person's turn is labelled by what its skeleton tells (render 36; trial 47a F2: all read `prompt`): a typed
    # prompt or a command, command output, a list of parts; an interrupt notice, kept whole, keeps its kind
    now = Counter(x.split("] ", 1)[1] for x in text.splitlines() if re.match(r"\[[^\]]*\] [a-z_ ]+(, removed by retention)?$", x))
    assert (now["prompt or command, removed by retention"], now["command_output or text, removed by retention"],
            now["prompt_blocks, removed by retention"], now["interrupt"]) == (
        kinds["prompt"] + kinds["command"], kinds["command_output"], kinds["prompt_blocks"], kinds["interrupt"])
    assert kinds["command"] and kinds["command_output"] and kinds["prompt_blocks"] and kinds["interrupt"]


@pytest.mark.slow  # the module's set-up, about 15 s
def test_every_reader_says_the_reason_went_and_keeps_none_of_it(roots):
    (tid, reason), = _reasons(roots["calls"]).items()
    raw = reason.encode("utf-8")
    marker = f"[removed by retention: {len(raw):,} bytes]"
    sk = [json.loads(x) for f in roots["pruned"].rglob("*.sk") for x in gzip.decompress(f.read_bytes()).splitlines()]
    part, = [p for r in sk for p in r.get("parts") or () if p.get("of") == tid]
    assert (part["text"], part["removed_bytes"], part.get("sha256"), part["state"]) == (LEAD, len(raw), None, "removed")
    digest = hashlib.sha256(raw).hexdigest()  # nor its digest, which gives a short reason back to hashed guesses
    assert not any(digest in gzip.decompress(f.read_bytes()).decode() for f in roots["pruned"].rglob("*.sk"))
    cid = next(f.parts[-4] for f in roots["pruned"].rglob("*.sk") if tid in gzip.decompress(f.read_bytes()).decode())
    words = reason.strip()[:40]
    for form in ("md", "html", "json", "text"):
        got, whole = (asz("export", cid, "--format", form, "--root", str(roots[r])).stdout for r in ("pruned", "whole"))
        if form == "html":
            got, whole = html.unescape(got), html.unescape(whole)
        assert words not in got and words in (whole if form != "text" else reason)  # the text form left it out before
        if form in ("md", "html"):  # the kept lead, the marker where the reason was, each refused call said refused
            assert got.count("The user provided the following reason for the rejection: " + marker) == 1
            refused = "(refused)" if form == "md" else '<span class="refused">refused</span>'
            assert got.count(refused) == whole.count(refused) == sum(
                k in whole and (t or "").removeprefix("Error: ").startswith(REFUSED) for k, (_, _, t) in roots["calls"].items())
    doc = json.loads(asz("export", cid, "--format", "json", "--root", str(roots["pruned"])).stdout)
    node, = [n for n in walk([*doc["talks"], *doc.get("loose", ())]) if n.get("id") == f"tool/{tid}"]
    assert (node["result"], node["result_state"], node["result_bytes"], node["refused"]) == (LEAD + marker, "removed", part["bytes"], True)
    tools = [x for x in asz("conversation", cid, "--root", str(roots["whole"])).stdout.splitlines() if x.startswith("tools ")]
    assert tools == [x for x in asz("conversation", cid, "--root", str(roots["pruned"])).stdout.splitlines() if x.startswith("tools ")]
    assert "ExitPlanMode 2 (1 refused)" in tools[0]


@pytest.mark.slow  # the module's set-up, about 15 s
def test_a_skeleton_written_before_the_lead_was_kept_reads_as_before(roots):
    calls = roots["calls"]
    (tid, _), = _reasons(calls).items()
    sk = [json.loads(x) for f in roots["s47"].rglob("*.sk") for x in gzip.decompress(f.read_bytes()).splitlines()]
    part, = [p for r in sk for p in r.get("parts") or () if p.get("of") == tid]
    assert "text" not in part and "removed_bytes" not in part and "sha256" not in part
    rows, after, text = _figures(roots["s47"])
    assert rows == _rows(calls, pruned=True) and rows["ExitPlanMode"] == [6, 1, 1]
    assert "reason: " not in text and Counter(s for *_, s in after)["refused"] == 7

