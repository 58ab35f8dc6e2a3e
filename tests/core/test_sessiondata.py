"""Session Data contract: writer, reader, validator (seed 000; origin-digest §3)."""

from __future__ import annotations

import base64
import hashlib
import os
import stat

import orjson
import pytest

from asz_core import Header, Part, RawJSON, Record, SDWriter, Usage, compact, read_file, unknown_part
from asz_core.sessiondata import SDError, SDReader, check_file, encode_record, shrink_record
from asz_core.sessiondata.codec import decode_record, encode_header
from asz_core.sessiondata.jsonbytes import object_members
from asz_core.sessiondata.times import parse_instant

HDR = Header(kind="transcript", session="s1", src="p/s1.jsonl", dialect="mock/1", adapter="mock/0.2.0", seq=1, at="2026-01-01T00:00:00Z", stream="main")


def land(tmp_path, records, name="transcript-20260101T000000.000000000Z-000001.sd", header=HDR):
    w = SDWriter(tmp_path / name, header)
    for r in records:
        w.write(r)
    return w.close()


def test_released_writer_fixture_reads_and_verifies(shared_dir):
    path = shared_dir / "conformance/fixtures/released-writer.sd"
    header, records, closing = read_file(path)
    assert header.session == "add1c7ed-0040-4000-8000-000000000040"
    assert header.adapter == "mock/0.2.0"
    assert [r.id for r in records] == ["input-old", "call-old", "result-old"]
    # old escapes decode to the same values
    assert records[0].parts[0].text == "ask <old> & now"
    assert records[1].parts[0].data == {"query": "old <data> & result"}
    assert closing.records == 3
    assert closing.digest == hashlib.sha256(path.read_bytes().rsplit(b"\n", 2)[0] + b"\n").hexdigest()


def test_header_key_order_and_landing(tmp_path):
    lf = land(tmp_path, [Record(ord=1, off=0, bytes=2, from_="external", parts=[Part(k="text", text="hi", bytes=2)])])
    data = lf.path.read_bytes()
    first = data.split(b"\n", 1)[0]
    assert first == (
        b'{"h":1,"schema":"sd/1","seq":1,"at":"2026-01-01T00:00:00Z","kind":"transcript","adapter":"mock/0.2.0",'
        b'"dialect":"mock/1","src":"p/s1.jsonl","session":"s1","stream":"main"}'
    )
    lines = data.split(b"\n")
    assert lines[-1] == b""
    closing = orjson.loads(lines[-2])
    assert closing == {"t": "end", "records": 1, "digest": hashlib.sha256(b"\n".join(lines[:-2]) + b"\n").hexdigest()}
    assert list(orjson.loads(lines[-2]).keys()) == ["t", "records", "digest"]
    # landed read-only, never rewritten
    assert stat.S_IMODE(os.stat(lf.path).st_mode) == 0o444
    with pytest.raises(FileExistsError):
        SDWriter(lf.path, HDR)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_record_key_order_empty_omitted_failed_absent(tmp_path):
    r = Record(
        ord=12, off=25086, sha="4fed1b624096", bytes=1524, id="c8", parent="a5", call="msg", from_="agent",
        time="2026-08-06T16:57:22.652Z", flags=["finished"], usage=Usage(in_=2, out=331, cache_read=20729, cache_write=19709),
        parts=[Part(k="call", id="toolu", name="Bash", data={"command": "make check"}, bytes=181),
               Part(k="result", of="toolu", text="ok", bytes=2),
               Part(k="result", of="toolu", text="bad", failed=True, bytes=3),
               Part(k="result", of="toolu", text="fine", failed=False, bytes=4)],
    )
    line = encode_record(r)
    assert line.startswith(b'{"ord":12,"off":25086,"sha":"4fed1b624096","bytes":1524,"id":"c8","parent":"a5","call":"msg","from":"agent","time":')
    assert b'"usage":{"in":2,"out":331,"cache_read":20729,"cache_write":19709}' in line
    assert b'{"k":"call","data":{"command":"make check"},"id":"toolu","name":"Bash","state":"available","bytes":181}' in line
    assert b'{"k":"result","text":"ok","of":"toolu","state":"available","bytes":2}' in line
    assert b'"failed":true' in line and b'"failed":false' in line
    back = decode_record(line)
    assert back.parts[1].failed is None and back.parts[2].failed is True and back.parts[3].failed is False
    # off 0 is written, zero usage fields are omitted
    small = encode_record(Record(ord=1, off=0, bytes=0, usage=Usage(out=5)))
    assert small == b'{"ord":1,"off":0,"bytes":0,"usage":{"out":5}}'


def test_null_is_absent_and_unknown_fields_ignored():
    r = decode_record(b'{"ord":1,"off":0,"bytes":3,"id":null,"parent":"p","future_key":{"x":1},"parts":[{"k":"text","text":"a","data":null,"failed":null,"state":"available","bytes":1,"new":1}]}')
    assert r.id == "" and r.parent == "p"
    assert r.parts[0].data is None and r.parts[0].failed is None


def test_source_json_keeps_its_bytes(tmp_path):
    # escapes stay as the source wrote them; only inter-token whitespace goes
    deep = b"[" * 40 + b"1" + b"]" * 40
    source = (
        b'{"type":"x", "input": {"e": "\\u00e9", "slash": "a\\/b", "lt": "\\u003c", "ls": "a\xe2\x80\xa8b",'
        b' "spaced": "keep   these  spaces", "deep": ' + deep + b' }}'
    )
    members = dict((k, (b, e)) for k, b, e in object_members(source, 0))
    b, e = members["input"]
    raw = compact(source[b:e])
    assert raw == (
        b'{"e":"\\u00e9","slash":"a\\/b","lt":"\\u003c","ls":"a\xe2\x80\xa8b","spaced":"keep   these  spaces","deep":' + deep + b"}"
    )
    rec = Record(ord=1, off=0, bytes=len(source), parts=[Part(k="call", id="t", name="X", data=RawJSON(raw), bytes=len(raw))])
    lf = land(tmp_path, [rec])
    line = lf.path.read_bytes().split(b"\n")[1]
    assert raw in line
    _, records, _ = read_file(lf.path)
    assert records[0].parts[0].data["e"] == "é" and records[0].parts[0].data["ls"] == "a\u2028b"


def test_writer_encoded_strings_escape_line_separators_not_html():
    line = encode_record(Record(ord=1, off=0, bytes=1, label="a<b>&c\u2028d\u2029e", parts=[Part(k="text", text="x<y\u2028", bytes=1)]))
    assert b'"label":"a<b>&c\\u2028d\\u2029e"' in line
    assert b'"text":"x<y\\u2028"' in line
    assert b"\xe2\x80\xa8" not in line


def test_writer_escapes_one_line_separator_among_other_general_punctuation():
    # U+2014, U+2026, U+2192 share the lead byte \xe2 with U+2028/U+2029; only the separators are escaped
    for sep, esc in (("\u2028", b"\\u2028"), ("\u2029", b"\\u2029")):
        line = encode_record(Record(ord=1, off=0, bytes=1, parts=[Part(k="text", text=f"a\u2014b\u2026{sep}\u2192", bytes=1)]))
        assert b'"text":"a\xe2\x80\x94b\xe2\x80\xa6' + esc + b'\xe2\x86\x92"' in line
    plain = encode_record(Record(ord=1, off=0, bytes=1, parts=[Part(k="text", text="a\u2014\u2027\u202a", bytes=1)]))
    assert plain == orjson.dumps(orjson.loads(plain))


def test_writer_lines_in_one_call_write_what_one_at_a_time_writes(tmp_path):
    recs = [Record(ord=i, off=i, bytes=1, parts=[Part(k="text", text="x" * n, bytes=n)]) for i, n in
            enumerate((3, 70_000, 5, 6, 100_000, 7), 1)]
    lines = [encode_record(r) for r in recs]
    one, many = tmp_path / "one.sd", tmp_path / "many.sd"
    with SDWriter(one, HDR, fsync=False) as w:
        sizes = [w.write_encoded(line) for line in lines]
        a = w.close()
    with SDWriter(many, HDR, fsync=False) as w:
        assert w.write_encoded_lines(lines) == sum(sizes)
        assert w.records == len(lines) and w.size == a.size - len(one.read_bytes().rsplit(b"\n", 2)[-2]) - 1
        b = w.close()
    assert one.read_bytes() == many.read_bytes() and (a.records, a.digest) == (b.records, b.digest)
    # a line holding a newline: refused, and none of its row is written
    with SDWriter(tmp_path / "bad.sd", HDR, fsync=False) as w:
        with pytest.raises(ValueError, match="one line"):
            w.write_encoded_lines([lines[0], b'{"ord":2}\n{"ord":3}'])
        assert w.records == 0
        w.abort()


def test_unknown_part_raw_roundtrip(tmp_path):
    good = "caf\u00e9 not json {".encode()
    bad = b"\xff\xfe half \xc3"
    p1, p2 = unknown_part(good, "the record is not valid JSON"), unknown_part(bad, "the record is not valid JSON")
    assert p1.encoding == "" and p1.data == good.decode()
    assert p2.encoding == "base64" and p2.data == base64.b64encode(bad).decode()
    lf = land(tmp_path, [Record(ord=1, off=0, bytes=len(good), parts=[p1]), Record(ord=2, off=len(good) + 1, bytes=len(bad), parts=[p2])])
    _, records, _ = read_file(lf.path)
    assert records[0].parts[0].raw() == good
    assert records[1].parts[0].raw() == bad
    assert records[1].parts[0].bytes == len(bad)


@pytest.mark.parametrize(
    "line,field",
    [
        (b'{"ord":"1","off":0,"bytes":1}', "ord"),
        (b'{"ord":1,"off":-1,"bytes":1}', "off"),
        (b'{"ord":1.0,"off":0,"bytes":1}', "ord"),
        (b'{"ord":1e2,"off":0,"bytes":1}', "ord"),
        (b'{"ord":1,"off":0,"bytes":1,"usage":{"in":"3"}}', "usage.in"),
        (b'{"ord":1,"off":0,"bytes":1,"usage":{"cache_write":3,"cache_write_1h":1.5}}', "usage.cache_write_1h"),
        (b'{"ord":1,"off":0,"bytes":1,"flags":"finished"}', "flags"),
        (b'{"ord":1,"off":0,"bytes":1,"parts":[{"k":"result","failed":"no"}]}', "parts[0].failed"),
        (b'{"ord":1,"off":0,"bytes":1,"parts":[{"k":"text","bytes":1.5}]}', "parts[0].bytes"),
        (b'{"ord":1,"off":0,"bytes":1,"id":5}', "id"),
        (b'{"ord":9223372036854775808,"off":0,"bytes":1}', "ord"),
        (b'{"off":0,"bytes":1}', "ord"),
    ],
)
def test_reader_refuses_wrong_types_naming_field(tmp_path, line, field):
    path = tmp_path / "bad.sd"
    head = encode_header(HDR) + b"\n"
    good = encode_record(Record(ord=1, off=0, bytes=1)) + b"\n"
    body = head + good + line + b"\n"
    digest = hashlib.sha256(body).hexdigest()
    path.write_bytes(body + b'{"t":"end","records":2,"digest":"' + digest.encode() + b'"}\n')
    with pytest.raises(SDError) as info:
        read_file(path)
    assert info.value.line == 3
    assert info.value.field == field
    assert str(path) in str(info.value)
    # the view's reading (checked objects, bytes already read) refuses the same line and field
    with pytest.raises(SDError) as same:
        list(SDReader(path, decode="dict", data=path.read_bytes()))
    assert (same.value.line, same.value.field, same.value.message) == (3, field, info.value.message)


def test_reader_dict_mode_yields_checked_objects_and_refuses_what_the_model_refuses(tmp_path):
    """decode="dict": the checked JSON object (null gone, keys as written); a dropped entry without what is refused as by decode=True."""
    head = encode_header(HDR) + b"\n"
    lines = [
        b'{"ord":1,"off":0,"bytes":9,"label":null,"from":"agent","usage":{"in":3,"out":null},"parts":[{"k":"text","text":"hi","name":null,"bytes":2}],"extra":1}',
        b'{"ord":2,"off":10,"bytes":9,"dropped":[{"bytes":4,"why":"noise"}]}',
    ]
    body = head + b"".join(x + b"\n" for x in lines)
    path = tmp_path / "t.sd"
    path.write_bytes(body + b'{"t":"end","records":2,"digest":"' + hashlib.sha256(body).hexdigest().encode() + b'"}\n')
    r = SDReader(path, decode="dict", data=path.read_bytes())
    it = iter(r)
    assert next(it) == (1, {"ord": 1, "off": 0, "bytes": 9, "from": "agent", "usage": {"in": 3}, "parts": [{"k": "text", "text": "hi", "bytes": 2}], "extra": 1})
    with pytest.raises(SDError) as info:
        next(it)
    with pytest.raises(SDError) as model:
        read_file(path)
    assert info.value.line == model.value.line == 3
    assert info.value.message == model.value.message and "does not structure as a record" in info.value.message
    assert [d["ord"] for _, d in SDReader(path, decode=False)] == [1, 2]  # the lax mode (index building) reads it
    with pytest.raises(ValueError, match="decode is True, False or 'dict'"):
        SDReader(path, decode="yes")
    assert r.digest == ""  # the read stopped at line 3: no digest of the whole file


def test_reader_digest_is_the_whole_files_sha256(tmp_path):
    lf = land(tmp_path, [Record(ord=1, off=0, bytes=3, parts=[Part(k="text", text="one", bytes=3)]), Record(ord=2, off=4, bytes=3)])
    raw = lf.path.read_bytes()
    for r in (SDReader(lf.path), SDReader(lf.path, decode="dict", data=raw)):
        assert r.digest == ""
        assert [row for row, _ in r] == [1, 2]
        assert r.digest == hashlib.sha256(raw).hexdigest()


def test_reader_refuses_deep_nesting_and_missing_closing(tmp_path):
    head = encode_header(HDR) + b"\n"
    deep = b'{"ord":1,"off":0,"bytes":1,"parts":[{"k":"data","data":' + b"[" * 300 + b"]" * 300 + b',"bytes":1}]}'
    body = head + deep + b"\n"
    p = tmp_path / "deep.sd"
    p.write_bytes(body + b'{"t":"end","records":1,"digest":"' + hashlib.sha256(body).hexdigest().encode() + b'"}\n')
    with pytest.raises(SDError, match="nesting deeper than 256") as info:
        read_file(p)
    assert info.value.line == 2
    ok = head + encode_record(Record(ord=1, off=0, bytes=1)) + b"\n"
    q = tmp_path / "cut.sd"
    q.write_bytes(ok)
    with pytest.raises(SDError, match="missing closing line"):
        read_file(q)


@pytest.mark.parametrize(
    "change,field",
    [({"h": 2}, "h"), ({"schema": "sd/2"}, "schema"), ({"kind": ""}, "kind"), ({"session": ""}, "session"), ({"src": ""}, "src"), ({"dialect": ""}, "dialect")],
)
def test_header_refused_by_reader_and_writer(tmp_path, change, field):
    import attrs

    bad = attrs.evolve(HDR, **{k: v for k, v in change.items() if k != "h"})
    if "h" in change:
        line = encode_header(HDR).replace(b'"h":1', b'"h":2')
    elif "schema" in change:
        line = encode_header(bad)
        # the writer fills h and schema itself, so it lands sd/1 whatever it was handed
        assert b'"schema":"sd/1"' in SDWriter(tmp_path / "filled.sd", bad).close().path.read_bytes()
    else:
        line = encode_header(bad)
        with pytest.raises(ValueError) as winfo:
            SDWriter(tmp_path / "x.sd", bad)
        assert field in str(winfo.value)
    p = tmp_path / "h.sd"
    body = line + b"\n"
    p.write_bytes(body + b'{"t":"end","records":0,"digest":"' + hashlib.sha256(body).hexdigest().encode() + b'"}\n')
    with pytest.raises(SDError) as info:
        read_file(p)
    assert info.value.line == 1 and info.value.field == field


def test_fifty_megabyte_line_streams(tmp_path):
    text = "x" * (50 * 1024 * 1024)
    lf = land(tmp_path, [Record(ord=1, off=0, bytes=len(text), parts=[Part(k="text", text=text, bytes=len(text))])])
    n = 0
    for _, rec in SDReader(lf.path):
        n += 1
        assert rec.parts[0].bytes == len(text)
    assert n == 1 and check_file(lf.path).ok


def test_times_compare_as_instants():
    a, b = parse_instant("2026-01-01T12:00:00.11Z"), parse_instant("2026-01-01T12:00:00.1Z")
    assert a > b
    assert parse_instant("2026-01-01T12:00:00.5Z") > parse_instant("2026-01-01T12:00:00Z")
    assert parse_instant("2026-01-01T20:00:00+08:00") < parse_instant("2026-01-01T12:00:01Z")
    assert parse_instant("2026-01-01T20:00:00+08:00") == parse_instant("2026-01-01T12:00:00Z")
    for bad in ("2026-01-01", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "26-01-01T00:00:00Z", "2026-01-01T00:00:00.1234567891Z", "", None, 5):
        assert parse_instant(bad) is None
    assert Record(time="yesterday").instant() is None


def test_a_landed_time_of_the_usual_shape_is_its_instant():
    """``YYYY-MM-DDTHH:MM:SS.fffZ`` (every landed record's time) read by parse_instant's short way: the instant
    counted by calendar.timegm, and every value the RFC 3339 pattern refuses still None."""
    import calendar

    assert parse_instant("2026-08-06T07:07:40.123Z") == calendar.timegm((2026, 8, 6, 7, 7, 40)) * 10**9 + 123 * 10**6
    assert parse_instant("1969-12-31T23:59:59.999Z") == -10**6
    assert parse_instant("2016-12-31T23:59:60.000Z") == calendar.timegm((2017, 1, 1, 0, 0, 0)) * 10**9  # a leap second
    for bad in ("2026-08-06T07:07:61.000Z", "2026-08-06T07:60:00.000Z", "2026-08-06T24:00:00.000Z",
                "2026-02-29T00:00:00.000Z", "2026-08-06 07:07:40.000Z", "2026-08-06T07:07:4a.000Z",
                "2026-08-06T07:07:40.0a0Z", "2026-08-06T07:07:40,000Z", "2026-08-06T07:07:40.000z"[:-1] + "Y",
                "2026-08-06T07:07-40.000Z"):
        assert parse_instant(bad) is None, bad
    # Unicode digits are digits to the pattern (\\d, as it always read them): not ASCII, so read the pattern's way.
    assert parse_instant("2026-08-06T07:07:\u0664\u0660.000Z") == parse_instant("2026-08-06T07:07:40.000Z")
    assert parse_instant("2026-08-06T07:07:40.000z") == parse_instant("2026-08-06T07:07:40.000Z")


def test_the_short_way_of_parse_instant_gives_what_the_pattern_gives():
    """Any 24-character string made of a time's pieces (and a few others): parse_instant equals the pattern's reading."""
    from hypothesis import given, settings, strategies as hs

    from asz_core.sessiondata.times import _parse_instant

    piece = hs.sampled_from(list("0123456789-:.TtZz +") + ["\u0663", "\u00e9"])
    base = "2026-08-06T07:07:40.000Z"

    @settings(max_examples=1000, deadline=None)
    @given(hs.lists(hs.tuples(hs.integers(0, 23), piece), max_size=4))
    def check(edits):
        v = list(base)
        for i, c in edits:
            v[i] = c
        v = "".join(v)
        assert parse_instant(v) == _parse_instant(v), v

    check()


def test_too_large_record_shrinks_deterministically():
    big_data = {"blob": "d" * 5000}
    rec = Record(
        ord=1, off=0, bytes=20000, id="r1",
        parts=[
            Part(k="text", text="t" * 3000, bytes=3000),
            Part(k="result", of="tool1", text="readable", data=big_data, bytes=5020),
            unknown_part(b"u" * 4000, "the record is not valid JSON"),
        ],
    )
    out = shrink_record(rec, 4500)
    assert len(encode_record(out)) + 1 <= 4500
    res = out.parts[1]
    # data goes first, the readable text stays: truncated with the original size and digest of what went
    assert res.of == "tool1" and res.data is None and res.text == "readable" and res.state == "truncated" and res.bytes == 5020
    assert res.sha256 == hashlib.sha256(orjson.dumps(big_data)).hexdigest()
    unk = out.parts[2]
    assert unk.data is None and unk.text == "the record is not valid JSON" and unk.state == "too_large"
    assert unk.sha256 == hashlib.sha256(b"u" * 4000).hexdigest() and unk.bytes == 4000
    assert out.parts[0].state == "available"  # smaller payload than the budget needed: kept
    assert shrink_record(rec, 4500) == out  # deterministic
    assert rec.parts[1].data == big_data  # the input is untouched


def test_too_large_tie_takes_earlier_part_and_execution_is_never_cut():
    rec = Record(ord=1, off=0, bytes=1, parts=[Part(k="text", text="a" * 1000, bytes=1000), Part(k="text", text="b" * 1000, bytes=1000)])
    out = shrink_record(rec, len(encode_record(rec)) - 10)
    assert out.parts[0].state == "too_large" and out.parts[1].state == "available"
    assert out.parts[0].sha256 == hashlib.sha256(b"a" * 1000).hexdigest()
    ex = {"schema": "execution/1", "id": "e", "arguments": {"state": "size_only", "bytes": 3, "sha256": "0" * 64}}
    rec2 = Record(ord=1, off=0, bytes=1, parts=[Part(k="data", data=ex, bytes=100)])
    assert shrink_record(rec2, 10) == rec2


def test_changes_record_shrinks_in_its_own_format():
    hunks = [{"old_start": 1, "old_lines": 1, "new_start": 1, "new_lines": 1, "lines": ["-" + "a" * 500, "+" + "b" * 500]}]
    ch = {
        "schema": "changes/1", "id": "toolu_1", "tool": "toolu_1", "changed_files": 2,
        "changes": [
            {"path": "a.txt", "operation": "modify", "diff": "available", "additions": 1, "deletions": 1, "hunks": hunks},
            {"path": "b.txt", "operation": "modify", "diff": "available", "additions": 1, "deletions": 1, "hunks": hunks * 3},
        ],
    }
    rec = Record(ord=1, off=0, bytes=1, tool="toolu_1", parts=[Part(k="data", data=ch, bytes=5000)])
    out = shrink_record(rec, len(encode_record(rec)) - 100)
    data = out.parts[0].data
    assert data["changes"][1]["diff"] == "too_large" and "hunks" not in data["changes"][1]
    assert data["changes"][1]["additions"] == 1
    assert data["changes"][0]["diff"] == "available"
    assert out.parts[0].state == "truncated" and out.parts[0].sha256
