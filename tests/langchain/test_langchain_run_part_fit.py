"""A run part over ``--max-part`` loses only what must go (review32's bug in 7b21ad8b): its members are taken out
largest first until the part fits, and each stand-in's words are true.

Before, every bulky member of such a run was taken out however small: a model call embedding a 2 MB ``inputs`` beside
its few-hundred-byte ``outputs`` lost its reply and usage, and the outputs' stand-in said they were "over --max-part".
The official clients send ``inputs``/``outputs`` as parts of their own; a client that embeds them in the run (one
``post.<id>`` part each, as here) reaches this path. Real data: the corpus's LangSmith upload body
(../shared/corpus/langchain, skipped when absent), sent to a real ``asz ingest langsmith`` on loopback and landed by
the real ``asz collect --once``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid

import orjson

from langchain_helpers import landed_records

from asz_adapters_langchain.receiver import parse_multipart

LIMIT = 1_000_000


def _body(runs: list[dict], boundary: bytes = b"B0undary") -> bytes:
    """One multipart body: each run whole in its own ``post.<id>`` part (no out-of-band field)."""
    out = b""
    for run in runs:
        out += (b"--" + boundary + b'\r\nContent-Disposition: form-data; name="post.' + run["id"].encode()
                + b'"\r\nContent-Type: application/json\r\n\r\n' + json.dumps(run).encode() + b"\r\n")
    return out + b"--" + boundary + b"--\r\n"


def _review_run(**members) -> dict:
    rid = str(uuid.uuid4())
    return {"id": rid, "trace_id": rid, "dotted_order": "20260101T000000000000Z" + rid, "name": "llm", "run_type": "llm",
            "start_time": "2026-01-01T00:00:00Z", **members}


def _parse(run: dict) -> tuple[dict, list]:
    cuts: list = []
    got = parse_multipart(_body([run]), "multipart/form-data; boundary=B0undary", max_part=LIMIT, cuts=cuts)
    return got[0]["run"], cuts


def test_only_the_largest_member_goes_and_its_words_are_true():
    """review32's exact shape: ``inputs`` of 2 MB, ``outputs`` of 26 bytes, --max-part 1,000,000."""
    inputs, outputs = {"prompt": "x" * 2_000_000}, {"text": "reply", "usage": 7}
    run = _review_run(inputs=inputs, outputs=outputs)
    whole = len(json.dumps(run))
    got, cuts = _parse(run)
    assert got["outputs"] == outputs  # kept: the reply and the usage
    enc = orjson.dumps(inputs)
    assert got["inputs"] == {"asz_taken_out": {
        "bytes": len(enc), "sha256": hashlib.sha256(enc).hexdigest(),
        "why": f"{len(enc):,} bytes, a member of a run part of {whole:,} bytes, over the receiver's --max-part of "
               "1,000,000 bytes: taken out when it arrived (the part's largest members first, until it fit); only its "
               "size and SHA-256 are kept"}}
    assert [name for name, _ in cuts] == [f"post.{run['id']} inputs"]


def test_members_go_largest_first_until_the_part_fits():
    """Two members over half the limit: the larger goes, the other stays; two each over the limit: both go, the
    small ones stay."""
    run = _review_run(inputs={"a": "i" * 600_000}, outputs={"b": "o" * 700_000}, extra={"metadata": {"k": 1}})
    got, cuts = _parse(run)
    assert got["inputs"] == run["inputs"] and got["extra"] == run["extra"]
    assert got["outputs"]["asz_taken_out"]["bytes"] == len(orjson.dumps(run["outputs"]))
    assert [name.split()[-1] for name, _ in cuts] == ["outputs"]
    run = _review_run(inputs={"a": "i" * 1_200_000}, outputs={"b": "o" * 1_500_000}, events=[{"name": "start"}])
    got, cuts = _parse(run)
    assert [name.split()[-1] for name, _ in cuts] == ["outputs", "inputs"]
    assert got["events"] == [{"name": "start"}]
    assert len(orjson.dumps(got)) <= LIMIT


def test_a_model_call_in_a_run_part_over_the_limit_keeps_its_reply_and_usage(tmp_path, receiver_factory, run_asz,
                                                                             tracer_batch):
    """The tracer body's runs, each whole in one part; its last model call carries usage and a 2 MB message in its
    inputs. The call lands with its reply and the usage sent, and only its inputs are listed as taken out."""
    runs = copy.deepcopy(tracer_batch["post"])
    llm = [r for r in runs if r["run_type"] == "llm"][-1]
    msg = llm["outputs"]["generations"][0][0]["message"]["kwargs"]
    usage = {"input_tokens": 1834, "output_tokens": 57, "total_tokens": 1891}
    msg["usage_metadata"] = usage
    reply = msg["content"]
    assert isinstance(reply, str) and reply  # the corpus's final answer
    llm["inputs"]["messages"][0].append({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages",
                                                                                "HumanMessage"],
                                         "kwargs": {"content": "y" * 2_000_000, "type": "human"}})
    root = tmp_path / "root"
    r = receiver_factory(root, "--max-part", str(LIMIT))
    status, answer = r.send("POST", "/runs/multipart", _body(runs), {"Content-Type": "multipart/form-data; boundary=B0undary"})
    assert (status, answer) == (202, {"accepted": len(runs)})
    r.stop()
    assert f"part post.{llm['id']} inputs of a request on /runs/multipart holds " in r.err, r.err
    assert f"post.{llm['id']} outputs" not in r.err
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    rec = landed_records(root)[llm["id"]]
    assert [p.text for p in rec.parts if p.k == "text"] == [reply]
    assert (rec.usage.in_, rec.usage.out) == (usage["input_tokens"], usage["output_tokens"])
    cut = [d for d in rec.dropped if d.what == "inputs"]
    assert len(cut) == 1 and "a member of a run part of" in cut[0].why and cut[0].bytes > 2_000_000
    assert not [d for d in rec.dropped if d.what == "outputs"]
    rows = json.loads(run_asz("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert sum(row["usage"]["in"] for row in rows) == usage["input_tokens"]  # the one call that carried usage
    assert sum(row["usage"]["out"] for row in rows) == usage["output_tokens"]
    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
