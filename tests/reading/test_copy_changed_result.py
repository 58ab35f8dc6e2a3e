"""A session copied under a new session id with one tool result changed to failed is no silent duplicate (trial 40a F1),
and an exact Kiro CLI 2.x copy reads as a copy: no turn-end problem, no credits of its own (trial 40a F3).

Real input, as the trial made it: the corpus Kiro home (IDE 3.x session ``sess_5e804080…``, CLI 2.x ``8e247382…``)
with an exact copy of the IDE session (``…0001``, sorting first: it draws the records the others repeat), a copy whose
first ``tool_result`` says ``"success": false`` (``…0002``) and an exact copy of the CLI session; and the corpus's
Claude Code transcript 326189cf with a copy under a new session id whose first ``tool_result`` says ``is_error``
true. Every copy keeps the message ids. What is expected is read from the source files: the changed line's id and
line number, the calls (2.x: one per ``AssistantMessage``) and credits (the 2.x document's ``metering_usage``).

Before: the changed record was taken for a repeat (the same id, parent, time, call and kind) and listed in the copy's
``not_drawn`` as a ``duplicate`` of the record drawn in the other session, its failure nowhere; now each session draws
its own, both say a ``conflict:`` problem naming the other, and the failed copy's says its result failed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reading_helpers import asz, kiro_home_session

IDE = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"
SAME, FAILED = "sess_5e804080-0000-0000-0000-000000000001", "sess_5e804080-0000-0000-0000-000000000002"
CLI, CLI_COPY = "8e247382-c779-440f-b1db-ed9bad1afaee", "8e247382-0000-0000-0000-000000000005"
CC, CC_COPY = "326189cf-5676-4237-8cde-1ce80aae4a9f", "326189cf-ffff-4000-8000-000000000002"
CC_PROJECT = "-Users-alex-workspace-claude-code-log-sample"


def _changed(lines: list[str], is_result, fail) -> tuple[list[str], str, int]:
    """``lines`` with the first line ``is_result`` accepts changed by ``fail`` (in place on its JSON), that line's
    record id and its line number (from 1)."""
    for n, ln in enumerate(lines):
        d = json.loads(ln)
        if is_result(d):
            fail(d)
            return [*lines[:n], json.dumps(d, separators=(",", ":")) + "\n", *lines[n + 1:]], d.get("id") or d["uuid"], n + 1
    raise AssertionError("no tool result in the source")


def _cc_result(d: dict) -> bool:
    c = (d.get("message") or {}).get("content")
    return isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" and not b.get("is_error") for b in c)


def _cc_fail(d: dict) -> None:
    next(b for b in d["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_result")["is_error"] = True


@pytest.fixture(scope="module")
def copied(corpus_dir: Path, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("copy-changed")
    home, orig, lines = kiro_home_session(corpus_dir, base, IDE)
    failed, rid, row = _changed(lines, lambda d: d["payload"]["type"] == "tool_result",
                                lambda d: d["payload"].__setitem__("success", False))
    for sid, text in ((SAME, lines), (FAILED, failed)):
        d = orig.parent / sid
        d.mkdir()
        (d / "messages.jsonl").write_text("".join(text), encoding="utf-8")
        (d / "session.json").write_text((orig / "session.json").read_text(encoding="utf-8").replace(IDE, sid), encoding="utf-8")
    cli = home / "sessions" / "cli"
    for ext in ("json", "jsonl"):
        (cli / f"{CLI_COPY}.{ext}").write_text((cli / f"{CLI}.{ext}").read_text(encoding="utf-8").replace(CLI, CLI_COPY), encoding="utf-8")
    src = corpus_dir / "claude-code" / "projects" / CC_PROJECT / f"{CC}.jsonl"
    cc = src.read_text(encoding="utf-8").splitlines(keepends=True)
    cc_failed, cc_rid, cc_row = _changed([ln.replace(CC, CC_COPY) for ln in cc], _cc_result, _cc_fail)
    proj = base / "projects" / CC_PROJECT
    proj.mkdir(parents=True)
    (proj / f"{CC}.jsonl").write_text("".join(cc), encoding="utf-8")
    (proj / f"{CC_COPY}.jsonl").write_text("".join(cc_failed), encoding="utf-8")
    root = base / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    doc = json.loads((cli / f"{CLI}.json").read_text(encoding="utf-8"))
    metered = sum(m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
                  for m in t["metering_usage"] if m["unit"] == "credit")
    cli_calls = sum(1 for ln in (cli / f"{CLI}.jsonl").read_text(encoding="utf-8").splitlines()
                    if ln.strip() and json.loads(ln)["kind"] == "AssistantMessage")
    return {"root": root, "rid": rid, "row": row, "cc_rid": cc_rid, "cc_row": cc_row, "metered": metered, "cli_calls": cli_calls}


def _doc(t: dict, conversation: str) -> dict:
    return json.loads(asz("conversation", conversation, "--json", "--root", str(t["root"])).stdout)


def _said(rid: str, row: int, failed: bool, others: str) -> str:
    return (f"conflict: record id {rid} landed at 1/{row} here" + (" (its result failed here)" if failed else "")
            # what differs named (trial 48c F4): a part's failed flag, which the index compares
            + f" and in session(s) {others} with other parts (its parts' kinds, ids, names, state, failed or sizes);"
            " each session draws its own")


@pytest.mark.parametrize("failed, same, rid, row", [
    (FAILED, SAME, "rid", "row"),  # Kiro IDE 3.x: tool_result "success": false
    (CC_COPY, CC, "cc_rid", "cc_row"),  # Claude Code: tool_result is_error true
])
def test_a_copy_with_one_result_failed_draws_it_and_says_the_conflict(copied, failed, same, rid, row):
    t = copied
    rid, row = t[rid], t[row]
    mine, theirs = _doc(t, failed), _doc(t, same)
    listed = {d["id"]: d for d in mine["not_drawn"]}
    assert listed.get(rid, {}).get("why") != "duplicate", listed.get(rid)  # was a duplicate of the other's record
    assert not any(d["id"] == rid and d["why"] == "duplicate" for d in theirs["not_drawn"])
    others = sorted([IDE, SAME]) if failed == FAILED else [CC]
    assert _said(rid, row, True, ", ".join(others)) in mine["summary"]["problems"], mine["summary"]["problems"]
    assert _said(rid, row, False, failed) in theirs["summary"]["problems"], theirs["summary"]["problems"]
    # the failed result is this conversation's record: drawn (a node cites it) or listed with its text, never a repeat
    cited = mine["summary"]["coverage"]
    assert cited["cited"] == cited["records"]
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(t["root"])).stdout)}
    assert rows[failed]["shares"]["differ"] == 1 and rows[same]["shares"]["differ"] == 1
    text = asz("ls", "--root", str(t["root"])).stdout
    assert f"(1): {_said(rid, row, True, ', '.join(others))}" in text


def test_an_exact_kiro_cli_copy_reads_as_a_copy(copied):
    t = copied
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(t["root"])).stdout)}
    first, copy = sorted((CLI, CLI_COPY))  # the one sorting first draws every call; the other continues it
    assert rows[first]["llm_calls"] == t["cli_calls"] == 7 and rows[copy]["llm_calls"] == 0
    assert rows[copy]["continues"] == first
    assert rows[first]["credits"] == pytest.approx(t["metered"], abs=1e-6) and rows[copy]["credits"] is None
    s = _doc(t, copy)["summary"]
    assert s["problems"] == [] and "credits" not in s  # no "turn end outside the recorded range" of the original's turn
    usage = {r["conversation"]: r for r in json.loads(asz("usage", "session", "--json", "--tz", "UTC", "--root", str(t["root"])).stdout)}
    assert usage[first]["calls"] == 7 and usage[first]["credits"] == pytest.approx(t["metered"], abs=1e-6)
    assert not usage.get(copy, {}).get("credits"), usage.get(copy)  # its credits follow its calls: counted in the first
