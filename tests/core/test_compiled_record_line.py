"""A record's landed line made in one compiled call (``bytescan.record_line``; issue 22, session 20): for every record
it takes, the bytes :func:`~asz_core.sessiondata.codec.encode_record_py` makes; every record of another shape is
left to the Python (None), which decides (and raises where orjson raises).

Compared on every record the shared corpus's Claude Code, Kiro and LangChain sources convert to, on hand-made records
of each shape the C writes or passes over (escapes, U+2028/U+2029 in writer strings and in source bytes, lone
surrogates, big integers, RawJSON parts, unknown parts, dropped lists, subclasses, floats) and on hypothesis records.
"""

from __future__ import annotations

import string
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_adapters_kiro.plugin import KiroAdapter
from asz_adapters_langchain.plugin import LangsmithIngest
from asz_core import Source
from asz_core.sessiondata import Part, RawJSON, Record, Usage
from asz_core.sessiondata.codec import encode_record, encode_record_py
from asz_core.sessiondata.model import Dropped, unknown_part
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.sessiondata.slim import line_and_slim, record_ts, slim_of_record_py

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"

pytestmark = pytest.mark.skipif(bytescan is None or not hasattr(bytescan, "record_line"), reason="bytescan is not built")


def compiled(r: object) -> bytes | None:
    return bytescan.record_line(r, Record, Part, Usage, RawJSON, Dropped)


def same(r: Record) -> bytes | None:
    """The compiled line when it made one (asserted equal to the Python's), else None; with the index line, both in
    one call (``record_line`` with ``record_ts``, :func:`line_and_slim`) the same as each made alone."""
    got, want = compiled(r), encode_record_py(r)
    if got is not None:
        assert got == want
    assert encode_record(r) == want
    slim = slim_of_record_py(r)
    both = bytescan.record_line(r, Record, Part, Usage, RawJSON, Dropped, record_ts)
    assert both is None if got is None else (both[0] == want and (both[1] is None or orjson.dumps(both[1]) == orjson.dumps(slim)))
    line, made = line_and_slim(r)
    assert line == want and orjson.dumps(made) == orjson.dumps(slim)
    return got


def _records(adapter, root: Path, dialect: str) -> list[Record]:
    out = []
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()):
        data = path.read_bytes()
        src = Source(session="s", kind="transcript", path=path, src=path.relative_to(root).as_posix(), dialect=dialect,
                     mode="snapshot" if path.suffix == ".json" else "append")
        if path.suffix == ".json":
            out.append(adapter.convert_document(src, data.rstrip(b"\n")))
            continue
        off = 0
        for i, line in enumerate(data.split(b"\n")[:-1], start=1):
            out.append(adapter.convert_line(src, line, i, off))
            off += len(line) + 1
    return out


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is absent (the shared corpus is not beside the repo)")
@pytest.mark.parametrize("adapter,folder,dialect,least", [
    (ClaudeCodeLocal, "claude-code/projects", "claude-code/1", 3140), (KiroAdapter, "kiro", "kiro/1", 4),
    (LangsmithIngest, "langchain", "langsmith/1", 4)], ids=["claude-code", "kiro", "langchain"])
def test_every_corpus_record_the_same(adapter, folder, dialect, least) -> None:
    recs = _records(adapter(), SHARED / folder, dialect)
    assert len(recs) >= least
    made = [same(r) for r in recs]
    # every corpus record is the C's: the adapters write strings, ints, bools and RawJSON only
    assert sum(m is not None for m in made) == len(recs)
    # and with the index line: the records whose slim the C leaves to the Python are the data parts the read decodes
    slims = [bytescan.record_line(r, Record, Part, Usage, RawJSON, Dropped, record_ts)[1] for r in recs]
    assert all(any(p.k == "data" for p in r.parts) for r, m in zip(recs, slims) if m is None)


def usual() -> Record:
    return Record(ord=3, off=120, sha="ab" * 6, bytes=88, id="u1", parent="u0", call="c", run="r", continues="k",
                  tool="t", child="ch", batch="b", label="l", started_by="sb", from_="agent",
                  time="2026-12-03T20:00:01.250Z", trigger="tr", flags=["sidechain", "meta"],
                  usage=Usage(in_=5, out=0, cache_read=9, cache_write=2, cache_write_1h=1), model="m", cwd="/w",
                  git_branch="main", runtime_version="2.1", request="req", replaced=2,
                  dropped=[Dropped("reasoning signature", 12, "why"), Dropped("x", 0, "")],
                  parts=[Part(k="text", text="hi", bytes=2), Part(k="call", id="t1", name="Bash", bytes=9, failed=False),
                         Part(k="data", data=RawJSON(b'{"a":1}'), bytes=7, state="truncated", sha256="cd" * 32),
                         Part(k="result", of="t1", failed=True, data=RawJSON(b'"x"'), bytes=3, server="s",
                              server_tool="st", media="image/png", encoding="base64")])


def test_the_usual_record_made_in_c() -> None:
    got = same(usual())
    assert got == (
        b'{"ord":3,"off":120,"sha":"abababababab","bytes":88,"id":"u1","parent":"u0","call":"c","run":"r",'
        b'"continues":"k","tool":"t","child":"ch","batch":"b","label":"l","started_by":"sb","from":"agent",'
        b'"time":"2026-12-03T20:00:01.250Z","trigger":"tr","flags":["sidechain","meta"],'
        b'"usage":{"in":5,"cache_read":9,"cache_write":2,"cache_write_1h":1},"model":"m","cwd":"/w",'
        b'"git_branch":"main","runtime_version":"2.1","request":"req","parts":[{"k":"text","text":"hi",'
        b'"state":"available","bytes":2},{"k":"call","id":"t1","name":"Bash","failed":false,"state":"available",'
        b'"bytes":9},{"k":"data","data":{"a":1},"state":"truncated","bytes":7,"sha256":"' + b"cd" * 32 + b'"},'
        b'{"k":"result","data":"x","of":"t1","server":"s","server_tool":"st","failed":true,"media":"image/png",'
        b'"encoding":"base64","state":"available","bytes":3}],"dropped":[{"what":"reasoning signature","bytes":12,'
        b'"why":"why"},{"what":"x","bytes":0}],"replaced":2}')


def test_an_empty_record() -> None:
    assert same(Record()) == b'{"ord":0,"off":0,"bytes":0}'
    assert same(Record(usage=Usage(), parts=[Part(k="")])) == b'{"ord":0,"off":0,"bytes":0,"parts":[{"k":"","state":"available","bytes":0}]}'


def test_escapes_as_orjson_writes_them() -> None:
    every = "".join(map(chr, range(0x20))) + '\x7f"\\/<>&\u00e9\u2027\u2028\u2029\u202a\U0001f600 \u20ac'
    r = Record(id=every, parts=[Part(k="text", text=every * 3, data={every: [every, {"": every}]})])
    got = same(r)
    assert b"\\u0000\\u0001" in got and b"\\b\\t\\n\\u000b\\f\\r" in got and b"\\u001f\x7f\\\"\\\\/<>&" in got
    assert b"\\u2028\\u2029" in got and "\u2027".encode() in got and "\u202a".encode() in got
    assert "\u2028".encode() not in got
    long = ("x" * 37 + "\n" + "é" * 20 + "\u2028") * 500  # past the 16-byte steps, escapes between them
    assert same(Record(parts=[Part(k="text", text=long)])) is not None


def test_source_bytes_go_in_verbatim() -> None:
    # a raw U+2028 in source JSON stays raw; the writer's own strings beside it are escaped (encode_value)
    raw = RawJSON('{"q":"\u2028","e":"\\u2029"}'.encode())
    got = same(Record(id="a\u2028", parts=[Part(k="data", data=raw), Part(k="data", data=[raw, "\u2029", raw])]))
    assert got.count("\u2028".encode()) == 3 and b'"id":"a\\u2028"' in got and b'"\\u2029"' in got
    assert same(Record(parts=[Part(k="data", data=RawJSON(b""))])) == \
        b'{"ord":0,"off":0,"bytes":0,"parts":[{"k":"data","data":,"state":"available","bytes":0}]}'


def test_unknown_parts() -> None:
    for raw in (b'{"not": json', b"\xff\xfe\x00binary", "caf\u00e9 \u2028".encode()):
        assert same(Record(ord=1, parts=[unknown_part(raw, "the record is not valid JSON")])) is not None


def test_integers_at_the_edges() -> None:
    for v in (0, 1, -1, 2**63 - 1, -(2**63)):
        assert same(Record(ord=v, off=v, bytes=v, replaced=v, parts=[Part(k="data", data=[v, {"n": v}], bytes=v)],
                           usage=Usage(in_=v), dropped=[Dropped("w", v)])) is not None
    # orjson writes up to 2**64-1 and raises past it: both are the Python's
    for v in (2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30):
        for r in (Record(ord=v), Record(parts=[Part(k="data", data={"n": [v]})]), Record(usage=Usage(out=v)),
                  Record(dropped=[Dropped("w", v)]), Record(replaced=v), Record(parts=[Part(k="x", bytes=v)])):
            assert compiled(r) is None
            try:
                want = encode_record_py(r)
            except TypeError:
                with pytest.raises(TypeError):
                    encode_record(r)
            else:
                assert encode_record(r) == want


def test_surrogates_are_the_pythons() -> None:
    for r in (Record(id="a\ud800"), Record(parts=[Part(k="text", text="\udfff")]),
              Record(parts=[Part(k="data", data={"k\ud800": 1})]), Record(flags=["\ud83d"])):
        assert compiled(r) is None
        with pytest.raises(TypeError):
            encode_record(r)
    assert same(Record(id="\ud83d\ude00".encode("utf-16", "surrogatepass").decode("utf-16"))) is not None


class Str(str):
    pass


class Int(int):
    pass


class Dict(dict):
    pass


def test_other_shapes_are_the_pythons() -> None:
    others = [Record(parts=[Part(k="data", data=1.5)]), Record(parts=[Part(k="data", data=(1, 2))]),
              Record(parts=[Part(k="data", data={1: "a"})]), Record(parts=[Part(k="data", data=Dict(a=1))]),
              Record(parts=[Part(k="data", data=[Str("s")])]), Record(parts=[Part(k="data", data=Int(3))]),
              Record(id=Str("x")), Record(ord=True), Record(flags=("a",)), Record(parts=[Part(k="x", failed="no")]),
              Record(parts=[Part(k="x", bytes=1.0)]), Record(dropped=[Dropped(what=Str("w"))]),
              Record(parts=[Part(k="data", data=RawJSON.__new__(RawJSON))])]
    deep: object = "x"
    for _ in range(300):
        deep = [deep]
    others.append(Record(parts=[Part(k="data", data=deep)]))
    for r in others:
        assert compiled(r) is None
        try:
            want = encode_record_py(r)
        except (TypeError, AttributeError):
            continue
        assert encode_record(r) == want
    assert compiled(object()) is None
    assert bytescan.record_line(Record(), dict, Part, Usage, RawJSON, Dropped) is None  # not the model's classes


def test_a_record_that_is_none_field_by_field() -> None:
    # None where a str is usual is left out, as the Python leaves it out
    assert same(Record(id=None, sha=None, parts=[Part(k="t", text=None, sha256=None, state=None)],
                       dropped=[Dropped("w", 1, None)])) == \
        b'{"ord":0,"off":0,"bytes":0,"parts":[{"k":"t","bytes":0}],"dropped":[{"what":"w","bytes":1}]}'


ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
text = st.text(alphabet=st.characters(), max_size=40) | st.sampled_from(["", "\u2028", "a\u2029b", '"\\', "\x00\x1f"])
ident = st.text(alphabet=string.ascii_letters + "-_\u2028é", max_size=12)
raw_json = st.builds(lambda v: RawJSON(orjson.dumps(v)), st.recursive(
    st.none() | st.booleans() | ints | st.text(max_size=10, alphabet=st.characters(blacklist_categories=("Cs",))),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6))
json_value = st.recursive(
    st.none() | st.booleans() | ints | text | raw_json | st.floats(allow_nan=False) | st.integers(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
parts = st.one_of(
    st.builds(Part, k=ident, text=text, data=st.none() | json_value, id=ident, of=ident, name=ident, server=ident,
              server_tool=ident, failed=st.none() | st.booleans(), media=ident, encoding=ident, state=ident,
              bytes=st.integers(min_value=0, max_value=2**63 - 1), sha256=ident),
    st.builds(unknown_part, st.binary(max_size=40), text))
records = st.builds(
    Record, ord=ints, off=ints, sha=ident, bytes=ints, id=text, parent=ident, call=ident, run=ident, continues=ident,
    tool=ident, child=ident, batch=ident, label=text, started_by=ident, from_=ident, time=ident, trigger=ident,
    flags=st.lists(text, max_size=3), usage=st.none() | st.builds(Usage, ints, ints, ints, ints, ints), model=text,
    cwd=text, git_branch=text, runtime_version=ident, request=ident, parts=st.lists(parts, max_size=4),
    dropped=st.lists(st.builds(Dropped, text, ints, text), max_size=3), replaced=ints)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records)
def test_hypothesis_records_the_same(r: Record) -> None:
    try:
        want = encode_record_py(r)
    except TypeError:  # a lone surrogate or an integer past 64 bits: the Python raises, the C leaves it to it
        assert compiled(r) is None
        with pytest.raises(TypeError):
            encode_record(r)
        return
    same(r)
