"""A round's node and relation frames vouched for by the compiled ``asz_core.verify.jsonscan.round_frames`` (issue 22):
``asz verify``'s chain checks read each round with :func:`~asz_core.flow.round_read.check_round`, which builds no
entity where the scan vouches for every frame, and reads the file the full way (:func:`decode_round`) where it does
not, so the findings are the reader's either way.

Every test holds the compiled reading against :func:`decode_round` (the reader of origin-digest §4.2, what
``read_round`` and an install without the module run), never against itself.
"""

from __future__ import annotations

import hashlib
import random
import re
import sys

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asz_core.flow.round import RoundError, RoundHeader, build_round, decode_round  # round before round_read
from asz_core.flow.round_read import CheckedRound, check_round
from asz_core.flow.verify_chain import verify_chains
from asz_core.verify import session_files
from asz_core.verify.walk import verify
from guard_page import guarded, mutated

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "flow"))
from test_round_read_fast import RELATIONS, VARIANTS  # noqa: E402  (the one-pass read's node and relation lines)

jsonscan = session_files.jsonscan
needs_module = pytest.mark.skipif(jsonscan is None, reason="asz_core.verify.jsonscan was not built (no C compiler at install)")
CONV = "00000001-0000-4000-8000-000000000001"
HEADER = RoundHeader(CONV, CONV, 2, input_digest="cd" * 32, previous="ab" * 32, from_seq=1, through_seq=4)


def seal(lines: list[bytes]) -> bytes:
    """A round file of ``lines`` (its header and frames) and a commit whose digest binds them and whose counts are
    the frames' own by their ``"t"`` as orjson reads it (a line orjson refuses counts as none)."""
    body = b"".join(line + b"\n" for line in lines)
    counts = {"nodes": 0, "relations": 0, "unresolved": 0}
    for line in lines[1:]:
        try:
            t = orjson.loads(line).get("t")
        except (orjson.JSONDecodeError, AttributeError):
            continue
        key = {"node": "nodes", "relation": "relations", "unresolved": "unresolved"}.get(t)
        if key:
            counts[key] += 1
    return body + orjson.dumps({"t": "commit", "digest": hashlib.sha256(body).hexdigest(), "counts": counts}) + b"\n"


def header_line(header: RoundHeader = HEADER) -> bytes:
    return build_round(header, [], [], []).data.splitlines()[0]


def outcome(data: bytes, tmp_path, compiled: bool):
    """What reading ``data`` as a round file gives: ``("read", header, digest, file digest, built)`` or ``("refused",
    rule, line, message)``; ``built`` says whether entities were built (the compiled scan did not vouch)."""
    path = tmp_path / "r000002-000000000000.sf"
    path.write_bytes(data)
    try:
        if compiled:
            r = check_round(path, jsonscan.round_frames)
        else:
            r = decode_round(data, path)
            r.path = path
    except RoundError as exc:
        return ("refused", exc.rule, exc.line, str(exc))
    file_digest = r.file_digest if isinstance(r, CheckedRound) else r.file_sha256()
    return ("read", r.header, r.digest, file_digest, not isinstance(r, CheckedRound))


def same(data: bytes, tmp_path) -> bool:
    """The compiled reading and :func:`decode_round` agree on ``data`` (asserted); True when the scan vouched for it."""
    got, want = outcome(data, tmp_path, True), outcome(data, tmp_path, False)
    assert got[:4] == want[:4], (data[:300], got, want)
    return got[0] == "read" and not got[4]


#: Lines the scan vouches for (the writer's own form): each round of one of them reads without building entities.
VOUCHED = {"node plain": VARIANTS["plain"], "node tombstone": VARIANTS["tombstone"],
           "node kind empty": VARIANTS["kind empty"], "node id UTF-8": VARIANTS["id UTF-8"],
           "node ref at through": b'{"t":"node","id":"n","revision":2,"kind":"k","ref":{"seq":4,"row":9}}',
           "node refs empty": b'{"t":"node","id":"n","revision":2,"kind":"k","refs":[]}',
           "node attrs empty": b'{"t":"node","id":"n","revision":2,"kind":"k","attrs":{}}', "node attrs a wide integer in a list":
               b'{"t":"node","id":"n","revision":2,"kind":"k","attrs":{"a":[1,-2.5e-10,"\\u00e9\\ud83d\\ude00",null,true,false,{}]}}',
           "node ref its first refs": VARIANTS["plain, ref its first refs"], "node kind escaped": VARIANTS["kind escaped as not ASCII"],
           "relation plain": RELATIONS["plain"], "relation no optional field": RELATIONS["no optional field"][:-1] + b',"quality":""}',
           "relation via empty": RELATIONS["no optional field"][:-1] + b',"quality":"q","via":""}',
           "relation via non-ASCII": RELATIONS["no optional field"][:-1] + b',"quality":"","via":"r\xc3\xa9p\xc3\xa9t\xc3\xa9"}',
           "relation tombstone": RELATIONS["tombstone"]}


@needs_module
@pytest.mark.parametrize("name", sorted(VOUCHED))
def test_a_frame_in_the_writers_form_is_vouched_for_and_reads(name, tmp_path):
    assert same(seal([header_line(), VOUCHED[name]]), tmp_path)


@needs_module
@pytest.mark.parametrize("name", sorted(set(VARIANTS) | {"relation " + k for k in RELATIONS}))
@pytest.mark.parametrize("twice", [False, True], ids=["once", "twice"])
def test_every_variant_of_the_one_pass_read_gives_the_readers_finding(name, twice, tmp_path):
    """Every node and relation line of the one-pass read's tests (valid and not, in the writer's form and just off
    it), once and twice in a sealed round: the same round read, or the same refusal (rule, line, message). Twice,
    an id repeats: never vouched for."""
    line = RELATIONS[name[9:]] if name.startswith("relation ") else VARIANTS[name]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))
    try:
        vouched = same(seal([header_line()] + [line] * (2 if twice else 1)), tmp_path)
    finally:
        sys.setrecursionlimit(limit)
    assert not (vouched and twice)


def _round_of(nodes: list[bytes], relations: list[bytes], unresolved: list[bytes] = ()) -> bytes:
    return seal([header_line()] + nodes + relations + list(unresolved))


def _node(i: str, extra: bytes = b"") -> bytes:
    return b'{"t":"node","id":"' + i.encode() + b'","revision":2,"kind":"k"' + extra + b"}"


def _relation(i: str) -> bytes:
    return b'{"t":"relation","id":"' + i.encode() + b'","revision":2,"type":"x","from":"a","to":"b","quality":""}'


@needs_module
def test_ids_are_vouched_for_in_order_only_and_each_group_apart(tmp_path):
    """Ids one after another in byte order in each group are vouched for (a node and a relation may share one); an
    id again, or out of order, is left to the reader, which refuses the first and reads the second."""
    assert same(_round_of([_node("a"), _node("b"), _node("é")], [_relation("a"), _relation("ab")]), tmp_path)
    assert not same(_round_of([_node("a"), _node("a")], []), tmp_path)
    assert outcome(_round_of([_node("a"), _node("a")], []), tmp_path, True)[:2] == ("refused", "entity id")
    got = outcome(_round_of([_node("b"), _node("a")], []), tmp_path, True)
    assert got[0] == "read" and got[4]  # read, by the reader: out of order is no rule
    assert not same(_round_of([], [_relation("b"), _relation("a"), _relation("b")]), tmp_path)
    assert not same(_round_of([_node("a", b',"attrs":{"provider_bodies":[]}')], []), tmp_path)  # their rules: Python
    assert not same(_round_of([_node("a", b',"attrs":{"provider_bodie\\u0073":[]}')], []), tmp_path)


@needs_module
def test_unresolved_frames_and_the_commit_are_read_as_the_reader_reads_them(tmp_path):
    ok = b'{"t":"unresolved","id":"u1","revision":2,"kind":"k","ref":"r","reason":"why","state":"open"}'
    assert same(_round_of([_node("a")], [_relation("a")], [ok]), tmp_path)
    for bad in [ok.replace(b"open", b"shut"), ok.replace(b"revision\":2", b"revision\":3"), b"{}", b"[1]", b"x", b""]:
        assert not same(_round_of([_node("a")], [], [ok, bad]), tmp_path)
    assert not same(_round_of([_node("a")], [], [ok, ok]), tmp_path)  # an unresolved id twice
    assert not same(_round_of([_node("a")], [], [ok, _node("b")]), tmp_path)  # a node after an unresolved frame
    data = _round_of([_node("a")], [])
    assert not same(data + _node("b") + b"\n", tmp_path)  # a frame after the commit
    assert not same(data[:-1], tmp_path)  # no newline at the end
    assert not same(data.replace(b'"nodes":1', b'"nodes":2'), tmp_path)  # counts
    assert not same(data.replace(b'"digest":"', b'"digest":"0'), tmp_path)
    assert not same(data[:data.rindex(b'{"t":"commit"')], tmp_path)  # no commit
    for header in [RoundHeader(CONV, CONV, 1 << 63, input_digest="cd" * 32, previous="ab" * 32, from_seq=1, through_seq=4),
                   RoundHeader(CONV, CONV, 2, input_digest="cd" * 32, previous="ab" * 32, from_seq=1, through_seq=1 << 63)]:
        assert not same(seal([header_line(header), _node("a").replace(b'"revision":2', b'"revision":%d' % header.round)]), tmp_path)
    assert not same(b" " + data, tmp_path)  # a header orjson reads that the reading here does not take as written


def _corpus_rounds(root) -> list:
    return sorted(root.glob("_conversations/*/rounds/*.sf"))


@needs_module
def test_every_round_of_the_parsed_corpus_is_vouched_for(corpus_collected, tmp_path):
    """The corpus as asz collect parsed it: every round reads the same both ways, and the scan vouches for each (no
    round built as entities): the rounds the parser writes are the writer's own form."""
    rounds = _corpus_rounds(corpus_collected)
    assert len(rounds) == 11
    for path in rounds:
        assert same(path.read_bytes(), tmp_path)


_MUTATIONS = st.lists(st.tuples(st.integers(0, 10**7), st.integers(0, 2), st.sampled_from(
    [b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"0", b"1", b"-", b"e", b".", b"u", b"\xff", b"\xc3", b"\xa9",
     b"\x00", b" ", b"\n", b'"t":"node",', b'"id":"x",', b"null", b"1e400", b"\\ud800", b'"provider_bodies":[]',
     b'"seq":0', b'"row":0', b'"block":-1', b'"tombstone":true', b"9" * 19])), min_size=1, max_size=3)


@needs_module
@settings(max_examples=400, deadline=None)
@given(st.data())
def test_a_changed_corpus_round_resealed_gives_the_readers_finding(corpus_collected, tmp_path_factory, data):
    """A corpus round with bytes changed in its frames and its commit written again over them (so that the frames'
    own rules decide, not the digest): the compiled reading gives what the reader gives."""
    rounds = _corpus_rounds(corpus_collected)
    raw = data.draw(st.sampled_from(rounds)).read_bytes()
    lines = raw.split(b"\n")[:-2]  # header and frames, no commit
    body = mutated(b"\n".join(lines[1:]), data.draw(_MUTATIONS))
    same(seal([lines[0]] + body.split(b"\n")), tmp_path_factory.mktemp("r"))


def _damaged(corpus_copy):
    """A copy of the parsed corpus with one change in each of several rounds: a frame's byte flipped (commit left), a
    frame changed and the commit written again (a ref beyond through_seq, an id twice, a relation's type emptied,
    provider bodies with a bad role), a round cut short, and a second node frame in the writer's form out of order
    (read by the reader, no finding)."""
    root = corpus_copy()
    rounds = _corpus_rounds(root)
    rng = random.Random(28)
    edits = []
    for k, path in enumerate(rounds[:7]):
        lines = path.read_bytes().split(b"\n")[:-2]
        nodes = [i for i, x in enumerate(lines) if x.startswith(b'{"t":"node",')]
        rels = [i for i, x in enumerate(lines) if x.startswith(b'{"t":"relation",')]
        n = nodes[rng.randrange(len(nodes))]
        if k == 0:
            data = bytearray(path.read_bytes())
            at = sum(len(x) + 1 for x in lines[:n]) + 20
            data[at] ^= 0x01
            data = bytes(data)
        elif k == 6:
            data = path.read_bytes()[:-40]
        else:
            if k == 1:
                lines[n] = re.sub(rb'"ref":\{"seq":\d+', b'"ref":{"seq":999999', lines[n], count=1) if b'"ref":' in lines[n] \
                    else lines[n][:-1] + b',"refs":[{"seq":999999,"row":1}]}'
            elif k == 2:
                lines.insert(n + 1, lines[n])
            elif k == 3 and rels:
                lines[rels[0]] = re.sub(rb'"type":"[^"]*"', b'"type":""', lines[rels[0]], count=1)
            elif k == 4:
                lines[n] = lines[n][:-1] + b',"attrs":{"provider_bodies":[{"ref":{"row":1,"seq":1},"role":"x"}]}}' \
                    if b'"attrs":' not in lines[n] else lines[n].replace(b'"attrs":{', b'"attrs":{"provider_bodies":[{"ref":{"row":1,"seq":1},"role":"x"}],', 1)
            else:
                lines[nodes[0]], lines[nodes[-1]] = lines[nodes[-1]], lines[nodes[0]]
            data = seal(lines)
        path.chmod(0o644)
        path.write_bytes(data)
        edits.append(path)
    return root, edits


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_damaged_rounds_give_the_same_chain_findings_with_the_module_and_without(corpus_copy, compiled, monkeypatch):
    """The chain checks of a root with damaged rounds find the same with the compiled scan and without it (the
    reader alone), and name the damaged ones (counted from the edits above: check 3 for each but the reordered one;
    the resealed rounds also break their file name, and the next round's ``previous`` no longer names them)."""
    if compiled and jsonscan is None:
        pytest.skip("asz_core.verify.jsonscan was not built")
    root, edits = _damaged(corpus_copy)
    frames = jsonscan.round_frames if compiled else None
    got = verify_chains(root, frames=frames)
    want = verify_chains(root)
    assert [p.as_dict() for p in got.problems] == [p.as_dict() for p in want.problems]
    refused = {p.path for p in want.problems if p.check == 3 and "file name" not in p.message}
    assert refused == {str(p) for p in edits[:5] + edits[6:7]}  # the reordered round reads
    if not compiled:
        monkeypatch.setattr(session_files, "jsonscan", None)
    report = verify(root, jobs=1)
    chains = next(s for s in report.sections if s.name == "chains")
    assert {p.file for p in chains.problems} >= refused


@needs_module
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mprotect through ctypes: Linux only")
def test_no_byte_past_the_end_is_read(tmp_path):
    """Memory safety on every cut of every frame above (the data ends where a page that cannot be read begins, so
    reading one byte past the end kills the child): an open string, ``\\u``, a UTF-8 lead byte, a ref or a count cut
    anywhere are all among the cuts. The answers are those over the same bytes held in a ``bytes`` object."""
    frames = [line + b"\n" for line in list(VARIANTS.values()) + list(RELATIONS.values()) + list(VOUCHED.values())
              if len(line) < 1500]
    frames.append(b"".join(frames[:3]))
    want = [jsonscan.round_frames(f[:cut], 0, 2, 4) for f in frames for cut in range(len(f) + 1)]
    assert guarded(frames, "jsonscan.round_frames(view, 0, 2, 4)", tmp_path) == want
    assert None in want and (0, 0, 0) in want and any(isinstance(w, tuple) and w[1] == 1 for w in want)


@needs_module
def test_the_arguments_are_checked():
    data = _node("a") + b"\n"
    assert jsonscan.round_frames(data, 0, 2, 4) == (len(data), 1, 0)
    assert jsonscan.round_frames(data, len(data), 2, 4) == (len(data), 0, 0)
    assert jsonscan.round_frames(data, 0, 3, 4) is None  # the revision is not round 3's
    # counts of 18 digits at most (below 2^63: the 19th once overflowed a C long long, found by UBSan)
    big = _node("a", b',"ref":{"seq":1,"row":999999999999999999,"block":999999999999999999}') + b"\n"
    assert jsonscan.round_frames(big, 0, 2, 4) == (len(big), 1, 0)
    for wide in [b"9999999999999999999", b"1000000000000000000", b"99999999999999999999999"]:
        for field in [b"row", b"block"]:
            line = big.replace(b'"' + field + b'":999999999999999999', b'"' + field + b'":' + wide)
            assert jsonscan.round_frames(line, 0, 2, 4) is None, line
    for bad, said in [((data, -1, 2, 4), f"start -1 is outside the data (0 to {len(data)})"),
                      ((data, len(data) + 1, 2, 4), f"start {len(data) + 1} is outside the data (0 to {len(data)})"),
                      ((data, 0, 0, 4), "round 0 is below 1"), ((data, 0, 2, -1), "through -1 is below 0")]:
        with pytest.raises(ValueError, match=re.escape(said)):
            jsonscan.round_frames(*bad)
    for bad in [(data, 0, 1 << 63, 4), (data, 0, 2, 1 << 63), (data, 1 << 63, 2, 4)]:
        with pytest.raises(OverflowError):
            jsonscan.round_frames(*bad)
    with pytest.raises(TypeError):
        jsonscan.round_frames("text", 0, 2, 4)
    with pytest.raises(BufferError):
        jsonscan.round_frames(memoryview(data)[::2], 0, 2, 4)
