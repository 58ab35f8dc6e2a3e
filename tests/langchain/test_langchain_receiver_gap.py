"""The time no receiver listened on a root is said: by the receiver that starts after it, by ``asz ls`` and by
``asz verify`` (trial 28c F3: traces sent while ``asz server`` restarted were lost whole and nothing said so).

Real parts: two real ``asz ingest langsmith`` receivers one after the other on a root, on loopback, the first given
the corpus's recorded tracer batch (a LangGraph react agent), landed by the real ``asz collect --once``. The first
receiver is stopped; its last ``listening.json`` is moved a minute back, as a minute of downtime leaves it.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest

from asz_adapters_langchain.listening import STALE


def test_a_receiver_says_when_nothing_listened(tmp_path, receiver_factory, run_asz, tracer_batch):
    root = tmp_path / "root"
    first = receiver_factory(root)
    status, _ = first.send("POST", "/runs/batch", json.dumps(tracer_batch).encode(), {"Content-Type": "application/json"})
    assert status == 202
    beat = root / "_ingest" / "langsmith" / "listening.json"
    assert json.loads(beat.read_text())["pid"] == first.proc.pid
    first.stop()
    time.sleep(0.5)  # its last beat is written
    last = json.loads(beat.read_text())
    alive = datetime.now(timezone.utc) - timedelta(seconds=60)
    beat.write_text(json.dumps({**last, "alive": alive.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}))
    assert 60 > STALE

    second = receiver_factory(root)
    time.sleep(0.5)
    (gap,) = [json.loads(x) for x in (root / "_ingest" / "langsmith" / "gaps.jsonl").read_text().splitlines()]
    assert gap["from"] == alive.strftime("%Y-%m-%dT%H:%M:%S.%fZ") and 59 <= gap["seconds"] < 120
    second.proc.terminate()
    err = second.proc.communicate(timeout=20)[1].decode()
    said = (f"no LangSmith receiver listened on this root from after the last heartbeat at {gap['from']} (the one "
            f"before wrote it every 5 s, so it stopped within 5 s after) to {gap['to']}")  # trial 32a F10
    assert f"asz ingest langsmith: note: {said}" in err, err

    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    assert said in run_asz("ls", "--root", str(root)).stdout
    v = run_asz("verify", "--root", str(root))
    assert said in v.stdout + v.stderr


def test_a_first_receiver_says_nothing(tmp_path, receiver_factory):
    root = tmp_path / "root"
    r = receiver_factory(root)
    r.proc.terminate()
    assert "note:" not in r.proc.communicate(timeout=20)[1].decode()
    assert not (root / "_ingest" / "langsmith" / "gaps.jsonl").exists()



@pytest.mark.parametrize("pid, alive, gap", [
    (1, 5, False),  # alive a number: no time to read a gap from
    (1 << 40, "minute ago", True),  # a number no pid can be (os.kill: OverflowError): no process, a gap
])
def test_a_damaged_listening_file_stops_no_receiver(tmp_path, receiver_factory, pid, alive, gap):
    ingest = tmp_path / "root" / "_ingest" / "langsmith"
    ingest.mkdir(parents=True)
    if alive == "minute ago":
        alive = (datetime.now(timezone.utc) - timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    (ingest / "listening.json").write_text(json.dumps({"pid": pid, "alive": alive}))
    r = receiver_factory(tmp_path / "root")  # raises when the receiver exits before it answers
    assert json.loads((ingest / "listening.json").read_text())["pid"] == r.proc.pid
    assert (ingest / "gaps.jsonl").exists() is gap
