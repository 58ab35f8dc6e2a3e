"""A conversation that only repeats another (a resumed copy) is titled ``(continues ID) TITLE``, the whole id, in ``asz ls``,
search results and the page's list alike, never ``(no prompt)`` (docs/view.md, ``summary.title``; render 26: no table of
ids is at hand where a title is made and kept, so no prefix of it).

The corpus holds no resumed session, so the test makes one from real lines, as tests/view/test_resumed_corpus.py
does: the corpus's 326189cf, and a second session file repeating every one of its lines (their uuids kept) under a
new ``sessionId`` and nothing else, as Claude Code's ``--resume`` leaves a copy that was exited at once. A third
session repeats them and adds one typed prompt of its own, which titles it. Expected titles are read from the source:
the first typed prompt is ``<bash-input>uv run ty check</bash-input>``, which Claude Code shows as
``! uv run ty check``.
"""

from __future__ import annotations

import json

from cli_helpers import asz_in_process

PROJECT = "-Users-alex-workspace-claude-code-log-sample"
A = "326189cf-5676-4237-8cde-1ce80aae4a9f"
B = "5e5e5e5e-0000-4000-8000-00000000000b"  # every line of A, nothing else
C = "6e6e6e6e-0000-4000-8000-00000000000c"  # every line of A, then a prompt of its own
OWN = "Now run the whole test suite."


def _run(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def _copy(lines: list[bytes], session: str) -> bytes:
    return b"".join(json.dumps(dict(json.loads(ln), sessionId=session) if b'"sessionId"' in ln else json.loads(ln)).encode()
                    + b"\n" for ln in lines)


def resumed_root(corpus_dir, tmp_path) -> tuple:
    """Write A, B and C (the module doc) under ``tmp_path/projects`` and collect them into ``tmp_path/root`` with the
    real ``asz collect --once``; ``(root, the title B is given)``, that title read from A's source lines."""
    src = corpus_dir / "claude-code" / "projects" / PROJECT / f"{A}.jsonl"
    lines = src.read_bytes().splitlines()
    recs = [json.loads(ln) for ln in lines]
    first = next(r["message"]["content"] for r in recs if r.get("type") == "user" and isinstance(r["message"]["content"], str)
                 and not r.get("isMeta"))
    assert first == "<bash-input>uv run ty check</bash-input>"
    last = [r for r in recs if r.get("uuid")][-1]
    own = dict(next(r for r in recs if r.get("type") == "user" and r["message"]["content"] == "please fix these"),
               uuid="7e7e7e7e-0000-4000-8000-00000000000c", parentUuid=last["uuid"], sessionId=C,
               timestamp="2025-07-14T09:00:00.000Z", message={"role": "user", "content": OWN})
    proj = tmp_path / "projects" / PROJECT
    proj.mkdir(parents=True)
    (proj / f"{A}.jsonl").write_bytes(src.read_bytes())
    (proj / f"{B}.jsonl").write_bytes(_copy(lines, B))
    (proj / f"{C}.jsonl").write_bytes(_copy(lines, C) + json.dumps(own).encode() + b"\n")
    root = tmp_path / "root"
    _run("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"), "--root", str(root))
    return root, f"(continues {A}) ! uv run ty check"


def test_a_resumed_copy_is_titled_by_what_it_continues(corpus_dir, tmp_path, serve):
    root, want = resumed_root(corpus_dir, tmp_path)

    said = _run("conversation", B, "--root", str(root)).splitlines()
    assert said[0] == f"conversation {B}: {want}"
    assert any(ln.startswith(f"continues {A} ") for ln in said)  # what asz already said of it
    doc = json.loads(_run("conversation", B, "--root", str(root), "--json"))
    assert doc["summary"]["continues"] == A and doc["summary"]["talks"] == 0 and doc["summary"]["title"] == want
    rows = {r["id"]: r["title"] for r in json.loads(_run("ls", "--json", "--root", str(root)))}
    assert rows == {A: "! uv run ty check", B: want, C: OWN}  # A keeps its own; C is named by its own prompt
    table = _run("ls", "--root", str(root))
    assert "(no prompt)" not in table
    # the table's title column shows the title, the id as short as the root's ids allow (no other id starts 326189cf)
    assert [ln for ln in table.splitlines() if "5e5e5e5e  (continues 326189cf) ! uv run ty" in ln], table
    assert A not in table
    hits = json.loads(_run("search", "please fix these", "--json", "--root", str(root)))
    assert {h["conversation"]: h["title"] for h in hits} == rows
    listed = serve(root).get("/api/conversations").json()["conversations"]
    assert {r["id"]: r["title"] for r in listed} == rows
