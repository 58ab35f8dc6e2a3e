"""How long ``asz search`` takes over one long text (a user's report, session 13): a Claude Code transcript whose one
user line holds ``lorem ipsum dolor sit amet zebrafinch `` repeated to the size asked, then ``onlyonce``.

Writes the transcript under ``--work``, lands it with ``asz collect --once`` (``--max-delta-bytes`` raised past the
size), then runs ``asz search WORD --limit 1`` for each word with each ``asz`` given (``--asz``: one per checkout, e.g.
an older one's venv, so before and after are measured in the same run) and prints the command's own ``in N ms`` line.

Usage::

    python bench/search_long_text.py --size 1e6 --work /tmp/long --asz OLD/.venv/bin/asz --asz .venv/bin/asz
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

SESSION = "11111111-2222-3333-4444-555555555555"
UNIT = "lorem ipsum dolor sit amet zebrafinch "
WORDS = ("zebrafinch", "lorem", "onlyonce")


def write_source(projects: Path, size: int) -> None:
    """The transcript: one user line of about ``size`` characters, one assistant reply."""
    out = projects / "-home-user-long"
    out.mkdir(parents=True, exist_ok=True)
    text = UNIT * (size // len(UNIT)) + "onlyonce"
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/user/long", "sessionId": SESSION,
            "version": "1.0.0", "gitBranch": ""}
    lines = [
        {**base, "parentUuid": None, "type": "user", "message": {"role": "user", "content": text},
         "uuid": "aaaaaaaa-0000-0000-0000-000000000001", "timestamp": "2026-01-01T00:00:00.000Z"},
        {**base, "parentUuid": "aaaaaaaa-0000-0000-0000-000000000001", "type": "assistant",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
                     "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                     "usage": {"input_tokens": 1, "output_tokens": 1}},
         "uuid": "aaaaaaaa-0000-0000-0000-000000000002", "timestamp": "2026-01-01T00:00:01.000Z"},
    ]
    (out / f"{SESSION}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=float, default=1e6, help="characters of the long line")
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--asz", action="append", required=True, help="an asz executable (give one per checkout)")
    a = ap.parse_args()
    size = int(a.size)
    shutil.rmtree(a.work, ignore_errors=True)
    write_source(a.work / "projects", size)
    subprocess.run([a.asz[-1], "collect", "--once", "--max-delta-bytes", str(max(2_097_152, 2 * size)), "--source",
                    str(a.work / "projects"), "--root", str(a.work / "root")], check=True, capture_output=True)
    for word in WORDS:
        for exe in a.asz:  # one index for all: asz collect --once built it (the same index version in each checkout)
            got = subprocess.run([exe, "search", word, "--root", str(a.work / "root"), "--limit", "1"],
                                 capture_output=True, text=True)
            print(f"{size:,} chars  {word:<10}  {exe}: {got.stdout.strip().splitlines()[-1] if got.stdout else got.stderr}")


if __name__ == "__main__":
    main()
