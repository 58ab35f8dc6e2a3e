"""Trial 30a's two incident sessions (its /tmp/trial30a/gen/mk.py, made deterministic): Claude Code transcripts a test
collects with the real ``asz collect --once``.

Session :data:`S1` (``/srv/staging/app``) writes and edits ``/srv/staging/app config/settings.yaml``, runs the
migration :data:`PSQL` (one ``tool_use``, id ``toolu_psql``) and replies; session :data:`S2` continues it (Claude
Code's resume: its transcript repeats S1's lines under its own ``sessionId``, then goes on) and runs :data:`RM`.
What a test asserts is read from these lines (:func:`write_incident` returns them), never from asz's output.
"""

from __future__ import annotations

import json
from pathlib import Path

S1 = "11111111-aaaa-4bbb-8ccc-000000000001"
S2 = "11111111-aaaa-4bbb-8ccc-000000000002"
CWD = "/srv/staging/app"
PROJECT = "-srv-staging-app"
PSQL = "psql \"$DATABASE_URL\" -c 'ALTER TABLE users DROP COLUMN legacy_flag;' && ./manage.py migrate --noinput 2>&1 | tee /tmp/migrate.log"
RM = 'rm -rf "/srv/staging/app/My Cache"/*'
MODEL = "claude-sonnet-4-5-20250929"


def _lines(sid: str, steps: list[tuple], first_parent: str | None = None, salt: str = "a") -> list[dict]:
    out: list[dict] = []
    parent = first_parent
    for i, st in enumerate(steps):
        kind, ts = st[0], st[1]
        uid = f"{salt}{i:07d}-0000-4000-8000-{sid[-12:]}"
        base = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": sid,
                "version": "2.0.31", "gitBranch": "main", "timestamp": ts}
        if kind == "user":
            out.append(dict(base, type="user", message={"role": "user", "content": st[2]}, uuid=uid))
        elif kind == "tool":
            tid, usage = st[5], st[6]
            out.append(dict(base, type="assistant", requestId=f"req_{salt}{i}", uuid=uid, message={
                "id": f"msg_{salt}{i}", "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "tool_use", "id": tid, "name": st[2], "input": st[3]}], "stop_reason": "tool_use",
                "stop_sequence": None, "usage": usage}))
            parent, uid = uid, f"{salt}{i:07d}-0001-4000-8000-{sid[-12:]}"
            out.append(dict(base, type="user", uuid=uid, timestamp=ts[:-5] + "500Z", message={"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": st[4], "is_error": False}]}))
        else:
            out.append(dict(base, type="assistant", requestId=f"req_{salt}{i}", uuid=uid, message={
                "id": f"msg_{salt}{i}", "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "text", "text": st[2]}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": st[3]}))
        parent = uid
    return out


def _usage(i: int, cw: int, cr: int, o: int) -> dict:
    return {"input_tokens": i, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": o}


def write_incident(projects: Path) -> dict[str, list[dict]]:
    """Write S1's and S2's transcripts under ``projects/-srv-staging-app/``; the lines of each, by session id."""
    s1 = _lines(S1, [
        ("user", "2026-10-25T00:20:00.000Z", "Fix the staging config: the DB pool is too small."),
        ("tool", "2026-10-25T00:25:00.000Z", "Write", {"file_path": "/srv/staging/app config/settings.yaml",
                                                       "content": "db:\n  pool: 50\n"},
         "File created successfully at: /srv/staging/app config/settings.yaml", "toolu_write", _usage(3, 1000, 0, 120)),
        ("tool", "2026-10-25T01:20:00.000Z", "Bash", {"command": PSQL, "description": "run migration"},
         "ERROR:  column \"legacy_flag\" does not exist", "toolu_psql", _usage(3, 300, 1200, 150)),
        ("reply", "2026-10-25T01:40:00.000Z", "Done: pool set and migration applied.", _usage(3, 50, 1600, 40)),
    ])
    s2 = [dict(d, sessionId=S2) for d in s1] + _lines(S2, [
        ("user", "2026-10-25T02:10:00.000Z", "Now clean the cache directory."),
        ("tool", "2026-10-25T02:12:00.000Z", "Bash", {"command": RM, "description": "clean cache"}, "", "toolu_rm",
         _usage(3, 100, 1700, 60)),
        ("reply", "2026-10-25T02:13:00.000Z", "Cache removed.", _usage(3, 20, 1800, 10)),
    ], first_parent=s1[-1]["uuid"], salt="b")
    folder = projects / PROJECT
    folder.mkdir(parents=True, exist_ok=True)
    for sid, lines in ((S1, s1), (S2, s2)):
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    return {S1: s1, S2: s2}


def tool_inputs(lines: list[dict]) -> list[dict]:
    """The ``tool_use`` blocks of ``lines``, in order."""
    return [b for d in lines if d.get("type") == "assistant" for b in d["message"]["content"] if b.get("type") == "tool_use"]
