"""A search hit's title is the one ``asz ls`` shows when a prompt landed later happened earlier (trial 42c F2).

The trial appended prompts dated 2001 to a session: ``asz ls``, ``asz conversation`` and the page titled it by the
2001 prompt (its first talk, talks in the order they happened), search by the session's first line (landed order).
The expected title is read off the source file: the typed prompt with the earliest timestamp.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import orjson

import forked
from search_convs_data import lines

SID = "a1111111-0000-4000-8000-000000000001"


def _asz(tmp_path: Path, *args: str) -> str:
    env = {**os.environ, "HOME": str(tmp_path)}
    done = forked.run([sys.executable, "-m", "asz_core.cli.main", *args], cwd=tmp_path, env=env,  # tests/forked.py
                      capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_prompt_appended_with_an_earlier_time_titles_search_as_it_titles_ls(tmp_path):
    src = tmp_path / "projects" / "-home-dev-lab" / f"{SID}.jsonl"
    src.parent.mkdir(parents=True)
    first = lines(SID, "lab", "Please state the hypothesis first", "Done.", 0)
    src.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in first))
    root = str(tmp_path / "root")
    _asz(tmp_path, "collect", "--once", "--root", root, "--source", str(tmp_path / "projects"))
    assert json.loads(_asz(tmp_path, "search", "--root", root, "hypothesis", "--json"))[0]["title"] == "Please state the hypothesis first"
    later = lines(SID, "lab", "TRIAL clock past: check the hypothesis", "Checked.", 0)  # appended, dated 2001
    for d in later:
        for k in ("uuid", "parentUuid", "promptId", "requestId"):
            d[k] = d[k] + "-2" if d.get(k) else d.get(k)
        d["parentUuid"] = first[-1]["uuid"] if d["type"] == "user" else d["parentUuid"]
        d["timestamp"] = d["timestamp"].replace("2026-11-21", "2001-01-01")
        d["message"].get("id") and d["message"].update(id=d["message"]["id"] + "-2")
    with open(src, "ab") as f:
        f.write(b"".join(orjson.dumps(d) + b"\n" for d in later))
    _asz(tmp_path, "collect", "--once", "--root", root, "--source", str(tmp_path / "projects"))
    records = [json.loads(x) for x in src.read_bytes().splitlines()]
    earliest = min((r for r in records if r["type"] == "user"), key=lambda r: r["timestamp"])["message"]["content"]
    assert earliest == "TRIAL clock past: check the hypothesis"
    (row,) = json.loads(_asz(tmp_path, "ls", "--root", root, "--json"))
    hits = json.loads(_asz(tmp_path, "search", "--root", root, "hypothesis", "--json"))
    assert row["title"] == earliest
    assert len(hits) == 2 and {h["title"] for h in hits} == {earliest}  # was 'Please state the hypothesis first'
