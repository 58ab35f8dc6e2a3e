"""What an image's SHA-256 in the exports covers (trial 31b F8: docs said "the data as landed"; it is the base64 text as
a JSON string, quotes included, the rule of a part taken out to land, docs/reading.md "What the SHA-256 of a part
taken out covers"): matched with hashlib against the bytes of the source line.

Input: a Claude Code session whose prompt pastes a PNG (made here with zlib: a real 16x16 image) and one reply."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import zlib

from reading_helpers import asz

SID = "f8f8f8f8-1111-4222-8333-444455556666"


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(v for x in range(16) for v in (x * 16, y * 16, 128)) for y in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def test_an_images_digest_is_the_json_string_of_its_base64(tmp_path):
    png = _png()
    b64 = base64.b64encode(png).decode()
    common = {"sessionId": SID, "cwd": "/home/r/img", "version": "2.0.14", "gitBranch": "main", "userType": "external",
              "isSidechain": False}
    lines = [
        {**common, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-01T10:00:00.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "look at this"},
                                                 {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                              "data": b64}}]}},
        {**common, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-03-01T10:00:05.000Z",
         "requestId": "req_1", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                           "content": [{"type": "text", "text": "a gradient"}], "stop_reason": "end_turn",
                                           "usage": {"input_tokens": 3, "output_tokens": 4}}},
    ]
    proj = tmp_path / "projects" / "-home-r-img"
    proj.mkdir(parents=True)
    src = proj / f"{SID}.jsonl"
    src.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    md = asz("export", SID, "--format", "md", "--root", str(root)).stdout
    (said,) = re.findall(r"\[image: image/png, ([\d,]+) bytes, sha256 ([0-9a-f]{64}); decoded: ([\d,]+) bytes, "
                         r"sha256 ([0-9a-f]{64})\]", md)
    first = src.read_bytes().splitlines()[0]
    at = first.index(b'"data":') + len(b'"data":')
    as_json = first[at:first.index(b'"', at + 1) + 1]  # the value as the source line holds it: "…", quotes included
    assert as_json == b'"' + b64.encode() + b'"'
    assert said == (f"{len(b64):,}", hashlib.sha256(as_json).hexdigest(), f"{len(png):,}", hashlib.sha256(png).hexdigest())
    assert said[1] not in (hashlib.sha256(b64.encode()).hexdigest(), hashlib.sha256(png).hexdigest())  # fix32d: the 4th
    doc = json.loads(asz("export", SID, "--format", "json", "--root", str(root)).stdout)
    digests = [m["digest"] for m in re.findall(r'"media":\[(\{[^\]]*\})\]', json.dumps(doc, separators=(",", ":")))
               for m in [json.loads(m)]]
    assert digests == [hashlib.sha256(as_json).hexdigest()]
