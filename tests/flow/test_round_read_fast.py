"""The round reader's one-pass read of node and relation frames (msgspec) takes exactly what the line-by-line checks
take.

A node or relation line written as asz writes it (``{"t":"node",…``, ``{"t":"relation",…``) is read by msgspec in one
pass; the same line with a
leading space (the same JSON object) is read by orjson and the checks of origin-digest §4.2 line by line. Every
variant below, valid or not, must give the same node or the same refusal (rule, line, message) both ways.
"""

from __future__ import annotations

import hashlib
import re
import sys

import orjson
import pytest

from asz_core.flow.model import Node, Ref
from asz_core.flow.round import RoundError, RoundHeader, build_round, decode_round

CONV = "00000001-0000-4000-8000-000000000001"
HEADER = RoundHeader(CONV, CONV, 2, input_digest="cd" * 32, previous="ab" * 32, from_seq=1, through_seq=4)
DEEP = b"[" * 1000 + b"]" * 1000

#: Node lines (bytes, each a node frame of round 2 through seq 4), valid and not.
VARIANTS = {
    "plain": b'{"t":"node","id":"n","revision":2,"kind":"llm.call","parent":"p","stream":"main","ref":{"seq":1,"row":2},'
             b'"refs":[{"seq":1,"row":2},{"seq":4,"row":3,"block":0}],"attrs":{"b":[1,2.5,"x"],"a":{"z":null}}}',
    "no optional field": b'{"t":"node","id":"n","revision":2}',
    "attrs null": b'{"t":"node","id":"n","revision":2,"attrs":null}',
    "attrs a list": b'{"t":"node","id":"n","revision":2,"attrs":[1]}',
    "attrs a wide integer": b'{"t":"node","id":"n","revision":2,"attrs":{"a":123456789012345678901234567890}}',
    "attrs above uint64": b'{"t":"node","id":"n","revision":2,"attrs":{"a":18446744073709551616}}',
    "attrs a huge exponent": b'{"t":"node","id":"n","revision":2,"attrs":{"a":1e400}}',
    "attrs deep": b'{"t":"node","id":"n","revision":2,"attrs":{"a":' + DEEP + b"}}",
    "attrs lone surrogate": b'{"t":"node","id":"n","revision":2,"attrs":{"a":"\\ud800"}}',
    "provider_bodies valid": b'{"t":"node","id":"n","revision":2,"attrs":{"provider_bodies":[{"role":"request","ref":{"seq":2,"row":1}}]}}',
    "provider_bodies beyond": b'{"t":"node","id":"n","revision":2,"attrs":{"provider_bodies":[{"role":"request","ref":{"seq":5,"row":1}}]}}',
    "provider_bodies bad role": b'{"t":"node","id":"n","revision":2,"attrs":{"provider_bodies":[{"role":"x","ref":{"seq":1,"row":1}}]}}',
    "tombstone": b'{"t":"node","id":"n","revision":2,"tombstone":true}',
    "tombstone with bad fields": b'{"t":"node","id":"n","revision":2,"tombstone":true,"kind":5,"ref":7}',
    "tombstone 1": b'{"t":"node","id":"n","revision":2,"tombstone":1}',
    "tombstone 0": b'{"t":"node","id":"n","revision":2,"tombstone":0,"kind":"x"}',
    "tombstone null": b'{"t":"node","id":"n","revision":2,"tombstone":null}',
    "tombstone false": b'{"t":"node","id":"n","revision":2,"tombstone":false,"kind":"x"}',
    "revision true": b'{"t":"node","id":"n","revision":true}',
    "revision 2.0": b'{"t":"node","id":"n","revision":2.0}',
    "revision other round": b'{"t":"node","id":"n","revision":1}',
    "revision missing": b'{"t":"node","id":"n"}',
    "id empty": b'{"t":"node","id":"","revision":2}',
    "id a number": b'{"t":"node","id":5,"revision":2}',
    "id missing": b'{"t":"node","revision":2}',
    "kind null": b'{"t":"node","id":"n","revision":2,"kind":null,"parent":null,"stream":null}',
    "kind a number": b'{"t":"node","id":"n","revision":2,"kind":5}',
    "kind twice": b'{"t":"node","id":"n","revision":2,"kind":5,"kind":"talk"}',
    "kind lone surrogate": b'{"t":"node","id":"n","revision":2,"kind":"\\udc00"}',
    "t twice": b'{"t":"node","id":"n","revision":2,"t":"relation","type":"x","from":"a","to":"b"}',
    "t twice, node last": b'{"t":"node","id":"n","revision":2,"t":"mystery","t":"node"}',
    "unknown key": b'{"t":"node","id":"n","revision":2,"extra":1}',
    "unknown key with a huge number": b'{"t":"node","id":"n","revision":2,"extra":1e400}',
    "ref null": b'{"t":"node","id":"n","revision":2,"ref":null}',
    "ref block null": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":1,"block":null}}',
    "ref extra key": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":1,"x":"y"}}',
    "ref extra key with a huge number": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":1,"x":1e400}}',
    "refs extra key not UTF-8": b'{"t":"node","id":"n","revision":2,"refs":[{"seq":1,"row":1,"x":"\xff"}]}',
    "ref seq 0": b'{"t":"node","id":"n","revision":2,"ref":{"seq":0,"row":1}}',
    "ref row 0": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":0}}',
    "ref block -1": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":1,"block":-1}}',
    "ref block huge": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":1,"block":9223372036854775808}}',
    "ref beyond through": b'{"t":"node","id":"n","revision":2,"ref":{"seq":5,"row":1}}',
    "ref seq 1.0": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1.0,"row":1}}',
    "ref seq true": b'{"t":"node","id":"n","revision":2,"ref":{"seq":true,"row":1}}',
    "ref a list": b'{"t":"node","id":"n","revision":2,"ref":[1,1]}',
    "refs null": b'{"t":"node","id":"n","revision":2,"refs":null}',
    "refs empty": b'{"t":"node","id":"n","revision":2,"refs":[]}',
    "refs an object": b'{"t":"node","id":"n","revision":2,"refs":{"seq":1,"row":1}}',
    "refs beyond through": b'{"t":"node","id":"n","revision":2,"refs":[{"seq":1,"row":1},{"seq":9,"row":1}]}',
    "refs row -1": b'{"t":"node","id":"n","revision":2,"refs":[{"seq":1,"row":-1}]}',
    "refs huge seq": b'{"t":"node","id":"n","revision":2,"refs":[{"seq":18446744073709551615,"row":1}]}',
    # session 27: the compiled loop reads the writer's plain form itself; each of these is just off that form
    "plain, ref its first refs": b'{"t":"node","id":"n","revision":2,"kind":"k","parent":"p","stream":"s",'
                                 b'"ref":{"seq":1,"row":2,"block":0},"refs":[{"seq":1,"row":2,"block":0},{"seq":1,"row":2}]}',
    "kind escaped as not ASCII": b'{"t":"node","id":"n","revision":2,"kind":"\\u00e9"}',
    "id invalid UTF-8": b'{"t":"node","id":"n\xc3","revision":2}',
    "id UTF-8": '{"t":"node","id":"né","revision":2,"kind":"k"}'.encode(),
    "id escaped": b'{"t":"node","id":"n\\u0041","revision":2}',
    "id with a quote escaped": b'{"t":"node","id":"n\\"x","revision":2}',
    "id with a raw tab": b'{"t":"node","id":"n\tx","revision":2}',
    "id with DEL": b'{"t":"node","id":"n\x7fx","revision":2}',
    "revision 02": b'{"t":"node","id":"n","revision":02}',
    "revision 2 with an exponent": b'{"t":"node","id":"n","revision":2e0}',
    "revision -2": b'{"t":"node","id":"n","revision":-2}',
    "revision 19 digits": b'{"t":"node","id":"n","revision":0000000000000000002}',
    "parent before kind": b'{"t":"node","id":"n","revision":2,"parent":"p","kind":"k"}',
    "kind twice, both strings": b'{"t":"node","id":"n","revision":2,"kind":"a","kind":"b"}',
    "kind empty": b'{"t":"node","id":"n","revision":2,"kind":"","parent":"","stream":""}',
    "a space after a colon": b'{"t":"node","id":"n","revision":2,"kind": "k"}',
    "a space before the end": b'{"t":"node","id":"n","revision":2,"attrs":{"a":1} }',
    "tombstone after attrs": b'{"t":"node","id":"n","revision":2,"attrs":{"a":1},"tombstone":false}',
    "kind after attrs": b'{"t":"node","id":"n","revision":2,"attrs":{"a":1},"kind":"k"}',
    "attrs empty": b'{"t":"node","id":"n","revision":2,"attrs":{}}',
    "attrs a string": b'{"t":"node","id":"n","revision":2,"attrs":"x"}',
    "attrs two values": b'{"t":"node","id":"n","revision":2,"attrs":{"a":1}{"b":2}}',
    "ref block 00": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":1,"block":00}}',
    "ref row 19 digits": b'{"t":"node","id":"n","revision":2,"ref":{"seq":1,"row":1000000000000000000}}',
    "ref row before seq": b'{"t":"node","id":"n","revision":2,"ref":{"row":1,"seq":1}}',
    "ref seq at through": b'{"t":"node","id":"n","revision":2,"ref":{"seq":4,"row":9}}',
    "refs trailing comma": b'{"t":"node","id":"n","revision":2,"refs":[{"seq":1,"row":1},]}',
    "refs not closed": b'{"t":"node","id":"n","revision":2,"refs":[{"seq":1,"row":1}',
    "refs then ref": b'{"t":"node","id":"n","revision":2,"refs":[{"seq":1,"row":1}],"ref":{"seq":1,"row":1}}',
}

#: Relation lines (each a relation frame of round 2 through seq 4), valid and not.
_REL = b'{"t":"relation","id":"r","revision":2,"type":"continues","from":"conversation/a","to":"conversation/b"'
RELATIONS = {
    "plain": _REL + b',"quality":"exact_unique","via":"session a repeats 2 records","evidence":[{"seq":1,"row":2},'
                    b'{"seq":4,"row":3,"block":0}]}',
    "no optional field": _REL + b"}",
    "evidence null": _REL + b',"evidence":null}',
    "evidence empty": _REL + b',"evidence":[]}',
    "evidence an object": _REL + b',"evidence":{"seq":1,"row":1}}',
    "evidence beyond through": _REL + b',"evidence":[{"seq":1,"row":1},{"seq":5,"row":1}]}',
    "evidence seq 0": _REL + b',"evidence":[{"seq":0,"row":1}]}',
    "evidence row 0": _REL + b',"evidence":[{"seq":1,"row":0}]}',
    "evidence block -1": _REL + b',"evidence":[{"seq":1,"row":1,"block":-1}]}',
    "evidence block null": _REL + b',"evidence":[{"seq":1,"row":1,"block":null}]}',
    "evidence seq 1.0": _REL + b',"evidence":[{"seq":1.0,"row":1}]}',
    "evidence seq true": _REL + b',"evidence":[{"seq":true,"row":1}]}',
    "evidence a list": _REL + b',"evidence":[[1,1]]}',
    "evidence extra key": _REL + b',"evidence":[{"seq":1,"row":1,"x":"y"}]}',
    "evidence extra key with a huge number": _REL + b',"evidence":[{"seq":1,"row":1,"x":1e400}]}',
    "evidence extra key not UTF-8": _REL + b',"evidence":[{"seq":1,"row":1,"x":"\xff"}]}',
    "evidence huge seq": _REL + b',"evidence":[{"seq":18446744073709551615,"row":1}]}',
    "quality null": _REL + b',"quality":null,"via":null}',
    "quality a number": _REL + b',"quality":5}',
    "via empty": _REL + b',"via":""}',
    "via lone surrogate": _REL + b',"via":"\\ud800"}',
    "via not UTF-8": _REL + b',"via":"a\xffb"}',
    "via non-ASCII": _REL + b',"via":"r\xc3\xa9p\xc3\xa9t\xc3\xa9"}',
    "type empty": b'{"t":"relation","id":"r","revision":2,"type":"","from":"a","to":"b"}',
    "type missing": b'{"t":"relation","id":"r","revision":2,"from":"a","to":"b"}',
    "from missing": b'{"t":"relation","id":"r","revision":2,"type":"x","to":"b"}',
    "to null": b'{"t":"relation","id":"r","revision":2,"type":"x","from":"a","to":null}',
    "to a list": b'{"t":"relation","id":"r","revision":2,"type":"x","from":"a","to":["b"]}',
    "type twice": _REL + b',"type":"other"}',
    "tombstone": b'{"t":"relation","id":"r","revision":2,"tombstone":true}',
    "tombstone with bad fields": b'{"t":"relation","id":"r","revision":2,"tombstone":true,"type":5,"evidence":7}',
    "tombstone 1": b'{"t":"relation","id":"r","revision":2,"tombstone":1}',
    "tombstone 0": _REL + b',"tombstone":0}',
    "tombstone null": _REL + b',"tombstone":null}',
    "tombstone false": _REL + b',"tombstone":false}',
    "revision true": b'{"t":"relation","id":"r","revision":true,"type":"x","from":"a","to":"b"}',
    "revision other round": b'{"t":"relation","id":"r","revision":1,"type":"x","from":"a","to":"b"}',
    "revision missing": b'{"t":"relation","id":"r","type":"x","from":"a","to":"b"}',
    "id empty": b'{"t":"relation","id":"","revision":2,"type":"x","from":"a","to":"b"}',
    "id a number": b'{"t":"relation","id":5,"revision":2,"type":"x","from":"a","to":"b"}',
    "unknown key": _REL + b',"extra":1}',
    "unknown key with a huge number": _REL + b',"extra":1e400}',
    "t twice, node last": _REL + b',"t":"node"}',
    "t twice, relation last": b'{"t":"relation","id":"r","revision":2,"t":"mystery","t":"relation","type":"x","from":"a","to":"b"}',
    "cut short": _REL + b',"evidence":[{"seq":1,"row":1}',
}


def _round(node_line: bytes, twice: bool = False) -> bytes:
    """A sealed round 2: its header, ``node_line`` (twice when ``twice``), its commit."""
    head = build_round(HEADER, [], [], []).data.splitlines()[0]
    body = head + b"\n" + (node_line + b"\n") * (2 if twice else 1)
    counts = {"nodes": 2 if twice else 1, "relations": 0, "unresolved": 0}
    if b'"t":"relation"' in node_line:
        counts = {"nodes": 0, "relations": 2 if twice else 1, "unresolved": 0}
    commit = orjson.dumps({"t": "commit", "digest": hashlib.sha256(body).hexdigest(), "counts": counts})
    return body + commit + b"\n"


def _outcome(data: bytes):
    try:
        r = decode_round(data, "r.sf")
    except RoundError as exc:
        # orjson's column counts the leading space of the line read line by line: the rest is compared as it is
        return ("refused", exc.rule, exc.line, re.sub(r"line 1 column \d+ \(char \d+\)", "…", str(exc)))
    return ("read", [(n, {k: (v, type(v)) for k, v in n.attrs.items()}) for n in r.nodes], r.relations, r.digest)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled node loop", "python node loop"])
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_one_pass_read_takes_what_the_checks_take(name, compiled, monkeypatch):
    """Both ways of the one-pass read: the compiled run of node frames (``bytescan.node_lines``, where it was built)
    and the Python's ``node_line`` of each (an install without the module)."""
    from asz_core.flow import round_read

    if compiled and round_read.bytescan is None:
        pytest.skip("asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")
    if not compiled:
        monkeypatch.setattr(round_read, "bytescan", None)
    line = VARIANTS[name]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))  # "attrs deep" compares values nested 1,000 deep
    try:
        _same_outcome(line)
        _same_outcome(line, twice=True)
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("name", sorted(RELATIONS))
def test_one_pass_read_of_a_relation_takes_what_the_checks_take(name):
    line = RELATIONS[name]
    _same_outcome(line)
    _same_outcome(line, twice=True)


def test_one_pass_read_gives_the_written_relations():
    from asz_core.flow.model import Relation

    rels = [Relation("rel/b", "continues", "conversation/a", "conversation/b", "exact_unique", "session a repeats",
                     [Ref(1, 2), Ref(4, 3, 0)]),
            Relation("rel/a", "spawned", "call/x", "run/y"), Relation("rel/c", tombstone=True)]
    data = build_round(HEADER, [], rels, []).data
    assert data.count(b'\n{"t":"relation",') == 3  # as the writer writes them: the one-pass read's lines
    r = decode_round(data)
    assert sorted(r.relations, key=lambda x: x.id) == [
        Relation("rel/a", "spawned", "call/x", "run/y", revision=2),
        Relation("rel/b", "continues", "conversation/a", "conversation/b", "exact_unique", "session a repeats",
                 [Ref(1, 2), Ref(4, 3, 0)], revision=2),
        Relation("rel/c", revision=2, tombstone=True)]


def test_one_pass_read_refuses_a_relation_id_twice():
    with pytest.raises(RoundError) as ei:
        decode_round(_round(RELATIONS["plain"], twice=True), "r.sf")
    assert ei.value.rule == "entity id" and ei.value.line == 3 and "relation id 'r' appears twice" in str(ei.value)


def _same_outcome(line: bytes, twice: bool = False) -> None:
    fast = _outcome(_round(line, twice))
    slow = _outcome(_round(b" " + line, twice))  # the same object; not read in one pass
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "refused":
        assert fast[1:3] == slow[1:3] and fast[3] == slow[3], (fast, slow)
    else:
        assert fast[1] == slow[1] and fast[2] == slow[2]


def test_one_pass_read_gives_the_written_nodes():
    nodes = [
        Node("call/s3", kind="llm.call", parent="run/x", stream="main", ref=Ref(1, 4), refs=[Ref(1, 4), Ref(1, 5)],
             attrs={"fragments": 2, "nested": {"z": 1, "a": [1.5, None, True]}}),
        Node("msg/1/5:0", kind="message.assistant", parent="call/s3", stream="main", ref=Ref(1, 5, 0)),
        Node("session/x", kind="session"),
        Node("gone", tombstone=True),
    ]
    r = decode_round(build_round(HEADER, nodes, [], []).data)
    assert [n.id for n in r.nodes] == ["call/s3", "gone", "msg/1/5:0", "session/x"]
    got = {n.id: n for n in r.nodes}
    assert got["call/s3"].refs == [Ref(1, 4), Ref(1, 5)] and got["call/s3"].ref == Ref(1, 4)
    assert got["call/s3"].attrs == {"fragments": 2, "nested": {"a": [1.5, None, True], "z": 1}}
    assert got["msg/1/5:0"].ref == Ref(1, 5, 0) and got["msg/1/5:0"].refs == []
    assert got["session/x"].attrs == {} and got["session/x"].ref is None
    assert got["gone"].tombstone and got["gone"].revision == 2
    assert all(n.revision == 2 for n in r.nodes)


def test_one_pass_read_refuses_a_node_id_twice():
    line = VARIANTS["plain"]
    with pytest.raises(RoundError) as ei:
        decode_round(_round(line, twice=True), "r.sf")
    assert ei.value.rule == "entity id" and ei.value.line == 3 and "'n' appears twice" in str(ei.value)


def test_the_compiled_loop_reads_the_plain_form_itself():
    """Session 27: a node frame of the writer's plain form is read by the compiled loop without msgspec (a ref of
    ``refs`` equal to ``ref`` is then the same frozen Ref, and a parent written again the same str); the same frame
    read line by line gives equal values."""
    from asz_core.flow import round_read

    if round_read.bytescan is None:
        pytest.skip("asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")
    nodes = [Node(f"n{i}", kind="llm.call", parent="run/p", stream="main", ref=Ref(1, i + 1),
                  refs=[Ref(1, i + 1), Ref(2, i + 1, 0)], attrs={"fragments": 2}, revision=2) for i in range(3)]
    r = decode_round(build_round(HEADER, nodes, [], []).data)
    assert r.nodes == nodes
    assert all(n.ref is n.refs[0] for n in r.nodes)
    assert r.nodes[0].parent is r.nodes[2].parent and r.nodes[0].kind is r.nodes[1].kind


_PLAIN_FORMS = (  # the writer's plain form, each optional key on or off: what the mutations below start from
    b'{"t":"node","id":"n","revision":2,"kind":"llm.call","parent":"run/p","stream":"main","ref":{"seq":1,"row":2},'
    b'"refs":[{"seq":1,"row":2},{"seq":1,"row":3,"block":0}],"attrs":{"a":1,"b":[1.5,null,"x"]}}',
    b'{"t":"node","id":"n","revision":2,"kind":"k","ref":{"seq":4,"row":1,"block":3}}',
    b'{"t":"node","id":"n","revision":2,"refs":[],"attrs":null}',
    b'{"t":"node","id":"n","revision":2,"parent":"p","attrs":{}}',
)


def test_mutated_plain_forms_read_alike_both_ways(monkeypatch):
    """Session 27's review: 1,500 node lines made from the plain form by 1 to 3 random byte edits (seeded: deleted,
    inserted or replaced bytes from JSON's and the keys' alphabet, escapes and non-ASCII, or a span copied), each read
    once and twice by the compiled loop (``bytescan.node_lines``' plain-form reader, else msgspec) and by the Python's
    ``node_line``: the same nodes, or the same refusal (rule, line, message). Some must still read (the reader's
    path) and some be refused. A longer run of this (444,320 reads under -X dev) found no difference."""
    import random

    from asz_core.flow import round_read

    if round_read.bytescan is None:
        pytest.skip("asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")
    rnd = random.Random(27)
    alphabet = b'{}[]":,0123456789-.eE \\trufalsebockrwsqidvapnm\x00\x7f\xc3\xa9'
    read = refused = 0
    for _ in range(1500):
        b = bytearray(rnd.choice(_PLAIN_FORMS))
        for _ in range(rnd.randint(1, 3)):
            op, i = rnd.randrange(4), rnd.randrange(len(b))
            if op == 0:
                del b[i]
            elif op == 1:
                b.insert(i, rnd.choice(alphabet))
            elif op == 2:
                b[i] = rnd.choice(alphabet)
            else:
                j = rnd.randrange(len(b))
                b[i:i] = b[min(i, j):max(i, j)][:20]
        line = bytes(b)
        for twice in (False, True):
            fast = _outcome(_round(line, twice))
            with monkeypatch.context() as m:
                m.setattr(round_read, "bytescan", None)
                slow = _outcome(_round(line, twice))
            assert fast == slow, line
            read += fast[0] == "read"
            refused += fast[0] == "refused"
    assert read >= 50 and refused >= 1000, (read, refused)


def test_the_compiled_loop_hands_loads_a_view_that_holds_its_line(monkeypatch):
    """Session 28: the view of a plain-form node line's attrs that the compiled loop hands to ``loads`` holds the
    line's own bytes (``memoryview.obj``), so a view a ``loads`` kept still reads those bytes once the round's data
    and lines are gone; before, it was made over the line's memory and held nothing (``obj`` None)."""
    import gc

    from asz_core.flow import round_read

    if round_read.bytescan is None:
        pytest.skip("asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")
    kept: list[memoryview] = []

    class KeepingOrjson:
        """orjson, whose loads keeps every memoryview it is handed."""

        def __getattr__(self, name):
            return getattr(orjson, name)

        @staticmethod
        def loads(data):
            if isinstance(data, memoryview):
                kept.append(data)
            return orjson.loads(data)

    monkeypatch.setattr(round_read, "orjson", KeepingOrjson())
    node = Node("n0", kind="llm.call", parent="run/p", stream="main", ref=Ref(1, 1), refs=[Ref(1, 1)],
                attrs={"fragments": 2, "x": "y"}, revision=2)
    data = build_round(HEADER, [node], [], []).data
    line = next(ln for ln in data.split(b"\n") if ln.startswith(b'{"t":"node",'))
    assert line.endswith(b',"attrs":{"fragments":2,"x":"y"}}')  # the writer's plain form, which the loop reads
    assert decode_round(data).nodes == [node]
    views = [v for v in kept if bytes(v) == b'{"fragments":2,"x":"y"}']
    assert len(views) == 1 and type(views[0].obj) is bytes and views[0].obj == line
    del data, line
    kept[:] = views
    gc.collect()
    assert bytes(views[0]) == b'{"fragments":2,"x":"y"}'
