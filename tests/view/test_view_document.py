"""The asz.view document (issue 6): golden against the original's example, corpus, YAML, rounds, withholding."""

from __future__ import annotations

import re
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from asz_core.testing.scenario.build import build
from asz_core.testing.scenario.model import load_scenario
from asz_core.view import build_view, list_conversations, to_json, to_yaml
from asz_core.termsafe import INVISIBLE, UNSAFE
from asz_core.view.document import TEXT_LIMIT, ViewError, clip_text

from view_added_keys import strip_added
from cli_helpers import asz_in_process, land_again

FIXTURE_SESSION = "00000001-0000-4000-8000-000000000001"


def _walk(a, b, path, out, ignore):
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            out.append(f"{path}: keys {list(a)} != {list(b)}")
        for k in a:
            if k in b and f"{path}.{k}" not in ignore and k not in ignore:
                _walk(a[k], b[k], f"{path}.{k}", out, ignore)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, f"{path}[{i}]", out, ignore)
    elif a != b:
        out.append(f"{path}: {a!r:.80} != {b!r:.80}")


@pytest.fixture(scope="module")
def fixture_root(tmp_path_factory, shared_dir):
    out = tmp_path_factory.mktemp("fixture") / "root"
    sc = load_scenario(shared_dir / "conformance/scenarios/fixture.yaml")
    build(sc, "claude-code", out, at="2026-01-01T00:00:00Z", stepwise=False)
    return out


def _nodes(node: dict):
    """``node`` and every node under it (its ``children``, any depth)."""
    yield node
    for child in node.get("children") or ():
        yield from _nodes(child)


def test_golden_fixture_document(fixture_root, shared_dir):
    """Every key and every value that does not depend on exact file bytes equals the original's example."""
    ours = strip_added(json.loads(to_json(build_view(fixture_root, FIXTURE_SESSION))))
    theirs = yaml.safe_load((shared_dir / "conformance/fixtures/asz-view-example.yaml").read_text())
    # keys this 1.x document adds (a 1.x only adds keys): undescribed bytes, none in the fixture
    assert ours.pop("undescribed") == [] and ours["summary"].pop("undescribed") == 0
    assert ours["summary"].pop("cut") == {}  # parts cut to land, none in the fixture
    # what each kind of token cost, as asz conversation says it (trial 27a F3): a key 1.x adds
    kinds = ours["summary"].pop("cost_by_kind_line")
    assert [re.split(r" <?\$", k)[0] for k in kinds.split(", ")] == ["input", "output", "cache write 5m", "cache write 1h", "cache read"]
    # model calls, one per message id + request id: the fixture's calls each name one request id, one per node, but
    # the one whose message the client wrote itself (its child a message.synthetic step: an API error notice) is no call
    calls = [n for t in theirs["talks"] for n in _nodes(t) if n.get("kind") == "llm.call"]
    synthetic = [n for n in calls if any(c.get("kind") == "message.synthetic" for c in n.get("children") or ())]
    assert len(calls) == theirs["summary"]["kinds"]["llm.call"] == 6 and len(synthetic) == 1
    assert ours["summary"].pop("llm_calls") == 5
    # of which carry usage: the example's llm.call nodes with a usage object (not the synthetic one: "unavailable")
    assert ours["summary"].pop("calls_with_usage") == sum(1 for n in calls if isinstance(n.get("usage"), dict))
    # calls per tool name (trial 30b F2): a key 1.x adds; the example's tool steps, counted by name
    named = {}
    for n in (n for t in theirs["talks"] for n in _nodes(t) if n.get("kind") in ("tool", "agent.call")):
        named[n["name"]] = named.get(n["name"], 0) + 1
    assert {t["name"]: t["calls"] for t in ours["summary"].pop("calls_by_tool")} == named != {}
    # issue 18: the 16 records with content are all drawn: 15 by a step, the child's prompt on its talk
    assert ours.pop("not_drawn") == []
    assert ours["summary"].pop("coverage") == {"cited": 16, "records": 16, "by_node": 16, "listed": 0}
    child = next(t for t in ours["talks"] if t["id"] == "talk/a0a10ef0666c4dc7e")
    assert child.pop("prompt") == "check the tests"
    # Relations: seed 004 orders them by when things happened; the example lists them by id. Same set.
    assert sorted(ours["relations"], key=lambda r: r["id"]) == theirs["relations"]
    diffs: list[str] = []
    ignore = {"digest", "input_digest", ".relations", ".summary"}
    _walk(ours, theirs, "", diffs, ignore)
    known = {
        # file bytes: our writer's records differ in size from the original's (digest and byte values)
        *(f".files[{i}].bytes: " for i in range(4)),
        ".files[4].file: ",  # the round file name carries the round's digest
        ".loose[0].text: ",  # the boundary's data part keeps the whole source record, not a re-encoded subset
        ".loose[0].bytes: ",
    }
    unexpected = [d for d in diffs if not any(d.startswith(k) for k in known)]
    assert unexpected == []
    # summary: same values; seed 004 adds withheld ({} when nothing is withheld)
    assert ours["summary"].pop("withheld") == {}
    assert ours["summary"] == theirs["summary"]
    # workspace changes: the one plugin record, joined to the Bash step
    assert ours["workspace_changes"][0]["step"] == "tool/tool-run-make-build"
    assert ours["workspace_changes"] == theirs["workspace_changes"]


def test_relations_edges_in_time_order(fixture_root):
    doc = build_view(fixture_root, FIXTURE_SESSION)
    # the earliest evidence first: the talk's segment edge (row 2) before the launch (row 11) before the report (row 12)
    ids = [r["id"] for r in doc["relations"]]
    assert ids.index("rel/in_segment/talk_main_s1-cycle/segment_at_1_2") < ids.index("rel/starts/tool_s5-tool/stream_a0a10ef0666c4dc7e")
    assert ids.index("rel/starts/tool_s5-tool/stream_a0a10ef0666c4dc7e") < ids.index("rel/reports/notify_1_12/stream_a0a10ef0666c4dc7e")


def test_yaml_reads_back_to_the_json(fixture_root):
    doc = build_view(fixture_root, FIXTURE_SESSION)
    text = to_yaml(doc)
    assert 'version: "1.0"' in text or "version: '1.0'" in text
    assert yaml.safe_load(text) == json.loads(to_json(doc))


def test_yaml_escapes_each_character_its_json_escapes():
    """A text holding a bidi override, isolate, zero-width space, line separator, DEL, C1 or ESC is written
    double-quoted with each as its escape, the rest (an emoji, an accent, a quote, a backslash, a line break) as
    YAML would, and reads back the same (trial 42a F7): the characters are termtext.json_visible's."""
    doc = {"a": "bidi A\u202eB C\u2066D E\u200bF", "b": "two\nlines \u202e x\u2028y\u2029", "c": "\x1b[31m \x7f \x85 \x9b \ufeff \"q\" \\ \U0001F433 é",
           "plain": "kept as it is: é 日本語 \U0001F433", "many": "x\ny"}
    text = to_yaml(doc)
    assert yaml.safe_load(text) == doc
    assert [hex(ord(c)) for c in text if ord(c) in UNSAFE or ord(c) in INVISIBLE or ord(c) in (0x2028, 0x2029)] == []
    assert 'a: "bidi A\\u202EB C\\u2066D E\\u200BF"' in text.splitlines()
    assert "plain: 'kept as it is: é 日本語 \U0001F433'" in text.splitlines() or "plain: kept as it is: é 日本語 \U0001F433" in text.splitlines()
    assert "many: |-" in text.splitlines()  # a text with line breaks alone stays a block scalar


def test_missing_landed_file_is_content_not_an_error(tmp_path, shared_dir):
    out = tmp_path / "root"
    build(load_scenario(shared_dir / "conformance/scenarios/fixture.yaml"), "claude-code", out, at="2026-01-01T00:00:00Z", stepwise=False)
    meta = next((out / FIXTURE_SESSION / "streams").rglob("meta-*.sd"))
    meta.chmod(0o644)
    meta.unlink()
    doc = build_view(out, FIXTURE_SESSION)
    assert doc["summary"]["state"] == "incomplete"
    assert any("seq 4" in p and "missing" in p for p in doc["summary"]["problems"])
    assert doc["rounds"][0]["verified"] is False
    assert doc["summary"]["talks"] == 3  # the rest is still shown


def test_undescribed_records_are_listed(tmp_path):
    """Lines the dialect cannot describe are in the document even where no step is drawn (fresh-user report)."""
    import shutil

    src = tmp_path / "projects"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples/claude-code/projects", src)
    main = next(src.glob("*/*.jsonl"))
    with open(main, "ab") as f:
        f.write(b"this is not json\n")
        f.write(b'{"type":"never-seen","sessionId":"x"}\n')
    root = tmp_path / "root"
    col = asz_in_process("collect", "--once", "--source", str(src), "--root", str(root))
    assert col.returncode == 0, col.stderr
    [conv] = list_conversations(root)
    doc = build_view(root, conv)
    reasons = [e["reason"] for e in doc["undescribed"]]
    assert doc["summary"]["undescribed"] == 2 and len(reasons) == 2
    assert "not valid JSON" in reasons[0] and "never-seen" in reasons[1]
    assert all(e["ref"]["seq"] >= 1 and e["bytes"] > 0 for e in doc["undescribed"])


def test_parts_cut_to_land_are_counted(tmp_path):
    """A prompt larger than the landing budget lands too_large; the summary says so (fresh-user report)."""
    import shutil

    src = tmp_path / "projects"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples/claude-code/projects", src)
    main = next(src.glob("*/*.jsonl"))
    first = json.loads(main.read_bytes().split(b"\n", 1)[0])
    big = dict(first, uuid="aaaaaaaa-0000-4000-8000-000000000001", parentUuid=first.get("uuid"), type="user",
               message={"role": "user", "content": "pasted log " + "0123456789" * 40_000})
    with open(main, "ab") as f:
        f.write(json.dumps(big).encode() + b"\n")
    root = tmp_path / "root"
    col = asz_in_process("collect", "--once", "--source", str(src), "--root", str(root), "--max-delta-bytes", "65536")
    assert col.returncode == 0, col.stderr
    assert " shrunk=1 " in col.stdout
    [conv] = list_conversations(root)
    cut = build_view(root, conv)["summary"]["cut"]
    assert cut == {"truncated": 0, "too_large": 1, "bytes": len("pasted log " + "0123456789" * 40_000)}


@pytest.mark.parametrize("bad", ["../x", "..", ".", "a/b", "a\\b", "_conversations", "", ".hidden"])
def test_a_conversation_id_never_leaves_the_root(tmp_path, bad):
    """An id is a name under _conversations/, never a path (second fresh-user report)."""
    outside = tmp_path / "x" / "_conversations" / "c" / "rounds"
    outside.mkdir(parents=True)
    with pytest.raises(ViewError, match="not a conversation id"):
        build_view(tmp_path / "root", bad)


def test_no_round_is_an_error(tmp_path):
    with pytest.raises(ViewError, match="no rounds"):
        build_view(tmp_path, "nothing-here")


def test_clip_at_character_boundary():
    text = "é" * 1500  # 3,000 bytes
    clipped = clip_text(text)
    assert len(clipped.encode()) <= TEXT_LIMIT and clipped == "é" * 1000


def test_three_rounds_equal_one_parse(tmp_path, shared_dir):
    """The head reached in three rounds gives the document one parse of the same landed files gives."""
    import shutil

    from asz_core.flow.parse import parse_root

    sc = load_scenario(shared_dir / "conformance/scenarios/three-rounds.yaml")
    staged, single = tmp_path / "staged", tmp_path / "single"
    build(sc, "claude-code", staged, at="2026-01-01T00:00:00Z", stepwise=True)
    shutil.copytree(staged, single, symlinks=True)
    shutil.rmtree(single / "_conversations")
    for index in single.glob("*/index"):
        shutil.rmtree(index)
    report = parse_root(single)
    assert report is not None
    [conv] = list_conversations(staged)
    a, b = build_view(staged, conv), build_view(single, conv)
    assert a["summary"]["rounds"] == 3 and b["summary"]["rounds"] == 1
    for key in ("talks", "loose", "streams", "segments", "relations", "unresolved", "workspace_changes", "tool_executions"):
        assert a[key] == b[key], key
    assert [f for f in a["files"] if f["format"] == "sd"] == [f for f in b["files"] if f["format"] == "sd"]
    sa, sb = dict(a["summary"]), dict(b["summary"])
    sa.pop("rounds"), sb.pop("rounds")
    assert sa == sb


def test_withholding(tmp_path, shared_dir):
    sc = load_scenario(shared_dir / "conformance/scenarios/prompt-snapshot-withheld.yaml")
    out = tmp_path / "root"
    build(sc, "claude-code", out, at="2026-01-01T00:00:00Z", stepwise=False)
    [conv] = list_conversations(out)
    open_doc = build_view(out, conv)
    hidden = build_view(out, conv, hide=["system_prompt", "tool_schemas"])
    assert open_doc["summary"]["withheld"] == {}
    assert hidden["summary"]["withheld"]["system_prompt"] == 2 and hidden["summary"]["withheld"]["tool_schemas"] == 1
    assert hidden["summary"]["captured_prompts"] == 0
    # names in the flags' documented order whatever order they were asked in (a document is the same on every run)
    reverse = build_view(out, conv, hide=["tool_schemas", "system_prompt"])
    assert list(reverse["summary"]["withheld"]) == ["system_prompt", "tool_schemas", "provider_bodies"]
    assert reverse == hidden

    def steps(doc):
        out = []
        stack = list(doc["talks"]) + list(doc["loose"])
        while stack:
            n = stack.pop()
            out.append(n)
            stack.extend(n.get("children", []))
        return {n["id"]: n for n in out}

    for nid, n in steps(hidden).items():
        if set(n.get("flags", [])) & {"system_prompt", "tool_schemas"} and n["kind"] != "llm.call":
            assert "text" not in n and n["state"] == "omitted", nid
            assert steps(open_doc)[nid].get("text") or steps(open_doc)[nid].get("state") != "omitted"
    with pytest.raises(ValueError, match="not a withholdable flag"):
        build_view(out, conv, hide=["secrets"])


@pytest.fixture(scope="module")
def corpus_root(corpus_copy):
    """The corpus collected and parsed (a copy of the run's once-collected root, tests/conftest.py)."""
    return corpus_copy()


def test_every_corpus_conversation_verifies_and_yaml_reads_back(corpus_root):
    convs = list_conversations(corpus_root)
    assert len(convs) == 11
    for conv in convs:
        doc = build_view(corpus_root, conv)
        assert doc["summary"]["state"] == "verified", (conv, doc["summary"]["problems"])
        assert doc["summary"]["talks"] >= 1 and doc["talks"]
        assert yaml.load(to_yaml(doc), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) == json.loads(to_json(doc)), conv  # libyaml reads the same YAML, faster


def test_records_landed_again_by_an_interrupted_pass_count_once(tmp_path, corpus_dir):
    """Records landed again (a pass of an older asz killed after a file landed and before its cursor moved, a
    third-party writer): a stream's ``records`` counts each source line once, as before."""
    src = tmp_path / "projects"
    name = "-experiments-worktrees"
    if not (corpus_dir / "claude-code/projects" / name).is_dir():
        pytest.skip(f"{name} is absent from the corpus")
    shutil.copytree(corpus_dir / "claude-code/projects" / name, src / name)
    root = tmp_path / "root"

    def asz(*args):
        p = asz_in_process(*args)
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout

    asz("collect", "--once", "--source", str(src), "--root", str(root))
    [conv] = list_conversations(root)
    before = {s["name"]: s["records"] for s in build_view(root, conv)["streams"]}
    main_file = next(src.rglob(f"{conv}.jsonl"))
    lines = main_file.read_bytes().count(b"\n")
    assert before["main"] == lines
    assert land_again(root, conv) == lines  # as a pass killed before its cursor moved did before 2026-12-02
    asz("parse", "--root", str(root))
    assert f"{lines} record(s) landed more than once" in asz("verify", "--root", str(root))
    after = build_view(root, conv)
    assert {s["name"]: s["records"] for s in after["streams"]} == before
    assert after["summary"]["state"] == "verified"
