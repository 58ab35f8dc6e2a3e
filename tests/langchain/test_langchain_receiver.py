"""The receiver over real recorded requests: staged before 202, 401 on a wrong token, 4xx on bad input, crash safety."""

from __future__ import annotations

import hashlib
import json
import signal
from pathlib import Path

import orjson
import pytest

from langchain_helpers import multipart_runs

from asz_adapters_langchain.receiver import BadRequest, arrivals_from_batch, parse_multipart


def _inbox(root: Path) -> list[Path]:
    d = root / "_ingest" / "langsmith" / "inbox"
    return sorted(d.iterdir()) if d.is_dir() else []


def _staged(root: Path) -> list[dict]:
    return [orjson.loads(line) for f in _inbox(root) if not f.name.startswith(".") for line in f.read_bytes().splitlines()]


def test_every_capture_is_staged_before_202(tmp_path, receiver_factory, captures):
    """Each recorded request gets 202 and its runs are in the inbox, one arrival per post/patch, fields merged."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    expected = []
    for req in captures:
        status, answer = r.replay(req)
        runs = multipart_runs((req / "body.bin").read_bytes())
        assert status == 202, (req, answer)
        assert answer["accepted"] == len(runs)
        expected += runs
    staged = _staged(root)
    assert [(a["op"], a["id"]) for a in staged] == [(op, rid) for op, rid, _ in expected]
    for a, (_, _, run) in zip(staged, expected):
        assert a["run"] == run
    assert not [f for f in _inbox(root) if f.name.startswith(".tmp-")]


def test_gzip_body_is_read(tmp_path, receiver_factory, captures):
    """A gzip body (Content-Encoding: gzip) stages the same runs as the plain one."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    status, answer = r.replay(captures[0], compress=True)
    assert status == 202
    assert answer["accepted"] == len(multipart_runs((captures[0] / "body.bin").read_bytes()))


def test_info_and_json_routes(tmp_path, receiver_factory):
    """GET /info asks for multipart; POST /runs, PATCH /runs/{id} and POST /runs/batch stage their arrivals."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    import urllib.request

    info = json.loads(urllib.request.urlopen(r.url + "/info").read())
    assert info["batch_ingest_config"]["use_multipart_endpoint"] is True
    assert info["batch_ingest_config"]["scale_up_nthreads_limit"] == 16
    js = {"Content-Type": "application/json"}
    assert r.send("POST", "/runs", orjson.dumps({"id": "r1", "name": "x", "run_type": "chain"}), js)[0] == 202
    assert r.send("PATCH", "/runs/r1", orjson.dumps({"end_time": 1728803138285}), js)[0] == 202
    batch = {"post": [{"id": "r2", "run_type": "llm"}], "patch": [{"dotted_order": "20241013T070537170001Zr2", "end_time": 1}]}
    assert r.send("POST", "/runs/batch", orjson.dumps(batch), js)[0] == 202
    assert [(a["op"], a["id"]) for a in _staged(root)] == [("post", "r1"), ("patch", "r1"), ("post", "r2"), ("patch", "r2")]
    status, answer = r.send("POST", "/runs/batch", orjson.dumps({"post": {}}), js)  # an object where a list belongs
    assert status == 400 and "must be a list" in answer["error"]
    status, answer = r.send("GET", "/no/such/route", b"", {})
    assert status == 404 and "no such route" in answer["error"]  # JSON, as every other refusal
    status, answer = r.send("DELETE", "/runs/batch", b"", {})
    assert status == 405 and "not allowed" in answer["error"]


def test_wrong_token_gets_401(tmp_path, receiver_factory, captures):
    """With --token, a wrong or missing x-api-key is refused with 401 and nothing is staged; the right one is accepted."""
    root = tmp_path / "root"
    r = receiver_factory(root, "--token", "s3cret")
    status, answer = r.replay(captures[0])  # the capture carries x-api-key: asz-harness
    assert status == 401 and "x-api-key" in answer["error"]
    meta = json.loads((captures[0] / "meta.json").read_text())
    headers = {**meta["headers"], "x-api-key": "s3cret"}
    status, _ = r.send("POST", meta["path"], (captures[0] / "body.bin").read_bytes(), headers)
    assert status == 202
    assert len(_inbox(root)) == 1


def test_bad_input_gets_4xx_and_stages_nothing(tmp_path, receiver_factory, captures):
    """Truncated multipart 400, wrong content type 415, unknown part or field 400, bad JSON 400; a part over
    --max-part is taken out, its size and SHA-256 staged in its place, and the rest staged (trial 32a F1: 413 whole)."""
    root = tmp_path / "root"
    r = receiver_factory(root, "--max-part", "4096")
    meta = json.loads((captures[0] / "meta.json").read_text())
    body = (captures[0] / "body.bin").read_bytes()
    h = meta["headers"]
    ct = h["Content-Type"]
    boundary = ct.split("boundary=")[1].encode()

    def part(name: str, data: bytes) -> bytes:
        return (b"--" + boundary + b'\r\nContent-Disposition: form-data; name="' + name.encode() + b'"\r\n'
                b"Content-Type: application/json\r\n\r\n" + data + b"\r\n")

    end = b"--" + boundary + b"--\r\n"
    cases = [
        (400, body[: len(body) // 2]),
        (400, part("post.r1", b'{"id": "r1", ')),
        (400, part("post.r1", b'{"id":"r1"}') + part("post.r1.secrets", b"{}") + end),
        (400, part("bogus.r1", b"{}") + end),
        (400, part("post.r1.inputs", b"{}") + end),
    ]
    for want, data in cases:
        status, answer = r.send("POST", "/runs/multipart", data, h)
        assert status == want, (want, answer, data[:80])
        assert answer["error"]
    status, _ = r.send("POST", "/runs/multipart", body, {**h, "Content-Type": "application/json"})
    assert status == 415
    status, _ = r.send("POST", "/runs/multipart", body, {**h, "Content-Encoding": "br"})
    assert status == 415
    assert r.send("POST", "/runs/batch", b'{"post": [], "delete": []}', {"Content-Type": "application/json"})[0] == 400
    assert r.send("POST", "/runs", b'{"name": "no id"}', {"Content-Type": "application/json"})[0] == 400
    # a lone surrogate escape is named as the half it is (trial 48c F6: orjson calls a lone low one "invalid high")
    lead = b'{"post": [{"id": "r9", "x": '  # 28 bytes before the string
    for text, at, said in ((b'"\\udcb2"', 1, "a lone low surrogate \\udcb2 at byte {}, no high surrogate before it"),
                           (b'"a\\ud83dx"', 2, "a lone high surrogate \\ud83d at byte {}, no low surrogate after it"),
                           (b'"\\\\udcb2\\ud83d\\ude00\\ud800"', 20,
                            "a lone high surrogate \\ud800 at byte {}, no low surrogate after it")):
        status, answer = r.send("POST", "/runs/batch", lead + text + b"}]}", {"Content-Type": "application/json"})
        assert (status, answer["error"]) == (400, f"body: not valid JSON ({said.format(len(lead) + at)})")
    assert _inbox(root) == []
    # what was refused cost nothing else: a good request still lands
    assert r.replay(captures[0])[0] == 202
    assert len(_inbox(root)) == 1
    big = b'{"text": "' + b"x" * 5000 + b'"}'
    status, answer = r.send("POST", "/runs/multipart", part("post.r1", b'{"id":"r1"}') + part("post.r1.inputs", big) + end, h)
    assert (status, answer) == (202, {"accepted": 1})
    staged = [json.loads(x) for f in _inbox(root) for x in f.read_text().splitlines() if '"r1"' in x]
    assert [x["run"] for x in staged] == [{"id": "r1", "inputs": {"asz_taken_out": {
        "bytes": 5012, "sha256": hashlib.sha256(big).hexdigest(),
        "why": "5,012 bytes, over the receiver's --max-part of 4,096 bytes: taken out when it arrived; only its size and "
               "SHA-256 are kept"}}}]


def test_staged_arrival_survives_a_killed_receiver(tmp_path, receiver_factory, captures, run_asz):
    """A run acknowledged with 202 is in the inbox even when the receiver dies at once (SIGKILL), and collect lands it."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    status, answer = r.replay(captures[0])
    assert status == 202
    r.proc.send_signal(signal.SIGKILL)
    r.proc.wait(timeout=10)
    staged = _staged(root)
    assert len(staged) == answer["accepted"]
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    assert any((root / d).is_dir() for d in (p.name for p in root.iterdir() if p.name.startswith("ls-")))
    run_asz("verify", "--root", str(root))


def test_parse_multipart_units():
    """Parts are found by boundary, not by a Content-Length that claims more bytes than the part holds."""
    b = b"--B\r\nContent-Disposition: form-data; name=\"post.a\"\r\nContent-Length: 999\r\n\r\n{\"id\":\"a\"}\r\n" \
        b"--B\r\nContent-Disposition: form-data; name=\"post.a.inputs\"\r\n\r\n{\"q\":1}\r\n--B--\r\n"
    assert parse_multipart(b, "multipart/form-data; boundary=B") == [{"op": "post", "id": "a", "run": {"id": "a", "inputs": {"q": 1}}}]
    for bad in (b[:-9], b.replace(b"--B--", b"--B")):
        try:
            parse_multipart(bad, "multipart/form-data; boundary=B")
        except BadRequest as exc:
            assert exc.status == 400
        else:
            raise AssertionError("a truncated body was accepted")
    assert arrivals_from_batch({"patch": [{"dotted_order": "20241013T070537170001Zabc", "end_time": 1}]})[0]["id"] == "abc"


def test_chunked_body_is_read(tmp_path, receiver_factory, captures):
    """A body sent with Transfer-Encoding: chunked (as the JS client may) is read whole and staged."""
    import http.client

    root = tmp_path / "root"
    r = receiver_factory(root)
    meta = json.loads((captures[0] / "meta.json").read_text())
    body = (captures[0] / "body.bin").read_bytes()
    conn = http.client.HTTPConnection("127.0.0.1", r.port, timeout=30)
    chunks = (body[i:i + 1000] for i in range(0, len(body), 1000))
    conn.request("POST", meta["path"], body=chunks, encode_chunked=True,
                 headers={"Content-Type": meta["headers"]["Content-Type"], "Transfer-Encoding": "chunked",
                              "User-Agent": meta["headers"]["User-Agent"]})
    resp = conn.getresponse()
    assert resp.status == 202, resp.read()
    assert json.loads(resp.read())["accepted"] == len(multipart_runs(body))
    conn.close()


def test_parse_multipart_refuses_garbage_with_bad_request_only():
    """Any byte string gives arrivals or a BadRequest (a 4xx), never another exception."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    good = (b"--B\r\nContent-Disposition: form-data; name=\"post.a\"\r\n\r\n{\"id\":\"a\"}\r\n"
            b"--B\r\nContent-Disposition: form-data; name=\"post.a.inputs\"\r\n\r\n{\"q\":1}\r\n--B--\r\n")

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.binary(max_size=200),
                     st.tuples(st.integers(0, len(good)), st.binary(max_size=8)).map(lambda t: good[: t[0]] + t[1] + good[t[0]:]),
                     st.integers(0, len(good)).map(lambda n: good[:n])))
    def check(body):
        try:
            out = parse_multipart(body, "multipart/form-data; boundary=B")
        except BadRequest as exc:
            assert 400 <= exc.status < 500
        else:
            assert all(a["op"] in ("post", "patch") and isinstance(a["run"], dict) for a in out)

    check()


def test_a_busy_address_exits_1(tmp_path, run_asz):
    """An address already in use is told on stderr with exit 1, nothing claims to be listening, and the root it never
    served is left as it was: no folder made (trial 40a F6: ``other/_ingest/langsmith/inbox`` was left behind)."""
    import socket

    (tmp_path / "kept").mkdir()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        p = run_asz("ingest", "langsmith", "--root", str(tmp_path / "root"), "--listen", f"127.0.0.1:{port}", check=False)
        kept = run_asz("ingest", "langsmith", "--root", str(tmp_path / "kept"), "--listen", f"127.0.0.1:{port}", check=False)
    assert p.returncode == 1 and "cannot listen" in p.stderr and "listening" not in p.stdout
    assert kept.returncode == 1 and "cannot listen" in kept.stderr
    assert not (tmp_path / "root").exists() and list((tmp_path / "kept").iterdir()) == []
    assert run_asz("ingest", "langsmith", "--listen", "nope", check=False).returncode == 2


def test_zstd_bodies_are_held_to_the_limit_before_they_unpack(tmp_path, receiver_factory, captures):
    """A zstd body that states a large content size in its frame still gets 413, as gzip does; a cut one 400 (second fresh-user report)."""
    zstandard = pytest.importorskip("zstandard", reason="zstd bodies are read only when zstandard is installed")
    root = tmp_path / "root"
    r = receiver_factory(root, "--max-body", "1000000")
    meta = json.loads((captures[0] / "meta.json").read_text())
    headers = {k: v for k, v in meta["headers"].items() if k.lower() not in ("content-length", "content-encoding")}
    body = (captures[0] / "body.bin").read_bytes()
    z = {**headers, "Content-Encoding": "zstd"}
    status, answer = r.send("POST", meta["path"], zstandard.ZstdCompressor().compress(body), z)
    assert status == 202 and answer["accepted"] == len(multipart_runs(body))
    bomb = zstandard.ZstdCompressor().compress(b"x" * 50_000_000)  # a frame stating 50 MB in under 2 KB
    assert len(bomb) < 4096
    status, answer = r.send("POST", meta["path"], bomb, z)
    assert status == 413 and "over the limit of 1000000 bytes" in answer["error"]
    whole = zstandard.ZstdCompressor().compress(body)
    status, answer = r.send("POST", meta["path"], whole[: len(whole) // 2], z)
    assert status == 400 and "zstd" in answer["error"]
    assert len(_inbox(root)) == 1  # only the good body was staged
