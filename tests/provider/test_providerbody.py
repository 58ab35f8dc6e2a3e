"""Provider bodies: cut, land, rebuild byte for byte (seed 000, Provider bodies; origin-digest §3.7)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asz_core.sessiondata.providerbody import BadBody, BodyMeta, MissingReference, Session, TooLarge, read_record_line
from asz_core.sessiondata.providerbody_cut import MIN_COPY, MIN_PIECE, find_pieces
from asz_core.sessiondata.codec import encode_record

from pb_capture import Chain, dumps, tools


def meta(rid: str, role: str = "request") -> BodyMeta:
    return BodyMeta(role=role, src=f"{rid}.json", record_id=rid, session="S")


def land_all(bodies: list[bytes], *, max_bytes: int | None = None, files: int = 1) -> tuple[Session, list[bytes]]:
    """Cut every body in one session; return a fresh Session that read the encoded lines back, and the lines."""
    s = Session()
    lines = [encode_record(s.cut(b, meta(f"b{i}"), max_bytes=max_bytes)) for i, b in enumerate(bodies)]
    fresh = Session()
    per = max(1, len(lines) // files)
    for i, line in enumerate(lines):
        fresh.add_line(line, seq=1 + i // per, row=1 + i % per)
    return fresh, lines


# --------------------------------------------------------------------------- property: random bodies

_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=30))
_long = st.text(min_size=MIN_PIECE // 4, max_size=MIN_PIECE * 3)
_json = st.recursive(st.one_of(_scalar, _long), lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=8), kids, max_size=4)), max_leaves=12)


@st.composite
def chains(draw):
    """Requests that share fronts, tools and long strings, as a chain of calls would."""
    shared = draw(st.lists(_long, min_size=1, max_size=3))
    tool_defs = [{"name": f"T{i}", "description": d} for i, d in enumerate(draw(st.lists(_long, max_size=3)))]
    msgs: list = []
    out = []
    for _ in range(draw(st.integers(1, 5))):
        msgs.append({"role": "user", "content": draw(st.one_of(_json, st.sampled_from(shared)))})
        body = {"messages": list(msgs), "system": draw(st.sampled_from(shared)), "tools": tool_defs,
                "extra": draw(_json)}
        indent = draw(st.sampled_from([None, None, 1]))
        out.append(json.dumps(body, ensure_ascii=draw(st.booleans()), indent=indent,
                              separators=None if indent else (",", ":")).encode("utf-8"))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(chains(), st.sampled_from([None, 1500, 4000]), st.integers(1, 3))
def test_every_landed_body_rebuilds_to_its_digest(bodies, budget, files):
    s, lines = land_all(bodies, max_bytes=budget, files=files)
    for i, b in enumerate(bodies):
        rid = f"b{i}"
        assert s.manifest(rid).sha256 == hashlib.sha256(b).hexdigest()
        try:
            assert s.body(rid) == b
        except TooLarge:
            assert budget is not None
            assert s.body_from(rid, b) == b
    if budget is not None:
        for line in lines:
            if len(line) + 1 > budget:
                # only what cannot be cut further stays over budget: every piece is out
                _, parts, _ = read_record_line(line)
                assert all(p.data is None for p in parts)


@settings(max_examples=40, deadline=None)
@given(_json)
def test_any_json_value_round_trips(value):
    body = json.dumps({"v": value}).encode()
    s, _ = land_all([body, body])
    assert s.body("b0") == body and s.body("b1") == body


# --------------------------------------------------------------------------- real-shaped bodies


def _main_chain(n: int = 3) -> list[bytes]:
    rng = random.Random(7)
    ch = Chain(rng, "S", "You are Claude Code. " * 500, tools(rng, 20, 2500))
    out = []
    for i in range(n):
        out.append(ch.request("p1", "look at the service" if i == 0 else [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "line\n" * 300}]))
        ch.response(f"msg_{i}", f"req_{i}", "reading " * 700)
    return out


def test_real_shaped_requests_copy_the_shared_front_and_name_earlier_pieces():
    bodies = _main_chain(4)
    s = Session()
    recs = [s.cut(b, meta(f"r{i}")) for i, b in enumerate(bodies)]
    first = recs[0].parts[-1].data
    assert first["depth"] == 0 and all("copy" not in seg for seg in first["segments"])
    assert len(recs[0].parts) - 1 == 21  # 20 tool definitions and the system prompt
    later = recs[3].parts[-1].data
    assert "copy" in later["segments"][0]
    copy = later["segments"][0]["copy"]
    assert copy["from"] == "r2" and copy["len"] >= MIN_COPY and later["depth"] >= 1
    assert sum(1 for seg in later["segments"] if "piece" in seg) >= 21  # schemas and prompt land once
    assert later["chain"] == first["chain"]
    total = sum(len(b) for b in bodies)
    landed = sum(len(encode_record(r)) + 1 for r in recs)
    assert landed < total * 0.5
    fresh, _ = land_all(bodies)
    for i, b in enumerate(bodies):
        assert fresh.body(f"b{i}") == b


def test_pieces_are_byte_for_byte_with_their_quotes_and_escapes():
    text = "caf\\u00e9 \\/ \\ud83d\\ude00 " + "x" * MIN_PIECE
    body = ('{"a":"' + text + '","tools":[{"name":"T","d":"' + "y" * 10 + '"}, {"name": "spaced"}]}').encode()
    spans = find_pieces(body)
    assert body[spans[0][0]:spans[0][1]] == ('"' + text + '"').encode()
    assert body[spans[1][0]:spans[1][1]] == b'{"name":"T","d":"yyyyyyyyyy"}'
    assert len(spans) == 2  # a tool written with spaces would not land byte for byte: not a piece
    s, _ = land_all([body])
    assert s.body("b0") == body


@pytest.mark.parametrize("body,why", [
    (b"[1,2,3]", "not one JSON object"),
    (b'{"a":1', "not one JSON value"),
    (b'{"a":"\xff"}', "not valid UTF-8"),
])
def test_a_body_that_is_not_one_json_object_lands_whole_saying_why(body, why):
    s = Session()
    rec = s.cut(body, meta("x"))
    assert rec.parts[0].k == "unknown" and why in rec.parts[0].text
    assert why in rec.parts[-1].data["why"]
    fresh, _ = land_all([body])
    assert fresh.body("b0") == body


# --------------------------------------------------------------------------- too large to land


def test_a_piece_taken_out_still_lets_later_bodies_rebuild():
    rng = random.Random(3)
    shot = '"' + "".join(rng.choice("abcdefgh") for _ in range(20000)) + '"'
    small = '"' + "z" * 2000 + '"'
    b0 = ('{"messages":[{"content":' + shot + '}],"system":' + small + '}').encode()
    b1 = ('{"messages":[{"content":"hi"}],"system":' + small + '}').encode()
    b2 = ('{"messages":[{"content":' + shot + '},{"content":"more"}],"system":' + small + '}').encode()
    s = Session()
    r0 = s.cut(b0, meta("r0"), max_bytes=6000)
    assert len(encode_record(r0)) + 1 <= 6000
    states = [p.state for p in r0.parts[:-1]]
    assert states == ["too_large", "available"]  # the largest piece goes, the manifest never
    assert r0.parts[0].sha256 == hashlib.sha256(shot.encode()).hexdigest() and r0.parts[0].bytes == len(shot)
    r1 = s.cut(b1, meta("r1"))
    r2 = s.cut(b2, meta("r2"))
    assert {"piece": hashlib.sha256(shot.encode()).hexdigest()} in r2.parts[-1].data["segments"]
    assert all("copy" not in seg or seg["copy"]["from"] != "r0" for seg in r2.parts[-1].data["segments"])
    fresh = Session()
    for rec in (r0, r1, r2):
        fresh.add_line(encode_record(rec))
    with pytest.raises(TooLarge):
        fresh.body("r0")
    assert fresh.body("r1") == b1
    with pytest.raises(TooLarge):
        fresh.body("r2")
    assert fresh.body_from("r0", b0) == b0
    assert fresh.body("r2") == b2  # the piece is known now


def test_a_record_still_too_large_lands_whole_and_taken_out():
    body = json.dumps({"m": ["short text %d" % i for i in range(400)]}).encode()
    s = Session()
    rec = s.cut(body, meta("r"), max_bytes=2000)
    assert rec.parts[0].k == "unknown" and rec.parts[0].state == "too_large" and rec.parts[0].data is None
    assert rec.parts[0].sha256 == hashlib.sha256(body).hexdigest()
    with pytest.raises(TooLarge):
        s.body("r")
    assert s.body_from("r", body) == body


def test_a_reference_to_something_the_session_does_not_hold():
    bodies = _main_chain(2)
    s = Session()
    lines = [encode_record(s.cut(b, meta(f"r{i}"))) for i, b in enumerate(bodies)]
    lone = Session()
    lone.add_line(lines[1])  # the first file is gone from the root
    with pytest.raises(MissingReference):
        lone.body("r1")
    wrong = Session()
    wrong.add_line(lines[1])
    wrong.add_line(lines[0])  # landed after: not a reference backwards
    with pytest.raises(MissingReference):
        wrong.body("r1")


def test_a_manifest_that_lies_about_its_digest():
    s = Session()
    line = encode_record(s.cut(b'{"a":1}', meta("r")))
    bad = line.replace(b'{"lit":"{\\"a\\":1}"}', b'{"lit":"{\\"a\\":2}"}')
    assert bad != line
    t = Session()
    t.add_line(bad)
    with pytest.raises(BadBody):
        t.body("r")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])
@given(chains(), st.sampled_from([2048, 6000, 1 << 20]))
def test_landed_through_the_provider_pass_in_several_files(tmp_path_factory, bodies, budget):
    """The same property through the real pass: files cut at the budget, read back in seq order."""
    import io
    import os

    from asz_core.collect.provider_bodies import provider_pass
    from asz_core.storage.layout import provider_files

    base = tmp_path_factory.mktemp("pass")
    src = base / "src"
    src.mkdir()
    written = {}
    for i, b in enumerate(bodies):
        v = json.loads(b)
        v["metadata"] = {"user_id": json.dumps({"session_id": "S1"})}
        data = json.dumps(v, separators=(",", ":")).encode() if i % 2 else b[:-1] + b',"metadata":{"user_id":"{\\"session_id\\":\\"S1\\"}"}}'
        name = f"00000000-0000-4000-8000-{i:012d}.request.json"
        (src / name).write_bytes(data)
        os.utime(src / name, ns=(10**18 + i, 10**18 + i))
        written[name[:-5]] = data
    c = provider_pass(base / "root", src, max_delta_bytes=budget, err=io.StringIO(), fsync=False)
    assert c.records == len(bodies)
    s = Session.open(provider_files(base / "root" / "S1"))
    assert len(provider_files(base / "root" / "S1")) == c.landed
    for rid, data in written.items():
        try:
            assert s.body(rid) == data
        except TooLarge:
            assert s.body_from(rid, data) == data
