"""A long text is measured and hashed a piece at a time, with the same answers as encoding it whole (seed 000, Too large to land)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asz_core.sessiondata.writer as w
from asz_core.sessiondata import Part, Record, encoded_size, shrink_record
from asz_core.sessiondata.codec import encode_record


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(['a', '"', "\\", "\n", "\u2028", "\u2029", "é", "😀", "<", "\x00", "\x1f", "\x7f"]), max_size=60),
       st.integers(1, 7))
def test_pieces_give_the_whole_answers(text: str, chunk: int) -> None:
    old = w._TEXT_CHUNK
    w._TEXT_CHUNK = chunk  # pieces of 1 to 7 characters: every escape lands on a piece boundary somewhere
    try:
        rec = Record(ord=1, off=0, sha="0" * 12, bytes=5, id="r", parts=[Part(k="text", text=text, bytes=len(text.encode())),
                                                                         Part(k="result", text=text + "x", of="t1")])
        assert encoded_size(rec) == len(encode_record(rec)) + 1
        line, size = w.encode_measured(rec)  # what landing keeps when the record fits: encoded once
        assert size == len(encode_record(rec)) + 1 and line == (encode_record(rec) if len(text) + 1 <= chunk else None)
        assert w.encode_measured(rec, size) == (encode_record(rec), size) and w.encode_measured(rec, size - 1) == (None, size)
        assert w.text_sha256(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
        assert w._str_size(text) == len(w.encode_value(text))
    finally:
        w._TEXT_CHUNK = old


def test_a_record_past_the_budget_shrinks_the_same_when_measured_in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("line \u2028 é 😀 \"quoted\" \\ \n" * 4000)
    rec = Record(ord=3, off=10, sha="a" * 12, bytes=len(text), id="big", parts=[Part(k="result", text=text, of="toolu_1")])
    whole = encode_record(shrink_record(rec, 4096))
    monkeypatch.setattr(w, "_TEXT_CHUNK", 1000)
    size = encoded_size(rec)
    assert size == len(encode_record(rec)) + 1
    assert encode_record(shrink_record(rec, 4096, size=size)) == whole
    assert b'"sha256":"' + hashlib.sha256(text.encode()).hexdigest().encode() in whole
