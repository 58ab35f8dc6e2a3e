"""Round files (origin-digest §4.1, §4.2): writing, byte-identical reproduction, reader rejections, input digest."""

from __future__ import annotations

import gzip
import hashlib
import re

import orjson
import pytest
import yaml

from asz_core.flow.model import Node, Ref, Relation, Unresolved
from asz_core.flow.round import (
    RoundError,
    RoundHeader,
    build_round,
    decode_round,
    entity_body,
    input_digest,
    landed_file_digest,
    parse_round_file_name,
    read_round,
    round_file_name,
)

CONV = "00000001-0000-4000-8000-000000000001"


def header(n: int = 1, **kw) -> RoundHeader:
    kw.setdefault("previous", "" if n == 1 else "ab" * 32)
    kw.setdefault("from_seq", 1)
    kw.setdefault("through_seq", 4)
    return RoundHeader(CONV, CONV, n, input_digest="cd" * 32, **kw)


def entities():
    nodes = [
        Node("talk/main/s1", kind="talk", parent="epoch/main/0", stream="main", ref=Ref(1, 2), attrs={"trigger": "external", "loops": 2, "runs": 2}),
        Node("call/s3", kind="llm.call", parent="run/x", stream="main", ref=Ref(1, 4), refs=[Ref(1, 4), Ref(1, 5)],
             attrs={"usage_at": Ref(1, 5), "fragments": 2, "usage": "observed_replayable", "nested": {"z": 1, "a": {"y": 2, "b": 3}}}),
        Node("session/" + CONV, kind="session", attrs={}),
        Node("msg/1/5:0", kind="message.assistant", parent="call/s3", stream="main", ref=Ref(1, 5, 0)),
    ]
    relations = [
        Relation("rel/starts/tool_s5/stream_a0", type="starts", from_="tool/s5", to="stream/a0", quality="exact_unique", via="parent tool result", evidence=[Ref(1, 11)]),
        Relation("rel/follows/a/b", type="follows", from_="a", to="b", quality="strong_inference"),
    ]
    unresolved = [Unresolved("unres/tool_result/t1", kind="tool_result", ref="t1", reason="no result landed for this tool use", state="open")]
    return nodes, relations, unresolved


def lines_of(data: bytes) -> list[dict]:
    return [orjson.loads(x) for x in data.splitlines()]


# --------------------------------------------------------------------------- writing


def test_round_shape_order_and_commit():
    r = build_round(header(title="build and check", talks=3, steps=21, streams=2, segments=1, llm_calls=6), *entities())
    lines = r.data.splitlines()
    ts = [orjson.loads(x)["t"] for x in lines]
    assert ts == ["header"] + ["node"] * 4 + ["relation"] * 2 + ["unresolved", "commit"]
    ids = [orjson.loads(x).get("id") for x in lines[1:5]]
    assert ids == sorted(ids)
    head = orjson.loads(lines[0])
    assert list(head) == [
        "t", "schema", "conversation", "session", "round", "from_seq", "through_seq", "input_digest", "parser", "policy",
        "title", "talks", "steps", "streams", "segments", "unresolved", "llm_calls",
    ]
    assert "previous" not in head and "changes" not in head  # round 1; unknown newer counts are absent, never 0
    commit = orjson.loads(lines[-1])
    assert commit == {"t": "commit", "digest": hashlib.sha256(r.data[: r.data.rindex(b'{"t":"commit"')]).hexdigest(),
                      "counts": {"nodes": 4, "relations": 2, "unresolved": 1}}
    assert r.digest == commit["digest"] and r.data.endswith(b"}\n")
    assert r.file_name == f"r000001-{r.digest[:12]}.sf"


def test_header_field_order_with_everything():
    h = header(2, from_time="2026-01-01T00:00:00Z", through_time="2026-01-01T00:00:11.1Z", session_from_time="2026-01-01T00:00:00Z",
               session_through_time="2026-01-01T00:00:11.1Z", title="t", changes=0, lines_added=0, lines_removed=0, llm_calls=0,
               subagents=0, bash_runs=0)
    keys = list(orjson.loads(h.encode()))
    assert keys == [
        "t", "schema", "conversation", "session", "round", "previous", "from_seq", "through_seq", "input_digest", "parser",
        "policy", "from_time", "through_time", "session_from_time", "session_through_time", "title", "talks", "steps",
        "streams", "segments", "unresolved", "changes", "lines_added", "lines_removed", "llm_calls", "subagents", "bash_runs",
    ]
    assert orjson.loads(h.encode())["changes"] == 0  # known zero is written


def test_entity_envelope_refs_and_sorted_attrs():
    r = build_round(header(7, from_seq=5, through_seq=9), *entities())
    ls = lines_of(r.data)
    call = next(x for x in ls if x.get("id") == "call/s3")
    raw = next(x for x in r.data.splitlines() if b'"call/s3"' in x)
    assert list(call)[:3] == ["t", "id", "revision"] and call["revision"] == 7
    assert call["ref"] == {"seq": 1, "row": 4} and call["refs"] == [{"seq": 1, "row": 4}, {"seq": 1, "row": 5}]
    assert b'"attrs":{"fragments":2,"nested":{"a":{"b":3,"y":2},"z":1},"usage":"observed_replayable","usage_at":{"row":5,"seq":1}}' in raw
    msg = next(x for x in ls if x.get("id") == "msg/1/5:0")
    assert msg["ref"] == {"seq": 1, "row": 5, "block": 0}
    session = next(x for x in ls if x.get("id", "").startswith("session/"))
    assert "attrs" not in session and "parent" not in session and "ref" not in session
    rel = next(x for x in ls if x.get("id") == "rel/starts/tool_s5/stream_a0")
    assert list(rel) == ["t", "id", "revision", "type", "from", "to", "quality", "via", "evidence"]
    un = next(x for x in ls if x["t"] == "unresolved")
    assert list(un) == ["t", "id", "revision", "kind", "ref", "reason", "state"]


def test_tombstone_carries_only_its_envelope():
    r = build_round(header(3), [Node("input/1/1", kind="x", tombstone=True)], [Relation("rel/a/b/c", tombstone=True)])
    assert b'{"t":"node","id":"input/1/1","revision":3,"tombstone":true}\n' in r.data
    assert b'{"t":"relation","id":"rel/a/b/c","revision":3,"tombstone":true}\n' in r.data


def test_ids_sort_in_code_point_order():
    ids = ["a/é", "a/Z", "a/a", "a/\U0001F600", "a/\uffff", "a/_", "a/0"]
    r = build_round(header(), [Node(i, kind="k") for i in ids])
    got = [x["id"] for x in lines_of(r.data)[1:-1]]
    assert got == sorted(ids) == ["a/0", "a/Z", "a/_", "a/a", "a/é", "a/\uffff", "a/\U0001F600"]


def test_escapes_keep_html_literal_and_escape_line_separators():
    r = build_round(header(title="<a> & b\u2028c\u2029"), [Node("n/1", kind="k", attrs={"text": "x<y>&z\u2028"})])
    assert b'"title":"<a> & b\\u2028c\\u2029"' in r.data
    assert b'"text":"x<y>&z\\u2028"' in r.data
    assert "\u2028".encode() not in r.data
    assert decode_round(r.data).header.title == "<a> & b\u2028c\u2029"


def test_byte_identical_reproduction_and_input_independence():
    a = build_round(header(), *entities())
    n, rel, un = entities()
    b = build_round(header(), list(reversed(n)), list(reversed(rel)), un)  # order given does not matter
    assert a.data == b.data and a.digest == b.digest
    for e in n:
        assert e.revision == 0  # inputs are not changed


def test_build_refuses_duplicate_ids():
    with pytest.raises(ValueError, match="twice"):
        build_round(header(), [Node("x", kind="k"), Node("x", kind="j")])


def test_round_trip_decode():
    r = build_round(header(2, from_seq=3, through_seq=5, title="t", subagents=1), *entities())
    d = decode_round(r.data, "mem.sf")
    assert d.header == r.header
    assert d.digest == r.digest and d.counts == r.counts
    assert [entity_body(x) for x in d.nodes] == [entity_body(x) for x in r.nodes]
    assert [entity_body(x) for x in d.relations] == [entity_body(x) for x in r.relations]
    assert [entity_body(x) for x in d.unresolved] == [entity_body(x) for x in r.unresolved]
    assert all(x.revision == 2 for x in d.nodes)


def test_empty_round_is_valid():
    r = build_round(header(2, from_seq=5, through_seq=4))
    d = decode_round(r.data)
    assert d.counts == {"nodes": 0, "relations": 0, "unresolved": 0} and d.header.through_seq == 4


def test_read_round_from_file(tmp_path):
    r = build_round(header(), *entities())
    p = tmp_path / r.file_name
    p.write_bytes(r.data)
    got = read_round(p)
    assert got.path == p and got.digest == r.digest


def test_file_names():
    assert round_file_name(12, "0123456789abcdef" * 4) == "r000012-0123456789ab.sf"
    assert parse_round_file_name("r000012-0123456789ab.sf") == (12, "0123456789ab")
    assert parse_round_file_name("r1234567-0123456789ab.sf") == (1234567, "0123456789ab")
    for bad in ("r12-0123456789ab.sf", "r000012-0123456789AB.sf", "r000012-0123456789ab.sf.tmp", ".r000012-0123456789ab.sf.1.tmp"):
        assert parse_round_file_name(bad) is None


# --------------------------------------------------------------------------- reader rejections


def _t(line: bytes):
    try:
        d = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return d.get("t") if isinstance(d, dict) else None


def reseal(lines: list[bytes]) -> bytes:
    """Recompute the commit line (digest and counts) so only the rule under test is broken."""
    body = b"".join(x + b"\n" for x in lines if _t(x) != "commit")
    counts = {"nodes": 0, "relations": 0, "unresolved": 0}
    for x in lines:
        t = _t(x)
        if t in ("node", "relation", "unresolved"):
            counts[{"node": "nodes", "relation": "relations", "unresolved": "unresolved"}[t]] += 1
    commit = orjson.dumps({"t": "commit", "digest": hashlib.sha256(body).hexdigest(), "counts": counts})
    return body + commit + b"\n"


def base_lines(n: int = 2) -> list[bytes]:
    nodes, rels, un = entities()
    nodes.append(Node("call/pb", kind="llm.call", attrs={"provider_bodies": [{"role": "response", "ref": {"seq": 2, "row": 1}}]}))
    return build_round(header(n, from_seq=1, through_seq=4), nodes, rels, un).data.splitlines()


def edit(lines: list[bytes], pred, fn) -> list[bytes]:
    out = []
    for x in lines:
        d = orjson.loads(x)
        if pred(d):
            d = fn(d)
            if d is None:
                continue
            x = orjson.dumps(d)
        out.append(x)
    return out


def is_header(d):
    return d["t"] == "header"


def node_id(i):
    return lambda d: d.get("id") == i


def with_(**kw):
    def f(d):
        d = dict(d)
        for k, v in kw.items():
            if v is _DROP:
                d.pop(k, None)
            else:
                d[k] = v
        return d
    return f


_DROP = object()


def _raw_cases():
    ok = base_lines()
    hdr, rest = ok[0], ok[1:]
    commit = ok[-1]
    return {
        "first line not header": (rest[:-1] + [hdr], "frame order", r"not the header"),
        "second header": ([hdr, hdr] + rest, "frame order", "second header"),
        "line after commit": (ok + [rest[0]], "frame order", "after the commit"),
        "undecodable line": ([hdr, b"{not json"] + rest, "json", "undecodable"),
        "not an object": ([hdr, b"[1,2]"] + rest, "json", "not a JSON object"),
        "unknown t": ([hdr, b'{"t":"mystery","id":"x","revision":2}'] + rest, "json", "unknown frame"),
        "t not a string": ([hdr, b'{"t":["node"],"id":"x","revision":2}'] + rest, "json", "unknown frame"),
        "missing commit": (ok[:-1], "commit", "missing commit"),
        "no header at all": ([commit], "frame order", "not the header"),
    }


@pytest.mark.parametrize("case", sorted(_raw_cases()))
def test_reader_rejects_frame_problems(case):
    lines, rule, msg = _raw_cases()[case]
    data = reseal(lines) if case not in ("missing commit", "line after commit", "no header at all") else b"".join(x + b"\n" for x in lines)
    with pytest.raises(RoundError) as ei:
        decode_round(data, "bad.sf")
    assert ei.value.rule == rule and re.search(msg, str(ei.value)), str(ei.value)
    assert str(ei.value).startswith("bad.sf:")


HEADER_CASES = {
    "schema": (with_(schema="sf/2"), "schema is 'sf/2'"),
    "no conversation": (with_(conversation=_DROP), "missing conversation"),
    "no session": (with_(session=""), "missing session"),
    "no parser": (with_(parser=_DROP), "missing parser"),
    "no policy": (with_(policy=_DROP), "missing policy"),
    "no input digest": (with_(input_digest=_DROP), "missing input_digest"),
    "round zero": (with_(round=0, previous=_DROP), "round is 0"),
    "previous missing": (with_(previous=_DROP), "previous is missing on round 2"),
    "previous on round 1": (with_(round=1), "previous is present on round 1"),
    "from_seq zero": (with_(from_seq=0), "from_seq is 0"),
    "through before from-1": (with_(from_seq=4, through_seq=2), "through_seq 2 is before"),
    "round not an int": (with_(round="2"), "round is not an integer"),
}


@pytest.mark.parametrize("case", sorted(HEADER_CASES))
def test_reader_rejects_header_rules(case):
    fn, msg = HEADER_CASES[case]
    lines = edit(base_lines(), is_header, fn)
    with pytest.raises(RoundError) as ei:
        decode_round(reseal(lines), "bad.sf")
    assert ei.value.rule == "header" and ei.value.line == 1 and msg in str(ei.value), str(ei.value)


ENTITY_CASES = {
    "node without id": (node_id("call/s3"), with_(id=_DROP), "entity id", "without an id"),
    "empty id": (node_id("call/s3"), with_(id=""), "entity id", "without an id"),
    "duplicate id": (node_id("call/s3"), with_(id="msg/1/5:0"), "entity id", "appears twice"),
    "revision not the round": (node_id("call/s3"), with_(revision=1), "revision", "revision 1 is not the header's round 2"),
    "ref seq 0": (node_id("call/s3"), with_(ref={"seq": 0, "row": 1}), "ref", "both count from 1"),
    "ref row 0": (node_id("call/s3"), with_(refs=[{"seq": 1, "row": 0}]), "ref", "both count from 1"),
    "ref beyond through_seq": (node_id("call/s3"), with_(ref={"seq": 5, "row": 1}), "ref", "beyond the round's through_seq 4"),
    "evidence beyond through_seq": (node_id("rel/follows/a/b"), with_(evidence=[{"seq": 9, "row": 1}]), "ref", "beyond"),
    "ref not integers": (node_id("call/s3"), with_(ref={"seq": "1", "row": 1}), "ref", "of integers"),
    "relation without type": (node_id("rel/follows/a/b"), with_(type=_DROP), "relation", "missing type"),
    "relation without from": (node_id("rel/follows/a/b"), with_(**{"from": ""}), "relation", "missing from"),
    "relation without to": (node_id("rel/follows/a/b"), with_(to=_DROP), "relation", "missing to"),
    "unresolved bad state": (node_id("unres/tool_result/t1"), with_(state="closed"), "unresolved state", "'closed' is not one of"),
    "unresolved no state": (node_id("unres/tool_result/t1"), with_(state=_DROP), "unresolved state", "None is not one of"),
    "provider_bodies not a list": (node_id("call/pb"), with_(attrs={"provider_bodies": {"role": "request"}}), "provider_bodies", "not a list"),
    "provider_bodies bad role": (node_id("call/pb"), with_(attrs={"provider_bodies": [{"role": "reply", "ref": {"seq": 1, "row": 1}}]}), "provider_bodies", "not request or response"),
    "provider_bodies row 0": (node_id("call/pb"), with_(attrs={"provider_bodies": [{"role": "request", "ref": {"seq": 1, "row": 0}}]}), "provider_bodies", "count from 1"),
    "provider_bodies beyond range": (node_id("call/pb"), with_(attrs={"provider_bodies": [{"role": "request", "ref": {"seq": 7, "row": 1}}]}), "provider_bodies", "beyond through_seq 4"),
    "provider_bodies no ref": (node_id("call/pb"), with_(attrs={"provider_bodies": [{"role": "request"}]}), "provider_bodies", "not {seq,row}"),
}


@pytest.mark.parametrize("case", sorted(ENTITY_CASES))
def test_reader_rejects_entity_rules(case):
    pred, fn, rule, msg = ENTITY_CASES[case]
    lines = edit(base_lines(), pred, fn)
    with pytest.raises(RoundError) as ei:
        decode_round(reseal(lines), "bad.sf")
    assert ei.value.rule == rule and msg in str(ei.value), str(ei.value)
    assert ei.value.line > 1


def test_tombstones_need_no_fields():
    lines = edit(base_lines(), node_id("rel/follows/a/b"), lambda d: {"t": "relation", "id": d["id"], "revision": 2, "tombstone": True})
    lines = edit(lines, node_id("unres/tool_result/t1"), lambda d: {"t": "unresolved", "id": d["id"], "revision": 2, "tombstone": True})
    r = decode_round(reseal(lines))
    assert sum(x.tombstone for x in r.relations) == 1 and r.unresolved[0].tombstone


def test_reader_rejects_wrong_commit_digest_and_counts():
    ok = base_lines()
    bad_digest = edit(ok, lambda d: d["t"] == "commit", with_(digest="0" * 64))
    with pytest.raises(RoundError, match="commit: digest"):
        decode_round(b"".join(x + b"\n" for x in bad_digest))
    bad_counts = edit(ok, lambda d: d["t"] == "commit", with_(counts={"nodes": 1, "relations": 2, "unresolved": 1}))
    with pytest.raises(RoundError, match="commit: counts"):
        decode_round(b"".join(x + b"\n" for x in bad_counts))
    # a changed byte anywhere before the commit breaks the digest
    tampered = b"".join(x + b"\n" for x in ok).replace(b"trigger", b"triggeR", 1)
    with pytest.raises(RoundError, match="does not match the bytes"):
        decode_round(tampered)


def test_reader_rejects_missing_final_newline_and_empty_file(tmp_path):
    data = b"".join(x + b"\n" for x in base_lines())
    with pytest.raises(RoundError, match="commit"):
        decode_round(data[:-1])
    p = tmp_path / "r000001-000000000000.sf"
    p.write_bytes(b"")
    with pytest.raises(RoundError, match="empty file") as ei:
        read_round(p)
    assert str(p) in str(ei.value)


# --------------------------------------------------------------------------- input digest


def test_input_digest_matches_the_original_example(shared_dir):
    doc = yaml.safe_load((shared_dir / "conformance/fixtures/asz-view-example.yaml").read_text())
    rnd = doc["rounds"][0]
    digests = [f["digest"] for f in doc["files"] if f["format"] == "sd" and rnd["from_seq"] <= f["seq"] <= rnd["through_seq"]]
    assert len(digests) == 4
    assert input_digest("", digests) == rnd["input_digest"] == "ede3d4ca2b72ada8850407ebd46585d9306fd9448a767d170465b7847d833b9f"
    assert input_digest("", list(reversed(digests))) == rnd["input_digest"]  # sorted as strings, not by seq
    assert input_digest("", [d.upper() for d in digests]) == rnd["input_digest"]


def test_input_digest_chains_and_separators():
    d1, d2 = "1" * 64, "0" * 64
    assert input_digest("", []) == hashlib.sha256(b"").hexdigest()
    assert input_digest("", [d1, d2]) == hashlib.sha256(b"\x00" + d2.encode() + b"\x00" + d1.encode()).hexdigest()
    prev = input_digest("", [d1])
    assert input_digest(prev, [d2]) == hashlib.sha256(prev.encode() + b"\x00" + d2.encode()).hexdigest()
    assert input_digest(prev, []) == hashlib.sha256(prev.encode()).hexdigest()


def test_landed_file_digest_for_files_and_skeletons(tmp_path):
    sd = tmp_path / "transcript-20260101T000000.000000000Z-000001.sd"
    sd.write_bytes(b"abc\n")
    assert landed_file_digest(sd) == hashlib.sha256(b"abc\n").hexdigest()
    sk = tmp_path / "transcript-20260101T000000.000000000Z-000002.sk"
    with gzip.open(sk, "wb") as f:
        f.write(orjson.dumps({"h": 1, "schema": "sd/1", "removed": {"digest": "9f" * 32, "size": 4, "records": 1}}) + b"\n")
    assert landed_file_digest(sk) == "9f" * 32
    with gzip.open(sk, "wb") as f:
        f.write(b'{"h":1}\n')
    with pytest.raises(ValueError, match="removed.digest"):
        landed_file_digest(sk)
