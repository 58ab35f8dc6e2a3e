"""A resumed copy left at once, then grown: every call counted exactly once (trial 45d F1).

A corpus transcript (``de3b8b19``, 4 model calls) is copied whole to a new session id that sorts before it, as
Claude Code's ``--resume`` left at once writes it (every line the same, ``sessionId`` changed). Neither holds a
record of its own, so the name decides which is the earlier (docs/session-flow.md, Links across sessions). Then the
copy goes on (a prompt and a reply of its own, a new call): it now holds records of its own and continues the
original, so the pair turns over. Before, the original's chain was not drawn again (none of its ids was among the
new ones), each said it continued the other, and its 4 calls were counted nowhere while ``asz verify --figures``
passed. Each count here is made from the source lines (:func:`transcript_calls`), never from asz's output, and
compared with ``asz ls --json``, ``asz usage --json`` and the page's ``/api/usage``: after the first collect, after
the append (``collect --once``), and in a fresh root. A root whose chains point at each other (the original's chain
as the first collect left it, put back) fails ``asz verify --figures``, and ``asz parse`` draws it again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process, asz_ok
from test_view_usage import add_to, source_usage, transcript_calls

PROJECT = "-home-user-claude-reliability"
A = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"  # the original: 9 lines, 4 calls
B = "7e5a0000-0000-4000-8000-000000000000"  # the copy: sorts before it


def _truth(files: list[Path]) -> tuple[int, int]:
    """(calls, tokens) of the conversation the ``files`` hold together, each call once (the copy repeats the
    original's message ids: counted once), straight from the source lines."""
    calls: dict = {}
    for f in files:
        calls.update(transcript_calls([f]))
    total: dict = {}
    for m in calls.values():
        add_to(total, source_usage(m["usage"]))
    return len(calls), sum(total.values())


def _append(path: Path) -> None:
    """A prompt and a reply of the copy's own after its last line (new uuids, a new message id, a later time)."""
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    last = [x for x in lines if x.get("type") == "assistant"][-1]
    user = json.loads(json.dumps(next(x for x in lines if x.get("type") == "user")))
    user.update(uuid="aaaaaaaa-0000-4000-8000-000000000001", parentUuid=last["uuid"], timestamp="2026-03-02T08:00:00.000Z",
                message={"role": "user", "content": "And now say bye."})
    reply = json.loads(json.dumps(last))
    reply.update(uuid="aaaaaaaa-0000-4000-8000-000000000002", parentUuid=user["uuid"], timestamp="2026-03-02T08:00:03.000Z")
    reply["message"]["id"] = "msg_fix45j_0000000000000001"
    with path.open("a") as f:
        f.write(json.dumps(user) + "\n" + json.dumps(reply) + "\n")


def _counted(root: Path, want: tuple[int, int]) -> None:
    """Every call counted once by ``asz ls --json``, ``asz usage --json`` and ``/api/usage``; no two conversations
    each continuing the other; ``asz verify --figures`` passes."""
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    rows = json.loads(asz_ok("ls", "--json", "--root", str(root)))
    assert sum(r["llm_calls"] for r in rows) == want[0], rows
    assert sum(v or 0 for r in rows for k, v in r["usage"].items() if k != "cache_write_1h") == want[1]
    said = {r["id"]: r["continues"] for r in rows}
    assert not any(said.get(b) == a for a, b in said.items() if b), said
    days = json.loads(asz_ok("usage", "daily", "--json", "--root", str(root)))
    assert sum(d["calls"] for d in days) == want[0]
    assert sum(v or 0 for d in days for k, v in d["usage"].items() if k != "cache_write_1h") == want[1]
    c = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1")
    for r in rows:
        assert c.get(f"/api/c/{r['id']}/view").status_code == 200  # built: its hours are in /api/usage
    assert sum(h["calls"] for h in c.get("/api/usage").json()["hours"]) == want[0]
    v = asz_in_process("verify", "--figures", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr


@pytest.mark.slow
def test_a_copy_that_grows_turns_the_pair_over_and_every_call_counts_once(corpus_projects: Path, tmp_path: Path):
    original = corpus_projects / PROJECT / f"{A}.jsonl"
    if not original.is_file():
        pytest.skip(f"{original} is absent")
    src = tmp_path / "projects" / "-p"
    src.mkdir(parents=True)
    shutil.copyfile(original, src / f"{A}.jsonl")
    copy = src / f"{B}.jsonl"
    copy.write_text(original.read_text().replace(A, B))
    root = tmp_path / "root"

    def collect(into: Path) -> None:
        asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"), "--root", str(into))

    collect(root)
    first = _truth([original])
    assert first[0] == 4
    _counted(root, first)
    kept = tmp_path / "chain-before"
    shutil.copytree(root / "_conversations" / A, kept)  # the original's chain as the first collect drew it

    _append(copy)
    collect(root)
    grown = _truth([original, copy])
    assert grown[0] == 5
    _counted(root, grown)
    rows = {r["id"]: r for r in json.loads(asz_ok("ls", "--json", "--root", str(root)))}
    assert (rows[B]["continues"], rows[A]["continues"], rows[A]["llm_calls"]) == (A, None, 4)  # the copy goes on

    fresh = tmp_path / "fresh"
    collect(fresh)
    _counted(fresh, grown)

    # a root as an asz before this fix left it: the original's chain still says it continues the copy
    shutil.rmtree(root / "_conversations" / A)
    shutil.copytree(kept, root / "_conversations" / A)
    v = asz_in_process("verify", "--figures", "--root", str(root))
    assert v.returncode == 1 and f"conversation {B} continues {A} and {A} continues {B}" in v.stdout, v.stdout + v.stderr
    asz_ok("parse", A[:8], "--root", str(root))  # what the problem says
    asz_ok("parse", B[:8], "--root", str(root))
    _counted(root, grown)
