"""Past ten conversations of one kind, ``asz ls`` says its notes under the table once a kind, with a count, the first
ten ids and where ``--json`` has them all, not one line a row (trial 48d F5: 279 rows printed 589 lines, 275 of
``X shares N record id(s) with …`` and 25 ``! problems in …`` of one missing companion file).

Real input: the corpus session 8463c716 (-home-user-spotter), whose line citing ``tool-results/…txt`` names a companion
file the corpus does not hold. 11 copies of its lines around that citation, each under a session id of its own and
opened by a prompt of its own (so none continues another: they share ids), collected by the real ``asz collect``.
Calls are counted straight from the copied lines (tests/anchors.py, reader-anchors.md's rule).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from cli_helpers import asz_in_process as asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anchors import anchor_usage  # noqa: E402

SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
COPIES = 11


def test_eleven_copies_get_one_shares_line_and_one_problems_line(corpus_dir, tmp_path):
    lines = (corpus_dir / "claude-code" / "projects" / "-home-user-spotter" / f"{SID}.jsonl").read_bytes().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if b"tool-results/" in ln)
    cited = re.search(r"tool-results/[A-Za-z0-9_]+\.txt", lines[at].decode()).group(0)
    chunk = [json.loads(ln) for ln in lines[at - 12:at + 1]]
    _, calls = anchor_usage(lines[at - 12:at + 1])
    assert calls > 0
    proj = tmp_path / "projects" / "-home-user-spotter"
    proj.mkdir(parents=True)
    ids = []
    for n in range(COPIES):
        sid = f"{n + 1:08x}-0000-4000-8000-000000000000"
        own = {"type": "user", "uuid": f"{n + 1:08x}-1111-4000-8000-000000000000", "parentUuid": None, "sessionId": sid,
               "timestamp": "2026-02-11T21:00:00.000Z", "cwd": chunk[0].get("cwd"),
               "message": {"role": "user", "content": f"A prompt of copy {n} first."}}
        (proj / f"{sid}.jsonl").write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [own, *(
            dict(r, sessionId=sid) if "sessionId" in r else r for r in chunk)]))
        ids.append(sid)
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).returncode == 0

    rows = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    assert len(rows) == COPIES and all(len(r["shares"]["with"]) == COPIES - 1 for r in rows)  # --json keys unchanged
    assert all(r["shares"]["calls"] == calls and r["problems"][0].startswith(f"missing companion file {cited}: ") for r in rows)
    out = asz("ls", "--root", str(root)).stdout.splitlines()
    shown = [r["id"][:8] for r in json.loads(asz("ls", "--json", "--sort", "last", "--root", str(root)).stdout)]
    shares = [ln for ln in out if " share" in ln]
    assert shares == [f"{COPIES} conversations share record ids with others ({', '.join(shown[:10])} and 1 more), neither "
                      f"continuing the other: those records, {COPIES * calls:,} call(s) in all and their tokens with them, "
                      "are counted in each row (asz usage's totals count each model call once); asz ls --json lists "
                      "them, each row's shares naming the others, the ids and calls"]
    problems = [ln for ln in out if ln.startswith("! problems in ")]
    assert len(problems) == 1 and problems[0].startswith(
        f"! problems in {COPIES} conversations ({', '.join(shown[:10])} and 1 more), each first: missing companion file {cited}: ")
    assert problems[0].endswith("; asz ls --json lists each row's problems, asz conversation ID names them")


def test_twelve_copies_continuing_one_conversation_get_one_line(corpus_dir, tmp_path):
    """Trial 50c F7: 249 copies of one Kiro session gave 249 ``X continues Y`` lines under the table (520 in all).
    Twelve copies of the corpus's de3b8b19, its session id alone changed, each repeat every record of it: past ten
    such rows one line says how many continue it, the first ten and where ``--json`` names each."""
    src = corpus_dir / "claude-code" / "projects" / "-home-user-claude-reliability" / "de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
    data = src.read_bytes()
    proj = tmp_path / "projects" / "-p"
    proj.mkdir(parents=True)
    (proj / src.name).write_bytes(data)
    for n in range(12):
        sid = f"{n + 1:08x}-2222-4000-8000-000000000000"
        (proj / f"{sid}.jsonl").write_bytes(data.replace(src.stem.encode(), sid.encode()))
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).returncode == 0
    rows = json.loads(asz("ls", "--json", "--sort", "last", "--root", str(root)).stdout)
    going = [r for r in rows if r.get("continues")]
    assert len(rows) == 13 and len(going) == 12 and len({r["continues"] for r in going}) == 1  # one original, 12 copies
    out = asz("ls", "--sort", "last", "--root", str(root)).stdout.splitlines()
    assert not [ln for ln in out if re.match(r"[0-9a-f]{8} continues ", ln)]  # no line a row
    said = [ln for ln in out if ln.startswith("12 conversations continue")]
    shown = [r["id"][:8] for r in going]
    assert said == [f"12 conversations continue {going[0]['continues'][:8]} ({', '.join(shown[:10])} and 2 more): the records "
                    "each repeats, their calls and tokens with them, are counted there (asz ls --json: each row's continues)"], said
