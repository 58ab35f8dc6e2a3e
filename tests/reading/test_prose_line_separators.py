"""The prose (JSON Lines) and json exports write U+2028, U+2029 and zero-width characters as JSON escapes (review34:
the prose JSONL kept U+2028 raw, so a reader calling ``str.splitlines()`` on it, or an editor, broke a JSON line in
two; render 7). The values are the same once decoded; a copy made before (render 6, raw) still checks.

Real input: the corpus's de3b8b19 with a U+2028, a U+2029, a zero-width space and a byte-order mark planted in its
first prompt, collected by the real ``asz collect --once``.
"""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import hashlib
import json

import pytest

from cli_helpers import asz_in_process
from reading_helpers import planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
PLANTED = "line one\u2028{\"kind\": \"reply\"}\u2029para\u200bzw\ufeffbom"


def _plant(lines: list[dict]) -> None:
    prompt = next(o for o in lines if isinstance(o.get("message"), dict) and o["message"].get("role") == "user"
                  and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] = PLANTED + " " + prompt["message"]["content"]


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("separators"), TRANSCRIPT, _plant)


@pytest.mark.parametrize("fmt", ["prose", "json"])
def test_no_line_of_the_json_breaks_at_a_separator(root, tmp_path, fmt):
    out = tmp_path / f"c.{fmt}"
    made = asz_in_process("export", "de3b8b19", "--format", fmt, "--root", str(root), "--out", str(out))
    assert made.returncode == 0, made.stderr
    data = out.read_bytes()
    text = data.decode("utf-8")
    assert not any(c in text for c in "\u2028\u2029\u200b\ufeff")  # before: each raw
    assert text.splitlines() == text.rstrip("\n").split("\n")  # before: a prompt's line broke in three
    values = [json.loads(x) for x in text.splitlines()] if fmt == "prose" else [json.loads(text)]
    found = json.dumps(values, ensure_ascii=False)
    assert "line one\u2028{\\\"kind\\\": \\\"reply\\\"}\u2029para\u200bzw\ufeffbom" in found  # the value, decoded

    # the copy made before render 7 (each character raw) still checks; the same bytes said to be render 7 do not
    from asz_core.reading.export_manifest import line_digests

    body = json.loads((tmp_path / f"c.{fmt}.manifest.json").read_bytes())
    assert body["render"] == RENDER
    older = data.replace(b"\\u2028", "\u2028".encode()).replace(b"\\u2029", "\u2029".encode()) \
        .replace(b"\\u200b", "\u200b".encode()).replace(b"\\ufeff", "\ufeff".encode())
    assert older != data
    for name, render, code in ((f"r6.{fmt}", 6, 0), (f"r7.{fmt}", 7, 1)):
        (tmp_path / name).write_bytes(older)
        (tmp_path / f"{name}.manifest.json").write_text(json.dumps({**body, "render": render, "export": {
            **body["export"], "file": name, "bytes": len(older), "sha256": hashlib.sha256(older).hexdigest(),
            "lines": line_digests(older)}}))
        got = asz_in_process("verify", "--export", str(tmp_path / name), "--root", str(root))
        assert got.returncode == code, (name, got.stdout + got.stderr)
