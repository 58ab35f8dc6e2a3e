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


def test_records_carry_no_invented_ids():
    """Codex writes no record ids and no parent links, so no record carries one (an id must be unique across the
    storage root; the kit's test_record_ids_unique_between_sessions checks the samples' sessions share none)."""
    for session in ("0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b", "0196a1b3-1a2b-7c3d-9e4f-5a6b7c8d9e0f"):
        _, recs = _records(session)
        assert [(r.id, r.parent) for _, r in recs] == [("", "")] * len(recs)
