"""The text form writes a bash-mode command as typed and its output as md reads them (trial 35b F8: ``| <bash-input>uv
run ty check</bash-input>`` and ``| <bash-stdout>warning[…`` where md shows ``! uv run ty check``): render 6. A copy
of render 5, drawn with the markup, still checks with ``asz verify --export``; the same bytes said to be render 6 do
not.

Real input: the corpus conversation 326189cf (one ``!`` command and its output records); the command, its standard
output and standard error are read from the source transcript here."""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import hashlib
import json
import re

from reading_helpers import asz

from asz_core.reading.prose_text import quoted

PROJECT = "-Users-alex-workspace-claude-code-log-sample"
SID = "326189cf-5676-4237-8cde-1ce80aae4a9f"


def _source(corpus_source) -> dict[str, str]:
    """The landed texts of the command record and its output record, from the source file."""
    out = {}
    for line in (corpus_source / PROJECT / f"{SID}.jsonl").read_text().splitlines():
        c = (json.loads(line).get("message") or {}).get("content")
        if isinstance(c, str) and c.startswith("<bash-input>"):
            out["command"] = c
        elif isinstance(c, str) and c.startswith("<bash-stdout>"):
            out["command_output"] = c
    return out


def _block(text: str, kind: str) -> list[str]:
    """The lines of the text form's block of ``kind`` (its ``[TS] KIND`` line excluded)."""
    lines = text.split("\n")
    at = next(k for k, x in enumerate(lines) if re.fullmatch(rf"\[[^\]]+\] {kind}", x))
    end = lines.index("", at)
    return lines[at + 1:end]


def test_the_command_as_typed_and_its_output(corpus_root, corpus_source, tmp_path):
    src = _source(corpus_source)
    typed = re.fullmatch(r"<bash-input>(.*)</bash-input>", src["command"]).group(1)
    stdout = re.search(r"<bash-stdout>(.*?)</bash-stdout>", src["command_output"], re.S).group(1).strip("\r\n")
    stderr = re.search(r"<bash-stderr>(.*?)</bash-stderr>", src["command_output"], re.S).group(1).strip("\r\n")
    copy = tmp_path / "c.txt"
    asz("export", SID, "--format", "text", "--root", str(corpus_root), "--out", str(copy))
    text = copy.read_text()
    assert "<bash-input>" not in text and "<bash-stdout>" not in text and "<bash-stderr>" not in text
    assert _block(text, "command") == [f"| ! {typed}"]
    assert _block(text, "command_output") == quoted(f"{stdout}\n\nstderr:\n{stderr}").split("\n")
    md = asz("export", SID, "--root", str(corpus_root)).stdout
    assert f"`! {typed}`" in md  # md reads the command so too


def test_a_render_5_copy_with_the_markup_still_checks(corpus_root, corpus_source, tmp_path):
    src = _source(corpus_source)
    from asz_core.reading.export_render import drawing

    copy = tmp_path / "c.txt"
    with drawing(10):  # render 11 added the audit form's errors: drawn before them, as a render-5 copy was
        asz("export", SID, "--format", "text", "--root", str(corpus_root), "--out", str(copy))
    body = json.loads((tmp_path / "c.txt.manifest.json").read_text())
    assert body["render"] == RENDER
    text = copy.read_text()
    for kind in ("command", "command_output"):  # as render 5 drew them: the landed text, quoted
        text = text.replace("\n".join(_block(text, kind)), quoted(src[kind]), 1)
    older = text.encode()
    assert older.count(b"| <bash-") == 2
    from asz_core.reading.export_manifest import line_digests
    for name, render, code in (("r5.txt", 5, 0), ("r6.txt", 6, 1)):
        (tmp_path / name).write_bytes(older)
        (tmp_path / f"{name}.manifest.json").write_text(json.dumps({**body, "render": render, "export": {
            **body["export"], "file": name, "bytes": len(older), "sha256": hashlib.sha256(older).hexdigest(),
            "lines": line_digests(older)}}))
        p = asz("verify", "--export", str(tmp_path / name), "--root", str(corpus_root), check=False)
        assert p.returncode == code, (name, p.stdout)
