"""A Claude Code line that gives a key twice in one object (trial 27c F9): the dialect reads the last value, as every
JSON reader does, and lists each earlier value under ``dropped`` (``key given twice <path>``, its source bytes, the
value), whatever member it is; collect says a ``warning:`` naming the file, line and fields, and the readers a problem.

Real input: line 2 of a corpus transcript (-Users-alex-workspace-claude-code-log-sample), an assistant line with
usage, with a second ``input_tokens`` written into its usage (trial 27c's ``"input_tokens":…,"input_tokens":999999``),
a second ``cwd`` at its top and a second ``text`` in its first content block. The expected values are read from the
source line with Python's json.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asz_adapters_claude import convert
from asz_core import Source
from asz_core.sessiondata import keystwice
from asz_core.sessiondata.keystwice import TWICE_WHY

PROJECT = "-Users-alex-workspace-claude-code-log-sample"
SID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"


def _twice_line(path: Path) -> tuple[bytes, bytes]:
    """(line 2 of the corpus file as it is, that line with three keys given twice)."""
    line = path.read_bytes().split(b"\n")[1]
    value = json.loads(line)
    assert value["type"] == "assistant" and value["message"]["content"][0]["type"] == "text"
    usage = json.dumps(value["message"]["usage"], separators=(",", ":")).encode()
    assert usage in line and line.startswith(b'{"parentUuid"')
    twice = line.replace(usage, usage[:-1] + b',"input_tokens":999999}', 1)
    twice = b'{"cwd":"/elsewhere",' + twice[1:]
    twice = twice.replace(b'{"type":"text","text":', b'{"type":"text","text":"hidden","text":', 1)
    return line, twice


@pytest.fixture(scope="module")
def source(corpus_dir):
    path = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    return path, Source(session=SID, kind="transcript", path=path, src=f"{PROJECT}/{SID}.jsonl", dialect=convert.DIALECT)


def _twice_entries(rec) -> list:
    return [d for d in rec.dropped if d.what.startswith("key given twice ")]


@pytest.mark.parametrize("module", [True, False], ids=["compiled", "python"])
def test_the_last_value_is_read_and_each_earlier_one_listed(source, monkeypatch, module):
    path, src = source
    line, twice = _twice_line(path)
    if not module:
        monkeypatch.setattr(keystwice, "jsoncheck", None)
    assert _twice_entries(convert.convert_record(src, line, 2, 0)) == []  # the line as Claude Code wrote it
    rec = convert.convert_record(src, twice, 2, 0)
    want = json.loads(twice)  # last wins, as Python's json reads it
    assert want["message"]["usage"]["input_tokens"] == 999999 and want["cwd"] == "/Users/alex/workspace/claude-code-log"
    assert rec.usage.in_ == 999999
    assert rec.usage.out == want["message"]["usage"]["output_tokens"]
    assert rec.parts[0].text == want["message"]["content"][0]["text"]
    got = [(d.what, d.bytes, d.why) for d in _twice_entries(rec)]
    orig = json.loads(line)["message"]["usage"]["input_tokens"]
    assert got == [
        ("key given twice cwd", len(b'"/elsewhere"'), TWICE_WHY),
        ("key given twice message.content[0].text", len(b'"hidden"'), TWICE_WHY),
        ("key given twice message.usage.input_tokens", len(str(orig)), TWICE_WHY),
    ]
    # the earlier text is not carried in a why: a skeleton keeps dropped and none of the content (seed 000, Skeletons)
    assert not any("hidden" in d.why or "elsewhere" in d.why for d in rec.dropped)


def test_a_bookkeeping_line_lands_whole_and_names_it(corpus_dir):
    """A line that lands whole as one data part (a runtime bookkeeping line: the first summary line of a corpus file,
    with a second ``summary`` after its own) keeps its bytes as written, and still names the key given twice: a reader
    of the data part reads the last value."""
    path = corpus_dir / "claude-code" / "projects" / PROJECT / "fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"
    first = path.read_bytes().split(b"\n")[0]
    value = json.loads(first)
    assert value["type"] == "summary"
    line = b'{"type":"summary","summary":"hidden",' + first[len(b'{"type":"summary",'):]
    src = Source(session="s", kind="transcript", path=path, src=path.name, dialect=convert.DIALECT)
    rec = convert.convert_record(src, line, 1, 0)
    assert [p.k for p in rec.parts] == ["data"] and rec.parts[0].data.raw == line
    assert [(d.what, d.bytes) for d in _twice_entries(rec)] == [("key given twice summary", len(b'"hidden"'))]


def test_every_corpus_line_as_written_names_none_where_it_gives_none(corpus_dir):
    """Every line of the corpus: a ``key given twice`` entry exactly where Python's json finds a key twice in the line
    (counted from the source files: none do)."""
    projects = corpus_dir / "claude-code" / "projects"
    named = found = lines = 0

    def pairs(p):
        nonlocal found
        if len({k for k, _ in p}) != len(p):
            found += 1
        return dict(p)

    for path in sorted(projects.rglob("*.jsonl")):
        kind = "journal" if path.name == "journal.jsonl" else "transcript"
        src = Source(session="s", kind=kind, path=path, src=path.name, dialect=convert.DIALECT)
        for i, line in enumerate(x for x in path.read_bytes().split(b"\n") if x):
            lines += 1
            try:
                json.loads(line, object_pairs_hook=pairs)
            except ValueError:
                pass
            named += bool(_twice_entries(convert.convert_record(src, line, i + 1, 0)))
    assert lines > 3000 and named == found == 0


def test_collect_says_it_and_the_readers_show_it(source, tmp_path):
    """The real ``asz collect --once`` over the project with the line changed: one ``warning:`` naming the file, the
    line and the fields; ``asz conversation`` and ``asz ls`` show the problem."""
    from cli_helpers import asz_in_process

    path, _ = source
    projects = tmp_path / "projects"
    shutil.copytree(path.parent, projects / PROJECT)
    copy = projects / PROJECT / f"{SID}.jsonl"
    lines = copy.read_bytes().split(b"\n")
    lines[1] = _twice_line(path)[1]
    copy.write_bytes(b"\n".join(lines))
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(projects), "--root", str(root),
                       env={"CLAUDE_CONFIG_DIR": str(tmp_path / "home")})
    assert p.returncode == 0, p.stdout + p.stderr
    said = [x for x in p.stderr.splitlines() if "twice" in x]
    assert said == [f"warning: {copy}: 1 line(s) give a key twice in one object (line 2: cwd, message.content[0].text, "
                    "message.usage.input_tokens): the last value is read, as JSON readers read it, and each earlier one "
                    "is read into no field: the record lists it under dropped (asz conversation names them)"], p.stderr
    c = asz_in_process("conversation", SID, "--root", str(root), "--json")
    problems = [x for x in json.loads(c.stdout)["summary"]["problems"] if x.startswith("keys given twice: ")]
    assert len(problems) == 1 and problems[0].startswith("keys given twice: 1 record(s) whose source line gives a key twice")
    assert problems[0].endswith(" cwd, message.content[0].text, message.usage.input_tokens"), problems[0]
    rows = json.loads(asz_in_process("ls", "--root", str(root), "--json").stdout)
    assert [r["problems"] for r in rows if r["id"] == SID][0].count(problems[0]) == 1
