"""``asz export --format text``: the audit form as plain text a model reads, no JSON (trial 27b F4: the recommended
``--audit`` was JSON Lines, about 69 % keys, and 308 tool call lines of a day held raw JSON: TodoWrite, AskUserQuestion,
ExitPlanMode arguments; ``--format md --brief`` could not take ``--in-range-only``).

The counts are the corpus's own: the tool_use blocks of each name in the Claude Code transcripts, the todos'
contents, and b25638d7's lines of one day (as tests/reading/test_audit_closed_day.py builds it)."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import asz, planted_root
from view_server_helpers import collect_and_parse

NESTED = ("TodoWrite", "AskUserQuestion", "ExitPlanMode")
BLOCK_HEAD = re.compile(r"^\[(?P<ts>[^\]]*)\] (?P<said>.*)$")


def _source_calls(corpus_source: Path) -> list[dict]:
    """Every tool_use block of the corpus's Claude Code transcripts (main and sub-agent files), deduplicated by id."""
    seen: dict[str, dict] = {}
    for path in sorted(corpus_source.rglob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(raw)
            except ValueError:
                continue
            content = (d.get("message") or {}).get("content") if isinstance(d, dict) else None
            for b in content if isinstance(content, list) else ():
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    seen.setdefault(b["id"], b)
    return list(seen.values())


def _blocks(text: str) -> list[list[str]]:
    """The text form's blocks (a header or one line), split at its blank-line-then-[TS] / === boundaries; a text's
    lines without their quote (``| ``, ``|`` on an empty one: trial 34c F1). Every line of a line's block after its
    ``[TS]`` head but asz's own ``error: N bytes, …`` and ``executed: …`` lines is a text's, so it must be quoted (the block's last, empty line ends it): an unquoted one fails here
    (review34: this helper took quoted and unquoted lines alike, so these tests passed with the quoting undone)."""
    out: list[list[str]] = []
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("=== conversation ") or (BLOCK_HEAD.match(line) and (not out or out[-1][-1] == "")):
            out.append([line])
        elif not out:
            continue
        elif out[-1][0].startswith("=== "):
            out[-1].append(line)  # a header's own lines (key: value) are asz's, never quoted
        elif line.startswith(("error: ", "executed: ")):
            out[-1].append(line)  # asz's own lines in a line's block: an error's size (render 11), an execution record
        else:
            assert line.startswith("| ") or line in ("|", ""), f"line {n}: a text's line not quoted: {line[:80]!r}"
            out[-1].append(line[2:] if line.startswith("| ") else "" if line == "|" else line)
    return out


@pytest.fixture(scope="module")
def whole(corpus_root) -> str:
    p = asz("export", "--root", str(corpus_root), "--since", "2000-01-01", "--format", "text", "--tz", "UTC")
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_nested_tool_inputs_are_key_value_lines_not_json(whole, corpus_source):
    calls = [c for c in _source_calls(corpus_source) if c["name"] in NESTED]
    counts = {n: sum(c["name"] == n for c in calls) for n in NESTED}
    assert counts["TodoWrite"] > 0 and counts["AskUserQuestion"] > 0 and counts["ExitPlanMode"] > 0
    blocks = [b for b in _blocks(whole) if len(b) > 1 and b[0].split("] ", 1)[-1].startswith("tool_call")]
    for name in NESTED:
        mine = [b for b in blocks if b[1].startswith(f"{name}: ")]
        assert len(mine) == counts[name], name
    for b in blocks:  # no tool call line writes its input as JSON
        assert not re.match(r"^[A-Za-z_]+: [\[{]", b[1]), b[:3]
    todos = [b for b in blocks if re.fullmatch(r"TodoWrite: \d+ field\(s\)", b[1])]
    assert len(todos) == counts["TodoWrite"]  # every TodoWrite's input is nested: written field by field
    contents = [t["content"] for c in calls if c["name"] == "TodoWrite" for t in c["input"]["todos"]]
    written = [line.split(": ", 1)[1] for b in todos for line in b[2:] if re.match(r"^todos\.\d+\.content: ", line)]
    assert all(int(b[1].split()[1]) == sum(1 for line in b[2:] if re.match(r"^todos\.\d+\.\w+: ", line)) for b in todos)
    assert sorted(written) == sorted(" ".join(x.split())[:200] if len(" ".join(x.split())) <= 200
                                     else " ".join(x.split())[:199] + "…" for x in contents)


def test_the_headers_count_what_the_audit_counts(whole, corpus_root):
    audit = asz("export", "--root", str(corpus_root), "--since", "2000-01-01", "--audit", "--tz", "UTC").stdout
    heads = [json.loads(x) for x in audit.splitlines() if '"kind":"conversation"' in x]
    blocks = _blocks(whole)
    mine = [b for b in blocks if b[0].startswith("=== conversation ")]
    assert [b[0] for b in mine] == [f"=== conversation {h['conversation']} ===" for h in heads]
    for b, h in zip(mine, heads):
        said = dict(line.split(": ", 1) for line in b[1:] if ": " in line)
        assert said["lines"] == ", ".join(f"{k} {v}" for k, v in h["lines"].items())
        assert said["state"] == h["state"] and said["title"] == (h["title"] or "none")
    turns = [b for b in blocks if not b[0].startswith("=== ")]
    assert len(turns) == sum(sum(h["lines"].values()) for h in heads)
    assert not any(line.startswith('{"conversation"') for line in whole.splitlines())


def _later(line: bytes) -> bytes:
    ts = json.loads(line)["timestamp"]
    t = datetime.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S") + timedelta(days=1)
    return line.replace(f'"timestamp":"{ts}"'.encode(), f'"timestamp":"{t:%Y-%m-%dT%H:%M:%S}{ts[19:]}"'.encode(), 1)


def test_a_closed_days_text_stays_byte_for_byte_and_holds_the_days_lines_only(corpus_source, tmp_path):
    """b25638d7's first 24 lines on 2025-09-29, the rest re-dated to the next day and collected later (as
    tests/reading/test_audit_closed_day.py): the day's text file is the same bytes before and after, and each of its
    lines is of the day."""
    folder, sid = "-Users-alex-workspace-personal-site-next", "b25638d7-b104-4f06-a797-70ac33d069ed"
    lines = (corpus_source / folder / f"{sid}.jsonl").read_bytes().splitlines(keepends=True)
    source, root = tmp_path / "projects", tmp_path / "root"
    (source / folder).mkdir(parents=True)
    transcript = source / folder / f"{sid}.jsonl"
    transcript.write_bytes(b"".join(lines[:24]))
    collect_and_parse(source, root)

    def day(d: str) -> bytes:
        p = asz("export", "--since", d, "--until", d, "--tz", "UTC", "--format", "text", "--in-range-only",
                "--root", str(root))
        assert p.returncode == 0, p.stderr
        return p.stdout.encode()

    before = day("2025-09-29")
    with open(transcript, "ab") as f:
        f.write(b"".join(_later(x) for x in lines[24:]))
    collect_and_parse(source, root)
    after = day("2025-09-29")
    assert hashlib.sha256(after).hexdigest() == hashlib.sha256(before).hexdigest()
    times = [m["ts"] for b in _blocks(after.decode()) if (m := BLOCK_HEAD.match(b[0]))]
    source_times = {json.loads(x)["timestamp"] for x in lines[:24]}
    assert times and all(t in source_times for t in times)  # every line is a record of the day
    nxt = [m["ts"] for b in _blocks(day("2025-09-30").decode()) if (m := BLOCK_HEAD.match(b[0]))]
    assert nxt and all(t.startswith("2025-09-30") for t in nxt)


PW = "Tr0ub4dor&3-horse-battery"
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"


def _plant(lines: list[dict]) -> None:
    lines[1]["message"]["content"] = f"{lines[1]['message']['content']} The db password is {PW}; token {GITHUB}."


def test_the_text_form_masks_as_audit_does_and_its_manifest_checks(corpus_dir, tmp_path):
    root = planted_root(corpus_dir, tmp_path, "claude-code/projects/-home-user-claude-reliability/"
                        "de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl", _plant)
    out = tmp_path / "c.txt"
    p = asz_in_process("export", "de3b8b19", "--format", "text", "--root", str(root), "--out", str(out))
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert PW not in text and GITHUB not in text and "password is ***" in text and f"ghp_…{GITHUB[-4:]}" in text
    assert "credentials: masked yes, written (places 2, credentials 2)" in text
    assert "masked 2 place(s) of 2 credential(s)" in p.stderr
    checked = asz_in_process("verify", "--export", str(out), "--root", str(root))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_forms_it_is_given_with(corpus_root):
    ok = asz("export", "--root", str(corpus_root), "--since", "2025-11-14", "--until", "2025-11-14", "--tz", "UTC",
             "--format", "text", "--audit", "--in-range-only")
    assert ok.returncode == 0 and ok.stdout.startswith("=== conversation "), ok.stderr
    brief = asz("export", "--root", str(corpus_root), "--since", "2025-11-14", "--format", "text", "--brief", check=False)
    assert brief.returncode == 2 and "--brief is a form of --format md, not of text" in brief.stderr


def test_several_as_text_into_one_file_txt_and_its_size_line(corpus_root, tmp_path):
    """Several conversations as text with --out FILE.txt get the one stream stdout gets, and the size line counts that
    file's own bytes, read as the whole text (it has no keys to count)."""
    day = ("--since", "2025-11-14", "--until", "2025-11-14", "--tz", "UTC", "--format", "text", "--in-range-only")
    streamed = asz("export", "--root", str(corpus_root), *day)
    out = tmp_path / "day.txt"
    p = asz("export", "--root", str(corpus_root), *day, "--out", str(out))
    assert p.returncode == 0, p.stderr
    data = out.read_bytes()
    assert data == streamed.stdout.encode() and data.count(b"=== conversation ") >= 1
    assert (f"asz export: written {len(data):,} bytes ≈ {len(data) // 4:,} tokens (bytes ÷ 4, the whole text)"
            in p.stderr), p.stderr
    manifest = json.loads((tmp_path / "day.txt.manifest.json").read_text())  # the stream's manifest (README)
    assert manifest["export"]["sha256"] == hashlib.sha256(data).hexdigest()
    checked = asz("verify", "--export", str(out), "--root", str(corpus_root), check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
