"""Benchmark one ``asz collect --once`` pass (land + parse) against a bare read-parse-hash-write loop.

The corpus (issue 22) is by default *real-shaped*: copies of the shared Claude
Code corpus under new session, message, request and tool ids, to the size asked
(``bench/realcorpus.py``; 2.6 KB a line on average). ``--corpus huge`` generates
a Claude-Code-shaped corpus of lines from about 100 B to 20 MB instead (one 20 MB
line must cost no more than its bytes). Then it runs, each in its own process so
each has its own peak RSS:

* the bare loop: read the same files line by line, ``orjson.loads`` each line,
  SHA-256 it and write it out;
  (the same number of processes as collect, the files shared between them);
* one collect pass of the ``claude-code-local`` adapter into a fresh root,
  landing and parsing sessions in one worker process per CPU as ``asz collect``
  does (``--jobs 1``: in its own process only; ``--no-parse``: landing only);
* the same pass again over that root, with nothing new (target: < 2% of the full pass), timed as a whole
  command and as the pass its summary line times (without Python's start-up and imports); ``--repeat`` times,
  fastest kept, and with ``--before`` the older checkout's command over the same root, alternating;
* the first ``asz search`` over that root, which builds the search index (no part of a collect pass):
  the ratio is also printed with its time added.

The packages' bytecode is compiled first (:func:`compile_packages`), as an
installed package has it. Prints MB/s of both (source megabytes, 10^6 bytes), the ratio collect MB/s /
bare MB/s (target >= 0.5), the peak RSS of the largest process (the target:
2 x largest line + 100 MB) and the memory of collect's processes together (the
sum of their proportional set sizes, sampled from /proc: pages the forked
workers share with the command count once), and the largest line. Usage::

    python bench/collect.py --size-mb 1000 [--corpus real|huge] [--source DIR] [--no-parse] [--dir DIR] [--keep]
                            [--max-delta-bytes N] [--jobs N] [--adapter NAME] [--adapter-file FILE] [--repeat N]
                            [--before DIR]

``--before DIR`` also runs the collect pass with an older checkout's code (DIR holds its packages, e.g.
``git archive COMMIT | tar -x -C DIR``; run with ``PYTHONPATH=DIR``), alternating with this code in the same minutes
(``--repeat`` times each, fastest kept), into a root of its own, and prints its wall and CPU seconds and the ratios
after / before.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import orjson

from _common import compile_packages  # bench/_common.py

MB = 1_000_000
_WORDS = ("the", "session", "data", "collector", "lands", "records", "cursor", "tail", "digest", "window", "budget",
          "stream", "agent", "tool", "result", "file", "line", "bytes", "written", "once")


_BLOCK: list[str] = []


def _text(rng: random.Random, n: int) -> str:
    """About ``n`` characters of word-like text with newlines, sliced from one pre-made block."""
    if not _BLOCK:
        r = random.Random(1)
        words = []
        for _ in range(400_000):
            words.append(r.choice(_WORDS))
            if r.random() < 0.08:
                words.append("\n")
        _BLOCK.append(" ".join(words))
    block = _BLOCK[0]
    out = []
    while n > 0:
        start = rng.randrange(0, len(block) // 2)
        piece = block[start : start + min(n, len(block) - start)]
        out.append(piece)
        n -= len(piece)
    return "".join(out)


def _line_size(rng: random.Random, budget_left: int) -> int:
    r = rng.random()
    if r < 0.70:
        n = rng.randint(100, 3_000)
    elif r < 0.95:
        n = rng.randint(3_000, 60_000)
    elif r < 0.995:
        n = rng.randint(60_000, 1_500_000)
    else:
        n = rng.randint(1_500_000, 6_000_000)
    return max(100, min(n, budget_left))


class _Session:
    def __init__(self, rng: random.Random, sid: str, cwd: str):
        self.rng, self.sid, self.cwd = rng, sid, cwd
        self.parent = None
        self.prompt = str(uuid.UUID(int=rng.getrandbits(128)))
        self.n = 0

    def record(self, size: int, agent: str = "") -> bytes:
        rng = self.rng
        self.n += 1
        u = str(uuid.UUID(int=rng.getrandbits(128)))
        base = {"parentUuid": self.parent, "isSidechain": bool(agent), "userType": "external", "cwd": self.cwd,
                "sessionId": self.sid, "version": "2.1.250", "gitBranch": "main"}
        if agent:
            base["agentId"] = agent
        ts = f"2026-09-01T12:{(self.n // 60) % 60:02d}:{self.n % 60:02d}.{self.n % 1000:03d}Z"
        kind = rng.random()
        if kind < 0.3:
            rec = {**base, "type": "user", "message": {"role": "user", "content": _text(rng, size - 420)},
                   "uuid": u, "timestamp": ts, "promptId": self.prompt, "origin": {"kind": "human"}}
        elif kind < 0.65:
            tid = "toolu_" + "%024x" % rng.getrandbits(96)
            content = [{"type": "text", "text": _text(rng, max(10, (size - 700) // 2))},
                       {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": _text(rng, max(10, (size - 700) // 2))}}]
            rec = {**base, "message": {"id": "msg_" + "%024x" % rng.getrandbits(96), "type": "message", "role": "assistant",
                                       "model": "claude-opus-4-5", "content": content, "stop_reason": "tool_use",
                                       "usage": {"input_tokens": 3, "output_tokens": 120, "cache_read_input_tokens": 20000,
                                                 "cache_creation_input_tokens": 500}},
                   "requestId": "req_" + "%024x" % rng.getrandbits(96), "type": "assistant", "uuid": u, "timestamp": ts}
        else:
            tid = "toolu_" + "%024x" % rng.getrandbits(96)
            rec = {**base, "type": "user",
                   "message": {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result", "content": _text(rng, size - 520),
                                                            "is_error": False}]},
                   "uuid": u, "timestamp": ts, "toolUseResult": {"stdout": "ok", "stderr": "", "interrupted": False, "isImage": False},
                   "sourceToolAssistantUUID": self.parent or u}
        self.parent = u
        return orjson.dumps(rec)


def generate(out: Path, size_mb: float, seed: int = 7) -> dict:
    """Write a corpus of about ``size_mb`` MB under ``out/projects``; returns counts and the largest line (bytes)."""
    rng = random.Random(seed)
    target = int(size_mb * MB)
    projects = out / "projects"
    shutil.rmtree(projects, ignore_errors=True)  # files are appended to: a kept --dir starts again from nothing
    written = lines = sessions = 0
    largest = 0
    # The largest line: 20 MB when the corpus can hold it, else a tenth of the corpus.
    giant = min(20 * MB, max(100_000, target // 10))
    while written < target:
        sessions += 1
        cwd = f"/Users/bench/project-{sessions % 7}"
        slug = cwd.replace("/", "-").replace(".", "-")
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        sess = _Session(rng, sid, cwd)
        d = projects / slug
        d.mkdir(parents=True, exist_ok=True)
        session_bytes = min(target - written, rng.randint(2 * MB, 20 * MB))
        streams = [(d / f"{sid}.jsonl", "")]
        for _ in range(rng.randint(0, 3)):
            agent = "a" + "%016x" % rng.getrandbits(64)
            sub = d / sid / "subagents"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"agent-{agent}.meta.json").write_bytes(orjson.dumps({"agentType": "general-purpose", "description": "bench"}))
            streams.append((sub / f"agent-{agent}.jsonl", agent))
        for path, agent in streams:
            share = session_bytes // len(streams)
            done = 0
            with open(path, "ab") as f:
                while done < share:
                    if giant and written + done > target // 2:
                        n, giant = giant, 0
                    else:
                        n = _line_size(rng, max(100, share - done))
                    data = sess.record(n, agent) + b"\n"
                    f.write(data)
                    done += len(data)
                    lines += 1
                    largest = max(largest, len(data) - 1)
            written += done
    return {"bytes": written, "lines": lines, "sessions": sessions, "largest_line": largest}


def bare(projects: Path, out: Path, procs: int = 1) -> None:
    """The bare loop: every .jsonl line read, parsed with orjson, hashed with SHA-256 and written out.

    ``procs`` processes share the files (file i goes to process i mod procs),
    so the loop may use as many processes as collect does.
    """
    out.mkdir(parents=True, exist_ok=True)
    paths = sorted(projects.rglob("*.jsonl"))
    children = []
    for k in range(1, procs):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            _bare_files(paths[k::procs], out, k)
            os._exit(0)
        children.append(pid)
    _bare_files(paths[0::procs], out, 0)
    for pid in children:
        os.waitpid(pid, 0)


def _bare_files(paths: list[Path], out: Path, k: int) -> None:
    n = 0
    for path in paths:
        n += 1
        with open(path, "rb") as f, open(out / f"{k:02d}-{n:06d}.out", "wb") as w:
            for line in f:
                if not line.endswith(b"\n"):
                    break
                body = line[:-1]
                orjson.loads(body)
                w.write(hashlib.sha256(body).hexdigest().encode() + b" ")
                w.write(line)


def _tree_pss(pid: int) -> int:
    """Memory of ``pid`` and its child processes now, from /proc: the sum of their proportional set sizes
    (``Pss``: a page that forked processes share counts once in all), in bytes; 0 where there is no /proc."""
    total = 0
    pids = [pid]
    try:
        pids += [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return 0
    for p in pids:
        try:
            for ln in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if ln.startswith("Pss:"):
                    total += int(ln.split()[1]) * 1024
                    break
        except OSError:
            pass
    return total


def _run(args: list[str], env: dict | None = None, cwd: Path | None = None) -> tuple[float, int, subprocess.CompletedProcess, int]:
    """Run a child; returns (wall seconds, peak RSS bytes of its largest process, completed process,
    peak memory in bytes of it and its worker processes together (:func:`_tree_pss`), sampled every 20 ms)."""
    import threading

    t = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_pss(p.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(p.pid, 0)
    took = time.perf_counter() - t
    done.set()
    sampler.join()
    out, err = p.stdout.read(), p.stderr.read()
    p.returncode = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)  # the largest of the process and its reaped workers
    done_ = subprocess.CompletedProcess(args, p.returncode, out.decode(), err.decode())
    done_.cpu = usage.ru_utime + usage.ru_stime  # type: ignore[attr-defined]  # its CPU seconds and its reaped workers'
    return took, rss, done_, peak[0]


def _pass_seconds(stdout: str) -> float:
    """The seconds the last summary line of ``asz collect`` ends with (``… rounds=N (12.345s)``); 0.0 when none."""
    import re

    found = re.findall(r"\((\d+(?:\.\d+)?)s\)\s*$", stdout.strip(), re.M)
    return float(found[-1]) if found else 0.0


def _before_pass(args: list[str], env: dict, work: Path, before_dir: Path, best: list[float]) -> None:
    """One collect pass of the older checkout at ``before_dir`` into ``work/data-before``; keeps the fastest wall and
    CPU seconds in ``best``. Exits when that pass fails."""
    root = work / "data-before"
    shutil.rmtree(root, ignore_errors=True)
    bargs = [str(root) if x == str(work / "data") else x for x in args]
    # Run from DIR: ``python -m`` puts the working directory first on sys.path, before PYTHONPATH, so run from this
    # checkout it would import this checkout's packages.
    t1, _, bp, _ = _run(bargs, dict(env, PYTHONPATH=str(before_dir)), cwd=before_dir)
    if bp.returncode:
        print(bp.stderr[-2000:], file=sys.stderr)
        raise SystemExit(1)
    best[0], best[1] = min(best[0], t1), min(best[1], bp.cpu)
    shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Generate, run both loops, print the figures. Exit 1 when the collect pass fails."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=1024.0, help="corpus size in MB (10^6 bytes); default 1024")
    ap.add_argument("--dir", type=Path, default=None, help="work directory (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--max-delta-bytes", type=int, default=None, help="cut budget passed to asz collect")
    ap.add_argument("--adapter", default="claude-code-local", help="adapter to collect with (default claude-code-local)")
    ap.add_argument("--adapter-file", type=Path, default=None, help="load the adapter from a Python file (e.g. tests/collect/mini_adapter.py)")
    ap.add_argument("--jobs", type=int, default=0, help="asz collect --jobs (default 0: one process per CPU; 1: one process)")
    ap.add_argument("--repeat", type=int, default=1, help="run each loop N times and keep the fastest (a busy machine is noisy)")
    ap.add_argument("--corpus", choices=("real", "huge"), default="real",
                    help="real (default): copies of ../shared/corpus/claude-code/projects under new ids (bench/realcorpus.py); "
                         "huge: generated lines of 100 B to 20 MB")
    ap.add_argument("--source", type=Path, default=None, help="the real folder to copy (default ../shared/corpus/claude-code/projects)")
    ap.add_argument("--no-parse", action="store_true", help="time landing only (asz collect --no-parse)")
    ap.add_argument("--before", type=Path, default=None,
                    help="an older checkout's packages (git archive COMMIT | tar -x -C DIR): its collect runs too, alternating")
    ap.add_argument("--_bare", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a._bare:
        bare(Path(a._bare[0]), Path(a._bare[1]), int(a._bare[2]))
        return 0
    work = a.dir or Path(tempfile.mkdtemp(prefix="asz-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        projects = work / "claude" / "projects"
        if a.corpus == "real":
            from realcorpus import DEFAULT_SOURCE, generate as copy_real  # bench/realcorpus.py

            g = copy_real(projects, a.size_mb, a.source or DEFAULT_SOURCE)
            what = f"{g['files']} files, {g['copies']} copies of the real corpus"
        else:
            g = generate(work / "claude", a.size_mb)
            what = f"{g['sessions']} sessions"
        print(f"corpus   : {g['bytes'] / MB:.1f} MB ({a.corpus}), {g['lines']} lines, {what}, "
              f"largest line {g['largest_line'] / MB:.2f} MB (made in {time.perf_counter() - t:.1f}s)")
        subprocess.run(["sync"], check=False)
        compile_packages()  # as an installed package has its bytecode (pip compiles it), whatever PYTHONDONTWRITEBYTECODE says
        procs = a.jobs or (os.cpu_count() or 1)  # the bare loop may use as many processes as collect
        bt, brss, bcpu = float("inf"), 0, float("inf")
        for _ in range(a.repeat):
            t1, r1, bp, _ = _run([sys.executable, __file__, "--_bare", str(projects), str(work / "bare"), str(procs)])
            if bp.returncode:
                print(bp.stderr, file=sys.stderr)
                return 1
            shutil.rmtree(work / "bare", ignore_errors=True)
            bt, brss, bcpu = min(bt, t1), max(brss, r1), min(bcpu, bp.cpu)
        env = dict(os.environ, CLAUDE_CONFIG_DIR=str(work / "claude"))
        args = [sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", a.adapter,
                "--source", str(projects), "--root", str(work / "data"), "--jobs", str(a.jobs)]
        if a.no_parse:
            args.insert(4, "--no-parse")
        if a.adapter_file:
            args += ["--adapter-file", str(a.adapter_file.resolve())]
        if a.max_delta_bytes:
            args += ["--max-delta-bytes", str(a.max_delta_bytes)]
        ct, crss, call, ccpu = float("inf"), 0, 0, float("inf")
        before = [float("inf"), float("inf")]  # wall, CPU of the older checkout's pass, fastest
        if a.before:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(a.before)], check=False, capture_output=True)
        for _ in range(a.repeat):
            if a.before:
                _before_pass(args, env, work, a.before, before)
            shutil.rmtree(work / "data", ignore_errors=True)
            t1, r1, cp, r_all = _run(args, env)
            ct, crss, call, ccpu = min(ct, t1), max(crss, r1), max(call, r_all), min(ccpu, cp.cpu)
        summary = cp.stdout.strip().splitlines()[-1] if cp.stdout.strip() else ""
        fields = dict(f.split("=", 1) for f in summary.split() if "=" in f)
        mb = g["bytes"] / MB
        cmb = int(fields.get("bytes", g["bytes"])) / MB  # what the adapter read (all of it for claude-code-local)
        target = 2 * g["largest_line"] + 100 * 1024 * 1024
        print(f"bare     : {bt:.2f}s  {mb / bt:.1f} MB/s in {procs} process(es)  peak RSS {brss / 2**20:.0f} MiB")
        print(f"collect  : {ct:.2f}s  {cmb / ct:.1f} MB/s ({cmb:.1f} MB)  peak RSS {crss / 2**20:.0f} MiB per process "
              f"(target < {target / 2**20:.0f} MiB), {call / 2**20:.0f} MiB for all its processes together (PSS)")
        print(f"ratio    : {(cmb / ct) / (mb / bt):.2f} (collect{'' if a.no_parse else ' + parse'} MB/s / bare MB/s; target >= 0.5)")
        print(f"cpu      : bare {bcpu:.2f}s, collect {ccpu:.2f}s (all processes): ratio {bcpu / ccpu:.2f} "
              f"(bare CPU / collect CPU over the same bytes; unlike wall time, not stretched by other work on the machine)")
        if a.before:
            print(f"before   : {before[0]:.2f}s wall, {before[1]:.2f}s CPU ({a.before}, same corpus, alternating): "
                  f"after / before {ct / before[0]:.2f} wall, {ccpu / before[1]:.2f} CPU")
        print(f"memory   : {call / 2**20:.0f} MiB all processes (target <= 150 MiB at 1 GB, flat in corpus size)")
        # A pass with nothing new over the same root (target: under 2% of the full pass), as a whole command (Python's
        # start-up and imports included) and as the pass itself (the seconds the command's summary line prints).
        # With --before, the older checkout's command runs over the same root too (what it would land is the same
        # bytes), alternating; fastest of --repeat each.
        t2, np_cpu, idle_pass, np_ = float("inf"), float("inf"), float("inf"), None
        b2 = [float("inf"), float("inf"), float("inf")]  # the older checkout's wall, CPU, the pass itself
        for _ in range(a.repeat):
            if a.before:
                t1, _, bp, _ = _run(args, dict(env, PYTHONPATH=str(a.before)), cwd=a.before)
                b2 = [min(b2[0], t1), min(b2[1], bp.cpu), min(b2[2], _pass_seconds(bp.stdout) or float("inf"))]
            t1, _, np_, _ = _run(args, env)
            t2, np_cpu, idle_pass = min(t2, t1), min(np_cpu, np_.cpu), min(idle_pass, _pass_seconds(np_.stdout) or float("inf"))
        full_pass = _pass_seconds(cp.stdout)
        inner = f"; the pass itself {idle_pass:.2f}s of {full_pass:.2f}s = {idle_pass / full_pass:.3f}" if full_pass and idle_pass < float("inf") else ""
        print(f"nothing  : {t2:.2f}s ({np_cpu:.2f}s CPU) for a pass with nothing new = {t2 / ct:.3f} of the full pass (target < 0.02){inner}")
        if a.before:
            print(f"nothing before: {b2[0]:.2f}s ({b2[1]:.2f}s CPU) = {b2[0] / ct:.3f} of this full pass; the pass itself {b2[2]:.2f}s; "
                  f"after / before {t2 / b2[0]:.2f} wall, {np_cpu / b2[1]:.2f} CPU")
        if not a.no_parse:
            # The search index is no part of the pass (docs/reading.md): the first search builds it. Its cost, and
            # the ratio of collect and that first search together, so both figures stay on the page.
            # A word no record holds: the time is the index's, not the hits'. Without --json the command says on
            # stderr what it indexed.
            st, _, sp, _ = _run([sys.executable, "-m", "asz_core.cli.main", "search", "zqxjkvwq", "--limit", "1",
                                 "--root", str(work / "data")], env)
            said = " ".join(ln for ln in sp.stderr.splitlines() if ln.startswith("indexed")) or "nothing indexed"
            print(f"search   : the first search after it {st:.2f}s wall, {sp.cpu:.2f}s CPU ({said}); collect + "
                  f"that search: ratio {(cmb / (ct + st)) / (mb / bt):.2f} wall, {bcpu / (ccpu + sp.cpu):.2f} CPU")
        print(f"summary  : {summary}")
        if cp.returncode:
            print(cp.stderr[-2000:], file=sys.stderr)
            return 1
        return 0
    finally:
        if not a.keep and a.dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
