"""A tool result whose text is small and whose structured copy (Claude Code's ``toolUseResult``) is over the landing
budget lands with its text whole and its data taken out (seed 000, Too large to land: data goes before text). Every
reader says that, each with its own size and SHA-256 (trial 40c F1: they said the 4-byte text was "truncated to land"
and gave it the structured copy's SHA-256; md showed the text with no mark at all).

Real input: a three-line Claude Code transcript written here, landed by the real collect with the smallest budget the
configuration allows (1,024 bytes). Every figure is computed here from the source line's bytes.
"""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path

from cli_helpers import asz_in_process
from reading_helpers import collected_at_budget

SESSION = "40c00000-0000-4000-8000-000000000001"
TEXT = "done"  # what the model was given
DATA = {"content": "B" * 5000, "totalTokens": 7}  # the runtime's structured copy, ASCII: compact JSON as landed


def _asz(*args: str, base: Path):
    p = asz_in_process(*args, cwd=base, env={"CLAUDE_CONFIG_DIR": str(base / "claude-home")})
    assert p.returncode == 0, p.stderr
    return p


def _collected(base: Path) -> tuple[Path, bytes]:
    """Land the transcript; return the root and the structured copy's bytes as read back from the source line."""
    p = collected_at_budget(base, SESSION, [{"tool": "toolu_5", "content": TEXT, "copy": DATA}])
    proj = base / "projects" / "-home-me-x"
    source = json.loads((proj / f"{SESSION}.jsonl").read_bytes().splitlines()[2])["toolUseResult"]
    data = json.dumps(source, separators=(",", ":"), ensure_ascii=False).encode()
    assert f"sha256 {hashlib.sha256(data).hexdigest()} of its data" in p.stderr  # the collect warning, as before
    return base / "root", data


def test_every_reader_says_the_text_was_kept_and_the_structured_copy_was_not(tmp_path):
    root, data = _collected(tmp_path)
    text_sha, data_sha = hashlib.sha256(TEXT.encode()).hexdigest(), hashlib.sha256(data).hexdigest()
    n_text, n_data = len(TEXT.encode()), len(data)

    # the landed record: the text whole, the data's SHA-256 on the part and its size in dropped (seed 000)
    [landed] = [json.loads(x) for f in root.rglob("*.sd") for x in f.read_bytes().splitlines() if b'"toolu_5"' in x
                and b'"result"' in x]
    assert landed["parts"][0] == {"k": "result", "text": TEXT, "of": "toolu_5", "state": "truncated", "bytes": n_text,
                                  "sha256": data_sha}
    assert [(d["what"], d["bytes"]) for d in landed["dropped"]] == [("data of part 1", n_data)]

    doc = json.loads(_asz("conversation", SESSION[:8], "--json", "--root", str(root), base=tmp_path).stdout)
    tool = next(n for t in doc["talks"] for n in _walk(t) if n.get("kind") == "tool")
    said_here = (f"result text kept whole ({n_text:,} bytes, sha256 {text_sha}); not kept: the runtime's structured "
                 f"copy ({n_data:,} bytes, sha256 {data_sha}), too large to land")  # the page prints it (fix41b)
    assert {k: v for k, v in tool.items() if k.startswith("result")} == {
        "result": TEXT, "result_state": "truncated", "result_bytes": n_text, "result_sha256": data_sha,
        "result_taken": "data", "result_taken_bytes": n_data, "result_text_sha256": text_sha, "result_taken_said": said_here}
    assert doc["summary"]["cut"] == {"truncated": 1, "too_large": 0, "data_taken": 1, "bytes": n_data}

    said = (f"landed without the runtime's structured copy of 1 tool result, too large to land ({n_data:,} bytes as "
            "written); its text kept whole")
    step = f"  {tool['id']} (tool): {said_here}"
    text = _asz("conversation", SESSION[:8], "--root", str(root), base=tmp_path).stdout.splitlines()
    assert text[text.index(said) + 1] == step
    assert f"{SESSION[:8]} {said}" in _asz("ls", "--root", str(root), base=tmp_path).stdout.splitlines()
    assert json.loads(_asz("ls", "--json", "--root", str(root), base=tmp_path).stdout)[0]["cut"] == doc["summary"]["cut"]

    marker = f"[{step.split(': ', 1)[1]}]"  # after the text kept whole, in its place
    md = _asz("export", SESSION[:8], "--root", str(root), "--format", "md", base=tmp_path).stdout
    assert f"\n{TEXT}\n{marker}\n" in md
    page = _asz("export", SESSION[:8], "--root", str(root), "--format", "html", base=tmp_path).stdout
    assert html.escape(f"{TEXT}\n{marker}") in page


def _walk(n: dict):
    yield n
    for c in n.get("children") or ():
        yield from _walk(c)
