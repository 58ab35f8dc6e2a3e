"""The codex/1 mapping on the shipped sample: values from the sample file itself."""

from pathlib import Path

from asz_core import compact

from asz_adapter_codex.plugin import CodexAdapter

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def _records():
    adapter = CodexAdapter()
    [source] = [s for s in adapter.discover(SAMPLES).sources if s.session == "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"]
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
    last_line, last = recs[-1]
    assert last.parts[0].k == "unknown" and last.parts[0].raw() == last_line
