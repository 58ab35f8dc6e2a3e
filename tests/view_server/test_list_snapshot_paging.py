"""Paging ``/api/conversations`` while a conversation moves (trial 36a F2): under the default order ``last`` a row
that becomes newest between pages moved to the front, so ``offset`` paging missed it and repeated another. A first
page with a ``limit`` answers a ``snapshot`` and the address of the ``next`` page; following ``next`` sees every
conversation of the first page's order exactly once, each row as it is now (docs/view.md, Paging while rows move).

Real input: six Claude Code transcripts written here a day apart, collected and parsed by the real ``asz collect``; a
real ``asz view`` on loopback follows the rounds a second ``asz collect`` writes after a line is appended to the oldest.
"""

from __future__ import annotations

import orjson

from view_server_helpers import _assistant, _env, asz, collect_and_parse, counted_rows, until

SIDS = [f"5a9e0000-0000-4000-8000-00000000000{i}" for i in range(1, 7)]  # 1 the oldest, 6 the newest


def _talk(sid: str, day: int, n: int, parent: str | None = None) -> list[dict]:
    t = f"2026-11-{day:02d}T10:00:0{n}.000Z"
    p = f"p-{n}"
    return [_env(f"u-{n}", parent, t, "user", sessionId=sid, cwd="/home/dev/paging", promptId=p, origin={"kind": "human"},
                 message={"role": "user", "content": f"question {n} of {sid[-1]}"}),
            _assistant(f"a-{n}", f"u-{n}", t.replace(":0" + str(n) + ".", ":0" + str(n + 1) + "."), f"msg_{sid[-1]}_{n}",
                       [{"type": "text", "text": f"answer {n}"}], "end_turn", p) | {"sessionId": sid, "cwd": "/home/dev/paging"}]


def _write(src, sid: str, lines: list[dict], append: bool = False) -> None:
    proj = src / "-home-dev-paging"
    proj.mkdir(parents=True, exist_ok=True)
    with open(proj / f"{sid}.jsonl", "ab" if append else "wb") as f:
        f.write(b"".join(orjson.dumps(x) + b"\n" for x in lines))


def _ids(rows: list[dict]) -> list[str]:
    return [r["id"] for r in rows]


def test_following_next_sees_every_row_once_while_one_moves(tmp_path, serve):
    src, root = tmp_path / "src", tmp_path / "root"
    for i, sid in enumerate(SIDS):
        _write(src, sid, _talk(sid, 10 + i, 1))
    collect_and_parse(src, root)
    s = serve(root)
    rows = counted_rows(s)
    assert _ids(rows) == SIDS[::-1]  # newest first, from the transcripts' times

    first = s.get("/api/conversations?limit=2").json()
    assert _ids(first["conversations"]) == [SIDS[5], SIDS[4]] and first["total"] == 6
    assert first["snapshot"] and first["next"] == f"/api/conversations?snapshot={first['snapshot']}&offset=2&limit=2"

    # the oldest conversation (not paged yet) gets a new talk, later than every other: it becomes the newest
    _write(src, SIDS[0], _talk(SIDS[0], 20, 2, parent="a-1"), append=True)
    asz("collect", "--once", "--source", str(src), "--root", str(root))
    now = until(lambda: counted_rows(s), lambda r: r and r[0]["id"] == SIDS[0] and r[0]["llm_calls"] == 2, 60,
                "the appended talk in the list", s)
    assert _ids(now) == [SIDS[0], *SIDS[:0:-1]]
    # offset paging now skips it and repeats another (the finding's premise)
    by_offset = [x for off in (2, 4) for x in _ids(s.get(f"/api/conversations?limit=2&offset={off}").json()["conversations"])]
    assert SIDS[0] not in by_offset and SIDS[4] in by_offset

    seen, page = _ids(first["conversations"]), first
    while page["next"]:
        page = s.get(page["next"]).json()
        assert page["snapshot"] == first["snapshot"] and page["total"] == 6 and page["sort"] == "last"
        seen += _ids(page["conversations"])
        if SIDS[0] in _ids(page["conversations"]):
            (moved,) = [r for r in page["conversations"] if r["id"] == SIDS[0]]
            assert moved["llm_calls"] == 2  # the row as it is now, in the place the snapshot kept
    assert sorted(seen) == sorted(SIDS) and len(seen) == 6  # every conversation exactly once
    assert seen == SIDS[::-1]  # in the first page's order

    refused = s.get(f"/api/conversations?snapshot={first['snapshot']}&sort=first")
    assert refused.status == 400 and refused.json()["code"] == "snapshot_fixes_query"
    gone = s.get("/api/conversations?snapshot=nope&limit=2")
    assert gone.status == 410 and gone.json()["code"] == "unknown_snapshot"
    assert "snapshot" not in s.get("/api/conversations").json()  # no limit, no page to follow: no snapshot kept
