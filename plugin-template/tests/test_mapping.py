"""The example-codex/1 mapping on the shipped sample: values from the sample file itself."""

from pathlib import Path

from asz_core import compact

from asz_adapter_example.plugin import ExampleCodexAdapter

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def _records(session: str = "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"):
    adapter = ExampleCodexAdapter()
    [source] = [s for s in adapter.discover(SAMPLES).sources if s.session == session]
    data = source.path.read_bytes()
    off, out = 0, []
    for n, line in enumerate(data.split(b"\n")[:-1], 1):
        out.append((line, adapter.convert_line(source, line, n, off)))
        off += len(line) + 1
    return source, out


def test_session_and_roles():
    source, recs = _records()
    assert source.session == "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"
    froms = [r.from_ for _, r in recs]
    assert froms[:4] == ["runtime", "runtime", "runtime", "external"]
    assert recs[1][1].flags == ["injected", "system_prompt"]
    assert recs[3][1].flags == ["external_input"] and recs[3][1].parts[0].text == "Add a test for add(2, 3) and run it."


def test_calls_results_and_failure():
    _, recs = _records()
    call = recs[5][1].parts[0]
    result = recs[6][1].parts[0]
    assert (call.k, call.id, call.name) == ("call", "call_A1b2C3", "shell")
    assert (result.k, result.of, result.failed, result.text) == ("result", "call_A1b2C3", False, ".\n1 passed in 0.01s\n")
    assert recs[9][1].parts[0].failed is True  # exit_code 1
    # the arguments string lands as the source wrote it
    line = recs[5][0]
    start = line.index(b'"arguments":') + len(b'"arguments":')
    end = line.index(b',"call_id"')
    assert call.data.raw == compact(line[start:end])


def test_reasoning_usage_reset_unknown():
    _, recs = _records()
    reasoning = recs[4][1]
    assert reasoning.parts[0].k == "reasoning" and reasoning.parts[0].text.startswith("**Planning the test**")
    assert reasoning.dropped[0].what == "encrypted reasoning" and reasoning.dropped[0].bytes == 52
    usage = recs[7][1].usage
    assert (usage.in_, usage.out, usage.cache_read) == (1024, 210, 4096)
    assert recs[12][1].flags == ["context_reset", "reset_summary"]


def test_every_line_of_the_samples_is_described():
    """Nothing a reader could describe lands as unknown: the ghost snapshot is the runtime's data, the shell call a call."""
    for session in ("0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b", "0196a1b3-1a2b-7c3d-9e4f-5a6b7c8d9e0f"):
        _, recs = _records(session)
        assert [n for n, (_, r) in enumerate(recs, 1) if any(p.k == "unknown" for p in r.parts)] == []
    _, recs = _records()
    line, ghost = recs[-1]
    assert b'"ghost_snapshot"' in line and ghost.from_ == "runtime" and ghost.parts[0].k == "data"
    assert ghost.parts[0].data.value() == {"type": "ghost_snapshot", "ghost_commit": {"id": "9f8e7d"}}


def test_system_prompt_and_image():
    _, recs = _records("0196a1b3-1a2b-7c3d-9e4f-5a6b7c8d9e0f")
    meta = recs[0][1]
    assert meta.from_ == "runtime" and meta.flags == ["injected", "system_prompt"]  # payload.base_instructions
    line, asked = recs[3]
    text, image = asked.parts
    assert (text.k, text.text) == ("text", "And what is in this picture?")
    b64 = line.split(b"base64,")[1].split(b'"')[0].decode()
    assert (image.k, image.media, image.data, image.bytes) == ("media", "image/png", b64, len(b64))
    assert asked.from_ == "external" and asked.flags == ["external_input"]


def test_an_unknown_line_keeps_its_bytes():
    from asz_core import Source

    src = Source(session="s", kind="transcript", path=SAMPLES, src="r.jsonl", dialect="example-codex/1")
    line = b'{"timestamp":"2026-11-20T10:00:09.000Z","type":"something_new","payload":{"x":1}}'
    rec = ExampleCodexAdapter().convert_line(src, line, 1, 0)
    assert rec.parts[0].k == "unknown" and rec.parts[0].raw() == line


def _bom_records(tmp, first: bytes):
    """The sample session ``0196a1b2…`` with ``first`` (the UTF-8 byte order mark, or nothing) before its first line and
    before its third, turn_context (two files joined, each with its mark), written under ``tmp`` and converted line by
    line: [(line, record)]. The turn's model, read back from turn_context by turn.py, is on the calls after it."""
    import attrs

    source, _ = _records()
    lines = source.path.read_bytes().split(b"\n")[:-1]
    lines[0], lines[2] = first + lines[0], first + lines[2]
    path = tmp / source.path.name
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    source = attrs.evolve(source, path=path)
    off, out = 0, []
    for n, line in enumerate(lines, 1):
        out.append((line, ExampleCodexAdapter().convert_line(source, line, n, off)))
        off += len(line) + 1
    return out


def test_a_byte_order_mark_is_read_past_and_listed(tmp_path):
    """A file that opens with EF BB BF (a Windows editor) is read as the JSON after the mark: the session keeps its
    start (trial 49c F5: the first line landed as unknown, the project and runtime version were lost). The record keeps
    the whole line's size and digest, and lists the mark's 3 bytes under ``dropped`` (seed 000, Dropped), by the one
    rule of ``asz_core.past_bom``."""
    from asz_core import BOM, BOM_WHAT, BOM_WHY, BOM_WHY_LINE, source_sha

    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    plain, marked = _bom_records(tmp_path / "a", b""), _bom_records(tmp_path / "b", BOM)
    for n, ((line, rec), (mline, mrec)) in enumerate(zip(plain, marked), 1):
        if n in (1, 3):
            assert (mrec.bytes, mrec.sha) == (len(line) + 3, source_sha(mline)) and mline[:3] == b"\xef\xbb\xbf"
            why = BOM_WHY if n == 1 else BOM_WHY_LINE
            assert [(d.what, d.bytes, d.why) for d in mrec.dropped] == [(BOM_WHAT, 3, why)] + [
                (d.what, d.bytes, d.why) for d in rec.dropped]
            mrec.bytes, mrec.sha, mrec.off, mrec.dropped = rec.bytes, rec.sha, rec.off, rec.dropped
        elif n > 1:
            mrec.off = rec.off
        assert mrec == rec, n
    assert marked[0][1].cwd == "/home/dev/calc" and marked[0][1].from_ == "runtime"
    assert marked[2][1].model == marked[7][1].model == "gpt-5-codex" and marked[7][1].call


def test_a_marked_line_not_described_lands_whole_with_its_mark():
    from asz_core import BOM, Source

    src = Source(session="s", kind="transcript", path=SAMPLES, src="r.jsonl", dialect="example-codex/1")
    for line in (BOM + b'{"timestamp":"2026-11-20T10:00:09.000Z","type":"something_new","payload":{"x":1}}', BOM + b"{not json"):
        rec = ExampleCodexAdapter().convert_line(src, line, 1, 0)
        assert [p.k for p in rec.parts] == ["unknown"] and rec.parts[0].raw() == line and rec.dropped == []


def test_records_carry_no_invented_ids():
    """Codex writes no record ids and no parent links, so no record carries one (an id must be unique across the
    storage root; the kit's test_record_ids_unique_between_sessions checks the samples' sessions share none)."""
    for session in ("0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b", "0196a1b3-1a2b-7c3d-9e4f-5a6b7c8d9e0f"):
        _, recs = _records(session)
        assert [(r.id, r.parent) for _, r in recs] == [("", "")] * len(recs)


def _turn_context(session: str = "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b") -> tuple[int, dict]:
    """(line number, payload) of the sample's turn_context line, read straight from the file."""
    import json

    source, _ = _records(session)
    for n, line in enumerate(source.path.read_bytes().split(b"\n")[:-1], 1):
        obj = json.loads(line)
        if obj["type"] == "turn_context":
            return n, obj["payload"]
    raise AssertionError("no turn_context line")


def test_the_turns_model_is_on_its_call_and_the_agents_records():
    """Codex names the model once a turn, on turn_context (trial 46b F5): the token_count line that is the call, and the
    model's own records after it, carry it; the readers price and list a call by its records' model."""
    n, payload = _turn_context()
    assert (payload["model"], payload["cwd"]) == ("gpt-5-codex", "/home/dev/calc")
    _, recs = _records()
    named = {k: r.model for k, (_, r) in enumerate(recs, 1) if r.model}
    calls = [k for k, (_, r) in enumerate(recs, 1) if r.call]
    agent = [k for k, (_, r) in enumerate(recs, 1) if r.from_ == "agent"]
    assert calls == [8] and agent == [5, 6, 9, 11, 14]
    assert named == {k: "gpt-5-codex" for k in [n, *calls, *agent]}
    assert all(k > n for k in calls + agent)  # nothing before the turn names its model
    # the session_meta and turn_context lines carry the working directory: the first cwd is the project
    assert {k: r.cwd for k, (_, r) in enumerate(recs, 1) if r.cwd} == {1: "/home/dev/calc", n: "/home/dev/calc"}
    # a session with no turn_context names no model (nothing is invented)
    _, other = _records("0196a1b3-1a2b-7c3d-9e4f-5a6b7c8d9e0f")
    assert [r.model for _, r in other] == [""] * 5 and other[0][1].cwd == "/home/dev/calc"


def test_a_line_converted_alone_reads_its_turn_from_the_file():
    """A later pass converts a file from the middle, maybe in another process: the line's turn is read backward from
    its offset, so each line converts the same whatever came before (last line first here)."""
    source, recs = _records()
    data = source.path.read_bytes()
    starts = [0, *(i + 1 for i, b in enumerate(data) if b == 0x0A)][:-1]
    adapter = ExampleCodexAdapter()
    backward = {n: adapter.convert_line(source, line, n, starts[n - 1]) for n, (line, _) in reversed(list(enumerate(recs, 1)))}
    assert [(backward[n].model, backward[n].cwd) for n in range(1, len(recs) + 1)] == [(r.model, r.cwd) for _, r in recs]
    assert backward[8].model == "gpt-5-codex"


def test_the_readers_name_the_model_and_the_project(tmp_path):
    """asz conversation and the asz ls row, on the samples collected by the asz command (trial 46b F5: they read
    'models not recorded by the runtime', 'project (no working directory recorded)', 'no price for (no model)')."""
    import json
    import os
    import shutil
    import subprocess
    import sys

    src, root = tmp_path / "src", tmp_path / "root"
    shutil.copytree(SAMPLES, src)
    env = dict(os.environ, HOME=str(tmp_path))

    def asz(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "asz_core.cli.entry", *args, "--root", str(root)],
                              capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    asz("collect", "--once", "--adapter", "example-codex", "--source", str(src / "sessions"))
    _, payload = _turn_context()
    out = asz("conversation", "0196a1b2")
    assert f"\nproject {payload['cwd']}, example-codex\n" in out
    assert f"\nmodels {payload['model']}\n" in out
    assert f"no price for {payload['model']}" in out and "(no model)" not in out
    row = {r["id"][:8]: r for r in json.loads(asz("ls", "--json"))}["0196a1b2"]
    assert (row["project"], row["models"], row["llm_calls"]) == ("/home/dev/calc", ["gpt-5-codex"], 1)
    assert row["cost"]["unpriced"] == ["gpt-5-codex"]


def test_what_the_earlier_version_did_not_do_is_said():
    adapter = ExampleCodexAdapter()
    assert adapter.version == "0.3.0"
    assert adapter.landed_without("example-codex/1", "example-codex/0.1.0") == [
        "it put no model on a turn's model calls and no working directory on any record (trial 46b F5)"]
    assert adapter.landed_without("example-codex/1", "example-codex/0.2.0") == [
        "it landed a line starting with a UTF-8 byte order mark whole as unknown (trial 49c F5)"]
    assert adapter.landed_without("example-codex/1", "example-codex/0.3.0") == []
