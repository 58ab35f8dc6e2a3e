"""Four Claude Code sessions written as Claude Code writes them, for search by conversation (trial 21): which session
holds which word in which message is all the tests' expectations use (:data:`SESSIONS`, :func:`holding`)."""

from __future__ import annotations

from pathlib import Path

import orjson

#: session id -> (project, [prompt, reply]): which message holds which word is all the expectations use.
SESSIONS = {
    "a1111111-0000-4000-8000-000000000001": ("stats-lab", ["Please state the hypothesis first", "Done. Next the testing suite runs."]),
    "b2222222-0000-4000-8000-000000000002": ("stats-lab", ["hypothesis testing with a t-test", "Here is the t-test."]),
    "c3333333-0000-4000-8000-000000000003": ("other", ["only a hypothesis here", "Nothing else to add."]),
    "d4444444-0000-4000-8000-000000000004": ("other", ["the hypothesis again", "testing the draft now"]),
}


def lines(sid: str, project: str, prompt: str, reply: str, minute: int) -> list[dict]:
    def env(uuid: str, parent: str | None, t: str, type_: str, **kw) -> dict:
        return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": f"/home/dev/{project}",
                "sessionId": sid, "version": "2.1.114", "gitBranch": "main", "entrypoint": "cli", "type": type_,
                "uuid": uuid, "timestamp": t, **kw}

    t = f"2026-11-21T10:{minute:02d}:00.000Z"
    return [env(f"u-{sid[:4]}", None, t, "user", promptId=f"p-{sid[:4]}", message={"role": "user", "content": prompt}),
            env(f"a-{sid[:4]}", f"u-{sid[:4]}", t.replace(":00.000Z", ":05.000Z"), "assistant", promptId=f"p-{sid[:4]}",
                requestId=f"req_{sid[:4]}", message={"id": f"msg_{sid[:4]}", "type": "message", "role": "assistant",
                                                     "model": "claude-opus-5", "content": [{"type": "text", "text": reply}],
                                                     "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 20}})]


def write_sessions(projects: Path) -> Path:
    """Each of :data:`SESSIONS` written under ``projects`` (a Claude Code projects folder), one minute apart; ``projects``."""
    for i, (sid, (project, (prompt, reply))) in enumerate(SESSIONS.items()):
        folder = projects / f"-home-dev-{project}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{sid}.jsonl").write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in lines(sid, project, prompt, reply, i)))
    return projects


def holding(query: str) -> set[str]:
    """Sessions in which each group of ``query`` (plain words, ``-word`` left out) stands in some message lacking every
    word left out: read off :data:`SESSIONS`, not asz."""
    words = query.split()
    want, out = [w for w in words if not w.startswith("-")], [w[1:] for w in words if w.startswith("-")]

    def finds(msgs: list[str], w: str) -> bool:
        return any(w in m.lower().split() and not any(o in m.lower().split() for o in out) for m in msgs)
    return {sid for sid, (_, msgs) in SESSIONS.items() if all(finds([m.rstrip(".") for m in msgs], w) for w in want)}
