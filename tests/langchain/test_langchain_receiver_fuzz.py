"""The LangSmith receiver answers 400 with a reason for every malformed post, and stages nothing of it (issue 23).

Hypothesis draws well-formed posts (runs of the shapes the LangSmith clients
send, as one run, a batch or multipart parts, plain or gzip) and breaks them
in one labelled way each (a cut, bad JSON, a field of the wrong type, a run
without an id, a part twice, an unknown part or key, no part at all, bytes
after the gzip stream, a dotted order naming another run). Each goes to the
real application (Starlette's TestClient over ``make_app``). A well-formed
post must be 202 and staged whole; a broken one 400 with ``{"error": why}``
and the inbox unchanged. A second test posts arbitrary bytes and JSON to every
route: whatever it answers 202 must hold only runs the test itself finds
well-formed.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from asz_adapters_langchain.receiver import inbox_dir, make_app

BOUNDARY = "asz-fuzz-boundary"
#: The User-Agent the installed LangSmith client sends (langsmith/client.py, ``_compute_headers``): a browser-simple
#: request (multipart, none) is taken only with it or a key (trial 34c F2).
SDK = {"User-Agent": "langsmith-py/0.15.1-httpx2"}
JSON = {"Content-Type": "application/json", **SDK}
MULTIPART = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}", **SDK}

run_ids = st.uuids().map(str)
texts = st.text(max_size=12)
json_leaf = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | texts
json_any = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3), max_leaves=8)
objects = st.dictionaries(texts, json_any, max_size=3)
times = st.sampled_from(["2026-11-20T09:00:00.000000Z", "2026-11-20T09:00:01.5+00:00", 1764000000000])


@st.composite
def runs(draw) -> dict:
    rid = draw(run_ids)
    run = {"id": rid, "name": draw(texts), "run_type": draw(st.sampled_from(["chain", "llm", "tool", "retriever"])),
           "start_time": draw(times), "inputs": draw(objects)}
    if draw(st.booleans()):
        run.update(trace_id=rid, dotted_order=f"20261120T090000000000Z{rid}")
    if draw(st.booleans()):
        run.update(end_time=draw(times), outputs=draw(objects))
    if draw(st.booleans()):
        run.update(tags=draw(st.lists(texts, max_size=3)), extra={"metadata": draw(objects)}, parent_run_id=None)
    return run


def well_formed(run) -> bool:
    """The test's own idea of a run a client could send (independent of the receiver's code)."""
    if not isinstance(run, dict) or not isinstance(run.get("id"), str) or not run["id"]:
        return False
    kinds = {"trace_id": str, "parent_run_id": str, "dotted_order": str, "name": str, "run_type": str, "error": str,
             "session_name": str, "session_id": str, "reference_example_id": str, "inputs": dict, "outputs": dict,
             "extra": dict, "serialized": dict, "events": list, "tags": list}
    for k, t in kinds.items():
        v = run.get(k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, t)):
            return False
    for k in ("start_time", "end_time"):
        v = run.get(k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (str, int, float))):
            return False
    if isinstance(run.get("tags"), list) and not all(isinstance(t, str) for t in run["tags"]):
        return False
    d = run.get("dotted_order")
    return not (isinstance(d, str) and d and not d.endswith("Z" + run["id"]))


def part(name: str, value) -> bytes:
    data = value if isinstance(value, bytes) else orjson.dumps(value)
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n"
            f"Content-Type: application/json\r\n\r\n").encode() + data + b"\r\n"


END = f"--{BOUNDARY}--\r\n".encode()


def multipart(posts: list[dict]) -> bytes:
    out = b""
    for r in posts:
        inputs = r.get("inputs")
        head = {k: v for k, v in r.items() if k != "inputs"}
        out += part(f"post.{r['id']}", head)
        if inputs is not None:
            out += part(f"post.{r['id']}.inputs", inputs)
    return out + END


@st.composite
def posts(draw) -> tuple[str, str, bytes, dict, int, int]:
    """(label, path, body, headers, expected status, runs staged when accepted)."""
    rs = draw(st.lists(runs(), min_size=1, max_size=3, unique_by=lambda r: r["id"]))
    route = draw(st.sampled_from(["one", "batch", "multipart"]))
    breakage = draw(st.sampled_from(["none", "cut", "bad json", "wrong type", "no id", "not an object", "dotted",
                                     "bad tags", "twice", "unknown", "empty", "gzip junk"]))
    r0 = rs[0]
    if breakage == "wrong type":
        field = draw(st.sampled_from(["name", "inputs", "outputs", "start_time", "trace_id", "extra", "tags", "events", "error"]))
        wrong = {"inputs": "text", "outputs": [1], "start_time": True, "extra": [], "tags": "a,b", "events": {}}.get(field, 7)
        r0[field] = wrong
    elif breakage == "no id":
        r0["id"] = draw(st.sampled_from(["", 7, None, ["x"]]))
        r0.pop("dotted_order", None)
    elif breakage == "dotted":
        r0["dotted_order"] = "20261120T090000000000Z" + "another-run"
    elif breakage == "bad tags":
        r0["tags"] = ["ok", 3]
    if route == "one":
        path, headers = "/runs", JSON
        body = b"[1, 2]" if breakage == "not an object" else orjson.dumps(r0)
        staged = 1
    elif route == "batch":
        path, headers = "/runs/batch", JSON
        doc = {"post": rs}
        if breakage == "not an object":
            doc = {"post": [rs[0], "not a run"]}
        elif breakage == "twice":
            doc["post"] = rs + [rs[0]]
        elif breakage == "unknown":
            doc["delete"] = []
        elif breakage == "empty":
            doc = []
        body, staged = orjson.dumps(doc), len(rs)
    else:
        path, headers = "/runs/multipart", MULTIPART
        if breakage == "no id" and not isinstance(r0["id"], str):
            r0["id"] = ""  # a part name needs text: an empty id names no run
        body = multipart(rs)
        if breakage == "not an object":
            body = part(f"post.{r0['id']}", [1]) + END
        elif breakage == "twice":
            body = part(f"post.{r0['id']}", {"id": r0["id"]}) + body
        elif breakage == "unknown":
            body = body[: -len(END)] + part(f"post.{r0['id']}.secrets", {}) + END
        elif breakage == "empty":
            body = END
        staged = len(rs)
    if breakage == "bad json":
        body = body.replace(b"{", b"{,", 1) if b"{" in body else body + b"}"
    if breakage == "cut":
        body = body[: draw(st.integers(1, len(body) - 3))]
    if breakage == "gzip junk" or (breakage == "none" and draw(st.booleans())):
        body = gzip.compress(body) + (b"junk" if breakage == "gzip junk" else b"")
        headers = {**headers, "Content-Encoding": "gzip"}
    if breakage in ("twice", "unknown", "empty") and route == "one":
        breakage, staged = "none", 1  # nothing of the kind to break in one run
    return breakage, path, body, headers, (202 if breakage == "none" else 400), staged


def _inbox(root: Path) -> list[Path]:
    d = inbox_dir(root)
    return sorted(d.iterdir()) if d.is_dir() else []


_HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
QUICK = settings(max_examples=40, deadline=None, suppress_health_check=_HEALTH)
SLOW = settings(max_examples=400, deadline=None, suppress_health_check=_HEALTH)


@QUICK
@given(post=posts())
def test_every_malformed_post_is_400_with_a_reason_and_stages_nothing(tmp_path_factory, post):
    _labelled(tmp_path_factory, post)


@pytest.mark.slow
@SLOW
@given(post=posts())
def test_every_malformed_post_is_400_many_examples(tmp_path_factory, post):
    _labelled(tmp_path_factory, post)


def _labelled(tmp_path_factory, post) -> None:
    label, path, body, headers, want, staged = post
    root = tmp_path_factory.mktemp("recv")
    client = TestClient(make_app(root), base_url="http://127.0.0.1")
    r = client.post(path, content=body, headers=headers)
    assert r.status_code == want, (label, r.status_code, r.text, body[:200])
    if want == 400:
        assert r.json()["error"], label
        assert _inbox(root) == [], label
    else:
        assert r.json() == {"accepted": staged}
        lines = [orjson.loads(x) for f in _inbox(root) for x in f.read_bytes().splitlines()]
        assert len(lines) == staged and all(well_formed(a["run"]) for a in lines)


ARBITRARY = dict(path=st.sampled_from(["/runs", "/runs/batch", "/runs/multipart", "/runs/abc"]),
                 body=st.one_of(st.binary(max_size=200), json_any.map(orjson.dumps),
                                st.lists(json_any, max_size=3).map(lambda v: orjson.dumps({"post": v}))),
                 ctype=st.sampled_from(["application/json", f"multipart/form-data; boundary={BOUNDARY}", "text/plain", ""]))


@QUICK
@given(**ARBITRARY)
def test_arbitrary_bodies_are_refused_with_a_reason_or_hold_only_well_formed_runs(tmp_path_factory, path, body, ctype):
    _arbitrary(tmp_path_factory, path, body, ctype)


@pytest.mark.slow
@SLOW
@given(**ARBITRARY)
def test_arbitrary_bodies_many_examples(tmp_path_factory, path, body, ctype):
    _arbitrary(tmp_path_factory, path, body, ctype)


def _arbitrary(tmp_path_factory, path, body, ctype) -> None:
    root = tmp_path_factory.mktemp("recv")
    client = TestClient(make_app(root), base_url="http://127.0.0.1")
    method = client.patch if path == "/runs/abc" else client.post
    r = method(path, content=body, headers={"Content-Type": ctype, **SDK} if ctype else SDK)
    assert r.status_code in (202, 400, 415), (r.status_code, r.text)
    if r.status_code != 202:
        assert r.json()["error"]
        assert _inbox(root) == []
        return
    for f in _inbox(root):
        for line in f.read_bytes().splitlines():
            assert well_formed(orjson.loads(line)["run"]), (body[:200], line[:200])
