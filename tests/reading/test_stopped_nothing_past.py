"""A source in conflict that holds nothing past what landed leaves no line out of a figure: ``asz ls`` and ``asz
usage`` exit 0 for it (review46 of trial 46a F1's fix: a transcript put back byte for byte, or emptied and left so,
made every ``asz ls`` and ``asz usage`` exit 1 saying lines were in no figure, until ``asz sources --reset-conflict``).

The corpus's 53-line transcript 5c0375b4 (../shared/corpus, skipped when absent): its first 50 lines collected, then
the file emptied (a conflict). Emptied: exit 0, ``asz ls`` still names the conflict, saying the source holds nothing
past what landed. The 50 landed lines put back: the same. Cut to its first 30 (trial 50d F2: a shorter file holds no
line past what landed, and every figure was complete, yet exit 1): the same. 29 of them and a line that did not land, or
30 and a torn piece of the 31st: exit 1. All 53 written back: exit 1, 2 calls in no figure (counted here from the
transcript's lines). Real ``asz collect``, ``asz ls`` and ``asz usage``.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import AWAY_HOME as AWAY, asz_in_process, landed_first_lines  # noqa: E402

SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
NOTHING = "the source holds nothing past that now, so no line of it is left out of a figure"
PAST = "lines it holds past those are in no figure"


def _calls(lines: list[bytes]) -> int:
    return len({((json.loads(ln).get("message") or {}).get("id"), json.loads(ln).get("requestId") or "") for ln in lines
                if json.loads(ln).get("type") == "assistant" and (json.loads(ln).get("message") or {}).get("id")})


def _run(*args: str):
    return asz_in_process(*args, env=AWAY)


def test_a_conflict_holding_nothing_past_what_landed_makes_no_answer_incomplete(corpus_dir, tmp_path):
    f = corpus_dir / "claude-code" / "projects" / "-home-user-sample-project" / f"{SID}.jsonl"
    src, root, live, lines = landed_first_lines(tmp_path, f, 50)
    live.write_bytes(b"")
    out = _run("collect", "--once", "--source", str(src), "--root", str(root)).stdout
    assert " conflicts=1 " in out, out
    kept, whole = _calls(lines[:50]), _calls(lines)
    assert whole - kept == 2
    cut, other, torn = b"".join(lines[:30]), b"".join(lines[:29] + lines[51:52]), b"".join(lines[:30]) + lines[30][:20]
    for content, rc in ((b"", 0), (b"".join(lines[:50]), 0), (cut, 0), (other, 1), (torn, 1), (b"".join(lines), 1)):
        live.write_bytes(content)
        ls = _run("ls", "--root", str(root))
        usage = _run("usage", "daily", "--json", "--total-once", "--tz", "UTC", "--root", str(root))
        assert (ls.returncode, usage.returncode) == (rc, rc), (len(content), ls.stderr, usage.stderr)
        stopped_line = [x for x in ls.stdout.splitlines() + ls.stderr.splitlines() if x.startswith("stopped: ")]
        assert len(stopped_line) == 1 and (NOTHING if rc == 0 else PAST) in stopped_line[0], stopped_line
        answer = json.loads(usage.stdout)
        assert answer["total"]["calls"] == kept
        assert bool(answer.get("stopped")) == (rc == 1), sorted(answer)
