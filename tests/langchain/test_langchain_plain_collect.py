"""A plain ``asz collect`` (the default adapter list, no ``--adapter``) lands what ``asz ingest langsmith`` staged in the
root's inbox, and says so (trial 40a F2: two requests sat in ``data/_ingest/langsmith/inbox`` while the plain pass
landed none and said nothing; only ``--adapter langsmith-ingest`` landed them). ``Adapter.has_staged`` decides it:
docs/adapters/langchain.md, Collecting. The staged requests are the corpus's recorded upload bodies; the expected
sessions are read from those bodies (:func:`cli_helpers.expected_langsmith`). HOME is a temporary folder."""

from __future__ import annotations

import json
import time
from pathlib import Path

from cli_helpers import asz_in_process, expected_langsmith, stage_upload_bodies

import pytest

NOTE = "note: langsmith-ingest has {n} request file(s) staged in {inbox}: collected beside the default adapter list"


def _run(home: Path, cwd: Path, *args: str):
    return asz_in_process(*args, cwd=cwd, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": None, "KIRO_HOME": None,
                                               "ASZ_LANGSMITH_ROOT": None, "USERPROFILE": None})


def _landed(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))


def test_plain_collect_lands_the_staged_requests_and_says_so(tmp_path, corpus_dir):
    root, home = tmp_path / "data", tmp_path / "home"
    if not stage_upload_bodies(corpus_dir, root):
        pytest.skip(f"no LangSmith upload bodies under {corpus_dir / 'langchain'}")
    (home / ".claude" / "projects").mkdir(parents=True)  # Claude Code's default folder, empty: a new machine
    inbox = root / "_ingest" / "langsmith" / "inbox"
    lines = (inbox / "001.jsonl").read_text().splitlines()
    want = expected_langsmith([json.loads(x)["run"] for x in lines if json.loads(x)["op"] == "post"])
    assert want

    left = _run(home, tmp_path, "collect", "--once", "--root", str(root), "--source", str(home / ".claude" / "projects"))
    assert (f"note: langsmith-ingest has 1 request file(s) staged in {inbox}, not collected by this pass: --source reads "
            f"claude-code-local's folders only; collect them with asz collect --adapter langsmith-ingest --root {root}"
            in left.stderr), left.stderr
    assert (inbox / "001.jsonl").is_file() and _landed(root) == []

    p = _run(home, tmp_path, "collect", "--once", "--root", str(root))
    assert p.returncode == 0 and "errors=0" in p.stdout, (p.stdout, p.stderr)
    assert p.stderr.count(NOTE.format(n=1, inbox=inbox)) == 1, p.stderr
    assert f"sessions={len(want)} " in p.stdout, p.stdout
    assert _landed(root) == sorted(want)
    assert list(inbox.iterdir()) == []  # materialised, moved to done/
    rows = json.loads(_run(home, tmp_path, "ls", "--json", "--root", str(root)).stdout)
    assert len(rows) == len(want) and all(r["state"] == "verified" for r in rows), rows

    again = _run(home, tmp_path, "collect", "--once", "--root", str(root))  # nothing staged, no receiver: not read
    assert again.returncode == 0 and "langsmith-ingest" not in again.stderr and "sessions=0 " in again.stdout, again

    # a real receiver listening on the root, nothing staged: the note says that, not "0 request file(s)" (trial 40d F4)
    from langchain_helpers import Receiver

    receiver = Receiver(root, tmp_path)
    try:
        heard = _run(home, tmp_path, "collect", "--once", "--root", str(root))
    finally:
        receiver.stop()
    ingest = root / "_ingest" / "langsmith"
    assert heard.returncode == 0 and " landed=0 " in heard.stdout, (heard.stdout, heard.stderr)
    assert [ln for ln in heard.stderr.splitlines() if "langsmith-ingest" in ln] == [
        f"note: langsmith-ingest has no request file staged in {inbox}, but a receiver is listening on {ingest} now "
        "(what it stages next is landed by this pass or the next): collected beside the default adapter list "
        "(claude-code-local), as every installed adapter whose sessions are at its default folder or whose receiver "
        "stages requests in the storage root is; to choose, asz collect --adapter NAME, or list the adapters in "
        "asz.yaml"], heard.stderr


def test_has_staged_answers_from_the_files(tmp_path):
    """What makes a plain pass read the inbox: a request file (not a receiver's ``.`` temporary one), a receiver
    listening on the root now, arrivals waiting in ``state.json``; nothing else (an empty root stays unread)."""
    from asz_adapters_langchain.plugin import LangsmithIngest

    a, root = LangsmithIngest(), tmp_path / "data"
    ingest = root / "_ingest" / "langsmith"
    assert a.has_staged(root) is False  # no root at all
    (ingest / "inbox").mkdir(parents=True)
    (ingest / "inbox" / ".tmp-001.jsonl").write_text("{}\n")
    assert a.has_staged(root) is False
    (ingest / "inbox" / "001.jsonl").write_text("{}\n")
    assert a.has_staged(root) is True and a.has_staged(ingest) is True
    (ingest / "inbox" / "001.jsonl").unlink()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    (ingest / "listening.json").write_text(json.dumps({"pid": 2**31 - 1, "since": stamp, "alive": stamp}))
    assert a.has_staged(root) is True  # a receiver beat less than 15 s ago
    old = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(time.time() - 60))
    (ingest / "listening.json").write_text(json.dumps({"pid": 2**31 - 1, "since": old, "alive": old}))
    assert a.has_staged(root) is False  # it stopped a minute ago
    (ingest / "state.json").write_text(json.dumps({"v": 1, "waiting": [], "journal": None}))
    assert a.has_staged(root) is False
    (ingest / "state.json").write_text(json.dumps({"v": 1, "waiting": [{"op": "post", "id": "r1", "tries": 1}],
                                                   "journal": None}))
    assert a.has_staged(root) is True
    assert a.staged_reason(root) == f"1 arrival(s) wait in {ingest / 'state.json'} for their parent run"
    (ingest / "state.json").write_text("{not json")
    assert a.has_staged(root) is False  # never raises: the pass that reads it says what is wrong


@pytest.mark.slow  # a real asz server, waiting for its passes: about 15 s on the shared machine
def test_a_server_started_before_anything_was_staged_lands_a_request_staged_later(tmp_path, corpus_dir):
    """``asz server`` asks ``has_staged`` at each pass (``server_pass.staged_now``): started on an empty root with no
    receiver, it lands the corpus's upload bodies staged after its first pass in a later one (before, it decided
    once at start and never read the inbox). Real server on loopback, temp HOME, no asz.yaml."""
    import os
    import subprocess
    import sys
    import urllib.request

    import forked

    from langchain_helpers import free_port

    root, home, stage = tmp_path / "data", tmp_path / "home", tmp_path / "stage"
    if not stage_upload_bodies(corpus_dir, stage):
        pytest.skip(f"no LangSmith upload bodies under {corpus_dir / 'langchain'}")
    staged = stage / "_ingest" / "langsmith" / "inbox" / "001.jsonl"
    want = expected_langsmith([json.loads(x)["run"] for x in staged.read_text().splitlines()
                               if json.loads(x)["op"] == "post"])
    (home / ".claude" / "projects").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "KIRO_HOME", "ASZ_LANGSMITH_ROOT",
                                                            "ASZ_DISABLE_ADAPTERS")} | {"HOME": str(home)}
    port, log = free_port(), tmp_path / "server.log"
    proc = forked.Popen([sys.executable, "-m", "asz_core.cli.main", "server", "--root", str(root), "--no-token",
                             "--port", str(port), "--interval", "1s"], cwd=tmp_path, env=env, stdout=open(log, "wb"),
                            stderr=subprocess.STDOUT)

    def get(path: str):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                return json.loads(r.read())
        except OSError:
            return None

    def until(check, what: str):
        deadline = time.monotonic() + 60
        while not (got := check()):
            assert time.monotonic() < deadline, f"{what} not seen within 60 s\n{log.read_text()}"
            time.sleep(0.2)
        return got

    try:
        until(lambda: (get("/api/status") or {}).get("last_refresh"), "the first pass")
        assert get("/api/conversations")["conversations"] == []
        inbox = root / "_ingest" / "langsmith" / "inbox"
        inbox.mkdir(parents=True)
        os.rename(staged, inbox / "001.jsonl")  # whole at once, as the receiver stages
        rows = until(lambda: len((get("/api/conversations") or {}).get("conversations", [])) == len(want)
                     and get("/api/conversations")["conversations"], "the staged requests' conversations")
        assert sorted(r["id"] for r in rows) == sorted(want), rows
        assert list(inbox.iterdir()) == []  # materialised, moved to done/
    finally:
        proc.terminate()
        proc.wait(timeout=60)
