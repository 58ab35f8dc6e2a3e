"""A session whose landed file holds only records with no time of their own so far (trial 27b F6: Claude Code's
``summary`` and ``file-history-snapshot`` lines at a resumed file's head, the day cut before its first timed line)
verifies and is in no ``--since``/``--until`` window yet: ``asz export`` and ``asz ls`` say so in true words (not
"not read … no usable round … asz verify names the problems") and the export exits 0."""

from __future__ import annotations

import json

from reading_helpers import asz
from view_server_helpers import collect_and_parse

UNTIMED = "a7da6a22-facc-4fcd-8bab-f83c87862004"  # its first 3 lines: summary, summary, file-history-snapshot
TIMED = "b25638d7-b104-4f06-a797-70ac33d069ed"  # 46 lines, all on 2025-09-29
DAY = "2025-09-29"


def test_a_session_with_no_timed_record_yet_is_a_note_and_exit_0(corpus_source, tmp_path):
    head = (corpus_source / "-src-deep-manifest" / f"{UNTIMED}.jsonl").read_bytes().splitlines(keepends=True)[:3]
    assert [json.loads(x)["type"] for x in head] == ["summary", "summary", "file-history-snapshot"]
    assert not any("timestamp" in json.loads(x) for x in head)
    source, root = tmp_path / "projects", tmp_path / "root"
    (source / "p").mkdir(parents=True)
    (source / "p" / f"{UNTIMED}.jsonl").write_bytes(b"".join(head))
    (source / "p" / f"{TIMED}.jsonl").write_bytes(
        (corpus_source / "-Users-alex-workspace-personal-site-next" / f"{TIMED}.jsonl").read_bytes())
    collect_and_parse(source, root)
    assert asz("verify", "--root", str(root), check=False).returncode == 0
    out = tmp_path / "out"
    p = asz("export", "--root", str(root), "--since", DAY, "--until", DAY, "--tz", "UTC", "--audit", "--in-range-only",
            "--out", f"{out}/", check=False)
    assert p.returncode == 0, p.stderr
    said = [x for x in p.stderr.splitlines() if "a7da6a22" in x]
    assert said == ["asz export: note: no record with a time of its own yet, so in no --since/--until window (so far "
                    "only records with none, such as Claude Code's summary and file-history-snapshot; nothing is "
                    "wrong: a later record's time places it): a7da6a22"]
    assert "not read" not in p.stderr and "exported 1 conversation(s)" in p.stderr and "verify" not in said[0]
    assert sorted(x.name for x in out.glob("*.jsonl")) == [f"{TIMED}.jsonl"]
    index = (out / "index.md").read_text()
    assert "not exported: no record with a time of its own yet" in index and "no usable round" not in index
    ls = asz("ls", "--root", str(root), "--since", DAY, "--until", DAY, "--tz", "UTC")
    assert "no record with a time of its own yet" in ls.stdout and "not read" not in ls.stdout
