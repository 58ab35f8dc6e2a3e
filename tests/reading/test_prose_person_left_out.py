"""``asz export --format prose`` says on stderr which person turns seed 003's rule left out (trial 16b, F7).

The rule (a ``user`` line counts only when its content is a string) drops a typed prompt with an image and an IDE
selection; the prose stays exactly as the rule gives it, and stderr counts and names them. Claude Code's interrupt
notice (a list of one text block holding it whole) is the runtime's, no person turn (trial 43c F1): not named. Expected
rows are counted from the corpus ``.jsonl`` (a landed record's row is its source line: ``ord``), never from asz.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from reading_helpers import asz

CORPUS_SOURCE = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "claude-code" / "projects"


def _person_lists(path: Path) -> list[int]:
    """1-based lines of ``path`` a person wrote as a list: ``user``, not isMeta, not a compaction summary, not a
    sidechain's, no toolUseResult, content a list of only text and image blocks (the adapter's ``external_input``
    rule for a transcript writing no ``origin``), but the runtime's interrupt notice."""
    out = []
    for n, line in enumerate(path.read_bytes().split(b"\n"), 1):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if (not isinstance(d, dict) or d.get("type") != "user" or d.get("isMeta") or d.get("isCompactSummary")
                or d.get("isSidechain") or "toolUseResult" in d or "origin" in d):
            continue
        c = (d.get("message") or {}).get("content")
        if isinstance(c, list) and c and all(isinstance(b, dict) and b.get("type") in ("text", "image") for b in c):
            if [b.get("text") for b in c] not in (["[Request interrupted by user]"], ["[Request interrupted by user for tool use]"]):
                out.append(n)
    return out


@pytest.mark.parametrize("project, session, image", [
    ("-Users-alex-workspace-claude-code-log-sample", "0d3a8e6f-290f-4105-a327-a2496e5e2a83", 46),
    ("-Users-alex-workspace-coderabbit-review-helper", "cb2e607c-c758-415a-8b45-c49e4631906a", None),
])
def test_stderr_names_the_person_turns_the_rule_left_out(corpus_root, tmp_path, project, session, image):
    source = CORPUS_SOURCE / project / f"{session}.jsonl"
    want = _person_lists(source)
    assert len(want) >= 1
    if image is not None:  # "I think the library is setting it, it's an inline style…": image + text
        d = json.loads(source.read_bytes().split(b"\n")[image - 1])
        assert [b["type"] for b in d["message"]["content"]] == ["image", "text"] and image in want
    out = tmp_path / "x.prose"
    res = asz("export", session[:8], "--format", "prose", "--out", str(out), "--root", str(corpus_root),
              "--source", str(CORPUS_SOURCE))
    line = [x for x in res.stderr.splitlines() if "person turn(s) left out of the prose" in x]
    assert len(line) == 1, res.stderr
    assert "seed 0" not in res.stderr and "; --audit keeps them, docs/reading.md): " in line[0]  # no jargon (trial 17, F8)
    m = re.search(r"(\d+) person turn\(s\) left out .*: (\S+/streams/main/\S+\.sd) row\(s\) ([\d, ]+)$", line[0])
    assert m, line[0]
    assert int(m.group(1)) == len(want) and m.group(2).startswith(session + "/")
    assert [int(x) for x in m.group(3).split(", ")] == want
    # the prose itself is the rule's: no turn of those rows
    turns = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert not [t for t in turns if t["stream"] == "main" and t["row"] in want]


def _kept_not_typed(project: Path, session: str) -> int:
    """User lines of ``session`` (its own file and its sub-agents' ``agent-*.jsonl``, beside it or under ``SESSION/``,
    which carry its id) whose content
    is a string (so seed 003 keeps them) though no person typed them: a compaction summary, isMeta text, a
    ``<task-notification>`` or command output in the session's file; every such line of a sub-agent's file (its
    parent agent or the runtime wrote them)."""
    n = 0
    for path in [*sorted(project.glob("*.jsonl")), *sorted((project / session).rglob("*.jsonl"))]:
        own = path.name == f"{session}.jsonl"
        for line in path.read_bytes().split(b"\n"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if not isinstance(d, dict) or d.get("sessionId") != session or d.get("type") != "user":
                continue
            c = (d.get("message") or {}).get("content")
            if not isinstance(c, str):
                continue
            if not own or d.get("isMeta") or d.get("isCompactSummary") or c.startswith(
                    ("<task-notification>", "<local-command-stdout>", "<local-command-stderr>")):
                n += 1
    return n


def test_stderr_names_the_user_turns_no_person_typed_such_as_the_compaction_summary(corpus_root, tmp_path):
    session = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    summary = json.loads((CORPUS_SOURCE / "-home-user-spotter" / f"{session}.jsonl").read_bytes().split(b"\n")[714])
    assert summary["isCompactSummary"] is True  # line 715
    want = _kept_not_typed(CORPUS_SOURCE / "-home-user-spotter", session)
    out = tmp_path / "x.prose"
    res = asz("export", session[:8], "--format", "prose", "--out", str(out), "--root", str(corpus_root),
              "--source", str(CORPUS_SOURCE))
    [line] = [x for x in res.stderr.splitlines() if "user turn(s) the prose keeps (their content is a string) are not text a person typed" in x]
    assert line.startswith(f"{want} user turn(s)"), (want, line)
    assert re.search(rf"{session}/streams/main/\S+\.sd row\(s\) 715;", line), line
    # kept, as the rule gives it: the summary is a user turn of the prose
    turns = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [t["role"] for t in turns if t["ts"] == summary["timestamp"]] == ["user"]


@pytest.mark.parametrize("day", ["2025-11-14", "2025-11-15", "2025-11-17"])
def test_in_range_only_names_only_the_person_turns_of_the_window(corpus_root, day):
    """--in-range-only: stderr names the person turns the rule left out that lie in the window only, and none of a
    conversation none of whose lines is in it (cb2e607c has no line on 2025-11-15: left out whole). Expected rows
    are the source's person lists of that day (their ``timestamp``), never asz's."""
    session = "cb2e607c-c758-415a-8b45-c49e4631906a"
    source = CORPUS_SOURCE / "-Users-alex-workspace-coderabbit-review-helper" / f"{session}.jsonl"
    lines = source.read_bytes().split(b"\n")
    want = [n for n in _person_lists(source) if json.loads(lines[n - 1])["timestamp"].startswith(day)]
    assert len(_person_lists(source)) == 5 and want in ([], _person_lists(source))
    for form in (("--format", "prose"), ("--audit",)):
        res = asz("export", "--since", day, "--until", day, "--tz", "UTC", "--in-range-only", *form,
                  "--root", str(corpus_root), "--source", str(CORPUS_SOURCE))
        named = [x for x in res.stderr.splitlines() if "person turn(s)" in x]
        kept = {(x["file"], x["row"]) for x in map(json.loads, res.stdout.splitlines()) if "row" in x}
        assert bool(kept) == (day != "2025-11-15") and (kept or "row(s)" not in res.stderr), res.stderr
        m = re.search(r"^(\d+) person turn\(s\) .*: (\S+/streams/main/\S+\.sd) row\(s\) ([\d, ]+)$", "".join(named[:1]))
        assert (not want and not named) or (m and [int(x) for x in m.group(3).split(", ")] == want), named
        said = re.findall(r"(\S+\.sd) row\(s\) ([\d, ]+)", res.stderr)  # every row named is one written (or, left
        for file, rows in said:  # out by the rule, of the day)
            assert all((file, int(r)) in kept or int(r) in want for r in rows.split(", ")), (file, rows)
