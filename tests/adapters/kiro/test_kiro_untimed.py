"""A Kiro record whose time does not read (trial 30a F8, the Kiro adapter; session 32). Kiro CLI 3.x writes each
line's ``timestamp`` as RFC 3339 and 2.x a prompt's ``data.meta.timestamp`` as seconds since the epoch. Before, a 3.x
``timestamp`` that was a number (or any non-string) became ``''`` with no word, and a 2.x value that was no whole
number in range the same: the value lost, the record placed by nothing. Now a value the dialect cannot read lands
as written in the record's ``time`` (a number as its source text, digits a decoder would round kept), ``asz collect``
says each source's such lines in one ``warning:`` naming the file, lines, field and values, every line lands,
verify passes with its warning (exit 0), and no reader prints 1970. A missing or empty time is no time given.

Real input: the corpus's Kiro home (a 3.x ``messages.jsonl`` and a 2.x ``<id>.jsonl``) copied, five 3.x lines' and
the 2.x prompt's time edited; what to expect is counted here from the edited source files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from cli_helpers import asz_in_process

#: An RFC 3339 time as seed 000 reads one (the date's and clock's ranges left to the check below).
RFC3339 = re.compile(r"\d{4}-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})")
SAID = "give a time that does not read as an RFC 3339 time"


def _reads(v) -> bool:
    m = RFC3339.fullmatch(v) if isinstance(v, str) else None
    return bool(m) and 1 <= int(m[1]) <= 12 and 1 <= int(m[2]) <= 31 and int(m[3]) <= 23


def _asz(home: Path, *args: str):
    env = {"KIRO_HOME": None, "XDG_CONFIG_HOME": None, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "no-claude")}
    return asz_in_process(*args, cwd=home.parent, env=env)


def test_a_kiro_time_that_does_not_read_lands_as_written_and_said(corpus_dir, tmp_path):
    src = corpus_dir / "kiro" / "home"
    home = tmp_path / "home"
    shutil.copytree(src, home)
    for p in home.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (v3,) = home.rglob("sess_*/messages.jsonl")
    (v2,) = home.rglob("cli/*.jsonl")
    lines = v3.read_text(encoding="utf-8").splitlines()
    objs = [json.loads(x) for x in lines]
    edits = {0: "yesterday", 12: 1767261700000, 19: "", 9: "2026-13-45T25:00:00Z"}  # a word, a number, empty, no date
    for i, v in edits.items():
        objs[i]["timestamp"] = v
    del objs[5]["timestamp"]  # missing
    v3.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    text2 = v2.read_text(encoding="utf-8")
    first, rest = text2.split("\n", 1)
    assert '"timestamp": ' in first or '"timestamp":' in first
    first = re.sub(r'("timestamp":\s*)\d+', r"\g<1>100000000000000000000", first, count=1)  # seconds no calendar holds
    v2.write_text(first + "\n" + rest, encoding="utf-8")

    root = tmp_path / "root"
    p = _asz(home, "collect", "--once", "--adapter", "kiro", "--source", str(home / ".kiro"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    warned = sorted(ln for ln in p.stderr.splitlines() if SAID in ln)
    # counted from the edited source: each line whose time is given and does not read, its value as written
    want3 = [(n, str(o["timestamp"])) for n, o in enumerate(objs, 1) if o.get("timestamp") not in (None, "")
             and not _reads(o["timestamp"])]
    assert [n for n, _ in want3] == [1, 10, 13]
    said3 = "; ".join(f"line {n}: {v!r}" for n, v in want3)
    assert any(w.startswith(f"warning: {v3}: 3 record(s) {SAID}, field time (timestamp / meta.timestamp) ({said3}): ")
               for w in warned), warned
    assert any(w.startswith(f"warning: {v2}: 1 record(s) {SAID}, field time (timestamp / meta.timestamp) "
                            "(line 1: '100000000000000000000'): ") for w in warned), warned
    assert len(warned) == 2

    sessions = [d for d in root.iterdir() if not d.name.startswith("_") and d.is_dir()]
    landed = {}
    for d in sessions:
        for sd in d.glob("streams/*/transcript-*.sd"):
            for x in sd.read_text(encoding="utf-8").splitlines():
                r = json.loads(x)
                if "ord" in r and d.name.startswith("sess_"):
                    landed[r["ord"]] = r
    assert sorted(landed) == list(range(1, len(objs) + 1))  # every 3.x line landed
    assert [landed[n].get("time") for n, _ in want3] == [v for _, v in want3]  # as written
    assert landed[20].get("time", "") == "" and landed[6].get("time", "") == ""  # none given: none
    v = _asz(home, "verify", "--root", str(root), "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["untimed_records"] == 4
    for d in sessions:
        c = _asz(home, "conversation", d.name, "--root", str(root))
        assert c.returncode == 0 and "1970" not in c.stdout and "time does not read" in c.stdout, c.stdout
        for form in ("md", "html", "prose"):
            assert "1970" not in _asz(home, "export", d.name, "--root", str(root), "--format", form).stdout
    u = _asz(home, "usage", "daily", "--root", str(root))
    assert "1970" not in u.stdout and u.stderr.count("time does not read") == 2
