"""A transcript saved as UTF-16 (PowerShell 5's ``Get-Content x | Out-File y``, Notepad's "Unicode") gets one line
naming the file, saying it is UTF-16 and must be saved as UTF-8 (trial 36c F3: a 307,604-byte warning listed every
one of its 1,593 lines as "not valid UTF-8 … and is not valid JSON either", never saying UTF-16, exit 0, and the NUL
after its last newline kept every pass ``partial=1``). Nothing of it lands, so the same file saved as UTF-8 lands whole
on the next pass, with no conflict. A list of lines that each have their own reason is capped.

Real input: the corpus session -home-user-claude-reliability/de3b8b19 (CRLF line ends, as Windows writes them) encoded
here as UTF-16 LE with its BOM, as UTF-16 LE without one and as UTF-16 BE, collected by the real ``asz collect
--once``; the expected record count is the file's own lines."""

from __future__ import annotations

import shutil

import pytest

from cli_helpers import asz_in_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"


@pytest.mark.parametrize("codec, said", [("utf-16", "UTF-16 LE (BOM FF FE)"),
                                         ("utf-16-le", "UTF-16 LE (no BOM: a NUL after every other byte)"),
                                         ("utf-16-be", "UTF-16 BE (no BOM: a NUL before every other byte)")])
def test_a_utf16_copy_gets_one_line_and_lands_once_saved_as_utf8(corpus_dir, tmp_path, codec, said):
    src = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    text = src.read_text(encoding="utf-8").replace("\n", "\r\n")  # as Windows writes it
    lines = text.count("\r\n")
    path = tmp_path / "projects" / PROJECT / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode(codec))
    assert path.read_bytes().endswith(b"\n\x00" if codec != "utf-16-be" else b"\x00\n")
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 1, p.stdout + p.stderr  # an error, not a quiet pass
    named = [x for x in p.stderr.splitlines() if str(path) in x]
    assert named == [f"error: {path}: the file is {said}, not UTF-8: asz reads a transcript as UTF-8 JSON Lines, so "
                     "nothing of it landed; save it as UTF-8 (PowerShell: Get-Content FILE | Set-Content -Encoding utf8 "
                     "NEW, or copy the original file rather than piping it; Notepad: Save as, Encoding UTF-8) and collect "
                     "again"], p.stderr
    assert len(p.stderr) < 2_000, len(p.stderr)  # the trial's was 307,604 bytes
    summary = p.stdout.strip().splitlines()[-1]
    assert " errors=1 " in summary and " landed=0 " in summary and "partial=0" in summary, summary
    # saved as UTF-8 (the same text): it lands whole, every line a record, and nothing is said of it
    path.write_bytes(text.encode("utf-8"))
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0 and str(path) not in p.stderr, p.stdout + p.stderr
    summary = p.stdout.strip().splitlines()[-1]
    assert f" records={lines} " in summary and " bytes=" + str(len(text.encode())) + " " in summary, summary


def test_a_long_list_of_lines_each_with_its_own_reason_is_capped(corpus_dir, tmp_path):
    """Each line of a cp1252 copy fails at its own offset, so each has its own reason: five are said, then how many
    more reasons on how many more lines, never every one."""
    src = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    rows = src.read_bytes().split(b"\n")[:-1]
    bad = [b'{"x":"' + b"a" * i + b'\xe9"' for i in range(len(rows))]  # not UTF-8, not JSON: each at its own offset
    path = tmp_path / "projects" / PROJECT / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(r + b"\n" + b_ + b"\n" for r, b_ in zip(rows, bad)))
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root"))
    said = [x for x in p.stderr.splitlines() if x.startswith(f"warning: {path}: ")]
    assert len(said) == 1 and said[0].count("the record is not valid UTF-8") == 5, p.stderr
    assert f"and {len(rows) - 5} more reason(s) on {len(rows) - 5} more line(s): asz conversation lists them all" in said[0]
    assert said[0].startswith(f"warning: {path}: {len(rows)} line(s) adapter claude-code-local could not describe (")
