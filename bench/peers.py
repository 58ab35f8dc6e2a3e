"""Benchmark asz against its peers, agentsview and ccusage, on the same real-shaped corpus (issue 22).

For each size asked, a real-shaped copy of ``../shared/corpus/claude-code/projects`` under new ids
(``bench/realcorpus.py``), then in one interleaved run (the order alternates on each repeat, the
fastest of ``--repeat`` kept):

* ``asz collect --once`` (land + parse, its default jobs: one process per CPU) into a fresh root,
  against ``agentsview sync`` into a fresh data directory (its SQLite database): wall seconds, CPU
  seconds of all their processes, peak memory (the largest process's RSS and all processes' PSS,
  ``bench/collect.py``'s ``_run``); then a second pass of each with nothing new;
* ``ccusage claude daily --json --offline`` against ``asz usage --json`` on the collected root (the
  first, which fills asz's summary store, and a second) and ``agentsview usage daily --json --all
  --offline --no-sync``: wall seconds;
* the token totals and cost each reports, against a count straight from the source files: the
  ``message.usage`` of every ``assistant`` line, one per model call (message id and request id where
  the request id is present, docs/session-data.md), from the call's last line carrying usage
  (``asz usage``'s rule, docs/view.md); the days where a tool differs from that count are listed.

Every peer runs with ``HOME``, its data directory and its projects folder in the work directory:
none reads the machine's ``~/.claude`` or writes to ``~`` (agentsview: ``CLAUDE_PROJECTS_DIR``,
``AGENTSVIEW_DATA_DIR``, ``AGENTSVIEW_NO_DAEMON=1``, telemetry and update check off; ccusage:
``CLAUDE_CONFIG_DIR``, ``--offline``). A peer that is not found is skipped with the reason printed;
the test suite never needs either. They are found from ``--agentsview`` / ``--ccusage``, else on
``PATH``, else in ``--peers DIR`` (where ``--install DIR`` put them). Install them outside the
project's dependencies::

    python bench/peers.py --install /tmp/asz-peers      # a venv with agentsview, an npm prefix with ccusage
    python bench/peers.py --peers /tmp/asz-peers --size-mb 8 200 [--repeat 2] [--dir DIR] [--keep]
    python bench/peers.py --peers /tmp/asz-peers --projects DIR/claude/projects --repeat 2   # a folder made before

agentsview's PyPI wheel carries its Go binary; the console script only ``exec``s it, so the bench
runs the binary itself. ccusage's npm package runs its native binary (``@ccusage/ccusage-<os>-<arch>``)
from a small node script; the bench runs it as installed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import orjson

from _common import REPO, compile_packages  # bench/_common.py
from collect import _pass_seconds, _run  # bench/collect.py: wall, CPU of all processes, peak RSS and PSS
from realcorpus import DEFAULT_SOURCE, generate  # bench/realcorpus.py

MB = 1_000_000
AGENTSVIEW_VERSION = "0.46.1"
# 20.0.26, the newest ccusage, has no linux-x64 native package on the registry this machine reads; 20.0.24 has.
CCUSAGE_VERSION = "20.0.24"
KEYS = ("in", "out", "cache_read", "cache_write")


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def install(into: Path) -> None:
    """Put agentsview (a venv from PyPI) and ccusage (an npm prefix) under ``into``; never in the project."""
    into.mkdir(parents=True, exist_ok=True)
    venv = into / "agentsview-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"agentsview=={AGENTSVIEW_VERSION}"], check=True)
    if shutil.which("npm"):
        subprocess.run(["npm", "install", "--prefix", str(into / "npm"), f"ccusage@{CCUSAGE_VERSION}"], check=True)
    else:
        print("npm not found: ccusage not installed")
    print(f"installed: pass --peers {into}")


def _go_binary(path: str) -> str:
    """agentsview's PyPI console script ``exec``s the Go binary in its package: that binary, else ``path``."""
    try:
        head = Path(path).read_bytes()[:200]
    except OSError:
        return path
    if head.startswith(b"#!") and b"python" in head.split(b"\n", 1)[0]:
        py = head.split(b"\n", 1)[0][2:].decode().strip()
        r = subprocess.run([py, "-c", "import agentsview, os; print(os.path.join(os.path.dirname(agentsview.__file__), 'bin', 'agentsview'))"],
                           capture_output=True, text=True)
        if r.returncode == 0 and os.access(r.stdout.strip(), os.X_OK):
            return r.stdout.strip()
    return path


def find(name: str, given: Path | None, peers: Path | None) -> tuple[str | None, str]:
    """(the command to run, or None; where it came from or why it is absent)."""
    if given:
        return (str(given), "--" + name) if os.access(given, os.X_OK) else (None, f"{given} is not an executable")
    on_path = shutil.which(name)
    if on_path:
        return on_path, "PATH"
    if peers:
        c = peers / ("agentsview-venv/bin/agentsview" if name == "agentsview" else "npm/node_modules/.bin/ccusage")
        if os.access(c, os.X_OK):
            return str(c), f"--peers {peers}"
    return None, f"not on PATH{'' if not peers else f' nor in {peers}'} (bench/peers.py --install DIR installs it; --{name} PATH)"


def scratch_env(home: Path, **extra: str) -> dict:
    """The environment of a timed command: HOME and the XDG folders in the work directory, nothing of ~."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLAUDE_", "AGENTSVIEW_", "CCUSAGE_"))}
    home.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               XDG_DATA_HOME=str(home / ".local/share"), NO_COLOR="1", **extra)
    return env


def source_usage(projects: Path) -> dict:
    """Token usage counted straight from the source files: one per model call, from its last line with usage.

    A call is its message id and request id (the message id alone when the line has no request id), as
    docs/session-data.md says; its usage and its day come from the last ``assistant`` line carrying
    ``message.usage`` (docs/view.md, "Usage and cost"). Returns ``{"total", "days", "calls",
    "differing", "kinds", "first"}``: ``differing`` counts the calls whose lines carry different usage
    (where the line a tool reads decides its figure), ``first`` is the total from each call's first line
    instead, ``kinds`` the totals by kind of file (a session's own, its ``subagents/`` folder, an older
    ``agent-*.jsonl`` beside the sessions).
    """
    calls: dict[tuple, tuple[str, tuple, str]] = {}
    firsts: dict[tuple, tuple] = {}
    differing: set = set()
    for path in sorted(projects.rglob("*.jsonl")):
        rel = path.relative_to(projects).parts
        if len(rel) == 2:
            kind = "agent-*.jsonl files beside the sessions" if rel[1].startswith("agent-") else "the sessions' own files"
        else:
            kind = "subagents/ files" if "subagents" in rel else "other files"
        with open(path, "rb") as f:
            for line in f:
                if b'"usage"' not in line or b'"assistant"' not in line:
                    continue
                try:
                    rec = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                msg = rec.get("message") if isinstance(rec, dict) else None
                if rec.get("type") != "assistant" or not isinstance(msg, dict) or not isinstance(msg.get("usage"), dict):
                    continue
                u = msg["usage"]
                t = tuple(int(u.get(k) or 0) for k in ("input_tokens", "output_tokens", "cache_read_input_tokens",
                                                         "cache_creation_input_tokens"))
                key = (msg.get("id") or rec.get("uuid"), rec.get("requestId"))
                day = str(rec.get("timestamp") or "")[:10]
                old = calls.get(key)
                if old and old[1] != t:
                    differing.add(key)
                firsts.setdefault(key, t)
                calls[key] = (day, t, kind)
    days: dict[str, list[int]] = {}
    kinds: dict[str, list[int]] = {}
    for day, t, kind in calls.values():
        for row in (days.setdefault(day, [0, 0, 0, 0]), kinds.setdefault(kind, [0, 0, 0, 0])):
            for i in range(4):
                row[i] += t[i]
    total = [sum(r[i] for r in days.values()) for i in range(4)]
    first = [sum(t[i] for t in firsts.values()) for i in range(4)]
    return {"total": total, "days": days, "calls": len(calls), "differing": len(differing), "kinds": kinds,
            "first": first}


def _asz_totals(rows: list) -> tuple[list[int], float, dict]:
    days = {r["date"]: [int(r["usage"].get(k, 0)) for k in KEYS] for r in rows}
    return [sum(d[i] for d in days.values()) for i in range(4)], sum(r["cost"]["usd"] for r in rows), days


def _ccusage_totals(doc: dict) -> tuple[list[int], float, dict]:
    f = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens")
    days = {r["date"]: [int(r[k]) for k in f] for r in doc.get("daily", [])}
    t = doc.get("totals") or {}
    return [int(t.get(k, 0)) for k in f], float(t.get("totalCost", 0)), days


def _agentsview_totals(doc: dict) -> tuple[list[int], float, dict]:
    f = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens")
    days = {r["date"]: [int(r[k]) for k in f] for r in doc.get("daily", [])}
    t = doc.get("totals") or {}
    return [int(t.get(k, 0)) for k in f], t.get("totalCost", {}).get("microdollars", 0) / 1e6, days


def _fmt(t: list[int]) -> str:
    return " ".join(f"{k}={v:,}" for k, v in zip(KEYS, t))


def _version(args: list[str], env: dict) -> str:
    try:
        r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"? ({e})"
    return (r.stdout.strip() or r.stderr.strip()).splitlines()[0] if (r.stdout or r.stderr).strip() else "?"


class Best:
    """The fastest wall and CPU of repeated runs, and the largest memory."""

    def __init__(self) -> None:
        self.wall = self.cpu = float("inf")
        self.rss = self.pss = 0
        self.out = ""

    def add(self, run: tuple) -> subprocess.CompletedProcess:
        wall, rss, cp, pss = run
        if cp.returncode:
            raise SystemExit(f"{' '.join(map(str, cp.args))} exited {cp.returncode}:\n{cp.stderr[-3000:]}")
        self.wall, self.cpu = min(self.wall, wall), min(self.cpu, cp.cpu)
        self.rss, self.pss = max(self.rss, rss), max(self.pss, pss)
        self.out = cp.stdout
        return cp

    def line(self, what: str, mb: float) -> str:
        return (f"{what:<22}: {self.wall:7.2f}s wall {mb / self.wall:6.1f} MB/s, {self.cpu:7.2f}s CPU, "
                f"peak {self.pss / 2**20:4.0f} MiB all processes (PSS), {self.rss / 2**20:4.0f} MiB largest process (RSS)")


def ratio_line(what: str, asz: Best, peer: Best, name: str) -> str:
    return (f"{what:<22}: asz / {name} wall {asz.wall / peer.wall:.2f}, CPU {asz.cpu / peer.cpu:.2f}, "
            f"memory {asz.pss / max(peer.pss, 1):.2f}; throughput {name} / asz {asz.wall / peer.wall:.2f}, "
            f"asz / {name} {peer.wall / asz.wall:.2f} ({'asz faster' if asz.wall < peer.wall else 'asz slower'})")


def bench_size(size_mb: float, work: Path, a: argparse.Namespace, av: str | None, cc: str | None) -> None:
    t = time.perf_counter()
    if a.projects:  # a folder made before (by bench/realcorpus.py, say), read as it is
        projects = a.projects.resolve()
        claude = projects.parent
        files = [p for p in projects.rglob("*") if p.is_file()]
        mb = sum(p.stat().st_size for p in files) / MB
        print(f"\n== {mb:.1f} MB in {projects}: {len(files)} files; load {load()}")
    else:
        claude = work / "claude"
        projects = claude / "projects"
        g = generate(projects, size_mb, a.source)
        mb = g["bytes"] / MB
        print(f"\n== {mb:.1f} MB real-shaped: {g['files']} files, {g['lines']:,} lines, {g['copies']} copies of the corpus "
              f"(made in {time.perf_counter() - t:.1f}s); load {load()}")
    subprocess.run(["sync"], check=False)
    home = work / "home"
    root, avdata = work / "asz-root", work / "agentsview-data"
    asz_env = scratch_env(home, CLAUDE_CONFIG_DIR=str(claude))
    av_env = scratch_env(home, CLAUDE_PROJECTS_DIR=str(projects), AGENTSVIEW_DATA_DIR=str(avdata), AGENTSVIEW_NO_DAEMON="1",
                         AGENTSVIEW_TELEMETRY_ENABLED="0", DO_NOT_TRACK="1", AGENTSVIEW_DISABLE_UPDATE_CHECK="1")
    cc_env = scratch_env(home, CLAUDE_CONFIG_DIR=str(claude), LOG_LEVEL="0")
    asz = [sys.executable, "-m", "asz_core.cli.main"]
    collect = asz + ["collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(root)]

    # 1. A full pass of each into a fresh store, interleaved, the order alternating.
    full_asz, full_av = Best(), Best()
    for k in range(a.repeat):
        order = ["asz", "av"] if k % 2 == 0 else ["av", "asz"]
        for who in order:
            if who == "asz":
                shutil.rmtree(root, ignore_errors=True)
                full_asz.add(_run(collect, asz_env))
            elif av:
                shutil.rmtree(avdata, ignore_errors=True)
                full_av.add(_run([av, "sync"], av_env))
    asz_summary = full_asz.out.strip().splitlines()[-1] if full_asz.out.strip() else ""
    print(full_asz.line("asz collect --once", mb) + f"  [load {load()}]")
    print(f"{'':<22}  {asz_summary}")
    if av:
        print(full_av.line("agentsview sync", mb))
        print(f"{'':<22}  {' / '.join(ln.strip() for ln in full_av.out.splitlines() if ln.startswith(('Sync complete', 'Database')))}")
        print(ratio_line("full pass", full_asz, full_av, "agentsview"))

    # 2. A pass with nothing new over each.
    idle_asz, idle_av = Best(), Best()
    for _ in range(a.repeat):
        idle_asz.add(_run(collect, asz_env))
        if av:
            idle_av.add(_run([av, "sync"], av_env))
    inner = _pass_seconds(idle_asz.out)
    print(f"{'nothing new, asz':<22}: {idle_asz.wall:7.2f}s wall ({idle_asz.wall / full_asz.wall:.3f} of its full pass; "
          f"the pass itself {inner:.2f}s), {idle_asz.cpu:.2f}s CPU")
    if av:
        print(f"{'nothing new, agentsview':<22}: {idle_av.wall:7.2f}s wall ({idle_av.wall / full_av.wall:.3f} of its full pass), "
              f"{idle_av.cpu:.2f}s CPU")
        print(f"{'nothing new':<22}: asz / agentsview wall {idle_asz.wall / idle_av.wall:.2f}, CPU {idle_asz.cpu / idle_av.cpu:.2f}")

    # 3. The daily usage report of each, interleaved; asz's first one fills its summary store.
    usage = asz + ["usage", "daily", "--json", "--tz", "UTC", "--root", str(root)]
    first_asz = Best()
    cp = first_asz.add(_run(usage, asz_env))
    asz_rows = orjson.loads(cp.stdout)
    rep_asz, rep_cc, rep_av = Best(), Best(), Best()
    cc_doc = av_doc = None
    for _ in range(a.repeat):
        rep_asz.add(_run(usage, asz_env))
        if cc:
            cc_doc = orjson.loads(rep_cc.add(_run([cc, "claude", "daily", "--json", "--offline", "--timezone", "UTC"], cc_env)).stdout)
        if av:
            av_doc = orjson.loads(rep_av.add(_run([av, "usage", "daily", "--json", "--all", "--offline", "--no-sync",
                                                   "--timezone", "UTC"], av_env)).stdout)
    print(f"{'asz usage daily':<22}: {first_asz.wall:7.2f}s wall the first (fills its summary store), "
          f"{rep_asz.wall:.2f}s a second; {first_asz.cpu:.2f}s / {rep_asz.cpu:.2f}s CPU")
    if cc:
        print(f"{'ccusage claude daily':<22}: {rep_cc.wall:7.2f}s wall, {rep_cc.cpu:.2f}s CPU; asz / ccusage wall "
              f"{first_asz.wall / rep_cc.wall:.2f} (first), {rep_asz.wall / rep_cc.wall:.2f} (second)")
    else:
        print(f"{'ccusage':<22}: skipped")
    if av:
        print(f"{'agentsview usage daily':<22}: {rep_av.wall:7.2f}s wall, {rep_av.cpu:.2f}s CPU; asz / agentsview wall "
              f"{first_asz.wall / rep_av.wall:.2f} (first), {rep_asz.wall / rep_av.wall:.2f} (second)")

    # 4. Their figures against the source files.
    t = time.perf_counter()
    ref = source_usage(projects)
    print(f"{'source files':<22}: {_fmt(ref['total'])} in {ref['calls']:,} calls over {len(ref['days'])} days "
          f"(counted in {time.perf_counter() - t:.1f}s)")
    print(f"{'':<24}{ref['differing']:,} calls' lines carry different usage: from each call's first line {_fmt(ref['first'])}")
    for kind, row in sorted(ref["kinds"].items()):
        print(f"{'':<24}in {kind}: {_fmt(row)}")
    reports = [("asz", _asz_totals(asz_rows))]
    if cc_doc is not None:
        reports.append(("ccusage", _ccusage_totals(cc_doc)))
    if av_doc is not None:
        reports.append(("agentsview", _agentsview_totals(av_doc)))
    asz_cost = reports[0][1][1]
    for name, (total, cost, days) in reports:
        same = total == ref["total"]
        print(f"{name:<22}: {_fmt(total)} cost ${cost:,.2f} ({cost / asz_cost if asz_cost else 0:.4f} of asz's) over "
              f"{len(days)} days: {'= the source files' if same else 'differs from the source files'}")
        if not same:
            gap = [w - g for g, w in zip(total, ref["total"])]
            for kind, row in ref["kinds"].items():
                if row == gap:
                    print(f"{'':<24}the difference is exactly the calls in {kind}: {name} does not count them")
            for day in sorted(set(days) | set(ref["days"])):
                got, want = days.get(day), ref["days"].get(day)
                if got != want:
                    diff = [g - w for g, w in zip(got or [0] * 4, want or [0] * 4)]
                    print(f"{'':<24}{day}: {name} {_fmt(got) if got else 'no row'}; source {_fmt(want) if want else 'no call'} "
                          f"(difference {_fmt(diff)})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, nargs="+", default=[8.0, 200.0], help="corpus sizes in MB (default 8 200)")
    ap.add_argument("--projects", type=Path, default=None,
                    help="a Claude Code projects folder (named projects) to read instead of a generated copy; --size-mb is then ignored")
    ap.add_argument("--repeat", type=int, default=1, help="run each timed command N times, alternating, fastest kept")
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the real folder to copy")
    ap.add_argument("--agentsview", type=Path, default=None, help="the agentsview command (default: PATH, then --peers)")
    ap.add_argument("--ccusage", type=Path, default=None, help="the ccusage command (default: PATH, then --peers)")
    ap.add_argument("--peers", type=Path, default=None, help="the folder --install filled")
    ap.add_argument("--install", type=Path, default=None, metavar="DIR", help="install agentsview and ccusage into DIR and exit")
    ap.add_argument("--dir", type=Path, default=None, help="work directory (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args(argv)
    if a.install:
        install(a.install)
        return 0
    av, av_from = find("agentsview", a.agentsview, a.peers)
    cc, cc_from = find("ccusage", a.ccusage, a.peers)
    work = a.dir or Path(tempfile.mkdtemp(prefix="asz-peers-"))
    env = scratch_env(work / "home")
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"asz      : {_version([sys.executable, '-m', 'asz_core.cli.main', '--version'], env)}, commit {commit or '?'}")
    if av:
        av = _go_binary(av)
        print(f"agentsview: {_version([av, 'version'], env)} ({av}, from {av_from})")
    else:
        print(f"agentsview: skipped, {av_from}")
    if cc:
        print(f"ccusage  : {_version([cc, '--version'], env)} ({cc}, from {cc_from})")
    else:
        print(f"ccusage  : skipped, {cc_from}")
    print(f"machine  : {os.cpu_count()} CPUs, load {load()}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    compile_packages()  # as an installed package has its bytecode
    try:
        if a.projects and a.projects.name != "projects":
            raise SystemExit(f"{a.projects}: the folder must be named projects (ccusage reads CLAUDE_CONFIG_DIR/projects)")
        for size in a.size_mb[:1] if a.projects else a.size_mb:
            shutil.rmtree(work / "asz-root", ignore_errors=True)
            shutil.rmtree(work / "agentsview-data", ignore_errors=True)
            bench_size(size, work, a, av, cc)
        print(f"\nload {load()} at {datetime.now(timezone.utc):%H:%M} UTC")
        return 0
    finally:
        if not a.keep and a.dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
