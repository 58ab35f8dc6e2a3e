"""The kill loop of the crash-safety checks: ``asz collect`` killed with SIGKILL at random moments while its sources grow.

Used by ``tests/collect/test_crash.py`` (16 kills, and 200 in 8 chunks of 25, each its own root) and ``bench/crash.py``
(as many as asked). After every kill a clean pass must show every complete
source line landed at least once, repeats only of whole records (a crash
between landing a file and moving the cursor repeats records, never loses
one), no gap in ord, and every landed file passing check_file
(origin-digest §2.1: file lands, then cursor). No worker of a killed command
outlives it (issue 23): the command runs in its own process group, and after
the kill no live process of that group may remain after 3 s, and its stdout
and stderr pipes must reach end of file.

The checks after a kill read only what is new since the last (:class:`Seen`): a landed file is write-once (0444, never
opened for writing again) and a source only grows, so a file read and checked once is taken from memory while its
path, size, mtime and inode are the same. Every ``FULL_EVERY`` kills, and after the last, everything is read and
checked again from nothing, and the clean pass also parses; after the last, ``asz verify`` must find the root whole.
The clean pass once found the root's collector lock held ("another collector is running", kill 54 of 200, a fresh
clone's suite, 2026-12-04) by no process the loop could see. Session 22 found the one way it could be
(tests/collect/test_lock_after_kill.py; not met again): the workers of the list rows and search index pools kept
their copy of the lock's open file, and a dying worker whose main thread had ended showed ``Z`` while its watchdog
thread still ended, holding it; the loop took such a process for gone. Workers now let go of their parent's locks
first (``worker_init``), the loop counts a process alive while any of its threads is (:func:`_alive`), and after the
kill the collector lock must be free before the clean pass starts.

The clean pass runs in the test's process (``asz collect --once --jobs 1``, :func:`collect_helpers.asz`): what it
proves is the root the killed command left, and the same landing code reads it there as in a child. The lock is an
``flock`` of the lock file's open description (docs/storage-root.md), so a lock a process of the killed group still
held refuses it here as it would a child, and the pass must exit 0. A child ``python -m asz_core.cli.main`` cost 0.36 s
of CPU a kill (imports; with ``--jobs 2`` forked workers), most of the loop's CPU after the collector's own
(session 28, 10 kills: 3.6 s against 0.7 s in the test's process). Every killed collector still lands its sessions in
the workers the loop's ``jobs`` asks for.
Read whole after every kill, the loop was quadratic in the kills (200 kills took 13 minutes, 2026-12-04).

The killed collectors are forked from a pre-imported server (tests/forked.py; session 34): real processes with their
own pid, session and pipes, killed inside the command's work. Started as fresh interpreters
(``start=subprocess.Popen``, killed 0.3-1.3 s after the start) under a load of 15-38, not one of 200 landed a file
before its kill: each was still importing. Each kill's point (:class:`KillPoint`) is recorded from the root
(docs/testing.md).

A forked collector is killed when it and its workers have used a CPU time drawn evenly from :data:`KILL_AT_CPU`
(:func:`wait_for_cpu`), not after a wall-clock delay (0-1 s until session 39): how far a command has gone in its work
is its CPU, whatever the load. A delay landed most kills in the start-up on a loaded machine and, on an idle one,
spent most of its second with the collector asleep between passes (the wait was three quarters of a kill's wall).
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import forked

from collect_helpers import ASZ, asz, collect_once, env, file_problems, file_records, line, lines_of, mini_args, summary

from asz_core.storage.layout import landed_files, session_dirs
from asz_core.storage.root import COLLECTOR_LOCK, lock_taken

STREAMS = [("s1", "main"), ("s1", "agent-a"), ("s2", "main"), ("s3", "main"), ("s3", "agent-b"), ("s3", "agent-c")]


class Writer(threading.Thread):
    """Appends lines of 100 B to 20 KB to random streams, each in two writes, until stopped (never stops mid-line)."""

    def __init__(self, src, rng: random.Random, counter: list[int]):
        super().__init__(daemon=True)
        self.src, self.rng, self.counter = src, rng, counter
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            session, stream = self.rng.choice(STREAMS)
            size = 20_000 if self.rng.random() < 0.03 else self.rng.randint(100, 3000)
            self.counter[0] += 1
            data = line(self.counter[0], size) + b"\n"
            cut = self.rng.randint(1, len(data) - 1)
            path = self.src / session / f"{stream}.jsonl"
            with open(path, "ab") as f:
                f.write(data[:cut])
                f.flush()
                time.sleep(self.rng.random() * 0.002)
                f.write(data[cut:])
            time.sleep(self.rng.random() * 0.003)


FULL_EVERY = 25  # kills between two checks that read everything again


def _key(p: Path) -> tuple:
    st = p.stat()
    return (str(p), st.st_size, st.st_mtime_ns, st.st_ino)


class Seen:
    """What the checks already read: each landed file's (ord, off, bytes, sha) records and its problems, by
    :func:`_key`; each source's complete lines up to the byte after the last one's newline.

    Within one check (from :meth:`look` to the next), each session directory is listed once and each landed file's
    :func:`_key` taken once: a check reads six streams of three sessions and then every file, and nothing writes into
    the root meanwhile (the killed command's group is gone, the clean pass has ended). Listing a session per stream
    and again for the files' problems cost 9 listings and 2 stats a file per kill where 3 and 1 say the same
    (session 33: the listings and stats, grown with the root, were most of the 200 kills' own CPU after the clean
    passes)."""

    def __init__(self) -> None:
        self.records: dict[tuple, list[tuple[int, int, int, str]]] = {}
        self.problems: dict[tuple, list[str]] = {}
        self.lines: dict[Path, tuple[int, list[tuple[int, int, int, str]]]] = {}
        self.look()

    def look(self) -> None:
        """Start a check: list the root's sessions and take the files' keys again from here on."""
        self.listed: dict[Path, list] = {}
        self.keys: dict[Path, tuple] = {}

    def _listing(self, sdir: Path) -> list:
        """``landed_files(sdir)``, once in a check."""
        if sdir not in self.listed:
            self.listed[sdir] = landed_files(sdir)
        return self.listed[sdir]

    def _key(self, p: Path) -> tuple:
        """:func:`_key` of ``p``, once in a check."""
        if p not in self.keys:
            self.keys[p] = _key(p)
        return self.keys[p]

    def landed(self, root: Path, session: str, stream: str) -> list[tuple[int, int, int, str]]:
        """As ``collect_helpers.landed``: every landed record of a stream, in seq then row order (repeats kept)."""
        out = []
        for p in [p for ln, p in self._listing(Path(root) / session) if ln.kind == "transcript" and p.parent.name == stream]:
            k = self._key(p)
            if k not in self.records:
                self.records[k] = file_records(p)
            out += self.records[k]
        return out

    def source_lines(self, path: Path) -> list[tuple[int, int, int, str]]:
        """As ``collect_helpers.source_lines``: (ord, off, bytes, sha12) of every complete line, reading from where
        the last call's last complete line ended."""
        done, out = self.lines.get(path, (0, []))
        with open(path, "rb") as f:
            f.seek(done)
            new, done = lines_of(f.read(), done, len(out) + 1)
        out += new
        self.lines[path] = (done, out)
        return out

    def files_ok(self, root: Path) -> list[str]:
        """As ``collect_helpers.all_files_ok``: the problems of every landed file ([] when all pass check_file and
        are 0444), checking only files not checked before."""
        problems = []
        for sdir in session_dirs(Path(root)):
            for _, p in self._listing(sdir):
                k = self._key(p)
                if k not in self.problems:
                    self.problems[k] = file_problems(p)
                problems += self.problems[k]
        return problems


def check(src, root, seen: Seen) -> int:
    """Every complete line landed at least once, repeats only whole, no gap; returns records landed."""
    seen.look()
    total = 0
    for session, stream in STREAMS:
        want = seen.source_lines(src / session / f"{stream}.jsonl")
        got = seen.landed(root, session, stream)
        assert set(got) == set(want), f"{session}/{stream}: missing {sorted(set(want) - set(got))[:3]} extra {sorted(set(got) - set(want))[:3]}"
        top = 0
        for ord_, *_ in got:  # in seq order: a file starts at most one past what came before
            assert ord_ <= top + 1, f"{session}/{stream}: gap before ord {ord_}"
            top = max(top, ord_)
        total += len(got)
    return total


def _alive(pid: str) -> bool:
    """True while any thread of process ``pid`` has not ended: a process whose main thread has ended shows ``Z`` in
    ``/proc/PID/stat`` while its other threads still end, and holds its files (its locks) until the last one has."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                    return True
        except (OSError, IndexError):
            continue
    return False


def group_members(pgid: int) -> list[int]:
    """Pids of the live processes of process group ``pgid`` (one with a thread not yet ended: :func:`_alive`), read
    from ``/proc``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and _alive(d):
            out.append(int(d))
    return out


def survivors(pgid: int, seconds: float = 3.0) -> list[int]:
    """The processes of a killed command's group still alive after ``seconds`` (its workers must die with it)."""
    end = time.monotonic() + seconds
    while True:
        left = group_members(pgid)
        if not left or time.monotonic() >= end:
            return left
        time.sleep(0.05)


def reaches_end(stream, seconds: float) -> bool:
    """Read ``stream`` (a pipe) until end of file, for at most ``seconds``; True when it ended. Closes it."""
    end = time.monotonic() + seconds
    fd = stream.fileno()
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                return False
            if not os.read(fd, 65536):
                return True
    finally:
        stream.close()


def process_cpu(pid: int) -> float:
    """CPU seconds (user + sys) process ``pid`` has used so far (its own threads, not its children); 0.0 when gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def root_marks(root: Path) -> tuple[int, dict, int]:
    """What the root holds: how many landed ``.sd`` files, each cursor's (inode, size, mtime) by path, and how many
    temporaries (``.NAME.PID.tmp``: a file or cursor being written). One listing a folder of files (a kill's two
    looks over a root of thousands of files: pathlib's glob cost 10 s of the 200 kills)."""
    files, cursors, temps = 0, {}, 0
    if not os.path.isdir(root):
        return files, cursors, temps
    for session in os.scandir(root):
        for kind in ("streams", "runs"):
            try:
                folders = list(os.scandir(os.path.join(session.path, kind)))
            except (NotADirectoryError, FileNotFoundError):
                continue
            for folder in folders:
                for name in os.listdir(folder.path):
                    if name.endswith(".sd"):
                        files += not name.startswith(".")
                    elif name.endswith(".tmp"):
                        temps += 1
                    elif name.endswith(".cursor"):
                        st = os.stat(os.path.join(folder.path, name))
                        cursors[os.path.join(folder.path, name)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return files, cursors, temps


@dataclass
class KillPoint:
    """Where one kill landed in the killed collector's work: its CPU seconds when killed (the main process's; a fresh
    interpreter spends about 0.4 s importing before the command starts); the files it landed, the cursors it moved and
    the temporaries it left (counted from the root before it started and after the kill); the records the clean pass
    found landed twice because of it (a file landed, its cursor not yet moved)."""

    cpu: float
    files: int
    cursors: int
    temps: int
    repeats: int = 0

    @property
    def stage(self) -> str:
        """``writing``: killed while writing a file or a cursor (a temporary left); ``cursor behind``: after landing a
        file, before moving its cursor; ``before landing``: before it landed anything (start-up, its first scan);
        ``between``: after landing files and moving their cursors, before the next."""
        if self.temps:
            return "writing"
        if self.repeats:
            return "cursor behind"
        return "before landing" if not (self.files or self.cursors) else "between"


STAGES = ("before landing", "writing", "cursor behind", "between")


def kill_points(points: list[KillPoint]) -> str:
    """Where the kills landed, in one line: how many at each :attr:`KillPoint.stage`, and the quartiles of the collector's
    CPU seconds when killed."""
    if not points:
        return "no kills"
    n = len(points)
    stages = {s: sum(1 for p in points if p.stage == s) for s in STAGES}
    cpu = sorted(p.cpu for p in points)
    q = [cpu[min(n - 1, n * k // 4)] for k in (0, 1, 2, 3)] + [cpu[-1]]
    return (f"{n} kills: " + ", ".join(f"{stages[s]} {s}" for s in STAGES)
            + "; collector CPU at the kill min/q1/median/q3/max " + "/".join(f"{x:.2f}" for x in q)
            + f" s; files landed per kill median {sorted(p.files for p in points)[n // 2]}, max {max(p.files for p in points)}")


#: CPU seconds of work the killed collector has done (:func:`command_cpu`) when it is killed, drawn evenly, for a
#: collector forked from the server: its start-up (options, plugins, the root's lock, the first scan) takes about
#: 0.07 s of them before the first pass lands anything, each watch pass after it (its workers' landing included) some
#: hundredths (docs/testing.md). Counted in the command's work, not in the wall: a wall-clock delay (0-1 s until
#: session 39) landed most kills in the start-up under load, and on an idle machine waited out passes asleep.
KILL_AT_CPU = (0.0, 0.15)
#: Seconds between starting a fresh interpreter's collector and killing it, drawn evenly (``after``): its first
#: 0.3-0.4 s (more under load) are its imports.
KILL_AFTER_FRESH = (0.3, 1.3)
#: Seconds between two looks at the command's CPU while waiting to kill it: ``/proc`` counts CPU in clock ticks of
#: 0.01 s, so a closer look sees nothing new (at 0.005 s the looks cost 0.017 s of the test's CPU a kill).
CPU_LOOK = 0.01


def command_cpu(pid: int, workers: dict[int, float]) -> float:
    """CPU seconds (user + sys) process ``pid`` and the children it forked have used so far, from ``/proc``: a
    collector and its workers, which a watch pass forks and lets end. ``workers`` keeps each child's last figure
    across calls, so one that ended still counts what it was last seen using (the figure never falls)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tasks = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                for c in f.read().split():
                    workers[int(c)] = max(workers.get(int(c), 0.0), process_cpu(int(c)))
        except OSError:
            continue
    return process_cpu(pid) + sum(workers.values())


def wait_for_cpu(proc, cpu: float, most: float = 30.0) -> None:
    """Return once ``proc`` and its workers have used ``cpu`` seconds of CPU (:func:`command_cpu`), it has ended, or
    ``most`` seconds have passed."""
    end, workers = time.monotonic() + most, {}
    while command_cpu(proc.pid, workers) < cpu and proc.poll() is None and time.monotonic() < end:
        time.sleep(CPU_LOOK)


def kill_loop(src: Path, root: Path, kills: int, jobs: str, rng: random.Random, *, start=forked.Popen,
              points: list[KillPoint] | None = None, after: tuple[float, float] | None = None) -> tuple[int, int]:
    """Start ``asz collect`` (watch mode, ``--jobs jobs``) ``kills`` times while a writer grows the sources, kill
    it with SIGKILL, then check that none of its workers outlives it by 3 s and that its stdout and stderr pipes
    close (no worker holds them), and check the root after a clean pass. Returns (lines written, records landed
    twice); ``points`` gets each kill's :class:`KillPoint`. ``start``: how the collector starts, forked from the
    pre-imported server (:mod:`forked`, the default), killed once it has used :data:`KILL_AT_CPU` seconds of CPU
    (drawn), or ``subprocess.Popen`` (a fresh interpreter), killed ``after`` seconds (drawn; default
    :data:`KILL_AFTER_FRESH`, some of them its imports); ``after`` given, any collector is killed so. Raises
    AssertionError on the first survivor, loss, gap, refusal or damaged file, naming the kill."""
    after = after or (None if start is forked.Popen else KILL_AFTER_FRESH)
    for session, stream in STREAMS:
        (src / session).mkdir(parents=True, exist_ok=True)
        (src / session / f"{stream}.jsonl").write_bytes(b"")
    counter = [0]
    args = [*ASZ, "collect", *mini_args(src, root, "--interval", "100ms", "--max-delta-bytes", "8192", "--jobs", jobs)]
    repeats, seen = 0, Seen()
    for kill in range(kills):
        writer = Writer(src, random.Random(rng.random()), counter)
        writer.start()
        # Its own process group: the workers it forks are found by group after it is gone.
        files, cursors, _ = root_marks(root) if points is not None else (0, {}, 0)
        proc = start(args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        if after is None:
            wait_for_cpu(proc, rng.uniform(*KILL_AT_CPU))
        else:
            time.sleep(rng.uniform(*after))
        assert proc.poll() is None, (kill, proc.stderr.read())  # killed while it runs, never after it stopped on its own
        cpu = process_cpu(proc.pid) if points is not None else 0.0
        proc.kill()
        writer.stop.set()  # what it wrote after the kill only made the clean pass longer
        proc.wait(timeout=30)
        left = survivors(proc.pid)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == [], f"kill {kill}: workers {left} outlived their command"
        if points is not None:
            files_after, cursors_after, temps = root_marks(root)
            points.append(KillPoint(cpu, files_after - files,
                                    sum(1 for p, m in cursors_after.items() if cursors.get(p) != m), temps))
        assert not lock_taken(root / COLLECTOR_LOCK), f"kill {kill}: the collector lock is held with the command's group gone"
        for stream in (proc.stdout, proc.stderr):
            assert reaches_end(stream, 3.0), f"kill {kill}: a pipe of the dead command is still held open"
        writer.join(timeout=30)
        full = (kill + 1) % FULL_EVERY == 0 or kill == kills - 1
        if full:
            seen = Seen()
        for _ in range(5):  # in this process, landing itself (module docstring); it parses on a full check
            p = collect_once(src, root, "--jobs", "1", *(() if full else ("--no-parse",)))
            assert p.stdout.strip(), (f"kill {kill}: the clean pass printed no pass line", p.returncode, p.stderr)
            if summary(p.stdout).get("pending") == "0":
                break
        assert p.returncode == 0, (kill, p.stdout, p.stderr)
        assert "conflict" not in p.stderr
        records = check(src, root, seen)
        lines = sum(len(seen.source_lines(src / s / f"{st}.jsonl")) for s, st in STREAMS)
        if points is not None:
            points[-1].repeats = records - lines - repeats
        repeats = records - lines
        assert seen.files_ok(root) == [], kill
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, (v.stdout, v.stderr)
    return counter[0], repeats
