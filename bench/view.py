"""Benchmark: build the asz.view document of a large conversation (issue 6).

Usage: ``python bench/view.py [--talks 357] [--calls 15] [--dir DIR]``

Generates a Claude Code session of ``--talks`` talks, each a typed prompt and
``--calls`` model calls that say something and run a tool (so 1 + 3 × calls
steps a talk: 357 talks × 15 calls = 16,422 steps, past the 16,121 steps and
357 talks of the largest conversation the original reports, built in 0.7 s in
Go). It collects and parses the session with the real adapter (timed apart),
then times :func:`asz_core.view.build_view` and, in the same run, ``orjson.dumps``
of the finished document, and prints both and their ratio. Target (issue 22):
build <= 0.3 s on one core; the CPU time is printed too (a busy machine stretches the wall time). Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asz_core.view import build_view  # noqa: E402

TARGET_S = 0.3
SESSION = "0e5c1a9d-2b3f-4c8e-9a7d-1f2e3d4c5b6a"


def generate(projects: Path, talks: int, calls: int) -> int:
    """Write one session's transcript under ``projects``; returns its line count."""
    proj = projects / "-home-dev-bench"
    proj.mkdir(parents=True)
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/bench", "sessionId": SESSION, "version": "2.1.114", "gitBranch": "main"}
    t0 = 1_786_000_000_000
    lines, parent, ms = [], None, t0
    for t in range(talks):
        prompt = f"p{t:04d}-0000-4000-8000-000000000000"
        ms += 60_000
        uid = f"u{t:04d}-0000-4000-8000-000000000000"
        lines.append({**base, "parentUuid": parent, "promptId": prompt, "type": "user", "uuid": uid,
                      "timestamp": _ts(ms), "message": {"role": "user", "content": f"Task {t}: look at module {t % 40} and fix what fails."}})
        parent = uid
        for c in range(calls):
            ms += 900
            mid, tid = f"msg_{t:04d}_{c:02d}", f"toolu_{t:04d}_{c:02d}"
            a1, a2, r = f"a{t:04d}{c:02d}1-0000-4000-8000-000000000000", f"a{t:04d}{c:02d}2-0000-4000-8000-000000000000", f"r{t:04d}{c:02d}-0000-4000-8000-000000000000"
            usage = {"input_tokens": 12, "cache_read_input_tokens": 20_000 + c, "output_tokens": 80}
            lines.append({**base, "parentUuid": parent, "promptId": prompt, "type": "assistant", "uuid": a1, "timestamp": _ts(ms),
                          "message": {"id": mid, "role": "assistant", "model": "claude-opus-5", "content": [{"type": "text", "text": f"Step {c}: checking the build output for module {t % 40}."}], "stop_reason": None, "usage": usage}})
            lines.append({**base, "parentUuid": a1, "promptId": prompt, "type": "assistant", "uuid": a2, "timestamp": _ts(ms + 100),
                          "message": {"id": mid, "role": "assistant", "model": "claude-opus-5", "content": [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": f"make test MODULE={t % 40} STEP={c}", "description": "run the tests"}}], "stop_reason": "tool_use", "usage": usage}})
            lines.append({**base, "parentUuid": a2, "promptId": prompt, "type": "user", "uuid": r, "timestamp": _ts(ms + 700),
                          "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "ok " * 40}]},
                          "toolUseResult": {"stdout": "ok " * 40, "stderr": "", "interrupted": False, "isImage": False}})
            parent = r
    (proj / f"{SESSION}.jsonl").write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
    return len(lines)


def _ts(ms: int) -> str:
    s, m = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + f".{m:03d}Z"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--talks", type=int, default=357)
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="builds to time; the fastest is kept")
    args = ap.parse_args(argv)
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.flow.parse import parse_root
    from asz_core.testing import collect_once

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        src, root = Path(d) / "projects", Path(d) / "root"
        n = generate(src, args.talks, args.calls)
        t0 = time.perf_counter()
        collect_once(root, ClaudeCodeLocal(), src)
        t1 = time.perf_counter()
        parse_root(root)
        t2 = time.perf_counter()
        best, doc, cpu = None, None, float("inf")
        for _ in range(args.repeat):
            doc = None  # the previous build's document is freed here, outside the timed build
            t, c = time.perf_counter(), time.process_time()
            doc = build_view(root, SESSION)
            took = time.perf_counter() - t
            cpu = min(cpu, time.process_time() - c)
            best = took if best is None or took < best else best
        t = time.perf_counter()
        data = orjson.dumps(doc)
        dumps = time.perf_counter() - t
    s = doc["summary"]
    print(f"session  : {n} lines; collect {t1 - t0:.2f}s, parse {t2 - t1:.2f}s")
    print(f"document : {s['talks']} talks, {s['steps']} steps, {len(data) / 1e6:.1f} MB, state {s['state']}")
    print(f"build    : {best:.3f}s wall, {cpu:.3f}s CPU (fastest of {args.repeat}; target <= {TARGET_S} s; "
          "the original: 0.7 s in Go for 357 talks / 16,121 steps)")
    print(f"load     : {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min; the machine is shared)")
    print(f"dumps    : {dumps:.3f}s (orjson.dumps of the finished document)")
    print(f"ratio    : {best / dumps:.1f} (build / dumps)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
