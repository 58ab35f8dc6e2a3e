"""hypothesis: random records written then read come back equal; writing them again gives the same bytes."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asz_core import FLAGS, Dropped, Header, Part, Record, SDWriter, Usage, read_file, unknown_part
from asz_core.sessiondata import encode_record
from asz_core.sessiondata.codec import decode_record

ints = st.integers(min_value=0, max_value=2**63 - 1)
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
ident = st.text(alphabet=string.ascii_letters + string.digits + "-_", max_size=20)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)


@st.composite
def parts(draw):
    k = draw(st.sampled_from(("text", "reasoning", "call", "result", "media", "data", "unknown")))
    if k == "unknown":
        raw = draw(st.binary(max_size=60))
        return unknown_part(raw, draw(text) or "the record is not valid JSON")
    data = draw(json_value)
    return Part(
        k=k,
        text=draw(text),
        data=None if data is None else data,
        id=draw(ident),
        of=draw(ident),
        name=draw(ident),
        server=draw(ident),
        server_tool=draw(ident),
        failed=draw(st.none() | st.booleans()),
        media=draw(st.sampled_from(("", "image/png"))),
        state=draw(st.sampled_from(("available", "truncated", "redacted", "omitted", "unavailable", "too_large"))),
        bytes=draw(ints),
    )


@st.composite
def records(draw):
    usage = draw(st.none() | st.builds(Usage, in_=ints, out=ints, cache_read=ints, cache_write=ints))
    if usage is not None and usage.is_empty():
        usage = None  # an all-zero usage is written as absent and reads back as absent
    return Record(
        ord=draw(ints), off=draw(ints), sha=draw(st.sampled_from(("", "4fed1b624096"))), bytes=draw(ints),
        id=draw(ident), parent=draw(ident), call=draw(ident), run=draw(ident), continues=draw(ident), tool=draw(ident),
        child=draw(ident), batch=draw(ident), label=draw(text), started_by=draw(ident),
        from_=draw(st.sampled_from(("", "agent", "external", "runtime"))), time=draw(st.sampled_from(("", "2026-08-06T16:57:22.652Z"))),
        trigger=draw(st.sampled_from(("", "external", "notification", "unknown"))),
        flags=draw(st.lists(st.sampled_from(FLAGS), max_size=3)), usage=usage, model=draw(ident),
        parts=draw(st.lists(parts(), max_size=4)),
        dropped=draw(st.lists(st.builds(Dropped, what=text.filter(bool), bytes=ints, why=text), max_size=2)),
    )


@settings(max_examples=300, deadline=None)
@given(records())
def test_record_roundtrip_bytes_stable(rec):
    line = encode_record(rec)
    back = decode_record(line)
    assert back == rec
    assert encode_record(back) == line


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(records(), max_size=6))
def test_file_roundtrip(tmp_path_factory, recs):
    d = tmp_path_factory.mktemp("rt")
    hdr = Header(kind="transcript", session="s", src="x.jsonl", dialect="mock/1", adapter="mock/0.2.0", seq=3)
    w = SDWriter(d / "a.sd", hdr)
    for r in recs:
        w.write(r)
    first = w.close()
    h, back, closing = read_file(first.path)
    assert back == recs and closing.records == len(recs) and h.seq == 3
    w2 = SDWriter(d / "b.sd", h)
    for r in back:
        w2.write(r)
    second = w2.close()
    assert second.path.read_bytes() == first.path.read_bytes()
