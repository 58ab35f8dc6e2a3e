"""Numbers no double or 64-bit integer holds, sent by a LangSmith client: their exact source text survives (session 13).

Before, the receiver decoded each request with orjson: an integer past 2**64 (``123456789012345678901234567890``) was
refused with a 400 (the whole run lost), and a number with more digits than a double holds
(``1.00000000000000000001``, ``0.12345678901234567890123``) was staged rounded (``1.0``), silently. Now each is kept
as its source text through staging, materialising and landing (asz_adapters_langchain/exactjson.py). Real parts: the
receiver as a real ``asz ingest langsmith`` process on a loopback port, the real ``asz collect``, ``asz verify --deep``.
"""

from __future__ import annotations

from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files

from asz_adapters_langchain.exactjson import loads

BIG = b"123456789012345678901234567890"  # past 2**64
FINE = b"1.00000000000000000001"  # a double holds 1.0
LONG = b"0.12345678901234567890123"
HUGE = b"1e400"  # past a double's range


def test_exact_numbers_pass_the_receiver_and_land_verbatim(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    rec = receiver_factory(root)
    outputs = b'{"output":"done","score":' + FINE + b',"ids":[' + BIG + b',' + LONG + b'],"far":' + HUGE + b',"n":42}'
    post = (b'{"id":"r1","trace_id":"r1","session_name":"p","run_type":"chain","name":"f","start_time":'
            b'"2026-10-01T10:00:00.000001+00:00","dotted_order":"20261001T100000000001Zr1","inputs":{"q":"numbers",'
            b'"seed":' + BIG + b',"temp":' + LONG + b'},"extra":{"metadata":{"thread_id":"th","ls_method":"traceable"},'
            b'"runtime":{"library":"langsmith"}}}')
    patch = (b'{"id":"r1","trace_id":"r1","dotted_order":"20261001T100000000001Zr1","end_time":'
             b'"2026-10-01T10:00:01.000001+00:00","outputs":' + outputs + b'}')
    status, answer = rec.send("POST", "/runs/batch", b'{"post":[' + post + b'],"patch":[' + patch + b']}',
                              {"Content-Type": "application/json"})
    assert status == 202, answer

    staged = b"".join(p.read_bytes() for p in (root / "_ingest" / "langsmith" / "inbox").glob("*.jsonl"))
    for token in (BIG, FINE, LONG, HUGE):
        assert token in staged, token  # staged as sent, not rounded

    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    landed = [p for sdir in root.iterdir() if not sdir.name.startswith("_") for _, p in landed_files(sdir)]
    text = b"".join(p.read_bytes() for p in landed)
    for token in (b'"seed":' + BIG + b',"temp":' + LONG,):
        assert token in text, (token, text.decode())  # landed as the source wrote it, a number still
    records = [r for p in landed if p.suffix == ".sd" for _, r in SDReader(p)]
    # the patch holds 1e400, which no Session Data reader takes as a number: its line lands whole, verbatim
    [patch_rec] = [r for r in records if r.parts and r.parts[0].k == "unknown"]
    assert patch_rec.parts[0].text == ("the record holds a number 1e400 is past a double's range, which a Session Data "
                                       "reader refuses: the line is kept verbatim")
    raw = patch_rec.parts[0].raw()
    for token in (b'"score":' + FINE, BIG + b"," + LONG, b'"far":' + HUGE):
        assert token in raw, token
    v = run_asz("verify", "--deep", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr


def test_loads_keeps_only_what_orjson_would_not_hold():
    v = loads(b'{"a":' + BIG + b',"b":' + FINE + b',"c":0.1,"d":12345678901234567,"e":-9223372036854775808,"f":1e5}')
    assert [type(v[k]).__name__ for k in "abcdef"] == ["Fragment", "Fragment", "float", "int", "int", "float"]
    assert (v["c"], v["d"], v["e"], v["f"]) == (0.1, 12345678901234567, -(1 << 63), 100000.0)
    import orjson

    assert orjson.dumps(v) == b'{"a":' + BIG + b',"b":' + FINE + b',"c":0.1,"d":12345678901234567,"e":-9223372036854775808,"f":100000.0}'
