"""A live session resumed many times, growing by one line a pass: the pass's cost against a session with no copies.

When a session that shares records with others gains records of its own, the other sessions of its cluster in the
root's id table are looked at again (``shared_ids._cluster_names``, commit f23ae7d6: a pair may turn over). This
bench measures what that costs on a large cluster, in one root and one run:

- *live*: one real Claude Code transcript (default ``-experiments-worktrees/ef958aa1…`` of
  ``../shared/corpus/claude-code/projects``, 180 lines) as it is;
- N *resumed copies* of it, as ``claude --resume`` writes them: a new session repeating the live one's first ``k``
  lines with their uuids, message and request ids (``sessionId`` changed), ``k`` spread over the transcript, then a
  prompt and a reply of its own (new uuids, a new message id, a day after the live one's last line);
- *alone*: the same transcript with every UUID and provider id changed, so it shares no id with any session.

After one ``asz collect --once`` (not timed) and one untimed growth of each, each timed round appends one line (a
new prompt, a new uuid, its parent the file's last record, a later time) to *alone* and to *live*, alternating which
goes first, and runs ``asz collect --once --jobs J`` after each append (a child process: wall seconds, and CPU of it
and its children from ``getrusage(RUSAGE_CHILDREN)``). It prints each pass and the medians, and live ÷ alone::

    python bench/resume_cluster.py [--copies 50 200] [--rounds 3] [--jobs 1] [--source FILE] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

from _common import work_over_source  # bench/_common.py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROJECTS = REPO.parent / "shared/corpus/claude-code/projects"
SOURCE = PROJECTS / "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PROVIDER_ID = re.compile(r"\b(msg|req|toolu)_[0-9A-Za-z]+")
PROJECT = "-bench-resume-cluster"


def _u(*parts: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "asz-bench-resume/" + "/".join(map(str, parts))))


def _later(ts: str, seconds: float) -> str:
    import datetime as dt

    t = dt.datetime.fromisoformat(ts.replace("Z", "+00:00")) + dt.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _last(recs: list[dict], key: str) -> str:
    return next(r[key] for r in reversed(recs) if r.get(key))


def _own(recs: list[dict], head: list[dict], session: str, tag: str, at: str) -> list[dict]:
    """A prompt and a reply (shaped as ``recs``' first ones) after ``head``'s last record with a uuid: new uuids, a new
    message and request id, at ``at``."""
    user = json.loads(json.dumps(next(r for r in recs if r.get("type") == "user" and isinstance(r["message"].get("content"), str))))
    reply = json.loads(json.dumps(next(r for r in recs if r.get("type") == "assistant")))
    user.update(uuid=_u(tag, "prompt"), parentUuid=_last(head, "uuid"), timestamp=at, sessionId=session,
                message={"role": "user", "content": f"Go on ({tag})."})
    reply.update(uuid=_u(tag, "reply"), parentUuid=user["uuid"], timestamp=_later(at, 3), sessionId=session,
                 requestId=f"req_{tag.replace('-', '')}")
    reply["message"]["id"] = f"msg_{tag.replace('-', '')}"
    return [user, reply]


def generate(src: Path, source: Path, copies: int) -> tuple[Path, Path]:
    """The live session, its ``copies`` resumed copies and the session alone under ``src/PROJECT``: (live, alone)."""
    text = source.read_text(encoding="utf-8")
    old = source.stem
    proj = src / PROJECT
    proj.mkdir(parents=True, exist_ok=True)
    live = proj / f"{old}.jsonl"
    live.write_text(text, encoding="utf-8")
    recs = [json.loads(x) for x in text.splitlines()]
    day_after = _later(_last(recs, "timestamp"), 86400)
    with_ids = [i for i, r in enumerate(recs) if r.get("uuid")]
    for i in range(copies):
        name = _u("copy", i)
        k = with_ids[max(1, len(with_ids) * (i + 1) // (copies + 1)) - 1] + 1  # through a record with a uuid
        head = [dict(r, sessionId=name) if "sessionId" in r else r for r in recs[:k]]
        body = head + _own(recs, head, name, f"c{i}", _later(day_after, 60 * i))
        (proj / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in body), encoding="utf-8")
    new = _u("alone")
    body = _UUID.sub(lambda m: new if m.group(0) == old else _u("alone", m.group(0)), text)
    body = _PROVIDER_ID.sub(lambda m: f"{m.group(0)}a", body)
    alone = proj / f"{new}.jsonl"
    alone.write_text(body, encoding="utf-8")
    return live, alone


def grow(path: Path, n: int) -> None:
    """One line more in ``path``: a prompt whose parent is its last record, a minute after its last time."""
    recs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    user = json.loads(json.dumps(next(r for r in recs if r.get("type") == "user" and isinstance(r["message"].get("content"), str))))
    user.update(uuid=_u(path.stem, "grow", n), parentUuid=_last(recs, "uuid"), timestamp=_later(_last(recs, "timestamp"), 60),
                sessionId=path.stem, message={"role": "user", "content": f"And one more thing ({n})."})
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(user) + "\n")


def collect(src: Path, root: Path, jobs: int) -> tuple[float, float]:
    """``asz collect --once`` of ``src`` into ``root`` in a child process: (wall s, CPU s of it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "claude-code-local",
                        "--jobs", str(jobs), "--source", str(src), "--root", str(root)], capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"collect exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_size(work: Path, source: Path, copies: int, rounds: int, jobs: int) -> tuple[float, float]:
    """Print the passes of one cluster size; return the medians' ratios (wall, CPU) live ÷ alone."""
    src, root = work / f"src-{copies}", work / f"root-{copies}"
    for d in (src, root):
        shutil.rmtree(d, ignore_errors=True)
    live, alone = generate(src, source, copies)
    wall, cpu = collect(src, root, jobs)
    print(f"{copies} copies: first collect {wall:.1f} s wall, {cpu:.1f} s CPU ({copies + 2} sessions)", flush=True)
    grow(alone, 0)
    collect(src, root, jobs)
    grow(live, 0)
    collect(src, root, jobs)  # the first look again after the copies landed: not timed
    got: dict[str, list[tuple[float, float]]] = {"alone": [], "live": []}
    for r in range(1, rounds + 1):
        for what in (("alone", "live") if r % 2 else ("live", "alone")):
            grow(alone if what == "alone" else live, r)
            got[what].append(collect(src, root, jobs))
            print(f"  round {r} {what:>5}: {got[what][-1][0]:6.2f} s wall {got[what][-1][1]:6.2f} s CPU", flush=True)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in got.items()}
    ratio = (med["live"][0] / med["alone"][0], med["live"][1] / med["alone"][1])
    print(f"  median: alone {med['alone'][0]:.2f} s wall {med['alone'][1]:.2f} s CPU; live {med['live'][0]:.2f} s wall "
          f"{med['live'][1]:.2f} s CPU; live / alone x{ratio[0]:.2f} wall, x{ratio[1]:.2f} CPU", flush=True)
    return ratio


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--source", type=Path, default=SOURCE)
    ap.add_argument("--work", type=Path, default=None, help="keep the sources and roots here (removed otherwise)")
    a = ap.parse_args(argv)
    work = work_over_source(a, "asz-resume-cluster-")
    if work is None:
        return 0
    print(f"source {a.source.name}, {len(a.source.read_bytes().splitlines())} lines; collect --jobs {a.jobs}; "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    try:
        for n in a.copies:
            one_size(work, a.source, n, a.rounds, a.jobs)
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
