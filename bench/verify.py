"""Benchmark: ``asz verify`` throughput, as a ratio against ``hashlib.sha256`` over the same files.

Usage: ``python bench/verify.py [--size-mb 1024] [--root DIR] [--repeat 5]``

Builds (or reuses, when ``--root`` already holds one of the asked size) a
storage root of about ``--size-mb`` MB: the Claude Code corpus of
``../shared/corpus/claude-code/projects`` collected once by ``asz collect``,
then landed again and again under new session ids (the same record lines,
new headers and closing lines, cursors copied). Without the corpus or the
collector it lands synthetic transcripts instead. Then, in the same run and
from a warm page cache, it times

* the baseline: read every landed file and ``hashlib.sha256`` its bytes;
* ``verify_root`` in one process (``jobs=1``) and with one process per CPU
  (what ``asz verify`` does): every file hashed, every record line's
  positions read, contiguity and cursors checked; the positions of a file
  read whole are read by the compiled :mod:`asz_core.verify.linescan` where
  it was built (the root line says which), and in one process a clean
  session is checked by one call of it (:mod:`asz_core.verify.clean`);
* ``verify, 1 proc., Python``: the same in one process with the per-line
  Python loop in place of the compiled scanner and the session's call (what
  an install without a C compiler runs, and what ran before it);
* ``verify_root(deep=True)`` (``asz verify --deep``), one process per CPU:
  every record line decoded and type-checked in full as well;
* ``sha256 + positions``: the baseline plus the scan's per-line work alone
  (:func:`asz_core.verify.landed.line_positions`: each record line's
  positions read, nothing else checked). No Python scan in one thread can
  beat it, so its ratio is the ceiling of ``verify, 1 proc., Python``;
* ``sha256 + newlines``: the baseline plus a bare loop that finds each
  line's end (``bytes.find``, which is ``memchr``) and does nothing else: the
  least any per-line loop in Python costs, whatever it checks;
* ``+ listing, cursors``: that, plus every session listed and every cursor
  read (what the contiguity check needs besides the landed bytes): the
  least a verify in Python does with a per-line loop, so its ratio is the
  ceiling of ``verify, 1 proc., Python``;
* ``sha256 + C positions``: the baseline plus
  :func:`asz_core.verify.linescan.positions` over each file (each record
  line's positions read in one C call, nothing else checked);
* ``sha256 + one regex``: the baseline plus the way without a per-line loop
  in Python: one ``findall`` over each whole file of the prefix every record
  line begins with (``\n{"ord":N,"off":N,"sha":"…","bytes":N``), and
  ``count(b"\n")`` to vouch that every line had one, nothing else. CPython
  runs both as byte-at-a-time loops (``bytes.find`` is ``memchr``), so this
  row shows what removing the loop costs instead of what it saves;
* ``asz verify, N processes``: what the command runs (:func:`asz_core.verify.walk.verify`, then the arguments check): ``verify_root`` and,
  with ``--parse``, the conversation chains and the execution records' ``arguments`` held against the transcript's
  input (:mod:`asz_core.view.executions_check`, which reads each conversation's execution files and the record lines
  naming their calls, since session 26: it prepared each such conversation's document before), and
  ``arguments check`` that section alone (as after a clean landed check: no file hashed again). ``--parse`` parses the built root first (``asz parse``), so it has
  conversations; ``--executions`` also lands one execution record per session, as ``asz hook`` writes it for an MCP
  call, naming the first tool call of the session's main transcript (``mcp__bench__<name>``, its own input) and
  collected by the ``changes`` adapter, then parses again: the most the check can cost, every session holding one;
* ``sha256, every file read``: the baseline over every file ``asz verify`` reads, not the landed files alone
  (:func:`read_files`: the landed files, each conversation's ``conversation.state`` and round files, each session's
  ``session.state``, ``index/index.state``, ``index/entries.jsonl`` and cursors): what a command that hashed the same
  bytes would cost (issue 22, session 38). The ratios printed against it are named ``against every file read``;
* ``--landed-only`` times only ``sha256`` and ``verify, 1 process`` (the landed check, a clean session in one C call
  of :mod:`asz_core.verify.linescan`) and prints their CPU ratio against session 38's target for it (0.85);
* with ``--before DIR`` (another checkout of asz, e.g. the tree before a change: its ``.venv`` when it has one), the
  command itself, ``asz verify --root ROOT`` run as a process of that tree and of this one as the ``asz`` console
  script runs it (``python -m asz_core.cli.entry``: ``asz verify (command)``, interpreter start and imports included;
  since session 31 the console script runs this form without Typer), the start of each (``its start``: ``asz verify
  --root`` of a root ``asz collect`` made with no session, ``_collect/`` alone: the interpreter, the command's imports
  and a check of nothing; ``python -c 'import asz_core.cli.main'`` before session 31), and ``sha256sum`` over the same
  files as a command: verify as a command against SHA-256 of the same files, before and after.

and prints MB/s for each and ``ratio`` = verify MB/s / sha256 MB/s (the best
of ``--repeat`` runs each), and the same ratio in CPU seconds, which a busy
machine disturbs less. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "verify"))

from verify_landing import RootBuilder, jsonl, land_executions  # noqa: E402

from asz_core.sessiondata import SDWriter, decode_header  # noqa: E402
from asz_core.storage import landed_files, session_dirs  # noqa: E402
from asz_core.storage.cursor import read_cursor  # noqa: E402
from asz_core.storage.layout import session_listing  # noqa: E402
import asz_core.verify.clean as clean_mod  # noqa: E402
import asz_core.verify.landed as landed_mod  # noqa: E402
from asz_core.verify.landed import _PREFIX, line_positions  # noqa: E402
from asz_core.flow.verify_chain import Seen  # noqa: E402
from asz_core.view.executions_check import arguments_section, named_files  # noqa: E402
from asz_core.verify.walk import verify, verify_root  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "claude-code" / "projects"
BUDGET = 2 * 1024 * 1024


def template(work: Path) -> Path | None:
    """The corpus collected by the real collector and Claude Code adapter into ``work/template`` (None without them)."""
    dest = work / "template"
    if dest.is_dir():
        return dest
    if not CORPUS.is_dir():
        return None
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(work / "claude-home"))
    got = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(CORPUS), "--root", str(dest)],
                         env=env, capture_output=True, text=True)
    if got.returncode != 0:
        print(f"collect failed, landing synthetic records instead: {got.stderr.strip()[-300:]}", file=sys.stderr)
        shutil.rmtree(dest, ignore_errors=True)
        return None
    return dest


def replicate(tpl: Path, root: Path, n: int) -> None:
    """Land copy ``n`` of every template session under a new session id: same records, new headers and closings."""
    for sdir in session_dirs(tpl):
        session = f"{n:08x}{sdir.name[8:]}"
        for _, path in landed_files(sdir):
            lines = path.read_bytes().split(b"\n")
            header = attrs.evolve(decode_header(lines[0]), session=session)
            dest = root / session / path.parent.relative_to(sdir)
            dest.mkdir(parents=True, exist_ok=True)
            with SDWriter(dest / path.name, header, fsync=False) as w:
                for line in lines[1:-2]:
                    w.write_encoded(line)
                w.close()
        for cursor in sdir.glob("*/*/*.cursor"):
            shutil.copy(cursor, root / session / cursor.relative_to(sdir))
        for cursor in sdir.glob("provider_body/*.cursor"):
            shutil.copy(cursor, root / session / cursor.relative_to(sdir))


def landed(root: Path) -> list[Path]:
    """Every landed file of the root, session by session, in seq order."""
    return [p for s in session_dirs(root) for _, p in landed_files(s)]


def read_files(root: Path) -> list[Path]:
    """Every file ``asz verify`` reads in ``root``: the landed files (:func:`landed`), each conversation's
    ``conversation.state`` and round files (``_conversations/<id>/rounds/*.sf``), and each session's ``session.state``,
    ``index/index.state``, ``index/entries.jsonl`` and cursors, where they are."""
    out = landed(root)
    conv = root / "_conversations"
    for cdir in sorted(conv.iterdir()) if conv.is_dir() else ():
        out += [p for p in [cdir / "conversation.state", *sorted((cdir / "rounds").glob("*.sf"))] if p.is_file()]
    for sdir in session_dirs(root):
        out += [p for p in (sdir / "session.state", sdir / "index" / "index.state", sdir / "index" / "entries.jsonl")
                if p.is_file()]
        out += sorted(sdir.glob("*/*/*.cursor")) + sorted(sdir.glob("provider_body/*.cursor"))
    return out


def size_of(root: Path) -> int:
    """Bytes of every landed file of the root."""
    return sum(p.stat().st_size for p in landed(root))


def build(root: Path, size: int, work: Path) -> str:
    """Land sessions into ``root`` until it holds ``size`` bytes of landed files; returns what they are."""
    tpl = template(work)
    have = size_of(root)
    n = len(session_dirs(root)) // max(1, len(session_dirs(tpl))) if tpl else len(session_dirs(root))
    b = RootBuilder(root)
    while have < size:
        if tpl is not None:
            replicate(tpl, root, n)
        else:
            session = f"bench-{n:05d}-0000-4000-8000-000000000000"
            b.land_stream(session, jsonl(2000, width=3000), max_bytes=BUDGET)
        have = size_of(root)
        n += 1
        print(f"\rbuilding: {have / 1e6:8.1f} MB", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return "copies of the Claude Code corpus as the collector landed it" if tpl else "synthetic transcripts"


def parse(root: Path) -> None:
    """``asz parse`` the root (its sessions get conversation chains); raises CalledProcessError when it fails."""
    subprocess.run([sys.executable, "-m", "asz_core.cli.main", "parse", "--root", str(root)], check=True, cwd=REPO,
                   stdout=subprocess.DEVNULL)


def cpu_seconds() -> float:
    """CPU seconds used so far by this process (all its threads) and its finished worker processes."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def newlines(data: bytes) -> int:
    """How many lines ``data`` holds, found one ``bytes.find`` (``memchr``) a line: a per-line loop doing nothing else."""
    find, n, nl = data.find, 0, data.find(b"\n")
    while nl >= 0:
        n += 1
        nl = find(b"\n", nl + 1)
    return n


#: The prefix every record line begins with, found after the newline that ends the line before it.
WHOLE = re.compile(_PREFIX.pattern.replace(b"\\{", b"\n\\{", 1))


def one_regex(data: bytes) -> int:
    """Every record line's prefix found by one ``findall`` over the whole file, vouched for by one ``count``: no Python loop."""
    found = WHOLE.findall(data, data.find(b"\n"), data.rfind(b"\n", 0, len(data) - 1))
    if len(found) != data.count(b"\n") - 2:
        raise ValueError("a line the prefix does not describe")
    return len(found)


def listing(root: Path) -> int:
    """What verify reads besides the landed bytes: every session listed (``session_listing``) and every cursor read; returns the cursors."""
    n = 0
    for sdir in session_dirs(root):
        for cpath in session_listing(sdir, skeletons=True).cursors.values():
            read_cursor(cpath)
            n += 1
    return n


def c_positions(data: bytes) -> int:
    """Every record line's positions read by the compiled scanner in one call; returns how many it read."""
    got = landed_mod.linescan.positions(data, data.find(b"\n") + 1, data.rfind(b"\n", 0, len(data) - 1) + 1, True)
    if isinstance(got, int):
        raise ValueError(f"record row {got}: a line the compiled scanner does not vouch for")
    return got[0]


def sha_pass(files: list[Path], positions: bool = False, lines: bool = False, root: Path | None = None, regex: bool = False,
             compiled: bool = False) -> int:
    """The baseline: read each file and hash its bytes with ``hashlib.sha256``; returns the bytes read.

    With ``positions``, also the scan's per-line work over the same bytes, in one thread (``line_positions``):
    the least one thread can do to verify. With ``lines``, only a loop that finds each line's end (:func:`newlines`).
    With ``root``, also every session of it listed and every cursor read (:func:`listing`). With ``regex``, the
    prefixes found by one call over each file instead (:func:`one_regex`); with ``compiled``, by the compiled
    scanner (:func:`c_positions`)."""
    total = listing(root) if root is not None else 0
    for p in files:
        with open(p, "rb") as f:
            data = f.read()
        hashlib.sha256(data).hexdigest()
        if positions:
            line_positions(data)
        if lines:
            newlines(data)
        if regex:
            one_regex(data)
        if compiled:
            c_positions(data)
        total += len(data)
    return total


def tree_python(tree: Path) -> str:
    """The interpreter that runs the asz of checkout ``tree``: its ``.venv`` when it has one, else this one (run with
    ``tree`` as the working directory, ``python -m`` imports that tree's ``asz_core`` first)."""
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def command_side(tree: Path, root: Path, start_only: bool = False, jobs: int = 0) -> None:
    """``asz verify --root ROOT`` as a process of checkout ``tree``, dispatched as the ``asz`` console script does
    (``start_only``: of ``ROOT/../start-root``, a root with no session, made here: the start and a check of nothing;
    ``jobs``: its ``--jobs N``, 0 for none given); raises when it does not exit 0."""
    if start_only:
        root = root.parent / "start-root"
        (root / "_collect").mkdir(parents=True, exist_ok=True)
    args = ["-m", "asz_core.cli.entry", "verify", "--root", str(root), *(["--jobs", str(jobs)] if jobs else [])]
    got = subprocess.run([tree_python(tree), *args], cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if got.returncode != 0:
        raise RuntimeError(f"{tree}: asz verify exited {got.returncode}: {(got.stdout + got.stderr).decode()[-500:]}")


def main(argv: list[str] | None = None) -> int:
    """Build or reuse the root, time both sides, print MB/s and the ratio; 1 when the root does not verify."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=1024.0, help="landed bytes to verify, in MB (10^6 bytes); default 1024")
    ap.add_argument("--root", type=Path, help="storage root to build or reuse (default: a temporary directory, removed after)")
    ap.add_argument("--parse", action="store_true", help="parse the built root first (conversation chains: asz verify checks them)")
    ap.add_argument("--executions", action="store_true", help="also land one MCP execution record per session (implies --parse)")
    ap.add_argument("--command-only", action="store_true", help="time only sha256, asz verify in this process, the arguments check and (with --before) the commands")
    ap.add_argument("--jobs", type=int, default=0, help="--jobs N given to `asz verify` as a command (with --before; default: none, one process per CPU)")
    ap.add_argument("--landed-only", action="store_true", help="time only sha256 and the landed check in one process (verify, 1 process)")
    ap.add_argument("--before", type=Path, help="another asz checkout (e.g. /work/wt/before26): also time `asz verify --root ROOT` as a command of it and of this tree")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each side; the best counts (default 5: a shared machine's neighbours slow single runs)")
    args = ap.parse_args(argv)
    size = int(args.size_mb * 1e6)
    tmp = tempfile.TemporaryDirectory(prefix="asz-bench-verify-")
    work = Path(tmp.name)
    root = args.root or work / "root"
    try:
        t0 = time.perf_counter()
        what = build(root, size, work)
        if args.parse or args.executions:
            parse(root)
        if args.executions:
            print(f"executions: {land_executions(root, work, REPO)} execution record(s) landed", file=sys.stderr)
        files = landed(root)
        total = sum(p.stat().st_size for p in files)
        every = read_files(root)
        every_total = sum(p.stat().st_size for p in every)
        print(f"root     : {root} ({total / 1e6:.1f} MB, {len(files)} files of {what}; ready in {time.perf_counter() - t0:.1f}s)")
        print(f"read     : {every_total / 1e6:.1f} MB in {len(every)} files verify reads (landed, rounds, state files, cursors)")
        compiled = landed_mod.linescan
        print(f"scanner  : {'compiled (asz_core.verify.linescan) where a file is read whole' if compiled else 'Python (asz_core.verify.linescan was not built)'}")
        sha_pass(files)  # warm the page cache for both sides
        cpus = os.cpu_count() or 1
        sides = [("sha256", None, False), ("sha256, every file read", -20, False), ("verify, 1 process", 1, False), ("verify, 1 proc., Python", -4, False),
                 (f"verify, {cpus} processes", cpus, False),
                 (f"verify --deep, {cpus} proc.", cpus, True), ("sha256 + positions", 0, False),
                 (f"asz verify, {cpus} processes", -6, False), ("arguments check", -7, False),
                 ("sha256 + newlines", -1, False), ("+ listing, cursors", -2, False), ("sha256 + one regex", -3, False)]
        if compiled is not None:
            sides.append(("sha256 + C positions", -5, False))
        if args.before is not None:
            sides += [("sha256sum (command)", -10, False), ("asz verify (command)", -11, False), ("  its start", -12, False),
                      ("before: verify (command)", -13, False), ("  before: its start", -14, False)]
        if args.command_only:
            sides = [x for x in sides if x[1] is None or x[1] in (-6, -7) or x[1] <= -10]
        if args.landed_only:
            sides = [x for x in sides if x[1] is None or x[1] == 1]
        wall = {name: float("inf") for name, _, _ in sides}
        cpu = {name: float("inf") for name, _, _ in sides}
        records = 0
        for _ in range(args.repeat):
            for name, jobs, deep in sides:
                c0, t0 = cpu_seconds(), time.perf_counter()
                if jobs is None:
                    sha_pass(files)
                elif jobs == -20:
                    sha_pass(every)
                elif jobs == 0:
                    sha_pass(files, positions=True)
                elif jobs == -1:
                    sha_pass(files, lines=True)
                elif jobs == -2:
                    sha_pass(files, lines=True, root=root)
                elif jobs == -3:
                    sha_pass(files, regex=True)
                elif jobs == -5:
                    sha_pass(files, compiled=True)
                elif jobs == -6:
                    seen = Seen()  # what the chain checks list and read, handed to the checks after them as the command does
                    report = verify(root, jobs=cpus, seen=seen)
                    arguments_section(root, None, named_files(report.problems), seen)  # the command runs it after walk.verify
                    if not report.ok:
                        print("\n".join(report.lines()[:20]))
                        return 1
                elif jobs == -7:
                    arguments_section(root, None, ())  # as the command runs it after a clean landed check
                elif jobs == -10:
                    subprocess.run(["sha256sum", *map(str, files)], check=True, stdout=subprocess.DEVNULL)
                elif jobs in (-11, -12):
                    command_side(REPO, root, start_only=jobs == -12, jobs=args.jobs)
                elif jobs in (-13, -14):
                    command_side(args.before.resolve(), root, start_only=jobs == -14, jobs=args.jobs)
                else:
                    landed_mod.linescan = clean_mod.linescan = None if jobs == -4 else compiled
                    try:
                        report = verify_root(root, jobs=1 if jobs == -4 else jobs, deep=deep)
                    finally:
                        landed_mod.linescan = clean_mod.linescan = compiled
                    if not report.ok:
                        print("\n".join(report.lines()[:20]))
                        return 1
                    records = report.as_dict()["records"]
                wall[name] = min(wall[name], time.perf_counter() - t0)
                cpu[name] = min(cpu[name], cpu_seconds() - c0)
        for name, _, _ in sides:
            mbs = total / 1e6 / wall[name]
            extra = "" if name == "sha256" else (
                f", {records / wall[name]:,.0f} records/s, ratio {wall['sha256'] / wall[name]:.2f}"
                f", CPU ratio {cpu['sha256'] / cpu[name]:.2f}")
            print(f"{name:<24}: {mbs:8.1f} MB/s ({wall[name]:.3f}s wall, {cpu[name]:.3f}s CPU{extra})")
        if args.before is not None:
            after, before = cpu["asz verify (command)"], cpu["before: verify (command)"]
            full = cpu["sha256, every file read"]
            print(f"every    : against sha256 over every file verify reads ({full:.3f}s CPU, {every_total / 1e6:.1f} MB): "
                  f"{full / after:.2f} here, {full / before:.2f} before; less the start "
                  f"{full / max(1e-9, after - cpu['  its start']):.2f} here, "
                  f"{full / max(1e-9, before - cpu['  before: its start']):.2f} before")
            print(f"command  : asz verify --root ROOT{f' --jobs {args.jobs}' if args.jobs else ''} as a process, CPU: {after:.3f}s here, {before:.3f}s before "
                  f"({args.before}); against sha256 {cpu['sha256'] / after:.2f} here, {cpu['sha256'] / before:.2f} before; "
                  f"against sha256sum as a command {cpu['sha256sum (command)'] / after:.2f} here, "
                  f"{cpu['sha256sum (command)'] / before:.2f} before; less the interpreter start and imports "
                  f"({cpu['  its start']:.3f}s here, {cpu['  before: its start']:.3f}s before): "
                  f"{cpu['sha256'] / max(1e-9, after - cpu['  its start']):.2f} here, "
                  f"{cpu['sha256'] / max(1e-9, before - cpu['  before: its start']):.2f} before")
            print(f"met?     : asz verify as a command >= 0.8 of sha256's CPU over the same files: "
                  f"{'met' if cpu['sha256'] / after >= 0.8 else 'not met'} here, {'met' if cpu['sha256'] / before >= 0.8 else 'not met'} before "
                  "(per process: the CPU of hashlib.sha256 in this one process against that of the command's main process "
                  "and workers together, its start included)")
        print(f"target   : ratio >= 0.8 (verify / sha256 over the same files); {records} records, {cpus} CPU(s), "
              f"load average {os.getloadavg()[0]:.1f}")
        if args.landed_only:
            got = cpu["sha256"] / cpu["verify, 1 process"]
            print(f"landed   : the landed check in one process {got:.2f} of sha256's CPU over the same files "
                  f"(target 0.85: {'met' if got >= 0.85 else 'not met'})")
            return 0
        if compiled is not None and not args.command_only:
            print(f"compiled : verify in one process {cpu['sha256'] / cpu['verify, 1 process']:.2f} of sha256's CPU with the "
                  f"compiled scanner, {cpu['sha256'] / cpu['verify, 1 proc., Python']:.2f} with the Python loop; reading the "
                  f"positions alone in C: {cpu['sha256'] / cpu['sha256 + C positions']:.2f} (sha256 + C positions)")
        if args.command_only:
            return 0
        print(f"ceiling  : one Python thread reading every record line's positions reaches at most CPU ratio "
              f"{cpu['sha256'] / cpu['sha256 + positions']:.2f} (sha256 + positions); a loop that only finds each line's end "
              f"reaches {cpu['sha256'] / cpu['sha256 + newlines']:.2f} (sha256 + newlines); that loop with every session listed "
              f"and every cursor read, which verify cannot skip either, {cpu['sha256'] / cpu['+ listing, cursors']:.2f} "
              f"(+ listing, cursors): the most a verify without the compiled scanner can reach in one process. Without the per-line "
              f"loop, one regex and one count over each file (sha256 + one regex) reach {cpu['sha256'] / cpu['sha256 + one regex']:.2f}, "
              f"before any session is listed: CPython scans for them a byte at a time")
        return 0
    finally:
        tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
