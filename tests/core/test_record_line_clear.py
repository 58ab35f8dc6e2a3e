"""The one-pass record check (issue 22) never clears a line the full check refuses or changes.

:func:`~asz_core.sessiondata.codec.record_line_clear` lets a reader skip
:func:`check_record_dict` and :func:`check_record_structures`; that is only
sound when every line it clears passes both unchanged. Each field the full
check knows (record, part, dropped entry, usage; seed 000, Reading a record)
is given every kind of JSON value in turn, and the two checks are compared.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json

import pytest

from asz_core.sessiondata.codec import FieldError, check_record_dict, check_record_structures, parse_line, record_line_clear
from asz_core.sessiondata.reader import SDError, SDReader

#: A record with every field the full check types, each with a good value.
FULL = {
    "ord": 3, "off": 120, "sha": "ab", "id": "r1", "parent": "r0", "call": "c", "run": "u", "continues": "x", "tool": "t", "child": "k",
    "batch": "b", "label": "l", "started_by": "s", "from": "f", "time": "2026-01-01T00:00:00Z", "trigger": "g", "model": "m", "cwd": "/w",
    "git_branch": "main", "runtime_version": "2.1", "request": "req", "bytes": 10, "replaced": 0, "flags": ["finished"],
    "usage": {"in": 1, "out": 2, "cache_read": 3, "cache_write": 4, "cache_write_1h": 4},
    "parts": [{"k": "text", "text": "hi", "id": "p", "of": "o", "name": "n", "server": "s", "server_tool": "st", "media": "image/png",
               "encoding": "base64", "state": "available", "sha256": "00", "bytes": 2, "failed": False, "data": {"any": [1, "x"]}}],
    "dropped": [{"what": "full output in /tmp/x", "why": "too_large", "bytes": 9}],
    "extra": {"kept": True},
}
#: One value of every JSON kind, with the integers at and past each edge the check names.
VALUES = ["", "s", 0, 1, -1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 1.0, 1.5, True, False, None, [], ["a"], [1], [None], {}, {"k": "x"},
          {"k": ""}, {"k": None}, {"what": "w"}, [{"k": "text"}], [{"k": ""}], [{"what": "w"}], [{}], [{"k": 1}], ["x"]]


def _paths() -> list[tuple]:
    out = [(k,) for k in FULL]
    out += [("parts", 0, k) for k in FULL["parts"][0]] + [("dropped", 0, k) for k in FULL["dropped"][0]]
    out += [("usage", k) for k in FULL["usage"]] + [("t",), ("parts", 0, "k"), ("dropped", 0, "what")]
    return out


def _with(path: tuple, value) -> dict:
    d = copy.deepcopy(FULL)
    cur = d
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return d


def _full_check_clears(d: dict) -> bool:
    """True when the full check accepts ``d`` and changes nothing."""
    before = copy.deepcopy(d)
    try:
        check_record_dict(d)
        check_record_structures(d)
    except FieldError:
        return False
    return d == before


def _line(d: dict) -> bytes:
    return json.dumps(d, separators=(",", ":")).encode()


def test_a_full_good_record_is_cleared() -> None:
    line = _line(FULL)
    assert _full_check_clears(parse_line(line, exact=True))
    assert record_line_clear(line)


@pytest.mark.parametrize("path", _paths(), ids=lambda p: ".".join(map(str, p)))
def test_every_value_of_every_field_is_cleared_only_when_the_full_check_passes_it_unchanged(path: tuple) -> None:
    for value in VALUES:
        line = _line(_with(path, value))
        if record_line_clear(line):  # the line decodes as the reader decodes it (exact: wide numbers kept as text)
            assert _full_check_clears(parse_line(line, exact=True)), f"{path} = {value!r} cleared, but the full check refuses or changes it"


def test_missing_fields_and_other_lines() -> None:
    """Without ord, off, a part's k or a dropped entry's what; a null anywhere; a duplicate key; not an object."""
    for drop in (("ord",), ("off",), ("parts", 0, "k"), ("dropped", 0, "what")):
        d = copy.deepcopy(FULL)
        cur = d
        for p in drop[:-1]:
            cur = cur[p]
        del cur[drop[-1]]
        assert not record_line_clear(_line(d)), drop
    for line in (b'{"ord":1,"off":0,"extra":null}', b'{"ord":1,"off":0,"parts":[{"k":"text","data":null}],"usage":{"x":null}}'):
        assert record_line_clear(line) and _full_check_clears(parse_line(line))  # a null the full check keeps
    assert not record_line_clear(b'{"ord":1,"off":0,"t":null}')  # one it would remove
    assert not record_line_clear(b'{"ord":1,"off":0,"ord":"x"}')
    assert not record_line_clear(b'{"ord":"x","ord":1,"off":0}') or _full_check_clears(parse_line(b'{"ord":"x","ord":1,"off":0}'))
    assert not record_line_clear(b"[1]")
    for a, b in itertools.product((b"1e2", b"1.0", b"true"), repeat=2):
        assert not record_line_clear(b'{"ord":' + a + b',"off":' + b + b"}")


def test_the_reader_refuses_and_cleans_as_before(tmp_path) -> None:
    """Through SDReader: a record with a bad field is refused naming it, a null is removed, a good one read as written."""
    path = tmp_path / "t.sd"
    lines = [b'{"ord":0,"off":0,"id":"a","parts":[{"k":"text","text":"x"}]}', b'{"ord":1,"off":10,"id":null,"parent":"a"}']
    _write(path, lines)
    got = [rec for _, rec in SDReader(path, decode="dict")]
    assert got == [{"ord": 0, "off": 0, "id": "a", "parts": [{"k": "text", "text": "x"}]}, {"ord": 1, "off": 10, "parent": "a"}]
    _write(path, [lines[0], b'{"ord":1,"off":10,"parts":[{"k":"text","bytes":-4}]}'])
    with pytest.raises(SDError) as exc:
        list(SDReader(path, decode="dict"))
    assert exc.value.field == "parts[0].bytes" and exc.value.line == 3


def _write(path, records: list[bytes]) -> None:
    """A landed file of ``records`` with a good header and closing line (seed 000)."""
    head = b'{"h":1,"schema":"sd/1","kind":"transcript","session":"s","src":"x.jsonl","dialect":"claude-code/1","adapter":"a"}\n'
    body = head + b"".join(r + b"\n" for r in records)
    digest = hashlib.sha256(body).hexdigest()
    path.write_bytes(body + b'{"t":"end","records":' + str(len(records)).encode() + b',"digest":"' + digest.encode() + b'"}\n')
