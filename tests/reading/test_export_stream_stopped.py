"""An ``asz export --out FILE.md`` of several conversations (one stream into one file) stopped while it writes the
stream: exit 130, the interrupted line naming the file it left as it was, no ``FILE.part`` and no ``FILE.lock`` left
(session 41: the stream's ``.part`` was opened as a bare descriptor since review 40, whose name is a number, and the
line cut ``.part`` off that number: a TypeError instead of the line).

Real input: the Claude Code corpus collected and parsed (tests/reading/conftest.py); a real SIGINT raised in this
process once the first conversation's bytes are in the ``.part`` (tests/stop_at.py), in the export command's own code.
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import asz_in_process as asz
from stop_at import sigint_once


def test_a_stream_export_stopped_mid_stream_says_its_file_and_leaves_it_as_it_was(corpus_root, corpus_source, tmp_path):
    out = tmp_path / "day.md"
    out.write_bytes(b"an earlier export\n")
    part = tmp_path / "day.md.part"
    n = sum(not p.name.startswith("agent-") for p in corpus_source.glob("*/*.jsonl"))  # a main transcript each

    def written() -> bool:
        return part.exists() and part.stat().st_size > 0

    with sigint_once(written, within="asz_core/cli/export_cmd.py") as fired:
        r = asz("export", "--root", str(corpus_root), "--since", "2000-01-01", "--out", str(out))
    assert fired, r.stderr
    assert r.returncode == 130, r.stderr
    assert f"asz export: interrupted after 0 of {n} conversations (nothing written to {out})" in r.stderr.splitlines()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["day.md"] and out.read_bytes() == b"an earlier export\n"
