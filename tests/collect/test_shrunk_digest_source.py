"""What the SHA-256 of a part too large to land covers, matched against the source with hashlib (trial 31b F7: a
researcher holding the transcript could not find what ``result (3,480,000 bytes, sha256 38352b…)`` was over).

Seed 000, Too large to land: the part keeps the SHA-256 of what was taken out first, its data compacted as the
writer lands it when it had data (a Claude Code tool result's ``toolUseResult``, which the adapter lands as the
source bytes of that value with the whitespace between its tokens removed), its text as UTF-8 only when it had none.
The landed bytes keep that digest (existing roots unchanged); the collect warning says what it covers and, for a part
whose text went too, gives the text's own SHA-256 beside it.

Real input: the corpus transcript 8463c716, collected with max_delta_bytes 32,768: its line 66 (86,656 bytes: a
tool_result of 39,598 bytes of text and a ``toolUseResult`` object) lands with both taken out."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "claude-code" / "projects" / "-home-user-spotter"
SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
LINE = 66


def _compact(raw: bytes) -> bytes:
    """``raw`` (one JSON value as the source holds it) with the whitespace between its tokens removed, strings kept
    byte for byte: the test's own reading of "compacted", not asz's."""
    out, in_str, esc = bytearray(), False, False
    for b in raw:
        if in_str:
            out.append(b)
            if esc:
                esc = False
            elif b == 0x5C:
                esc = True
            elif b == 0x22:
                in_str = False
        elif b == 0x22:
            in_str = True
            out.append(b)
        elif b not in b" \t\r\n":
            out.append(b)
    return bytes(out)


def _value_bytes(line: bytes, key: bytes) -> bytes:
    """The source bytes of the top-level ``key``'s value in the JSON line ``line``."""
    text = line.decode("utf-8")
    at = text.index('"' + key.decode() + '":') + len(key) + 3
    while text[at] in " \t":
        at += 1
    _, end = json.JSONDecoder().raw_decode(text, at)
    return text[at:end].encode("utf-8")


def test_the_digest_of_a_result_too_large_to_land_is_reproducible_from_the_source(tmp_path: Path) -> None:
    src = CORPUS / f"{SID}.jsonl"
    if not src.is_file():
        pytest.skip(f"the corpus is absent ({src})")
    (tmp_path / "projects" / "p").mkdir(parents=True)
    shutil.copy(src, tmp_path / "projects" / "p" / src.name)
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--max-delta-bytes", "32768",
                        "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root")],
                       capture_output=True, text=True, timeout=600, cwd=tmp_path)
    # 1: a pass under so small a budget leaves some files for the next (pending=), none failed
    assert p.returncode in (0, 1) and " errors=0 " in p.stdout and " shrunk=" in p.stdout, (p.stdout, p.stderr[-2000:])
    line = src.read_bytes().splitlines()[LINE - 1]
    rec = json.loads(line)
    text = rec["message"]["content"][0]["content"].encode("utf-8")
    data = _compact(_value_bytes(line, b"toolUseResult"))
    data_sha, text_sha = hashlib.sha256(data).hexdigest(), hashlib.sha256(text).hexdigest()
    (warning,) = [x for x in p.stderr.splitlines() if f"line {LINE} is " in x]
    assert (f"not kept: part 1 result ({len(text):,} bytes, sha256 {data_sha} of its data: the runtime's structured "
            f"copy, compact JSON as landed, {len(data):,} bytes; its text: {len(text):,} bytes, sha256 {text_sha} as "
            "UTF-8)") in warning, warning
    # a part that kept its text: its digest is its data's, said so, and no text digest (the text is in the root)
    line152 = src.read_bytes().splitlines()[151]
    data152 = _compact(_value_bytes(line152, b"toolUseResult"))
    (w152,) = [x for x in p.stderr.splitlines() if "line 152 is " in x]
    assert (f"its text kept, sha256 {hashlib.sha256(data152).hexdigest()} of its data: the runtime's structured copy, "
            f"compact JSON as landed, {len(data152):,} bytes)") in w152
    # the landed part keeps the data's digest (landed bytes as before), and the JSON export gives it as result_sha256
    out = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "export", SID, "--format", "json", "--root",
                          str(tmp_path / "root")], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    tool_id = rec["message"]["content"][0]["tool_use_id"]
    shas = {m.group(1) for m in re.finditer(r'"result_sha256":"([0-9a-f]{64})"', out.stdout)}
    assert data_sha in shas and text_sha not in shas
    assert tool_id in out.stdout
