"""Too large to land (seed 000): shrink_record stops at the first step whose encoded record fits.

shrink_record measures each step by the one part it changed; these tests pin
that the measure is the record's exact encoded size, escapes included: every
intermediate record it can return is returned for a budget of exactly its
own size, and never for one byte less.
"""

from __future__ import annotations

from asz_core import RawJSON
from asz_core.sessiondata import encode_record, encoded_size, shrink_record
from asz_core.sessiondata.model import Part, Record, unknown_part


def _record() -> Record:
    changes = {"schema": "changes/1", "id": "t", "changes": [{"path": "a", "hunks": [{"lines": ["-x\u2028" * 300, "+y" * 300]}]}]}
    return Record(
        ord=1, off=0, bytes=99999, id="r", label="a\u2029b",
        parts=[
            Part(k="text", text="line\u2028sep \"q\" \\ " * 200, bytes=4000),
            Part(k="call", id="c", name="Write", data=RawJSON('{"s":"raw\u2028kept","n":[1,2,3]}'.encode() * 1), bytes=40),
            Part(k="result", of="c", text="done\n" * 150, data=RawJSON(b'{"stdout":"' + b"o\\n" * 900 + b'"}'), bytes=3000),
            Part(k="data", data=changes, bytes=2000),
            unknown_part(b"\xff\xfe" * 500, "the record is not valid JSON"),
            Part(k="reasoning", text="think\u2029" * 120, bytes=720),
        ],
    )


def test_each_step_is_returned_for_exactly_its_own_size():
    rec = _record()
    full = encoded_size(rec)
    steps = []
    budget = full - 1
    while budget > 0:
        out = shrink_record(rec, budget)
        size = len(encode_record(out)) + 1
        if steps and encode_record(out) == encode_record(steps[-1]):
            break  # nothing left to take
        steps.append(out)
        assert shrink_record(rec, budget, size=full) == out  # a known size measures the same
        assert shrink_record(rec, size) == out  # fits exactly: stops here
        if size <= budget:
            budget = size - 1  # one byte less must take the next payload
        else:
            break
    assert len(steps) >= 5
    states = [[p.state for p in s.parts] for s in steps]
    assert states[0] != states[-1]
    assert all(p.sha256 for p in steps[-1].parts if p.state in ("truncated", "too_large"))
