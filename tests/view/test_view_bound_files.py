"""Landed files a round binds are decoded without the record check, and nothing else changes (issue 22).

The asz.view build reads each landed file's bytes and whole-file digest first; a file whose digest the round chain's
input digest binds is the very file parse read and checked, so its record lines are only decoded
(:func:`asz_core.view.landed_bytes.read_one`). Real input: the Claude Code corpus collected by the real
``asz collect --once`` (tests/conftest.py).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import orjson
import pytest

from asz_core.view import build_view
from asz_core.view.chain import ChainReader
from asz_core.view.document import list_conversations
from asz_core.view.session_records import LandedSession, scan_parts_py

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
from verify_landing import edit_records  # noqa: E402

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def _sessions(root: Path, conversation: str) -> tuple[LandedSession, LandedSession]:
    """The landed session read with the chain's rounds (bound files decoded only) and without (every file checked)."""
    fold, _, accepted = ChainReader(root, conversation, ()).fold_chain()
    head = fold.head
    return (LandedSession(root, head.session, head.through_seq, accepted),
            LandedSession(root, head.session, head.through_seq))


def test_bound_files_read_as_the_reader_reads_them(corpus):
    _, root = corpus
    conversations = list_conversations(root)
    assert len(conversations) >= 10
    for c in conversations:
        fast, full = _sessions(root, c)
        assert fast.files and fast.files == full.files, c
        assert orjson.dumps(list(fast.records.items()), default=str) == orjson.dumps(list(full.records.items()), default=str), c
        assert fast.times == full.times and fast.wide_numbers == full.wide_numbers and not fast.problems, c
        for name in ("id", "parent", "ord"):  # gathered while decoding: each record's field as the full reader reads it
            want = {seq: [r.get(name) for r in recs] for seq, recs in full.records.items()}
            assert getattr(fast, name + "s") == getattr(full, name + "s") == want, (c, name)


def test_a_resealed_file_with_a_record_of_a_wrong_type_is_still_refused(corpus_copy):
    """Its digest is no longer the one the round binds, so it is read the full way: the reader refuses the line."""
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    edit_records(path, lambda recs: recs[:6] + [b'{"flags":"x",' + recs[6][1:]] + recs[7:], fix_closing=True)
    fast, _ = _sessions(root, SID)
    assert fast.unverified == {1: "expected a list of strings (line 8)"}  # the reader's refusal of the flags field
    doc = build_view(root, SID)
    s = doc["summary"]
    assert s["state"] == "mismatch"
    assert any(p.startswith(f"landed file {path.relative_to(root).as_posix()} does not read") for p in s["problems"])
    assert any(p.startswith("round 1: the landed files seq 1..1 do not match its input digest") for p in s["problems"])
    (row,) = [f for f in doc["files"] if f["seq"] == 1]
    assert "line 8" in row["problem"]


def test_coverage_with_the_ids_gathered_while_decoding_is_the_same(corpus):
    """Coverage given the ids gathered while decoding looks only at uncited records when no id is there twice; over
    every corpus conversation it says what the walk over every record says (the summary, lists and lines)."""
    from asz_core.view.coverage import cited_by, measure
    from asz_core.view.document import _prepare

    _, root = corpus
    for c in list_conversations(root):
        _, fold, _, _, _, sess, v = _prepare(root, c, (), None)
        unknown = [(seq, row) for seq, row, _, p in sess.listed_parts() if p["k"] == "unknown"]
        args = (sess.records, list(v.nodes.values()), unknown, {}, fold.unresolved, {}, v.links.evidence,
                cited_by(v.nodes.values()), sess.content())
        fast, full = measure(*args, sess.ids), measure(*args)
        assert fast.summary["records"] == sum(1 for recs in sess.records.values() for r in recs
                                              if any(p.get("k") in ("text", "reasoning", "call", "result", "media") for p in r.get("parts", ()))), c
        for name in ("summary", "not_drawn", "copies", "conflicts", "problems"):
            assert getattr(fast, name) == getattr(full, name), (c, name)


def test_a_line_nesting_deeper_than_256_goes_the_full_way_in_a_bound_file():
    """The depth guard of a bound file is one translation of the whole file (:func:`_shallow`); a file with a line of
    more than 256 openers is checked line by line, and a line nesting deeper than 256 sends the file to the reader."""
    from asz_core.view.landed_bytes import _decode_bound, _shallow

    deep = b'{"id":"a","parts":[{"k":"data","data":' + b"[" * 300 + b"]" * 300 + b"}]}"
    wide = b'{"id":"b","parts":[{"k":"data","data":[' + b"[]," * 300 + b"[]]}]}"  # 302 openers, nesting 5 deep
    assert _shallow(b'{"h":1}\n' + wide[:200] + b"\n") and not _shallow(b"x\n" + deep + b"\n")
    assert _decode_bound([deep], False, _shallow(deep + b"\n")) is None
    recs, *_ = _decode_bound([wide], False, _shallow(wide + b"\n"))
    assert recs[0]["parts"][0]["data"] == [[]] * 301


def test_a_file_with_a_wide_line_is_decoded_by_the_compiled_loop_but_that_line(monkeypatch):
    """In a file that is not shallow (a line of more than 256 openers), the compiled ``decode_lines`` reads every line
    but those of more than 256 openers (``deep``: it stops at each, untouched), which the Python loop measures: a wide
    one is read, one nesting deeper than 256 sends the file to the reader; the same records either way."""
    from asz_core.sessiondata import numberprobe
    from asz_core.view.landed_bytes import _decode_bound

    if numberprobe.bytescan is None:
        pytest.skip("asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")
    wide = b'{"ord":2,"off":9,"id":"b","parts":[{"k":"data","data":[' + b"[]," * 300 + b"[]]}]}"  # 302 openers, 5 deep
    deep = b'{"ord":3,"off":9,"id":"c","parts":[{"k":"data","data":' + b"[" * 300 + b"]" * 300 + b"}]}"
    text = b'{"ord":1,"off":0,"id":"a","time":"2026-11-21T10:00:00.5Z","parts":[{"k":"text","text":"' + b"{ " * 256 + b'"}]}'
    lines = [text, wide, text.replace(b'"a"', b'"d"'), wide.replace(b'"b"', b'"e"')]
    bs = numberprobe.bytescan
    out: list = [[] for _ in range(5)]
    # the text line holds 259 openers (256 in its text): read under a guard of 259, left under 258; the wide one (305)
    assert bs.decode_lines(lines, 0, orjson.loads, orjson.JSONDecodeError, None, lambda t: None, {}, *out, 259) == 1
    assert bs.decode_lines(lines, 0, orjson.loads, orjson.JSONDecodeError, None, lambda t: None, {}, *out, 258) == 0
    assert bs.decode_lines(lines, 0, orjson.loads, orjson.JSONDecodeError, None, lambda t: None, {}, *out, None) == 4
    got = []
    for compiled in (True, False):
        with monkeypatch.context() as m:
            if not compiled:
                _without_compiled(m)
            got.append(_decode_bound(list(lines), False, False, False))
            assert _decode_bound([lines[0], deep, lines[1]], False, False, False) is None
    assert orjson.dumps(got[0]) == orjson.dumps(got[1])
    assert got[0][2] == ["a", "b", "d", "e"] and got[0][0][1]["parts"][0]["data"] == [[]] * 301


def test_the_null_search_of_a_bound_file_is_one_search_of_the_whole_file():
    """A bound file is searched for ``null`` once, whole (``nulls``); only a file holding one has each line searched,
    and its lines read as with every line searched (a listed null field left out, as the reader leaves it out). A file
    without one decodes every line as before."""
    from asz_core.view.landed_bytes import _decode_bound

    plain = [b'{"ord":1,"off":0,"id":"a","parts":[{"k":"text","text":"plain words"}]}', b'{"ord":2,"off":60,"id":"b","parent":"a"}']
    held = plain + [b'{"ord":3,"off":90,"id":"c","parent":null}']
    whole = b'{"h":1}\n' + b"\n".join(held) + b"\n{}\n"
    assert b"null" in whole
    once = _decode_bound(held, False, True, b"null" in whole)
    assert once == _decode_bound(held, False, True)  # the default searches every line
    assert once[0][2] == {"ord": 3, "off": 90, "id": "c"} and once[3] == [None, "a", None]
    clean = b'{"h":1}\n' + b"\n".join(plain) + b"\n{}\n"
    recs, _, ids, parents, _ = _decode_bound(plain, False, True, b"null" in clean)
    assert ids == ["a", "b"] and parents == [None, "a"] and recs[0]["parts"][0]["text"] == "plain words"


def test_file_rows_count_the_lines_of_each_file(corpus):
    """``lines`` of every files row is the newline count of the file as it lies on disk (the rounds' counted while
    their lines were split, the landed files' from the record count the closing line checks)."""
    _, root = corpus
    for c in list_conversations(root):
        doc = build_view(root, c)
        for row in doc["files"]:
            if row["file"].endswith(".sk"):
                continue
            assert row["lines"] == (root / row["file"]).read_bytes().count(b"\n"), (c, row["file"])


def test_a_null_in_a_bound_file_reads_as_the_reader_reads_it():
    """A bound line holding the bytes ``null`` is decoded as the reader decodes it: a listed field that is null is left
    out (seed 000: absent and null read the same), at the record, in a part, in usage and in a dropped entry; a null
    in a field the reader does not list stays; the word null inside a text changes nothing. Before session 14 any
    such line sent its whole file to the reader (read twice)."""
    from asz_core.view.landed_bytes import _decode_bound

    line = (b'{"ord":3,"off":10,"id":"m1","parent":null,"time":"2026-11-21T10:00:00Z",'
            b'"parts":[{"k":"text","text":"x = null","name":null}],"usage":{"in":5,"out":null},'
            b'"dropped":[{"what":"w","why":null}],"extra":null}')
    recs, times, ids, parents, ords = _decode_bound([line], False, True)
    assert recs == [{"ord": 3, "off": 10, "id": "m1", "time": "2026-11-21T10:00:00Z",
                     "parts": [{"k": "text", "text": "x = null"}], "usage": {"in": 5},
                     "dropped": [{"what": "w"}], "extra": None}]
    assert ids == ["m1"] and parents == [None] and ords == [3]
    assert times == [1_795_255_200 * 10**9]  # 2026-11-21T10:00:00Z in ns
    text_only = b'{"ord":1,"off":0,"parts":[{"k":"text","text":"null"}]}'
    assert _decode_bound([text_only], False, True)[0] == [{"ord": 1, "off": 0, "parts": [{"k": "text", "text": "null"}]}]


def test_a_null_of_the_wrong_kind_still_sends_the_file_to_the_reader():
    """A line the reader refuses (here ``ord`` null: required) raises as the reader's check does, so the file is read
    the reader's way and its refusal is said (:meth:`LandedSession._bound` turns the FieldError into the full read)."""
    import pytest

    from asz_core.sessiondata.codec import FieldError
    from asz_core.view.landed_bytes import _decode_bound

    with pytest.raises(FieldError):
        _decode_bound([b'{"ord":null,"off":0,"parts":[{"k":"text","text":"a"}]}'], False, True)


def _without_compiled(monkeypatch) -> None:
    """Read as an install without the compiled :mod:`asz_core.sessiondata.bytescan` reads (setup.py: optional)."""
    import asz_core.flow.round  # noqa: F401  (round_read is imported through it)
    from asz_core.flow import round_read
    from asz_core.sessiondata import numberprobe
    from asz_core.view import coverage, nodes, session_records, step_keys, view_base

    for module in (numberprobe, session_records, view_base, coverage, step_keys, nodes):
        monkeypatch.setattr(module, "bytescan", None)
    monkeypatch.setattr(round_read, "bytescan", None)


def test_the_compiled_decode_and_the_python_loop_read_every_kind_of_line_alike(monkeypatch):
    """:func:`_decode_bound` with the compiled ``decode_lines`` (which leaves every line it cannot take whole to the
    Python loop: not JSON orjson reads, not an object, a ``dropped`` entry, a ``null`` the record check does not
    clear) and without it give the same records, instants, ids, parents and ords, or the same None / error."""
    from asz_core.sessiondata import numberprobe
    from asz_core.sessiondata.codec import FieldError
    from asz_core.view.landed_bytes import _decode_bound

    if numberprobe.bytescan is None:
        pytest.skip("asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")
    ok = [b'{"ord":1,"off":0,"id":"a","time":"2026-11-21T10:00:00.5Z","parts":[{"k":"text","text":"null words"}]}',
          b'{"ord":2,"off":60,"id":"b","parent":"a","time":"2026-11-21T10:00:00.5Z"}',
          b'{"ord":3,"off":90,"id":"c","parent":null,"time":"not a time"}',  # a null the check removes
          b'{"ord":4,"off":99,"time":7,"dropped":[{"what":"w","bytes":3}]}',
          b'{"ord":5,"off":120,"id":"e","parts":[{"k":"text","text":"\\udcb2 lone"}]}',  # orjson refuses it
          b'{"ord":6,"off":150,"id":"f","parent":"e","time":"2026-11-21T10:00:01+01:00","extra":null}']
    bad = {"not an object": [b"[1,2]"], "dropped without what": [b'{"ord":7,"off":1,"dropped":[{"bytes":1}]}'],
           "not JSON": [b'{"ord":8,'], "a wrong type": [b'{"ord":9,"off":1,"flags":null,"parts":"x"}']}
    cases = [ok, ok[::-1], ok[2:4] * 3] + [ok[:2] + b + ok[2:] for b in bad.values()]
    for lines in cases:
        for nulls in (True, False):
            got = []
            for compiled in (True, False):
                with monkeypatch.context() as m:
                    if not compiled:
                        _without_compiled(m)
                    try:
                        got.append(_decode_bound(list(lines), False, True, nulls or any(b"null" in x for x in lines)))
                    except (FieldError, ValueError) as exc:
                        got.append((type(exc), str(exc)))
            assert orjson.dumps(got[0], default=str) == orjson.dumps(got[1], default=str), lines
    recs, times, ids, parents, ords = _decode_bound(list(ok), False, True, True)
    assert ids == ["a", "b", "c", None, "e", "f"] and parents == [None, "a", None, None, None, "e"] and ords == [1, 2, 3, 4, 5, 6]
    assert times[0] == times[1] == 1_795_255_200_500_000_000 and times[2] is None and times[3] is None
    assert times[5] == 1_795_255_201_000_000_000 - 3_600_000_000_000 and "parent" not in recs[2]


def test_every_corpus_document_is_the_same_without_the_compiled_scans(corpus, monkeypatch):
    """Every corpus conversation's asz.view document, byte for byte, with the compiled byte scans, line splits (landed
    files and rounds) and decode loop (:mod:`asz_core.sessiondata.bytescan`) and with the Python of an install
    without a C compiler."""
    _, root = corpus
    conversations = list_conversations(root)
    assert len(conversations) >= 10
    with_c = {c: orjson.dumps(build_view(root, c)) for c in conversations}
    _without_compiled(monkeypatch)
    for c in conversations:
        assert orjson.dumps(build_view(root, c)) == with_c[c], c


def test_a_round_read_both_ways(corpus, monkeypatch):
    """Every corpus round decodes to the same round with the compiled line split and without it; a round whose last
    line has no newline is refused at that line (its number: the newlines before it, plus one) either way."""
    import msgspec

    import asz_core.flow.round  # noqa: F401  (round_read is imported through it)
    from asz_core.flow import round_read
    from asz_core.flow.round import RoundError

    _, root = corpus
    files = sorted((root / "_conversations").glob("*/rounds/*"))
    assert files
    seen: dict = {}
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(round_read, "bytescan", None)
        for path in files:
            data = path.read_bytes()
            got = round_read.decode_round(data, path)
            assert got.line_count() == data.count(b"\n"), path
            drawn = msgspec.json.encode([got.header, got.nodes, got.relations, got.unresolved, got.digest])
            assert seen.setdefault(path, drawn) == drawn, path
        data = files[0].read_bytes()[:-1]
        with pytest.raises(RoundError) as err:
            round_read.decode_round(data, files[0])
        assert err.value.line == data.count(b"\n") + 1 and err.value.rule == "commit"


def _parts_scanned(sess: LandedSession, compiled: bool) -> tuple:
    if not compiled:
        return scan_parts_py(sess.records)
    sess._listed_parts = sess._media_parts = sess._content = sess._cut = None
    sess._scan_parts()
    return sess._listed_parts, sess._media_parts, sess._content, sess._cut


def test_the_compiled_part_scan_and_the_python_agree(corpus):
    """:meth:`LandedSession._scan_parts` (the compiled ``bytescan.scan_parts`` where it was built) gives the listed
    and media parts, content records and cut counts its Python gives, on every corpus session and on records of every
    shape the compiled loop leaves to the Python (no parts, a part that is not an object, a kind that is not text, a
    state that is not text or is a cut one): the same lists, set and counts, or the same error."""
    from asz_core.sessiondata import numberprobe

    if numberprobe.bytescan is None:
        pytest.skip("asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")
    _, root = corpus
    sessions = 0
    for conv in list_conversations(root):
        b = ChainReader(root, conv, (), None)
        fold, _, accepted = b.fold_chain()
        sess = LandedSession(root, fold.head.session, fold.head.through_seq, accepted)
        assert _parts_scanned(sess, True) == _parts_scanned(sess, False), conv
        sessions += 1
    assert sessions >= 10
    text = {"k": "text", "text": "a", "state": "available", "bytes": 1}
    shapes = {
        "usual": [{"parts": [text, {"k": "data", "data": {}}]}, {"parts": [{"k": "media", "media": "image/png"}]}, {}],
        "empty and null parts": [{"parts": []}, {"parts": None}, {"id": "x"}, {"parts": [{"k": "unknown", "state": None}]}],
        "a cut part": [{"parts": [text]}, {"parts": [{"k": "text", "state": "truncated", "bytes": 9}]}],
        "too large, bytes not a number": [{"parts": [{"k": "call", "state": "too_large", "bytes": "9"}, text]}],
        "a state that is no text": [{"parts": [{"k": "result", "state": 3}]}],
        "a part that is no object": [{"parts": [text, ["k", "text"]]}],
        "no kind": [{"parts": [{"text": "a"}]}],
        "a kind that is no text": [{"parts": [{"k": 1}]}],
        "parts that are no list": [{"parts": "x"}],
        "a state that is a list": [{"parts": [{"k": "text", "state": ["x"]}]}],
    }
    for name, recs in shapes.items():
        sess = LandedSession.__new__(LandedSession)
        sess.records = {2: [dict(r) for r in recs], 1: [text and {"parts": [dict(text)]}]}
        got = []
        for compiled in (True, False):
            try:
                got.append(_parts_scanned(sess, compiled))
            except Exception as exc:  # the Python's own error, met by both ways
                got.append((type(exc), str(exc)))
        assert got[0] == got[1], name
    sess.records = {1: [{"parts": [text, {"k": "media"}, {"k": "data"}]}], 3: [{}, {"parts": [{"k": "unknown"}]}]}
    listed, media, content, cut = _parts_scanned(sess, True)
    assert content == {(1, 1)} and cut == {}
    assert [x[:3] for x in media] == [(1, 1, 1)] and [x[:3] for x in listed] == [(1, 1, 2), (3, 2, 0)]


def test_a_resealed_file_among_bound_ones_is_read_again_the_full_way(corpus_copy):
    """Each landed file is read once and its bytes let go of before the next is read (session 37), so the files of a
    round's window whose digest no longer matches (one of them written again, its closing line fixed) are read again
    the full way once every digest is known: the session reads as it does with every file read the full way. Real
    input: the corpus session ef958aa1 (13 landed files in its round's window: its main transcript and its
    subagents'), one of its subagent transcripts given another text and sealed again."""
    root = corpus_copy()
    cid = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    files = sorted((root / cid / "streams").glob("*/transcript-*.sd"))
    assert len(files) >= 3, files
    fast, _ = _sessions(root, cid)
    assert len(fast.bound_lines) == len(fast.files) == 13  # unchanged, every file is decoded as a bound one
    path = files[1]
    edit_records(path, lambda recs: recs[:1] + [recs[1].replace(b'"text":"', b'"text":"CHANGED ', 1)] + recs[2:],
                 fix_closing=True)
    fast, full = _sessions(root, cid)
    assert fast.files == full.files and fast.problems == full.problems and fast.unverified == full.unverified
    assert orjson.dumps(list(fast.records.items()), default=str) == orjson.dumps(list(full.records.items()), default=str)
    assert fast.bound_lines == {}  # no round binds the window now: each of its files read again, the full way
    (seq,) = [s for s, f in fast.files.items() if f["file"] == path.relative_to(root).as_posix()]
    assert b"CHANGED " in orjson.dumps(fast.records[seq])  # the records of the bytes it holds now
    assert fast.files[seq]["digest"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert build_view(root, cid)["summary"]["state"] == "mismatch"
