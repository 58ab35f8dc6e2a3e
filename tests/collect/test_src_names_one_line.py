"""A source tree another user can write to names its folders and files as it likes (trial 27c, F4/F5): a project
folder named with an OSC window title, a colour CSI and a newline (``-evil\\x1b]0;TITLE\\x07\\x1b[31mRED\\nFAKE LINE``)
put the raw sequences and a line of the attacker's choosing into ``asz collect``'s and ``asz sources``' output, and
its session's cursor (one ``key value`` a line, origin-digest §2.2) read back cut at the newline, so every later pass
said the source had moved and ``asz sources`` called it a conflict. Every collect and sources line is now one line
with each control written as its escape, and a source whose name holds a line break is left out with one ``error:``
naming the folder, as a name that is not UTF-8 is (tests/collect/test_src_not_utf8.py). Real input: the corpus's hello
session under a new id.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from asz_core.termsafe import UNSAFE

PROJECT = "-home-user-claude-reliability"
HELLO = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
OTHER = "99999999-8888-4888-8888-888888888888"
EVIL = "-evil\x1b]0;TITLE\x07\x1b[31mRED\nFAKE LINE"
EVIL_SHOWN = "-evil\\x1b]0;TITLE\\x07\\x1b[31mRED\\nFAKE LINE"


def _asz(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def _raw(text: str) -> list[str]:
    return [hex(ord(c)) for c in text if ord(c) in UNSAFE]


def test_a_folder_named_with_controls_and_a_newline_is_one_escaped_error_and_the_rest_lands(corpus_dir, tmp_path):
    src = tmp_path / "projects"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, src / PROJECT)
    good = src / PROJECT / f"{HELLO}.jsonl"
    (src / EVIL).mkdir()
    (src / EVIL / f"{OTHER}.jsonl").write_bytes(good.read_bytes().replace(HELLO.encode(), OTHER.encode()))
    (src / EVIL / "abc\nFAKE\x1b[2Jrow.jsonl").write_bytes(b"{}\n")
    root = tmp_path / "root"
    why = (f"error: {src}/{EVIL_SHOWN}/{OTHER}.jsonl: the folder {src}/{EVIL_SHOWN} is named with a line break, and a "
           "cursor (one key and value a line) cannot hold it: not landed; rename it to collect this source")
    for n in (1, 2):
        p = _asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
        fields = dict(f.split("=", 1) for f in p.stdout.split() if "=" in f)
        assert p.returncode == 1 and fields["errors"] == "1" and fields["landed"] == ("1" if n == 1 else "0"), p.stdout + p.stderr
        lines = p.stderr.splitlines()
        assert _raw(p.stderr) == [] and why in lines, p.stderr
        assert f"warning: {EVIL_SHOWN}/abc\\nFAKE\\x1b[2Jrow.jsonl: file name is not a session id; not collected: none of its 1 line(s) (3 bytes) lands under this name (asz sources lists what is skipped)" in lines
        assert not any("moved" in ln for ln in lines)  # nothing told of a move that did not happen
        assert len(lines) == 2  # no line of the attacker's own
    assert sorted(n for n in (root).iterdir() if not n.name.startswith("_")) == [root / HELLO]
    s = _asz("sources", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert s.returncode == 1 and _raw(s.stdout + s.stderr) == [] and "conflict" not in s.stdout + s.stderr
    assert f"skipped: {EVIL_SHOWN}/abc\\nFAKE\\x1b[2Jrow.jsonl: file name is not a session id" in s.stdout.splitlines()
