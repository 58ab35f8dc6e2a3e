"""Trial 30a F8: a record whose ``timestamp`` does not read (``"yesterday"``, a number) landed with no word, and
``asz conversation`` then printed a talk of it as ``from 1970-01-01 00:00 UTC``. Now it lands (nothing lost: a string
as written, a number as its JSON text, in the record's ``time``) with one ``warning:`` per source naming the file,
each line, the field (``time``, Claude Code's ``timestamp``) and the value; ``asz verify`` passes the root, and
``asz conversation`` names no time it does not have (seed 000, Times: a value that is not an RFC 3339 time means the
record has no time).

Real input: the corpus's smallest Claude Code session (de3b8b19) with two of its lines' timestamps replaced, collected
by the real ``asz collect --once``; the lines and values are counted here from that source file."""

from __future__ import annotations

import json
import shutil

from collect_helpers import asz, stream_files

SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"


def test_a_time_that_does_not_read_lands_said_and_is_never_invented(corpus_dir, tmp_path):
    src = next((corpus_dir / "claude-code" / "projects").rglob(f"{SESSION}.jsonl"))
    projects = tmp_path / "projects" / src.parent.name
    projects.mkdir(parents=True)
    lines = src.read_text(encoding="utf-8").splitlines()
    objs = [json.loads(x) for x in lines]
    user = next(i for i, o in enumerate(objs) if o.get("type") == "user" and isinstance(o.get("message", {}).get("content"), str))
    reply = next(i for i, o in enumerate(objs) if o.get("type") == "assistant" and i > user)
    objs[user]["timestamp"], objs[reply]["timestamp"] = "yesterday", 1767261700000
    (projects / src.name).write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    root = tmp_path / "root"
    p = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    warned = [ln for ln in p.stderr.splitlines() if "does not read as an RFC 3339 time" in ln]
    assert len(warned) == 1, p.stderr
    assert warned[0].startswith(f"warning: {projects / src.name}: 2 record(s) give a time that does not read as an "
                                "RFC 3339 time, field time (timestamp) ("
                                f"line {user + 1}: 'yesterday'; line {reply + 1}: '1767261700000'): ")
    landed = {}
    for f in stream_files(root, SESSION):
        for ln in f.read_text(encoding="utf-8").splitlines():
            d = json.loads(ln)
            if "ord" in d:
                landed[d["ord"]] = d
    assert len(landed) == len(lines)  # every source line landed: nothing lost
    assert landed[user + 1]["time"] == "yesterday" and landed[reply + 1]["time"] == "1767261700000"
    assert all(landed[i + 1].get("time") == o.get("timestamp") for i, o in enumerate(objs) if i not in (user, reply))
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    c = asz("conversation", SESSION, "--root", str(root))
    assert c.returncode == 0, c.stderr
    assert "1970" not in c.stdout, c.stdout
    again = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert "RFC 3339" not in again.stderr  # said once, when it landed
