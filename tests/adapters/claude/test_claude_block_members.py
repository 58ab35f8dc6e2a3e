"""A member no dialect describes inside a content block or inside a text attachment's ``attachment`` object travels
verbatim as an unknown part after that block's (or the attachment's) part, never vanishes (seed 000, Parts: "Content
it cannot describe goes in as an unknown part in the same place, never left out"; review of member23). The members
the dialect reads or lists as known gaps (``tool_use.caller``, a hook's ``stdout``) land nothing, as before.

Real data: lines of the shared corpus (../shared/corpus, skipped when absent) with a member written into them,
converted by the adapter (the compiled fast path must not take such a line), and collected by the real ``asz collect
--once`` and read back (show, verify, ls, usage) in process.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asz_adapters_claude.convert import DIALECT, convert_record
from asz_adapters_claude.members import ATTACHMENT_TEXT_KNOWN, BLOCK_KNOWN
from asz_core import Source
from cli_helpers import asz_in_process, collect_transcript

SAMPLE = ("-Users-alex-workspace-claude-code-log-sample", "0d3a8e6f-290f-4105-a327-a2496e5e2a83")
HOOKS = ("-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1")
FUTURE = b'"futureBlockV9":{"note":"FUTUREBLOCKTEXT"}'
HOOK_FUTURE = b'"futureHookV9":"FUTUREHOOKTEXT"'


def _lines(corpus_dir: Path, which: tuple[str, str]) -> list[bytes]:
    return (corpus_dir / "claude-code" / "projects" / which[0] / f"{which[1]}.jsonl").read_bytes().splitlines()


def _src(which: tuple[str, str]) -> Source:
    return Source(session=which[1], kind="transcript", path=Path("/nowhere"), src=f"{which[0]}/{which[1]}.jsonl",
                  dialect=DIALECT)


def _unknown(rec) -> list[tuple[str, bytes]]:
    return [(p.text, p.raw()) for p in rec.parts if p.k == "unknown"]


def _text_reply(lines: list[bytes]) -> bytes:
    """The first assistant line whose content opens with a text block."""
    return next(x for x in lines if b'"type":"assistant"' in x and b'"content":[{"type":"text"' in x)


def _with_block_member(line: bytes) -> bytes:
    at = line.index(b'"content":[{"type":"text"') + len(b'"content":[{')
    return line[:at] + FUTURE + b"," + line[at:]


def _hook_text(lines: list[bytes]) -> bytes:
    return next(x for x in lines if b'"type":"hook_success"' in x and b'"content":"",' not in x)


def _with_hook_member(line: bytes) -> bytes:
    at = line.index(b'"hookName":')
    return line[:at] + HOOK_FUTURE + b"," + line[at:]


def test_a_text_block_member_lands_after_the_block(corpus_dir):
    real = _text_reply(_lines(corpus_dir, SAMPLE))
    before = convert_record(_src(SAMPLE), real, 3, 0)
    rec = convert_record(_src(SAMPLE), _with_block_member(real), 3, 0)
    assert _unknown(before) == [] and before.parts[0].k == "text"
    assert [p.k for p in rec.parts] == ["text", "unknown", *[p.k for p in before.parts[1:]]]
    assert rec.parts[0] == before.parts[0] and rec.parts[2:] == before.parts[1:]
    assert _unknown(rec) == [('member "futureBlockV9" of message.content[0] (text) is not one this dialect describes',
                              b"{" + FUTURE + b"}")]
    assert rec.usage == before.usage and rec.dropped == before.dropped and rec.parts[1].bytes == len(FUTURE) + 2


def test_a_tool_result_member_and_known_members_of_blocks(corpus_dir):
    """A ``tool_result`` block's new member lands after its result part; ``caller`` on a call and ``signature`` on
    reasoning are read or known gaps and land nothing (the corpus's blocks hold only BLOCK_KNOWN's members)."""
    lines = _lines(corpus_dir, SAMPLE)
    real = next(x for x in lines if b'"type":"user"' in x and b'"content":[{"tool_use_id"' in x)
    v = json.loads(real)
    v["message"]["content"][0]["cacheHintV9"] = 1
    rec = convert_record(_src(SAMPLE), json.dumps(v, separators=(",", ":")).encode(), 1, 0)
    assert [p.k for p in rec.parts][:2] == ["result", "unknown"]
    assert _unknown(rec) == [('member "cacheHintV9" of message.content[0] (tool_result) is not one this dialect '
                              'describes', b'{"cacheHintV9":1}')]
    assert BLOCK_KNOWN["tool_use"] >= {"caller"} and "citations" not in BLOCK_KNOWN["text"]


def test_a_text_attachment_member_lands_after_its_text(corpus_dir):
    real = _hook_text(_lines(corpus_dir, HOOKS))
    before = convert_record(_src(HOOKS), real, 8, 0)
    rec = convert_record(_src(HOOKS), _with_hook_member(real), 8, 0)
    assert [p.k for p in before.parts] == ["text"] and _unknown(before) == []
    assert rec.parts[0] == before.parts[0] and _unknown(rec) == [
        ('member "futureHookV9" of attachment is not one this dialect describes', b"{" + HOOK_FUTURE + b"}")]
    assert {"stdout", "hookName", "exitCode"} <= ATTACHMENT_TEXT_KNOWN


def test_collected_the_members_are_in_the_root_and_the_readers_count_the_same(corpus_dir, tmp_path):
    """Both injections end to end: ``asz show`` prints the members' bytes, verify passes, ls and usage count the same."""
    for which, pick, inject, mark in ((SAMPLE, _text_reply, _with_block_member, "FUTUREBLOCKTEXT"),
                                      (HOOKS, _hook_text, _with_hook_member, "FUTUREHOOKTEXT")):
        lines = _lines(corpus_dir, which)
        target = pick(lines)
        changed = [inject(x) if x == target else x for x in lines]
        plain = collect_transcript(tmp_path / f"{which[1]}-plain", which[0], which[1], b"\n".join(lines) + b"\n")
        root = collect_transcript(tmp_path / f"{which[1]}-new", which[0], which[1], b"\n".join(changed) + b"\n")
        shown = asz_in_process("show", which[1], json.loads(target)["uuid"], "--root", str(root))
        assert shown.returncode == 0 and mark in shown.stdout, shown.stderr
        assert asz_in_process("verify", "--root", str(root)).returncode == 0
        for args in (("ls", "--json"), ("usage", "session", "--json")):
            a, b = (asz_in_process(*args, "--root", str(r)) for r in (plain, root))
            assert a.returncode == b.returncode == 0 and a.stdout.replace(str(plain), "") == b.stdout.replace(str(root), "")


@pytest.mark.parametrize("which", [SAMPLE, HOOKS])
def test_the_corpus_lines_land_no_unknown_member(corpus_dir, which):
    """Every line of the two files converts with no member part: the known sets cover the real corpus's blocks."""
    for n, line in enumerate(_lines(corpus_dir, which), 1):
        assert [t for t, _ in _unknown(convert_record(_src(which), line, n, 0)) if t.startswith("member ")] == []
